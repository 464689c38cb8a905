#!/usr/bin/env bash
# pg_test_server.sh - a throwaway PostgreSQL 15 for tests: a cluster in a directory of its own, reached
# only through a Unix socket in that directory (no TCP port), removed by stop.
#   scripts/pg_test_server.sh start DIR [PASSWORD]   make DIR (empty or missing), start a cluster there and
#                                                    print its connection string ("host=DIR user=nq
#                                                    dbname=postgres"); the user nq is its superuser.
#                                                    With PASSWORD, nq must give it (scram-sha-256; the
#                                                    printed string does not hold it), else trust.
#   scripts/pg_test_server.sh stop DIR [--keep]      stop it (fast: open sessions are cut) and remove DIR,
#                                                    or with --keep leave the cluster to start again
#   scripts/pg_test_server.sh restart DIR            start a stopped (--keep) cluster again
# initdb refuses to run as root, so as root the cluster runs as the user postgres (DIR is handed to it).
#   PG_BIN  PostgreSQL's programs (default: /usr/lib/postgresql/15/bin, Debian's postgresql-15)
set -euo pipefail

bin=${PG_BIN:-/usr/lib/postgresql/15/bin}
usage() { echo "usage: scripts/pg_test_server.sh start DIR [PASSWORD] | stop DIR [--keep] | restart DIR" >&2; exit 2; }
(( $# >= 2 )) || usage
cmd=$1 dir=$2
as_owner() { # run a PostgreSQL program as the cluster's owner
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}
start_cluster() {
  as_owner "$bin/pg_ctl" -D "$dir/data" -o "-k $dir -c listen_addresses='' -c fsync=off" -l "$dir/log" -w -t 60 \
    start >/dev/null
}

case $cmd in
  start)
    (( $# <= 3 )) || usage
    [[ -x $bin/initdb ]] || { echo "pg_test_server.sh: no $bin/initdb (install postgresql-15)" >&2; exit 1; }
    mkdir -p "$dir"
    dir=$(realpath "$dir")
    [[ -z $(ls -A "$dir") ]] || { echo "pg_test_server.sh: $dir is not empty" >&2; exit 1; }
    [[ $(id -u) -eq 0 ]] && chown postgres: "$dir"
    auth=(-A trust)
    if (( $# == 3 )); then
      printf '%s\n' "$3" >"$dir/pw"
      [[ $(id -u) -eq 0 ]] && chown postgres: "$dir/pw"
      auth=(-A scram-sha-256 --pwfile="$dir/pw")
    fi
    as_owner "$bin/initdb" -D "$dir/data" -U nq "${auth[@]}" >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; exit 1; }
    rm -f "$dir/pw"
    start_cluster || { cat "$dir/log" >&2; exit 1; }
    echo "host=$dir user=nq dbname=postgres"
    ;;
  restart)
    (( $# == 2 )) || usage
    dir=$(realpath "$dir")
    start_cluster || { cat "$dir/log" >&2; exit 1; }
    ;;
  stop)
    (( $# <= 3 )) || usage
    [[ -d $dir/data ]] || exit 0
    dir=$(realpath "$dir")
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    [[ ${3:-} == --keep ]] || rm -rf "$dir"
    ;;
  *) usage ;;
esac
