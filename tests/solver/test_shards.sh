#!/usr/bin/env bash
# test_shards.sh - counts spread over shards: `nqueens count N --shard I/K` for K = 1, 2, 7, 64 and
# `nqueens count N --sum FILE...` adding them up to the OEIS counts, and --sum refusing every set of
# files that is not exactly the K shards of one cut (missing, repeated, foreign, malformed), every
# document whose check value does not match its bytes or that has none (unless --accept-unchecked),
# and sums that miss the known counts. Needs python3 (zlib.crc32) to forge check values.
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

# reseal: shard documents on stdin, one a line, out with the check value of their bytes as they are
# now (the CRC-32 of each document without its check member): an edit that recomputed it, which the
# check value cannot see, so that the checks behind it are tested. unseal: the check member removed,
# as an older release wrote the document.
reseal() {
  python3 -c 'import re, sys, zlib
for line in sys.stdin.read().split("\n")[:-1]:
    body = re.sub(r",\"check\":\"[0-9a-f]{8}\"\}$", "}", line)
    print("%s,\"check\":\"%08x\"}" % (body[:-1], zlib.crc32(body.encode())))'
}
unseal() { sed 's/,"check":"[0-9a-f]\{8\}"}$/}/'; }
command -v python3 >/dev/null || { echo "test_shards: needs python3"; exit 1; }

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
[[ "$r" == '{"n":8,"shard":0,"shards":2,"block":1,"method":"backtrack","release":"'*'","plan":5,"tasks":1,"done":1,"total":92,"burnside":96,"check":"'*'"}' ]] ||
  fail "count 8 --shard 0/2: $r"
r=$("$bin" count 8 --shard=1/2)
[[ "$r" == '{"n":8,"shard":1,"shards":2,"block":1,"method":"backtrack","release":"'*'","plan":5,"tasks":1,"done":0,"total":0,"burnside":0,"check":"'*'"}' ]] ||
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
# (each edited document resealed: its check value recomputed, so that what lies behind it is tested)
sed 's/"release":"[^"]*"/"release":"0.0.1-other"/' "$d/5.json" | reseal >"$tmp/release.json"
refuse 2 "counted by release 0.0.1-other, the first file by" count 14 --sum "$d"/[0-46].json "$tmp/release.json"
sed 's/"plan":5,/"plan":6,/' "$d/5.json" | reseal >"$tmp/plan.json"
refuse 2 "counted by plan 6 (891 tasks, method quad), this tool's is plan 5" count 14 --sum "$tmp/plan.json"
sed 's/"method":"quad"/"method":"mitm"/' "$d/5.json" | reseal >"$tmp/method.json"
refuse 2 "method mitm" count 14 --sum "$tmp/method.json"
sed 's/"done":126,/"done":127,/' "$d/5.json" | reseal >"$tmp/done.json"
refuse 2 "holds 127 tasks, not the 126 of its share" count 14 --sum "$tmp/done.json"
sed 's/"block":3,/"block":1,/' "$d/5.json" | reseal >"$tmp/block.json"
refuse 2 "shard 5 of 7 dealt in blocks of 1 tasks, this tool deals them in 3" count 14 --sum "$tmp/block.json"
b5=$(sed 's/.*"burnside":\([0-9]*\),"check":.*/\1/' "$d/5.json")
sed "s/\"burnside\":$b5/\"burnside\":$((b5 + 1))/" "$d/5.json" | reseal >"$tmp/burnside.json"
refuse 2 "do not add up to whole classes" count 14 --sum "$d"/[0-46].json "$tmp/burnside.json"
sed "s/\"burnside\":$b5/\"burnside\":$((b5 + 8 * 365596))/" "$d/5.json" | reseal >"$tmp/classes.json"
refuse 2 "more classes than solutions" count 14 --sum "$d"/[0-46].json "$tmp/classes.json"
# sums that contradict themselves within one shard: a total above its Burnside sum, sums without tasks
sed 's/"burnside":[0-9]*/"burnside":8/' "$d/5.json" | reseal >"$tmp/below.json"
refuse 2 "shard 5 of 7 has a total of " count 14 --sum "$d"/[0-46].json "$tmp/below.json"
"$bin" count 8 --shard 0/2 >"$tmp/e0.json"
"$bin" count 8 --shard 1/2 | sed 's/"total":0,"burnside":0/"total":8,"burnside":8/' | reseal >"$tmp/e1.json"
refuse 2 "e1.json: shard 1 of 2 holds no tasks but has non-zero sums" count 8 --sum "$tmp/e0.json" "$tmp/e1.json"
sed 's/"total":[0-9]*,"burnside":[0-9]*/"total":18446744073709551615,"burnside":18446744073709551615/' \
  "$d/5.json" | reseal >"$tmp/huge.json"
refuse 2 "overflow 64 bits" count 14 --sum "$d"/[0-46].json "$tmp/huge.json"
malformed() { # malformed NAME CONTENT: a file holding CONTENT, resealed, is refused as no shard document
  if [[ "$2" == *'"check":"'* && "$2" != *$'\n'* ]]; then printf '%s\n' "$2" | reseal >"$tmp/bad-$1.json"
  else printf '%s' "$2" >"$tmp/bad-$1.json"; fi
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
sed 's/"shards":7,/"shards":4294967295,/' <<<"$good" | reseal >"$tmp/many.json" # well formed, no --shard cut
refuse 2 "many.json: one of 4294967295 shards, more than --shard cuts (1000000)" count 14 --sum "$tmp/many.json"
refuse 1 "no-such.json: cannot open" count 14 --sum "$d"/[0-5].json "$tmp/no-such.json"
refuse 1 "$tmp: read error: Is a directory" count 14 --sum "$d"/[0-5].json "$tmp"

# --- the check value: a shard changed on its way is refused by name and line,
# before anything in it is believed, and sums edited under a recomputed check value miss the known
# counts
t5=$(sed 's/.*"total":\([0-9]*\),.*/\1/' "$d/5.json")
t5_less=$(sed "s/\"total\":$t5,/\"total\":$((t5 - 2)),/" "$d/5.json") # 2 fewer: sums that still fit
printf '%s\n' "$t5_less" >"$tmp/total.json"
refuse 2 "total.json: a damaged shard document: its check value does not match its bytes" \
  count 14 --sum "$d"/[0-46].json "$tmp/total.json"
refuse_stdin "-:6: a damaged shard document" "$(cat "$d"/[0-4].json)"$'\n'"$t5_less"$'\n'"$(cat "$d/6.json")"
for digit in 0 1 2 3 4 5; do # each of six one-digit changes to burnside (shard 1 of 2: six digits)
  bad=$(python3 -c 'import re, sys
line, k = sys.stdin.read().rstrip("\n"), int(sys.argv[1])
m = re.search(r"\"burnside\":([0-9]{6}),", line)
i = m.start(1) + k
print(line[:i] + str((int(line[i]) + 3) % 10) + line[i + 1:])' "$digit" <"$tmp/14-2/1.json")
  printf '%s\n' "$bad" >"$tmp/digit.json"
  refuse 2 "digit.json: a damaged shard document" count 14 --sum "$tmp/14-2/0.json" "$tmp/digit.json"
done
# sums zeroed with the tasks still "done": the check value binds the sums to the shard and its tasks
sed 's/"total":[0-9]*,"burnside":[0-9]*/"total":0,"burnside":0/' "$d/5.json" >"$tmp/zero.json"
refuse 2 "zero.json: a damaged shard document" count 14 --sum "$d"/[0-46].json "$tmp/zero.json"
# ... and with the check recomputed to fit (a forgery, or a machine that counted wrong), the sum
# misses n's known counts
reseal <"$tmp/zero.json" >"$tmp/zero-sealed.json"
refuse 2 "nqueens: the shards" count 14 --sum "$d"/[0-46].json "$tmp/zero-sealed.json" # not whole, or not known
b5_less=$((b5 - 8))
sed "s/\"total\":$t5,\"burnside\":$b5,/\"total\":$((t5 - 8)),\"burnside\":$b5_less,/" "$d/5.json" |
  reseal >"$tmp/eight.json" # one class of 8 fewer: whole, fitting, check recomputed
refuse 2 "the shards add up to total 365588 and unique 45751, but n = 14 has 365596" \
  count 14 --sum "$d"/[0-46].json "$tmp/eight.json"
# the check member itself damaged, or not lower-case hex
sed 's/"check":"\(.......\)./"check":"\1g/' "$d/5.json" >"$tmp/check-g.json"
refuse 2 "check-g.json: not a shard document" count 14 --sum "$d"/[0-46].json "$tmp/check-g.json"
c5=$(sed 's/.*"check":"\([0-9a-f]*\)".*/\1/' "$d/5.json")
sed "s/\"check\":\"$c5\"/\"check\":\"$(printf '%08x' $((0x$c5 ^ 1)))\"/" "$d/5.json" >"$tmp/check-bit.json"
refuse 2 "check-bit.json: a damaged shard document" count 14 --sum "$d"/[0-46].json "$tmp/check-bit.json"

# --- documents without a check value (an older release's, or the member removed): refused, unless
# --accept-unchecked takes them, which says so on stderr and still holds them to everything else
mkdir "$tmp/old"
for i in 0 1 2 3 4 5 6; do unseal <"$d/$i.json" >"$tmp/old/$i.json"; done
refuse 2 "old/3.json: shard 3 of 7 has no check value (an older release's, or it was removed), so damage in it cannot be found; --accept-unchecked takes it all the same" \
  count 14 --sum "$d"/[0-2].json "$tmp/old/3.json" "$d"/[4-6].json
refuse_stdin "-:1: shard 0 of 7 has no check value" "$(cat "$tmp/old"/*.json)"
r=$("$bin" count 14 --sum "$tmp/old"/[0-3].json "$d"/[4-6].json --accept-unchecked 2>"$tmp/err")
[[ $? -eq 0 && "$r" == '{"n":14,"total":365596,"unique":45752}' &&
   "$(cat "$tmp/err")" == "nqueens: 4 of 7 shards had no check value and were taken as they are (--accept-unchecked)" ]] ||
  fail "--accept-unchecked over 4 old shards: '$r', stderr '$(cat "$tmp/err")'"
r=$(cat "$tmp/old"/*.json | "$bin" count 14 --accept-unchecked --sum - 2>/dev/null)
[[ $? -eq 0 && "$r" == '{"n":14,"total":365596,"unique":45752}' ]] || fail "--accept-unchecked --sum -: '$r'"
refuse 2 "total.json: a damaged shard document" \
  count 14 --sum "$tmp/old"/[0-4].json "$tmp/old/6.json" "$tmp/total.json" --accept-unchecked
unseal <"$tmp/total.json" >"$tmp/old-total.json" # an unchecked edit is still held to the known counts
refuse 2 "but n = 14 has 365596 and 45752" \
  count 14 --sum "$tmp/old"/[0-4].json "$tmp/old/6.json" "$tmp/old-total.json" --accept-unchecked
refuse 2 "--accept-unchecked applies only to --sum" count 14 --accept-unchecked
refuse 2 "--accept-unchecked given twice" count 14 --sum "$d"/*.json --accept-unchecked --accept-unchecked

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
