// every-route.ts - a client that calls every route of nqueensd and reads every field it documents,
// success and problem alike. CI compiles it with `tsc --strict` against the types generated from
// openapi.yaml: a description that types a field wrongly, or hides a JSON answer behind another
// media type, breaks the build here. It runs too (node dist/every-route.js BASE_URL), printing one
// line per route; CI compiles it only.
import createClient from "openapi-fetch";
import type { components, paths } from "./nqueens-api.js";

type Schemas = components["schemas"];
type Problem = Schemas["Problem"];
type Square = Schemas["Square"];

const baseUrl = process.argv[2] ?? "http://127.0.0.1:8080";

// Every route answers JSON or a problem, so with no media type named every JSON answer is typed as
// its schema and every error as a Problem: only /solve and /trace, which also speak NDJSON, need the
// client to name the media types it reads.
const api = createClient<paths>({ baseUrl });
const json = createClient<paths, "application/json" | "application/problem+json">({ baseUrl });
// The routes that answer NDJSON when asked (Accept: application/x-ndjson), read as text.
const ndjson = createClient<paths, "application/x-ndjson" | "application/problem+json">({ baseUrl });

const out: string[] = [];
const say = (...parts: unknown[]): void => {
  out.push(parts.map((p) => (typeof p === "string" ? p : JSON.stringify(p))).join(" "));
};

function problem(where: string, p: Problem | undefined): void {
  if (p === undefined) return;
  const { type, title, status, detail, instance, param, limit } = p;
  say(where, "problem", type, title, status, detail, instance ?? null, param ?? null, limit ?? null);
}

const squares = (list: Square[]): string => list.map(([r, c]) => `${r}:${c}`).join(",");

async function solve(): Promise<void> {
  const { data, error } = await json.GET("/solve", { params: { query: { n: 6, format: "columns", unique: false, limit: 2 } } });
  problem("/solve", error);
  if (data) say("/solve", data.n, data.total, data.solutions.length, data.next);
  const lines = await ndjson.GET("/solve", {
    params: { query: { n: 6 }, header: { Accept: "application/x-ndjson" } },
    parseAs: "text",
  });
  if (lines.data !== undefined) say("/solve ndjson lines", lines.data.split("\n").length - 1);
  const offset = await json.GET("/solve", { params: { query: { n: 6, offset: 1, limit: 1 } } });
  if (offset.data) say("/solve offset", offset.data.solutions);
}

async function count(): Promise<void> {
  const { data, error, response } = await api.GET("/count", {
    params: { query: { n: 8 }, header: { Prefer: "wait=1", "If-None-Match": '"x"' } },
  });
  problem("/count", error);
  if (data && "total" in data) say("/count", data.n, data.k ?? null, data.total, data.unique);
  if (data && !("total" in data)) {
    say("/count 202", data.n, data.status, data.progress, data.elapsed_s, data.eta_s, response.headers.get("Location"));
  }
  const k = await api.GET("/count", { params: { query: { n: 8, k: 4 } } });
  if (k.data && "total" in k.data) say("/count k", k.data.k, k.data.total);
}

async function solution(): Promise<void> {
  const { data, error } = await api.GET("/solution", { params: { query: { n: 8, method: "random", seed: 9007199254740991, format: "board" } } });
  problem("/solution", error);
  if (data) say("/solution", data.n, data.method, data.seed, data.solution);
}

async function check(): Promise<void> {
  const { data, error } = await api.GET("/check", { params: { query: { n: 4, columns: "1,3,0,2" } } });
  problem("/check", error);
  if (data) say("/check", data.n, data.queens, data.valid, data.complete, data.conflict_count, data.conflicts.map(squares));
  const posted = await api.POST("/check", { body: { n: 4, queens: [[0, 1], [1, 1]] } });
  problem("POST /check", posted.error);
  if (posted.data) say("POST /check", posted.data.valid, posted.data.conflicts.length);
}

async function counts(): Promise<void> {
  const { data, error } = await api.GET("/counts");
  problem("/counts", error);
  for (const c of data?.counts ?? []) {
    if (c.status === "done") say("/counts done", c.n, c.total, c.unique, c.seconds, c.finished_at);
    else say("/counts", c.n, c.status, c.progress, c.elapsed_s, c.eta_s, c.started_at);
  }
}

async function complete(): Promise<void> {
  const { data, error } = await api.GET("/complete", { params: { query: { n: 8, queens: "0:0", count: true } } });
  problem("/complete", error);
  if (data) say("/complete", data.n, data.solution, data.hint, data.completions ?? null);
  const posted = await api.POST("/complete", { params: { query: { count: true } }, body: { n: 8, columns: [0, null, null, null, null, null, null, null] } });
  problem("POST /complete", posted.error);
  if (posted.data) say("POST /complete", posted.data.hint, posted.data.completions ?? null);
}

async function trace(): Promise<void> {
  const { data, error } = await json.GET("/trace", { params: { query: { n: 4, limit: 5, from: 0 } } });
  problem("/trace", error);
  if (!data) return;
  for (const s of data.steps) say("/trace", s.step, s.op, s.row ?? null, s.col ?? null, s.by ?? null, s.columns ?? null);
  const cursor = data.next === null ? null : new URL(data.next, baseUrl).searchParams.get("cursor");
  if (cursor !== null) {
    const more = await json.GET("/trace", { params: { query: { n: 4, cursor } } });
    if (more.data) say("/trace next", data.n, more.data.steps.length, more.data.next);
  }
  const lines = await ndjson.GET("/trace", {
    params: { query: { n: 4, limit: 3 }, header: { Accept: "application/x-ndjson" } },
    parseAs: "text",
  });
  if (lines.data !== undefined) say("/trace ndjson", lines.data.trim().split("\n").length);
}

function grade(g: Schemas["PuzzleGrade"] | null): unknown {
  return g === null ? null : [g.difficulty, g.deductions, g.hardest_rule, g.trials];
}

async function puzzle(): Promise<void> {
  const { data, error } = await api.GET("/puzzle", {
    params: { query: { kind: "queens", n: 8, difficulty: "easy", seed: 1, reveal: true } },
  });
  problem("/puzzle", error);
  if (!data) return;
  say("/puzzle", data.kind, data.n, data.difficulty, data.generator, data.date ?? null, data.seed, data.regions,
    squares(data.clues), data.solution, grade(data.grade));
  const daily = await api.GET("/puzzle", { params: { query: { kind: "regions", n: 6, date: "2026-12-05", generator: data.generator } } });
  if (daily.data) say("/puzzle daily", daily.data.date ?? null, daily.data.regions);
}

function solved(where: string, r: Schemas["PuzzleSolveResult"] | undefined): void {
  if (!r) return;
  const hint = r.hint === null ? null : [r.hint.op, r.hint.square, r.hint.rule, r.hint.why, squares(r.hint.because)];
  say(where, r.kind, r.n, r.generator, r.solutions, r.unique, r.solution, hint,
    squares(r.mistakes.queens), squares(r.mistakes.marks), grade(r.grade));
}

async function puzzleSolve(): Promise<void> {
  const { data, error } = await api.GET("/puzzle/solve", {
    params: { query: { kind: "queens", n: 8, difficulty: "easy", seed: 1, queens: "", marks: "", limit: 2, reveal: false } },
  });
  problem("/puzzle/solve", error);
  solved("/puzzle/solve", data);
  const posted = await api.POST("/puzzle/solve", {
    body: { kind: "regions", n: 5, regions: ["AABBB", "AACBB", "DDCEE", "DDCEE", "DDDEE"], queens: [[0, 0]], marks: [], limit: 2 },
  });
  problem("POST /puzzle/solve", posted.error);
  solved("POST /puzzle/solve", posted.data);
}

// The documents and the page: text, whatever their media type.
async function documents(): Promise<void> {
  const page = await api.GET("/", { parseAs: "text" });
  problem("/", page.error);
  if (page.data !== undefined) say("/", page.data.length, page.response.headers.get("Content-Security-Policy"));
  const asset = await api.GET("/assets/{asset}", { params: { path: { asset: "app.js" } }, parseAs: "text" });
  problem("/assets/app.js", asset.error);
  if (asset.data !== undefined) say("/assets/app.js", asset.response.headers.get("Content-Type"));
  const spec = await api.GET("/openapi.yaml", { parseAs: "text" });
  if (spec.data !== undefined) say("/openapi.yaml", spec.data.split("\n")[0]);
  const type = await api.GET("/problems/{slug}", { params: { path: { slug: "result-too-large" } } });
  problem("/problems/result-too-large", type.error);
  if (type.data) say("/problems", type.data.type, type.data.title, type.data.status, type.data.description.length);
}

async function operations(): Promise<void> {
  const health = await api.GET("/healthz");
  problem("/healthz", health.error);
  if (health.data) say("/healthz", health.data.status, health.data.version);
  const ready = await api.GET("/readyz");
  problem("/readyz", ready.error);
  if (ready.data) say("/readyz", ready.data.status);
  const limits = await api.GET("/limits");
  problem("/limits", limits.error);
  if (limits.data) {
    const l = limits.data;
    say("/limits", l.max_n_solve, l.max_solutions, l.max_n_count, l.long_count_n, l.max_n_count_k, l.max_n_solution);
    say("/limits", l.max_n_board, l.max_conflicts, l.max_n_complete, l.max_n_complete_count, l.max_n_trace);
    say("/limits", l.max_trace_limit, l.max_n_puzzle_queens, l.max_n_puzzle_regions, l.max_n_puzzle_solve);
    say("/limits", l.max_puzzle_limit, l.max_uri_bytes, l.max_body_bytes, l.deadline_ms, l.budget_ms);
  }
  const metrics = await api.GET("/metrics", { parseAs: "text" });
  problem("/metrics", metrics.error);
  if (metrics.data !== undefined) say("/metrics", metrics.data.includes("nqueensd_"));
  // HEAD and the CORS preflight: status and headers, no body.
  const head = await api.HEAD("/count", { params: { query: { n: 8 } } });
  say("HEAD /count", head.response.status, head.response.headers.get("ETag"));
  const preflight = await api.OPTIONS("/check");
  say("OPTIONS /check", preflight.response.status, preflight.response.headers.get("Allow"));
}

async function main(): Promise<void> {
  for (const route of [solve, count, solution, check, counts, complete, trace, puzzle, puzzleSolve, documents, operations]) {
    await route();
  }
  for (const line of out) console.log(line);
}

main().then(() => process.exit(0)).catch((e: unknown) => {
  console.error(`every-route.ts: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
