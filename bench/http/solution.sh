#!/usr/bin/env bash
# solution.sh - /solution?n=N over HTTP: the first (cold) answer of a fresh server against the same
# request answered again (cached), identity and gzip, for the construction and for a random board.
#
#   bench/http/solution.sh                  build nqueensd (Release, build/bench) and measure
#   NQUEENSD=path bench/http/solution.sh    use an existing binary
#
# Cold: a new server per round, so nothing is cached; its first request builds (or searches), renders
# and, when the body fits the cache, publishes the board. Cached: the next REPS identical requests, the
# median reported. Times are curl's time_total on loopback (the whole body read), the median of ROUNDS
# rounds. Knobs: N (1000000), ROUNDS (5), REPS (9), CACHE_BYTES (256M: a 10^6 board fits; at the
# default 64M it does not, and every answer streams), BUILD_DIR (build/bench). Needs curl.
set -euo pipefail
trap 'echo "solution.sh: line $LINENO failed" >&2' ERR
cd "$(dirname "$0")/../.."
N=${N:-1000000}
ROUNDS=${ROUNDS:-5}
REPS=${REPS:-9}
BUILD_DIR=${BUILD_DIR:-build/bench}
CACHE_BYTES=${CACHE_BYTES:-256M}

if [[ -z "${NQUEENSD:-}" ]]; then
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
  cmake --build "$BUILD_DIR" -j "$(nproc)" --target nqueensd >/dev/null
  NQUEENSD=$BUILD_DIR/src/server/nqueensd
fi

work=$(mktemp -d)
pid=""
cleanup() { [[ -n "$pid" ]] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

start() { # start a fresh server; sets pid and port
  "$NQUEENSD" --bind 127.0.0.1 --port 0 --store none --cache-bytes "$CACHE_BYTES" >"$work/log" 2>&1 &
  pid=$!
  for _ in $(seq 200); do
    port=$(sed -n 's/.*"msg":"listening".*"port":\([0-9]*\).*/\1/p' "$work/log" | head -1)
    [[ -n "$port" ]] && return 0
    sleep 0.05
  done
  echo "solution.sh: nqueensd did not start" >&2; cat "$work/log" >&2; exit 1
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""; }
fetch() { # fetch TARGET [gzip]: prints seconds
  local enc=()
  [[ "${2:-}" == gzip ]] && enc=(-H 'Accept-Encoding: gzip')
  curl -s -o /dev/null "${enc[@]}" -w '%{time_total}\n' "http://127.0.0.1:$port$1"
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

row() { # row LABEL TARGET ENCODING
  local cold=() warm=()
  for _ in $(seq "$ROUNDS"); do
    start
    cold+=("$(fetch "$2" "$3")")
    for _ in $(seq "$REPS"); do fetch "$2" "$3"; done >"$work/warm"
    warm+=("$(median <"$work/warm")")
    stop
  done
  local c w
  c=$(printf '%s\n' "${cold[@]}" | median)
  w=$(printf '%s\n' "${warm[@]}" | median)
  awk -v l="$1" -v e="$3" -v c="$c" -v w="$w" \
    'BEGIN {printf "| %s | %s | %.1f ms | %.1f ms | %.2f |\n", l, e, c * 1000, w * 1000, c / w}'
}

echo "| /solution?n=$N | encoding | cold (first answer) | cached (median) | cold / cached |"
echo "|---|---|---|---|---|"
for enc in identity gzip; do
  row construct "/solution?n=$N" "$enc"
  row "random, seed 7" "/solution?n=$N&method=random&seed=7" "$enc"
done
