#!/usr/bin/env bash
# test_cli.sh - runs the nqueens binary and checks its exact output and exit status.
#   test_cli.sh PATH/TO/nqueens
set -uo pipefail
bin=${1:?usage: test_cli.sh PATH/TO/nqueens}
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect STATUS STDOUT ARGS...: stdout must equal STDOUT exactly ('*' = anything), status STATUS.
expect() {
  local want_status=$1 want_out=$2; shift 2
  local out status
  out=$("$bin" "$@" 2>"$tmp/err")
  status=$?
  if [[ $status -ne $want_status || ( "$want_out" != '*' && "$out" != "$want_out" ) ]]; then
    printf 'FAIL: nqueens %s\n  status %s (want %s)\n  stdout %s\n  want   %s\n  stderr %s\n' \
      "$*" "$status" "$want_status" "$out" "$want_out" "$(cat "$tmp/err")"
    failures=$((failures + 1))
  fi
}

# expect_err STATUS PATTERN ARGS...: stderr must contain PATTERN, stdout be empty.
expect_err() {
  local want_status=$1 pattern=$2; shift 2
  local out err status
  out=$("$bin" "$@" 2>"$tmp/err")
  status=$?
  err=$(cat "$tmp/err")
  if [[ $status -ne $want_status || -n "$out" || "$err" != *"$pattern"* ]]; then
    printf 'FAIL: nqueens %s\n  status %s (want %s)\n  stderr %s\n  want   *%s*\n' \
      "$*" "$status" "$want_status" "$err" "$pattern"
    failures=$((failures + 1))
  fi
}

# --- counts (OEIS A000170 / A002562)
expect 0 '{"n":1,"total":1,"unique":1}' count 1
expect 0 '{"n":2,"total":0,"unique":0}' count 2
expect 0 '{"n":8,"total":92,"unique":12}' count 8
expect 0 '{"n":8,"total":92,"unique":12}' count 8 --threads 1
expect 0 '{"n":12,"total":14200,"unique":1787}' --threads=2 count 12
expect 0 '{"n":14,"total":365596,"unique":45752}' count 14 --threads 0

# --- solve: documents, formats, unique, limit/next, offset, after
expect 0 '{"n":4,"solutions":[[".Q..","...Q","Q...","..Q."],["..Q.","Q...","...Q",".Q.."]],"next":null}' solve 4
expect 0 '{"n":4,"solutions":[[1,3,0,2],[2,0,3,1]],"next":null}' solve 4 --format columns
expect 0 $'[1,3,0,2]\n[2,0,3,1]' solve 4 --format=columns --ndjson
expect 0 $'[".Q..","...Q","Q...","..Q."]\n["..Q.","Q...","...Q",".Q.."]' solve 4 --ndjson
expect 0 '{"n":1,"solutions":[["Q"]],"next":null}' solve 1
expect 0 '{"n":3,"solutions":[],"next":null}' solve 3
expect 0 '{"n":4,"solutions":[[".Q..","...Q","Q...","..Q."]],"next":null}' solve 4 --unique
expect 0 '{"n":8,"solutions":[[0,4,7,5,2,6,1,3],[0,5,7,2,6,3,1,4]],"next":"0,5,7,2,6,3,1,4"}' solve 8 --limit 2 --format columns
expect 0 '{"n":8,"solutions":[[0,6,3,5,7,1,4,2]],"next":"0,6,3,5,7,1,4,2"}' solve 8 --after 0,5,7,2,6,3,1,4 --limit 1 --format columns
expect 0 '{"n":8,"solutions":[[7,3,0,2,5,1,6,4]],"next":null}' solve 8 --offset 91 --format columns
expect 0 '{"n":8,"solutions":[[7,3,0,2,5,1,6,4]],"next":null}' solve 8 --after 7,2,4,1,0,0,0,0 --limit 1 --format columns
expect 0 '{"n":8,"solutions":[],"next":null}' solve 8 --after 7,3,0,2,5,1,6,4
expect 0 '{"n":8,"solutions":[[2,5,1,4,7,0,6,3]],"next":null}' solve 8 --unique --offset 11 --format columns
expect 0 '{"n":4,"solutions":[[2,0,3,1]],"next":null}' solve 4 --limit 1 --after 1,3,0,2 --format columns
expect 0 '{"n":4,"solutions":[[1,3,0,2]],"next":"1,3,0,2"}' solve 4 --limit 1 --format columns
n14=$("$bin" solve 14 --ndjson --format columns | wc -l)
[[ $n14 -eq 365596 ]] || { echo "FAIL: solve 14 gave $n14 lines"; failures=$((failures + 1)); }
n8u=$("$bin" solve 8 --unique --ndjson | wc -l)
[[ $n8u -eq 12 ]] || { echo "FAIL: solve 8 --unique gave $n8u lines"; failures=$((failures + 1)); }

# --- complete, trace, k queens
expect 0 '{"n":8,"solution":[0,4,7,5,2,6,1,3],"hint":[1,4],"completions":4}' complete 8 0,-,-,-,-,-,-,- --count
expect 0 '{"n":8,"solution":[0,4,7,5,2,6,1,3],"hint":[2,7],"completions":1}' complete 8 --queens 1:4,0:0 --count
expect 0 '{"n":4,"solution":[1,3,0,2],"hint":[2,0]}' complete 4 --queens=0:1,1:3
expect 0 '{"n":8,"solution":null,"hint":null}' complete 8 --queens 3:0,3:7
expect 0 '{"n":8,"solution":null,"hint":null,"completions":0}' complete 8 --queens 2:3,5:6 --count
expect 0 $'{"step":29,"op":"place","row":3,"col":2}\n{"step":30,"op":"solution","columns":[1,3,0,2]}\n{"step":31,"op":"remove","row":3,"col":2}' trace 4 --from 29 --limit 3
expect 0 '{"step":77,"op":"remove","row":0,"col":3}' trace 4 --from 77
expect 0 '' trace 4 --from 78
t8=$("$bin" trace 8 | wc -l)
[[ $t8 -eq 17868 ]] || { echo "FAIL: trace 8 gave $t8 lines"; failures=$((failures + 1)); }
expect 0 '{"n":8,"k":4,"total":34568,"unique":4338}' count 8 --queens 4
expect 0 '{"n":8,"total":92,"unique":12}' count 8 --queens 8
expect 0 '{"n":5,"k":0,"total":1,"unique":1}' count 5 --queens=0
expect_err 2 'does not parse' complete 8 0,1
expect_err 2 'needs the board once' complete 8
expect_err 2 'needs the board once' complete 8 0,-,-,-,-,-,-,- --queens 0:0
expect_err 2 '--count counts boards up to' complete 30 --queens 0:0 --count
expect_err 2 '--queens must be' count 8 --queens 9
expect_err 2 'unexpected argument' trace 4 0,1
expect_err 2 '--queens does not apply to solve' solve 4 --queens 2
expect_err 2 '--from must be' trace 4 --from -1

# --- help
expect 0 '*' --help
expect 0 '*' solve 8 -h
"$bin" --help | grep -q '^Usage: nqueens count N' || { echo "FAIL: --help text"; failures=$((failures + 1)); }

# --- usage errors: exit 2, a reason on stderr, nothing on stdout
expect_err 2 "missing command"
expect_err 2 "unknown command 'frobnicate'" frobnicate 8
expect_err 2 "count needs a board size" count
expect_err 2 "N must be a whole number from 1 to 27, not '28'" count 28
expect_err 2 "N must be a whole number from 1 to 32, not '33'" solve 33
expect_err 2 "not '0'" solve 0
expect_err 2 "unknown option '-4'" solve -4
expect_err 2 "not '+4'" solve +4
expect_err 2 "not ' 4'" solve ' 4'
expect_err 2 "not '4x'" solve 4x
expect_err 2 "not '99999999999999999999999'" solve 99999999999999999999999
expect_err 2 "unexpected argument '9'" solve 8 9
expect_err 2 "unknown option '--bogus'" solve 8 --bogus
expect_err 2 "unknown option '-x'" solve 8 -x
expect_err 2 "--format must be 'board' or 'columns', not 'json'" solve 8 --format json
expect_err 2 "--format needs a value" solve 8 --format
expect_err 2 "--unique takes no value" solve 8 --unique=yes
expect_err 2 "--limit given twice" solve 8 --limit 1 --limit 2
expect_err 2 "--limit must be a whole number >= 1, not '0'" solve 8 --limit 0
expect_err 2 "--limit must be a whole number >= 1, not '-1'" solve 8 --limit -1
expect_err 2 "--offset must be a whole number >= 0, not 'x'" solve 8 --offset x
expect_err 2 "--after and --offset exclude each other" solve 4 --offset 1 --after 1,3,0,2
expect_err 2 "--after must be 4 columns 0..3" solve 4 --after 1,3,0
expect_err 2 "--after must be 4 columns 0..3" solve 4 --after 1,3,0,4
expect_err 2 "--after must be 4 columns 0..3" solve 4 --after '1, 3,0,2'
expect_err 2 "--unique does not apply to count" count 8 --unique
expect_err 2 "--threads does not apply to solve" solve 8 --threads 2
expect_err 2 "--threads must be a whole number from 0 (one per CPU) to 1024, not '-1'" count 8 --threads -1

# --- Ctrl-C cancels a long count: exit 130, "interrupted", no JSON
"$bin" count 18 >"$tmp/out" 2>"$tmp/err" &
pid=$!
sleep 0.5
kill -INT "$pid"
wait "$pid"
status=$?
if [[ $status -ne 130 || -s "$tmp/out" ]] || ! grep -q interrupted "$tmp/err"; then
  echo "FAIL: SIGINT during count 18: status $status, stdout '$(cat "$tmp/out")'"
  failures=$((failures + 1))
fi

if (( failures > 0 )); then
  echo "$failures CLI check(s) failed"
  exit 1
fi
echo "all CLI checks passed"
