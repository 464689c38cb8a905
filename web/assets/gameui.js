// gameui.js - what Play and Puzzle share around the board: the undo and redo keys, and the win's
// banner with its link to share (the board or puzzle to solve, never its solution).

// Ctrl+Z (or Cmd+Z) undoes, Ctrl+Y or Ctrl+Shift+Z redoes, while the view is shown and the focus is not
// in a text field (where the keys edit the text).
export function bindKeys(view, game) {
  document.addEventListener('keydown', (e) => {
    if (view.hidden || !(e.ctrlKey || e.metaKey) || e.altKey) return;
    if (e.target.closest && e.target.closest('input, select, textarea')) return;
    const g = game();
    if (!g) return;
    const k = e.key.toLowerCase();
    if (k === 'z' && !e.shiftKey) g.undo();
    else if (k === 'y' || (k === 'z' && e.shiftKey)) g.redo();
    else return;
    e.preventDefault();
  });
}

// Fill el with the win: a line of words, a link to the same game to share, and a button that copies it.
export function winBanner(el, words, href, linkText) {
  const strong = document.createElement('strong');
  strong.textContent = words;
  const a = document.createElement('a');
  a.href = href;
  a.textContent = linkText;
  a.className = 'share';
  const copy = document.createElement('button');
  copy.type = 'button';
  copy.textContent = 'Copy link';
  const said = document.createElement('span');
  said.className = 'note';
  said.setAttribute('aria-live', 'polite');
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(a.href);
      said.textContent = ' Copied.';
    } catch {
      said.textContent = ` ${a.href}`;
    }
  });
  const row = document.createElement('p');
  row.className = 'row';
  row.append(a, copy, said);
  el.replaceChildren(strong, row);
  el.hidden = false;
}
