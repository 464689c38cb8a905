#!/usr/bin/env bash
# test_cli.sh - runs the nqueens binary and checks its exact output and exit status.
#   test_cli.sh PATH/TO/nqueens
set -uo pipefail
bin=${1:?usage: test_cli.sh PATH/TO/nqueens}
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/solver/cli_expect.sh
. "$(dirname "$0")/cli_expect.sh"

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

# --- solution: the construction, random boards from a seed, formats, boards without a solution
expect 0 '{"n":8,"method":"construct","seed":null,"solution":[1,3,5,7,2,0,6,4]}' solution 8
expect 0 '{"n":1,"method":"construct","seed":null,"solution":[0]}' solution 1
expect 0 '{"n":2,"method":"construct","seed":null,"solution":null}' solution 2
expect 0 '{"n":3,"method":"random","seed":9,"solution":null}' solution 3 --random --seed 9
expect 0 '{"n":4,"method":"construct","seed":null,"solution":[".Q..","...Q","Q...","..Q."]}' solution 4 --format board
expect 0 '{"n":9,"method":"construct","seed":null,"solution":[3,5,7,1,4,6,8,0,2]}' solution 9 --format=columns
expect 0 '{"n":8,"method":"random","seed":1,"solution":[5,2,4,6,0,3,1,7]}' solution 8 --random --seed 1
expect 0 '{"n":12,"method":"random","seed":42,"solution":[1,6,9,11,8,4,0,3,10,7,5,2]}' --seed=42 solution 12 --random
expect 0 '{"n":4,"method":"random","seed":9007199254740991,"solution":[2,0,3,1]}' solution 4 --random --seed 9007199254740991
# a chosen seed is printed, and replaying it gives the same board
first=$("$bin" solution 50 --random)
seed=$(sed 's/.*"seed":\([0-9]*\).*/\1/' <<<"$first")
[[ "$("$bin" solution 50 --random --seed "$seed")" == "$first" ]] || { echo "FAIL: seed $seed does not replay"; failures=$((failures + 1)); }
# a large board streams: one comma between rows (999,999) and three in the frame; the checker agrees
# it is a solution
big=$("$bin" solution 1000000 | tr -cd , | wc -c)
[[ $big -eq 1000002 ]] || { echo "FAIL: solution 1000000 has $big commas"; failures=$((failures + 1)); }
"$bin" solution 100000 --random --seed 3 | sed 's/.*"solution":\(.*\)}/{"n":100000,"columns":\1}/' >"$tmp/big.json"
expect 0 '{"n":100000,"queens":100000,"valid":true,"complete":true,"conflict_count":0,"conflicts":[]}' check - <"$tmp/big.json"

# --- check: exit 0 for a solution, 1 otherwise (report printed), 2 when the placement does not parse
expect 0 '{"n":4,"queens":4,"valid":true,"complete":true,"conflict_count":0,"conflicts":[]}' check 4 1,3,0,2
expect 1 '{"n":4,"queens":3,"valid":false,"complete":false,"conflict_count":1,"conflicts":[[[0,1],[2,3]]]}' check 4 1,-,3,0
expect 1 '{"n":4,"queens":3,"valid":false,"complete":false,"conflict_count":1,"conflicts":[[[0,1],[2,3]]]}' check 4 --queens 3:0,2:3,0:1
expect 1 '{"n":4,"queens":0,"valid":true,"complete":false,"conflict_count":0,"conflicts":[]}' check 4 -,-,-,-
expect 1 '{"n":4,"queens":0,"valid":true,"complete":false,"conflict_count":0,"conflicts":[]}' check 4 --queens ''
expect 1 '{"n":4,"queens":4,"valid":false,"complete":false,"conflict_count":6,"conflicts":[[[0,0],[1,1]],[[0,0],[2,2]]]}' check 4 --queens 3:3,2:2,1:1,0:0 --limit 2
expect 1 '{"n":3,"queens":3,"valid":false,"complete":false,"conflict_count":3,"conflicts":[]}' check 3 --queens=0:0,0:1,0:2 --limit 0
expect 0 '{"n":4,"queens":4,"valid":true,"complete":true,"conflict_count":0,"conflicts":[]}' check - <<<'{"n":4,"columns":[1,3,0,2]}'
expect 1 '{"n":4,"queens":2,"valid":false,"complete":false,"conflict_count":1,"conflicts":[[[0,1],[2,3]]]}' check - <<<' {"queens":[[2,3],[0,1]],"n":4} '
expect 1 '{"n":4,"queens":2,"valid":true,"complete":false,"conflict_count":0,"conflicts":[]}' check - <<<'{"n":4,"columns":[1,null,null,2]}'
expect_err 2 "COLUMNS: entry 3: column 9 is outside 0..3" check 4 1,3,0,9
expect_err 2 "COLUMNS: 3 column entries, not 4 (one per row)" check 4 1,3,0
expect_err 2 "COLUMNS: entry 1 has a number with a leading zero" check 4 1,03,0,2
expect_err 2 "--queens: entry 2 gives square 0:1 again (entry 0 gave it first)" check 4 --queens 0:1,1:3,0:1
expect_err 2 "--queens: entry 0 is not row:column" check 4 --queens 0-1
expect_err 2 "--queens: entry 0: row 4 is outside 0..3" check 4 --queens 4:0
expect_err 2 "check N needs the placement" check 4
expect_err 2 "check N needs the placement" check 4 1,3,0,2 --queens 0:0
expect_err 2 "check - reads the placement from stdin only" check - 1,3,0,2
expect_err 2 "N must be a whole number from 1 to 1000000000, not '1000000001'" check 1000000001 0
expect_err 2 "stdin: Unknown member 'x'" check - <<<'{"n":4,"queens":[],"x":1}'
expect_err 2 "stdin: Member 'n' is given twice" check - <<<'{"n":4,"n":4,"queens":[]}'
expect_err 2 "stdin: Give one of 'columns' and 'queens', not both" check - <<<'{"n":4,"queens":[],"columns":[]}'
expect_err 2 "stdin: Member 'n' is required" check - <<<'{"queens":[]}'
expect_err 2 "stdin: Member 'n' must be an integer, at least 1" check - <<<'{"n":4.5,"queens":[]}'
expect_err 2 "stdin: Member 'columns' must have exactly 4 entries, not 3" check - <<<'{"n":4,"columns":[1,3,0]}'
expect_err 2 "stdin: Member 'columns': entry 1 must be a column number or null" check - <<<'{"n":4,"columns":[1,"3",0,2]}'
expect_err 2 "stdin: Member 'columns': entry 3: column 4 is outside 0..3" check - <<<'{"n":4,"columns":[1,3,0,4]}'
expect_err 2 "stdin: Member 'queens': entry 0 must be a pair of integers [row, column]" check - <<<'{"n":4,"queens":[[0,1,2]]}'
expect_err 2 "stdin: Member 'queens': entry 1 must be a pair of integers [row, column]" check - <<<'{"n":4,"queens":[[0,1],[-1,0]]}'
expect_err 2 "stdin: Member 'queens': entry 1 gives square 0:1 again" check - <<<'{"n":4,"queens":[[0,1],[0,1]]}'
expect_err 2 "stdin: Not valid JSON" check - <<<'{"n":4,"queens":[[0,1]'
expect_err 2 "stdin: More than one JSON value" check - <<<'{"n":4,"queens":[]} x'
expect_err 2 "stdin: A placement is a JSON object" check - <<<'[1,2]'

# --- solution and check: usage errors
expect_err 2 "--seed needs --random" solution 8 --seed 1
expect_err 2 "--seed must be a whole number from 0 to 9007199254740991 (2^53 - 1), not '9007199254740992'" solution 8 --random --seed 9007199254740992
expect_err 2 "--seed must be a whole number from 0 to 9007199254740991 (2^53 - 1), not '18446744073709551616'" solution 8 --random --seed 18446744073709551616
expect_err 2 "--seed must be a whole number" solution 8 --random --seed -1
expect_err 2 "--format board only up to N = 1024" solution 1025 --format board
expect_err 2 "--format must be 'columns' or 'board', not 'json'" solution 8 --format json
expect_err 2 "--random does not apply to solve" solve 8 --random
expect_err 2 "--queens does not apply to solution" solution 8 --queens 0:0
expect_err 2 "--limit must be a whole number from 0 to " check 4 1,3,0,2 --limit x # to SIZE_MAX / a pair's size
expect_err 2 "N must be a whole number from 1 to 1000000000, not '0'" solution 0
expect_err 2 "unexpected argument '3'" solution 8 3

# --- complete, trace, k queens
expect 0 '{"n":8,"solution":[0,4,7,5,2,6,1,3],"hint":[1,4],"completions":4}' complete 8 0,-,-,-,-,-,-,- --count
expect 0 '{"n":8,"solution":[0,4,7,5,2,6,1,3],"hint":[2,7],"completions":1}' complete 8 --queens 1:4,0:0 --count
expect 0 '{"n":4,"solution":[1,3,0,2],"hint":[2,0]}' complete 4 --queens=0:1,1:3
expect 0 '{"n":4,"solution":[1,3,0,2],"hint":[0,1]}' complete 4 -,3,-,-
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

# --- version: the project's, from CMake, as nqueensd --version writes its own
version=$(sed -n 's/^project(nqueens VERSION \([^ )]*\).*/\1/p' "$(dirname "$0")/../../CMakeLists.txt")
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "FAIL: no version in CMakeLists.txt's project()"; failures=$((failures + 1)); }
expect 0 "nqueens $version" --version
expect 0 "nqueens $version" count 8 --version

# --- help
expect 0 '*' --help
"$bin" --help >/dev/full 2>"$tmp/err"
status=$?
if [[ $status -ne 1 ]] || ! grep -q 'write error' "$tmp/err"; then
  echo "FAIL: --help >/dev/full: status $status (want 1)"
  failures=$((failures + 1))
fi
expect 0 '*' solve 8 -h
# Into a file first: with pipefail, grep -q leaving at its match could make the CLI's later writes
# fail (EPIPE, exit 1) and the pipeline with them.
"$bin" --help >"$tmp/help" 2>&1
grep -q '^Usage: nqueens count N' "$tmp/help" || { echo "FAIL: --help text"; failures=$((failures + 1)); }
expect 0 "$(cat "$tmp/help")" help
expect 0 "$(cat "$tmp/help")" help help
expect 0 $'Usage: nqueens trace N [--limit L] [--from K]\n       nqueens --help | --version\n\ntrace N        the steps of the textbook backtracking search as NDJSON, N = 1..32.\n  --limit L    at most L steps.\n  --from K     start at step K.\n\nExit status: 0 success, 1 failure, 2 usage error, 130 interrupted (143 by SIGTERM).' help trace
# help COMMAND is COMMAND --help (and -h, whatever else is on the line), and lists exactly the
# options the parser takes for that command: each one listed is not refused as foreign to it, and
# each option of the tool that it does not refuse is listed.
all_opts=$(sed -n 's/^  --\([a-z-]*\).*/\1/p' "$tmp/help" | sort -u)
for cmd in count solve solution check complete trace puzzle; do
  "$bin" help "$cmd" >"$tmp/h-$cmd" 2>&1 || { echo "FAIL: help $cmd: status $?"; failures=$((failures + 1)); }
  grep -q "^Usage: nqueens $cmd " "$tmp/h-$cmd" || { echo "FAIL: help $cmd: no usage line"; failures=$((failures + 1)); }
  expect 0 "$(cat "$tmp/h-$cmd")" "$cmd" --help
  expect 0 "$(cat "$tmp/h-$cmd")" "$cmd" 99999 x --format=x -h # the rest of the line is not checked
  listed=$(sed -n 's/^  --\([a-z-]*\).*/\1/p' "$tmp/h-$cmd" | sort -u)
  for opt in $all_opts; do
    "$bin" "$cmd" "--$opt" >/dev/null 2>"$tmp/err"
    grep -q 'needs a value' "$tmp/err" && "$bin" "$cmd" "--$opt=1" >/dev/null 2>"$tmp/err"
    taken=yes
    grep -q -e 'does not apply to' -e 'unknown option' "$tmp/err" && taken=no
    in_help=no
    grep -qx -- "$opt" <<<"$listed" && in_help=yes
    [[ $taken == "$in_help" ]] || { echo "FAIL: $cmd --$opt: taken by the parser: $taken, in help $cmd: $in_help"; failures=$((failures + 1)); }
  done
done
expect_err 2 "unknown command 'frobnicate'" help frobnicate
expect_err 2 "unknown command 'frobnicate'" frobnicate --help
expect_err 2 "unexpected argument '8'" help count 8
expect_err 2 "--json does not apply to help" help --json
# a usage error is one line on stderr
"$bin" help frobnicate 2>"$tmp/err"
[[ $(grep -c '' "$tmp/err") -eq 1 ]] || { echo "FAIL: help frobnicate: $(grep -c '' "$tmp/err") lines on stderr"; failures=$((failures + 1)); }

# --- on a terminal (script(1) gives the command one): boards to read for solve and solution,
# JSON with --json, and JSON from the machine outputs wherever they go
# expect_tty WANT ARGS...: the output through a pseudo-terminal, carriage returns dropped, is WANT.
expect_tty() {
  local want=$1; shift
  local got
  got=$(script -qec "$(printf '%q ' "$bin" "$@")" /dev/null </dev/null | tr -d '\r')
  [[ $got == "$want" ]] || { printf 'FAIL: nqueens %s on a terminal:\n%s\nwant:\n%s\n' "$*" "$got" "$want"; failures=$((failures + 1)); }
}
if command -v script >/dev/null 2>&1; then
  expect_tty $'.Q..\n...Q\nQ...\n..Q.\n\n..Q.\nQ...\n...Q\n.Q..\n\n2 solutions' solve 4
  expect_tty $'.Q..\n...Q\nQ...\n..Q.\n\n1 solution; more with --after 1,3,0,2' solve 4 --limit 1
  expect_tty $'0,4,7,5,2,6,1,3\n0,5,7,2,6,3,1,4\n2 solutions; more with --after 0,5,7,2,6,3,1,4' solve 8 --limit 2 --format columns
  expect_tty 'no solutions' solve 3
  expect_tty '{"n":4,"solutions":[[1,3,0,2],[2,0,3,1]],"next":null}' solve 4 --format columns --json
  expect_tty $'[1,3,0,2]\n[2,0,3,1]' solve 4 --format columns --ndjson
  expect_tty $'8 x 8, construction\n.Q......\n...Q....\n.....Q..\n.......Q\n..Q.....\nQ.......\n......Q.\n....Q...' solution 8
  expect_tty $'8 x 8, random, seed 1\n.....Q..\n..Q.....\n....Q...\n......Q.\nQ.......\n...Q....\n.Q......\n.......Q' solution 8 --random --seed 1
  expect_tty $'8 x 8, construction\n1,3,5,7,2,0,6,4' solution 8 --format columns
  expect_tty '2 x 2: no solution' solution 2
  expect_tty '{"n":8,"method":"construct","seed":null,"solution":[1,3,5,7,2,0,6,4]}' solution 8 --json
  # beyond 1024 rows a board is no use to read: its columns, the same as the JSON's
  "$bin" solution 1025 | sed 's/.*"solution":\[\(.*\)\]}/\1/' >"$tmp/cols1025"
  expect_tty "1025 x 1025, construction"$'\n'"$(cat "$tmp/cols1025")" solution 1025
  expect_tty '{"n":8,"total":92,"unique":12}' count 8
else
  echo "skipped: the terminal's boards (no script(1))"
fi

# --- usage errors: exit 2, a reason on stderr, nothing on stdout
expect_err 2 "missing command: 'count', 'solve', 'solution', 'check', 'complete', 'trace', 'puzzle' or 'help' (try 'nqueens help')"
expect_err 2 "unknown command 'frobnicate'" frobnicate 8
expect_err 2 "count needs a board size" count
expect_err 2 "N must be a whole number from 1 to 27, not '28'" count 28
expect_err 2 "N must be a whole number from 1 to 32, not '33'" solve 33
expect_err 2 "not '0'" solve 0
expect_err 2 "N must be a whole number from 1 to 32, not '-4'" solve -4 # a negative N, not an option
expect_err 2 "COLUMNS: entry 0 is not a column number or '-'" check 4 -1,3,0,2
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
expect_err 2 "--threads must be a whole number from 0 (the CPUs this process may use) to 1024, not '-1'" count 8 --threads -1
expect_err 2 "--verbose does not apply to solve" solve 8 --verbose
expect_err 2 "--sum takes only shard files, no --threads, --verbose" count 8 --verbose --sum "$tmp/none.json"
expect_err 2 "--ndjson and --json exclude each other" solve 4 --ndjson --json

# --- --threads 0 is the CPUs this process may use (cpus.h), as --verbose says on stderr: one under
# taskset -c 0, whatever the machine has; --threads T and --queens K < N (one thread) as asked
# expect_verbose STDERR ARGS...: stdout is the count of 8, stderr exactly STDERR.
expect_verbose() {
  local want=$1; shift
  local out
  out=$("$@" 2>"$tmp/err")
  if [[ $out != '{"n":8,"total":92,"unique":12}' && $out != '{"n":8,"k":4,"total":34568,"unique":4338}' ||
        $(cat "$tmp/err") != "$want" ]]; then
    printf 'FAIL: %s\n  stdout %s\n  stderr %s\n  want   %s\n' "$*" "$out" "$(cat "$tmp/err")" "$want"
    failures=$((failures + 1))
  fi
}
if command -v taskset >/dev/null 2>&1; then
  expect_verbose 'nqueens: counting on 1 thread (the CPUs this process may use)' taskset -c 0 "$bin" count 8 --verbose
  expect_verbose 'nqueens: counting on 1 thread (the CPUs this process may use)' taskset -c 0 "$bin" count 8 --verbose --threads 0
else
  echo "skipped: --threads 0 under taskset -c 0 (no taskset)"
fi
expect_verbose 'nqueens: counting on 3 threads' "$bin" count 8 --threads 3 --verbose
expect_verbose 'nqueens: counting on 1 thread' "$bin" count 8 --queens 4 --threads 3 --verbose

# Wait until process $1 is the CLI and catches signal $2 (default SIGINT, 2: bit $2 - 1 of SigCgt): a
# signal sent before its handler is set would kill it without its message (a slow start, under a
# sanitizer, on a loaded machine). Before its exec the child is still the shell, whose own SIGINT
# handler would take the signal instead, and the CLI would then run to its end.
bin_exe=$(readlink -f "$bin")
await_handler() {
  local mask sig=${2:-2}
  for _ in $(seq 300); do
    if [[ $(readlink "/proc/$1/exe" 2>/dev/null) == "$bin_exe" ]]; then
      mask=$(awk '/^SigCgt:/ { print $2 }' "/proc/$1/status" 2>/dev/null) || return 0
      [[ -n $mask ]] && (( 0x$mask & (1 << (sig - 1)) )) && return 0
    fi
    [[ -d /proc/$1 ]] || return 0
    sleep 0.1
  done
}

# expect_interrupted WHAT WANT: the CLI just waited for ended with $status = WANT, printed nothing on
# stdout and said "interrupted" on stderr.
expect_interrupted() {
  if [[ $status -ne $2 || -s "$tmp/out" ]] || ! grep -q interrupted "$tmp/err"; then
    echo "FAIL: $1: status $status (want $2), stdout '$(head -c 100 "$tmp/out")', stderr '$(cat "$tmp/err")'"
    failures=$((failures + 1))
  fi
}

# --- Ctrl-C cancels a long random search the same way. The CLI runs as a job of its own (set -m):
# a script's plain '&' would start it with SIGINT ignored, which the CLI keeps (checked below).
set -m
"$bin" solution 50000000 --random >"$tmp/out" 2>"$tmp/err" &
pid=$!
set +m
await_handler "$pid"
kill -INT "$pid"
wait "$pid"
status=$?
expect_interrupted "SIGINT during solution --random" 130

# --- Ctrl-C cancels a long count: exit 130, "interrupted", no JSON
set -m
"$bin" count 18 >"$tmp/out" 2>"$tmp/err" &
pid=$!
set +m
await_handler "$pid"
kill -INT "$pid"
wait "$pid"
status=$?
expect_interrupted "SIGINT during count 18" 130

# --- SIGTERM (kill, a container runtime, a batch system) cancels a count the same way and ends it by
# SIGTERM itself (status 143 as a shell sees it)
"$bin" count 18 >"$tmp/out" 2>"$tmp/err" &
pid=$!
await_handler "$pid" 15
kill -TERM "$pid"
wait "$pid"
status=$?
expect_interrupted "SIGTERM during count 18" 143
# ... also as PID 1 of a container (a Kubernetes shard's pod being deleted), where a signal with no
# handler is dropped: the count ends at once with status 143 instead of running on to its SIGKILL.
# A PID namespace needs root (CI runs as root) and a kernel or container that allows one; count 19
# runs for seconds to minutes, which only the signal cuts short.
if [[ $(id -u) -eq 0 ]] && unshare --pid --fork true 2>/dev/null; then
  unshare --pid --fork "$bin" count 19 >"$tmp/out" 2>"$tmp/err" &
  ns=$!
  pid=
  for _ in $(seq 300); do
    pid=$(pgrep -P "$ns" | head -1) && [[ -n $pid ]] && break
    sleep 0.1
  done
  await_handler "$pid" 15
  kill -TERM "$pid"
  wait "$ns"
  status=$?
  expect_interrupted "SIGTERM to count 19 as PID 1" 143
else
  echo "skipped: SIGTERM to the CLI as PID 1 (no PID namespace here: needs root)"
fi

# --- ... and then ends by SIGINT itself, not by exit(130): a shell running counts in a loop (one
# shard after another) sees its command killed by the signal and stops the loop with it. The loop
# runs as its own job (set -m), so that Ctrl-C's signal reaches the whole group, shell and CLI.
set -m
bash -c 'for i in 1 2; do "$1" count 18 >/dev/null 2>&1; echo "next $?"; done' _ "$bin" >"$tmp/loop" 2>&1 &
loop=$!
set +m
child=
for _ in $(seq 300); do
  child=$(pgrep -P "$loop" | head -1) && [[ -n $child ]] && break
  sleep 0.1
done
[[ -n $child ]] || { echo "FAIL: the loop's first count never started"; kill -- "-$loop"; exit 1; }
await_handler "$child"
kill -INT -- "-$loop"
wait "$loop"
status=$?
if [[ $status -ne 130 || -s "$tmp/loop" ]]; then
  echo "FAIL: Ctrl-C in a loop of counts: the loop's shell ended with $status and printed '$(cat "$tmp/loop")'"
  failures=$((failures + 1))
fi

# --- a SIGINT ignored from the start (a script's plain '&') stays ignored: the count is sent one
# SIGINT after another while it runs, and still ends with the whole count.
"$bin" count 17 >"$tmp/out" 2>"$tmp/err" &
pid=$!
# Not before the exec: bash sets SIGINT ignored in the child only after the fork.
for _ in $(seq 300); do
  [[ $(readlink "/proc/$pid/exe" 2>/dev/null) == "$bin_exe" || ! -d /proc/$pid ]] && break
  sleep 0.01
done
for _ in $(seq 20); do # while it is this CLI, never a process that reused the number
  [[ $(readlink "/proc/$pid/exe" 2>/dev/null) == "$bin_exe" ]] || break
  kill -INT "$pid" 2>/dev/null
  sleep 0.05
done
wait "$pid"
status=$?
if [[ $status -ne 0 ]] || ! grep -q '"total":95815104' "$tmp/out"; then
  echo "FAIL: count 17 with SIGINT ignored: status $status, stdout '$(cat "$tmp/out")', stderr '$(cat "$tmp/err")'"
  failures=$((failures + 1))
fi

# --- the progress line of a long count on a terminal (a pseudo-terminal from python3's pty): its
# format, then Ctrl-C erases it and says so. count 19 on one thread runs far longer than the second
# before the line is drawn; the 300 s are only there so that a broken build cannot hang the suite.
if command -v python3 >/dev/null 2>&1; then
  python3 - "$bin" <<'PY' || failures=$((failures + 1))
import os, pty, re, select, signal, sys, time

binary = sys.argv[1]
pid, fd = pty.fork()
if pid == 0:
    os.execv(binary, [binary, "count", "19", "--threads", "1"])
line = re.compile(rb"\r\[[#.]{30}\] +[0-9]{1,3}%  elapsed [0-9]+:[0-5][0-9](:[0-5][0-9])?"
                  rb"  left ([0-9]+:[0-5][0-9](:[0-5][0-9])?|--:--)\x1b\[K")


def read_until(done, limit):
    """Reads the terminal into out until done(out) or EOF or limit seconds."""
    global out
    end = time.monotonic() + limit
    while not done(out) and time.monotonic() < end:
        if not select.select([fd], [], [], 1.0)[0]:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: the child closed the terminal
            return
        if not chunk:
            return
        out += chunk


out = b""
read_until(lambda o: line.search(o) is not None, 300)
drawn = line.search(out) is not None
os.kill(pid, signal.SIGINT)
read_until(lambda o: False, 300)
_, status = os.waitpid(pid, 0)
if not drawn:
    sys.exit("FAIL: no progress line on the terminal: %r" % out[-300:])
if not (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGINT):
    sys.exit("FAIL: count 19 after Ctrl-C: wait status %d" % status)
after = out[line.search(out).end():]
if b"\r\x1b[K" not in after or b"nqueens: interrupted" not in after:
    sys.exit("FAIL: the progress line was not erased before 'interrupted': %r" % out[-300:])
PY
else
  echo "skipped: the progress line on a terminal (no python3)"
fi

# --- a full disk stops the output at once, with status 1 and a message: the write error is found
# while writing, not after the whole enumeration (n = 20: 39 million boards, minutes of CPU). The
# CPU-time limit (not a wall clock: a loaded machine does not spend it) is far above what stopping
# takes and far below that enumeration; running out of it ends the process by a signal.
for args in "solve 20" "solve 20 --ndjson --format columns" "solution 100000000"; do
  # shellcheck disable=SC2086 # args is a word list on purpose
  (ulimit -t 10; exec "$bin" $args >/dev/full 2>"$tmp/err")
  status=$?
  if [[ $status -ne 1 ]] || ! grep -q 'write error' "$tmp/err"; then
    echo "FAIL: nqueens $args >/dev/full: status $status (want 1), stderr '$(cat "$tmp/err")'"
    failures=$((failures + 1))
  fi
done

if (( failures > 0 )); then
  echo "$failures CLI check(s) failed"
  exit 1
fi
echo "all CLI checks passed"
