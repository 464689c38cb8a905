#!/usr/bin/env bash
# serve.sh - install what is needed, build nqueensd in release mode and run it in the foreground.
#   scripts/serve.sh [nqueensd options...]      e.g. scripts/serve.sh --port 8080
# The store (finished counts, checkpoints of long ones) is nqueens.db at the project's root (the
# working directory below; ignored by git), unless --store (or NQUEENSD_STORE) says otherwise;
# --store none keeps nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=OFF -DNQ_BENCH=OFF >/dev/null
cmake --build build/release -j "$(nproc)" --target nqueensd nqueens-cli >&2
exec build/release/src/server/nqueensd "$@"
