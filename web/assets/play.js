// play.js - the Play mode: a board of any n up to 32 to put n queens on, as a game (game.js: queens
// and crosses, conflicts, dead rows and columns, undo and redo, clock and moves, the win). The server
// helps: a hint with its reason from the puzzle service's deduction engine (/puzzle/solve; where the
// engine finds no step, the next queen of the first solution, /complete), the rest of the board
// (/complete) and how many solutions remain (/puzzle/solve counted up to 1,000). The position is in
// the address (#play?n=8&queens=0:3,1:5&marks=2:2), so a reload or a shared link restores it.
import { get, post, describe, query, queensParam, boardSize } from './api.js';
import { Game, squaresParam, parseSquares, clockText, saveClock, savedClock } from './game.js';
import { bindKeys, winBanner } from './gameui.js';

const COUNT_LIMIT = 1000; // /puzzle/solve's default cap on how far it counts

export function initPlay(root, { onHash }) {
  const $ = (sel) => root.querySelector(sel);
  const form = $('#play-form');
  const nIn = $('#play-n');
  const error = $('#play-error');
  const remain = $('#play-remain');
  const hintText = $('#play-hint-text');
  const els = { board: $('#play-board'), status: $('#play-status'), clock: $('#play-clock'), moves: $('#play-moves'),
    win: $('#play-win'), undo: $('#play-undo'), redo: $('#play-redo'), shade: $('#play-shade') };

  let game = null;

  function fail(err) {
    error.textContent = describe(err);
    error.hidden = false;
  }

  function address() {
    const { queens, marks } = game.position();
    return `play?${query({ n: game.n, queens: squaresParam(queens), marks: squaresParam(marks) })}`;
  }

  function changed() {
    remain.textContent = '';
    hintText.textContent = '';
    error.hidden = true;
    onHash(address());
    saveClock(address(), game);
  }

  function won({ ms, moves }) {
    // The link shares the board to solve, not the solution.
    const words = moves ? `Solved in ${clockText(ms)} with ${moves} ${moves === 1 ? 'move' : 'moves'}!` : 'Solved!'; // 0: opened solved
    winBanner(els.win, words,
      `#play?n=${game.n}`, `Try ${game.n} queens yourself`);
  }

  function start(size, position = null) {
    if (boardSize(size, Number(nIn.max)) === null) {
      const why = new Error(`Choose n from 1 to ${nIn.max}.`);
      if (!game) { // an address with a board size out of range: show a board of 8 all the same
        nIn.value = '8';
        start(8);
      }
      fail(why);
      return;
    }
    if (game) game.destroy();
    error.hidden = true;
    remain.textContent = '';
    hintText.textContent = '';
    els.win.hidden = true;
    game = new Game(els, { n: size, kind: 'queens', label: `Play board, ${size} by ${size}`, onChange: changed, onWin: won });
    if (position) game.restore(position);
  }

  // The position as the routes take it; an answer for a board changed meanwhile is dropped (null).
  async function ask(fn) {
    error.hidden = true;
    const before = address();
    const body = await fn(game.position());
    return before === address() ? body : null;
  }

  $('#play-hint').addEventListener('click', async () => {
    try {
      const body = await ask(({ queens, marks }) => post('puzzle/solve', { kind: 'queens', n: game.n, clues: [], queens, marks }).then((r) => r.body));
      if (body === null) return;
      if (body.mistakes.queens.length) {
        game.showMistakes(body.mistakes.queens, []);
        const [r, c] = body.mistakes.queens[0];
        hintText.textContent = `The queen on row ${r + 1}, column ${c + 1} is in no solution with the other queens: move it.`;
        return;
      }
      if (body.solutions === 0) { hintText.textContent = 'No solution contains these queens: remove or move one.'; return; }
      if (body.hint) {
        game.showHint(body.hint);
        hintText.textContent = `${body.hint.op === 'place' ? 'A queen goes' : 'No queen can go'} on row ${body.hint.square[0] + 1}, column ${body.hint.square[1] + 1}: ${body.hint.why}`;
        return;
      }
      const done = await ask(({ queens }) => get(`complete?n=${game.n}&queens=${queensParam(queens)}`).then((r) => r.body));
      if (done === null) return;
      if (done.hint === null) { hintText.textContent = 'There is nothing to add: the board is full.'; return; }
      game.showHint({ square: done.hint, because: [], why: 'row' });
      hintText.textContent = `No step of reasoning is left that is short to tell; the first solution with these queens has one on row ${done.hint[0] + 1}, column ${done.hint[1] + 1}.`;
    } catch (err) { fail(err); }
  });
  $('#play-solve').addEventListener('click', async () => {
    try {
      const body = await ask(({ queens }) => get(`complete?n=${game.n}&queens=${queensParam(queens)}`).then((r) => r.body));
      if (body === null) return;
      if (body.solution === null) { hintText.textContent = 'These queens cannot be part of a solution: remove or move one.'; return; }
      game.set(body.solution.map((c, r) => [r, c]));
    } catch (err) { fail(err); }
  });
  $('#play-count').addEventListener('click', async () => {
    remain.textContent = 'Counting…';
    try {
      const body = await ask(({ queens }) => post('puzzle/solve', { kind: 'queens', n: game.n, clues: [], queens, limit: COUNT_LIMIT }).then((r) => r.body));
      if (body === null) return; /* the change cleared the line */
      const k = body.solutions;
      remain.textContent = k >= COUNT_LIMIT ? `At least ${COUNT_LIMIT.toLocaleString('en')} solutions contain these queens.`
        : `${k.toLocaleString('en')} ${k === 1 ? 'solution contains' : 'solutions contain'} these queens.`;
    } catch (err) {
      remain.textContent = '';
      fail(err);
    }
  });
  els.undo.addEventListener('click', () => game.undo());
  els.redo.addEventListener('click', () => game.redo());
  els.shade.addEventListener('change', () => {
    localStorage.setItem('nq-shade', els.shade.checked ? '1' : '0');
    game.render();
  });
  els.shade.checked = localStorage.getItem('nq-shade') === '1';
  $('#play-clear').addEventListener('click', () => game.clear());
  bindKeys(root, () => game);
  window.addEventListener('pagehide', () => { if (game) saveClock(address(), game); });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    start(Number(nIn.value));
    if (game.n === Number(nIn.value)) onHash(address());
  });

  return {
    route(params) {
      const size = Number(params.get('n') || nIn.value || 8); // start() refuses what is out of range
      nIn.value = String(size);
      const position = { queens: parseSquares(params.get('queens'), size), marks: parseSquares(params.get('marks'), size) };
      const asked = `play?${query({ n: size, queens: squaresParam(position.queens), marks: squaresParam(position.marks) })}`;
      if (!(game && size === game.n && address() === asked)) start(size, { ...position, ...savedClock(asked) });
    },
    leave() { if (game) game.pauseClock(); },
  };
}
