#!/usr/bin/env bash
# 10-tsan.sh - CI stage: ThreadSanitizer build (clang) running every test labelled "concurrency"
# (cache, single-flight, counting threads, server under parallel load).
#
# Why clang: its TSan runtime reports with column numbers and this build doubles as a second clang
# -Werror build of everything the tests link. Why only the "concurrency" label: TSan slows code 5-15x
# and finds nothing in single-threaded tests; ASan+UBSan (test.sh) already runs the whole suite.
#   NQ_BUILD_ROOT  parent of the build directory (default: build), e.g. build-$USER for a private tree
#   NQ_JOBS        parallel jobs (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(realpath -m "${NQ_BUILD_ROOT:-build}/tsan")
jobs=${NQ_JOBS:-$(nproc)}

cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
  -DNQ_SANITIZE=thread -DNQ_BENCH=OFF -DNQ_FUZZ=OFF >/dev/null
cmake --build "$dir" -j "$jobs"

# halt_on_error: the first race fails its test (exit 66) instead of scrolling past.
# second_deadlock_stack: lock-order reports show both acquisitions.
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:history_size=4${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
ctest --test-dir "$dir" -L concurrency --no-tests=error --output-on-failure -j "$jobs"
