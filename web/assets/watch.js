// watch.js - the Watch mode: the backtracking search of /trace played back. The speed goes from one
// step a second to 100,000 (the whole search of n = 10, 384,412 steps, in about four seconds): each
// animation frame applies as many steps as the time since the last one allows and draws the board
// once, so a fast speed skips frames instead of asking a timer for every step. Step, step back, jump
// to the next solution, the solutions found so far (each a button that goes back to it), the squares
// the queens attack, and a restart at the end. Pages of steps are fetched as the playback needs them,
// following each page's "next" link, and kept in typed arrays (3 bytes a step), so that any step can
// be gone back to. The address keeps the step (#watch?n=8&from=120) once the playback stops.
import { get, describe, query, relative, boardSize } from './api.js';
import { Grid, attackedSquares } from './board.js';

const PAGE = 5000; // steps fetched at a time
const RATES = [1, 2, 5, 10, 30, 100, 300, 1000, 3000, 10000, 100000]; // steps a second, by the slider
const SOLUTIONS_SHOWN = 500; // buttons in the list at most
const OPS = ['place', 'reject', 'remove', 'solution'];
const BY = ['column', 'diagonal', 'anti-diagonal'];

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

// The steps fetched so far, 3 bytes each: op, row, column (a reject's rule in the op's high bits).
class Steps {
  constructor() {
    this.length = 0;
    this.data = new Uint8Array(3 * 4096);
  }
  push(s) {
    if (3 * (this.length + 1) > this.data.length) {
      const bigger = new Uint8Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    const i = 3 * this.length++;
    this.data[i] = OPS.indexOf(s.op) | (s.by ? BY.indexOf(s.by) << 2 : 0);
    this.data[i + 1] = s.row === undefined ? 0 : s.row;
    this.data[i + 2] = s.col === undefined ? 0 : s.col;
  }
  op(i) { return this.data[3 * i] & 3; }
  by(i) { return BY[this.data[3 * i] >> 2]; }
  row(i) { return this.data[3 * i + 1]; }
  col(i) { return this.data[3 * i + 2]; }
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
  const backBtn = $('#watch-back');
  const nextBtn = $('#watch-next');
  const restartBtn = $('#watch-restart');
  const speed = $('#watch-speed');
  const speedOut = $('#watch-speed-out');
  const attackedIn = $('#watch-attacked');
  const list = $('#watch-solutions');
  const log = $('#watch-log');

  // {n, grid, steps, at (steps applied), next, columns, found (solutions applied), solutions (all
  // seen: {at, columns}), loading}
  let run = null;
  let playing = false;
  let seeking = false; // running on to the next solution
  let frame = 0;
  let last = 0;
  let budget = 0;

  const rate = () => RATES[Number(speed.value)];

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
      for (const s of body.steps) r.steps.push(s);
      r.next = body.next;
    } catch (err) {
      if (r === run) fail(err);
    } finally {
      r.loading = false;
    }
  }

  function load(n) {
    pause();
    error.hidden = true;
    const grid = new Grid(boardBox, n, { label: `Search board, ${n} by ${n}` });
    run = { n, grid, steps: new Steps(), at: 0, next: `trace?${query({ n, limit: PAGE })}`, columns: new Array(n).fill(null),
      found: 0, solutions: [], loading: false };
    list.replaceChildren();
    render();
    stepOut.textContent = 'Press Play or Step to start the search.';
    return more();
  }

  // Apply step at (forward) or undo the step before at (back). false when there is none (yet).
  function forward() {
    const r = run;
    if (r.at >= r.steps.length) return false;
    const i = r.at++;
    const op = r.steps.op(i);
    if (op === 0) r.columns[r.steps.row(i)] = r.steps.col(i);
    else if (op === 2) r.columns[r.steps.row(i)] = null;
    else if (op === 3) {
      r.found++;
      if (r.found > r.solutions.length) {
        r.solutions.push({ at: r.at, columns: r.columns.slice() });
        if (r.solutions.length <= SOLUTIONS_SHOWN) addSolution(r.solutions.length - 1);
      }
    }
    return true;
  }
  function back() {
    const r = run;
    if (r.at === 0) return false;
    const i = --r.at;
    const op = r.steps.op(i);
    if (op === 0) r.columns[r.steps.row(i)] = null;
    else if (op === 2) r.columns[r.steps.row(i)] = r.steps.col(i);
    else if (op === 3) r.found--;
    return true;
  }

  function addSolution(k) {
    const s = run.solutions[k];
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = `${k + 1}: ${s.columns.join(',')}`;
    b.setAttribute('aria-label', `Solution ${k + 1}: columns ${s.columns.join(', ')}`);
    b.addEventListener('click', () => { pause(); goTo(s.at); stopped(); });
    li.append(b);
    list.append(li);
  }

  function goTo(at) {
    while (run.at > at && back());
    while (run.at < at && forward());
    render();
  }

  // The step before at as an object, as /trace wrote it.
  function stepObject(i) {
    const r = run;
    const op = OPS[r.steps.op(i)];
    const s = { step: i, op, row: r.steps.row(i), col: r.steps.col(i) };
    if (op === 'reject') s.by = r.steps.by(i);
    if (op === 'solution') s.columns = r.columns.slice();
    return s;
  }

  function render() {
    const r = run;
    let row = 0, reject = null;
    if (r.at > 0) {
      const i = r.at - 1, op = r.steps.op(i), sr = r.steps.row(i);
      if (op === 0) row = Math.min(r.n - 1, sr + 1);
      else if (op === 3) row = r.n - 1;
      else row = sr;
      if (op === 1) reject = { row: sr, col: r.steps.col(i), by: r.steps.by(i) };
      stepOut.textContent = stepText(stepObject(i));
    }
    const queens = r.columns.flatMap((c, k) => (c === null ? [] : [[k, c]]));
    r.grid.show(r.columns, { row, reject, attacked: attackedIn.checked ? attackedSquares(r.n, queens) : null });
    facts.textContent = `Row ${row} · ${queens.length} ${queens.length === 1 ? 'queen' : 'queens'} on the board · ${r.found} ${r.found === 1 ? 'solution' : 'solutions'} so far`;
    const items = [];
    for (let i = r.at - 1; i >= 0 && i >= r.at - 8; i--) {
      const li = document.createElement('li');
      li.textContent = stepText(stepObject(i));
      items.push(li);
    }
    log.replaceChildren(...items);
    for (const [k, b] of [...list.querySelectorAll('button')].entries()) b.toggleAttribute('aria-current', run.solutions[k].at === r.at);
    const over = !r.next && r.at >= r.steps.length && !r.loading;
    if (over && r.steps.length) stepOut.textContent = `The search is over: ${r.found} solutions in ${r.steps.length.toLocaleString('en')} steps. Restart to watch it again.`;
    playBtn.disabled = over;
    stepBtn.disabled = over;
    nextBtn.disabled = over;
    backBtn.disabled = r.at === 0;
    restartBtn.disabled = r.at === 0;
  }

  // Each frame: as many steps as the time since the last frame allows at the speed chosen (or, seeking,
  // up to the next solution), then one drawing.
  function tick(t) {
    frame = 0;
    if (!playing || !run) return;
    const dt = last ? Math.min(0.25, (t - last) / 1000) : 0;
    last = t;
    let k;
    if (seeking) k = 50000;
    else {
      budget = Math.min(budget + dt * rate(), rate() * 0.25 + 1);
      k = Math.floor(budget);
      budget -= k;
    }
    let hit = false;
    while (k-- > 0) {
      const was = run.found;
      if (!forward()) break;
      if (seeking && run.found > was) { hit = true; break; }
    }
    if (run.steps.length - run.at < PAGE) more();
    const over = !run.next && run.at >= run.steps.length && !run.loading;
    render();
    if (hit || over) { pause(); stopped(); return; }
    frame = requestAnimationFrame(tick);
  }

  function play(seek) {
    if (playing) pause();
    playing = true;
    seeking = seek;
    last = 0;
    budget = 0;
    if (!seek) {
      playBtn.textContent = 'Pause';
      playBtn.setAttribute('aria-pressed', 'true');
    }
    stepOut.setAttribute('aria-live', 'off'); // many steps a second would drown a screen reader
    frame = requestAnimationFrame(tick);
  }

  function pause() {
    if (frame) cancelAnimationFrame(frame);
    frame = 0;
    playing = false;
    seeking = false;
    playBtn.textContent = 'Play';
    playBtn.setAttribute('aria-pressed', 'false');
    stepOut.setAttribute('aria-live', 'polite'); // the step it stopped at is read out
  }

  // The playback stopped: the address keeps where.
  function stopped() {
    if (run) onHash(`watch?${query({ n: run.n, from: run.at || undefined })}`);
  }

  async function stepOnce() {
    pause();
    if (run.at >= run.steps.length) await more();
    forward();
    render();
    if (run.steps.length - run.at < PAGE / 2) more();
    stopped();
  }

  playBtn.addEventListener('click', () => {
    if (playing && !seeking) { pause(); stopped(); } else play(false);
  });
  stepBtn.addEventListener('click', stepOnce);
  backBtn.addEventListener('click', () => { pause(); back(); render(); stopped(); });
  nextBtn.addEventListener('click', () => play(true));
  restartBtn.addEventListener('click', () => { pause(); goTo(0); stepOut.textContent = 'Press Play or Step to start the search.'; stopped(); });
  attackedIn.addEventListener('change', () => run && render());
  const speedText = () => { speedOut.textContent = `${rate().toLocaleString('en')} ${rate() === 1 ? 'step' : 'steps'} a second`; };
  speed.addEventListener('input', speedText);
  speedText();
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    onHash(`watch?${query({ n: nIn.value })}`);
    load(Number(nIn.value));
  });

  // Fetch and apply steps up to from (an address's step), then show it.
  async function seek(from) {
    const r = run;
    while (r === run && r.steps.length < from && r.next) await more();
    if (r !== run) return;
    goTo(Math.min(from, r.steps.length));
  }

  return {
    route(params) {
      const asked = params.get('n') || nIn.value || '6';
      const n = boardSize(asked, Number(nIn.max)) ?? 6; // a board of n x n squares: never one of 300
      nIn.value = String(n);
      const from = Number(params.get('from') || 0);
      const fresh = !run || run.n !== n;
      const loaded = fresh ? load(n) : Promise.resolve();
      if (String(n) !== asked) fail(new Error(`Choose n from 1 to ${nIn.max}; showing n = ${n}.`));
      if (Number.isInteger(from) && from > 0) return loaded.then(() => seek(from));
      return loaded;
    },
    leave: pause,
  };
}
