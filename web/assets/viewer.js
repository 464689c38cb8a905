// viewer.js - a board too large for squares (n > 32, up to millions of rows) on a canvas the size of
// its box: it opens fitted (the whole board in view), and zooms and pans with the wheel (around the
// pointer), a pinch or a drag, the keyboard (+ and - zoom, the arrows pan, 0 fits again) and its
// buttons. Only what is in view is drawn: squares one by one from 4 px a square, each queen at least a
// pixel, and below a pixel a square each pixel as dark as the number of queens in it.

const MAX_SCALE = 48; // px a square at the most

function colours(el) {
  const s = getComputedStyle(el);
  const v = (name, dflt) => s.getPropertyValue(name).trim() || dflt;
  return { light: v('--sq-light', '#eee'), dark: v('--sq-dark', '#999'), queen: v('--queen', '#000') };
}

export class Viewer {
  // columns: the queen's column of each row (null: none); label: the board's name for a screen reader;
  // onView(text): told what is in view after each change.
  constructor(container, columns, { label, onView = () => {} }) {
    this.columns = columns;
    this.n = columns.length;
    this.onView = onView;
    this.root = document.createElement('div');
    this.root.className = 'viewer';
    this.root.setAttribute('role', 'group');
    this.root.setAttribute('aria-label', `${label}: + and - zoom, the arrow keys pan, 0 shows the whole board`);
    this.root.tabIndex = 0;
    this.canvas = document.createElement('canvas');
    this.canvas.setAttribute('role', 'img');
    this.canvas.setAttribute('aria-label', label);
    const bar = document.createElement('div');
    bar.className = 'viewer-bar';
    for (const [name, text, fn] of [['Zoom in', '+', () => this.zoomBy(2)], ['Zoom out', '\u2212', () => this.zoomBy(0.5)],
      ['Whole board', '\u2922', () => this.fit()]]) {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = text;
      b.setAttribute('aria-label', name);
      b.title = name;
      b.addEventListener('click', fn);
      bar.append(b);
    }
    this.root.append(this.canvas, bar);
    container.replaceChildren(this.root);
    this.side = 0;
    this.scale = 1; // CSS px a square
    this.x = 0; // the board's column at the canvas's left edge (fractional)
    this.y = 0; // the board's row at its top edge
    this.pointers = new Map();
    this.listen();
    this.resize = new ResizeObserver(() => this.layout());
    this.resize.observe(this.root);
    this.layout();
  }

  layout() {
    const side = Math.floor(Math.min(this.root.clientWidth, this.root.clientHeight));
    if (side <= 0 || side === this.side) return;
    const fitted = this.side === 0 || this.scale === this.side / this.n;
    this.side = side;
    const dpr = Math.min(window.devicePixelRatio || 1, 2);
    this.dpr = dpr;
    this.canvas.width = Math.round(side * dpr);
    this.canvas.height = Math.round(side * dpr);
    this.canvas.style.width = `${side}px`;
    this.canvas.style.height = `${side}px`;
    if (fitted) this.fit();
    else this.draw();
  }

  fit() {
    this.scale = this.side / this.n;
    this.x = 0;
    this.y = 0;
    this.draw();
  }

  // Zoom by factor around the canvas point (px, py), CSS px from its top left (default: the middle).
  zoomBy(factor, px = this.side / 2, py = this.side / 2) {
    const fit = this.side / this.n;
    const s = Math.min(MAX_SCALE, Math.max(fit, this.scale * factor));
    const bx = this.x + px / this.scale, by = this.y + py / this.scale; // the square under the point
    this.scale = s;
    this.x = bx - px / s;
    this.y = by - py / s;
    this.clamp();
    this.draw();
  }

  panBy(dxPx, dyPx) {
    this.x += dxPx / this.scale;
    this.y += dyPx / this.scale;
    this.clamp();
    this.draw();
  }

  clamp() {
    const span = this.side / this.scale;
    this.x = Math.min(Math.max(0, this.x), Math.max(0, this.n - span));
    this.y = Math.min(Math.max(0, this.y), Math.max(0, this.n - span));
  }

  listen() {
    this.root.addEventListener('keydown', (e) => {
      const step = this.side / 4;
      const keys = {
        '+': () => this.zoomBy(2), '=': () => this.zoomBy(2), '-': () => this.zoomBy(0.5), 0: () => this.fit(),
        ArrowLeft: () => this.panBy(-step, 0), ArrowRight: () => this.panBy(step, 0),
        ArrowUp: () => this.panBy(0, -step), ArrowDown: () => this.panBy(0, step),
      };
      if (!keys[e.key] || e.target !== this.root) return;
      keys[e.key]();
      e.preventDefault();
    });
    this.root.addEventListener('wheel', (e) => {
      const r = this.canvas.getBoundingClientRect();
      this.zoomBy(e.deltaY < 0 ? 1.25 : 0.8, e.clientX - r.left, e.clientY - r.top);
      e.preventDefault(); // the page does not scroll under a board being zoomed
    }, { passive: false });
    // One pointer drags the board; two pinch it (the zoom follows the change of their distance).
    this.canvas.addEventListener('pointerdown', (e) => {
      this.canvas.setPointerCapture(e.pointerId);
      this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    });
    const up = (e) => this.pointers.delete(e.pointerId);
    this.canvas.addEventListener('pointerup', up);
    this.canvas.addEventListener('pointercancel', up);
    this.canvas.addEventListener('pointermove', (e) => {
      const p = this.pointers.get(e.pointerId);
      if (!p) return;
      if (this.pointers.size === 1) {
        this.panBy(p.x - e.clientX, p.y - e.clientY);
      } else if (this.pointers.size === 2) {
        const [a, b] = [...this.pointers.values()];
        const before = Math.hypot(a.x - b.x, a.y - b.y);
        const other = a === p ? b : a;
        const after = Math.hypot(e.clientX - other.x, e.clientY - other.y);
        const r = this.canvas.getBoundingClientRect();
        if (before > 0) this.zoomBy(after / before, (e.clientX + other.x) / 2 - r.left, (e.clientY + other.y) / 2 - r.top);
      }
      p.x = e.clientX;
      p.y = e.clientY;
    });
  }

  draw() {
    const ctx = this.canvas.getContext('2d');
    const k = colours(this.canvas);
    const { side, scale: s, n } = this;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.fillStyle = k.light;
    ctx.fillRect(0, 0, side, side);
    const r0 = Math.floor(this.y), r1 = Math.min(n, Math.ceil(this.y + side / s));
    const c0 = Math.floor(this.x), c1 = Math.min(n, Math.ceil(this.x + side / s));
    if (s >= 4) {
      ctx.fillStyle = k.dark;
      for (let r = r0; r < r1; r++)
        for (let c = c0 + ((r + c0 + 1) % 2); c < c1; c += 2) ctx.fillRect((c - this.x) * s, (r - this.y) * s, s, s);
    }
    ctx.fillStyle = k.queen;
    if (s >= 1) {
      const pad = s >= 6 ? s * 0.18 : 0;
      for (let r = r0; r < r1; r++) {
        const c = this.columns[r];
        if (c === null || c < c0 || c >= c1) continue;
        const x = (c - this.x) * s + pad, y = (r - this.y) * s + pad;
        if (s >= 6) {
          ctx.beginPath();
          ctx.arc(x + (s - 2 * pad) / 2, y + (s - 2 * pad) / 2, (s - 2 * pad) / 2, 0, 2 * Math.PI);
          ctx.fill();
        } else {
          ctx.fillRect(x, y, s, s);
        }
      }
    } else {
      this.density(ctx, r0, r1, c0, c1);
    }
    this.canvas.dataset.view = `${s} ${this.x} ${this.y}`;
    const rounded = s >= 1 ? `${Math.round(s * 10) / 10} px a square` : `${Math.round(1 / s)} squares a pixel`;
    this.onView(`Rows ${r0}\u2013${r1 - 1}, columns ${c0}\u2013${c1 - 1} in view, ${rounded}.`);
  }

  // Below a pixel a square: each canvas pixel as dark as the number of queens in it (one stays visible).
  density(ctx, r0, r1, c0, c1) {
    const px = Math.max(1, Math.floor(this.side));
    const counts = new Uint32Array(px * px);
    let most = 1;
    for (let r = r0; r < r1; r++) {
      const c = this.columns[r];
      if (c === null || c < c0 || c >= c1) continue;
      const i = Math.min(px - 1, Math.floor((r - this.y) * this.scale)) * px + Math.min(px - 1, Math.floor((c - this.x) * this.scale));
      most = Math.max(most, ++counts[i]);
    }
    for (let i = 0; i < counts.length; i++) {
      if (!counts[i]) continue;
      ctx.globalAlpha = 0.35 + (0.65 * counts[i]) / most;
      ctx.fillRect(i % px, Math.floor(i / px), 1, 1);
    }
    ctx.globalAlpha = 1;
  }

  destroy() {
    this.resize.disconnect();
  }
}
