#!/usr/bin/env bash
# test_cli_puzzle.sh - runs `nqueens puzzle` and `nqueens puzzle solve` and checks their exact output
# and exit status (queens puzzles of fixed seeds; regions puzzles by shape, their bytes are the
# regions generator's to pin).
#   test_cli_puzzle.sh PATH/TO/nqueens
set -uo pipefail
bin=${1:?usage: test_cli_puzzle.sh PATH/TO/nqueens}
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=tests/solver/cli_expect.sh
. "$(dirname "$0")/cli_expect.sh"
expect_input=$tmp/in

# body JSON: the next commands read JSON on standard input.
body() { printf '%s\n' "$1" >"$tmp/in"; }
no_body() { rm -f "$tmp/in"; }

# --- puzzle N: generated queens puzzles, the same for the same seed (stdout is not a terminal: JSON)
p8='{"kind":"queens","n":8,"difficulty":"easy","generator":"1","seed":42,"regions":null,"clues":[[1,4],[3,5],[7,3]],"solution":null,"grade":{"difficulty":"easy","deductions":5,"hardest_rule":"single-square","trials":0}}'
expect 0 "$p8" puzzle 8 --seed 42
expect 0 "$p8" puzzle 8 --seed=42 --difficulty easy --kind queens --json
expect 0 '{"kind":"queens","n":8,"difficulty":"expert","generator":"1","seed":42,"regions":null,"clues":[[1,4],[3,5]],"solution":[0,4,7,5,2,6,1,3],"grade":{"difficulty":"expert","deductions":12,"hardest_rule":"trial","trials":3}}' \
  puzzle 8 --seed 42 --difficulty expert --reveal
expect 0 '{"kind":"queens","n":8,"difficulty":"hard","generator":"1","date":"2026-12-05","seed":20261205,"regions":null,"clues":[[1,5],[4,6],[6,1]],"solution":null,"grade":{"difficulty":"hard","deductions":6,"hardest_rule":"no-room","trials":0}}' \
  puzzle 8 --date 2026-12-05 --difficulty hard
expect 0 '{"kind":"queens","n":12,"difficulty":"medium","generator":"1","seed":7,"regions":null,"clues":[[1,2],[3,8],[5,1],[9,11],[10,0],[11,6]],"solution":null,"grade":{"difficulty":"medium","deductions":8,"hardest_rule":"pair-lines","trials":0}}' \
  puzzle 12 --seed 7 --difficulty medium
# a chosen seed is printed, and replaying it gives the same puzzle
first=$("$bin" puzzle 16 --difficulty hard)
seed=$(sed 's/.*"seed":\([0-9]*\).*/\1/' <<<"$first")
[[ "$("$bin" puzzle 16 --difficulty hard --seed "$seed")" == "$first" ]] ||
  { echo "FAIL: puzzle seed $seed does not replay"; failures=$((failures + 1)); }
# combinations that do not exist, and usage errors
expect_err 1 'no medium queens puzzle of size 4 is offered' puzzle 4 --difficulty medium
expect_err 1 'no expert queens puzzle of size 5 is offered' puzzle 5 --difficulty expert --seed 1
expect_err 2 'N must be a whole number from 4 to 32 for queens puzzles' puzzle 3
expect_err 2 'N must be a whole number from 4 to 32 for queens puzzles' puzzle 33
expect_err 2 'N must be a whole number from 5 to 62 for regions puzzles' puzzle 4 --kind regions
expect_err 2 "--kind must be 'queens' or 'regions'" puzzle 8 --kind rooks
expect_err 2 "--difficulty must be 'easy', 'medium', 'hard' or 'expert'" puzzle 8 --difficulty extreme
expect_err 2 '--seed must be a whole number from 0 to 9007199254740991' puzzle 8 --seed 9007199254740992
expect_err 2 '--seed and --date exclude each other' puzzle 8 --seed 1 --date 2026-01-01
expect_err 2 '--date must be a day from 2000-01-01 to 9999-12-31' puzzle 8 --date 2026-02-29
expect_err 2 '--date must be a day from 2000-01-01 to 9999-12-31' puzzle 8 --date 1999-12-31
expect_err 2 '--limit applies to puzzle solve only' puzzle 8 --limit 3
expect_err 2 'puzzle needs a board size N' puzzle
expect_err 2 "unexpected argument '9'" puzzle 8 9
expect_err 2 '--reveal does not apply to count' count 8 --reveal
expect_err 2 '--difficulty does not apply to solution' solution 8 --difficulty easy

# --- puzzle solve: what puzzle --json prints, or a body as POST /puzzle/solve takes
solved8='{"kind":"queens","n":8,"generator":"1","solutions":1,"unique":true,"solution":null,"hint":{"op":"place","square":[4,2],"rule":"single-square","why":"Row 5 has one square left where a queen attacks nothing.","because":[[1,4],[3,5],[7,3]]},"mistakes":{"queens":[],"marks":[]},"grade":{"difficulty":"easy","deductions":5,"hardest_rule":"single-square","trials":0}}'
body "$p8"
expect 0 "$solved8" puzzle solve
expect 0 "$solved8" puzzle solve -
printf '%s\n' "$p8" >"$tmp/p8.json"
no_body
expect 0 "$solved8" puzzle solve "$tmp/p8.json"
body '{"kind":"queens","n":8,"seed":42}' # a generated one by its parameters
expect 0 "$solved8" puzzle solve
# the hand-made 4 x 4: one clue, a wrong queen, a mark on the solution (both mistakes) and a right mark
body '{"kind":"queens","n":4,"clues":[[0,1]],"queens":[[2,2]],"marks":[[1,3],[3,0]]}'
expect 0 '{"kind":"queens","n":4,"generator":"1","solutions":0,"unique":false,"solution":null,"hint":{"op":"place","square":[1,3],"rule":"single-square","why":"Row 2 has one square left where a queen attacks nothing.","because":[[0,1]]},"mistakes":{"queens":[[2,2]],"marks":[[1,3]]},"grade":{"difficulty":"easy","deductions":3,"hardest_rule":"single-square","trials":0}}' \
  puzzle solve
body '{"kind":"queens","n":4,"clues":[[0,1]],"reveal":true}'
expect 0 '{"kind":"queens","n":4,"generator":"1","solutions":1,"unique":true,"solution":[1,3,0,2],"hint":{"op":"place","square":[1,3],"rule":"single-square","why":"Row 2 has one square left where a queen attacks nothing.","because":[[0,1]]},"mistakes":{"queens":[],"marks":[]},"grade":{"difficulty":"easy","deductions":3,"hardest_rule":"single-square","trials":0}}' \
  puzzle solve
# no clues: the empty 6 x 6 has 4 solutions, counted up to --limit (or the body's limit)
body '{"n":6}'
grep -q '"solutions":4,"unique":false' <<<"$("$bin" puzzle solve --limit 10 <"$tmp/in")" ||
  { echo "FAIL: puzzle solve of the empty 6 x 6 does not count 4"; failures=$((failures + 1)); }
body '{"n":8,"limit":3}'
grep -q '"solutions":3,"unique":false' <<<"$("$bin" puzzle solve <"$tmp/in")" ||
  { echo "FAIL: puzzle solve does not take the body's limit"; failures=$((failures + 1)); }
# well-formed without a solution: 200-like, solutions 0, no hint, no grade
body '{"kind":"queens","n":4,"clues":[[0,0],[1,2]]}'
expect 0 '{"kind":"queens","n":4,"generator":"1","solutions":0,"unique":false,"solution":null,"hint":null,"mistakes":{"queens":[],"marks":[]},"grade":null}' \
  puzzle solve
# malformed
body '{"n":8,"clues":[[0,0],[1,1]]}'
expect_err 2 'clues 0 and 1 share a row, a column or a diagonal' puzzle solve
body '{"n":8,"clues":[[0,0],[1,1]'
expect_err 2 'the puzzle is not one JSON value' puzzle solve
body '{"n":8} {"n":9}'
expect_err 2 'the puzzle is not one JSON value' puzzle solve
body '{"n":8,"queens":[[8,0]]}'
expect_err 2 'queens[0] must be [row, column] with both in 0..7' puzzle solve
body '{"n":8,"marks":[[1,2,3]]}'
expect_err 2 'marks[0] must be [row, column]' puzzle solve
body '{"n":63}'
expect_err 2 '"n" must be a whole number from 1 to 62' puzzle solve
body '{"n":8,"generator":"0"}'
expect_err 2 'unknown "generator"' puzzle solve
body '{"n":8,"limit":1}'
expect_err 2 '"limit" must be a whole number from 2 to 1000000' puzzle solve
body '{"n":8}'
expect_err 2 '--limit must be a whole number from 2 to 1000000' puzzle solve --limit 1
body '[8]'
expect_err 2 'the puzzle must be a JSON object' puzzle solve
body '{"kind":"queens","n":4,"seed":1,"difficulty":"hard"}'
expect_err 1 'no hard queens puzzle of size 4 is offered' puzzle solve
body '{"kind":"regions","n":3,"regions":["AAB","AB","CCC"]}'
expect_err 2 'row 1 has 2 labels, not 3' puzzle solve
body '{"kind":"regions","n":4}'
expect_err 2 '"regions" must be a list of 4 rows of labels' puzzle solve
no_body
expect_err 1 "cannot open '$tmp/none.json'" puzzle solve "$tmp/none.json"

# --- regions: a generated one solves uniquely through puzzle solve
"$bin" puzzle 6 --kind regions --seed 1 >"$tmp/r6.json"
status=$?
if [[ $status -ne 0 ]] || ! grep -q '^{"kind":"regions","n":6,"difficulty":"easy","generator":"1","seed":1,"regions":\["' "$tmp/r6.json" ||
   ! "$bin" puzzle solve "$tmp/r6.json" >"$tmp/r6.out" || ! grep -q '"solutions":1,"unique":true' "$tmp/r6.out"; then
  echo "FAIL: a regions puzzle through puzzle solve: status $status, $(cat "$tmp/r6.json")"
  failures=$((failures + 1))
fi

# --- on a terminal, a board (where script(1) can give the command one)
if command -v script >/dev/null 2>&1; then
  got=$(script -qec "$bin puzzle 8 --seed 42" /dev/null | tr -d '\r')
  want=$'queens puzzle, 8 x 8, easy, seed 42 (generator 1)\n........\n....Q...\n........\n.....Q..\n........\n........\n........\n...Q....\ngrade: easy, 5 deductions, hardest rule single-square, 0 trials'
  [[ "$got" == "$want" ]] || { printf 'FAIL: the board on a terminal:\n%s\n' "$got"; failures=$((failures + 1)); }
  got=$(script -qec "$bin puzzle 8 --seed 42 --json" /dev/null | tr -d '\r')
  [[ "$got" == "$p8" ]] || { printf 'FAIL: --json on a terminal:\n%s\n' "$got"; failures=$((failures + 1)); }
fi

if (( failures > 0 )); then
  echo "$failures puzzle CLI check(s) failed"
  exit 1
fi
echo "all puzzle CLI checks passed"
