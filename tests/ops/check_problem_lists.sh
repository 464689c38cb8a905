#!/bin/sh
# check_problem_lists.sh DOC OPENAPI PRINTER - the problem types the documents list must be exactly
# those of the error table (include/nqueens/error.h), with the same statuses. PRINTER prints the table
# as "slug status" lines (print_problems.c). Checked:
#   - the table itself: no slug with two statuses (a type has one status);
#   - openapi.yaml, schema ProblemSlug: its description's table (| `slug` | status | ... |) and its enum;
#   - openapi.yaml, schema Problem: the enum of `status` is the set of the table's statuses;
#   - DOC (docs/http.md): the rows between <!-- BEGIN problem types --> and <!-- END problem types -->, each
#     | status | `slug`, `slug` ... | when |.
set -eu
doc=$1
openapi=$2
printer=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

"$printer" | sort -u > "$tmp/table"
[ -s "$tmp/table" ] || { echo "check_problem_lists: $printer printed nothing" >&2; exit 1; }
cut -d' ' -f1 "$tmp/table" | sort -u > "$tmp/slugs"
cut -d' ' -f2 "$tmp/table" | sort -un > "$tmp/statuses"
if [ "$(wc -l < "$tmp/slugs")" -ne "$(wc -l < "$tmp/table")" ]; then
  echo "error.h: a problem slug maps to two HTTP statuses:" >&2
  cut -d' ' -f1 "$tmp/table" | uniq -d | while read -r s; do grep "^$s " "$tmp/table" >&2; done
  fail=1
fi

# compare WHAT EXPECTED ACTUAL: a diff of the two sorted lists, or nothing.
compare() {
  if ! diff -u "$2" "$3" > "$tmp/diff"; then
    echo "$1 differs from the error table (include/nqueens/error.h): - missing there, + not in the table" >&2
    sed '1,2d' "$tmp/diff" >&2
    fail=1
  fi
}

# openapi.yaml: from "    ProblemSlug:" to the next schema at the same indentation.
awk '/^    ProblemSlug:/ {on = 1; next} on && /^    [A-Za-z]/ {on = 0} on' "$openapi" > "$tmp/slug_schema"
sed -n 's/^ *| `\([a-z-]*\)` | \([0-9][0-9][0-9]\) |.*/\1 \2/p' "$tmp/slug_schema" | sort -u > "$tmp/openapi_rows"
compare "openapi.yaml's ProblemSlug table" "$tmp/table" "$tmp/openapi_rows"
awk '/^      enum:/ {on = 1; next} on && /^        - / {print $2; next} on {on = 0}' "$tmp/slug_schema" \
  | sort -u > "$tmp/openapi_enum"
compare "openapi.yaml's ProblemSlug enum" "$tmp/slugs" "$tmp/openapi_enum"
awk '/^    Problem:/ {on = 1; next} on && /^    [A-Za-z]/ {on = 0} on' "$openapi" \
  | sed -n 's/^ *status: {type: integer, enum: \[\([0-9, ]*\)\].*/\1/p' | tr -d ' ' | tr ',' '\n' \
  | sed '/^$/d' | sort -un > "$tmp/openapi_statuses"
compare "openapi.yaml's Problem.status enum" "$tmp/statuses" "$tmp/openapi_statuses"

sed -n '/^<!-- BEGIN problem types -->$/,/^<!-- END problem types -->$/p' "$doc" \
  | awk -F'|' '$2 ~ /^ *[0-9][0-9][0-9] *$/ {
        status = $2; gsub(/ /, "", status); cell = $3
        while (match(cell, /`[a-z-]+`/)) { print substr(cell, RSTART + 1, RLENGTH - 2), status; cell = substr(cell, RSTART + RLENGTH) }
      }' | sort -u > "$tmp/doc_rows"
[ -s "$tmp/doc_rows" ] || echo "$doc: no problem types between <!-- BEGIN problem types --> and <!-- END problem types -->" >&2
compare "$doc's problem types table" "$tmp/table" "$tmp/doc_rows"

[ "$fail" -eq 0 ] && echo "problem types: the error table, openapi.yaml and $doc agree ($(wc -l < "$tmp/table") types)"
exit "$fail"
