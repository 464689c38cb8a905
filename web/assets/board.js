// board.js - drawing boards: a grid of squares (small n, also the board people play on), a scaled
// canvas (up to a few thousand rows, each queen still visible), and a density view (any n).
// Rows and columns are 0-based, as the API writes them.

export const GRID_MAX = 32; // largest n drawn as squares: beyond that a square is too small to click

// A board of n×n squares in container. interactive: a focusable grid (arrow keys move, Enter or Space
// activates a square, onActivate(r, c)); else a read-only table. The squares are buttons in neither
// case: each has a role and a label saying its square and what is on it.
export class Grid {
  constructor(container, n, { interactive = false, onActivate = null, label = 'Board' } = {}) {
    this.n = n;
    this.interactive = interactive;
    this.onActivate = onActivate;
    this.focus = [0, 0];
    this.root = document.createElement('div');
    this.root.className = 'grid';
    this.root.setAttribute('role', interactive ? 'grid' : 'table');
    this.root.setAttribute('aria-label', label);
    this.root.style.setProperty('--n', String(n));
    this.cells = [];
    this.root.append(this.headerRow());
    for (let r = 0; r < n; r++) this.root.append(this.row(r));
    container.replaceChildren(this.root);
    if (interactive) {
      this.root.addEventListener('keydown', (e) => this.key(e));
      this.root.addEventListener('click', (e) => {
        const cell = e.target.closest('[data-r]');
        if (!cell) return;
        this.moveFocus(+cell.dataset.r, +cell.dataset.c, false);
        this.onActivate(+cell.dataset.r, +cell.dataset.c);
      });
    }
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
      h.textContent = String(c);
      h.setAttribute('aria-label', `column ${c}`);
      row.append(h);
    }
    return row;
  }

  row(r) {
    const row = document.createElement('div');
    row.setAttribute('role', 'row');
    row.className = 'grid-row';
    const h = document.createElement('span');
    h.className = 'coord';
    h.setAttribute('role', 'rowheader');
    h.textContent = String(r);
    h.setAttribute('aria-label', `row ${r}`);
    row.append(h);
    const cells = [];
    for (let c = 0; c < this.n; c++) {
      const cell = document.createElement('span');
      cell.className = (r + c) % 2 ? 'sq dark' : 'sq light';
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
      this.onActivate(r, c);
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

  // Show a state: columns[r] is the queen's column in row r or null; marks (all optional): attacked,
  // clash (Sets of "r,c"), row (the row being tried), reject ({row, col, by}).
  show(columns, marks = {}) {
    const attacked = marks.attacked || new Set();
    const clash = marks.clash || new Set();
    for (let r = 0; r < this.n; r++) {
      for (let c = 0; c < this.n; c++) {
        const cell = this.cells[r][c];
        const key = `${r},${c}`;
        const queen = columns[r] === c;
        const rejected = marks.reject && marks.reject.row === r && marks.reject.col === c;
        cell.classList.toggle('queen', queen);
        cell.classList.toggle('attacked', !queen && attacked.has(key));
        cell.classList.toggle('clash', queen && clash.has(key));
        cell.classList.toggle('current', marks.row === r);
        cell.classList.toggle('rejected', Boolean(rejected));
        let label = `row ${r}, column ${c}`;
        if (queen) label += clash.has(key) ? ', queen, attacked by another queen' : ', queen';
        else if (rejected) label += `, rejected: ${marks.reject.by}`;
        else if (attacked.has(key)) label += ', attacked';
        cell.setAttribute('aria-label', label);
      }
    }
  }
}

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

function colors(el) {
  const s = getComputedStyle(el);
  return {
    light: s.getPropertyValue('--sq-light').trim() || '#eee',
    dark: s.getPropertyValue('--sq-dark').trim() || '#999',
    queen: s.getPropertyValue('--queen').trim() || '#b8860b',
    ink: s.getPropertyValue('--ink').trim() || '#000',
  };
}

// A label every `step` rows/columns, step a power of ten so labels stay apart by about 40 px.
function tickStep(cell) {
  let step = 1;
  while (step * cell < 40) step *= 10;
  return step;
}

const MARGIN = 36; // px left and above the board for coordinates
// The most pixels a canvas may hold everywhere: iOS Safari draws nothing on a larger one (4096 x 4096).
export const CANVAS_MAX_PIXELS = 4096 * 4096;

// Draw the board of columns (one column per row) on canvas with cell px per square (>= 2): every
// square and queen shown, coordinates every few rows. Returns the canvas's CSS size.
export function drawScaled(canvas, columns, cell) {
  const n = columns.length;
  const size = MARGIN + n * cell;
  // Sharp on a high-density screen, but never past the area every browser can draw (n = 2,000 at
  // 2 px a square is 4,036 px wide: only about one device pixel per CSS pixel fits).
  const dpr = Math.min(window.devicePixelRatio || 1, 2, Math.sqrt(CANVAS_MAX_PIXELS) / size);
  canvas.width = Math.round(size * dpr);
  canvas.height = Math.round(size * dpr);
  canvas.style.width = `${size}px`;
  canvas.style.height = `${size}px`;
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const k = colors(canvas);
  ctx.clearRect(0, 0, size, size);
  ctx.fillStyle = k.light;
  ctx.fillRect(MARGIN, MARGIN, n * cell, n * cell);
  if (cell >= 4) {
    ctx.fillStyle = k.dark;
    for (let r = 0; r < n; r++)
      for (let c = (r % 2) ? 0 : 1; c < n; c += 2) ctx.fillRect(MARGIN + c * cell, MARGIN + r * cell, cell, cell);
  }
  ctx.fillStyle = k.queen;
  const pad = cell >= 6 ? cell * 0.15 : 0;
  columns.forEach((c, r) => {
    if (c === null) return;
    ctx.fillRect(MARGIN + c * cell + pad, MARGIN + r * cell + pad, cell - 2 * pad, cell - 2 * pad);
  });
  ticks(ctx, n, cell, k.ink);
  return size;
}

function ticks(ctx, n, cell, ink) {
  const step = tickStep(cell);
  ctx.fillStyle = ink;
  ctx.font = '11px system-ui, sans-serif';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'bottom';
  for (let c = 0; c < n; c += step) ctx.fillText(String(c), MARGIN + (c + 0.5) * cell, MARGIN - 4);
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (let r = 0; r < n; r += step) ctx.fillText(String(r), MARGIN - 4, MARGIN + (r + 0.5) * cell);
}

// Draw columns as a density view on a canvas of px×px: each pixel stands for a block of about n/px
// rows and columns and is as dark as the number of queens in it, the fullest block darkest.
export function drawDensity(canvas, columns, px) {
  const n = columns.length;
  const bins = Math.min(px, n);
  const counts = new Uint32Array(bins * bins);
  let most = 1;
  for (let r = 0; r < n; r++) {
    if (columns[r] === null) continue;
    const i = Math.floor((r * bins) / n) * bins + Math.floor((columns[r] * bins) / n);
    most = Math.max(most, ++counts[i]);
  }
  canvas.width = bins;
  canvas.height = bins;
  canvas.style.width = `${px}px`;
  canvas.style.height = `${px}px`;
  const ctx = canvas.getContext('2d');
  const k = colors(canvas);
  ctx.fillStyle = k.light;
  ctx.fillRect(0, 0, bins, bins);
  ctx.fillStyle = k.queen;
  for (let i = 0; i < counts.length; i++) {
    if (!counts[i]) continue;
    ctx.globalAlpha = 0.25 + (0.75 * counts[i]) / most; // one queen stays visible
    ctx.fillRect(i % bins, Math.floor(i / bins), 1, 1);
  }
  ctx.globalAlpha = 1;
}

// The text forms of a board for copying: rows of Q and '.', or the comma-separated columns.
export function boardText(columns) {
  const n = columns.length;
  return columns.map((c) => (c === null ? '.'.repeat(n) : `${'.'.repeat(c)}Q${'.'.repeat(n - c - 1)}`)).join('\n');
}
export function columnsText(columns) {
  return columns.map((c) => (c === null ? '-' : String(c))).join(',');
}
