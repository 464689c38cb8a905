#!/usr/bin/env bash
# serve.sh - install what is needed, build nqueensd (and the nqueens CLI) in release mode and run it in
# the foreground.
#   scripts/serve.sh [nqueensd options...]      e.g. scripts/serve.sh --port 8080
# It builds in build/serve, a folder of its own (no tests, no benchmarks), so that scripts/test.sh,
# which builds in build/release with every test, never reuses this configuration. The script ends by
# exec'ing nqueensd: its exit status and its signals (SIGTERM drains it) are the server's.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
dir=build/serve
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF -DNQ_BENCH=OFF >/dev/null
cmake --build "$dir" -j "$(nproc)" --target nqueensd nqueens-cli >&2
exec "$dir/src/server/nqueensd" "$@"
