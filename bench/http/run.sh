#!/usr/bin/env bash
# run.sh - HTTP benchmark: nqueensd against nginx serving the same bytes, side by side, on loopback.
#
#   bench/http/run.sh                 build nqueensd (Release) and run every measurement
#   NQUEENSD=path bench/http/run.sh   use an existing nqueensd binary instead of building one
#
# What it measures (the goals are in docs/performance.md, with the measured figures):
#   1. cached /count?n=8 (a ~30-byte body): nqueensd requests/s against nginx's
#   2. cached /solve?n=12 (~2.6 MB): nqueensd throughput against nginx's static-file throughput
#      (also with Accept-Encoding: gzip, nginx serving nqueensd's own gzip bytes via gzip_static)
#   3. /solve?n=14 (~87 MB, too big to cache, streamed): nqueensd's resident memory growth
# How: nqueensd starts on a free port; its answers are saved as files with their headers; nginx is
# configured to serve exactly those bytes with the same caching/CORS headers (ETag, Cache-Control,
# Vary, Access-Control-*, Server-Timing, a per-request X-Request-Id). Both log every request to a
# file. wrk then runs against each server in turn, ROUNDS times, alternating so that background
# noise hits both alike; the median requests/s of each is reported with the median of the per-round
# ratios and their range, and so is each server's CPU time per request (from /proc/PID/stat), the
# figure that stays meaningful when other work shares the CPUs, with the client's (wrk's) beside it.
# Memory: a fresh nqueensd's VmRSS is sampled every 20 ms while curl streams n=14; growth is the
# peak minus the RSS just before (after a warm-up request). Cold, the request first counts n=14 for
# its "total" (the solver's working memory shows up); with the count cached, only streaming remains.
#
# Knobs (environment): ROUNDS (5), DURATION (wrk seconds per run, 8), CONNECTIONS (64), THREADS (wrk
# threads, 2), BUILD_DIR (build/bench), NQ_ARGS (extra nqueensd arguments), CASES (which parts to run,
# any of "stream first count solve gzip"; all of them by default).
# Needs wrk, nginx and curl (scripts/deps.sh --bench installs them). Leaves nothing running.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-8}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
BUILD_DIR=${BUILD_DIR:-build/bench}
NQ_ARGS=${NQ_ARGS:-}
CASES=${CASES:-stream first count solve gzip}

# want CASE: whether CASES names CASE.
want() { [[ " $CASES " == *" $1 "* ]]; }
die() { echo "run.sh: $*" >&2; exit 1; }
log() { echo "run.sh: $*" >&2; }

scripts/deps.sh --bench
for tool in wrk nginx curl; do
  command -v "$tool" >/dev/null || [[ -x /usr/sbin/$tool ]] || die "$tool not found"
done
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)

if [[ -z "${NQUEENSD:-}" ]]; then
  cmake -S "$root" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DNQ_BENCH=OFF >/dev/null
  cmake --build "$BUILD_DIR" -j 2 --target nqueensd >&2
  NQUEENSD=$BUILD_DIR/src/server/nqueensd
fi
[[ -x "$NQUEENSD" ]] || die "no nqueensd at $NQUEENSD"

work=$(mktemp -d /tmp/nq-bench.XXXXXX)
chmod 755 "$work" # nginx's workers run as an unprivileged user and must read the bodies
nq_pid=""
nginx_pid=""
cleanup() {
  [[ -n "$nq_pid" ]] && kill "$nq_pid" 2>/dev/null && wait "$nq_pid" 2>/dev/null
  [[ -n "$nginx_pid" ]] && kill "$nginx_pid" 2>/dev/null && wait "$nginx_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# ---- servers --------------------------------------------------------------------------------------

# start_nqueensd: start a fresh nqueensd on a free loopback port; sets nq_pid and nq_port.
start_nqueensd() {
  local out=$work/nqueensd.out
  : >"$out"
  # Cache large enough for n=12's body and its gzip form; a response cap that lets n=14 stream whole;
  # no store, so that every fresh process is cold (a store file would keep the counts of earlier runs).
  # shellcheck disable=SC2086 # NQ_ARGS is a list of words on purpose
  "$NQUEENSD" --port 0 --bind 127.0.0.1 --cache-bytes 256M --max-solutions 1000000 --store none $NQ_ARGS \
    >"$out" 2>"$work/nqueensd.err" &
  nq_pid=$!
  for _ in $(seq 100); do
    nq_port=$(grep -m1 '"msg":"listening"' "$out" | sed -n 's/.*"port":\([0-9]*\).*/\1/p' || true)
    [[ -n "$nq_port" ]] && return 0
    kill -0 "$nq_pid" 2>/dev/null || die "nqueensd exited: $(cat "$work/nqueensd.err")"
    sleep 0.1
  done
  die "nqueensd did not report its port"
}

stop_nqueensd() {
  kill "$nq_pid" 2>/dev/null || true
  wait "$nq_pid" 2>/dev/null || true
  nq_pid=""
}

# free_port: a loopback TCP port nobody listens on.
free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 20000))
    ss -Hltn "sport = :$p" | grep -q . || { echo "$p"; return; }
  done
}

# save PATH NAME [curl args]: save nqueensd's answer to PATH as $work/www/NAME and its headers as
# nginx add_header lines in $work/NAME.headers.
save() {
  local path=$1 name=$2; shift 2
  curl -sS --fail -D "$work/$name.raw" -o "$work/www/$name" "$@" "http://127.0.0.1:$nq_port$path"
  tr -d '\r' <"$work/$name.raw" | awk -F': ' '
    tolower($1) ~ /^(etag|cache-control|vary|access-control-allow-origin|access-control-expose-headers|server-timing)$/ {
      v = substr($0, length($1) + 3); gsub(/"/, "\\\"", v)
      printf "      add_header %s \"%s\" always;\n", $1, v
    }' >"$work/$name.headers"
}

start_nginx() {
  nginx_port=$(free_port)
  mkdir -p "$work/nginx"
  {
    cat <<EOF
worker_processes auto;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 4096; }
http {
  access_log $work/nginx/access.log;
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  etag off;
  server_tokens off;
  gzip off;
  server {
    listen 127.0.0.1:$nginx_port;
    default_type application/json;
    add_header X-Request-Id \$request_id always;
    location = /count {
      alias $work/www/count-8.json;
$(cat "$work/count-8.json.headers")
    }
    location = /solve {
      gzip_static on;
      alias $work/www/solve-12.json;
$(cat "$work/solve-12.json.headers")
    }
  }
}
EOF
  } >"$work/nginx/nginx.conf"
  "$nginx_bin" -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" &
  nginx_pid=$!
  for _ in $(seq 50); do
    curl -s -o /dev/null "http://127.0.0.1:$nginx_port/count" && return 0
    sleep 0.1
  done
  die "nginx did not start: $(cat "$work/nginx/error.log")"
}

# ---- measurements ---------------------------------------------------------------------------------

# cpu_ticks PID...: user + system CPU time of the processes (all their threads), in clock ticks.
cpu_ticks() {
  local pid total=0
  for pid in "$@"; do
    # Fields 14 and 15 of /proc/PID/stat, counted after the ")" that ends the command name.
    total=$((total + $(sed 's/.*) //' "/proc/$pid/stat" | awk '{ print $12 + $13 }')))
  done
  echo "$total"
}

# measure URL "PIDS" [wrk args]: one wrk run; prints requests/s, the server's CPU microseconds per
# request (CPU time of PIDS during the run over the requests completed) and the client's (wrk's user +
# system time over the same requests). CPU per request is the figure that holds up on a shared
# machine: other load slows both servers' clocks, not their work per request. On loopback the client
# shares the CPUs, and the kernel's work for one connection lands on either side (whichever thread
# runs when a segment or an acknowledgement is processed), so server plus client is what bounds
# requests/s there.
measure() {
  local url=$1 pids=$2; shift 2
  local before after TIMEFORMAT='%U %S'
  # shellcheck disable=SC2086 # pids is a list on purpose
  before=$(cpu_ticks $pids)
  { time wrk -t "$THREADS" -c "$CONNECTIONS" -d "${DURATION}s" "$@" "$url" >"$work/wrk.out"; } 2>"$work/wrk.time"
  # shellcheck disable=SC2086
  after=$(cpu_ticks $pids)
  awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" -v w="$(cat "$work/wrk.time")" '
    /requests in/ { n = $1 } /^Requests\/sec:/ { r = $2 }
    END { split(w, c, " "); printf "%s %.2f %.2f\n", r, (n > 0 ? t / hz * 1e6 / n : 0), (n > 0 ? (c[1] + c[2]) * 1e6 / n : 0) }' \
    "$work/wrk.out"
}

# compare LABEL NQ_URL NGINX_URL BYTES [wrk args]: alternate runs; print each server's median
# requests/s, CPU per request and its client's CPU per request, the median of the per-round
# throughput ratios (pairing the runs of a round cancels load that drifts between rounds) with their
# range, the ratio of server CPU per request (nginx's over nqueensd's: above 1, nqueensd does the same
# work with less CPU) and the median per-round ratio of server plus client CPU per request.
compare() {
  local label=$1 nq_url=$2 ng_url=$3 bytes=$4; shift 4
  local nq ng rounds=() ng_pids ngr ngc ngw nqr nqc nqw
  ng_pids="$nginx_pid $(pgrep -P "$nginx_pid" | tr '\n' ' ')"
  for r in $(seq "$ROUNDS"); do
    ng=$(measure "$ng_url" "$ng_pids" "$@")
    nq=$(measure "$nq_url" "$nq_pid" "$@")
    read -r ngr ngc ngw <<<"$ng"
    read -r nqr nqc nqw <<<"$nq"
    log "$label round $r: nginx $ngr req/s $ngc us/req (client $ngw), nqueensd $nqr req/s $nqc us/req (client $nqw)"
    rounds+=("$nq $ng")
  done
  printf '%s\n' "${rounds[@]}" | awk -v l="$label" -v s="$bytes" '
    { nq[NR] = $1; nqc[NR] = $2; nqw[NR] = $3; ng[NR] = $4; ngc[NR] = $5; ngw[NR] = $6
      ratio[NR] = $1 / $4; both[NR] = ($2 + $3 > 0 ? ($5 + $6) / ($2 + $3) : 0) }
    function median(a, n,   i, j, t) {
      for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
      return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    END {
      a = median(nq, NR); b = median(ng, NR); r = median(ratio, NR); ac = median(nqc, NR); bc = median(ngc, NR)
      aw = median(nqw, NR); bw = median(ngw, NR); t = median(both, NR)
      printf "%-26s %8.0f %8.0f %8.1f %8.1f %6.2fx (%.2f-%.2f) %7.1f %7.1f %6.2fx %7.1f %7.1f %6.2fx\n", l, a, b,
        a * s / 1048576, b * s / 1048576, r, ratio[1], ratio[NR], ac, bc, (ac > 0 ? bc / ac : 0), aw, bw, t
    }'
}

# rss_kib PID: resident set size in KiB.
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

# stream_growth LABEL WARM [curl args]: peak RSS growth of a fresh nqueensd while one client streams
# n=14, after a warm-up request for /count?n=WARM. WARM=4 warms threads and allocator only, so the
# request also counts n=14 for its "total" (the cold case); WARM=14 puts that count in the cache first,
# leaving the streaming alone to measure.
stream_growth() {
  local label=$1 warm=$2; shift 2
  start_nqueensd
  curl -sS -o /dev/null "http://127.0.0.1:$nq_port/count?n=$warm"
  local before peak now
  before=$(rss_kib "$nq_pid")
  peak=$before
  curl -sS --fail -o "$work/stream.out" -w '%{size_download}\n' "$@" \
    "http://127.0.0.1:$nq_port/solve?n=14" >"$work/stream.size" &
  local curl_pid=$!
  while kill -0 "$curl_pid" 2>/dev/null; do
    now=$(rss_kib "$nq_pid")
    ((now > peak)) && peak=$now
    sleep 0.02
  done
  wait "$curl_pid" || die "streaming /solve?n=14 failed"
  local size
  size=$(cat "$work/stream.size")
  rm -f "$work/stream.out"
  stop_nqueensd
  awk -v l="$label" -v s="$size" -v b="$before" -v p="$peak" 'BEGIN {
    printf "%-34s %6.1f MiB body %5.1f MiB before %5.1f MiB peak %5.1f MiB growth (target < 16 MB)\n",
      l, s / 1048576, b / 1024, p / 1024, (p - b) / 1024 }'
}

# ---- run ------------------------------------------------------------------------------------------

mkdir -p "$work/www"
echo "nqueensd: $NQUEENSD; wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s, median of $ROUNDS alternating runs"
echo "host: $(nproc) CPUs, $(uname -sr); loopback"
echo

if want stream; then
  echo "== resident memory while streaming /solve?n=14 (fresh process, not cached) =="
  stream_growth "identity, cold (counts n=14 too)" 4
  stream_growth "gzip, cold (counts n=14 too)" 4 -H "Accept-Encoding: gzip"
  stream_growth "identity, count cached" 14
  stream_growth "gzip, count cached" 14 -H "Accept-Encoding: gzip"
  echo
fi

echo "== first (uncached) answers: computed, rendered, cached (large ones compressed after) =="
start_nqueensd
# first URL LABEL: wall time of the first request for URL, and the solver time it reports.
first() {
  curl -sS --fail -o /dev/null -D "$work/first.h" -w '%{time_total}\n' "http://127.0.0.1:$nq_port$1" >"$work/first.t"
  awk -v l="$2" -v t="$(cat "$work/first.t")" -v st="$(tr -d '\r' <"$work/first.h" |
    sed -n 's/^[Ss]erver-[Tt]iming: solver;dur=//p')" 'BEGIN {
    printf "%-34s %8.1f ms wall, %8.1f ms in the solver (Server-Timing)\n", l, t * 1000, st }'
}
if want first; then
  first "/count?n=8" "/count?n=8"
  first "/solve?n=12" "/solve?n=12 (count, render)"
  first "/solve?n=12" "/solve?n=12 again (cache hit)"
  echo
fi

echo "== cached answers: nqueensd vs nginx serving the same bytes =="
save "/count?n=8" count-8.json
save "/solve?n=12" solve-12.json
# A body this large gets its gzip form after the first answers (made by the solver worker meanwhile).
for _ in $(seq 100); do
  curl -sS -o /dev/null -D - -H "Accept-Encoding: gzip" "http://127.0.0.1:$nq_port/solve?n=12" |
    grep -qi '^content-encoding: gzip' && break
  sleep 0.1
done
save "/solve?n=12" solve-12.json.gz -H "Accept-Encoding: gzip"
start_nginx
chmod -R a+rX "$work/www"
for f in count-8.json solve-12.json; do
  cmp -s "$work/www/$f" <(curl -sS "http://127.0.0.1:$nginx_port/${f%%-*}") ||
    die "nginx does not serve the bytes of $f: $(cat "$work/nginx/error.log")"
done
# The gzip rows are only meaningful if both servers really answer gzip to that request header (wrk,
# like this check, must write it "Name: value": wrk silently drops a header without the space).
for port in "$nq_port" "$nginx_port"; do
  curl -sS -o /dev/null -D - -H "Accept-Encoding: gzip" "http://127.0.0.1:$port/solve?n=12" |
    grep -qi '^content-encoding: gzip' || die "port $port does not answer gzip"
done
count_bytes=$(stat -c %s "$work/www/count-8.json")
solve_bytes=$(stat -c %s "$work/www/solve-12.json")
gz_bytes=$(stat -c %s "$work/www/solve-12.json.gz")
log "bodies: count-8 $count_bytes B, solve-12 $solve_bytes B, solve-12 gzip $gz_bytes B"
printf "%-26s %8s %8s %8s %8s %7s %11s %7s %7s %7s %7s %7s %7s\n" "request" "nq req/s" "ng req/s" \
  "nq MiB/s" "ng MiB/s" "ratio" "(range)" "nq us" "ng us" "cpu x" "nq cl" "ng cl" "both x"
if want count; then
  compare "/count?n=8 (target 1.2x)" "http://127.0.0.1:$nq_port/count?n=8" \
    "http://127.0.0.1:$nginx_port/count?n=8" "$count_bytes"
fi
if want solve; then
  compare "/solve?n=12 (target 1.6x)" "http://127.0.0.1:$nq_port/solve?n=12" \
    "http://127.0.0.1:$nginx_port/solve?n=12" "$solve_bytes"
fi
if want gzip; then
  compare "/solve?n=12 gzip (1.0x)" "http://127.0.0.1:$nq_port/solve?n=12" \
    "http://127.0.0.1:$nginx_port/solve?n=12" "$gz_bytes" -H "Accept-Encoding: gzip"
fi
