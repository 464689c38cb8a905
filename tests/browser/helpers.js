// helpers.js - what the browser tests share: reading the page as a person would (visible text, roles
// and labels), and waiting for what it shows (never for a length of time).
/* global document */ // in the functions handed to the page
'use strict';

const assert = require('node:assert/strict');

const api = async (base, p, init) => (await fetch(new URL(p, base), init)).json();
const post = (base, p, body) => api(base, p, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

const text = (page, sel) => page.$eval(sel, (el) => el.textContent.trim());
const waitText = (page, sel, re) => page.waitForFunction(
  (s, src, flags) => { const el = document.querySelector(s); return el && new RegExp(src, flags).test(el.textContent); },
  {}, sel, re.source, re.flags);

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

// The squares' labels of the board in container, by row and column (0-based), as a screen reader reads them.
async function labels(page, container) {
  return page.$$eval(`${container} [role="cell"], ${container} [role="gridcell"]`, (cells) => {
    const n = Math.round(Math.sqrt(cells.length));
    const out = Array.from({ length: n }, () => new Array(n).fill(''));
    for (const c of cells) out[+c.dataset.r][+c.dataset.c] = c.getAttribute('aria-label');
    return out;
  });
}

// The queens a board shows as [[r, c]] (0-based), read from the labels ("row R, column C, queen...").
async function queensShown(page, container) {
  const all = await labels(page, container);
  const out = [];
  all.forEach((row, r) => row.forEach((l, c) => { if (/^row \d+, column \d+, queen/.test(l)) out.push([r, c]); }));
  return out;
}

module.exports = { api, post, text, waitText, clickButton, tab, labelled, setField, noProblems, labels, queensShown };
