#!/usr/bin/env bash
# check_layers.sh - the server's layers stay layers, and no two modules include each other.
#   scripts/check_layers.sh       exit 0 when every include in src/server/<layer>/ goes to the same
#                                 layer or one it may use, no module (x.c with its x.h) depends on
#                                 itself through others (a cycle between files, within a folder or
#                                 across), <microhttpd.h> appears only under http/, <sqlite3.h> only
#                                 in store/sqlite.c, <libpq-fe.h> only in store/postgres.c, and the
#                                 solver library (include/nqueens, src/solver, src/json) includes
#                                 nothing of the tools built on it; else list every offending line
#                                 or cycle and exit 1.
# The allowed uses mirror the DEPS of each layer in src/server/CMakeLists.txt, outermost first:
#   http -> routes -> counts -> core -> {cache, compute, store} -> base, and ops beside core.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

declare -A uses=(
  [http]="routes counts core ops compute store cache base"
  [routes]="counts core store cache base"
  [counts]="core store cache base"
  [core]="cache base"
  [ops]="cache base"
  [compute]="base"
  [store]="base"
  [cache]="base"
  [base]=""
)
bad=0

# The includes of one file, as "line:target" for every #include "...".
includes() { grep -n '^#include "' "$1" | sed -E 's/^([0-9]+):#include "([^"]+)".*/\1:\2/' || true; }

# ---- layers -------------------------------------------------------------------------------------
cd "$root/src/server"
for layer in "${!uses[@]}"; do
  [[ -d $layer ]] || { echo "check_layers: no folder src/server/$layer" >&2; exit 1; }
  for f in "$layer"/*.[ch]; do
    [[ -e $f ]] || continue
    while IFS=: read -r line inc; do
      [[ -n $inc && $inc == */* ]] || continue
      target=${inc%%/*}
      [[ $target == "$layer" || $target == nqueens ]] && continue
      if [[ " ${uses[$layer]} " != *" $target "* ]]; then
        echo "src/server/$f:$line: $layer/ may not include \"$inc\" (it may use: ${uses[$layer]:-nothing})"
        bad=1
      fi
    done < <(includes "$f")
    if [[ $layer != http ]] && grep -q '^#include <microhttpd.h>' "$f"; then
      echo "src/server/$f: <microhttpd.h> outside http/"
      bad=1
    fi
    if [[ $f != store/sqlite.c ]] && grep -q '^#include <sqlite3.h>' "$f"; then
      echo "src/server/$f: <sqlite3.h> outside store/sqlite.c, the SQLite backend"
      bad=1
    fi
    if [[ $f != store/postgres.c ]] && grep -q '^#include <libpq-fe.h>' "$f"; then
      echo "src/server/$f: <libpq-fe.h> outside store/postgres.c, the PostgreSQL backend"
      bad=1
    fi
  done
done

# ---- the library stands alone ------------------------------------------------------------------
cd "$root"
for f in include/nqueens/*.h src/solver/*.[ch] src/json/*.[ch]; do
  while IFS=: read -r line inc; do
    [[ -n $inc ]] || continue
    case $inc in
      nqueens/*) ;;
      */*) echo "$f:$line: the library may include only its own headers, not \"$inc\""; bad=1 ;;
    esac
  done < <(includes "$f")
done

# ---- cycles between modules --------------------------------------------------------------------
# A module is a file's path without its extension (core/app for core/app.c and core/app.h); an edge
# goes from a module to each module whose header one of its files includes.
cd "$root/src/server"
declare -A edges=() state=()
for f in */*.[ch] main.c; do
  from=${f%.*}
  while IFS=: read -r _ inc; do
    [[ -n $inc && $inc == */* && ${inc%%/*} != nqueens ]] || continue
    to=${inc%.h}
    [[ $to != "$from" ]] && edges[$from]+=" $to"
  done < <(includes "$f")
done
stack=()
visit() { # DFS: 1 = on the stack, 2 = done
  local node=$1 next
  state[$node]=1
  stack+=("$node")
  for next in ${edges[$node]:-}; do
    if [[ ${state[$next]:-0} == 1 ]]; then
      local cycle="" i started=0
      for i in "${stack[@]}"; do
        [[ $i == "$next" ]] && started=1
        ((started)) && cycle+="$i -> "
      done
      echo "include cycle: ${cycle}$next"
      bad=1
    elif [[ ${state[$next]:-0} == 0 ]]; then
      visit "$next"
    fi
  done
  unset 'stack[${#stack[@]}-1]'
  state[$node]=2
}
for node in "${!edges[@]}"; do [[ ${state[$node]:-0} == 0 ]] && visit "$node"; done

exit $bad
