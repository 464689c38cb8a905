// browse.js - the Browse mode: the solutions of a board one at a time, in /solve order (previous,
// next by the "next" cursor, a solution number by offset, all or unique ones); for boards beyond the
// listing limit one solution from /solution (construct, or random with its seed and a permalink),
// drawn as squares, a scaled canvas, or a density view as n grows.
import { get, describe, query, relative, sleep, serverLimits, ApiError } from './api.js';
import { Grid, GRID_MAX, boardText, columnsText } from './board.js';
import { Viewer } from './viewer.js';

const TEXT_N_MAX = 1000; // largest board copied as text (n x n characters)

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
  // The largest n /solve lists and /count counts: from /limits, or from a 422's limit should /limits
  // not answer.
  const limits = {};
  const learn = (what, v) => { limits[what] = v; };
  const known = serverLimits().then((l) => {
    if (l) {
      learn('solve', l.max_n_solve);
      learn('count', l.max_n_count);
    }
  });
  let counting = null; // the AbortController of the total being counted

  function fail(err) {
    error.textContent = describe(err);
    error.hidden = false;
  }

  let viewer = null;
  function draw(columns) {
    const n = columns.length;
    if (viewer) viewer.destroy();
    viewer = null;
    if (n <= GRID_MAX) {
      const g = new Grid(board, n, { label: `Solution board, ${n} by ${n}` });
      g.show(columns);
      return '';
    }
    viewer = new Viewer(board, columns, { label: `Solution board, ${n} by ${n}`, onView: (t) => { hint.textContent = t; } });
    return hint.textContent;
  }

  function show(s) {
    state = s;
    error.hidden = true;
    hint.textContent = draw(s.columns);
    const n = s.columns.length;
    if (s.none) {
      status.textContent = `n = ${s.n} has no solution.`;
    } else if (s.index === null) {
      const seed = s.seed === null ? '' : `, seed ${s.seed}`;
      status.textContent = `One solution of n = ${n} (${s.method}${seed})`;
      if (!s.columns.length || s.solution === null) status.textContent = `n = ${s.n} has no solution.`;
    } else {
      const of = s.total === null || s.total === undefined ? '' : ` of ${s.total.toLocaleString('en')}`;
      const kind = s.unique ? 'unique solution' : 'solution';
      status.textContent = `${kind[0].toUpperCase()}${kind.slice(1)} ${(s.index + 1).toLocaleString('en')}${of}`;
    }
    prev.disabled = s.index === null || s.index === 0;
    next.disabled = s.index === null || !s.next;
    jumpIn.disabled = s.index === null;
    jumpForm.querySelector('button').disabled = s.index === null;
    if (typeof s.total === 'number') jumpIn.max = String(s.total);
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

  // A new n: nothing of the last board or its words stays while the new one is asked for.
  function fresh(n) {
    error.hidden = true;
    copied.textContent = '';
    if (state && state.n === n) return;
    if (counting) counting.abort();
    if (viewer) viewer.destroy();
    viewer = null;
    state = null;
    board.replaceChildren();
    hint.textContent = '';
    status.textContent = `Asking for n = ${n}…`;
  }

  async function open(n, index, opts = {}) {
    await known;
    if (n > (limits.solve ?? Infinity)) return single(n);
    fresh(n);
    const my = ++token;
    const uniq = unique.checked;
    try {
      const body = await listing(n, uniq, opts.link ? { link: opts.link } : { offset: index });
      if (my !== token) return;
      if (!body.solutions.length && index === 0) {
        // No solution at all (n = 2, 3): an empty board of n, not the last one shown.
        anyn.hidden = true;
        show({ n, unique: uniq, index: null, none: true, columns: new Array(n).fill(null), total: 0, next: null, seen: new Map() });
        onHash(`browse?${query({ n, unique: uniq ? 'true' : undefined })}`);
        return;
      }
      if (!body.solutions.length) throw new ApiError(404, { title: 'No such solution', detail: `There are only ${body.total} solutions.` });
      const seen = state && state.n === n && state.unique === uniq && state.seen ? state.seen : new Map();
      seen.set(index, body.solutions[0]);
      anyn.hidden = true;
      const known = state && state.n === n && state.unique === uniq ? state.total : null;
      show({ n, unique: uniq, index, columns: body.solutions[0], total: body.total ?? known, next: body.next, seen });
      onHash(`browse?${query({ n, unique: uniq ? 'true' : undefined, offset: index || undefined })}`);
      if (body.total === null && known === null) total(n, uniq);
    } catch (err) {
      if (my !== token) return;
      // Beyond the listing limit: one solution from /solution instead.
      if (err instanceof ApiError && err.status === 422 && err.problem && err.problem.param === 'n') {
        if (typeof err.problem.limit === 'number') learn('solve', err.problem.limit);
        return single(n);
      }
      fail(err);
    }
  }

  // The total of a listing too long for /solve to count: /count, its progress shown while it runs
  // (Prefer: wait=1, then the Location at the pace of Retry-After), for every n the server counts.
  async function total(n, uniq) {
    if (counting) counting.abort();
    await known;
    if (n > (limits.count ?? Infinity)) {
      hint.textContent = `This server counts totals up to n = ${limits.count}.`;
      return;
    }
    const ctl = new AbortController();
    counting = ctl;
    let path = `count?${query({ n })}`;
    try {
      for (;;) {
        const { status: st, body, headers } = await get(path, { Prefer: 'wait=1' }, ctl.signal);
        if (ctl.signal.aborted || !state || state.n !== n) return;
        if (st === 200) {
          state.total = uniq ? body.unique : body.total;
          show(state);
          return;
        }
        const p = typeof body.progress === 'number' ? ` ${(body.progress * 100).toFixed(1)}%` : '';
        hint.textContent = `Counting the total of n = ${n}:${p} done…`;
        if (headers.get('Location')) path = relative(headers.get('Location'));
        await sleep(Math.min(Number(headers.get('Retry-After')) || 1, 5) * 1000, ctl.signal);
        if (ctl.signal.aborted) return;
      }
    } catch (err) {
      if (ctl.signal.aborted) return;
      if (err instanceof ApiError && err.status === 422 && err.problem && err.problem.param === 'n') {
        if (typeof err.problem.limit === 'number') learn('count', err.problem.limit);
        hint.textContent = `This server counts totals up to n = ${err.problem.limit}.`;
        return;
      }
      fail(err);
    }
  }

  async function single(n) {
    fresh(n);
    const my = ++token;
    anyn.hidden = false;
    const m = method.value;
    const seed = m === 'random' && seedIn.value !== '' ? seedIn.value : undefined;
    // Every route takes a seed from 0 to 2^53 - 1 (a JSON number stays exact): say so without asking.
    if (seed !== undefined && !(/^\d{1,16}$/.test(seed) && BigInt(seed) <= 9007199254740991n)) {
      fail(new Error('A seed is a whole number from 0 to 9007199254740991 (2^53 - 1).'));
      return;
    }
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
      onHash(`browse?${query({ n: state.n, unique: state.unique ? 'true' : undefined, offset: i || undefined })}`);
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
      const offset = Number(params.get('offset') || 0);
      return open(n, Number.isInteger(offset) && offset >= 0 ? offset : 0);
    },
  };
}
