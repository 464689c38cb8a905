#!/bin/sh
# check_config_table.sh DOC PRINTER [ARGS...] - the configuration table of DOC (docs/operations.md) must be exactly
# what the option table in src/server/base/config.c prints (PRINTER ARGS prints it, as does
# nqueensd --help-markdown).
set -eu
doc=$1
shift
expected=$(mktemp)
actual=$(mktemp)
trap 'rm -f "$expected" "$actual"' EXIT
"$@" > "$expected"
sed -n '/^<!-- BEGIN nqueensd --help-markdown -->$/,/^<!-- END nqueensd --help-markdown -->$/p' "$doc" \
  | sed '1d;$d' > "$actual"
if ! diff -u "$expected" "$actual"; then
  echo "$doc's configuration table is stale: regenerate it with nqueensd --help-markdown" >&2
  exit 1
fi
