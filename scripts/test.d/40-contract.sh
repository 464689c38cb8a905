#!/usr/bin/env bash
# 40-contract.sh - CI stage: the contract. Lint openapi.yaml (Redocly CLI, pinned in
# tests/contract/package-lock.json), run the integration tests with NQ_RESPONSES_DIR set so the HTTP
# test harness records every response it receives, then validate each recorded response against the
# bundled spec (tests/contract/validate.js: status, content type, headers, body schema), and run the
# validator's own tests, which feed it doctored responses and expect it to reject them.
#
#   NQ_BUILD_ROOT        parent of the build directory (default: build); the release build is reused
#   NQ_CONTRACT_LABELS   ctest label regex of the tests whose responses are checked (default: all
#                        but "slow", less the solver suites; unit tests record nothing, cost seconds)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
build=$(realpath -m "${NQ_BUILD_ROOT:-build}/release")
out=$(realpath -m "${NQ_BUILD_ROOT:-build}/contract")
jobs=${NQ_JOBS:-$(nproc)}
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true # no network beyond the npm registry

command -v npm >/dev/null || { echo "40-contract: npm not found (Node.js 20.19+ with npm is needed)" >&2; exit 1; }
echo "-- npm ci (tests/contract: @redocly/cli, ajv, ajv-formats as locked)"
(cd tests/contract && npm ci --no-audit --no-fund --loglevel=error)
rm -rf "$out" && mkdir -p "$out/responses"
# Redocly CLI, without the boxed Node.js deprecation banner it prints on Node 20.
redocly() {
  local rc=0
  (cd tests/contract && node_modules/.bin/redocly "$@") >"$out/redocly.log" 2>&1 || rc=$?
  grep -v '[║╔╚═]' "$out/redocly.log" | grep -v '^\s*$' || true
  return "$rc"
}

echo "-- lint openapi.yaml (rules: tests/contract/redocly.yaml)"
redocly lint "$root/openapi.yaml" --config redocly.yaml --format=stylish
redocly bundle "$root/openapi.yaml" --dereferenced --ext json -o "$out/openapi.bundled.json" >/dev/null

echo "-- integration tests, recording every response to $out/responses"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON >/dev/null
cmake --build "$build" -j "$jobs"
# The solver suites and corpus replays never talk HTTP: skip them (about a minute on 2 cores).
labels=(-LE slow -E '^(solver|fuzz_replay)_')
[[ -n "${NQ_CONTRACT_LABELS:-}" ]] && labels=(-L "$NQ_CONTRACT_LABELS")
NQ_RESPONSES_DIR="$out/responses" ctest --test-dir "$build" "${labels[@]}" -j "$jobs" --output-on-failure \
  --no-tests=error

echo "-- validate the recorded responses against the spec"
node tests/contract/validate.js "$out/openapi.bundled.json" "$out/responses"

echo "-- the validator's own tests (doctored responses must be rejected)"
NQ_BUNDLED_SPEC="$out/openapi.bundled.json" NQ_RESPONSES_DIR="$out/responses" \
  node --test --test-reporter=dot tests/contract/test/
