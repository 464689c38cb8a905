// game.js - a board to play on, shared by Play (free queens) and Puzzle (a puzzle's clues or regions):
// queens and crosses (the squares a player rules out), conflicts shown as errors, rows, columns and
// regions with no place left pointed out, attacked squares shaded on request, undo and redo, a clock
// and a move count, the win, and a hint's square and the squares it rests on highlighted. All of it is
// worked out here, in the browser: the rules are those of the kind (queens: rows, columns and
// diagonals; regions: rows, columns, regions and the eight neighbours).
import { Grid } from './board.js';

// "r:c,r:c" (the routes' queens= and marks=) from [[r, c], ...], and back: squares on an n board, each
// once; anything else in the text is dropped.
export function squaresParam(list) {
  return list.map(([r, c]) => `${r}:${c}`).join(',');
}
export function parseSquares(text, n) {
  const out = [];
  const seen = new Set();
  for (const part of (text || '').split(',')) {
    const m = /^(\d+):(\d+)$/.exec(part.trim());
    if (!m) continue;
    const r = Number(m[1]), c = Number(m[2]);
    if (r >= n || c >= n || seen.has(`${r},${c}`)) continue;
    seen.add(`${r},${c}`);
    out.push([r, c]);
  }
  return out;
}

export function clockText(ms) {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

// The clock and move count of the position at an address, kept for this tab (sessionStorage), so that a
// reload restores them with the position; a shared link starts its own.
export function saveClock(address, game) {
  try { sessionStorage.setItem('nq-clock', JSON.stringify({ address, ms: game.ms(), moves: game.moves })); } catch { /* not kept */ }
}
export function savedClock(address) {
  try {
    const c = JSON.parse(sessionStorage.getItem('nq-clock') || 'null');
    return c && c.address === address ? { ms: c.ms, moves: c.moves } : {};
  } catch {
    return {};
  }
}

const key = (r, c) => `${r},${c}`;
const unkey = (k) => k.split(',').map(Number);

export class Game {
  // els: the view's elements {board, status, clock, moves, win, undo, redo, shade}; opts: n, kind
  // ('queens' or 'regions'), regions (rows of letters), clues ([[r, c]]: given queens, fixed), label,
  // onChange() after every change of the position, onWin({ms, moves}).
  constructor(els, { n, kind = 'queens', regions = null, clues = [], label, onChange = () => {}, onWin = () => {} }) {
    this.els = els;
    this.n = n;
    this.kind = kind;
    this.regions = regions;
    this.clues = new Set(clues.map(([r, c]) => key(r, c)));
    this.queens = new Set(this.clues);
    this.marks = new Set();
    this.undoStack = [];
    this.redoStack = [];
    this.moves = 0;
    this.elapsed = 0; // ms played before `since`
    this.since = null; // when the clock last started (null: stopped)
    this.won = false;
    this.locked = false; // a revealed solution: the board is shown, not played
    this.extra = {}; // squares a hint or the mistakes highlight: {hint, because, mistake} Sets
    this.onChange = onChange;
    this.onWin = onWin;
    this.grid = new Grid(els.board, n, { interactive: true, label, base: 1, coords: kind === 'queens',
      regions, onActivate: (r, c) => this.activate(r, c), onMark: (r, c) => this.mark(r, c) });
    this.timer = setInterval(() => this.tick(), 1000);
    this.render();
  }

  destroy() {
    clearInterval(this.timer);
  }

  // The position as [[r, c]] lists, clues left out of the queens.
  position() {
    const q = [...this.queens].filter((k) => !this.clues.has(k)).map(unkey);
    return { queens: q, marks: [...this.marks].map(unkey) };
  }

  // Start from a saved position (an address): not a move, and nothing to undo.
  restore({ queens = [], marks = [], moves = 0, ms = 0 }) {
    this.queens = new Set(this.clues);
    for (const [r, c] of queens) this.queens.add(key(r, c));
    this.marks = new Set(marks.map(([r, c]) => key(r, c)).filter((k) => !this.queens.has(k)));
    this.moves = moves;
    this.elapsed = ms;
    this.since = null;
    this.undoStack = [];
    this.redoStack = [];
    this.extra = {};
    this.render();
  }

  snapshot() {
    return { queens: new Set(this.queens), marks: new Set(this.marks) };
  }

  // Change the position by fn (which edits this.queens and this.marks): one move, undoable.
  change(fn) {
    if (this.locked) return;
    const before = this.snapshot();
    fn();
    this.undoStack.push(before);
    this.redoStack = [];
    this.moved();
  }

  moved() {
    this.moves++;
    if (this.since === null && !this.won) this.since = Date.now();
    this.extra = {};
    this.render();
    this.onChange();
  }

  activate(r, c) {
    const k = key(r, c);
    if (this.clues.has(k)) {
      this.els.status.textContent = `Row ${r + 1}, column ${c + 1} holds a given queen.`;
      return;
    }
    // A tap cycles: empty -> queen -> cross -> empty.
    this.change(() => {
      if (this.queens.has(k)) { this.queens.delete(k); this.marks.add(k); }
      else if (this.marks.has(k)) this.marks.delete(k);
      else this.queens.add(k);
    });
  }

  mark(r, c) {
    const k = key(r, c);
    if (this.clues.has(k)) return;
    this.change(() => {
      this.queens.delete(k);
      if (this.marks.has(k)) this.marks.delete(k);
      else this.marks.add(k);
    });
  }

  clear() {
    this.change(() => {
      this.queens = new Set(this.clues);
      this.marks = new Set();
    });
  }

  // Put a whole position (a solution from the server): one move.
  set(queens, marks = []) {
    this.change(() => {
      this.queens = new Set(this.clues);
      for (const [r, c] of queens) this.queens.add(key(r, c));
      this.marks = new Set(marks.map(([r, c]) => key(r, c)));
    });
  }

  undo() {
    if (!this.undoStack.length || this.locked) return;
    this.redoStack.push(this.snapshot());
    ({ queens: this.queens, marks: this.marks } = this.undoStack.pop());
    this.moved();
  }

  redo() {
    if (!this.redoStack.length || this.locked) return;
    this.undoStack.push(this.snapshot());
    ({ queens: this.queens, marks: this.marks } = this.redoStack.pop());
    this.moved();
  }

  // Stop the clock (the view is left); the next move starts it again.
  pauseClock() {
    this.elapsed = this.ms();
    this.since = null;
  }

  ms() {
    return this.elapsed + (this.since === null ? 0 : Date.now() - this.since);
  }

  tick() {
    this.els.clock.textContent = clockText(this.ms());
  }

  region(r, c) {
    return this.regions ? this.regions[r][c] : null;
  }

  // Do the queens on a and b ([r, c]) attack each other by the kind's rules?
  attacks([r1, c1], [r2, c2]) {
    if (r1 === r2 || c1 === c2) return true;
    if (this.kind === 'regions') return this.region(r1, c1) === this.region(r2, c2) || (Math.abs(r1 - r2) <= 1 && Math.abs(c1 - c2) <= 1);
    return r1 - c1 === r2 - c2 || r1 + c1 === r2 + c2;
  }

  // Everything the board shows, worked out from the queens.
  analyse() {
    const qs = [...this.queens].map(unkey);
    const clash = new Set();
    for (let i = 0; i < qs.length; i++)
      for (let j = i + 1; j < qs.length; j++)
        if (this.attacks(qs[i], qs[j])) { clash.add(key(...qs[i])); clash.add(key(...qs[j])); }
    const attacked = new Set();
    for (let r = 0; r < this.n; r++)
      for (let c = 0; c < this.n; c++)
        if (!this.queens.has(key(r, c)) && qs.some((q) => this.attacks(q, [r, c]))) attacked.add(key(r, c));
    // A row, column or region with no queen whose every square is attacked has no place left.
    const deadRows = new Set(), deadCols = new Set(), deadRegions = new Set();
    for (let i = 0; i < this.n; i++) {
      let rowOpen = false, colOpen = false, rowQ = false, colQ = false;
      for (let j = 0; j < this.n; j++) {
        rowQ ||= this.queens.has(key(i, j));
        colQ ||= this.queens.has(key(j, i));
        rowOpen ||= !attacked.has(key(i, j));
        colOpen ||= !attacked.has(key(j, i));
      }
      if (!rowQ && !rowOpen) deadRows.add(i);
      if (!colQ && !colOpen) deadCols.add(i);
    }
    if (this.regions) {
      const open = new Map();
      for (let r = 0; r < this.n; r++)
        for (let c = 0; c < this.n; c++) {
          const g = this.region(r, c);
          if (!open.has(g)) open.set(g, false);
          if (this.queens.has(key(r, c))) open.set(g, true);
          else if (!attacked.has(key(r, c))) open.set(g, true);
        }
      for (const [g, ok] of open) if (!ok) deadRegions.add(g);
    }
    return { clash, attacked, deadRows, deadCols, deadRegions, count: qs.length };
  }

  render() {
    const a = this.analyse();
    const shade = this.els.shade && this.els.shade.checked;
    const ex = this.extra;
    const has = (set, k) => Boolean(set && set.has(k));
    for (let r = 0; r < this.n; r++) {
      for (let c = 0; c < this.n; c++) {
        const k = key(r, c);
        const queen = this.queens.has(k), mark = this.marks.has(k), clue = this.clues.has(k);
        const dead = a.deadRows.has(r) || a.deadCols.has(c) || a.deadRegions.has(this.region(r, c));
        const words = [];
        if (queen) words.push(clue ? 'queen, given' : 'queen');
        if (queen && a.clash.has(k)) words.push('attacked by another queen');
        if (mark) words.push('crossed out');
        if (!queen && a.attacked.has(k) && shade) words.push('attacked');
        if (has(ex.mistake, k)) words.push('a mistake');
        if (has(ex.hint, k)) words.push('the hint');
        else if (has(ex.because, k)) words.push('a reason for the hint');
        if (this.regions) words.push(`region ${this.region(r, c)}`);
        this.grid.paint(r, c, { queen, clue, mark, attacked: shade && !queen && a.attacked.has(k), clash: queen && a.clash.has(k),
          deadline: dead && !queen, hint: has(ex.hint, k), because: has(ex.because, k), mistake: has(ex.mistake, k) }, words.join(', '));
      }
    }
    this.grid.deadLines(a.deadRows, a.deadCols);
    const wasWon = this.won;
    this.won = a.count === this.n && a.clash.size === 0;
    this.grid.root.classList.toggle('won', this.won);
    if (this.won && !wasWon && this.since !== null) {
      this.elapsed = this.ms();
      this.since = null;
    } else if (!this.won && wasWon && this.since === null && this.moves > 0) {
      this.since = Date.now(); // played on after a win: the clock runs again
    }
    this.els.undo.disabled = !this.undoStack.length || this.locked;
    this.els.redo.disabled = !this.redoStack.length || this.locked;
    this.els.moves.textContent = `${this.moves} ${this.moves === 1 ? 'move' : 'moves'}`;
    this.tick();
    this.els.status.textContent = this.words(a);
    if (this.won && !wasWon) this.onWin({ ms: this.ms(), moves: this.moves });
    if (!this.won) this.els.win.hidden = true;
  }

  words(a) {
    const n = this.n;
    if (this.won) return `Solved! ${n} queens and none attacks another.`;
    const pairs = a.clash.size ? this.clashPairs() : 0;
    let s = `${a.count} of ${n} queens placed`;
    s += pairs ? `; ${pairs} ${pairs === 1 ? 'pair attacks' : 'pairs attack'} each other (ringed).` : ', none attacking another.';
    const dead = [...[...a.deadRows].map((r) => `row ${r + 1}`), ...[...a.deadCols].map((c) => `column ${c + 1}`),
      ...[...a.deadRegions].map((g) => `region ${g}`)];
    if (dead.length) s += ` No place left in ${dead.slice(0, 4).join(', ')}${dead.length > 4 ? ' and more' : ''}.`;
    return s;
  }

  clashPairs() {
    const qs = [...this.queens].map(unkey);
    let k = 0;
    for (let i = 0; i < qs.length; i++) for (let j = i + 1; j < qs.length; j++) if (this.attacks(qs[i], qs[j])) k++;
    return k;
  }

  // Highlight a hint from /puzzle/solve: its square, and the squares it rests on (when there are none,
  // the row, column or region its sentence names).
  showHint(hint) {
    const [r, c] = hint.square;
    let because = (hint.because || []).map(([br, bc]) => key(br, bc));
    if (!because.length) because = this.unitOf(hint.why || '', r, c);
    this.extra = { hint: new Set([key(r, c)]), because: new Set(because) };
    this.render();
  }

  unitOf(why, r, c) {
    const out = [];
    const m = /\b(row|column|region) (\w+)/i.exec(why);
    for (let i = 0; i < this.n; i++)
      for (let j = 0; j < this.n; j++) {
        if (i === r && j === c) continue;
        const unit = m ? m[1].toLowerCase() : 'row';
        if ((unit === 'row' && i === r) || (unit === 'column' && j === c) || (unit === 'region' && this.regions && this.region(i, j) === this.region(r, c)))
          out.push(key(i, j));
      }
    return out;
  }

  showMistakes(queens, marks) {
    this.extra = { mistake: new Set([...queens, ...marks].map(([r, c]) => key(r, c))) };
    this.render();
  }
}
