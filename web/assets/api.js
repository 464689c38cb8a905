// api.js - the page's only way to the server: fetches the public routes by URLs relative to the page,
// so the page works behind a path prefix, and turns problem bodies into errors a person can read.

// A URL the server gave (absolute path, e.g. a "next" link or a Location) made relative to the page.
export function relative(url) {
  return url.replace(/^\/+/, '');
}

// An answer that is not a success: status, and the problem's title and detail when the body has them.
export class ApiError extends Error {
  constructor(status, problem) {
    const title = (problem && problem.title) || `HTTP ${status}`;
    const detail = (problem && problem.detail) || '';
    super(detail ? `${title}: ${detail}` : title);
    this.status = status;
    this.problem = problem || null;
  }
}

// A sentence for anything thrown by get(): the problem's words, or what went wrong on the way (fetch
// rejects with a TypeError when the network fails). Anything else is the page's own message.
export function describe(err) {
  if (err instanceof ApiError) {
    if (err.status === 503) return `The server is busy (${err.message}). Try again in a moment.`;
    return err.message;
  }
  if (err instanceof TypeError) return `The server could not be reached (${err.message}).`;
  return err.message;
}

// A whole number from 1 to max, or null: what a board size from the address may be.
export function boardSize(text, max) {
  const v = Number(text);
  return Number.isInteger(v) && v >= 1 && v <= max ? v : null;
}

// GET path (relative, with its query) -> {status, body, headers}. 200 and 202 resolve; anything else
// rejects with an ApiError. headers: extra request headers; signal: an AbortSignal that cancels it.
export async function get(path, headers = {}, signal = undefined) {
  const resp = await fetch(relative(path), { headers: { Accept: 'application/json', ...headers }, signal });
  let body = null;
  const type = resp.headers.get('Content-Type') || '';
  if (type.includes('json')) body = await resp.json();
  if (resp.status !== 200 && resp.status !== 202) throw new ApiError(resp.status, body);
  return { status: resp.status, body, headers: resp.headers };
}

// The bounds of this server's routes (GET /limits: max_n_solve, max_n_count, ...), asked once per
// page load, so that a view asks only for what the server answers and no expected 422 reaches the
// browser's console. Resolves to null when they cannot be read (a view then learns from the 422).
let limitsOnce = null;
export function serverLimits() {
  if (!limitsOnce) limitsOnce = get('limits').then((r) => r.body, () => null);
  return limitsOnce;
}

// The query string of an object, skipping undefined and null members.
export function query(params) {
  const parts = [];
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null || v === '') continue;
    parts.push(`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  }
  return parts.join('&');
}

// A placement as the routes take it: "r:c,r:c" (queens=) from [[r, c], ...]. Commas stay literal.
export function queensParam(queens) {
  return queens.map(([r, c]) => `${r}:${c}`).join(',');
}

// Sleep for ms, resolved early when signal aborts.
export function sleep(ms, signal) {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    if (signal) signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
  });
}

// POST path a JSON body -> {status, body, headers}, as get() does.
export async function post(path, data, signal = undefined) {
  const resp = await fetch(relative(path), { method: 'POST', signal,
    headers: { Accept: 'application/json', 'Content-Type': 'application/json' }, body: JSON.stringify(data) });
  let body = null;
  const type = resp.headers.get('Content-Type') || '';
  if (type.includes('json')) body = await resp.json();
  if (resp.status !== 200 && resp.status !== 202) throw new ApiError(resp.status, body);
  return { status: resp.status, body, headers: resp.headers };
}
