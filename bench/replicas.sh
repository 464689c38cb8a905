#!/usr/bin/env bash
# replicas.sh - one long count shared by 1, 2 and 3 nqueensd replicas on one PostgreSQL database: the
# wall time of /count?n=N from the first ask to the 200, the speed-up and efficiency, the blocks each
# replica finished, the store's round trips and their mean latency; then a model of the same count
# on up to 64 replicas from those measured costs (docs/performance.md, "Replicas").
#   bench/replicas.sh [N...]        the boards to count (default: 19 20)
# Each replica counts with one thread (--count-threads 1, --long-counts 1), so on a machine with at
# least 3 free cores the replicas do not slow each other down; on fewer cores the figures say how the
# machine is shared, not how replicas scale (the script prints the CPU count first).
#   NQUEENSD    the server binary (default: build/src/server/nqueensd)
#   REPLICAS    the replica counts to run (default: "1 2 3")
#   LEASE_MS    --lease-ms of the replicas (default: 15000, the server's default)
# A throwaway PostgreSQL 15 is started (scripts/pg_test_server.sh) and removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
bin=${NQUEENSD:-$root/build/src/server/nqueensd}
replica_counts=${REPLICAS:-"1 2 3"}
lease=${LEASE_MS:-15000}
boards=("$@")
((${#boards[@]})) || boards=(19 20)
[[ -x $bin ]] || { echo "replicas.sh: no server at $bin (build it, or set NQUEENSD)" >&2; exit 1; }

work=$(mktemp -d /tmp/nq-bench-replicas-XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  scripts/pg_test_server.sh stop "$work/db" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
pg=$(scripts/pg_test_server.sh start "$work/db")

# start_replica DB LOG N: one replica on database DB that counts up to n = N; its port in $port, its
# pid added to pids.
start_replica() {
  "$bin" --port 0 --bind 127.0.0.1 --store "$pg dbname=$1" --count-threads 1 --long-counts 1 \
    --lease-ms "$lease" --max-n-count "$3" >"$2" 2>&1 &
  pids+=($!)
  port=""
  for _ in $(seq 1 600); do
    port=$(grep -o '"msg":"listening".*"port":[0-9]*' "$2" 2>/dev/null | grep -o '[0-9]*$' || true)
    [[ -n $port ]] && break
    sleep 0.05
  done
  [[ -n $port ]] || { echo "replicas.sh: a replica did not start:" >&2; cat "$2" >&2; exit 1; }
}

metric() { # metric PORT NAME: an unlabelled metric's value
  curl -s "http://127.0.0.1:$1/metrics" | awk -v m="$2" '$1 == m { print $2 }'
}

echo "cpus: $(nproc); lease: $lease ms; server: $bin"
printf '%-3s %-8s %10s %8s %6s %-14s %12s %12s\n' n replicas wall_s speedup eff blocks_each \
  store_calls mean_call_ms
for n in "${boards[@]}"; do
  base=""
  for r in $replica_counts; do
    db="bench_${n}_$r"
    psql "$pg" -qAtc "CREATE DATABASE $db" >/dev/null
    ports=()
    for i in $(seq 1 "$r"); do
      start_replica "$db" "$work/r$n-$r-$i.log" "$n"
      ports+=("$port")
    done
    t0=$(date +%s.%N)
    curl -s -o /dev/null -H 'Prefer: respond-async' "http://127.0.0.1:${ports[0]}/count?n=$n"
    while :; do
      code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Prefer: respond-async' "http://127.0.0.1:${ports[0]}/count?n=$n")
      [[ $code == 200 ]] && break
      [[ $code == 202 ]] || { echo "replicas.sh: /count?n=$n answered $code" >&2; exit 1; }
      sleep 0.2
    done
    t1=$(date +%s.%N)
    wall=$(echo "$t1 - $t0" | bc -l)
    [[ -n $base ]] || base=$wall
    each="" calls=0 secs=0
    for p in "${ports[@]}"; do
      each+="$(metric "$p" nqueensd_count_blocks_finished_total)/"
      calls=$(echo "$calls + $(metric "$p" nqueensd_store_call_seconds_count)" | bc -l)
      secs=$(echo "$secs + $(metric "$p" nqueensd_store_call_seconds_sum)" | bc -l)
    done
    printf '%-3s %-8s %10.1f %8.2f %6.2f %-14s %12.0f %12.2f\n' "$n" "$r" "$wall" \
      "$(echo "$base / $wall" | bc -l)" "$(echo "$base / $wall / $r" | bc -l)" "${each%/}" "$calls" \
      "$(echo "1000 * $secs / $calls" | bc -l)"
    echo "$n $r $wall $calls $secs" >>"$work/figures"
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    pids=()
  done
done

# The model: a count of B blocks of equal cost t (the one-replica wall time over B: counting and
# the counter's tables of each block), each costing k store round trips of c seconds, on R replicas
# that each count one block at a time. Blocks go out in waves of R: wall = ceil(B / R) x (t + k c);
# the store answers min(R, B) k / (t + k c) round trips a second, plus one a second from each idle
# replica's claim. B is the server's for n (8 up to n = 20,
# 64 at n = 21 and 22, 256 from n = 23).
echo
echo "model (from the one-replica run of each n): replicas, wall_s, efficiency, store round trips/s"
awk 'BEGIN { split("1 2 3 4 8 16 32 64", rs, " ") }
  $2 == 1 { n = $1; wall = $3; k = $4; c = ($4 > 0 ? $5 / $4 : 0)
    B = (n <= 20 ? 8 : n <= 22 ? 64 : 256); t = wall / B - (k / B) * c; kb = k / B
    printf "n = %d: %d blocks, %.2f s each, %.1f round trips a block of %.2f ms\n", n, B, t, kb, 1000 * c
    for (i = 1; i <= 8; i++) { R = rs[i]; waves = int((B + R - 1) / R); w = waves * (t + kb * c)
      busy = (R < B ? R : B) # replicas beyond B find no block: they only poll (one claim a second)
      printf "  %3d %10.1f %6.2f %10.1f\n", R, w, (B * t) / (R * w), busy * kb / (t + kb * c) + (R - busy) } }' \
  "$work/figures"
