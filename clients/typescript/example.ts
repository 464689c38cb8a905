// example.ts - a TypeScript client of nqueensd, typed by openapi-typescript from openapi.yaml and
// calling it through openapi-fetch. It does what most callers need: a long count followed to its
// end, a list read page by page, a problem read, and a conditional GET.
//
//   npm ci && npm run generate && npm run build && node typescript/dist/example.js http://127.0.0.1:8080
//
// The output is the same line for line as ../python/example.py's (CI compares both to
// ../expected-output.txt), so it prints only what does not change from run to run.
import createClient from "openapi-fetch";
import type { components, paths } from "./nqueens-api.js";

type Problem = components["schemas"]["Problem"];
type Solution = components["schemas"]["Solution"];

const baseUrl = process.argv[2];
if (!baseUrl) {
  console.error("usage: node example.js BASE_URL");
  process.exit(2);
}

// JSON and NDJSON are negotiated by Accept. Naming the media types this client reads makes a
// route that can answer either typed as its JSON body, and every error as the Problem it is.
const client = createClient<paths, "application/json" | "application/problem+json">({ baseUrl });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function fail(what: string): never {
  throw new Error(what);
}

// The 0-based column of the queen in each row, whatever the format the solution came in.
function columns(solution: Solution): string {
  const rows: ReadonlyArray<string | number> = solution;
  return rows.map((row) => (typeof row === "number" ? row : row.indexOf("Q"))).join(" ");
}

// A long count: the first request starts it and answers 202 at once (Prefer: respond-async);
// asking the Location again gives the progress, until the 200 with the count. A real client waits
// Retry-After seconds between asks; this one caps that at half a second to stay quick.
async function longCount(n: number): Promise<void> {
  const prefer = { Prefer: "respond-async" };
  const first = await client.GET("/count", { params: { query: { n }, header: prefer } });
  if (first.response.status !== 202) fail(`/count?n=${n}: ${first.response.status}, not 202`);
  const location = first.response.headers.get("Location");
  const applied = first.response.headers.get("Preference-Applied");
  console.log(`long count: 202 Accepted, Location ${location}, Preference-Applied ${applied}`);
  let last = 0;
  for (let asks = 1; asks <= 600; asks++) {
    const { data, error, response } = await client.GET("/count", { params: { query: { n }, header: prefer } });
    if (error) fail(`${error.title}: ${error.detail}`);
    if (!data) fail(`/count?n=${n}: no body`);
    if ("total" in data) {
      console.log(`long count: 200 n=${data.n} total=${data.total} unique=${data.unique}`);
      return;
    }
    // Still queued or running: progress only grows, and eta_s is null until it can be estimated.
    if (data.progress < last || data.progress > 1) fail(`progress went from ${last} to ${data.progress}`);
    if (data.eta_s !== null && data.eta_s < 0) fail(`eta_s ${data.eta_s}`);
    if (data.elapsed_s < 0 || (data.status !== "queued" && data.status !== "running")) fail("bad progress");
    last = data.progress;
    const retryAfter = Number(response.headers.get("Retry-After"));
    await sleep(Math.min(retryAfter * 1000, 500));
  }
  fail(`/count?n=${n} did not finish`);
}

// Paging: limit gives a page, and each page's next is the URL of the one after it.
async function pages(n: number, limit: number, count: number): Promise<void> {
  const first = await client.GET("/solve", { params: { query: { n, limit } } });
  if (!first.data) fail(`/solve: ${first.response.status}`);
  let page = first.data;
  console.log(`paging: /solve?n=${n}&limit=${limit} total=${page.total}`);
  for (let i = 1; i <= count; i++) {
    console.log(`  page ${i}: ${page.solutions.map(columns).join(" | ")}`);
    console.log(`  next: ${page.next}`);
    if (page.next === null || i === count) break;
    // next is a relative URL holding the query of the next page (an `after` cursor).
    const after = new URL(page.next, baseUrl).searchParams.get("after") ?? fail("next without after");
    const more = await client.GET("/solve", { params: { query: { n, limit, after } } });
    if (!more.data) fail(`/solve after ${after}: ${more.response.status}`);
    page = more.data;
  }
}

function showProblem(where: string, status: number, problem: Problem | undefined): void {
  if (!problem) fail(`${where}: ${status} without a problem`);
  console.log(`problem: ${where} -> ${status} ${problem.type}`);
  console.log(`  title: ${problem.title}`);
  console.log(`  status: ${problem.status}`);
  console.log(`  detail: ${problem.detail}`);
  console.log(`  param: ${problem.param ?? "-"}, limit: ${problem.limit ?? "-"}`);
}

// A request the server refuses answers with a problem (RFC 9457): a 400 for a value that can never
// be valid, a 422 for one this server will not serve.
async function problems(): Promise<void> {
  const bad = await client.GET("/count", { params: { query: { n: 0 } } });
  showProblem("/count?n=0", bad.response.status, bad.error);
  const big = await client.GET("/solve", { params: { query: { n: 17 } } });
  showProblem("/solve?n=17", big.response.status, big.error);
}

// Answers never change: keep the ETag, send it back in If-None-Match, get 304 and no body.
async function conditional(): Promise<void> {
  const first = await client.GET("/count", { params: { query: { n: 8 } } });
  const etag = first.response.headers.get("ETag") ?? fail("no ETag");
  if (!first.data || !("total" in first.data)) fail(`/count?n=8: ${first.response.status}`);
  console.log(`conditional: /count?n=8 -> ${first.response.status} total=${first.data.total}, with an ETag`);
  const again = await client.GET("/count", { params: { query: { n: 8 }, header: { "If-None-Match": etag } } });
  const same = again.response.headers.get("ETag") === etag;
  console.log(`conditional: If-None-Match -> ${again.response.status}, same ETag: ${same}`);
}

async function main(): Promise<void> {
  await longCount(13);
  await pages(8, 3, 2);
  await problems();
  await conditional();
}

// Node's fetch keeps the connection a 304 came on (the 304 states the length of the body it does
// not send) until the server closes it, which would hold the process up to --idle-timeout-s: end
// explicitly once done.
main().then(() => process.exit(0)).catch((e: unknown) => {
  console.error(`example.ts: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
