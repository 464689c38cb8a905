#!/usr/bin/env bash
# test_cli_man.sh - the man pages list what the binaries take, and render cleanly.
#   test_cli_man.sh PATH/TO/nqueens PATH/TO/nqueensd nqueens.1 nqueensd.8 docs/cli.md
# For each page: every option --help lists as an item of its own (a line starting with --NAME) is an
# item of the page, every option of --help's synopsis is in the page's SYNOPSIS, the page's version
# is --version's, and groff (and man, where installed) render it without a warning. nqueens.1 also
# has a subsection for every command of --help; nqueensd.8 lists every NQUEENSD_ variable of
# --help. docs/cli.md, the CLI's reference, names every option of nqueens --help.
set -uo pipefail
cli=${1:?usage: test_cli_man.sh nqueens nqueensd nqueens.1 nqueensd.8 docs/cli.md}
daemon=${2:?} page1=${3:?} page8=${4:?} doc=${5:?}
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# groff renders the pages; scripts/deps.sh --test installs it (groff-base), so its absence is a failure.
command -v groff >/dev/null 2>&1 || { echo "FAIL: no groff to render the man pages (Debian: groff-base)"; exit 1; }

# check_page NAME BIN PAGE: the checks every page gets; leaves --help in $tmp/NAME.help and the
# rendered page in $tmp/NAME.txt.
check_page() {
  local name=$1 bin=$2 page=$3
  "$bin" --help >"$tmp/$name.help" || fail "$name --help: status $?"
  groff -man -Tutf8 -ww "$page" >/dev/null 2>"$tmp/$name.warn"
  [[ -s $tmp/$name.warn ]] && fail "groff warns about $page: $(cat "$tmp/$name.warn")"
  if command -v man >/dev/null 2>&1; then
    MANWIDTH=80 man --warnings -l "$page" >/dev/null 2>"$tmp/$name.warn"
    [[ -s $tmp/$name.warn ]] && fail "man warns about $page: $(cat "$tmp/$name.warn")"
  fi
  # Plain text: no overstriking, no escape sequences.
  groff -man -Tascii -P-cbu "$page" 2>/dev/null >"$tmp/$name.txt"
  local version
  version=$("$bin" --version)
  grep -qF "$version" "$tmp/$name.txt" || fail "$page does not say '$version'"
  local items opt
  items=$(sed -n 's/^ *--\([a-z][a-z-]*\).*/\1/p' "$tmp/$name.help" | sort -u)
  [[ -n $items ]] || fail "$name --help lists no option"
  for opt in $items; do
    grep -qE -- "^ {7}--$opt( |$)" "$tmp/$name.txt" || fail "$page has no item for --$opt"
  done
  sed -n '/^SYNOPSIS/,/^[A-Z]/p' "$tmp/$name.txt" >"$tmp/$name.synopsis"
  for opt in $(grep -E "^(Usage: | +)$name " "$tmp/$name.help" | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
    grep -qE -- "$opt([^a-z-]|$)" "$tmp/$name.synopsis" || fail "$page's SYNOPSIS lacks $opt"
  done
}

check_page nqueens "$cli" "$page1"
check_page nqueensd "$daemon" "$page8"

# nqueens.1: a subsection for every command of --help's synopsis ("count N", "help [COMMAND]").
for head in $(sed -n 's/^\(Usage: \| *\)nqueens \([a-z][a-z]*\).*/\2/p' "$tmp/nqueens.help" | sort -u); do
  grep -qE "^   $head( |$)" "$tmp/nqueens.txt" || fail "nqueens.1 has no subsection for $head"
done
# nqueensd.8: every variable.
for var in $(grep -oE 'NQUEENSD_[A-Z_]+' "$tmp/nqueensd.help" | sort -u); do
  grep -qE "^ {7}$var$" "$tmp/nqueensd.txt" || fail "nqueensd.8 does not list $var under ENVIRONMENT"
done
# docs/cli.md names every option of the CLI.
for opt in $(sed -n 's/^ *--\([a-z][a-z-]*\).*/\1/p' "$tmp/nqueens.help" | sort -u); do
  grep -qF -- "--$opt" "$doc" || fail "$doc does not mention --$opt"
done

if (( failures > 0 )); then
  echo "$failures man page check(s) failed"
  exit 1
fi
echo "all man page checks passed"
