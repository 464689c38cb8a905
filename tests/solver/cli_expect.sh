# cli_expect.sh - the checks the CLI's shell tests share; sourced once bin, tmp and failures are set.
#   expect STATUS STDOUT ARGS...      stdout must equal STDOUT exactly ('*' = anything), status STATUS
#   expect_err STATUS PATTERN ARGS... stderr must contain PATTERN, stdout be empty, status STATUS
# Standard input is the caller's; a test that sets expect_input instead gives each command that file
# when it exists, else /dev/null.
# bin, tmp and failures are the sourcing test's (SC2154: assigned there, not here).
# shellcheck shell=bash disable=SC2154
: "${bin:?}" "${tmp:?}" "${failures:?}"

# The command under test, with its standard input.
cli_run() {
  if [[ -z ${expect_input:-} ]]; then
    "$bin" "$@"
  elif [[ -e $expect_input ]]; then
    "$bin" "$@" <"$expect_input"
  else
    "$bin" "$@" </dev/null
  fi
}

expect() {
  local want_status=$1 want_out=$2; shift 2
  local out status
  out=$(cli_run "$@" 2>"$tmp/err")
  status=$?
  if [[ $status -ne $want_status || ( "$want_out" != '*' && "$out" != "$want_out" ) ]]; then
    printf 'FAIL: nqueens %s\n  status %s (want %s)\n  stdout %s\n  want   %s\n  stderr %s\n' \
      "$*" "$status" "$want_status" "$out" "$want_out" "$(cat "$tmp/err")"
    failures=$((failures + 1))
  fi
}

expect_err() {
  local want_status=$1 pattern=$2; shift 2
  local out err status
  out=$(cli_run "$@" 2>"$tmp/err")
  status=$?
  err=$(cat "$tmp/err")
  if [[ $status -ne $want_status || -n "$out" || "$err" != *"$pattern"* ]]; then
    printf 'FAIL: nqueens %s\n  status %s (want %s)\n  stderr %s\n  want   *%s*\n' \
      "$*" "$status" "$want_status" "$err" "$pattern"
    failures=$((failures + 1))
  fi
}
