#!/usr/bin/env bash
# deps.sh - install the Debian 12 packages nqueens needs. Idempotent: does nothing when all are present.
#   scripts/deps.sh          build + run dependencies (what scripts/serve.sh needs)
#   scripts/deps.sh --test   also everything the full test suite needs (scripts/test.sh)
#   scripts/deps.sh --bench  also the HTTP benchmark's tools (bench/http/run.sh)
#   scripts/deps.sh --browser  also the browser tests' Chromium (scripts/test.d/45-browser.sh)
#   scripts/deps.sh --mpi    also Open MPI, for nqueens-mpi (-DNQ_MPI=ON; --test includes it)
#   scripts/deps.sh --node   also check for the Node.js the JavaScript lint, contract and browser tests need
set -euo pipefail

case "${1:-}" in
  "" | --test | --bench | --browser | --mpi | --node) ;;
  -h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
  *) echo "usage: scripts/deps.sh [--test | --bench | --browser | --mpi | --node]" >&2; exit 2 ;;
esac
(( $# <= 1 )) || { echo "usage: scripts/deps.sh [--test | --bench | --browser | --mpi | --node]" >&2; exit 2; }

build_pkgs=(build-essential cmake pkg-config libmicrohttpd-dev libcjson-dev zlib1g-dev libsqlite3-dev libpq-dev
            libcurl4-openssl-dev curl)
test_pkgs=(check libsubunit-dev clang llvm libclang-rt-14-dev libfuzzer-14-dev clang-tidy clang-format cppcheck
           shellcheck prometheus nodejs curl python3-yaml postgresql groff-base)
bench_pkgs=(wrk nginx curl)
# Debian's own Chromium (puppeteer-core drives it; nothing downloads a browser) and a font with the
# glyphs the page uses, so screenshots look the same on every machine.
browser_pkgs=(chromium fonts-dejavu-core)
mpi_pkgs=(libopenmpi-dev openmpi-bin)

want=("${build_pkgs[@]}")
[[ "${1:-}" == "--test" ]] && want+=("${test_pkgs[@]}" "${mpi_pkgs[@]}")
[[ "${1:-}" == "--mpi" ]] && want+=("${mpi_pkgs[@]}")
[[ "${1:-}" == "--bench" ]] && want+=("${bench_pkgs[@]}")
[[ "${1:-}" == "--browser" ]] && want+=("${test_pkgs[@]}" "${browser_pkgs[@]}")

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  sudo=()
  [[ $(id -u) -ne 0 ]] && sudo=(sudo)
  echo "deps.sh: installing ${missing[*]}" >&2
  "${sudo[@]}" apt-get update -qq
  # env, not an assignment before the command: sudo would drop it from the environment
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# The JavaScript lint, contract and browser stages run npm packages (pinned by their lock files) that
# need Node.js 20.19 or newer and its npm; Debian 12's own nodejs is 18. Say so now, not after the C stages.
if [[ "${1:-}" == "--node" || "${1:-}" == "--browser" ]]; then
  if ! command -v npm >/dev/null ||
    ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)'; then
    echo "deps.sh: the test suite needs Node.js >= 20.19 with npm (found: node $(node -v 2>/dev/null || echo none)," \
      "npm $(npm -v 2>/dev/null || echo none)); install Node.js 20 LTS or newer, e.g. from nodejs.org" >&2
    exit 1
  fi
fi
