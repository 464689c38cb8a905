#!/usr/bin/env bash
# test.sh - the whole test suite, exactly as CI runs it (.ci/run calls this).
#   scripts/test.sh           everything: release build + tests, ASan+UBSan build + tests, then the
#                             stages in scripts/test.d/ in order (quick start from a fresh clone, TSan on
#                             the concurrency tests, the build matrix, static analysis, fuzzing, MPI, contract
#                             tests, container smoke, format); docs/testing.md describes each
#   scripts/test.sh --fast    only the release build and its fast tests (a developer's quick loop)
# Installs what it needs first (scripts/deps.sh --test). Exits non-zero on the first failure.
#   NQ_BUILD_ROOT   parent of the build folders (default: build)
#   NQ_JOBS         parallel jobs for builds and ctest (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
jobs=${NQ_JOBS:-$(nproc)}
broot=$(realpath -m "${NQ_BUILD_ROOT:-build}")

fast=0
case "${1:-}" in
  "") ;;
  --fast) fast=1 ;;
  -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
  *) echo "usage: scripts/test.sh [--fast]   (--help for more)" >&2; exit 2 ;;
esac
(( $# <= 1 )) || { echo "usage: scripts/test.sh [--fast]   (--help for more)" >&2; exit 2; }

# Each stage's wall time is recorded and the table printed at exit, pass or fail, so CI logs show
# where the run's time goes (the whole run must stay well inside CI's 90 minutes on 2 cores).
stage_names=() stage_secs=() stage_now="" stage_t0=0
stage_end() {
  [[ -n "$stage_now" ]] && { stage_names+=("$stage_now"); stage_secs+=($((SECONDS - stage_t0))); }
  stage_now=""
}
stage() { stage_end; stage_now="$*"; stage_t0=$SECONDS; printf '\n==== %s ====\n' "$*"; }
stage_report() {
  local rc=$? i
  stage_end
  printf '\n==== stage times (exit %d) ====\n' "$rc"
  for i in "${!stage_names[@]}"; do printf '%6ds  %s\n' "${stage_secs[$i]}" "${stage_names[$i]}"; done
  printf '%6ds  total\n' "$SECONDS"
}
trap stage_report EXIT

scripts/deps.sh --test
(( fast )) || scripts/deps.sh --node # the whole suite: its npm stages need a Node.js Debian 12 lacks

# Every build here has its tests on, whatever an earlier configuration of the same folder said (the
# options are forced on the command line), and every ctest call fails when it finds no test: a stage
# that runs nothing must not pass.
build() { # build DIR [cmake args...]
  local dir=$1; shift
  cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON "$@" >/dev/null
  cmake --build "$dir" -j "$jobs"
}
run_ctest() { # run_ctest DIR [ctest args...]
  local dir=$1; shift
  ctest --test-dir "$dir" --output-on-failure --no-tests=error -j "$jobs" "$@"
}

stage "release build (gcc, -Werror) and tests"
build "$broot/release" -DNQ_BENCH=ON
if (( fast )); then
  run_ctest "$broot/release" -L fast
  exit 0
fi
run_ctest "$broot/release" -LE slow

stage "slow tests (release build)"
run_ctest "$broot/release" -L slow

stage "AddressSanitizer + UndefinedBehaviorSanitizer build and tests"
build "$broot/asan" -DNQ_SANITIZE=address,undefined -DNQ_BENCH=OFF
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 run_ctest "$broot/asan" -LE slow

for extra in scripts/test.d/*.sh; do
  [[ -e "$extra" ]] || continue
  stage "$(basename "$extra" .sh)"
  bash "$extra"
done

stage "all green"
