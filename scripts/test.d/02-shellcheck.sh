#!/usr/bin/env bash
# 02-shellcheck.sh - CI stage: ShellCheck (Debian's shellcheck, scripts/deps.sh --test) over every
# shell script of the repository: each *.sh, and each file without that extension whose first line is
# a sh or bash shebang (.ci/run). Findings of severity "warning" and "error" fail the stage; "info" and
# "style" ones are not checked. A justified exception is a `# shellcheck disable=SCnnnn` line, with
# the reason, above the line it concerns.
# The files are those git knows or would add (tracked, or new and not ignored), so a script not yet
# committed is checked too, and nothing in build folders or node_modules is.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v shellcheck >/dev/null || { echo "02-shellcheck: shellcheck not found (Debian: shellcheck)" >&2; exit 1; }
# A command substitution, so that a failing git stops the stage instead of leaving it nothing to check.
list=$(git ls-files --cached --others --exclude-standard)
files=()
shebang='^#!.*[/ ](ba)?sh([[:space:]]|$)' # #!/bin/sh, #!/usr/bin/env bash, #!/bin/bash -e ...
while IFS= read -r f; do
  [[ -f $f ]] || continue # deleted in the work tree, not yet in the index
  if [[ $f == *.sh ]]; then
    files+=("$f")
  elif [[ ${f##*/} != *.* ]]; then # no extension: a script if its first line says so
    first=""
    IFS= read -r first <"$f" || true
    [[ $first =~ $shebang ]] && files+=("$f")
  fi
done <<<"$list"
(( ${#files[@]} > 10 )) || { echo "02-shellcheck: only ${#files[@]} scripts listed: not the project's tree" >&2; exit 1; }
shellcheck --severity=warning --external-sources -- "${files[@]}" || {
  echo "02-shellcheck: findings above (shellcheck $(shellcheck --version | sed -n 's/^version: //p'))" >&2
  exit 1
}
echo "02-shellcheck: ${#files[@]} scripts clean at severity warning (shellcheck $(shellcheck --version | sed -n 's/^version: //p'))"
