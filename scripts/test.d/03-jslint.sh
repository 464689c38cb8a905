#!/usr/bin/env bash
# 03-jslint.sh - CI stage: ESLint over every JavaScript file of the repository: the web page's modules
# (web/assets, browser ES modules) and the Node.js tests (tests/contract, tests/browser). ESLint,
# @eslint/js and globals are pinned in tools/lint/package-lock.json (npm ci; Node.js 20.19 or later,
# scripts/deps.sh --node); the rules are in tools/lint/eslint.config.js: ESLint's recommended set, and
# each kind of file with the globals of where it runs. Any error or warning fails the stage.
# The files are those git knows or would add (tracked, or new and not ignored): no node_modules, no
# build folder.
set -euo pipefail
cd "$(dirname "$0")/../.."

command -v npm >/dev/null || { echo "03-jslint: npm not found (Node.js 20.19+ with npm is needed)" >&2; exit 1; }
echo "-- npm ci (tools/lint: eslint, @eslint/js, globals as locked)"
(cd tools/lint && npm ci --no-audit --no-fund --loglevel=error)

# A command substitution, so that a failing git stops the stage instead of leaving it nothing to check.
list=$(git ls-files --cached --others --exclude-standard -- '*.js' '*.mjs' '*.cjs')
files=()
while IFS= read -r f; do
  [[ -f $f ]] && files+=("$f") # not one deleted in the work tree, not yet in the index
done <<<"$list"
(( ${#files[@]} > 5 )) || { echo "03-jslint: only ${#files[@]} files listed: not the project's tree" >&2; exit 1; }

# --config from the root: the patterns in eslint.config.js are relative to the root.
tools/lint/node_modules/.bin/eslint --config tools/lint/eslint.config.js --max-warnings 0 -- "${files[@]}"
echo "03-jslint: ${#files[@]} files clean (ESLint $(tools/lint/node_modules/.bin/eslint --version | sed 's/^v//'))"
