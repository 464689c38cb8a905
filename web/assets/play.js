// play.js - the Play mode: place and remove queens by click or keyboard; the squares the queens
// attack are shaded, queens that attack each other are marked (as /check names them), and the
// server helps: a hint or the rest of the board (/complete), how many solutions remain (count=true).
import { get, describe, query, queensParam, boardSize } from './api.js';
import { Grid, attackedSquares } from './board.js';

export function initPlay(root, { onHash }) {
  const $ = (sel) => root.querySelector(sel);
  const form = $('#play-form');
  const nIn = $('#play-n');
  const boardBox = $('#play-board');
  const status = $('#play-status');
  const error = $('#play-error');
  const remain = $('#play-remain');
  const undoBtn = $('#play-undo');

  let n = 8;
  let columns = [];
  let history = []; // earlier states of columns, for undo
  let grid = null;
  let token = 0;

  const queens = () => columns.flatMap((c, r) => (c === null ? [] : [[r, c]]));

  function fail(err) {
    error.textContent = describe(err);
    error.hidden = false;
  }

  function setBoard(next, remember = true) {
    if (remember) history.push(columns.slice());
    columns = next;
    undoBtn.disabled = history.length === 0;
    remain.textContent = '';
    error.hidden = true;
    render(new Set());
    check();
  }

  function render(clash) {
    grid.show(columns, { attacked: attackedSquares(n, queens()), clash });
  }

  // /check says whether the queens attack each other and which; the board shows it.
  async function check() {
    const my = ++token;
    const qs = queens();
    try {
      const { body } = await get(`check?n=${n}&queens=${queensParam(qs)}`);
      if (my !== token) return;
      const clash = new Set();
      for (const [[r1, c1], [r2, c2]] of body.conflicts) {
        clash.add(`${r1},${c1}`);
        clash.add(`${r2},${c2}`);
      }
      render(clash);
      if (body.complete) status.textContent = `Solved! ${n} queens and none attacks another.`;
      else if (!body.valid) status.textContent = `${body.queens} of ${n} queens placed; ${body.conflict_count} ${body.conflict_count === 1 ? 'pair attacks' : 'pairs attack'} each other (ringed).`;
      else status.textContent = `${body.queens} of ${n} queens placed, none attacking another.`;
    } catch (err) {
      if (my === token) fail(err);
    }
  }

  function toggle(r, c) {
    const next = columns.slice();
    next[r] = next[r] === c ? null : c; // one queen a row: placing in a row moves its queen
    setBoard(next);
  }

  function start(size) {
    if (boardSize(size, Number(nIn.max)) === null) {
      const why = new Error(`Choose n from 1 to ${nIn.max}.`);
      if (!grid) { // an address with a board size out of range: show a board of 8 all the same
        nIn.value = '8';
        start(8);
      }
      fail(why);
      return;
    }
    n = size;
    columns = new Array(n).fill(null);
    history = [];
    undoBtn.disabled = true;
    grid = new Grid(boardBox, n, { interactive: true, onActivate: toggle, label: `Play board, ${n} by ${n}` });
    setBoard(columns, false);
  }

  // /complete for the board as it is; null when the board changed while it was asked (the answer is
  // about another board, and a later click asks again).
  async function complete(count) {
    error.hidden = true;
    const asked = `n=${n}&queens=${queensParam(queens())}`;
    const { body } = await get(`complete?${asked}${count ? '&count=true' : ''}`);
    return asked === `n=${n}&queens=${queensParam(queens())}` ? body : null;
  }

  $('#play-hint').addEventListener('click', async () => {
    try {
      const body = await complete(false);
      if (body === null) return;
      if (body.solution === null) { status.textContent = 'No solution contains these queens: remove or move one.'; return; }
      if (body.hint === null) { status.textContent = 'There is nothing to add: the board is full.'; return; }
      const [r, c] = body.hint;
      const next = columns.slice();
      next[r] = c;
      setBoard(next);
    } catch (err) { fail(err); }
  });
  $('#play-solve').addEventListener('click', async () => {
    try {
      const body = await complete(false);
      if (body === null) return;
      if (body.solution === null) { status.textContent = 'These queens cannot be part of a solution: remove or move one.'; return; }
      setBoard(body.solution.slice());
    } catch (err) { fail(err); }
  });
  $('#play-count').addEventListener('click', async () => {
    remain.textContent = 'Counting…';
    try {
      const body = await complete(true);
      if (body === null) return; /* setBoard cleared the line */
      const k = body.completions;
      remain.textContent = `${k.toLocaleString('en')} ${k === 1 ? 'solution contains' : 'solutions contain'} these queens.`;
    } catch (err) {
      remain.textContent = '';
      fail(err);
    }
  });
  undoBtn.addEventListener('click', () => {
    if (!history.length) return;
    const prev = history.pop();
    setBoard(prev, false);
  });
  $('#play-clear').addEventListener('click', () => setBoard(new Array(n).fill(null)));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    onHash(`play?${query({ n: nIn.value })}`);
    start(Number(nIn.value));
  });

  return {
    route(params) {
      const size = Number(params.get('n') || nIn.value || 8); // start() refuses what is out of range
      nIn.value = String(size);
      if (!grid || size !== n) start(size);
    },
  };
}
