#!/usr/bin/env bash
# 50-container.sh - container smoke test (a CI stage of scripts/test.sh): build the image from the
# Dockerfile, run it, check the non-root user, the built-in probe and GET /count?n=8, then send SIGTERM
# while a response is in flight and expect it to arrive whole and the container to exit 0 within the
# grace period.
#
# Engine: docker when it reaches an engine; otherwise podman-sandbox (a wrapper that runs rootless
# podman on machines without a Docker engine and without a registry), from NQ_PODMAN_SANDBOX or PATH;
# with neither, the stage is skipped with a message (a user with only the project and no container
# engine can still run the rest of the suite).
# Last, the container is started again on its volume (/var/lib/nqueens): the count made before must be
# known at once, with the same ETag.
# Env: NQ_CONTAINER_IMAGE (tag to build, default nqueens:smoke), NQ_PODMAN_SANDBOX (path of the tool).
set -euo pipefail
cd "$(dirname "$0")/../.."

image=${NQ_CONTAINER_IMAGE:-nqueens:smoke}
name=nqueens-smoke-$$
grace_s=5
sandbox=${NQ_PODMAN_SANDBOX:-$(command -v podman-sandbox || echo podman-sandbox)}

say() { printf '50-container: %s\n' "$*"; }
fail() { say "FAIL: $*" >&2; exit 1; }

if timeout 20 docker info >/dev/null 2>&1; then
  engine=(docker)
  build_flags=()
elif [[ -x $sandbox ]]; then
  "$sandbox" setup >/dev/null
  engine=("$sandbox" podman)
  build_flags=(--format docker --pull=never) # keep HEALTHCHECK; no registry here
elif [[ ${CI:-} == true ]]; then
  fail "no Docker engine answers and $sandbox is not there: CI must run this stage"
else
  say "SKIPPED: no Docker engine answers and $sandbox is not there"
  exit 0
fi
ctr() { "${engine[@]}" "$@"; }

work=$(mktemp -d)
cleanup() {
  ctr rm -f "$name" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

say "building $image with ${engine[*]}"
ctr build "${build_flags[@]}" -t "$image" . >/dev/null
# Keep the build stage tagged (a cached no-op build) so that pruning the untagged images of earlier
# runs keeps its toolchain layer: the next run then skips the apt-get of the build stage.
ctr build "${build_flags[@]}" --target build -t "${image%%:*}:build-cache" . >/dev/null
ctr image prune -f --filter label=org.opencontainers.image.title=nqueens >/dev/null # ours only

size=$(ctr image inspect --format '{{.Size}}' "$image")
say "image size $((size / 1024 / 1024)) MiB"
(( size < 150 * 1024 * 1024 )) || fail "image larger than 150 MiB"

# (podman-sandbox has no systemd to schedule health checks and says so on stderr: run it by hand below)
ctr run -d --name "$name" -p 127.0.0.1::8080 -e NQUEENSD_GRACE_S=$grace_s "$image" >/dev/null 2>"$work/run.err" \
  || fail "cannot run the image: $(cat "$work/run.err")"
port=$(ctr port "$name" 8080/tcp | head -1 | sed 's/.*://')
[[ $port =~ ^[0-9]+$ ]] || fail "no published port ($port)"
base=http://127.0.0.1:$port

for _ in $(seq 100); do
  curl -fsS -o /dev/null "$base/healthz" 2>/dev/null && break
  sleep 0.2
done
curl -fsS -o /dev/null "$base/healthz" || fail "/healthz not answering: $(ctr logs "$name" 2>&1 | tail -5)"

uid=$(ctr exec "$name" id -u)
[[ $uid == 10001 ]] || fail "runs as uid $uid, not 10001"
ctr exec "$name" nqueensd --probe || fail "nqueensd --probe inside the container failed"
if [[ ${engine[0]} != docker ]]; then
  ctr healthcheck run "$name" || fail "HEALTHCHECK failed" # no systemd here: run it by hand
fi

body=$(curl -fsS "$base/count?n=8")
[[ $body == '{"n":8,"total":92,"unique":12}' ]] || fail "/count?n=8 gave $body"
ready=$(curl -s -o /dev/null -w '%{http_code}' "$base/readyz")
[[ $ready == 200 ]] || fail "/readyz gave $ready"
etag_of() { curl -fsS -D - -o /dev/null "$1" | tr -d '\r' | awk 'tolower($1) == "etag:" { print $2 }'; }
etag=$(etag_of "$base/count?n=8")
say "/count?n=8 ok, /readyz 200, probe ok, uid $uid"

# SIGTERM while a response is in flight: every n=13 board (about 15 MB, streamed) read at 5 MB/s, so
# the request lasts about 3 s whatever the machine's speed. It must complete, then the exit be 0.
curl -s --limit-rate 5M -o "$work/body" -w '%{http_code}' "$base/solve?n=13" > "$work/code" &
inflight=$!
for _ in $(seq 300); do [[ -s $work/body ]] && break; sleep 0.1; done # the answer has begun to arrive
[[ -s $work/body ]] || fail "no byte of /solve?n=13 within 30 s"
start=$(date +%s%3N)
ctr kill --signal TERM "$name" >/dev/null
code=$(timeout $((grace_s + 10)) "${engine[@]}" wait "$name" | tail -1) || fail "container still running after SIGTERM"
elapsed_ms=$(( $(date +%s%3N) - start ))
wait "$inflight" || true
say "exit code $code after ${elapsed_ms} ms (grace ${grace_s} s); in-flight request got $(cat "$work/code")"
[[ $code == 0 ]] || fail "exit code $code: $(ctr logs "$name" 2>&1 | tail -5)"
(( elapsed_ms < (grace_s + 10) * 1000 )) || fail "took ${elapsed_ms} ms to stop" # a hang guard
[[ $(cat "$work/code") == 200 ]] || fail "the request in flight got $(cat "$work/code")"
[[ $(tail -c 12 "$work/body") == '"next":null}' ]] || fail "the response in flight was cut short"
say "the response in flight arrived whole ($(stat -c %s "$work/body") bytes)"

# The store is on the image's volume: the same container started again knows the count.
ctr start "$name" >/dev/null || fail "cannot start the container again"
port=$(ctr port "$name" 8080/tcp | head -1 | sed 's/.*://')
base=http://127.0.0.1:$port
for _ in $(seq 100); do
  curl -fsS -o /dev/null "$base/healthz" 2>/dev/null && break
  sleep 0.2
done
counts=$(curl -fsS "$base/counts") || fail "/counts not answering after the restart"
grep -q '"n":8,"status":"done","total":92,"unique":12' <<<"$counts" || fail "count lost in the restart: $counts"
[[ $(etag_of "$base/count?n=8") == "$etag" ]] || fail "the ETag of /count?n=8 changed across the restart"
ctr kill --signal TERM "$name" >/dev/null
timeout $((grace_s + 10)) "${engine[@]}" wait "$name" >/dev/null || fail "container still running after SIGTERM"
say "the count survived a container restart (store on the volume), same ETag"

logs=$(ctr logs "$name" 2>&1)
grep -q '"msg":"listening"' <<<"$logs" || fail "no start-up line in the logs"
grep -q '"path":"/count","query":"n=8"' <<<"$logs" || fail "no access line for /count?n=8"
grep -q '"msg":"draining","signal":"SIGTERM"' <<<"$logs" || fail "no draining line in the logs"
grep -q '"msg":"stopped"' <<<"$logs" || fail "no stopped line in the logs"
say "OK"
