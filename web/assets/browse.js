// browse.js - the Browse mode: the solutions of a board one at a time, in /solve order (previous,
// next by the "next" cursor, a solution number by offset, all or unique ones); for boards beyond the
// listing limit one solution from /solution (construct, or random with its seed and a permalink),
// drawn as squares, a scaled canvas, or a density view as n grows.
import { get, describe, query, relative, ApiError } from './api.js';
import { Grid, GRID_MAX, drawScaled, drawDensity, boardText, columnsText } from './board.js';

const TEXT_N_MAX = 1000; // largest board copied as text (n x n characters)
const SCALED_MAX = 2000; // largest n drawn square by square on a canvas
const MIN_CELL = 3; // px: a queen stays visible

export function initBrowse(root, { onHash }) {
  const $ = (sel) => root.querySelector(sel);
  const form = $('#browse-form');
  const nIn = $('#browse-n');
  const unique = $('#browse-unique');
  const method = $('#browse-method');
  const seedIn = $('#browse-seed');
  const status = $('#browse-status');
  const board = $('#browse-board');
  const error = $('#browse-error');
  const prev = $('#browse-prev');
  const next = $('#browse-next');
  const jumpForm = $('#browse-jump');
  const jumpIn = $('#browse-jump-n');
  const anyn = $('#browse-anyn');
  const permalink = $('#browse-permalink');
  const copied = $('#browse-copied');
  const hint = $('#browse-hint');

  // What is shown: n, the 0-based index in the listing (or null for /solution), the columns, the
  // listing's total, the "next" link, and the solutions seen so far by index (for previous).
  let state = null;
  let token = 0; // a newer request makes an older answer stale
  let listMax = Infinity; // the largest n /solve lists, once a 422 has said so

  function fail(err) {
    error.textContent = describe(err);
    error.hidden = false;
  }

  function draw(columns) {
    const n = columns.length;
    if (n <= GRID_MAX) {
      const g = new Grid(board, n, { label: `Solution board, ${n} by ${n}` });
      g.show(columns);
      return '';
    }
    const canvas = document.createElement('canvas');
    const avail = Math.max(200, board.clientWidth || 600);
    if (n <= SCALED_MAX) {
      const cell = Math.max(MIN_CELL, Math.floor((avail - 40) / n));
      canvas.setAttribute('aria-label', `Solution board, ${n} by ${n}, ${cell} pixels a square`);
      canvas.setAttribute('role', 'img');
      board.replaceChildren(canvas);
      drawScaled(canvas, columns, cell);
      return `${cell} pixels a square: scroll the board to see all of it.`;
    } else {
      const px = Math.min(avail, 600);
      canvas.setAttribute('role', 'img');
      canvas.setAttribute('aria-label', `Density of queens on a ${n} by ${n} board: darker where more queens are`);
      board.replaceChildren(canvas);
      drawDensity(canvas, columns, px);
      return `Too many squares to draw one by one: each dot is a block of about ${Math.ceil(n / px)} × ${Math.ceil(n / px)} squares, darker where it holds more queens.`;
    }
  }

  function show(s) {
    state = s;
    error.hidden = true;
    hint.textContent = draw(s.columns);
    const n = s.columns.length;
    if (s.index === null) {
      const seed = s.seed === null ? '' : `, seed ${s.seed}`;
      status.textContent = `One solution of n = ${n} (${s.method}${seed})`;
      if (!s.columns.length || s.solution === null) status.textContent = `n = ${s.n} has no solution.`;
    } else {
      const of = s.total === null ? '' : ` of ${s.total.toLocaleString('en')}`;
      const kind = s.unique ? 'unique solution' : 'solution';
      status.textContent = `${kind[0].toUpperCase()}${kind.slice(1)} ${(s.index + 1).toLocaleString('en')}${of}`;
    }
    prev.disabled = s.index === null || s.index === 0;
    next.disabled = s.index === null || !s.next;
    jumpIn.disabled = s.index === null;
    jumpForm.querySelector('button').disabled = s.index === null;
    if (s.total !== null) jumpIn.max = String(s.total);
    if (s.index === null && s.method === 'random' && s.seed !== null) {
      const h = `#browse?${query({ n: s.n, method: 'random', seed: s.seed })}`;
      permalink.href = h;
      permalink.hidden = false;
    } else {
      permalink.hidden = true;
    }
  }

  // One page of /solve: limit 1 at offset, or after the given cursor link.
  async function listing(n, uniq, { offset, link }) {
    const path = link ? relative(link) : `solve?${query({ n, format: 'columns', unique: uniq ? 'true' : 'false', limit: 1, offset })}`;
    const { body } = await get(path);
    return body;
  }

  async function open(n, index, opts = {}) {
    if (n > listMax) return single(n);
    const my = ++token;
    const uniq = unique.checked;
    try {
      const body = await listing(n, uniq, opts.link ? { link: opts.link } : { offset: index });
      if (my !== token) return;
      if (!body.solutions.length) throw new ApiError(404, { title: 'No such solution', detail: index === 0 ? `n = ${n} has no solution.` : `There are only ${body.total} solutions.` });
      const seen = state && state.n === n && state.unique === uniq && state.seen ? state.seen : new Map();
      seen.set(index, body.solutions[0]);
      anyn.hidden = true;
      show({ n, unique: uniq, index, columns: body.solutions[0], total: body.total, next: body.next, seen });
    } catch (err) {
      if (my !== token) return;
      // Beyond the listing limit: one solution from /solution instead.
      if (err instanceof ApiError && err.status === 422 && err.problem && err.problem.param === 'n') {
        if (typeof err.problem.limit === 'number') listMax = err.problem.limit;
        return single(n);
      }
      fail(err);
    }
  }

  async function single(n) {
    const my = ++token;
    anyn.hidden = false;
    const m = method.value;
    const seed = m === 'random' && seedIn.value !== '' ? seedIn.value : undefined;
    try {
      const { body } = await get(`solution?${query({ n, method: m, seed })}`);
      if (my !== token) return;
      // A seed the person gave is kept as typed: JSON numbers beyond 2^53 come back rounded (one the
      // server picks is always below that, so its number is exact).
      const exact = body.seed === null ? null : seed ?? String(body.seed);
      if (exact !== null) seedIn.value = exact;
      show({ n, index: null, method: body.method, seed: exact, solution: body.solution, columns: body.solution || [] });
      onHash(m === 'random' ? `browse?${query({ n, method: m, seed: exact })}` : `browse?n=${n}`);
    } catch (err) {
      if (my === token) fail(err);
    }
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const n = Number(nIn.value);
    if (!anyn.hidden && state && state.n === n && state.index === null) return single(n);
    onHash(`browse?n=${n}${unique.checked ? '&unique=true' : ''}`);
    open(n, 0);
  });
  unique.addEventListener('change', () => form.requestSubmit());
  method.addEventListener('change', () => {
    seedIn.disabled = method.value !== 'random';
    if (method.value !== 'random') seedIn.value = '';
  });
  next.addEventListener('click', () => {
    if (!state || !state.next) return;
    open(state.n, state.index + 1, { link: state.next });
  });
  prev.addEventListener('click', () => {
    if (!state || !state.index) return;
    const i = state.index - 1;
    if (state.seen.has(i)) {
      const cols = state.seen.get(i);
      // The cursor after the solution shown is the next one: /solve's "after" is the columns.
      const link = `solve?${query({ n: state.n, format: 'columns', unique: state.unique ? 'true' : 'false', limit: 1 })}&after=${cols.join(',')}`;
      show({ ...state, index: i, columns: cols, next: link });
    } else {
      open(state.n, i);
    }
  });
  jumpForm.addEventListener('submit', (e) => {
    e.preventDefault();
    if (!state) return;
    open(state.n, Math.max(0, Number(jumpIn.value) - 1));
  });

  async function copy(text, what) {
    try {
      await navigator.clipboard.writeText(text);
      copied.textContent = `Copied the board as ${what}.`;
    } catch {
      copied.textContent = `Copying was not allowed; the ${what} are selected in the box below instead.`;
      const area = $('#browse-copy-area');
      area.value = text;
      area.hidden = false;
      area.select();
    }
  }
  $('#browse-copy-text').addEventListener('click', () => {
    if (!state) return;
    if (state.columns.length > TEXT_N_MAX) { // n x n characters: a megabyte at 1,000, a terabyte at 10^6
      copied.textContent = `A board of n = ${state.columns.length} is too large to copy as text; copy its columns instead.`;
      return;
    }
    copy(boardText(state.columns), 'text');
  });
  $('#browse-copy-columns').addEventListener('click', () => state && copy(columnsText(state.columns), 'columns'));

  // The mode's part of the address: "n=8&unique=true" or "n=1000&method=random&seed=7".
  return {
    route(params) {
      const n = Number(params.get('n') || nIn.value || 8);
      nIn.value = String(n);
      unique.checked = params.get('unique') === 'true';
      if (params.get('method')) {
        method.value = params.get('method');
        seedIn.disabled = method.value !== 'random';
        seedIn.value = params.get('seed') || '';
        anyn.hidden = false;
        return single(n);
      }
      return open(n, 0);
    },
  };
}
