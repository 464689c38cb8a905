// watch.js - the Watch mode: the backtracking search of /trace played back step by step (play, pause,
// step, speed), showing the row being tried, the square just rejected and the rule it breaks, queens
// placed and removed, and the solutions found so far. Pages of steps are fetched as the playback
// needs them, following each page's "next" link.
import { get, describe, query, relative, boardSize } from './api.js';
import { Grid } from './board.js';

const PAGE = 500; // steps fetched at a time

// One step in words, as the page shows it.
export function stepText(s) {
  switch (s.op) {
    case 'place': return `Step ${s.step}: place a queen at row ${s.row}, column ${s.col}`;
    case 'reject': return `Step ${s.step}: row ${s.row}, column ${s.col} is rejected (${s.by})`;
    case 'remove': return `Step ${s.step}: remove the queen at row ${s.row}, column ${s.col}`;
    case 'solution': return `Step ${s.step}: solution found: ${s.columns.join(',')}`;
    default: return `Step ${s.step}: ${s.op}`;
  }
}

export function initWatch(root, { onHash }) {
  const $ = (sel) => root.querySelector(sel);
  const form = $('#watch-form');
  const nIn = $('#watch-n');
  const boardBox = $('#watch-board');
  const stepOut = $('#watch-step');
  const facts = $('#watch-facts');
  const error = $('#watch-error');
  const playBtn = $('#watch-play');
  const stepBtn = $('#watch-stepbtn');
  const speed = $('#watch-speed');
  const speedOut = $('#watch-speed-out');
  const log = $('#watch-log');

  let run = null; // {n, grid, steps, at, next, columns, solutions, done, loading}
  let timer = null;

  function fail(err) {
    error.textContent = describe(err);
    error.hidden = false;
    pause();
  }

  async function more() {
    if (!run || run.loading || !run.next) return;
    run.loading = true;
    const r = run;
    try {
      const { body } = await get(relative(r.next));
      r.steps.push(...body.steps);
      r.next = body.next;
    } catch (err) {
      fail(err);
    } finally {
      r.loading = false;
    }
  }

  function load(n) {
    pause();
    error.hidden = true;
    const grid = new Grid(boardBox, n, { label: `Search board, ${n} by ${n}` });
    run = { n, grid, steps: [], at: 0, next: `trace?${query({ n, limit: PAGE })}`, columns: new Array(n).fill(null), solutions: 0, row: 0 };
    grid.show(run.columns, { row: 0 });
    stepOut.textContent = 'Press Play or Step to start the search.';
    log.replaceChildren();
    facts.textContent = `Row 0 · 0 queens on the board · 0 solutions so far`;
    playBtn.disabled = false;
    stepBtn.disabled = false;
    return more();
  }

  // Apply the next step; false when there is none (yet).
  async function step() {
    if (!run) return false;
    if (run.at >= run.steps.length) {
      await more();
      if (run.at >= run.steps.length) {
        if (!run.next) {
          stepOut.textContent = `The search is over: ${run.solutions} solutions in ${run.steps.length.toLocaleString('en')} steps.`;
          playBtn.disabled = true;
          stepBtn.disabled = true;
        }
        return false;
      }
    }
    const s = run.steps[run.at++];
    let reject = null;
    if (s.op === 'place') { run.columns[s.row] = s.col; run.row = Math.min(run.n - 1, s.row + 1); }
    else if (s.op === 'remove') { run.columns[s.row] = null; run.row = s.row; }
    else if (s.op === 'reject') { reject = { row: s.row, col: s.col, by: s.by }; run.row = s.row; }
    else if (s.op === 'solution') run.solutions++;
    run.grid.show(run.columns, { row: run.row, reject });
    stepOut.textContent = stepText(s);
    const placed = run.columns.filter((c) => c !== null).length;
    facts.textContent = `Row ${run.row} · ${placed} ${placed === 1 ? 'queen' : 'queens'} on the board · ${run.solutions} ${run.solutions === 1 ? 'solution' : 'solutions'} so far`;
    const li = document.createElement('li');
    li.textContent = stepText(s);
    log.prepend(li);
    while (log.children.length > 8) log.lastChild.remove();
    if (run.steps.length - run.at < PAGE / 2) more();
    return true;
  }

  const delay = () => 1000 / Number(speed.value);

  function pause() {
    clearTimeout(timer);
    timer = null;
    playBtn.textContent = 'Play';
    playBtn.setAttribute('aria-pressed', 'false');
    stepOut.setAttribute('aria-live', 'polite'); // the step it stopped at is read out
  }

  async function tick() {
    const ok = await step();
    if (timer === null) return;
    if (!ok && (!run || !run.next)) { pause(); return; }
    timer = setTimeout(tick, delay());
  }

  playBtn.addEventListener('click', () => {
    if (timer !== null) { pause(); return; }
    playBtn.textContent = 'Pause';
    playBtn.setAttribute('aria-pressed', 'true');
    stepOut.setAttribute('aria-live', 'off'); // up to 60 steps a second would drown a screen reader
    timer = setTimeout(tick, 0);
  });
  stepBtn.addEventListener('click', () => { pause(); step(); });
  speed.addEventListener('input', () => { speedOut.textContent = `${speed.value} steps a second`; });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    onHash(`watch?${query({ n: nIn.value })}`);
    load(Number(nIn.value));
  });

  return {
    route(params) {
      const asked = params.get('n') || nIn.value || '6';
      const n = boardSize(asked, Number(nIn.max)) ?? 6; // a board of n x n squares: never one of 300
      nIn.value = String(n);
      if (!run || run.n !== n) load(n);
      if (String(n) !== asked) fail(new Error(`Choose n from 1 to ${nIn.max}; showing n = ${n}.`));
    },
    leave: pause,
  };
}
