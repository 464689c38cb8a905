#!/usr/bin/env bash
# test.sh - the whole test suite, exactly as CI runs it (.ci/run calls this).
#   scripts/test.sh           everything, the cheap checks first: the stages 00 to 04 (clang-format,
#                             layers, ShellCheck, ESLint, the Kubernetes manifests: seconds each), then
#                             the release build + tests, the slow tests, the ASan+UBSan build + tests,
#                             then the stages 05 and up
#                             (quick start from a fresh clone, TSan on the concurrency tests, the build
#                             matrix, static analysis, fuzzing, MPI, contract tests, the page in Chromium,
#                             container smoke); docs/testing.md describes each
#   scripts/test.sh --fast    the cheap checks that need only Debian's packages (stages 00 to 02: format,
#                             layers, ShellCheck), then only the release build and its fast tests (a
#                             developer's quick loop; no Node.js needed)
# A stage is a script scripts/test.d/NN-name.sh, and the stages run in the order of their numbers, each
# number used once (so the folder's order is the run order): below 05, a cheap check that builds
# nothing, run before the builds; 05 and up, after them. Each one also runs alone (bash FILE).
# Installs what it needs first (scripts/deps.sh --test). Stops at the first failure, naming its stage.
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
  local rc=$? i failed=$stage_now
  stage_end
  printf '\n==== stage times (exit %d) ====\n' "$rc"
  for i in "${!stage_names[@]}"; do printf '%6ds  %s\n' "${stage_secs[$i]}" "${stage_names[$i]}"; done
  printf '%6ds  total\n' "$SECONDS"
  (( rc == 0 )) || printf '==== FAILED: %s ====\n' "${failed:-before the first stage}"
}
trap stage_report EXIT

# The stages of scripts/test.d: every *.sh there is NN-name.sh, and no two share a number.
for f in scripts/test.d/*.sh; do
  [[ -e $f ]] || continue
  [[ ${f##*/} =~ ^[0-9][0-9]-[a-z0-9-]+\.sh$ ]] || { echo "test.sh: $f: a stage is named NN-name.sh" >&2; exit 1; }
done
dup=$(cd scripts/test.d && printf '%s\n' [0-9][0-9]-*.sh | cut -c1-2 | uniq -d)
[[ -z $dup ]] || { echo "test.sh: more than one stage numbered $dup in scripts/test.d/" >&2; exit 1; }
run_stages() { # run_stages FIRST LAST: the stages numbered FIRST..LAST, in order
  local f n
  for f in scripts/test.d/[0-9][0-9]-*.sh; do
    [[ -e $f ]] || continue
    n=${f##*/}
    n=$((10#${n%%-*}))
    (( n >= $1 && n <= $2 )) || continue
    stage "$(basename "$f" .sh)"
    bash "$f"
  done
}

scripts/deps.sh --test

# The store's PostgreSQL tests run against a throwaway server (scripts/pg_test_server.sh) for the
# whole run; every stage's tests find it in NQ_TEST_PG, and it goes when the run ends.
pg_dir=$(mktemp -d /tmp/nq-test-pg-XXXXXX)
NQ_TEST_PG=$(scripts/pg_test_server.sh start "$pg_dir")
export NQ_TEST_PG
pg_stop() { scripts/pg_test_server.sh stop "$pg_dir" || true; }
trap 'stage_report; pg_stop' EXIT
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

# The cheap checks, before any build: a misformatted line or a lint finding fails in seconds, not
# after the builds. --fast leaves out the ones that need Node.js (03-jslint), which it does not ask for.
if (( fast )); then run_stages 0 2; else run_stages 0 4; fi

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

run_stages 5 99

stage "all green"
