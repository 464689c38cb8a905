#!/usr/bin/env bash
# 15-build-matrix.sh - CI stage: every target (library, server, CLI, tests, benchmarks) builds with
# -Werror in the standard CMake build types the other stages do not use, with both compilers.
#
#   gcc   RelWithDebInfo   the release stage of test.sh (and, with ASan + UBSan, its sanitizer stage)
#   clang RelWithDebInfo   20-analysis (and, with TSan, 10-tsan)
#   gcc   Release, Debug   here
#   clang Release, Debug   here
# Release (-O3) and Debug (-O0) matter because each optimisation level finds different warnings
# (-Wmaybe-uninitialized at -O3, for one). Builds only: the tests run in the other stages. Each build
# is one folder under build/matrix/, so a second run is incremental. nqueens-mpi is among the targets
# when an MPI is installed (scripts/deps.sh --test installs Open MPI).
#   NQ_BUILD_ROOT  parent of the build folders (default: build)
#   NQ_JOBS        parallel jobs (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(realpath -m "${NQ_BUILD_ROOT:-build}/matrix")
jobs=${NQ_JOBS:-$(nproc)}
mpi=OFF
command -v mpicc >/dev/null && mpi=ON || echo "15-build-matrix: no MPI installed: src/mpi left out (scripts/deps.sh --mpi)"

for combo in gcc:Release gcc:Debug clang:Release clang:Debug; do
  cc=${combo%%:*} type=${combo#*:}
  dir=$root/$cc-$type
  t0=$SECONDS
  cmake -S . -B "$dir" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE="$type" -DNQ_WERROR=ON \
    -DBUILD_TESTING=ON -DNQ_BENCH=ON -DNQ_SANITIZE= -DNQ_MPI="$mpi" >/dev/null
  if ! cmake --build "$dir" -j "$jobs" >"$dir/build.log" 2>&1; then
    grep -E 'error|warning' "$dir/build.log" >&2 || tail -40 "$dir/build.log" >&2
    echo "15-build-matrix: $cc $type failed (full log: $dir/build.log)" >&2
    exit 1
  fi
  echo "15-build-matrix: $cc $type: every target built, no warning ($((SECONDS - t0)) s)"
done
