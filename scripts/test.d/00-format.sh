#!/usr/bin/env bash
# 00-format.sh - CI stage: every C source and header (src, include, tests, bench, fuzz) is formatted as
# .clang-format says. Fails listing the files that are not, with clang-format's first complaints.
# Fix with: clang-format -i FILE (or, for the whole tree, the same command over the list below).
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v clang-format >/dev/null || { echo "00-format: clang-format not found (Debian: clang-format)" >&2; exit 1; }
# A command substitution, so that a failing git (no repository, one owned by another user) stops the
# stage instead of leaving it nothing to check.
list=$(git ls-files -- 'src/*.[ch]' 'include/*.[ch]' 'tests/*.[ch]' 'bench/*.[ch]' 'fuzz/*.[ch]')
mapfile -t files <<<"$list"
(( ${#files[@]} > 100 )) || { echo "00-format: only ${#files[@]} files listed: not the project's tree" >&2; exit 1; }
# One clang-format for the whole list (a second or two); only when it fails, one per file to name them.
bad=()
if ! clang-format --dry-run --Werror "${files[@]}" >/dev/null 2>&1; then
  for f in "${files[@]}"; do
    clang-format --dry-run --Werror "$f" 2>/dev/null || bad+=("$f")
  done
fi
if (( ${#bad[@]} > 0 )); then
  clang-format --dry-run --Werror "${bad[0]}" 2>&1 | head -20 >&2 || true
  printf '00-format: not formatted per .clang-format: %s\n' "${bad[@]}" >&2
  echo "00-format: ${#bad[@]} of ${#files[@]} files need clang-format -i" >&2
  exit 1
fi
echo "00-format: ${#files[@]} files formatted per .clang-format ($(clang-format --version | sed 's/.*version //'))"
