#!/usr/bin/env bash
# 42-clients.sh - CI stage: the client examples of docs/clients.md, run as a caller runs them.
# From clients/ (openapi-typescript, openapi-fetch, typescript and @types/node pinned in
# clients/package-lock.json, npm ci): generate the types of openapi.yaml, compile the TypeScript
# example and every-route.ts (a client that calls every route and reads every documented field)
# with `tsc --strict` and no error, then run the TypeScript example and the Python one (standard
# library only) each against a fresh nqueensd of the release build on port 0, and compare what each
# prints with clients/expected-output.txt: a long count followed to its 200 with its progress
# checked, two pages of /solve through `next`, a 400 and a 422 problem read field by field, and an
# ETag sent back for a 304.
#
#   NQ_BUILD_ROOT   parent of the build directory (default: build); the release build is reused
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(realpath -m "${NQ_BUILD_ROOT:-build}/release")
jobs=${NQ_JOBS:-$(nproc)}

say() { printf '42-clients: %s\n' "$*"; }
command -v npm >/dev/null || { say "npm not found (Node.js 20.19+ with npm is needed)" >&2; exit 1; }
command -v python3 >/dev/null || { say "python3 not found" >&2; exit 1; }

echo "-- npm ci (clients: openapi-typescript, openapi-fetch, typescript as locked)"
(cd clients && npm ci --no-audit --no-fund --loglevel=error)

echo "-- build nqueensd"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON >/dev/null
cmake --build "$build" -j "$jobs" --target nqueensd

echo "-- generate the types of openapi.yaml, compile with tsc --strict"
(cd clients && node_modules/.bin/openapi-typescript ../openapi.yaml --output typescript/nqueens-api.ts)
(cd clients && node_modules/.bin/tsc --strict --noEmit -p typescript)
say "tsc --strict: no error ($(clients/node_modules/.bin/tsc --version))"
rm -rf clients/typescript/dist
(cd clients && node_modules/.bin/tsc -p typescript)

work=$(mktemp -d)
pid=""
cleanup() {
  [[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# A fresh server per example, so each sees the same state: n = 13 is a long count (--long-count-n
# 12) counted on one thread with each task made 5 ms slower, so it runs for a few seconds and its
# progress can be watched. No store: nothing is kept between the two.
start_server() {
  : >"$work/server.out"
  "$build/src/server/nqueensd" --port 0 --bind 127.0.0.1 --store none --long-count-n 12 \
    --count-threads 1 --count-task-delay-ms 5 >"$work/server.out" 2>"$work/server.err" &
  pid=$!
  port=""
  for _ in $(seq 100); do
    port=$(sed -n 's/.*"msg":"listening".*"port":\([0-9][0-9]*\).*/\1/p' "$work/server.out" | head -1)
    [[ -n $port ]] && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  say "FAIL: nqueensd did not start" >&2
  tail -5 "$work/server.err" >&2
  exit 1
}

stop_server() {
  kill -TERM "$pid"
  wait "$pid" || { say "FAIL: nqueensd exited $? after SIGTERM" >&2; exit 1; }
  pid=""
}

run_example() { # run_example NAME COMMAND...: its output must be clients/expected-output.txt
  local name=$1
  shift
  start_server
  echo "-- $name against nqueensd on port $port"
  local rc=0 t0=$SECONDS
  timeout 120 "$@" "http://127.0.0.1:$port" >"$work/$name.out" 2>"$work/$name.err" || rc=$?
  stop_server
  if ((rc != 0)); then
    say "FAIL: $name exited $rc" >&2
    cat "$work/$name.err" >&2
    exit 1
  fi
  if ! diff -u clients/expected-output.txt "$work/$name.out"; then
    say "FAIL: $name printed otherwise than clients/expected-output.txt (diff above)" >&2
    exit 1
  fi
  say "$name: $(wc -l <"$work/$name.out") lines as expected, $((SECONDS - t0)) s"
}

run_example typescript node clients/typescript/dist/example.js
run_example python python3 clients/python/example.py
say "both examples ran and printed what they should"
