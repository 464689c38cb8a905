#!/usr/bin/env bash
# check_layers.sh - the server's layers stay layers.
#   scripts/check_layers.sh       exit 0 when every include in src/server/<layer>/ goes to the same
#                                 layer or one it may use, there is no include cycle between
#                                 folders, and <microhttpd.h> appears only under http/; else list
#                                 every offending line and exit 1.
# The allowed uses mirror the DEPS of each layer in src/server/CMakeLists.txt (outermost first).
set -euo pipefail
cd "$(dirname "$0")/../src/server"

declare -A uses=(
  [http]="app ops compute cache base"
  [app]="cache base"
  [ops]="cache base"
  [compute]="base"
  [cache]="base"
  [base]=""
)
declare -A edges=()
bad=0

for layer in "${!uses[@]}"; do
  [[ -d $layer ]] || { echo "check_layers: no folder src/server/$layer" >&2; exit 1; }
  for f in "$layer"/*.[ch]; do
    [[ -e $f ]] || continue
    while IFS=: read -r line inc; do
      target=${inc%%/*}
      [[ $inc == */* ]] || continue              # same folder, or a system header
      [[ $target == "$layer" || $target == nqueens ]] && continue
      edges["$layer $target"]=1
      if [[ " ${uses[$layer]} " != *" $target "* ]]; then
        echo "src/server/$f:$line: $layer/ may not include \"$inc\" (it may use: ${uses[$layer]:-nothing})"
        bad=1
      fi
    done < <(grep -n '^#include "' "$f" | sed -E 's/^([0-9]+):#include "([^"]+)".*/\1:\2/')
    if [[ $layer != http ]] && grep -n '^#include <microhttpd.h>' "$f" >/dev/null; then
      echo "src/server/$f: <microhttpd.h> outside http/"
      bad=1
    fi
  done
done

# Cycles between folders, from the includes actually found (independent of the table above).
declare -A state=()
visit() { # DFS: 1 = on the stack, 2 = done
  local node=$1 e
  state[$node]=1
  for e in "${!edges[@]}"; do
    [[ ${e%% *} == "$node" ]] || continue
    local next=${e##* }
    if [[ ${state[$next]:-0} == 1 ]]; then
      echo "include cycle between folders: $node/ -> $next/ -> ... -> $node/"
      bad=1
    elif [[ ${state[$next]:-0} == 0 ]]; then
      visit "$next"
    fi
  done
  state[$node]=2
}
for layer in "${!uses[@]}"; do [[ ${state[$layer]:-0} == 0 ]] && visit "$layer"; done

exit $bad
