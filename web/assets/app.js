// app.js - the page's entry point: five modes behind tabs, and the address's fragment
// ("#browse?n=8", "#play?n=6") saying which mode shows what, so a view can be bookmarked and shared.
// The fragment never reaches the server: the page is one constant document.
import { initBrowse } from './browse.js';
import { initCount } from './count.js';
import { initPlay } from './play.js';
import { initPuzzle } from './puzzle.js';
import { initWatch } from './watch.js';

const MODES = ['browse', 'count', 'play', 'puzzle', 'watch'];

function setHash(h) {
  history.replaceState(null, '', `#${h}`);
}

const modes = {};
const tabs = MODES.map((m) => document.getElementById(`tab-${m}`));
const started = new Set();

function select(mode, params) {
  for (const m of MODES) {
    const on = m === mode;
    const tab = document.getElementById(`tab-${m}`);
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
    document.getElementById(m).hidden = !on;
    if (!on && modes[m].leave) modes[m].leave();
  }
  if (params || !started.has(mode)) modes[mode].route(params || new URLSearchParams());
  started.add(mode);
}

function fromHash() {
  const h = location.hash.replace(/^#/, '');
  const [mode, q] = h.split('?');
  if (!MODES.includes(mode)) return select('browse', null);
  return select(mode, new URLSearchParams(q || ''));
}

modes.browse = initBrowse(document.getElementById('browse'), { onHash: setHash });
modes.count = initCount(document.getElementById('count'), { onHash: setHash });
modes.play = initPlay(document.getElementById('play'), { onHash: setHash });
modes.puzzle = initPuzzle(document.getElementById('puzzle'), { onHash: setHash });
modes.watch = initWatch(document.getElementById('watch'), { onHash: setHash });

tabs.forEach((tab, i) => {
  tab.addEventListener('click', () => {
    const mode = MODES[i];
    select(mode, null);
    if (!location.hash.startsWith(`#${mode}`)) setHash(mode);
  });
  tab.addEventListener('keydown', (e) => {
    // The ARIA tabs pattern: arrows move round the list, Home and End go to its ends.
    const target = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (target === undefined) return;
    const t = tabs[(target + tabs.length) % tabs.length];
    t.focus();
    t.click();
    e.preventDefault();
  });
});
window.addEventListener('hashchange', fromHash);
// The board's box is no taller than the screen below the header (style.css's --top): the header's height
// changes with the width (its tabs wrap), so it is measured, before the first board is drawn.
const header = document.querySelector('.top');
const measure = () => document.documentElement.style.setProperty('--top', `${Math.ceil(header.getBoundingClientRect().height)}px`);
measure();
new ResizeObserver(measure).observe(header);
fromHash();
