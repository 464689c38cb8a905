#!/bin/sh
# check_count_record.sh RECORD CLI - bench/results/count-23.ndjson holds n = 23's shards as counted
# (docs/performance.md), each with its check value (docs/distributed.md: the values were added to the
# lines counted before check values existed, after they summed to the known counts). They must be
# shards of the plan this CLI counts with, each once, each with a check value that matches its bytes
# (no --accept-unchecked here): then `count 23 --sum` either adds all 128 up to A000170(23) and
# A002562(23), or refuses only because some are still to be counted. A plan that changes, a
# repeated, damaged, unchecked or foreign line fails here.
set -eu
record=$1
cli=$2
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
lines=$(wc -l < "$record")
[ "$lines" -ge 1 ] || { echo "$record: no shard" >&2; exit 1; }
if "$cli" count 23 --sum - < "$record" > "$out" 2> "$err"; then
  expected='{"n":23,"total":24233937684440,"unique":3029242658210}'
  [ "$(cat "$out")" = "$expected" ] || { echo "sum: $(cat "$out"), expected $expected" >&2; exit 1; }
  echo "all 128 shards: $(cat "$out")"
else
  rc=$?
  # The one refusal allowed: shards missing, and exactly as many given as the record has lines.
  if [ "$rc" -ne 2 ] || ! grep -qx "nqueens: $lines of 128 shards given; missing: .*" "$err"; then
    echo "sum refused the record (exit $rc):" >&2
    cat "$err" >&2
    exit 1
  fi
  echo "$lines of 128 shards, of this plan, each once"
fi
