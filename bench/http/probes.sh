#!/usr/bin/env bash
# probes.sh - probe latency under a mixed load: /healthz and /readyz timed while every route is busy.
#
#   bench/http/probes.sh                 build nqueensd (Release) and measure
#   NQUEENSD=path bench/http/probes.sh   use an existing binary (compare two builds this way)
#
# The load, all at once for DURATION seconds, on one nqueensd configured as deploy/'s pods
# (2 solver workers, 512 connections, 16 gzip streams, a store):
#   - a long count running (n = LONG_N, started with Prefer: respond-async);
#   - STREAMS clients reading gzip streams in a loop (/solution?n=1000000, /solve?n=13, both
#     compressed as they are sent, on the network threads);
#   - wrk with CONNECTIONS keep-alive connections over every other route (cached and computed
#     /count, /solve pages, random /solution boards with fresh seeds, /trace, /complete, POST /check,
#     /counts, /openapi.yaml, /metrics);
#   - the probes: a new connection every PERIOD_MS for each of /healthz and /readyz, as a kubelet
#     does (a connection per probe, "Connection: close"), timed to the last byte.
# It prints the probes' count, median, p90, p99 and maximum (ms), and the load's requests/s. Run it
# on an otherwise idle machine: other work on the same cores delays the probing client too.
#
# Knobs (environment): DURATION (20), STREAMS (16), CONNECTIONS (32), PERIOD_MS (50), LONG_N (19),
# BUILD_DIR (build/bench). Needs wrk and curl (scripts/deps.sh --bench). Leaves nothing running.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

DURATION=${DURATION:-20}
STREAMS=${STREAMS:-16}
CONNECTIONS=${CONNECTIONS:-32}
PERIOD_MS=${PERIOD_MS:-50}
LONG_N=${LONG_N:-19}
BUILD_DIR=${BUILD_DIR:-build/bench}

die() { echo "probes.sh: $*" >&2; exit 1; }
for tool in wrk curl; do command -v "$tool" >/dev/null || die "$tool not found (scripts/deps.sh --bench)"; done

if [[ -z "${NQUEENSD:-}" ]]; then
  cmake -S "$root" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DNQ_BENCH=OFF >/dev/null
  cmake --build "$BUILD_DIR" -j 2 --target nqueensd >&2
  NQUEENSD=$BUILD_DIR/src/server/nqueensd
fi
[[ -x "$NQUEENSD" ]] || die "no nqueensd at $NQUEENSD"

work=$(mktemp -d /tmp/nq-probes.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

"$NQUEENSD" --port 0 --bind 127.0.0.1 --solver-workers 2 --conn-limit 512 --max-gzip-streams 16 \
  --store "$work/nq.db" >"$work/out" 2>"$work/err" &
nq_pid=$!
pids+=("$nq_pid")
port=""
for _ in $(seq 100); do
  port=$(grep -o '"port":[0-9]*' "$work/out" "$work/err" 2>/dev/null | head -1 | grep -o '[0-9]*$' || true)
  [[ -n "$port" ]] && curl -fs "http://127.0.0.1:$port/readyz" >/dev/null && break
  sleep 0.1
done
[[ -n "$port" ]] || die "nqueensd did not start: $(cat "$work/err")"
base=http://127.0.0.1:$port

# The long count, and warm caches for the cached routes.
curl -s -o /dev/null -H 'Prefer: respond-async' "$base/count?n=$LONG_N"
for t in "/count?n=8" "/solve?n=8" "/openapi.yaml"; do curl -s -o /dev/null "$base$t"; done

# Readers of gzip streams.
for i in $(seq "$STREAMS"); do
  if (( i % 2 )); then t="/solution?n=1000000"; else t="/solve?n=13&limit=73712"; fi
  ( end=$((SECONDS + DURATION)); while (( SECONDS < end )); do
      curl -s -o /dev/null -H 'Accept-Encoding: gzip' "$base$t" || true; done ) &
  pids+=("$!")
done

# Every other route through wrk, keep-alive.
cat >"$work/mix.lua" <<'LUA'
local paths = {"/count?n=8", "/count?n=%d", "/solve?n=8", "/solve?n=10&limit=50&offset=%d",
  "/solution?n=%d&method=random&seed=%d", "/trace?n=6&limit=20", "/complete?n=8&queens=0:%d",
  "/counts", "/openapi.yaml", "/metrics", "POST /check"}
local i = 0
request = function()
  i = i + 1
  local p = paths[(i % #paths) + 1]
  if p == "POST /check" then
    return wrk.format("POST", "/check", {["Content-Type"] = "application/json"}, '{"n":4,"columns":[1,3,0,2]}')
  end
  return wrk.format("GET", string.format(p, 4 + i % 9, i % 500, i))
end
LUA
wrk -t 2 -c "$CONNECTIONS" -d "${DURATION}s" -s "$work/mix.lua" "$base" >"$work/wrk" 2>&1 &
pids+=("$!")

sleep 2 # the load under way
# The probing client stands for a kubelet on its own CPU: on a box the load saturates, it runs at a
# higher priority (as root) so that what is timed is the server's delay, not the client's own wait.
nice_probe=()
nice -n -10 true 2>/dev/null && nice_probe=(nice -n -10)
probe() {
  local end=$((SECONDS + DURATION - 4))
  while (( SECONDS < end )); do
    "${nice_probe[@]}" curl -s -o /dev/null -H 'Connection: close' -w '%{time_total}\n' "$base/$1" || echo 99
    sleep "0.$(printf '%03d' "$PERIOD_MS")"
  done >"$work/probe-$1"
}
probe healthz &
p1=$!
probe readyz &
p2=$!
wait "$p1" "$p2"
wait_load() { for p in "${pids[@]:1}"; do wait "$p" 2>/dev/null || true; done; }
wait_load

summary() {
  sort -n "$1" | awk -v name="$2" '{ v[NR] = $1 * 1000 }
    END { printf "%-8s probes %4d  median %7.1f ms  p90 %7.1f ms  p99 %7.1f ms  max %7.1f ms\n", name, NR,
          v[int(NR * 0.5) + 1], v[int(NR * 0.9) + 1], v[int(NR * 0.99) + 1], v[NR] }'
}
summary "$work/probe-healthz" /healthz
summary "$work/probe-readyz" /readyz
grep -E "Requests/sec|Non-2xx" "$work/wrk" | sed 's/^/load    /' || true
