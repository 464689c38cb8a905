// board.js - a board of squares (n up to 32: the boards people look at, play and solve), each square
// an element with a role and a label; regions coloured and bordered; the text forms for copying.
// Larger boards are viewer.js's. Rows and columns are 0-based inside, as the API writes them.

export const GRID_MAX = 32; // largest n drawn as squares: beyond that a square is too small to click

// A board of n×n squares in container. interactive: a focusable grid (arrow keys move, Enter or Space
// activates a square, onActivate(r, c)); else a read-only table. The squares are buttons in neither
// case: each has a role and a label saying its square and what is on it.
export class Grid {
  // Options: interactive (a focusable grid: arrow keys move, Enter or Space activates a square,
  // onActivate(r, c, how) with how 'key' or 'click'; a right click or "x" calls onMark(r, c)); label;
  // base (the number of the first row and column in the labels and the numbers shown: 0 as the API
  // writes them, 1 as the puzzles' sentences count); coords (row and column numbers beside the
  // board); regions (rows of region letters: each square coloured and bordered by its region).
  constructor(container, n, { interactive = false, onActivate = null, onMark = null, label = 'Board', base = 0,
    coords = true, regions = null } = {}) {
    this.n = n;
    this.interactive = interactive;
    this.onActivate = onActivate;
    this.onMark = onMark;
    this.base = base;
    this.coords = coords;
    this.regions = regions;
    this.focus = [0, 0];
    this.root = document.createElement('div');
    this.root.className = coords ? (n > 16 ? 'grid sparse' : 'grid') : 'grid bare';
    this.root.setAttribute('role', interactive ? 'grid' : 'table');
    this.root.setAttribute('aria-label', label);
    this.root.style.setProperty('--n', String(n));
    this.cells = [];
    if (coords) this.root.append(this.headerRow());
    for (let r = 0; r < n; r++) this.root.append(this.row(r));
    container.replaceChildren(this.root);
    if (interactive) {
      this.root.addEventListener('keydown', (e) => this.key(e));
      this.root.addEventListener('click', (e) => {
        const cell = e.target.closest('[data-r]');
        if (!cell) return;
        this.moveFocus(+cell.dataset.r, +cell.dataset.c, false);
        this.onActivate(+cell.dataset.r, +cell.dataset.c, 'click');
      });
      this.root.addEventListener('contextmenu', (e) => {
        const cell = e.target.closest('[data-r]');
        if (!cell || !this.onMark) return;
        e.preventDefault(); // a right click marks a square, as the puzzle apps do
        this.moveFocus(+cell.dataset.r, +cell.dataset.c, false);
        this.onMark(+cell.dataset.r, +cell.dataset.c);
      });
    }
  }

  // "row 3, column 5" in the grid's numbering.
  name(r, c) {
    return `row ${r + this.base}, column ${c + this.base}`;
  }

  headerRow() {
    const row = document.createElement('div');
    row.setAttribute('role', 'row');
    row.className = 'grid-row';
    const corner = document.createElement('span');
    corner.className = 'coord';
    corner.setAttribute('role', 'columnheader');
    corner.setAttribute('aria-label', 'row / column');
    row.append(corner);
    for (let c = 0; c < this.n; c++) {
      const h = document.createElement('span');
      h.className = 'coord';
      h.setAttribute('role', 'columnheader');
      h.textContent = String(c + this.base);
      h.setAttribute('aria-label', `column ${c + this.base}`);
      if ((c + this.base) % 5 === 0 || c === 0) h.classList.add('tick');
      row.append(h);
    }
    return row;
  }

  row(r) {
    const row = document.createElement('div');
    row.setAttribute('role', 'row');
    row.className = 'grid-row';
    if (this.coords) {
      const h = document.createElement('span');
      h.className = 'coord';
      h.setAttribute('role', 'rowheader');
      h.textContent = String(r + this.base);
      h.setAttribute('aria-label', `row ${r + this.base}`);
      if ((r + this.base) % 5 === 0 || r === 0) h.classList.add('tick');
      row.append(h);
    }
    const cells = [];
    const reg = this.regions;
    for (let c = 0; c < this.n; c++) {
      const cell = document.createElement('span');
      if (reg) {
        // A region's colour, and a thick line wherever the next square is another region's: the
        // regions read apart without their colours (greyscale, colour-blind players).
        const k = reg[r][c];
        const cls = ['sq', `reg-${REGION_ALPHABET.indexOf(k) % REGION_COLOURS}`];
        if (r === 0 || reg[r - 1][c] !== k) cls.push('bt');
        if (r === this.n - 1 || reg[r + 1][c] !== k) cls.push('bb');
        if (c === 0 || reg[r][c - 1] !== k) cls.push('bl');
        if (c === this.n - 1 || reg[r][c + 1] !== k) cls.push('br');
        cell.className = cls.join(' ');
      } else {
        cell.className = (r + c) % 2 ? 'sq dark' : 'sq light';
      }
      cell.setAttribute('role', this.interactive ? 'gridcell' : 'cell');
      cell.dataset.r = String(r);
      cell.dataset.c = String(c);
      if (this.interactive) cell.tabIndex = r === 0 && c === 0 ? 0 : -1;
      cells.push(cell);
      row.append(cell);
    }
    this.cells.push(cells);
    return row;
  }

  key(e) {
    const [r, c] = this.focus;
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (moves[e.key]) {
      const [dr, dc] = moves[e.key];
      this.moveFocus(Math.min(this.n - 1, Math.max(0, r + dr)), Math.min(this.n - 1, Math.max(0, c + dc)), true);
    } else if (e.key === 'Home') {
      this.moveFocus(r, 0, true);
    } else if (e.key === 'End') {
      this.moveFocus(r, this.n - 1, true);
    } else if (e.key === 'Enter' || e.key === ' ') {
      this.onActivate(r, c, 'key');
    } else if ((e.key === 'x' || e.key === 'X') && this.onMark && !e.ctrlKey && !e.metaKey) {
      this.onMark(r, c);
    } else {
      return;
    }
    e.preventDefault();
  }

  moveFocus(r, c, focus) {
    const [or, oc] = this.focus;
    this.cells[or][oc].tabIndex = -1;
    this.cells[r][c].tabIndex = 0;
    this.focus = [r, c];
    if (!focus) return;
    // The browser's own focus scroll leaves a square that is partly in the box where it is, under the
    // sticky row and column numbers or cut at the edge: scroll it whole into view past them instead.
    this.cells[r][c].focus({ preventScroll: true });
    this.cells[r][c].scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }

  // Paint one square: flags is an object of class name -> boolean, label the words after its name.
  paint(r, c, flags, words) {
    const cell = this.cells[r][c];
    for (const [k, on] of Object.entries(flags)) cell.classList.toggle(k, Boolean(on));
    cell.setAttribute('aria-label', words ? `${this.name(r, c)}, ${words}` : this.name(r, c));
  }

  // Mark rows and columns (Sets of indices) as having no place left: their numbers read as errors.
  deadLines(rows, cols) {
    if (!this.coords) return;
    const heads = this.root.querySelectorAll('[role="rowheader"]');
    heads.forEach((h, r) => h.classList.toggle('dead', rows.has(r)));
    const cheads = this.root.querySelectorAll('[role="columnheader"]:not(:first-child)');
    cheads.forEach((h, c) => h.classList.toggle('dead', cols.has(c)));
  }

  // Show a state: columns[r] is the queen's column in row r or null; marks (all optional): attacked,
  // clash (Sets of "r,c"), row (the row being tried), reject ({row, col, by}).
  show(columns, marks = {}) {
    const attacked = marks.attacked || new Set();
    const clash = marks.clash || new Set();
    for (let r = 0; r < this.n; r++) {
      for (let c = 0; c < this.n; c++) {
        const key = `${r},${c}`;
        const queen = columns[r] === c;
        const rejected = marks.reject && marks.reject.row === r && marks.reject.col === c;
        let words = '';
        if (queen) words = clash.has(key) ? 'queen, attacked by another queen' : 'queen';
        else if (rejected) words = `rejected: ${marks.reject.by}`;
        else if (attacked.has(key)) words = 'attacked';
        this.paint(r, c, { queen, attacked: !queen && attacked.has(key), clash: queen && clash.has(key),
          current: marks.row === r, rejected }, words);
      }
    }
  }
}

// Region letters in the order the server hands them out, and how many colours the page has for them
// (neighbouring regions may share a colour beyond that; their borders still part them).
export const REGION_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const REGION_COLOURS = 16;

// The squares attacked by queens (a list of [r, c]) on an n board, as a Set of "r,c" (O(n^2) for the
// small boards a grid draws).
export function attackedSquares(n, queens) {
  const cols = new Set(), diag = new Set(), anti = new Set(), rows = new Set();
  for (const [r, c] of queens) {
    rows.add(r); cols.add(c); diag.add(r - c); anti.add(r + c);
  }
  const out = new Set();
  for (let r = 0; r < n; r++)
    for (let c = 0; c < n; c++)
      if (rows.has(r) || cols.has(c) || diag.has(r - c) || anti.has(r + c)) out.add(`${r},${c}`);
  return out;
}

// The text forms of a board for copying: rows of Q and '.', or the comma-separated columns.
export function boardText(columns) {
  const n = columns.length;
  return columns.map((c) => (c === null ? '.'.repeat(n) : `${'.'.repeat(c)}Q${'.'.repeat(n - c - 1)}`)).join('\n');
}
export function columnsText(columns) {
  return columns.map((c) => (c === null ? '-' : String(c))).join(',');
}
