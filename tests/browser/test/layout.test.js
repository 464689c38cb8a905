// layout.test.js - every board fits: at each viewport of the matrix below, in both orientations, the
// board of Browse (n = 32), Watch (n = 16, the largest trace), a finished Puzzle (n = 32) and Play
// (n = 8) is whole inside the viewport with the page scrolled to its top (its box, its first and last
// squares), nothing scrolls sideways, and the board is beside the controls where the viewport is wider
// than tall and above them where it is taller (and Count's table does not scroll the page sideways
// either). A screenshot of each is kept in the build directory's
// browser/ folder (the CI artefacts). Then axe-core in every view, in the light and the dark scheme.
'use strict';

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { start, ROOT, BUILD } = require('../server.js');
const { launch, open } = require('../browser.js');
const { api, waitText, tab, noProblems } = require('../helpers.js');

const SHOTS = path.join(BUILD, 'browser');
const SIZES = [[360, 640], [390, 844], [768, 1024], [1280, 720], [1366, 768], [1920, 1080], [2560, 1440]];
let server;
let browser;
let finished; // the address of a solved queens puzzle of n = 32

before(async () => {
  [server, browser] = await Promise.all([start(), launch()]);
  fs.mkdirSync(SHOTS, { recursive: true });
  const p = await api(server.base, 'puzzle?kind=queens&n=32&difficulty=easy&seed=1&reveal=true');
  finished = `#puzzle?kind=queens&n=32&difficulty=easy&seed=1&queens=${p.solution.map((c, r) => `${r}:${c}`).join(',')}`;
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

// Where the shown view's board and controls are, in viewport pixels, and what overflows.
function measure(page) {
  return page.evaluate(() => {
    const mode = document.querySelector('.mode:not([hidden])');
    const rect = (el) => { const r = el.getBoundingClientRect(); return { left: r.left, top: r.top, right: r.right, bottom: r.bottom }; };
    const cells = mode.querySelectorAll('.board [data-r]');
    return { box: rect(mode.querySelector('.board')), first: rect(cells[0]), last: rect(cells[cells.length - 1]),
      cells: cells.length, controls: rect(mode.querySelector('.controls')), vw: innerWidth, vh: innerHeight,
      sideways: document.documentElement.scrollWidth - innerWidth, y: scrollY };
  });
}

const VIEWS = [
  ['browse', '#browse?n=32&method=construct', '#browse-status', /One solution of n = 32/, 32],
  ['watch', '#watch?n=16', '#watch-step', /Press Play or Step/, 16],
  ['puzzle', null, '#puzzle-status', /^Solved!/, 32],
  ['play', '#play?n=8', '#play-status', /^0 of 8 queens placed/, 8],
];

for (const [a, b] of SIZES) {
  for (const [w, h] of [[a, b], [b, a]]) {
    test(`every board is whole at ${w}×${h}, ${w > h ? 'beside' : 'above'} the controls`, async () => {
      const page = await open(browser, `${server.base}#browse?n=32&method=construct`, { width: w, height: h });
      for (const [name, hash, status, re, n] of VIEWS) {
        await page.evaluate((hh) => { location.hash = hh; }, hash || finished);
        await waitText(page, status, re);
        const m = await measure(page);
        const inside = (r) => r.left >= -0.5 && r.top >= -0.5 && r.right <= m.vw + 0.5 && r.bottom <= m.vh + 0.5;
        assert.equal(m.cells, n * n, `${name}: ${n}×${n} squares`);
        assert.equal(m.y, 0, `${name}: the page is at its top`);
        assert.ok(inside(m.box), `${name} at ${w}×${h}: the board's box ${JSON.stringify(m.box)} is in the viewport`);
        assert.ok(inside(m.first) && inside(m.last), `${name} at ${w}×${h}: its first and last squares are in view`);
        assert.ok(m.sideways <= 0, `${name} at ${w}×${h}: nothing scrolls sideways (${m.sideways} px)`);
        if (w > h) assert.ok(m.box.left >= m.controls.right - 0.5, `${name} at ${w}×${h}: the board is beside the controls`);
        else assert.ok(m.box.bottom <= m.controls.top + 0.5, `${name} at ${w}×${h}: the board is above the controls`);
        await page.screenshot({ path: path.join(SHOTS, `${name}-${w}x${h}.png`) });
      }
      // Count has no board, but its table does not make the page scroll sideways either.
      await page.evaluate(() => { location.hash = '#count'; });
      await page.waitForFunction(() => document.querySelector('#counts-table tbody tr'));
      const sideways = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
      assert.ok(sideways <= 0, `count at ${w}×${h}: nothing scrolls sideways (${sideways} px)`);
      noProblems(page);
      await page.close();
    });
  }
}

test('axe-core finds no serious or critical violation in any view, in the light and the dark scheme', async () => {
  const page = await browser.newPage();
  await page.setBypassCSP(true); // only so that axe's script can be injected
  await page.setViewport({ width: 1280, height: 800 });
  for (const scheme of ['light', 'dark']) {
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
    await page.goto(`${server.base}#play?n=6&queens=0:1,2:2&marks=4:4`, { waitUntil: 'networkidle0' });
    await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
    for (const mode of ['Browse', 'Count', 'Play', 'Puzzle', 'Watch']) {
      await tab(page, mode);
      await page.waitForNetworkIdle();
      if (mode === 'Play') { // a conflict, a cross and a hint on the board
        const [hint] = await page.$$('::-p-aria([name="Hint"][role="button"])');
        await hint.click();
        await page.waitForNetworkIdle();
      }
      const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
      const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.help} (${v.nodes.slice(0, 5).map((n) => n.target.join(' ')).join(', ')})`);
      assert.deepEqual(bad, [], `${mode}, ${scheme} scheme: no serious or critical violation`);
    }
    // A finished puzzle, its win shown.
    await page.evaluate((hh) => { location.hash = hh; }, finished);
    await waitText(page, '#puzzle-win', /^Solved/);
    const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
    const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
    assert.deepEqual(bad, [], `a won puzzle, ${scheme} scheme`);
    await page.screenshot({ path: path.join(SHOTS, `puzzle-won-${scheme}-1280x800.png`) });
  }
  await page.close();
});

test('screenshots of each view at 1280×800 in both schemes; the README\'s picture', async () => {
  const page = await open(browser, `${server.base}#puzzle?kind=regions&n=8&difficulty=medium&seed=3&queens=0:0&marks=0:1`);
  await waitText(page, '#puzzle-status', /^1 of 8 queens placed/);
  const file = path.join(SHOTS, 'page-1280x800.png');
  await page.screenshot({ path: file });
  assert.ok(fs.statSync(file).size > 0);
  if (process.env.NQ_UPDATE_SCREENSHOT === '1') fs.copyFileSync(file, path.join(ROOT, 'docs/page.png'));
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
  await page.screenshot({ path: path.join(SHOTS, 'page-dark-1280x800.png') });
  noProblems(page);
  await page.close();
});
