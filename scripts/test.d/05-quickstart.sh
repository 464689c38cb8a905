#!/usr/bin/env bash
# 05-quickstart.sh - CI stage: the README's quick start, run as a newcomer runs it. From a fresh clone
# of this repository's HEAD (so what is committed, not what lies around in this checkout's build
# folders), `scripts/serve.sh` must build and start nqueensd; `curl /count?n=8` must get exactly
# {"n":8,"total":92,"unique":12}; SIGTERM must stop the server with exit status 0.
#
# The server listens on port 0 (the kernel picks a free one, so this never collides with anything);
# its start-up line ("msg":"listening") says which. The build is serve.sh's own: a release build of
# nqueensd and the CLI in the clone's build/serve, about a minute on 2 cores.
#   NQ_QUICKSTART_KEEP=1   keep the clone (its path is printed) instead of removing it
set -euo pipefail
cd "$(dirname "$0")/../.."

say() { printf '05-quickstart: %s\n' "$*"; }
fail() { say "FAIL: $*" >&2; [[ -s ${out:-} ]] && sed 's/^/  stdout: /' "$out" >&2; [[ -s ${err:-} ]] && tail -20 "$err" | sed 's/^/  stderr: /' >&2; exit 1; }

work=$(mktemp -d)
pid=""
cleanup() {
  [[ -n $pid ]] && kill -KILL "$pid" 2>/dev/null || true
  if [[ -n ${NQ_QUICKSTART_KEEP:-} ]]; then say "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

git clone -q "$PWD" "$work/nqueens"
say "fresh clone of $(git -C "$work/nqueens" rev-parse --short HEAD) in $work/nqueens"
out=$work/serve.out
err=$work/serve.err
t0=$SECONDS
# serve.sh ends by exec'ing nqueensd, so $! is the server itself once it runs.
(cd "$work/nqueens" && exec scripts/serve.sh --port 0 --bind 127.0.0.1) >"$out" 2>"$err" &
pid=$!

port=""
for _ in $(seq 1200); do # 10 minutes at most: the build comes first
  port=$(sed -n 's/.*"msg":"listening".*"port":\([0-9][0-9]*\).*/\1/p' "$out" | head -1)
  [[ -n $port ]] && break
  kill -0 "$pid" 2>/dev/null || fail "scripts/serve.sh exited before the server listened"
  sleep 0.5
done
[[ -n $port ]] || fail "no start-up line after 10 minutes"
say "built and listening on port $port after $((SECONDS - t0)) s"

body=$(curl -sS --max-time 30 "http://127.0.0.1:$port/count?n=8") || fail "curl failed"
want='{"n":8,"total":92,"unique":12}'
[[ $body == "$want" ]] || fail "GET /count?n=8 answered '$body', not '$want'"
say "GET /count?n=8 -> $body"

kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
pid=""
[[ $rc -eq 0 ]] || fail "nqueensd exited $rc after SIGTERM, not 0"
grep -q '"msg":"stopped"' "$out" || fail "no \"stopped\" line after SIGTERM"
say "SIGTERM: exit 0 (whole stage $((SECONDS - t0)) s)"
