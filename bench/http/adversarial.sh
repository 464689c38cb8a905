#!/usr/bin/env bash
# adversarial.sh - load test: do distinct expensive requests leave the cheap ones served?
#
#   bench/http/adversarial.sh                 build nqueensd (Release) and run both phases
#   NQUEENSD=path bench/http/adversarial.sh   use an existing nqueensd binary instead
#
# A fresh nqueensd with its defaults (--deadline-ms 10000, --budget-ms 60000, the default solver
# workers and queue; --store none) is loaded in two phases of DURATION seconds each:
#   baseline  CHEAP clients alone, each sending, one after another, requests that need a solver
#             worker but little of it: /trace pages of n = 8 and 10 at distinct `from` and first
#             completions of distinct boards of n = 10, so that none is a cache hit;
#   attack    the same, while ATTACKERS clients send distinct expensive requests, in turn: the
#             /trace?n=16&limit=1&from=<2^64 - i> (past the end), a /trace?n=16 `from` the
#             estimate admits (8-9 x 10^9: nearly the budget), and /complete?n=18&count=true of one
#             queen on a distinct square (about 24 s on 2 threads by the estimate). With MODE=wait an
#             attacker waits for each answer (its 503 after the deadline); with MODE=hangup it hangs
#             up after one second and sends the next.
# It prints, per phase, the cheap requests answered 200 and the others by status, their median and
# 99th-percentile latency, the attackers' statuses, and the server's counts of computations started
# and cancelled. Figures go to docs/performance.md ("Refusing what cannot finish"); nothing here is
# an assertion.
#
# Knobs (environment): DURATION (60), CHEAP (8), ATTACKERS (4), MODE (wait), BUILD_DIR (build/bench),
# NQ_ARGS (extra nqueensd arguments). Needs curl. Leaves nothing running.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

DURATION=${DURATION:-60}
CHEAP=${CHEAP:-8}
ATTACKERS=${ATTACKERS:-4}
MODE=${MODE:-wait}
BUILD_DIR=${BUILD_DIR:-build/bench}
NQ_ARGS=${NQ_ARGS:-}

die() { echo "adversarial.sh: $*" >&2; exit 1; }
command -v curl >/dev/null || die "curl not found"
[[ $MODE == wait || $MODE == hangup ]] || die "MODE is wait or hangup"

if [[ -z "${NQUEENSD:-}" ]]; then
  cmake -S "$root" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DNQ_BENCH=OFF >/dev/null
  cmake --build "$BUILD_DIR" -j 2 --target nqueensd >&2
  NQUEENSD=$BUILD_DIR/src/server/nqueensd
fi
[[ -x "$NQUEENSD" ]] || die "no nqueensd at $NQUEENSD"

work=$(mktemp -d /tmp/nq-adversarial.XXXXXX)
nq_pid=""
clients=()
cleanup() {
  for p in "${clients[@]}"; do kill "$p" 2>/dev/null || true; done
  [[ -n "$nq_pid" ]] && kill "$nq_pid" 2>/dev/null && wait "$nq_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# shellcheck disable=SC2086 # NQ_ARGS is a list of arguments
"$NQUEENSD" --port 0 --bind 127.0.0.1 --store none $NQ_ARGS >"$work/server.log" 2>&1 &
nq_pid=$!
port=""
for _ in $(seq 100); do
  port=$(grep -m1 '"msg":"listening"' "$work/server.log" | sed -n 's/.*"port":\([0-9]*\).*/\1/p' || true)
  [[ -n "$port" ]] && break
  sleep 0.1
done
[[ -n "$port" ]] || die "nqueensd did not report its port"
base="http://127.0.0.1:$port"

# cheap ID SEED END: distinct cheap requests until time END; one "status seconds" line each.
cheap() {
  local id=$1 i=$2 end=$3 target
  while ((SECONDS < end)); do
    case $((i % 3)) in
      0) target="/trace?n=8&limit=5&from=$(((i * 7919 + id) % 17800))" ;;
      1) target="/trace?n=10&limit=5&from=$(((i * 104729 + id) % 384000))" ;;
      *) target="/complete?n=10&queens=$((i % 5)):$(((i / 5) % 10)),5:$(((i / 50 + id) % 10))" ;;
    esac
    curl -s -o /dev/null --max-time 60 -w '%{http_code} %{time_total}\n' "$base$target" || echo "000 60"
    i=$((i + CHEAP))
  done
}

# attacker ID END: distinct expensive requests until time END; one status a line.
attacker() {
  local id=$1 end=$2 i=0 target max=60
  [[ $MODE == hangup ]] && max=1
  while ((SECONDS < end)); do
    case $((i % 3)) in
      0) target="/trace?n=16&limit=1&from=$((9223372036854775807 - i * ATTACKERS - id))" ;;
      1) target="/trace?n=16&limit=1&from=$((8000000000 + (i * ATTACKERS + id) * 1000003))" ;;
      *) target="/complete?n=18&count=true&queens=$(((i * ATTACKERS + id) / 18 % 18)):$(((i * ATTACKERS + id) % 18))" ;;
    esac
    curl -s -o /dev/null --max-time "$max" -w '%{http_code}\n' "$base$target" || true
    i=$((i + 1))
  done
}

metric() { curl -s "$base/metrics" | awk -v m="$1" '$1 == m {print $2}'; }

# summary NAME FILE...: the cheap requests' statuses and latency percentiles.
summary() {
  local name=$1
  shift
  sort -k2 -g "$@" | awk -v name="$name" '
    { n++; t[n] = $2; s[$1]++ }
    END {
      line = name ": " n " cheap requests,"
      for (k in s) line = line " " s[k] " x " k
      p50 = t[int((n + 1) * 0.5)]; p99 = t[int((n - 1) * 0.99) + 1]
      printf "%s; latency p50 %.3f s, p99 %.3f s\n", line, p50, p99
    }'
}

phase() {
  local name=$1 attackers=$2
  local end=$((SECONDS + DURATION))
  local started0 cancelled0
  started0=$(metric nqueensd_computations_started_total)
  cancelled0=$(metric nqueensd_computations_cancelled_total)
  clients=()
  for a in $(seq 1 "$attackers"); do
    attacker "$a" "$end" >"$work/$name.attacker.$a" &
    clients+=($!)
  done
  for c in $(seq 1 "$CHEAP"); do
    cheap "$c" "$((c + 1000 * attackers))" "$end" >"$work/$name.cheap.$c" &
    clients+=($!)
  done
  wait "${clients[@]}" 2>/dev/null || true
  clients=()
  summary "$name" "$work/$name".cheap.*
  if ((attackers > 0)); then
    sort "$work/$name".attacker.* | uniq -c | awk -v m="$MODE" \
      'BEGIN { printf "  attackers (%s):", m } { printf " %s x %s", $1, $2 } END { print "" }'
  fi
  echo "  computations started $(($(metric nqueensd_computations_started_total) - started0)), cancelled" \
    "$(($(metric nqueensd_computations_cancelled_total) - cancelled0))"
}

echo "nqueensd $("$NQUEENSD" --version 2>/dev/null | head -1), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)," \
  "DURATION=$DURATION CHEAP=$CHEAP ATTACKERS=$ATTACKERS MODE=$MODE"
phase baseline 0
phase attack "$ATTACKERS"
# After the attack: how long until the workers are free again.
t0=$SECONDS
while [[ "$(metric nqueensd_computations_running)" != "0" ]] && ((SECONDS - t0 < 120)); do sleep 1; done
echo "  workers idle $((SECONDS - t0)) s after the attack ended"
