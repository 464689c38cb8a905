#!/usr/bin/env bash
# replicas.sh - one long count shared by 1, 2 and 3 nqueensd replicas on one PostgreSQL database: the
# wall time of /count?n=N from the first ask to the 200, the speed-up and efficiency, the blocks each
# replica finished, the store round trips of the blocks (claim, renew, commit, finish, release) and
# their share of the replicas' time, and the reads; then a model of the same count on up to 64
# replicas from those measured costs (docs/performance.md, "Replicas").
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

metric() { # metric PORT NAME: a metric's value (NAME with its labels, as /metrics writes them)
  curl -s "http://127.0.0.1:$1/metrics" | awk -v m="$2" '$1 == m { print $2 }'
}

# store_ops PORT OPS...: the round trips of those ops and their seconds, "calls seconds".
store_ops() {
  local port=$1 calls=0 secs=0 op
  shift
  for op in "$@"; do
    calls=$(echo "$calls + $(metric "$port" "nqueensd_store_call_seconds_count{op=\"$op\"}")" | bc -l)
    secs=$(echo "$secs + $(metric "$port" "nqueensd_store_call_seconds_sum{op=\"$op\"}")" | bc -l)
  done
  echo "$calls $secs"
}
BLOCK_OPS=(claim renew commit finish release) # what a block costs; the rest is reads for clients and gauges

echo "cpus: $(nproc); lease: $lease ms; server: $bin"
printf '%-3s %-8s %8s %8s %6s %-12s %11s %9s %11s %10s\n' n replicas wall_s speedup eff blocks_each \
  block_calls block_ms block_share read_calls
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
    each="" blocks=0 bcalls=0 bsecs=0 rcalls=0
    for p in "${ports[@]}"; do
      f=$(metric "$p" nqueensd_count_blocks_finished_total)
      each+="$f/"
      blocks=$(echo "$blocks + $f" | bc -l)
      read -r c t < <(store_ops "$p" "${BLOCK_OPS[@]}")
      bcalls=$(echo "$bcalls + $c" | bc -l)
      bsecs=$(echo "$bsecs + $t" | bc -l)
      read -r c t < <(store_ops "$p" read)
      rcalls=$(echo "$rcalls + $c" | bc -l)
    done
    # block_ms: the block round trips' time per block; block_share: that time against the replicas'
    # whole time (each counts with one thread from the first ask to the 200).
    printf '%-3s %-8s %8.1f %8.2f %6.2f %-12s %11.0f %9.1f %10.2f%% %10.0f\n' "$n" "$r" "$wall" \
      "$(echo "$base / $wall" | bc -l)" "$(echo "$base / $wall / $r" | bc -l)" "${each%/}" "$bcalls" \
      "$(echo "1000 * $bsecs / $blocks" | bc -l)" "$(echo "100 * $bsecs / ($r * $wall)" | bc -l)" "$rcalls"
    echo "$n $r $wall $blocks $bcalls $bsecs" >>"$work/figures"
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    pids=()
  done
done

# The model: a count of B blocks (as the run cut it), each of counting t and k block round trips of
# c seconds, on R replicas that each build the counter's tables once (s seconds, kept from block to
# block) and take blocks in turn: wall(R) = s + ceil(B / R) x (t + k c), efficiency wall(1) / (R x
# wall(R)). t, k and c come from the one-replica run of n; s from bench_schedule (docs/performance.md:
# 0.88 CPU s at n = 19, 2.31 at n = 20, on the Intel VM), scaled by this machine's speed against it
# (the run's work over bench_schedule's: 16.6 s at n = 19, 92.6 s at n = 20). n = 21 is not run (a
# quarter of an hour on one thread): it is modelled from n = 20, its work 1 050 / 92.6 times as much,
# set-up 2.4 s on the Intel VM, 1024 blocks of n = 20's round trips.
echo
echo "model (from the one-replica runs): replicas, wall_s, efficiency, store round trips/s"
awk 'BEGIN { split("1 2 4 8 16 32 64", rs, " "); split("16.6 92.6", work, " "); split("0.88 2.31", setup, " ") }
  function model(n, B, s, t, k, c,    i, R, w, w1, busy) {
    printf "n = %d: %d blocks, %.2f s each, %.1f round trips a block of %.2f ms, tables %.2f s\n", n, B, t, k, 1000 * c, s
    w1 = s + B * (t + k * c)
    for (i = 1; i <= 7; i++) { R = rs[i]; w = s + int((B + R - 1) / R) * (t + k * c)
      busy = (R < B ? R : B) # replicas beyond B find no block: they only poll (4 claims a second)
      printf "  %3d %10.1f %6.2f %10.1f\n", R, w, w1 / (R * w), busy * k / (t + k * c) + 4 * (R - busy) } }
  $2 == 1 && ($1 == 19 || $1 == 20) { n = $1; wall = $3; B = $4; k = $5 / $4; c = ($5 > 0 ? $6 / $5 : 0)
    f = (wall - B * k * c) / (work[n - 18] + setup[n - 18]) # this machine against the Intel VM
    s = setup[n - 18] * f; t = (wall - s) / B - k * c
    model(n, B, s, t, k, c)
    if (n == 20) { s21 = 2.4 * f; model(21, 1024, s21, 1050 * f / 1024, k, c) } }' "$work/figures"
