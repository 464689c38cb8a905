#!/usr/bin/env bash
# 35-mpi.sh - CI stage: nqueens-mpi, the count across an MPI job (Open MPI). Builds it with
# -DNQ_MPI=ON in build/mpi (the library and nqueens-mpi only), then:
#   - mpirun -np 3 at n = 16 and 17, -np 1, 2 and 4 at n = 14: exactly the OEIS counts
#     (A000170 / A002562), the bytes `nqueens count N` prints;
#   - a killed job resumes: n = 17 with a checkpoint written after every result; once the file shows
#     progress (polled, never a fixed sleep) every process of the job is killed with SIGKILL, as a
#     machine dying would; the restart with the same file must say it resumes from that file's
#     done tasks and print the right count;
#   - a worker reports the tasks of its chunk while it counts it: with one worker at n = 19 the first
#     checkpoint holds part of a chunk, not a whole one;
#   - a job whose ranks count different n (as nodes with different builds would), or one of whose
#     ranks is given arguments that do not parse, is refused at the start (exit 2) without printing a
#     count or waiting for ever; a worker whose result is longer than any count's, or ragged, is
#     named malformed (exit 1), its message read whole rather than truncated inside MPI; a worker
#     whose rank 0 sends a STOP with a payload, or a chunk longer than the plan, takes it whole as
#     its STOP (exit 0);
#   - a worker whose count fails (a rogue one that fails after one task) stops the job as a signal
#     would: exit 1 without MPI_Abort, every finished task kept in the checkpoint, which resumes;
#     one whose count fails only after the plan's last task leaves nothing missing: the count is
#     printed, exit 0;
#   - a job stopped by a signal (SIGUSR1 to mpirun; SIGTERM to every rank, or to rank 0 alone;
#     SIGUSR1 to one worker alone; SIGINT to a lone rank) exits 3 with the workers' chunks cancelled
#     and what it counted in its checkpoint, written at the stop; resumed, it prints the count;
#   - a finished checkpoint prints the count without being written again; one given through a
#     symbolic link is the file it links to (the link stays, the file's lock holds);
#   - a checkpoint of another count, a damaged one, and one another job holds are refused (exit 2)
#     and left as they are.
# About 70 s on 2 cores after the build. mpirun runs as root in containers (--allow-run-as-root)
# and with more ranks than cores (--oversubscribe).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
build=$(realpath -m "${NQ_BUILD_ROOT:-build}/mpi")
jobs=${NQ_JOBS:-$(nproc)}

say() { printf '35-mpi: %s\n' "$*"; }
fail() { say "FAIL: $*" >&2; exit 1; }

scripts/deps.sh --mpi
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNQ_MPI=ON -DBUILD_TESTING=OFF -DNQ_BENCH=OFF \
  >/dev/null
cmake --build "$build" -j "$jobs" --target nqueens-mpi nq-rogue-worker
bin=$build/src/mpi/nqueens-mpi
rogue=$build/src/mpi/nq-rogue-worker

work=$(mktemp -d)
job=""
cleanup() {
  [[ -n $job ]] && kill_job "$job"
  rm -rf "$work"
}
# kill_job SID: SIGKILL every process of the job's session (mpirun puts each rank in a process
# group of its own, so the session is what holds them all).
kill_job() {
  local pids=()
  mapfile -t pids < <(ps -o pid= -s "$1" | tr -d " " || true)
  if ((${#pids[@]} > 0)); then kill -KILL "${pids[@]}" 2>/dev/null || true; fi
  # Until they are gone (a killed rank 0 holds the checkpoint's lock while it exits).
  for _ in $(seq 500); do
    [[ -z $(ps -o pid= -s "$1") ]] && return 0
    sleep 0.02
  done
}
trap cleanup EXIT
run() { mpirun --allow-run-as-root --oversubscribe "$@"; }

# expect_count NP N THREADS: the job's stdout must be exactly the OEIS counts of N.
declare -A want=([14]='{"n":14,"total":365596,"unique":45752}' [16]='{"n":16,"total":14772512,"unique":1846955}'
                 [17]='{"n":17,"total":95815104,"unique":11977939}')
expect_count() {
  local out
  out=$(run -np "$1" "$bin" "$2" --threads "$3" 2>"$work/err") || fail "-np $1 n = $2 exited $?: $(cat "$work/err")"
  [[ "$out" == "${want[$2]}" ]] || fail "-np $1 n = $2 printed '$out', want '${want[$2]}'"
  say "-np $1 n = $2: $out"
}
# --version on every rank: rank 0 prints the release, once, from CMake's project() line
release=$(sed -n 's/^project(nqueens VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
out=$(run -np 2 "$bin" --version 2>"$work/err") || fail "--version exited $?: $(cat "$work/err")"
[[ $out == "nqueens-mpi $release" ]] || fail "--version printed '$out', want 'nqueens-mpi $release'"
say "--version: $out"
expect_count 3 16 1
expect_count 3 17 1
for np in 1 2 4; do expect_count "$np" 14 1; done

# --- ranks of another count are refused at the start, not added: rank 0 counts n = 16, two ranks
# n = 17 (as a job whose nodes run different builds would); exit 2, no count printed
status=0
out=$(run -np 1 "$bin" 16 --threads 1 : -np 2 "$bin" 17 --threads 1 2>"$work/mixed.err") || status=$?
[[ $status -eq 2 && -z $out ]] || fail "a job of n = 16 and n = 17 ranks exited $status and printed '$out'"
grep -q 'counts n = 17 with plan [0-9]* (7108 tasks), rank 0 n = 16 .*every rank must run one build with one N' \
  "$work/mixed.err" || fail "a job of mixed ranks said: $(cat "$work/mixed.err")"
say "ranks of another count refused: $(grep -m1 'counts n = 17' "$work/mixed.err")"
# ... and so are ranks whose arguments do not parse, whichever rank it is: every rank ends (exit 2)
# instead of waiting for the one that left
for apps in "12 : -np 1 $bin 40" "40 : -np 2 $bin 12"; do
  status=0
  # shellcheck disable=SC2086 # apps is two app contexts on purpose
  out=$(run -np 1 "$bin" $apps 2>"$work/args.err") || status=$?
  [[ $status -eq 2 && -z $out ]] || fail "ranks given '$apps' exited $status and printed '$out'"
  grep -q -e 'ranks were given different arguments' -e "N must be a whole number from 1 to 27, not '40'" \
    "$work/args.err" || fail "ranks given '$apps' said: $(cat "$work/args.err")"
done
say "ranks given arguments that do not parse end at once"
# ... and a worker that sends rank 0 a result longer than any count's, or of a length that is no
# whole number of values, is named malformed: rank 0 reads the message whole (an MPI receive that
# truncates would end the job inside MPI, exit 15, without a word of its own) and ends the job
# itself (exit 1, no count)
for mode in long ragged; do
  status=0
  out=$(run -np 1 "$bin" 14 --threads 1 : -np 1 "$rogue" 14 "$mode" 2>"$work/rogue.err") || status=$?
  if [[ $status -ne 1 || -n $out ]] || ! grep -q 'nqueens-mpi: rank 1: malformed message' "$work/rogue.err"; then
    fail "a worker sending a $mode result: exit $status, printed '$out': $(cat "$work/rogue.err")"
  fi
done
say "a worker's long or ragged result is named malformed"
# ... and a worker given a STOP with values in it, or a chunk of more tasks than the plan has, takes
# it whole as its STOP and exits 0 (a receive that truncates would end it inside MPI; a worker that
# took the chunk as work would wait for ever for a rank 0 that has left: the timeout fails it)
for mode in stop-long work-long; do
  timeout 120 mpirun --allow-run-as-root --oversubscribe -np 1 "$rogue" 14 "$mode" : -np 1 "$bin" 14 --threads 1 \
    >"$work/rogue0.out" 2>"$work/rogue0.err" ||
    fail "a worker given a $mode message exited $?: $(cat "$work/rogue0.err")"
  [[ ! -s "$work/rogue0.out" ]] || fail "a worker given a $mode message printed $(cat "$work/rogue0.out")"
done
say "a worker takes rank 0's long STOP or long chunk whole, as its STOP"
# ... and a worker whose count fails stops the job: the others are told to stop and their finished
# tasks, and the one the failed worker finished, are kept (exit 1, no MPI_Abort); the job resumes
cp=$work/cp-failed
status=0
out=$(run -np 2 "$bin" 17 --threads 1 --checkpoint "$cp" : -np 1 "$rogue" 17 fail 2>"$work/failed.err") || status=$?
kept=$(sed -n "s|^nqueens-mpi: failed: \([0-9]*\) of 7108 tasks done, kept in $cp (the same command resumes)\$|\1|p" \
  "$work/failed.err")
if [[ $status -ne 1 || -n $out || -z $kept || $kept -lt 1 ]] || grep -q 'MPI_ABORT was invoked' "$work/failed.err" ||
  ! grep -q '^nqueens-mpi: rank 2: count failed: Out of memory$' "$work/failed.err" ||
  ! grep -q "^done $kept\$" "$cp"; then
  fail "a worker whose count failed: exit $status, printed '$out': $(cat "$work/failed.err"; cat "$cp" 2>/dev/null)"
fi
out=$(run -np 3 "$bin" 17 --threads 1 --checkpoint "$cp" 2>"$work/failed-resumed.err") ||
  fail "the job resumed after a failed worker exited $?: $(cat "$work/failed-resumed.err")"
[[ "$out" == "${want[17]}" ]] || fail "the job resumed after a failed worker printed '$out'"
grep -q "resuming from $cp: $kept of 7108 tasks done" "$work/failed-resumed.err" ||
  fail "the job after a failed worker did not resume: $(cat "$work/failed-resumed.err")"
say "a worker's failed count stops the job with $kept tasks kept, which resume: $out"
# ... but a failure that comes when every task is counted (the only worker fails after its last
# task) loses nothing: the count is printed and the job exits 0, the failure named
out=$(run -np 1 "$bin" 14 --threads 1 : -np 1 "$rogue" 14 fail-last 2>"$work/fail-last.err") ||
  fail "a worker failing after the last task: exit $?: $(cat "$work/fail-last.err")"
if [[ "$out" != "${want[14]}" ]] || ! grep -q '^nqueens-mpi: rank 1: count failed: Out of memory$' "$work/fail-last.err" ||
  ! grep -q '^nqueens-mpi: every task was counted all the same: the count is whole$' "$work/fail-last.err"; then
  fail "a worker failing after the last task: printed '$out': $(cat "$work/fail-last.err")"
fi
say "a worker failing after the plan's last task: $out"

# kill_at_progress CP OUT ERR NP N: a job of NP ranks counting N with checkpoint CP written after every
# result (stdout to OUT, stderr to ERR), killed whole once CP shows progress (polled, never a fixed
# sleep: up to 60 s for the first result on a loaded machine, then it gives up).
kill_at_progress() {
  local cp=$1 out=$2 err=$3 np=$4 n=$5
  setsid mpirun --allow-run-as-root --oversubscribe -np "$np" "$bin" "$n" --threads 1 --checkpoint "$cp" \
    --checkpoint-every 0 >"$out" 2>"$err" &
  job=$!
  for _ in $(seq 3000); do
    grep -q '^done [1-9]' "$cp" 2>/dev/null && break
    kill -0 "$job" 2>/dev/null || break
    sleep 0.02
  done
  kill_job "$job"
  wait "$job" 2>/dev/null || true
  job=""
}

# --- a killed job resumes from its checkpoint
cp=$work/cp17
kill_at_progress "$cp" "$work/killed.out" "$work/killed.err" 3 17
done_before=$(sed -n 's/^done //p' "$cp")
[[ -n $done_before && $done_before -gt 0 ]] || fail "no checkpoint with progress: $(cat "$work/killed.err")"
[[ -s "$work/killed.out" ]] && say "note: the job finished before it was killed; resuming a finished checkpoint"
say "killed with $done_before of 7108 tasks in $cp"
out=$(run -np 3 "$bin" 17 --threads 1 --checkpoint "$cp" 2>"$work/resumed.err") || fail "resumed job exited $?"
[[ "$out" == "${want[17]}" ]] || fail "resumed job printed '$out'"
grep -q "resuming from $cp: $done_before of 7108 tasks done" "$work/resumed.err" ||
  fail "resumed job did not resume: $(cat "$work/resumed.err")"
grep -q '^done 7108$' "$cp" || fail "the finished job's checkpoint is not complete"
say "resumed from $done_before tasks: $out"
# A finished checkpoint prints the count at once, and is read, not written again (the same inode and
# bytes: a read-only copy would print too)
before=$(stat -c '%i' "$cp")$(sha256sum <"$cp")
out=$(run -np 2 "$bin" 17 --checkpoint "$cp" 2>/dev/null) || fail "rerun on a finished checkpoint exited $?"
[[ "$out" == "${want[17]}" ]] || fail "rerun on a finished checkpoint printed '$out'"
[[ "$(stat -c '%i' "$cp")$(sha256sum <"$cp")" == "$before" ]] || fail "a finished checkpoint was written again"

# --- a checkpoint given through a symbolic link (kept on scratch, linked from home) is the file it
# links to: the link stays a link, the file holds the count, and the lock is the file's own
mkdir "$work/scratch"
ln -s "$work/scratch/n14.ck" "$work/home.ck"
run -np 2 "$bin" 14 --threads 1 --checkpoint "$work/home.ck" >/dev/null 2>"$work/link.err" ||
  fail "a checkpoint through a link: exit $?: $(cat "$work/link.err")"
if [[ ! -L "$work/home.ck" ]] || ! grep -q '^done 891$' "$work/scratch/n14.ck"; then
  fail "a checkpoint through a link: the link was replaced, or its file not written"
fi
status=0
flock -n "$work/scratch/n14.ck.lock" mpirun --allow-run-as-root --oversubscribe -np 2 "$bin" 14 --threads 1 \
  --checkpoint "$work/home.ck" >/dev/null 2>"$work/link.err" || status=$?
if [[ $status -ne 2 ]] || ! grep -q 'another job holds' "$work/link.err"; then
  fail "a linked checkpoint whose file another job holds: exit $status: $(cat "$work/link.err")"
fi
say "a checkpoint through a symbolic link writes and locks the file it links to"

# --- a chunk's tasks reach the checkpoint while it is counted: with one worker a chunk is half the
# plan (n = 19 on one thread: seconds of CPU), so the first checkpoint with progress must hold fewer
# tasks than a whole chunk (13185 of 26370), from the worker's partial report
cp19=$work/cp19
kill_at_progress "$cp19" /dev/null "$work/partial.err" 2 19
partial=$(sed -n 's/^done //p' "$cp19")
[[ -n $partial && $partial -gt 0 && $partial -lt 13185 ]] ||
  fail "first checkpoint of n = 19 held '$partial' tasks, want 1..13184: $(cat "$work/partial.err")"
say "a chunk reported $partial of its 13185 tasks before it ended"

# rank_pids SID [RANK]: the pids of the job's ranks, or of rank RANK only (Open MPI names it in each
# rank's environment)
rank_pids() {
  local pid
  for pid in $(ps -o pid=,comm= -s "$1" | awk '$2 == "nqueens-mpi" { print $1 }'); do
    if [[ -z ${2:-} ]] || tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2"; then
      echo "$pid"
    fi
  done
}
# stop_when_busy SIG TO CPU ARGS...: start the job `mpirun ARGS...` (stdout and stderr to
# $work/stop.out and .err), wait until one of its processes has used CPU seconds (polled: work under
# way, whatever the machine's load), or with CPU = progress until a progress line counts a finished
# task, then send SIG to mpirun (TO = mpirun), to every rank (TO =
# ranks, as srun and Slurm's time limit do) or to one rank (TO = rank0, rank1, ...); sets status to
# the job's exit status.
stop_when_busy() {
  local sig=$1 to=$2 cpu=$3 most pids=(); shift 3
  setsid mpirun --allow-run-as-root --oversubscribe "$@" >"$work/stop.out" 2>"$work/stop.err" &
  job=$!
  for _ in $(seq 6000); do
    if [[ $cpu == progress ]]; then
      grep -Eq ': [1-9][0-9]* of [0-9]+ tasks' "$work/stop.err" && break
    else
      most=$(ps -o times= -s "$job" | sort -n | tail -1)
      ((${most:-0} >= cpu)) && break
    fi
    kill -0 "$job" 2>/dev/null || break
    sleep 0.05
  done
  case $to in
    mpirun) pids=("$job") ;;
    ranks) mapfile -t pids < <(rank_pids "$job") ;;
    *) mapfile -t pids < <(rank_pids "$job" "${to#rank}") ;;
  esac
  if ((${#pids[@]} == 0)) || ! kill -"$sig" "${pids[@]}"; then
    fail "SIG$sig to $to: the job ended before it could be stopped: $(cat "$work/stop.err")"
  fi
  status=0
  wait "$job" || status=$?
  job=""
}
# stopped_early WHAT: the job (-np 3 at n = 19, no checkpoint) exited 3, printed no count, and says
# it stopped with fewer tasks done than the workers' two whole first chunks (2 x 6593): they
# cancelled their chunks rather than finish them
stopped_early() {
  local tasks
  tasks=$(sed -n 's/.*stopped: \([0-9]*\) of 26370 tasks done, not kept (no --checkpoint)$/\1/p' "$work/stop.err")
  [[ $status -eq 3 && ! -s "$work/stop.out" && -n $tasks && $tasks -lt 13186 ]] ||
    fail "$1: exit $status, stopped with '$tasks' tasks done (want 3 and fewer than 13186): $(cat "$work/stop.err")"
}

# --- a stopped job keeps what it counted: SIGUSR1 to mpirun (which passes it on at once; Slurm's
# --signal=USR1@T sends it before a time limit) once the worker has counted for 3 CPU seconds, part
# of its first chunk of n = 19 (13185 tasks). With --checkpoint-every 3600 nothing is written while it
# runs, so the file, its tasks and the exit status 3 all come from the stop: the worker cancels its
# chunk and sends what it finished, rank 0 writes it. The same command then resumes from those tasks.
cps=$work/cp19s
stop_when_busy USR1 mpirun 3 -np 2 "$bin" 19 --threads 1 --checkpoint "$cps" --checkpoint-every 3600
kept=$(sed -n 's/^done //p' "$cps" 2>/dev/null || true)
[[ $status -eq 3 && -n $kept && $kept -gt 0 && $kept -lt 13185 && ! -s "$work/stop.out" ]] ||
  fail "SIGUSR1: exit $status, checkpoint done '$kept' (want 3, 1..13184): $(cat "$work/stop.err")"
grep -q "stopped: $kept of 26370 tasks done, kept in $cps" "$work/stop.err" ||
  fail "SIGUSR1: the job did not say what it kept: $(cat "$work/stop.err")"
say "stopped by SIGUSR1 with $kept of 26370 tasks kept"
out=$(run -np 3 "$bin" 19 --threads 1 --checkpoint "$cps" 2>"$work/resumed.err") || fail "resumed job exited $?"
[[ "$out" == '{"n":19,"total":4968057848,"unique":621012754}' ]] || fail "resumed after a stop printed '$out'"
grep -q "resuming from $cps: $kept of 26370 tasks done" "$work/resumed.err" ||
  fail "the job after a stop did not resume: $(cat "$work/resumed.err")"
say "resumed from $kept tasks: $out"
# SIGTERM on every rank, with no checkpoint: it stops all the same and says nothing was kept; so it
# does when only rank 0 is signalled (it sends each worker a STOP while it counts) or only a worker
# (its LEAVE tells rank 0, which stops the others)
stop_when_busy TERM ranks 2 -np 3 "$bin" 19 --threads 1
stopped_early "SIGTERM on every rank"
stop_when_busy TERM rank0 2 -np 3 "$bin" 19 --threads 1
stopped_early "SIGTERM on rank 0 alone"
stop_when_busy USR1 rank2 2 -np 3 "$bin" 19 --threads 1
stopped_early "SIGUSR1 on rank 2 alone"
# SIGINT to a job of one rank (rank 0 counts alone, a thread of its own watching for the stop),
# once its progress line says it has finished a task: CPU seconds alone do not say that on a
# loaded machine, and a stop before the first task keeps nothing
stop_when_busy INT ranks progress -np 1 "$bin" 19 --threads 1 --checkpoint "$cps.alone" --checkpoint-every 3600
kept=$(sed -n 's/^done //p' "$cps.alone" 2>/dev/null || true)
[[ $status -eq 3 && -n $kept && $kept -gt 0 && $kept -lt 26370 ]] ||
  fail "SIGINT on -np 1: exit $status, checkpoint done '$kept': $(cat "$work/stop.err")"
say "SIGTERM on every rank, on rank 0 alone, SIGUSR1 on one worker and SIGINT on a lone rank stop too"

# --- checkpoints that are refused, and left alone
refuse() { # refuse WHAT FILE ARGS...: exit 2 and FILE unchanged
  local what=$1 file=$2 before status=0; shift 2
  before=$(sha256sum "$file")
  run -np 2 "$bin" "$@" --checkpoint "$file" >/dev/null 2>"$work/refused.err" || status=$?
  [[ $status -eq 2 ]] || fail "$what: exit $status, want 2: $(cat "$work/refused.err")"
  [[ "$(sha256sum "$file")" == "$before" ]] || fail "$what: the checkpoint was changed"
  say "$what refused: $(head -1 "$work/refused.err")"
}
refuse "a checkpoint of n = 17 for n = 16" "$cp" 16
sed 's/^done .*/done 5/' "$cp" >"$work/damaged"
refuse "a damaged checkpoint" "$work/damaged" 17
# A checkpoint another job holds: hold its lock as that job would.
exec 9>"$cp.lock"
flock -n 9 || fail "cannot take $cp.lock"
refuse "a checkpoint another job holds" "$cp" 17
exec 9>&-
say "all passed"
