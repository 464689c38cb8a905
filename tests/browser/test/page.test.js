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
const { start, ROOT, BUILD } = require('../server.js');
const { launch, open } = require('../browser.js');

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

const api = async (base, p) => (await fetch(new URL(p, base))).json();

// The queens a board shows, as columns by row (null for an empty row), read from the squares' labels.
async function boardColumns(page, container) {
  return page.$$eval(`${container} [role="cell"], ${container} [role="gridcell"]`, (cells) => {
    const n = Math.round(Math.sqrt(cells.length));
    const cols = new Array(n).fill(null);
    for (const c of cells) {
      const m = /^row (\d+), column (\d+), queen/.exec(c.getAttribute('aria-label'));
      if (m) cols[+m[1]] = +m[2];
    }
    return cols;
  });
}

const text = (page, sel) => page.$eval(sel, (el) => el.textContent.trim());
const waitText = (page, sel, re) => page.waitForFunction(
  (s, src) => new RegExp(src).test(document.querySelector(s).textContent), {}, sel, re.source);
async function clickButton(page, name) {
  const [b] = await page.$$(`::-p-aria([name="${name}"][role="button"])`);
  assert.ok(b, `a button named "${name}"`);
  await b.click();
}
async function tab(page, name) {
  const [t] = await page.$$(`::-p-aria([name="${name}"][role="tab"])`);
  await t.click();
}
async function labelled(page, name) {
  const [el] = await page.$$(`::-p-aria([name="${name}"])`);
  assert.ok(el, `a control labelled "${name}"`);
  return el;
}
async function setField(page, name, value) {
  const el = await labelled(page, name);
  await el.click({ count: 3 });
  await el.type(String(value));
  return el;
}
function noProblems(page) {
  assert.deepEqual(page.problems, [], 'no console error, page error or failed request');
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
  assert.match(label, /^Solution board, 1000 by 1000, \d+ pixels a square$/);
  await waitText(page, '#browse-hint', /scroll the board/);
  const link = await page.$eval('#browse-permalink', (a) => a.getAttribute('href'));
  assert.equal(link, '#browse?n=1000&method=random&seed=42');
  noProblems(page);
  await page.close();
});

test('n = 2,000 on a high-density screen stays within the canvas area every browser draws', async () => {
  const page = await open(browser, `${server.base}#browse?n=2000&method=construct`,
    { width: 1280, height: 800, deviceScaleFactor: 3 });
  await waitText(page, '#browse-status', /One solution of n = 2000 \(construct\)/);
  const [w, h, cssW] = await page.$eval('#browse-board canvas',
    (c) => [c.width, c.height, parseFloat(c.style.width)]);
  assert.ok(w * h <= 4096 * 4096, `${w} x ${h} pixels: iOS Safari draws nothing past 4096 x 4096`);
  assert.ok(w >= 2 * 2000 && h === w, `${w} x ${h} pixels for ${cssW} CSS pixels: two or more a square`);
  // And it was drawn: the squares of row 0 are dark exactly at its queen's column.
  const { solution } = await api(server.base, 'solution?n=2000&method=construct');
  const row0 = await page.$eval('#browse-board canvas', (c, css) => {
    const scale = c.width / css, cell = (css - 36) / 2000, y = Math.floor((36 + cell / 2) * scale);
    const d = c.getContext('2d').getImageData(0, y, c.width, 1).data;
    const dark = [];
    for (let col = 0; col < 2000; col++) {
      const i = 4 * Math.floor((36 + (col + 0.5) * cell) * scale);
      if (d[i] + d[i + 1] + d[i + 2] < 150) dark.push(col);
    }
    return dark;
  }, cssW);
  assert.deepEqual(row0, [solution[0]]);
  noProblems(page);
  await page.close();
});

test('n = 100,000 is drawn as a density view', async () => {
  const page = await open(browser, `${server.base}#browse?n=100000&method=construct`);
  await waitText(page, '#browse-status', /One solution of n = 100000 \(construct\)/);
  const label = await page.$eval('#browse-board [role="img"]', (el) => el.getAttribute('aria-label'));
  assert.equal(label, 'Density of queens on a 100000 by 100000 board: darker where more queens are');
  noProblems(page);
  await page.close();
});

test('play: two queens on a diagonal are both marked; a hint places the queen /complete names', async () => {
  const page = await open(browser, `${server.base}#play?n=8`);
  await waitText(page, '#play-status', /0 of 8 queens placed/);
  const square = (r, c) => page.$(`[role="gridcell"][aria-label^="row ${r}, column ${c}"]`);
  await (await square(0, 0)).click();
  await waitText(page, '#play-status', /1 of 8 queens placed, none attacking/);
  await (await square(2, 2)).click();
  await waitText(page, '#play-status', /2 of 8 queens placed; 1 pair attacks each other/);
  const marked = await page.$$eval('[role="gridcell"]', (cells) => cells.map((c) => c.getAttribute('aria-label'))
    .filter((l) => l.endsWith('queen, attacked by another queen')));
  assert.deepEqual(marked, ['row 0, column 0, queen, attacked by another queen', 'row 2, column 2, queen, attacked by another queen']);
  await clickButton(page, 'Undo');
  await waitText(page, '#play-status', /1 of 8 queens placed, none attacking/);
  const done = await api(server.base, 'complete?n=8&queens=0:0');
  await clickButton(page, 'Hint');
  await waitText(page, '#play-status', /2 of 8 queens placed, none attacking/);
  const [hr, hc] = done.hint;
  assert.ok(await page.$(`::-p-aria([name="row ${hr}, column ${hc}, queen"])`), `the hint's queen at ${hr}:${hc}`);
  await clickButton(page, 'How many solutions remain?');
  const remain = await api(server.base, `complete?n=8&queens=0:0,${hr}:${hc}&count=true`);
  await waitText(page, '#play-remain', new RegExp(`^${remain.completions} solutions? contains? these queens`));
  await clickButton(page, 'Solve from here');
  await waitText(page, '#play-status', /Solved! 8 queens and none attacks another/);
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
  await (await page.$('[role="gridcell"][aria-label="row 0, column 31"]')).click(); // scrolls it into view
  await waitText(page, '#play-status', /1 of 32 queens placed/);
  assert.ok(await page.$('::-p-aria([name="row 0, column 31, queen"])'), 'the queen is where it was tapped');
  const after = await box();
  assert.ok(after.left > 0, 'the box scrolled to the last column');
  const header = await page.$eval('[role="rowheader"][aria-label="row 0"]', (h) => h.getBoundingClientRect().left);
  assert.ok(Math.abs(header - after.edge) < 1, `row 0's number stays at the box's left edge (${header} vs ${after.edge})`);
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

test('play on a desktop: a small board is not enlarged, n = 32 has 24 px squares', async () => {
  const page = await open(browser, `${server.base}#play?n=8`);
  await waitText(page, '#play-status', /0 of 8 queens placed/);
  const width = () => page.$eval('#play [role="grid"]', (g) => g.getBoundingClientRect().width);
  assert.ok(await width() <= 640, 'n = 8 at most 40rem wide');
  // The box is the board's own square (no gap below it), and its rows are square, without hairlines.
  const fit = await page.$eval('#play [role="grid"]', (g) => {
    const cell = (r) => g.querySelector(`[aria-label^="row ${r}, column 0"]`).getBoundingClientRect();
    return { gap: g.parentElement.getBoundingClientRect().height - g.getBoundingClientRect().height,
      pitch: cell(1).top - cell(0).top, side: cell(0).height };
  });
  assert.ok(Math.abs(fit.gap) < 1, `the board's box is as tall as the board (${fit.gap} px more)`);
  assert.ok(Math.abs(fit.pitch - fit.side) < 0.1, `rows as tall as their squares (${fit.pitch} vs ${fit.side})`);
  await setField(page, 'Board size n', 32);
  await clickButton(page, 'New board');
  await waitText(page, '#play-status', /0 of 32 queens placed/);
  const side = await page.$eval('[role="gridcell"][aria-label="row 31, column 31"]', (c) => c.getBoundingClientRect().width);
  assert.ok(side >= 24, `n = 32's squares at least 24 px, ${side}`);
  const sideways = await page.$eval('#play [role="grid"]', (g) => g.parentElement.scrollWidth - g.parentElement.clientWidth);
  assert.ok(sideways <= 0, `at 1280 px n = 32 fits without scrolling sideways (${sideways} px over)`);
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
  assert.equal(await focused(), 'row 0, column 0');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  await waitText(page, '#play-status', /1 of 5 queens placed/);
  assert.equal(await focused(), 'row 0, column 2, queen');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press(' ');
  await waitText(page, '#play-status', /2 of 5 queens placed; 1 pair attacks/);
  await page.keyboard.press(' '); // and off again
  await waitText(page, '#play-status', /1 of 5 queens placed, none/);
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

test('a seed beyond 2^53 is kept as typed, in the words and in the permalink', async () => {
  const seed = '18446744073709551615';
  const page = await open(browser, `${server.base}#browse?n=1000&method=random&seed=${seed}`);
  await waitText(page, '#browse-status', new RegExp(`\\(random, seed ${seed}\\)`));
  const link = await page.$eval('#browse-permalink', (a) => a.getAttribute('href'));
  assert.equal(link, `#browse?n=1000&method=random&seed=${seed}`);
  noProblems(page);
  await page.close();
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

test('axe-core finds no serious or critical violation in any mode', async () => {
  const page = await browser.newPage();
  await page.setBypassCSP(true); // only so that axe's script can be injected
  await page.setViewport({ width: 1280, height: 800 });
  await page.goto(server.base, { waitUntil: 'networkidle0' });
  await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
  for (const mode of ['Browse', 'Count', 'Play', 'Watch']) {
    await tab(page, mode);
    await page.waitForNetworkIdle();
    const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
    const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
    assert.deepEqual(bad, [], `${mode}: no serious or critical violation`);
  }
  await page.close();
});

test('screenshots at 1280×800 and 390×844', async () => {
  for (const [w, h] of [[1280, 800], [390, 844]]) {
    const page = await open(browser, server.base, { width: w, height: h });
    await waitText(page, '#browse-status', /Solution 1 of 92/);
    const file = path.join(SHOTS, `page-${w}x${h}.png`);
    await page.screenshot({ path: file });
    assert.ok(fs.statSync(file).size > 0);
    if (w === 1280 && process.env.NQ_UPDATE_SCREENSHOT === '1') fs.copyFileSync(file, path.join(ROOT, 'docs/page.png'));
    noProblems(page);
    await page.close();
  }
});
