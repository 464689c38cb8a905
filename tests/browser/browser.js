// browser.js - Debian's Chromium, headless, driven by puppeteer-core (nothing downloads a browser).
// Every page opened through open() records console errors, page errors and failed requests, so a
// test can assert that there were none.
'use strict';

const puppeteer = require('puppeteer-core');

const EXECUTABLE = process.env.NQ_CHROMIUM || '/usr/bin/chromium';

function launch() {
  return puppeteer.launch({
    executablePath: EXECUTABLE,
    headless: true,
    // CI runs as root, where Chromium's sandbox cannot start; the page under test is our own.
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--font-render-hinting=none'],
  });
}

// A new page at viewport, with its problems collected in page.problems.
async function open(browser, url, viewport = { width: 1280, height: 800 }) {
  const page = await browser.newPage();
  page.problems = [];
  page.setDefaultTimeout(60000); // a safety net only: every wait is for something the page shows
  page.on('console', (m) => { if (m.type() === 'error') page.problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => page.problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => page.problems.push(`request failed: ${r.url()} ${r.failure() && r.failure().errorText}`));
  page.on('response', (r) => { if (r.status() >= 400) page.problems.push(`HTTP ${r.status()}: ${r.url()}`); });
  await page.setViewport(viewport);
  await page.goto(url, { waitUntil: 'networkidle0' });
  return page;
}

module.exports = { launch, open };
