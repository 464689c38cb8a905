#!/usr/bin/env bash
# 20-analysis.sh - CI stage: clang -Werror build of every target, then clang-tidy and cppcheck over
# the compile database. Any warning or finding fails the stage.
#
# The gcc -Werror build of every target is test.sh's release stage; this one is its clang twin, so
# both compilers see the nq_warnings set on all code. The checks clang-tidy runs, and why some are
# off, are in .clang-tidy; cppcheck's suppressions are in scripts/test.d/cppcheck.supp, each with its
# reason. nqueens-mpi (src/mpi) is in the build when an MPI is installed (scripts/deps.sh --test
# installs Open MPI), so the analyzers see it too.
#   NQ_BUILD_ROOT  parent of the build directory (default: build)
#   NQ_JOBS        parallel jobs (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
dir=$(realpath -m "${NQ_BUILD_ROOT:-build}/clang")
jobs=${NQ_JOBS:-$(nproc)}

mpi=OFF
command -v mpicc >/dev/null && mpi=ON || echo "-- no MPI installed: src/mpi left out (scripts/deps.sh --mpi)"
echo "-- clang build with the warning set (-Werror)"
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DNQ_WERROR=ON \
  -DNQ_BENCH=ON -DBUILD_TESTING=ON -DNQ_MPI="$mpi" >/dev/null
cmake --build "$dir" -j "$jobs"

# Only the project's own sources: never anything CMake generated inside the build tree. The root is
# escaped: a path with "+" or "(" would otherwise match nothing, and run-clang-tidy would pass.
root_re=$(printf '%s' "$root" | sed 's/[][\\.*^$+?(){}|]/\\&/g')
files="^$root_re/(src|tests|bench|fuzz)/.*\\.c\$"

echo "-- clang-tidy $(clang-tidy --version | sed -n 's/.*LLVM version //p') (checks: .clang-tidy)"
run-clang-tidy -p "$dir" -j "$jobs" -quiet "$files" >"$dir/clang-tidy.log" 2>&1 || {
  grep -v -E '^clang-tidy-[0-9]+ |warnings? generated\.$' "$dir/clang-tidy.log" | sed 's/\x1b\[[0-9;]*m//g'
  echo "clang-tidy: findings above (full log: $dir/clang-tidy.log)" >&2
  exit 1
}
checked=$(grep -c -E '^clang-tidy(-[0-9]+)? ' "$dir/clang-tidy.log" || true) # one line per file run
(( checked > 100 )) || { echo "clang-tidy: only $checked files checked: the file pattern matched none" >&2; exit 1; }
echo "clang-tidy: clean ($checked files of $(grep -c '"file"' "$dir/compile_commands.json") translation units in the database)"

echo "-- $(cppcheck --version)"
mkdir -p "$dir/cppcheck"
# The database holds only project sources; -i keeps out anything CMake might generate in the build tree.
cppcheck --project="$dir/compile_commands.json" -i "$dir" \
  --enable=warning,performance,portability --std=c11 --library=posix \
  --inline-suppr --suppressions-list=scripts/test.d/cppcheck.supp \
  --cppcheck-build-dir="$dir/cppcheck" -j "$jobs" --quiet --error-exitcode=1 \
  --template='{file}:{line}:{column}: {severity}: {message} [{id}]'
echo "cppcheck: clean"
