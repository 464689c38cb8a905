// puzzle.js - the Puzzle view: queens puzzles with exactly one solution from /puzzle, today's of each
// kind, size and difficulty (today by the player's own calendar), another at random, or any by its
// link; played on game.js's board (regions coloured and bordered, clues fixed). /puzzle/solve gives
// hints with their reasons, the mistakes and, on request, the solution. A puzzle solved is remembered
// for the day in this browser's localStorage (nothing is sent); the address holds the puzzle and the
// position (#puzzle?kind=regions&n=8&difficulty=easy&date=2026-12-05&queens=0:3).
import { get, post, describe, query } from './api.js';
import { Game, squaresParam, parseSquares, clockText, saveClock, savedClock } from './game.js';
import { bindKeys, winBanner } from './gameui.js';

const RANGE = { queens: [4, 32], regions: [5, 16] };
const RULES = {
  regions: 'Place one queen in each row, each column and each coloured region; no two queens may touch, not even diagonally.',
  queens: 'Some queens are given. Place the others so that no two share a row, a column or a diagonal.',
};
const STORE = 'nq-solved';

// The combinations the server offers (docs/puzzles.md): asking for another would be a 422.
export function offered(kind, n, difficulty) {
  const [lo, hi] = RANGE[kind];
  if (n < lo || n > hi) return false;
  if (kind === 'queens') return !((difficulty === 'medium' && n <= 7) || (difficulty === 'hard' && n <= 4) || (difficulty === 'expert' && n <= 5));
  return true;
}

// Today in the player's calendar, YYYY-MM-DD.
export function today(d = new Date()) {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

function randomSeed() {
  const [a, b] = crypto.getRandomValues(new Uint32Array(2));
  return (a & 0x1fffff) * 2 ** 32 + b; // 0 .. 2^53 - 1, as every route takes it
}

// Finished puzzles, kept for the day they were solved: {id: {day, ms, moves, queens}}.
function solvedToday() {
  try {
    const all = JSON.parse(localStorage.getItem(STORE) || '{}');
    const kept = Object.fromEntries(Object.entries(all).filter(([, v]) => v && v.day === today()));
    return kept;
  } catch {
    return {};
  }
}

export function initPuzzle(root, { onHash }) {
  const $ = (sel) => root.querySelector(sel);
  const form = $('#puzzle-form');
  const kindIn = $('#puzzle-kind');
  const nIn = $('#puzzle-n');
  const diffIn = $('#puzzle-difficulty');
  const error = $('#puzzle-error');
  const hintText = $('#puzzle-hint-text');
  const rules = $('#puzzle-rules');
  const link = $('#puzzle-link');
  const els = { board: $('#puzzle-board'), status: $('#puzzle-status'), clock: $('#puzzle-clock'), moves: $('#puzzle-moves'),
    win: $('#puzzle-win'), undo: $('#puzzle-undo'), redo: $('#puzzle-redo'), shade: $('#puzzle-shade') };

  let game = null;
  let puzzle = null; // the /puzzle answer
  let token = 0;
  let revealed = false;

  function fail(err) {
    error.textContent = describe(err);
    error.hidden = false;
  }

  // The puzzle's own parameters: what a link shares.
  function ident(p = puzzle) {
    const by = p.date ? { date: p.date } : { seed: p.seed };
    return { kind: p.kind, n: p.n, difficulty: p.difficulty, ...by, generator: p.generator };
  }
  const id = () => query(ident());

  function address() {
    const { queens, marks } = game.position();
    return `puzzle?${query({ ...ident(), queens: squaresParam(queens), marks: squaresParam(marks) })}`;
  }

  function changed() {
    hintText.textContent = '';
    error.hidden = true;
    onHash(address());
    saveClock(address(), game);
  }

  function won({ ms, moves }) {
    if (revealed) {
      els.win.hidden = true;
      return;
    }
    const all = solvedToday();
    const before = all[id()];
    if (!before) {
      all[id()] = { day: today(), ms, moves, queens: game.position().queens };
      try { localStorage.setItem(STORE, JSON.stringify(all)); } catch { /* private mode: not remembered */ }
    }
    const what = puzzle.date ? `the ${puzzle.difficulty} ${puzzle.kind} puzzle of ${puzzle.date}` : `this ${puzzle.difficulty} ${puzzle.kind} puzzle`;
    const { ms: t, moves: m } = before || { ms, moves };
    winBanner(els.win, `Solved ${what} in ${clockText(t)} with ${m} ${m === 1 ? 'move' : 'moves'}!`, `#puzzle?${id()}`, 'Share this puzzle');
  }

  function setRange() {
    const [lo, hi] = RANGE[kindIn.value];
    nIn.min = String(lo);
    nIn.max = String(hi);
  }

  // Load the puzzle of p ({kind, n, difficulty, date | seed, generator}), then the position.
  async function load(p, position = null) {
    const my = ++token;
    error.hidden = true;
    hintText.textContent = '';
    kindIn.value = p.kind;
    setRange();
    nIn.value = String(p.n);
    diffIn.value = p.difficulty;
    if (!offered(p.kind, p.n, p.difficulty)) {
      const [lo, hi] = RANGE[p.kind];
      fail(new Error(p.n < lo || p.n > hi ? `A ${p.kind} puzzle has n from ${lo} to ${hi}.`
        : `There is no ${p.difficulty} ${p.kind} puzzle of n = ${p.n}: no such board needs exactly that difficulty.`));
      return;
    }
    els.status.textContent = 'Making the puzzle…'; // a large regions board can take a second or two
    try {
      const { body } = await get(`puzzle?${query(p)}`);
      if (my !== token) return;
      puzzle = body;
      revealed = false;
      if (game) game.destroy();
      els.win.hidden = true;
      const which = body.date ? `The puzzle of ${body.date === today() ? 'today' : body.date}` : `Puzzle ${body.seed}`;
      rules.textContent = `${which}: ${body.kind}, ${body.n} × ${body.n}, ${body.difficulty}. ${RULES[body.kind]}`;
      game = new Game(els, { n: body.n, kind: body.kind, regions: body.regions, clues: body.clues || [],
        label: `Puzzle board, ${body.kind}, ${body.n} by ${body.n}`, onChange: changed, onWin: won });
      link.href = `#puzzle?${id()}`;
      const done = solvedToday()[id()];
      if (done && !(position && (position.queens.length || position.marks.length))) game.restore({ queens: done.queens, moves: done.moves, ms: done.ms });
      else if (position) game.restore(position);
      const restored = savedClock(address());
      if (restored.moves !== undefined && !done) game.restore({ ...game.position(), ...restored });
      onHash(address());
    } catch (err) {
      if (my === token) fail(err);
    }
  }

  function fromForm(by) {
    const n = Number(nIn.value);
    return { kind: kindIn.value, n, difficulty: diffIn.value, ...by };
  }

  async function solve(extra, fromEmpty = false) {
    const { queens, marks } = fromEmpty ? { queens: [], marks: [] } : game.position();
    const body = puzzle.kind === 'regions' ? { kind: 'regions', n: puzzle.n, regions: puzzle.regions }
      : { kind: 'queens', n: puzzle.n, clues: puzzle.clues };
    const before = address();
    const { body: answer } = await post('puzzle/solve', { ...body, queens, marks, ...extra });
    return before === address() ? answer : null;
  }

  $('#puzzle-hint').addEventListener('click', async () => {
    try {
      const a = await solve({});
      if (!a) return;
      if (a.mistakes.queens.length || a.mistakes.marks.length) {
        game.showMistakes(a.mistakes.queens, a.mistakes.marks);
        hintText.textContent = 'First put right what is marked as a mistake: a queen that is in no solution, or a cross on a square of the solution.';
        return;
      }
      if (!a.hint) { hintText.textContent = game.won ? 'Solved: there is nothing left to find.' : 'No hint from here.'; return; }
      game.showHint(a.hint);
      const [r, c] = a.hint.square;
      hintText.textContent = `${a.hint.op === 'place' ? 'Place a queen' : 'Cross out'} on row ${r + 1}, column ${c + 1}. ${a.hint.why}`;
    } catch (err) { fail(err); }
  });
  $('#puzzle-mistakes').addEventListener('click', async () => {
    try {
      const a = await solve({});
      if (!a) return;
      const k = a.mistakes.queens.length + a.mistakes.marks.length;
      game.showMistakes(a.mistakes.queens, a.mistakes.marks);
      hintText.textContent = k ? `${k} ${k === 1 ? 'mistake' : 'mistakes'} marked: ${a.mistakes.queens.length} queens in no solution, ${a.mistakes.marks.length} crosses on its squares.`
        : 'No mistakes so far.';
    } catch (err) { fail(err); }
  });
  $('#puzzle-reveal').addEventListener('click', async () => {
    try {
      const a = await solve({ reveal: true }, true); // the solution whatever the player has put
      if (!a || !a.solution) return;
      revealed = true;
      game.set(a.solution.map((c, r) => [r, c]).filter(([r, c]) => !(puzzle.clues || []).some(([cr, cc]) => cr === r && cc === c)));
      hintText.textContent = 'The solution is shown; this puzzle is not counted as solved.';
    } catch (err) { fail(err); }
  });
  els.undo.addEventListener('click', () => game && game.undo());
  els.redo.addEventListener('click', () => game && game.redo());
  $('#puzzle-clear').addEventListener('click', () => game && game.clear());
  els.shade.addEventListener('change', () => {
    localStorage.setItem('nq-shade', els.shade.checked ? '1' : '0');
    if (game) game.render();
  });
  els.shade.checked = localStorage.getItem('nq-shade') === '1';
  bindKeys(root, () => game);
  window.addEventListener('pagehide', () => { if (game && puzzle) saveClock(address(), game); });
  kindIn.addEventListener('change', setRange);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    load(fromForm({ date: today() }));
  });
  $('#puzzle-new').addEventListener('click', () => {
    if (form.reportValidity()) load(fromForm({ seed: randomSeed() }));
  });

  return {
    route(params) {
      const kind = params.get('kind') === 'queens' ? 'queens' : 'regions';
      const n = Number(params.get('n') || 8);
      const difficulty = ['easy', 'medium', 'hard', 'expert'].includes(params.get('difficulty')) ? params.get('difficulty') : 'easy';
      const by = params.get('seed') ? { seed: params.get('seed') } : { date: params.get('date') || today() };
      const generator = params.get('generator') || undefined;
      const position = { queens: parseSquares(params.get('queens'), n), marks: parseSquares(params.get('marks'), n) };
      return load({ kind, n, difficulty, ...by, generator }, position);
    },
    leave() { if (game) game.pauseClock(); },
  };
}
