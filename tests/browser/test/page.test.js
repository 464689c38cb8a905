// page.test.js - the web page at / in a real browser (Debian's Chromium, headless), against the real
// nqueensd. Every assertion reads the page as a person would: visible text, roles and labels. The
// expected values come from the API itself (/solve, /complete, /trace, /count), fetched here.
// No assertion bounds a duration: waits are for what the page shows, their timeouts only safety nets.
'use strict';

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { start, BUILD } = require('../server.js');
const { launch, open } = require('../browser.js');
const { api, text, waitText, clickButton, tab, labelled, setField, noProblems } = require('../helpers.js');

const SHOTS = path.join(BUILD, 'browser');
let server;
let slow; // long counts made slow: n >= 13 runs in the background, each of its tasks waits 50 ms
let browser;
let proxy; // a reverse proxy that serves nqueensd under /nq/, as one behind a path prefix would

// Forward /nq/<rest> to the server as /<rest>; anything else is a 404 of the proxy's own.
function prefixProxy(base) {
  const target = new URL(base);
  const srv = http.createServer((req, res) => {
    if (!req.url.startsWith('/nq/')) {
      res.writeHead(404).end('not under /nq/');
      return;
    }
    const up = http.request({ host: target.hostname, port: target.port, method: req.method,
      path: req.url.slice(3), headers: req.headers }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.writeHead(502).end());
    req.pipe(up);
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(srv)));
}

before(async () => {
  [server, slow, browser] = await Promise.all([
    start(),
    start(['--long-count-n', '13', '--count-threads', '1', '--count-task-delay-ms', '50', '--grace-s', '1']),
    launch(),
  ]);
  proxy = await prefixProxy(server.base);
  fs.mkdirSync(SHOTS, { recursive: true });
});

after(async () => {
  if (browser) await browser.close();
  if (proxy) await new Promise((r) => proxy.close(r));
  await Promise.all([server && server.stop(), slow && slow.stop()]);
});

// The queens a board shows, as columns by row (null for an empty row), read from the squares' labels.
async function boardColumns(page, container) {
  return page.$$eval(`${container} [role="cell"], ${container} [role="gridcell"]`, (cells) => {
    const n = Math.round(Math.sqrt(cells.length));
    const cols = new Array(n).fill(null);
    for (const c of cells) {
      const m = /^row (\d+), column (\d+), queen/.exec(c.getAttribute('aria-label'));
      if (m) cols[+c.dataset.r] = +m[2];
    }
    return cols;
  });
}


test('loads with no error and shows the 8 queens of the first of 92 solutions', async () => {
  const page = await open(browser, server.base);
  await waitText(page, '#browse-status', /Solution 1 of 92/);
  const cols = await boardColumns(page, '#browse-board');
  assert.equal(cols.filter((c) => c !== null).length, 8);
  const first = await api(server.base, 'solve?n=8&format=columns&limit=1');
  assert.deepEqual(cols, first.solutions[0]);
  assert.equal(await page.title(), 'N-Queens');
  // Nothing moved while it loaded: the board's square is reserved before it is drawn.
  const shift = await page.evaluate(() => new Promise((resolve) => {
    let sum = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (!e.hadRecentInput) sum += e.value;
    }).observe({ type: 'layout-shift', buffered: true });
    requestAnimationFrame(() => requestAnimationFrame(() => resolve(sum)));
  }));
  assert.ok(shift < 0.05, `cumulative layout shift ${shift}`);
  noProblems(page);
  await page.close();
});

test('behind a path prefix: every URL the page uses is relative', async () => {
  const base = `http://127.0.0.1:${proxy.address().port}/nq/`;
  const page = await open(browser, base);
  await waitText(page, '#browse-status', /Solution 1 of 92/);
  await clickButton(page, 'Next'); // follows the server's "next" link
  await waitText(page, '#browse-status', /Solution 2 of 92/);
  await tab(page, 'Watch');
  await clickButton(page, 'Step');
  await waitText(page, '#watch-step', /^Step 0: place a queen at row 0, column 0$/);
  noProblems(page);
  await page.close();
});

test('copy the board as text or as columns', async () => {
  await browser.defaultBrowserContext().overridePermissions(server.base.replace(/\/$/, ''),
    ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
  const first = (await api(server.base, 'solve?n=8&format=columns&limit=1')).solutions[0];
  const rows = (await api(server.base, 'solve?n=8&limit=1')).solutions[0];
  const page = await open(browser, server.base);
  await waitText(page, '#browse-status', /Solution 1 of 92/);
  await clickButton(page, 'Copy as columns');
  await waitText(page, '#browse-copied', /Copied the board as columns/);
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), first.join(','));
  await clickButton(page, 'Copy as text');
  await waitText(page, '#browse-copied', /Copied the board as text/);
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), rows.join('\n'));
  noProblems(page);
  await page.close();
});

test('next and previous walk the solutions in /solve order; a number jumps there', async () => {
  const all = (await api(server.base, 'solve?n=8&format=columns')).solutions;
  const page = await open(browser, server.base);
  await waitText(page, '#browse-status', /Solution 1 of 92/);
  for (let i = 2; i <= 4; i++) {
    await clickButton(page, 'Next');
    await waitText(page, '#browse-status', new RegExp(`Solution ${i} of 92`));
    assert.deepEqual(await boardColumns(page, '#browse-board'), all[i - 1], `solution ${i}`);
  }
  await clickButton(page, 'Previous');
  await waitText(page, '#browse-status', /Solution 3 of 92/);
  assert.deepEqual(await boardColumns(page, '#browse-board'), all[2]);
  await clickButton(page, 'Next'); // after a step back, next follows on from there
  await waitText(page, '#browse-status', /Solution 4 of 92/);
  assert.deepEqual(await boardColumns(page, '#browse-board'), all[3]);
  await setField(page, 'Solution number', 50);
  await clickButton(page, 'Go');
  await waitText(page, '#browse-status', /Solution 50 of 92/);
  assert.deepEqual(await boardColumns(page, '#browse-board'), all[49]);
  noProblems(page);
  await page.close();
});

test('unique solutions: 12 of them for n = 8', async () => {
  const uniq = (await api(server.base, 'solve?n=8&format=columns&unique=true')).solutions;
  const page = await open(browser, server.base);
  await waitText(page, '#browse-status', /Solution 1 of 92/);
  await (await labelled(page, 'Unique solutions only')).click();
  await waitText(page, '#browse-status', /Unique solution 1 of 12/);
  assert.deepEqual(await boardColumns(page, '#browse-board'), uniq[0]);
  await clickButton(page, 'Next');
  await waitText(page, '#browse-status', /Unique solution 2 of 12/);
  assert.deepEqual(await boardColumns(page, '#browse-board'), uniq[1]);
  noProblems(page);
  await page.close();
});

test('a board beyond the listing limit: one solution from /solution, random with a seed and a permalink', async () => {
  const page = await open(browser, `${server.base}#browse?n=1000&method=random&seed=42`);
  await waitText(page, '#browse-status', /One solution of n = 1000 \(random, seed 42\)/);
  const label = await page.$eval('#browse-board [role="img"]', (el) => el.getAttribute('aria-label'));
  assert.equal(label, 'Solution board, 1000 by 1000');
  await waitText(page, '#browse-hint', /^Rows 0–999, columns 0–999 in view/);
  const link = await page.$eval('#browse-permalink', (a) => a.getAttribute('href'));
  assert.equal(link, '#browse?n=1000&method=random&seed=42');
  noProblems(page);
  await page.close();
});

test('browse: a board beyond the listing limit is asked of /solution at once, known from /limits: no 422', async () => {
  const page = await open(browser, `${server.base}#browse?n=25`);
  await waitText(page, '#browse-status', /One solution of n = 25/);
  noProblems(page);
  await page.close();
});

// The canvas's view ("scale x y": CSS px a square, and the board's column and row at its top left)
// and whether the square (r, c) is drawn in the queen's colour at its middle.
async function view(page) {
  const [s, x, y] = (await page.$eval('#browse-board canvas', (c) => c.dataset.view)).split(' ').map(Number);
  return { s, x, y };
}
async function queenAt(page, r, c) {
  return page.$eval('#browse-board canvas', (cv, r, c) => {
    const [s, x, y] = cv.dataset.view.split(' ').map(Number);
    const k = cv.width / parseFloat(cv.style.width);
    const px = Math.floor(((c - x) + 0.5) * s * k), py = Math.floor(((r - y) + 0.5) * s * k);
    if (px < 0 || py < 0 || px >= cv.width || py >= cv.height) return null;
    const d = cv.getContext('2d').getImageData(px, py, 1, 1).data;
    const q = getComputedStyle(cv).getPropertyValue('--queen').trim();
    const probe = document.createElement('canvas').getContext('2d');
    probe.fillStyle = q;
    probe.fillRect(0, 0, 1, 1);
    const e = probe.getImageData(0, 0, 1, 1).data;
    return Math.abs(d[0] - e[0]) + Math.abs(d[1] - e[1]) + Math.abs(d[2] - e[2]) < 30;
  }, r, c);
}

test('n = 2,000 opens whole in its box, and zooms with the wheel around the pointer and with the keyboard', async () => {
  const page = await open(browser, `${server.base}#browse?n=2000&method=construct`,
    { width: 1280, height: 800, deviceScaleFactor: 3 });
  await waitText(page, '#browse-status', /One solution of n = 2000 \(construct\)/);
  const { solution } = await api(server.base, 'solution?n=2000&method=construct');
  const [w, h] = await page.$eval('#browse-board canvas', (c) => [c.width, c.height]);
  assert.ok(w * h <= 4096 * 4096, `${w} x ${h} pixels: iOS Safari draws nothing past 4096 x 4096`);
  const fits = await page.$eval('#browse-board canvas', (c) => {
    const r = c.getBoundingClientRect();
    return r.left >= 0 && r.top >= 0 && r.right <= innerWidth && r.bottom <= innerHeight;
  });
  assert.ok(fits, 'the whole board is in the viewport');
  await waitText(page, '#browse-hint', /^Rows 0–1999, columns 0–1999 in view/);
  // The wheel over row 1000's queen zooms in around it: the queen stays under the pointer, and is drawn.
  const fit = await view(page);
  const box = await page.$eval('#browse-board canvas', (c) => { const r = c.getBoundingClientRect(); return [r.left, r.top]; });
  const mx = box[0] + (solution[1000] + 0.5) * fit.s, my = box[1] + 1000.5 * fit.s;
  await page.mouse.move(mx, my);
  for (let i = 0; i < 40 && (await view(page)).s < 12; i++) await page.mouse.wheel({ deltaY: -100 });
  const zoomed = await view(page);
  assert.ok(zoomed.s >= 12, `zoomed to ${zoomed.s} px a square`);
  assert.equal(await queenAt(page, 1000, solution[1000]), true, "row 1000's queen drawn where it is");
  assert.equal(await queenAt(page, 1000, solution[1000] + 1), false, 'and not beside it');
  // The keyboard: 0 fits again, + zooms, the arrows pan.
  await page.focus('#browse-board .viewer');
  await page.keyboard.press('0');
  assert.equal((await view(page)).s, fit.s);
  await page.keyboard.press('+');
  assert.equal((await view(page)).s, fit.s * 2);
  await page.keyboard.press('ArrowDown');
  assert.ok((await view(page)).y > 0, 'panned down');
  noProblems(page);
  await page.close();
});

test('n = 100,000: more squares than pixels, each pixel as dark as its queens', async () => {
  const page = await open(browser, `${server.base}#browse?n=100000&method=construct`);
  await waitText(page, '#browse-status', /One solution of n = 100000 \(construct\)/);
  const label = await page.$eval('#browse-board [role="img"]', (el) => el.getAttribute('aria-label'));
  assert.equal(label, 'Solution board, 100000 by 100000');
  await waitText(page, '#browse-hint', /squares a pixel\.$/);
  noProblems(page);
  await page.close();
});

test('play: solve from here finishes the board the way /complete does', async () => {
  const page = await open(browser, `${server.base}#play?n=8&queens=0:0`);
  await waitText(page, '#play-status', /^1 of 8 queens placed/);
  const done = await api(server.base, 'complete?n=8&queens=0:0');
  await clickButton(page, 'Solve from here');
  await waitText(page, '#play-status', /Solved! 8 queens and none attacks another/);
  const cols = await boardColumns(page, '#play-board');
  assert.deepEqual(cols.map((c) => c - 1), done.solution); // the board counts from 1
  noProblems(page);
  await page.close();
});

test('play on a phone: n = 32 keeps 24 px squares, the board scrolls, its row numbers stay in view', async () => {
  const page = await open(browser, `${server.base}#play?n=32`, { width: 390, height: 844 });
  await waitText(page, '#play-status', /0 of 32 queens placed/);
  const sizes = await page.$$eval('#play [role="gridcell"]', (cells) => cells.map((c) => {
    const r = c.getBoundingClientRect();
    return Math.min(r.width, r.height);
  }));
  assert.equal(sizes.length, 32 * 32);
  assert.ok(Math.min(...sizes) >= 24, `every square at least 24 px (WCAG 2.5.8), smallest ${Math.min(...sizes)}`);
  const box = () => page.$eval('#play [role="grid"]', (g) => {
    const b = g.parentElement;
    return { scrollable: b.scrollWidth > b.clientWidth, left: b.scrollLeft, edge: b.getBoundingClientRect().left };
  });
  assert.equal((await box()).scrollable, true, 'the board scrolls sideways in its box');
  await (await page.$('[role="gridcell"][aria-label="row 1, column 32"]')).click(); // scrolls it into view
  await waitText(page, '#play-status', /1 of 32 queens placed/);
  assert.ok(await page.$('::-p-aria([name="row 1, column 32, queen"])'), 'the queen is where it was tapped');
  const whole = await page.$eval('#play .board', (b) => { const r = b.getBoundingClientRect(); return r.bottom <= innerHeight && r.right <= innerWidth; });
  assert.ok(whole, "the board's box is whole in the viewport");
  const after = await box();
  assert.ok(after.left > 0, 'the box scrolled to the last column');
  const header = await page.$eval('[role="rowheader"][aria-label="row 1"]', (h) => h.getBoundingClientRect().left);
  assert.ok(Math.abs(header - after.edge) < 1, `row 1's number stays at the box's left edge (${header} vs ${after.edge})`);
  // Walking the board with the arrows, the focused square is always whole in view, never under the numbers.
  const hidden = () => page.evaluate(() => {
    const sq = document.activeElement.getBoundingClientRect();
    const box = document.activeElement.closest('.board').getBoundingClientRect();
    const head = document.querySelector('#play [role="rowheader"]').getBoundingClientRect().width;
    const out = sq.left < box.left + head - 0.5 || sq.top < box.top + head - 0.5 || sq.right > box.right + 0.5
      || sq.bottom > box.bottom + 0.5;
    return out ? document.activeElement.getAttribute('aria-label') : null;
  });
  const obscured = [];
  for (const [key, times] of [['ArrowLeft', 31], ['ArrowDown', 31], ['ArrowRight', 20], ['ArrowUp', 25]]) {
    for (let i = 0; i < times; i++) {
      await page.keyboard.press(key);
      const h = await hidden();
      if (h) obscured.push(h);
    }
  }
  assert.deepEqual(obscured, [], 'no focused square cut off or under the row and column numbers');
  noProblems(page);
  await page.close();
});

test('play on a desktop: the board fills its box, n = 32 has 24 px squares and fits whole at 1920×1080', async () => {
  const page = await open(browser, `${server.base}#play?n=8`, { width: 1920, height: 1080 });
  await waitText(page, '#play-status', /0 of 8 queens placed/);
  // The box is the board's own square (no gap below it), and its rows are square, without hairlines.
  const fit = await page.$eval('#play [role="grid"]', (g) => {
    const cell = (r) => g.querySelector(`[aria-label^="row ${r}, column 1"]`).getBoundingClientRect();
    return { gap: g.parentElement.getBoundingClientRect().height - g.getBoundingClientRect().height,
      pitch: cell(2).top - cell(1).top, side: cell(1).height };
  });
  assert.ok(Math.abs(fit.gap) < 1, `the board's box is as tall as the board (${fit.gap} px more)`);
  assert.ok(Math.abs(fit.pitch - fit.side) < 0.1, `rows as tall as their squares (${fit.pitch} vs ${fit.side})`);
  await setField(page, 'Board size n', 32);
  await clickButton(page, 'New board');
  await waitText(page, '#play-status', /0 of 32 queens placed/);
  const side = await page.$eval('[role="gridcell"][aria-label="row 32, column 32"]', (c) => c.getBoundingClientRect().width);
  assert.ok(side >= 24, `n = 32's squares at least 24 px, ${side}`);
  const sideways = await page.$eval('#play [role="grid"]', (g) => g.parentElement.scrollWidth - g.parentElement.clientWidth);
  assert.ok(sideways <= 0, `at 1920×1080 n = 32 fits without scrolling sideways (${sideways} px over)`);
  noProblems(page);
  await page.close();
});

test('play with the keyboard only', async () => {
  const page = await open(browser, `${server.base}#play?n=5`);
  await waitText(page, '#play-status', /0 of 5 queens placed/);
  // From the size field, Tab reaches the board in a bounded number of presses.
  await (await labelled(page, 'Board size n')).focus();
  let role = null;
  for (let i = 0; i < 20 && role !== 'gridcell'; i++) {
    await page.keyboard.press('Tab');
    role = await page.evaluate(() => document.activeElement.getAttribute('role'));
  }
  assert.equal(role, 'gridcell', 'Tab reaches the board');
  const focused = () => page.evaluate(() => document.activeElement.getAttribute('aria-label'));
  assert.equal(await focused(), 'row 1, column 1');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  await waitText(page, '#play-status', /1 of 5 queens placed/);
  assert.equal(await focused(), 'row 1, column 3, queen');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press(' ');
  await waitText(page, '#play-status', /2 of 5 queens placed; 1 pair attacks/);
  await page.keyboard.press(' '); // a cross instead
  await waitText(page, '#play-status', /1 of 5 queens placed, none/);
  assert.equal(await focused(), 'row 2, column 3, crossed out');
  noProblems(page);
  await page.close();
});

test('the mode tabs follow the arrow keys round the list, and Home and End', async () => {
  const page = await open(browser, server.base);
  await waitText(page, '#browse-status', /Solution 1 of 92/);
  const [first] = await page.$$('::-p-aria([name="Browse"][role="tab"])');
  await first.focus();
  const state = () => page.evaluate(() => [document.activeElement.textContent.trim(),
    document.querySelector('[role="tab"][aria-selected="true"]').textContent.trim(), location.hash.split('?')[0]]);
  await page.keyboard.press('End');
  assert.deepEqual(await state(), ['Watch', 'Watch', '#watch']);
  await page.keyboard.press('ArrowRight'); // round to the first
  assert.deepEqual(await state(), ['Browse', 'Browse', '#browse']);
  await page.keyboard.press('ArrowLeft'); // and back to the last
  assert.deepEqual(await state(), ['Watch', 'Watch', '#watch']);
  await page.keyboard.press('Home');
  assert.deepEqual(await state(), ['Browse', 'Browse', '#browse']);
  await page.keyboard.press('ArrowRight');
  assert.deepEqual(await state(), ['Count', 'Count', '#count']);
  assert.equal(await page.$eval('#count', (el) => el.hidden), false);
  noProblems(page);
  await page.close();
});

test('watch: the first steps are those of /trace', async () => {
  const trace = await api(server.base, 'trace?n=5&limit=12');
  const words = (s) => ({
    place: `Step ${s.step}: place a queen at row ${s.row}, column ${s.col}`,
    reject: `Step ${s.step}: row ${s.row}, column ${s.col} is rejected (${s.by})`,
    remove: `Step ${s.step}: remove the queen at row ${s.row}, column ${s.col}`,
    solution: `Step ${s.step}: solution found: ${(s.columns || []).join(',')}`,
  })[s.op];
  const page = await open(browser, `${server.base}#watch?n=5`);
  await waitText(page, '#watch-step', /Press Play or Step/);
  const columns = new Array(5).fill(null);
  for (const s of trace.steps) {
    await clickButton(page, 'Step');
    await waitText(page, '#watch-step', new RegExp(`^Step ${s.step}:`));
    assert.equal(await text(page, '#watch-step'), words(s));
    if (s.op === 'place') columns[s.row] = s.col;
    if (s.op === 'remove') columns[s.row] = null;
    if (s.op === 'reject') assert.ok(await page.$(`::-p-aria([name="row ${s.row}, column ${s.col}, rejected: ${s.by}"])`));
    assert.deepEqual(await boardColumns(page, '#watch-board'), columns, `board after step ${s.step}`);
  }
  // Play runs on by itself; Pause stops it.
  await clickButton(page, 'Play');
  await waitText(page, '#watch-step', /^Step (1[3-9]|[2-9]\d|\d{3,}):/);
  await clickButton(page, 'Pause');
  noProblems(page);
  await page.close();
});

test('count: a long count shows a progress bar that moves, then the /counts table lists it', async () => {
  const page = await open(browser, `${slow.base}#count`);
  await setField(page, 'Board size n', 13);
  await clickButton(page, 'Count');
  const percent = () => page.$eval('#count-progress-text', (el) => {
    const m = /([\d.]+)% done/.exec(el.textContent);
    return m ? Number(m[1]) : null;
  });
  await page.waitForFunction(() => /% done/.test(document.querySelector('#count-progress-text').textContent));
  const bar = await page.$('::-p-aria([name="Count progress"])');
  assert.ok(bar, 'a labelled progress bar');
  const first = await percent();
  await page.waitForFunction((p) => {
    const m = /([\d.]+)% done/.exec(document.querySelector('#count-progress-text').textContent);
    return m && Number(m[1]) > p;
  }, {}, first);
  assert.ok((await percent()) > first);
  await page.waitForFunction(() => /running/.test(document.querySelector('#counts-table tbody').textContent));
  noProblems(page);
  await page.close();
});

test('an address with a board size out of range shows a board that fits, and says why', async () => {
  const page = await open(browser, `${server.base}#watch?n=300`);
  await waitText(page, '#watch-error', /Choose n from 1 to 16; showing n = 6\./);
  assert.equal((await boardColumns(page, '#watch-board')).length, 6);
  const play = await open(browser, `${server.base}#play?n=40`);
  await waitText(play, '#play-error', /^Choose n from 1 to 32\.$/);
  assert.equal((await boardColumns(play, '#play-board')).length, 8);
  await clickButton(play, 'Clear'); // a board to clear, not a null one
  noProblems(page);
  noProblems(play);
  await page.close();
  await play.close();
});

test('the largest seed, 2^53 - 1, is kept exact in the words and in the permalink; a larger one is refused in words', async () => {
  const seed = '9007199254740991';
  const page = await open(browser, `${server.base}#browse?n=1000&method=random&seed=${seed}`);
  await waitText(page, '#browse-status', new RegExp(`\\(random, seed ${seed}\\)`));
  const link = await page.$eval('#browse-permalink', (a) => a.getAttribute('href'));
  assert.equal(link, `#browse?n=1000&method=random&seed=${seed}`);
  const big = await open(browser, `${server.base}#browse?n=1000&method=random&seed=18446744073709551615`);
  await waitText(big, '#browse-error', /^A seed is a whole number from 0 to 9007199254740991/);
  noProblems(page);
  noProblems(big); // refused before asking: no 400 in the console
  await page.close();
  await big.close();
});

test('an error of the API is shown in words, with the problem\'s detail', async () => {
  const problem = await api(server.base, 'count?n=40');
  const page = await open(browser, `${server.base}#count`);
  await setField(page, 'Board size n', 40);
  await clickButton(page, 'Count');
  await page.waitForSelector('#count-error:not([hidden])');
  const alert = await text(page, '::-p-aria([role="alert"])');
  assert.ok(alert.includes(problem.detail), `"${alert}" names the detail "${problem.detail}"`);
  // The page asked for it: the browser's note of the 422 is the only console message.
  assert.deepEqual(page.problems.filter((p) => !/422/.test(p)), []);
  await page.close();
});

test('watch: next solution jumps to each solution in turn; step back; the list goes back to one; the address keeps the step', async () => {
  const trace = await api(server.base, 'trace?n=6&limit=100000');
  const sols = trace.steps.filter((s) => s.op === 'solution');
  assert.equal(sols.length, 4);
  const page = await open(browser, `${server.base}#watch?n=6`);
  await waitText(page, '#watch-step', /Press Play or Step/);
  for (let k = 0; k < 2; k++) {
    await clickButton(page, 'Next solution');
    await waitText(page, '#watch-step', new RegExp(`^Step ${sols[k].step}: solution found: ${sols[k].columns.join(',')}$`));
    assert.deepEqual(await boardColumns(page, '#watch-board'), sols[k].columns);
  }
  await page.waitForFunction(() => document.querySelectorAll('#watch-solutions button').length === 2);
  await page.waitForFunction((at) => location.hash === `#watch?n=6&from=${at}`, {}, sols[1].step + 1);
  await clickButton(page, 'Step back');
  const prev = trace.steps[sols[1].step - 1];
  await waitText(page, '#watch-step', new RegExp(`^Step ${prev.step}: `));
  const [first] = await page.$$(`::-p-aria([name="Solution 1: columns ${sols[0].columns.join(', ')}"][role="button"])`);
  await first.click();
  await waitText(page, '#watch-step', new RegExp(`^Step ${sols[0].step}: solution found`));
  assert.deepEqual(await boardColumns(page, '#watch-board'), sols[0].columns);
  // The address of a step opens at that step.
  const at = await open(browser, `${server.base}#watch?n=6&from=${sols[0].step + 1}`);
  await waitText(at, '#watch-step', new RegExp(`^Step ${sols[0].step}: solution found`));
  assert.deepEqual(await boardColumns(at, '#watch-board'), sols[0].columns);
  noProblems(page);
  noProblems(at);
  await page.close();
  await at.close();
});

test('watch: at full speed the whole search of n = 8 plays to its end, with the queens\' attacked squares; restart', async () => {
  const page = await open(browser, `${server.base}#watch?n=8`);
  await waitText(page, '#watch-step', /Press Play or Step/);
  await clickButton(page, 'Step');
  await waitText(page, '#watch-step', /^Step 0: place a queen at row 0, column 0$/);
  const attacked = await page.$$eval('#watch-board [role="cell"]', (cells) => cells.filter((c) => /attacked$/.test(c.getAttribute('aria-label'))).length);
  assert.equal(attacked, 3 * 7, 'row 0\'s queen attacks its column and diagonal: 21 squares');
  await page.$eval('#watch-speed', (el) => { el.value = el.max; el.dispatchEvent(new Event('input')); });
  assert.equal(await text(page, '#watch-speed-out'), '100,000 steps a second');
  await clickButton(page, 'Play');
  await waitText(page, '#watch-step', /^The search is over: 92 solutions in 17,868 steps/);
  assert.equal(await page.$$eval('#watch-solutions button', (b) => b.length), 92);
  await clickButton(page, 'Restart');
  await waitText(page, '#watch-step', /Press Play or Step/);
  assert.deepEqual(await boardColumns(page, '#watch-board'), new Array(8).fill(null));
  noProblems(page);
  await page.close();
});

test('browse: a board with no solution shows no stale board; the solution number is in the address and restored', async () => {
  const page = await open(browser, `${server.base}#browse?n=1`);
  await waitText(page, '#browse-status', /Solution 1 of 1/);
  await setField(page, 'Board size n', 2);
  await clickButton(page, 'Show');
  await waitText(page, '#browse-status', /^n = 2 has no solution\.$/);
  assert.deepEqual(await boardColumns(page, '#browse-board'), [null, null], 'an empty 2 × 2 board, not the 1 × 1 one');
  assert.equal(await page.$eval('#browse-error', (el) => el.hidden), true);
  await setField(page, 'Board size n', 8);
  await clickButton(page, 'Show');
  await waitText(page, '#browse-status', /Solution 1 of 92/);
  await clickButton(page, 'Next');
  await waitText(page, '#browse-status', /Solution 2 of 92/);
  assert.equal(await page.evaluate(() => location.hash), '#browse?n=8&offset=1');
  const all = (await api(server.base, 'solve?n=8&format=columns')).solutions;
  const again = await open(browser, `${server.base}#browse?n=8&offset=49`);
  await waitText(again, '#browse-status', /Solution 50 of 92/);
  assert.deepEqual(await boardColumns(again, '#browse-board'), all[49]);
  noProblems(page);
  noProblems(again);
  await page.close();
  await again.close();
});

test('browse: beyond the totals /solve gives, the total comes from /count, with its progress while it runs', async () => {
  const { total } = await api(server.base, 'count?n=17');
  const page = await open(browser, `${server.base}#browse?n=17`);
  await waitText(page, '#browse-status', new RegExp(`^Solution 1 of ${total.toLocaleString('en')}$`));
  noProblems(page);
  await page.close();
  const slowly = await open(browser, `${slow.base}#browse?n=17`);
  await waitText(slowly, '#browse-hint', /^Counting the total of n = 17: [\d.]+% done…$/);
  noProblems(slowly);
  await slowly.close();
});
