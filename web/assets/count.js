// count.js - the Count mode: /count for any allowed n, a progress bar with the time left while a long
// count runs (the 202 answers, polled at the pace Retry-After asks), and the table of /counts.
import { get, describe, query, relative, sleep } from './api.js';

const fmt = (x) => (typeof x === 'number' ? x.toLocaleString('en') : '—');
const secs = (s) => {
  if (s === null || s === undefined) return '—';
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${Math.round(s % 60)} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
};

// Resolve once the page is visible again (at once if it is), or when signal aborts: a background tab
// does not poll a count that may run for hours.
function visible(signal) {
  if (!document.hidden) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      document.removeEventListener('visibilitychange', check);
      resolve();
    };
    const check = () => { if (!document.hidden) done(); };
    document.addEventListener('visibilitychange', check);
    signal.addEventListener('abort', done, { once: true });
  });
}

export function initCount(root, { onHash }) {
  const $ = (sel) => root.querySelector(sel);
  const form = $('#count-form');
  const nIn = $('#count-n');
  const result = $('#count-result');
  const error = $('#count-error');
  const bar = $('#count-progress');
  const barText = $('#count-progress-text');
  const barBox = $('#count-progress-box');
  const table = $('#counts-table tbody');
  let controller = null;

  function progress(body) {
    barBox.hidden = false;
    const p = typeof body.progress === 'number' ? body.progress : 0;
    bar.value = p;
    bar.setAttribute('aria-valuetext', `${Math.round(p * 100)} percent`);
    const eta = body.eta_s === null || body.eta_s === undefined ? 'time left not known yet' : `about ${secs(body.eta_s)} left`;
    barText.textContent = `n = ${body.n}: ${body.status}, ${(p * 100).toFixed(1)}% done, ${secs(body.elapsed_s)} so far, ${eta}`;
  }

  async function count(n) {
    if (controller) controller.abort();
    controller = new AbortController();
    const { signal } = controller;
    error.hidden = true;
    barBox.hidden = true;
    result.textContent = `Counting n = ${n}…`;
    let path = `count?${query({ n })}`;
    try {
      for (;;) {
        // A short wait per request: the page shows progress instead of hanging on a long count.
        const { status, body, headers } = await get(path, { Prefer: 'wait=1' }, signal);
        if (signal.aborted) return;
        if (status === 200) {
          barBox.hidden = true;
          result.textContent = `n = ${body.n}: ${fmt(body.total)} solutions, ${fmt(body.unique)} unique`;
          refresh();
          return;
        }
        progress(body);
        result.textContent = `Counting n = ${n} in the background…`;
        if (headers.get('Location')) path = relative(headers.get('Location'));
        const after = Number(headers.get('Retry-After')) || 1;
        await sleep(Math.min(after, 5) * 1000, signal);
        await visible(signal);
        if (signal.aborted) return;
        refresh();
      }
    } catch (err) {
      if (signal.aborted) return;
      barBox.hidden = true;
      result.textContent = '';
      error.textContent = describe(err);
      error.hidden = false;
    }
  }

  function cell(text) {
    const td = document.createElement('td');
    td.textContent = text;
    return td;
  }

  async function refresh() {
    try {
      const { body } = await get('counts');
      const rows = body.counts.map((c) => {
        const tr = document.createElement('tr');
        const n = c.k === undefined || c.k === null ? String(c.n) : `${c.n} (k = ${c.k})`;
        const state = c.status === 'done' ? 'done' : `${c.status} ${typeof c.progress === 'number' ? `${(c.progress * 100).toFixed(1)}%` : ''}`;
        tr.append(cell(n), cell(fmt(c.total)), cell(fmt(c.unique)), cell(state),
          cell(c.status === 'done' ? secs(c.seconds) : secs(c.elapsed_s)));
        return tr;
      });
      if (!rows.length) {
        const tr = document.createElement('tr');
        const td = cell('No counts yet.');
        td.colSpan = 5;
        tr.append(td);
        rows.push(tr);
      }
      table.replaceChildren(...rows);
    } catch (err) {
      error.textContent = describe(err);
      error.hidden = false;
    }
  }

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    onHash(`count?${query({ n: nIn.value })}`);
    count(Number(nIn.value));
  });
  $('#counts-refresh').addEventListener('click', refresh);

  return {
    route(params) {
      if (params.get('n')) {
        nIn.value = params.get('n');
        count(Number(nIn.value));
      }
      refresh();
    },
  };
}
