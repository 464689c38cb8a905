#!/usr/bin/env bash
# test_shards.sh - counts spread over shards: `nqueens count N --shard I/K` for K = 1, 2, 7, 64 and
# `nqueens count N --sum FILE...` adding them up to the OEIS counts, and --sum refusing every set of
# files that is not exactly the K shards of one cut (missing, repeated, foreign, malformed).
#   test_shards.sh PATH/TO/nqueens fast|slow
#     fast: n = 8..14 and 16 (n <= 12 is one task: shards 1.. are empty), every refusal
#     slow: n = 15 and 17
set -uo pipefail
bin=${1:?usage: test_shards.sh PATH/TO/nqueens fast|slow}
set_name=${2:?usage: test_shards.sh PATH/TO/nqueens fast|slow}
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { printf 'FAIL: %s\n' "$*"; failures=$((failures + 1)); }

# OEIS A000170 / A002562
declare -A total=([8]=92 [9]=352 [10]=724 [11]=2680 [12]=14200 [13]=73712 [14]=365596 [15]=2279184
                  [16]=14772512 [17]=95815104)
declare -A unique=([8]=12 [9]=46 [10]=92 [11]=341 [12]=1787 [13]=9233 [14]=45752 [15]=285053
                   [16]=1846955 [17]=11977939)

# shards N K: writes the K shard files of N to $tmp/N-K/, sums them, checks the count.
shards() {
  local n=$1 k=$2 dir="$tmp/$1-$2" i out want
  mkdir -p "$dir"
  for ((i = 0; i < k; i++)); do
    "$bin" count "$n" --shard "$i/$k" --threads 2 >"$dir/$i.json" || fail "count $n --shard $i/$k exited $?"
  done
  want="{\"n\":$n,\"total\":${total[$n]},\"unique\":${unique[$n]}}"
  out=$("$bin" count "$n" --sum "$dir"/*.json 2>"$tmp/err")
  [[ $? -eq 0 && "$out" == "$want" ]] || fail "count $n --sum of $k shards: '$out' $(cat "$tmp/err"), want '$want'"
}

# refuse STATUS PATTERN ARGS...: nqueens ARGS must exit STATUS, print nothing, say PATTERN on stderr.
refuse() {
  local want_status=$1 pattern=$2 out status err; shift 2
  out=$("$bin" "$@" 2>"$tmp/err")
  status=$?
  err=$(cat "$tmp/err")
  [[ $status -eq $want_status && -z "$out" && "$err" == *"$pattern"* ]] ||
    fail "nqueens $*: status $status (want $want_status), stdout '$out', stderr '$err' (want *$pattern*)"
}

if [[ "$set_name" == slow ]]; then
  for n in 15 17; do for k in 1 2 7 64; do shards "$n" "$k"; done; done
  ((failures == 0)) && echo "test_shards slow: all passed"
  exit $((failures > 0))
fi

for n in 8 9 10 11 12 13 14 16; do for k in 1 2 7 64; do shards "$n" "$k"; done; done

# --- the shard document, exactly (n = 8 is one task, so shard 1 of 2 is empty)
r=$("$bin" count 8 --shard 0/2)
[[ "$r" == '{"n":8,"shard":0,"shards":2,"block":1,"method":"backtrack","release":"'*'","plan":5,"tasks":1,"done":1,"total":92,"burnside":96}' ]] ||
  fail "count 8 --shard 0/2: $r"
r=$("$bin" count 8 --shard=1/2)
[[ "$r" == '{"n":8,"shard":1,"shards":2,"block":1,"method":"backtrack","release":"'*'","plan":5,"tasks":1,"done":0,"total":0,"burnside":0}' ]] ||
  fail "count 8 --shard 1/2: $r"
# n = 14 has 891 tasks: blocks of 891 / (7 x 32) = 3, shard 3 holds blocks 3, 10, ..., 290 (126 tasks)
# and shard 2 blocks 2, 9, ..., 296, the last one (43 blocks, 129 tasks)
r=$("$bin" count 14 --shard 3/7)
[[ "$r" == '{"n":14,"shard":3,"shards":7,"block":3,"method":"quad","release":"'*'","plan":5,"tasks":891,"done":126,"total":'* ]] ||
  fail "count 14 --shard 3/7: $r"
r=$("$bin" count 14 --shard 2/7)
[[ "$r" == '{"n":14,"shard":2,"shards":7,"block":3,"method":"quad","release":"'*'","plan":5,"tasks":891,"done":129,"total":'* ]] ||
  fail "count 14 --shard 2/7: $r"

# --- what --sum accepts besides files: standard input once, files in any order
d="$tmp/14-7"
r=$("$bin" count 14 --sum "$d/6.json" "$d/0.json" - "$d/1.json" "$d/2.json" "$d/4.json" "$d/5.json" <"$d/3.json")
[[ "$r" == '{"n":14,"total":365596,"unique":45752}' ]] || fail "count 14 --sum with stdin: $r"
# standard input may hold any number of documents, one a line: more shards than a command line takes
r=$(cat "$tmp/14-64"/*.json | "$bin" count 14 --sum -)
[[ "$r" == '{"n":14,"total":365596,"unique":45752}' ]] || fail "count 14 --sum - of 64 lines: $r"
r=$(cat "$d"/[1-5].json | "$bin" count 14 --sum "$d/0.json" - "$d/6.json")
[[ "$r" == '{"n":14,"total":365596,"unique":45752}' ]] || fail "count 14 --sum files and 5 lines: $r"
refuse_stdin() { # refuse_stdin PATTERN INPUT: --sum - of INPUT is refused with PATTERN
  local err status
  err=$(printf '%s' "$2" | "$bin" count 14 --sum - 2>&1 >/dev/null)
  status=$?
  [[ $status -eq 2 && "$err" == *"$1"* ]] || fail "--sum - refused '$1': status $status, '$err'"
}
refuse_stdin "-:3: not a shard document" "$(cat "$d/0.json" "$d/1.json")"$'\ngarbage\n'
refuse_stdin "-:4: not a shard document" "$(cat "$d/0.json")"$'\n\n'"$(cat "$d/1.json")"$'\nx\n' # -:2 is empty
# ... an empty line is no document, and is skipped (a script's trailing echo)
r=$({ echo; cat "$d"/[0-3].json; echo; cat "$d"/[4-6].json; echo; } | "$bin" count 14 --sum -)
[[ "$r" == '{"n":14,"total":365596,"unique":45752}' ]] || fail "count 14 --sum - with empty lines: $r"
refuse_stdin "-:2: shard 0 of 7 given twice" "$(cat "$d/0.json" "$d/0.json")"
refuse_stdin "2 of 7 shards given; missing: 2 3 4 5 6" "$(cat "$d/0.json" "$d/1.json")"
refuse_stdin "no shard documents given" "" # a find that found nothing
err=$({ cat "$d/0.json"; printf '%s\0x\n' "$(cat "$d/2.json")"; } | "$bin" count 14 --sum - 2>&1 >/dev/null)
[[ $? -eq 2 && "$err" == *"-:2: not a shard document: it holds a NUL byte"* ]] ||
  fail "--sum - with a NUL in a line: '$err'"

# --- refusals: missing, repeated, foreign (n, K, release, plan, method), malformed
refuse 2 "6 of 7 shards given; missing: 4" count 14 --sum "$d"/[0-35-6].json
refuse 2 "1 of 64 shards given; missing: 1 2 3 4 5 6 7 8 ..." count 14 --sum "$tmp/14-64/0.json"
refuse 2 "shard 2 of 7 given twice" count 14 --sum "$d"/[0-6].json "$d/2.json"
refuse 2 "a shard of n = 14, not 16" count 16 --sum "$d"/*.json
refuse 2 "shard 0 of 2, but the first file is one of 7" count 14 --sum "$d"/*.json "$tmp/14-2/0.json"
sed 's/"release":"[^"]*"/"release":"0.0.1-other"/' "$d/5.json" >"$tmp/release.json"
refuse 2 "counted by release 0.0.1-other, the first file by" count 14 --sum "$d"/[0-46].json "$tmp/release.json"
sed 's/"plan":5,/"plan":6,/' "$d/5.json" >"$tmp/plan.json"
refuse 2 "counted by plan 6 (891 tasks, method quad), this tool's is plan 5" count 14 --sum "$tmp/plan.json"
sed 's/"method":"quad"/"method":"mitm"/' "$d/5.json" >"$tmp/method.json"
refuse 2 "method mitm" count 14 --sum "$tmp/method.json"
sed 's/"done":126,/"done":127,/' "$d/5.json" >"$tmp/done.json"
refuse 2 "holds 127 tasks, not the 126 of its share" count 14 --sum "$tmp/done.json"
sed 's/"block":3,/"block":1,/' "$d/5.json" >"$tmp/block.json"
refuse 2 "shard 5 of 7 dealt in blocks of 1 tasks, this tool deals them in 3" count 14 --sum "$tmp/block.json"
b5=$(sed 's/.*"burnside":\([0-9]*\)}$/\1/' "$d/5.json")
sed "s/\"burnside\":$b5/\"burnside\":$((b5 + 1))/" "$d/5.json" >"$tmp/burnside.json"
refuse 2 "do not add up to whole classes" count 14 --sum "$d"/[0-46].json "$tmp/burnside.json"
sed "s/\"burnside\":$b5/\"burnside\":$((b5 + 8 * 365596))/" "$d/5.json" >"$tmp/classes.json"
refuse 2 "more classes than solutions" count 14 --sum "$d"/[0-46].json "$tmp/classes.json"
# sums that contradict themselves within one shard: a total above its Burnside sum, sums without tasks
sed 's/"burnside":[0-9]*/"burnside":8/' "$d/5.json" >"$tmp/below.json"
refuse 2 "shard 5 of 7 has a total of " count 14 --sum "$d"/[0-46].json "$tmp/below.json"
"$bin" count 8 --shard 0/2 >"$tmp/e0.json"
"$bin" count 8 --shard 1/2 | sed 's/"total":0,"burnside":0/"total":8,"burnside":8/' >"$tmp/e1.json"
refuse 2 "e1.json: shard 1 of 2 holds no tasks but has non-zero sums" count 8 --sum "$tmp/e0.json" "$tmp/e1.json"
sed 's/"total":[0-9]*,"burnside":[0-9]*/"total":18446744073709551615,"burnside":18446744073709551615/' \
  "$d/5.json" >"$tmp/huge.json"
refuse 2 "overflow 64 bits" count 14 --sum "$d"/[0-46].json "$tmp/huge.json"
malformed() { # malformed NAME CONTENT: a file holding CONTENT is refused as no shard document
  printf '%s' "$2" >"$tmp/bad-$1.json"
  refuse 2 "bad-$1.json: not a shard document" count 14 --sum "$tmp/bad-$1.json"
}
good=$(cat "$d/5.json")
malformed empty ''
malformed truncated "${good:0:60}"
malformed spaces "$(sed 's/,"/, "/g' <<<"$good")"
malformed pretty "$(python3 -m json.tool <<<"$good" 2>/dev/null || printf '{\n "n": 14\n}')"
malformed reordered "$(sed 's/"shard":5,"shards":7/"shards":7,"shard":5/' <<<"$good")"
malformed extra "${good%\}},\"x\":1}"
malformed two-lines "$good"$'\n'"$good"
malformed leading-zero "$(sed 's/"n":14/"n":014/' <<<"$good")"
malformed float "$(sed 's/"total":\([0-9]*\)/"total":\1.0/' <<<"$good")"
malformed negative "$(sed 's/"shard":5/"shard":-5/' <<<"$good")"
malformed shard-beyond-k "$(sed 's/"shard":5/"shard":7/' <<<"$good")"
malformed bad-label "$(sed 's/"release":"[^"]*"/"release":"1 0"/' <<<"$good")"
malformed long "$good$(printf '%0300d' 0)"
malformed not-json 'total 365596'
# the ways a good shard gets spoilt on its way are named, so that the fix is plain
refuse 2 "bad-empty.json: not a shard document: empty (a shard that failed" count 14 --sum "$tmp/bad-empty.json"
refuse 2 "bad-two-lines.json: not a shard document: more than one line" count 14 --sum "$tmp/bad-two-lines.json"
refuse 2 "bad-not-json.json: not a shard document: not the line" count 14 --sum "$tmp/bad-not-json.json"
printf '%s\r\n' "$good" >"$tmp/crlf.json"
refuse 2 "crlf.json: not a shard document: its line ends in CR LF" count 14 --sum "$tmp/crlf.json"
refuse_stdin "-:2: not a shard document: two documents on one line" \
  "$(cat "$d/0.json")"$'\n'"$(cat "$d/1.json")$(cat "$d/2.json")"$'\n'
# files without a final newline (written by hand, or by a tool that strips it) join line by line
# through `awk 1`, as the docs have it
mkdir "$tmp/nonl"
for i in 0 1 2 3 4 5 6; do printf '%s' "$(cat "$d/$i.json")" >"$tmp/nonl/$i.json"; done
r=$(find "$tmp/nonl" -name '*.json' -exec awk 1 {} + | "$bin" count 14 --sum -)
[[ "$r" == '{"n":14,"total":365596,"unique":45752}' ]] || fail "awk 1 over files without a newline, --sum -: $r"
sed 's/"shards":7,/"shards":4294967295,/' <<<"$good" >"$tmp/many.json" # well formed, but no --shard cut
refuse 2 "many.json: one of 4294967295 shards, more than --shard cuts (1000000)" count 14 --sum "$tmp/many.json"
refuse 1 "no-such.json: cannot open" count 14 --sum "$d"/[0-5].json "$tmp/no-such.json"
refuse 1 "$tmp: read error: Is a directory" count 14 --sum "$d"/[0-5].json "$tmp"

# --- usage errors
refuse 2 "--sum needs the shard files" count 14 --sum
refuse 2 "count needs a board size N before --sum" count --sum "$d"/*.json 14
refuse 2 "--sum reads standard input (-) once at most" count 14 --sum - -
refuse 2 "--sum takes only shard files" count 14 --sum "$d/0.json" --threads 2
refuse 2 "--sum takes only shard files" count 14 --shard 0/2 --sum "$d/0.json"
refuse 2 "--shard and --queens exclude each other" count 14 --shard 0/2 --queens 3
for bad in 2/2 0/0 1 /2 0/ a/2 0/b 1/2/3 -1/2 0/1000001 01x/2; do
  refuse 2 "--shard must be I/K with 0 <= I < K <= 1000000, not '$bad'" count 14 --shard "$bad"
done
refuse 2 "--shard does not apply to solve" solve 8 --shard 0/2
refuse 2 "--sum does not apply to solution" solution --sum "$d/0.json" # named before the missing N

((failures == 0)) && echo "test_shards fast: all passed"
exit $((failures > 0))
