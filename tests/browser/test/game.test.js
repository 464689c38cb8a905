// game.test.js - Play and Puzzle as games, in Chromium against the real nqueensd: queens and crosses,
// undo and redo by button and by keyboard, the position restored from the address (a reload, a shared
// link), a whole puzzle solved by clicks and by the keyboard alone to the win, hints with their reasons
// highlighted, mistakes, the solution on request, and a finished puzzle remembered for the day. The
// puzzles are the server's own (/puzzle by date and seed); the expected answers come from its API.
'use strict';

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { start } = require('../server.js');
const { launch, open } = require('../browser.js');
const { api, post, text, waitText, clickButton, labelled, noProblems, labels, queensShown } = require('../helpers.js');

let server;
let browser;

before(async () => {
  [server, browser] = await Promise.all([start(), launch()]);
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

const square = (page, board, r, c) => page.$(`${board} [data-r="${r}"][data-c="${c}"]`);
const click = async (page, board, r, c, opts) => (await square(page, board, r, c)).click(opts);
const hash = (page) => page.evaluate(() => decodeURIComponent(location.hash));
const sorted = (list) => list.map(([r, c]) => `${r}:${c}`).sort();

test('play: a tap puts a queen, a second a cross, a third clears; right click crosses; conflicts are errors', async () => {
  const page = await open(browser, `${server.base}#play?n=8`);
  await waitText(page, '#play-status', /^0 of 8 queens placed/);
  await click(page, '#play-board', 0, 0);
  await waitText(page, '#play-status', /^1 of 8 queens placed, none attacking/);
  await click(page, '#play-board', 2, 2); // on 0:0's diagonal
  await waitText(page, '#play-status', /^2 of 8 queens placed; 1 pair attacks each other/);
  const l = await labels(page, '#play-board');
  assert.equal(l[0][0], 'row 1, column 1, queen, attacked by another queen');
  assert.equal(l[2][2], 'row 3, column 3, queen, attacked by another queen');
  await click(page, '#play-board', 2, 2); // the queen becomes a cross
  await waitText(page, '#play-status', /^1 of 8 queens placed, none attacking/);
  assert.equal((await labels(page, '#play-board'))[2][2], 'row 3, column 3, crossed out');
  await click(page, '#play-board', 2, 2); // and the cross goes
  await page.waitForFunction(() => document.querySelector('#play-board [data-r="2"][data-c="2"]').getAttribute('aria-label') === 'row 3, column 3');
  await click(page, '#play-board', 5, 5, { button: 'right' });
  await page.waitForFunction(() => /crossed out/.test(document.querySelector('#play-board [data-r="5"][data-c="5"]').getAttribute('aria-label')));
  assert.equal(await text(page, '#play-moves'), '5 moves'); // queen, cross, clear, queen, right-click cross
  // Shading is off by default: no square says "attacked" until the option is on.
  assert.equal((await labels(page, '#play-board')).flat().filter((x) => /attacked$/.test(x)).length, 0);
  await (await labelled(page, 'Shade attacked squares')).click();
  assert.equal((await labels(page, '#play-board'))[0][7], 'row 1, column 8, attacked');
  assert.equal(await hash(page), '#play?n=8&queens=0:0&marks=5:5');
  noProblems(page);
  await page.close();
});

test('play: a row with no place left is pointed out', async () => {
  // n = 4, queens on 0:0 and 1:2: every square of row 2 (0-based) is attacked (2:0 and 2:2 by their
  // columns, 2:1 and 2:3 by 1:2's diagonals), so the page's row 3 has no place left.
  const page = await open(browser, `${server.base}#play?n=4&queens=0:0,1:2`);
  await waitText(page, '#play-status', /No place left in row 3/);
  const cls = await page.$eval('#play-board [role="rowheader"][aria-label="row 3"]', (h) => h.className);
  assert.match(cls, /\bdead\b/);
  noProblems(page);
  await page.close();
});

test('play: undo and redo by button and by Ctrl+Z / Ctrl+Y; a reload restores the position and its moves, a shared link the position', async () => {
  const page = await open(browser, `${server.base}#play?n=6`);
  await waitText(page, '#play-status', /^0 of 6 queens placed/);
  await click(page, '#play-board', 0, 1);
  await click(page, '#play-board', 1, 3);
  await click(page, '#play-board', 2, 5);
  await waitText(page, '#play-status', /^3 of 6 queens placed/);
  await page.keyboard.down('Control');
  await page.keyboard.press('z');
  await page.keyboard.up('Control');
  await waitText(page, '#play-status', /^2 of 6 queens placed/);
  await clickButton(page, 'Undo');
  await waitText(page, '#play-status', /^1 of 6 queens placed/);
  await clickButton(page, 'Redo');
  await waitText(page, '#play-status', /^2 of 6 queens placed/);
  await page.keyboard.down('Control');
  await page.keyboard.press('y');
  await page.keyboard.up('Control');
  await waitText(page, '#play-status', /^3 of 6 queens placed/);
  assert.deepEqual(sorted(await queensShown(page, '#play-board')), ['0:1', '1:3', '2:5']);
  await click(page, '#play-board', 4, 4, { button: 'right' });
  await page.waitForFunction(() => /marks=4:4/.test(decodeURIComponent(location.hash)));
  const link = page.url();
  await page.reload({ waitUntil: 'networkidle0' });
  await waitText(page, '#play-status', /^3 of 6 queens placed/);
  assert.deepEqual(sorted(await queensShown(page, '#play-board')), ['0:1', '1:3', '2:5']);
  assert.match((await labels(page, '#play-board'))[4][4], /crossed out/);
  assert.equal(await text(page, '#play-moves'), '8 moves', 'the reload keeps the move count (this tab\'s sessionStorage)');
  const other = await open(browser, link);
  await waitText(other, '#play-status', /^3 of 6 queens placed/);
  assert.equal(await text(other, '#play-moves'), '0 moves', 'a shared link starts its own count');
  assert.deepEqual(sorted(await queensShown(other, '#play-board')), ['0:1', '1:3', '2:5']);
  noProblems(page);
  noProblems(other);
  await page.close();
  await other.close();
});

test('play: a hint says why and highlights its squares; the win is celebrated and shares the board, not the solution', async () => {
  const page = await open(browser, `${server.base}#play?n=4&queens=0:1`);
  await waitText(page, '#play-status', /^1 of 4 queens placed/);
  const expect = await post(server.base, 'puzzle/solve', { kind: 'queens', n: 4, clues: [], queens: [[0, 1]], marks: [] });
  await clickButton(page, 'Hint');
  await waitText(page, '#play-hint-text', new RegExp(expect.hint.why.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  const l = await labels(page, '#play-board');
  const [hr, hc] = expect.hint.square;
  assert.match(l[hr][hc], /the hint/);
  for (const [r, c] of expect.hint.because) assert.match(l[r][c], /a reason for the hint/, `square ${r}:${c}`);
  // The other solution's squares finish it: 0:1, 1:3, 2:0, 3:2.
  await click(page, '#play-board', 1, 3);
  await click(page, '#play-board', 2, 0);
  await click(page, '#play-board', 3, 2);
  await waitText(page, '#play-status', /^Solved! 4 queens/);
  await waitText(page, '#play-win', /^Solved in \d+:\d\d with 3 moves!/);
  const share = await page.$eval('#play-win a', (a) => a.getAttribute('href'));
  assert.equal(share, '#play?n=4');
  // It stays won until the board changes.
  await (await labelled(page, 'Shade attacked squares')).click();
  assert.equal(await page.$eval('#play-win', (el) => el.hidden), false);
  await click(page, '#play-board', 3, 2);
  await page.waitForFunction(() => document.querySelector('#play-win').hidden);
  noProblems(page);
  await page.close();
});

test('play: how many solutions remain, counted by the server, with no error at n = 20', async () => {
  const page = await open(browser, `${server.base}#play?n=20`);
  await waitText(page, '#play-status', /^0 of 20 queens placed/);
  await clickButton(page, 'How many solutions remain?');
  await waitText(page, '#play-remain', /^At least 1,000 solutions contain these queens\.$/);
  await page.goto(`${server.base}#play?n=8&queens=0:0`);
  await page.reload({ waitUntil: 'networkidle0' });
  await clickButton(page, 'How many solutions remain?');
  const { completions } = await api(server.base, 'complete?n=8&queens=0:0&count=true');
  await waitText(page, '#play-remain', new RegExp(`^${completions} solutions contain these queens`));
  noProblems(page);
  await page.close();
});

// Today's regions puzzle in the browser's calendar, as the page asks for it.
async function todays(page, kind, n, difficulty) {
  const date = await page.evaluate(() => {
    const d = new Date();
    return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  });
  const p = await api(server.base, `puzzle?kind=${kind}&n=${n}&difficulty=${difficulty}&date=${date}&reveal=true`);
  return { date, p };
}

test('puzzle: today\'s regions puzzle solved by clicks to the win; remembered for the day; its link shares the puzzle', async () => {
  const page = await open(browser, `${server.base}#puzzle`);
  await waitText(page, '#puzzle-status', /^0 of 8 queens placed/);
  const { date, p } = await todays(page, 'regions', 8, 'easy');
  assert.equal(await hash(page), `#puzzle?kind=regions&n=8&difficulty=easy&date=${date}&generator=${p.generator}`);
  const l = await labels(page, '#puzzle-board');
  p.regions.forEach((row, r) => [...row].forEach((g, c) => assert.match(l[r][c], new RegExp(`region ${g}$`))));
  for (const [r, c] of p.solution.map((c, r) => [r, c])) await click(page, '#puzzle-board', r, c);
  await waitText(page, '#puzzle-status', /^Solved!/);
  await waitText(page, '#puzzle-win', new RegExp(`^Solved the easy regions puzzle of ${date} in \\d+:\\d\\d with 8 moves!`));
  const share = await page.$eval('#puzzle-win a', (a) => a.getAttribute('href'));
  assert.equal(share, `#puzzle?kind=regions&n=8&difficulty=easy&date=${date}&generator=${p.generator}`);
  // A fresh visit to the same puzzle shows it solved, from this browser's storage.
  const again = await open(browser, `${server.base}${share}`);
  await waitText(again, '#puzzle-status', /^Solved!/);
  await waitText(again, '#puzzle-win', /with 8 moves!/);
  noProblems(page);
  noProblems(again);
  await page.close();
  await again.close();
});

test('puzzle: a queens puzzle solved with the keyboard alone; clues are fixed', async () => {
  const seed = 7;
  const p = await api(server.base, `puzzle?kind=queens&n=8&difficulty=medium&seed=${seed}&reveal=true`);
  const page = await open(browser, `${server.base}#puzzle?kind=queens&n=8&difficulty=medium&seed=${seed}`);
  await waitText(page, '#puzzle-status', new RegExp(`^${p.clues.length} of 8 queens placed`));
  const l = await labels(page, '#puzzle-board');
  for (const [r, c] of p.clues) assert.equal(l[r][c], `row ${r + 1}, column ${c + 1}, queen, given`);
  // Tab to the board from the size field, then arrows and Enter only.
  await (await labelled(page, 'Size n')).focus();
  let role = null;
  for (let i = 0; i < 30 && role !== 'gridcell'; i++) {
    await page.keyboard.press('Tab');
    role = await page.evaluate(() => document.activeElement.getAttribute('role'));
  }
  assert.equal(role, 'gridcell', 'Tab reaches the board');
  let at = [0, 0];
  const clue = new Set(p.clues.map(([r, c]) => `${r}:${c}`));
  for (let r = 0; r < 8; r++) {
    const c = p.solution[r];
    if (clue.has(`${r}:${c}`)) continue;
    while (at[0] < r) { await page.keyboard.press('ArrowDown'); at[0]++; }
    while (at[1] < c) { await page.keyboard.press('ArrowRight'); at[1]++; }
    while (at[1] > c) { await page.keyboard.press('ArrowLeft'); at[1]--; }
    await page.keyboard.press('Enter');
  }
  await waitText(page, '#puzzle-status', /^Solved! 8 queens/);
  await waitText(page, '#puzzle-win', /^Solved this medium queens puzzle in/);
  noProblems(page);
  await page.close();
});

test('puzzle: a hint with its reason and squares; mistakes on request; the solution on request', async () => {
  const seed = 42;
  const q = `kind=regions&n=7&difficulty=medium&seed=${seed}`;
  const p = await api(server.base, `puzzle?${q}&reveal=true`);
  const page = await open(browser, `${server.base}#puzzle?${q}`);
  await waitText(page, '#puzzle-status', /^0 of 7 queens placed/);
  const expect = await api(server.base, `puzzle/solve?${q}`);
  await clickButton(page, 'Hint');
  await waitText(page, '#puzzle-hint-text', /\w/);
  assert.ok((await text(page, '#puzzle-hint-text')).endsWith(expect.hint.why));
  const l = await labels(page, '#puzzle-board');
  const [hr, hc] = expect.hint.square;
  assert.match(l[hr][hc], /the hint/);
  const reasons = l.flat().filter((x) => /a reason for the hint/.test(x)).length;
  assert.ok(reasons >= 1, 'the squares the hint rests on (or its unit) are highlighted');
  if (expect.hint.because.length) assert.equal(reasons, expect.hint.because.length);
  // A queen off the solution is a mistake once asked.
  const wrong = (p.solution[0] + 3) % 7;
  await click(page, '#puzzle-board', 0, wrong);
  await clickButton(page, 'Show mistakes');
  await waitText(page, '#puzzle-hint-text', /^1 mistake marked/);
  assert.match((await labels(page, '#puzzle-board'))[0][wrong], /a mistake/);
  await clickButton(page, 'Reveal the solution');
  await waitText(page, '#puzzle-status', /^Solved!/);
  assert.deepEqual(sorted(await queensShown(page, '#puzzle-board')), sorted(p.solution.map((c, r) => [r, c])));
  assert.equal(await page.$eval('#puzzle-win', (el) => el.hidden), true, 'a revealed solution is no win');
  noProblems(page);
  await page.close();
});

test('a board opened solved says so; its queens spring into place, and not with prefers-reduced-motion', async () => {
  const page = await open(browser, `${server.base}#play?n=4&queens=0:1,1:3,2:0,3:2`);
  await waitText(page, '#play-status', /^Solved! 4 queens/);
  await waitText(page, '#play-win', /^Solved!/);
  const animation = () => page.$eval('#play-board [data-r="0"][data-c="1"]', (c) => getComputedStyle(c, '::after').animationName);
  assert.equal(await animation(), 'win');
  await page.emulateMediaFeatures([{ name: 'prefers-reduced-motion', value: 'reduce' }]);
  assert.equal(await animation(), 'none');
  noProblems(page);
  await page.close();
});
