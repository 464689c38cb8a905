#!/usr/bin/env bash
# 17-install.sh - CI stage: the libraries as another project uses them. A Release build (no tests, no
# benchmarks; nqueens-mpi too when an MPI is installed) configured for /usr/local is installed with
# `cmake --install --prefix` into an empty temporary prefix, as a packager does. The installed tree must
# hold both libraries, every header of include/nqueens/ and the generated version.h, the binaries (not
# nq-rogue-worker or the man pages' generators), the man pages nqueens(1) and nqueensd(8), the CMake
# package and the pkg-config files, with the prefix of the install, not of
# the configuration; no file of the CMake package or pkg-config may name the project's warning set
# (nq_warnings) or a path of this checkout. Then the consumer in tests/consumer is built against it:
#   - with CMake: find_package(nqueens MAJOR.MINOR REQUIRED COMPONENTS json) from CMAKE_PREFIX_PATH,
#     linking nqueens::nqueens; asking for the next MAJOR must be refused;
#   - with pkg-config: cc main.c $(pkg-config --cflags --libs nqueens), and again with nqueens-json
#     (which must bring libnqueens and cJSON along);
# and each program must print exactly
#   n=8 total=92 unique=12
#   nq_version()=X.Y.Z NQ_VERSION_STRING=X.Y.Z
# with X.Y.Z the version of the top CMakeLists.txt's project() line; the installed `nqueens count 8`
# must print {"n":8,"total":92,"unique":12}. About a minute on 2 cores (the build of every target,
# nqueensd included: `cmake --install` installs them all).
#   NQ_BUILD_ROOT      parent of the build directory (default: build); this stage builds in <root>/install
#   NQ_JOBS            parallel jobs (default: nproc)
#   NQ_INSTALL_KEEP=1  keep the prefix and the consumer builds (their path is printed)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
build=$(realpath -m "${NQ_BUILD_ROOT:-build}/install")
jobs=${NQ_JOBS:-$(nproc)}
cc=${CC:-cc}

say() { printf '17-install: %s\n' "$*"; }
fail() { say "FAIL: $*" >&2; exit 1; }

work=$(mktemp -d)
cleanup() { if [[ -n ${NQ_INSTALL_KEEP:-} ]]; then say "kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
prefix=$work/prefix

version=$(sed -n 's/^project(nqueens VERSION \([^ )]*\).*/\1/p' CMakeLists.txt)
[[ $version =~ ^([0-9]+)\.([0-9]+)\.[0-9]+$ ]] || fail "no MAJOR.MINOR.PATCH in the project() line of CMakeLists.txt"
major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]}
expected="n=8 total=92 unique=12
nq_version()=$version NQ_VERSION_STRING=$version"

mpi=ON
if ! command -v mpicc >/dev/null; then
  mpi=OFF
  say "no MPI installed: nqueens-mpi left out (scripts/deps.sh --mpi)"
fi

# ---- build and install ---------------------------------------------------------------------------
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr/local -DBUILD_TESTING=OFF \
  -DNQ_BENCH=OFF -DNQ_FUZZ=OFF -DNQ_SANITIZE= -DNQ_MPI="$mpi" >/dev/null
cmake --build "$build" -j "$jobs"
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
say "installed into $prefix ($(grep -c '' "$build/install_manifest.txt") files)"

# ---- what the tree holds -------------------------------------------------------------------------
# GNUInstallDirs picks lib, lib64 or lib/<multiarch> by platform and prefix: find it by its archive.
lib=$(find "$prefix" -name libnqueens.a -printf '%h\n' | head -1)
[[ -n $lib ]] || fail "no libnqueens.a under $prefix"
want=("$lib/libnqueens.a" "$lib/libnqueens_json.a" "$prefix/include/nqueens/version.h" "$prefix/bin/nqueens" "$prefix/bin/nqueensd"
      "$lib/cmake/nqueens/nqueensConfig.cmake" "$lib/cmake/nqueens/nqueensConfigVersion.cmake"
      "$lib/cmake/nqueens/nqueensTargets.cmake" "$lib/cmake/nqueens/nqueensJsonTargets.cmake"
      "$lib/pkgconfig/nqueens.pc" "$lib/pkgconfig/nqueens-json.pc"
      "$prefix/share/man/man1/nqueens.1" "$prefix/share/man/man8/nqueensd.8")
for h in include/nqueens/*.h; do want+=("$prefix/$h"); done
[[ $mpi == ON ]] && want+=("$prefix/bin/nqueens-mpi")
for f in "${want[@]}"; do [[ -f $f ]] || fail "not installed: ${f#"$prefix"/}"; done
[[ ! -e $prefix/bin/nq-rogue-worker ]] || fail "nq-rogue-worker (a test program) was installed"
for tool in nqueens-man nqueensd-man; do [[ ! -e $prefix/bin/$tool ]] || fail "$tool (a build tool) was installed"; done
if leaks=$(grep -rlF -e nq_warnings -e "$root" -e "$build" "$lib/cmake/nqueens" "$lib/pkgconfig"); then
  fail "the package names nq_warnings or this checkout's paths: ${leaks//$'\n'/ }"
fi
say "the ${#want[@]} files wanted are there; the package names neither nq_warnings nor $root"
count=$("$prefix/bin/nqueens" count 8)
[[ $count == '{"n":8,"total":92,"unique":12}' ]] || fail "installed nqueens count 8 printed: $count"

# check_output NAME PROGRAM: runs it; its output must be exactly $expected.
check_output() {
  local out
  out=$("$2") || fail "$1: the consumer exited $? with: $out"
  [[ $out == "$expected" ]] || fail "$1: the consumer printed:
$out
expected:
$expected"
  say "$1: ok (${out//$'\n'/; })"
}

# ---- CMake: find_package(nqueens) ----------------------------------------------------------------
cmake -S tests/consumer -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DNQUEENS_VERSION="$major.$minor" \
  >"$work/cmake.log" 2>&1 || { cat "$work/cmake.log" >&2; fail "find_package(nqueens $major.$minor) failed"; }
found=$(sed -n 's/^nqueens_DIR:PATH=//p' "$work/cmake/CMakeCache.txt")
[[ $found == "$lib/cmake/nqueens" ]] || fail "find_package found nqueens in $found, not in $lib/cmake/nqueens"
cmake --build "$work/cmake" >"$work/cmake-build.log" 2>&1 || { cat "$work/cmake-build.log" >&2; fail "the CMake consumer did not build"; }
check_output "find_package(nqueens $major.$minor)" "$work/cmake/consumer"

# The next major is another API: the package's version file must refuse it.
if cmake -S tests/consumer -B "$work/cmake-next" -Dnqueens_DIR="$lib/cmake/nqueens" \
  -DNQUEENS_VERSION="$((major + 1)).0" >"$work/cmake-next.log" 2>&1; then
  fail "find_package(nqueens $((major + 1)).0) accepted version $version"
fi
grep -q "version: $version" "$work/cmake-next.log" || { cat "$work/cmake-next.log" >&2; fail "find_package(nqueens $((major + 1)).0) failed, but not on the version"; }
say "find_package(nqueens $((major + 1)).0): refused"

# ---- pkg-config ----------------------------------------------------------------------------------
export PKG_CONFIG_PATH=$lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
[[ $(pkg-config --modversion nqueens) == "$version" ]] || fail "pkg-config --modversion nqueens: $(pkg-config --modversion nqueens)"
[[ $(pkg-config --variable=prefix nqueens) == "$prefix" ]] || fail "nqueens.pc has prefix $(pkg-config --variable=prefix nqueens), not $prefix"
for pc in nqueens nqueens-json; do
  # shellcheck disable=SC2046 # pkg-config's output is a list of flags, split on purpose
  "$cc" -Wall -Wextra -Werror tests/consumer/main.c $(pkg-config --cflags --libs "$pc") -o "$work/main-$pc" \
    || fail "cc main.c \$(pkg-config --cflags --libs $pc) failed"
  check_output "pkg-config $pc ($(pkg-config --libs "$pc" | xargs))" "$work/main-$pc"
done
say "OK"
