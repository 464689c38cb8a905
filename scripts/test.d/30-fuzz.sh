#!/usr/bin/env bash
# 30-fuzz.sh - CI stage: build the libFuzzer harnesses (clang, ASan+UBSan, no recovery) and run each
# for a bounded time. A crash, an oracle failure, a leak, a timeout or an out-of-memory fails it.
#
#   NQ_FUZZ_SECONDS  seconds per harness (default 60); e.g. NQ_FUZZ_SECONDS=3600 for a long local run
#   NQ_FUZZ_ONLY     run only these harnesses, space-separated (default: every one that was built)
#   NQ_BUILD_ROOT    parent of the build directory (default: build)
#
# New inputs libFuzzer finds go to <build>/fuzz/corpus/<name>, which persists between local runs (the
# seed corpus in fuzz/corpus/<name> is only read). A failing input is saved as
# <build>/fuzz/artifacts/<name>-crash-* (or leak-, timeout-, oom-); reproduce it with
#   <build>/fuzz/fuzz/fuzz_<name> <that file>
# and, once fixed, copy it into fuzz/corpus/<name>/ so the replay test keeps it fixed in every build.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(realpath -m "${NQ_BUILD_ROOT:-build}/fuzz")
secs=${NQ_FUZZ_SECONDS:-60}
jobs=${NQ_JOBS:-$(nproc)}

cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DNQ_FUZZ=ON \
  -DNQ_SANITIZE=address,undefined -DBUILD_TESTING=OFF -DNQ_BENCH=OFF >/dev/null
# Every harness is named fuzz_<name> after its source file; build only those (not the daemon).
all=$(cd fuzz && ls fuzz_*.c | sed 's/^fuzz_\(.*\)\.c$/\1/')
names=${NQ_FUZZ_ONLY:-$all}
targets=()
for name in $names; do targets+=("fuzz_$name"); done
cmake --build "$dir" -j "$jobs" --target "${targets[@]}"

# Leaks are checked at exit of each input by libFuzzer itself (-detect_leaks); abort_on_error makes
# ASan and UBSan reports crashes libFuzzer records.
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
mkdir -p "$dir/artifacts"
for name in $names; do
  mkdir -p "$dir/corpus/$name"
  echo "-- fuzz_$name for ${secs}s (seeds: fuzz/corpus/$name)"
  # -timeout: one input taking 10 s is a hang (the slowest legitimate input takes milliseconds).
  # -rss_limit_mb/-malloc_limit_mb: a response must never need more than this, whatever the input.
  # -max_len: well beyond the longest request line or query a client can send (see guard.h limits).
  if ! "$dir/fuzz/fuzz_$name" "$dir/corpus/$name" "fuzz/corpus/$name" \
      -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=4096 \
      -artifact_prefix="$dir/artifacts/$name-" -print_final_stats=1 >"$dir/$name.log" 2>&1; then
    tail -n 60 "$dir/$name.log"
    echo "fuzz_$name: FAILED (log: $dir/$name.log; inputs: $dir/artifacts/$name-*)" >&2
    exit 1
  fi
  grep -E '^stat::number_of_executed_units|^stat::new_units_added' "$dir/$name.log" | tr '\n' ' '
  echo "(fuzz_$name: no failure in ${secs}s)"
done
