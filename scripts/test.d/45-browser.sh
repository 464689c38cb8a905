#!/usr/bin/env bash
# 45-browser.sh - CI stage: the web page in a real browser. Installs Debian's Chromium
# (scripts/deps.sh --browser) and the pinned puppeteer-core and axe-core (npm ci in tests/browser,
# PUPPETEER_SKIP_DOWNLOAD=1: nothing downloads a browser), builds nqueensd, and runs
# tests/browser/test/ with node's test runner: the tests start the real nqueensd on port 0 and drive
# the page headless as a person would (each file in tests/browser/test/ says what it checks),
# writing screenshots of each view at every viewport of docs/page.md's matrix to $NQ_BUILD_ROOT/release/browser/.
#
#   NQ_BUILD_ROOT            parent of the build directory (default: build); the release build is reused
#   NQ_UPDATE_SCREENSHOT=1   also copy the 1280x800 screenshot to docs/page.png (the README's picture)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(realpath -m "${NQ_BUILD_ROOT:-build}/release")
jobs=${NQ_JOBS:-$(nproc)}

scripts/deps.sh --browser
command -v npm >/dev/null || { echo "45-browser: npm not found (Node.js 20.19+ with npm is needed)" >&2; exit 1; }
[[ -x /usr/bin/chromium ]] || { echo "45-browser: /usr/bin/chromium not found" >&2; exit 1; }

echo "-- npm ci (tests/browser: puppeteer-core, axe-core as locked)"
(cd tests/browser && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error)

echo "-- build nqueensd"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON >/dev/null
cmake --build "$build" -j "$jobs" --target nqueensd

echo "-- the page in Chromium ($(/usr/bin/chromium --version 2>/dev/null | head -1))"
# One file at a time: the tests share one browser and two servers, and the machine has two cores.
NQ_BUILD_DIR="$build" node --test --test-concurrency=1 --test-reporter=spec tests/browser/test/
echo "45-browser: screenshots in $build/browser/"
