#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster on loopback and prints PG_DIR=... and DATABASE_URL_PG=...;
# `pg-throwaway.sh stop DIR` stops and removes it. The test runner uses it when DATABASE_URL_PG is unset.
# fsync is off (tests need no durability) unless PG_FSYNC=on (benchmarks compare with SQLite's synced commits).
set -euo pipefail
command -v initdb >/dev/null 2>&1 || PATH="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | tail -n1):$PATH"
# PostgreSQL refuses to run as root, so root runs it as the postgres user.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if [ "${1:-}" = stop ]; then
  as_pg pg_ctl -D "$2" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$2"
  exit 0
fi
command -v initdb >/dev/null 2>&1 || { echo "initdb not found: install PostgreSQL" >&2; exit 3; }
port=${PGPORT_THROWAWAY:-$((40000 + RANDOM % 20000))}
dir=$(mktemp -d /tmp/svc-pg.XXXXXX)
[ "$(id -u)" = 0 ] && chown postgres "$dir"
as_pg initdb -D "$dir" -U postgres --auth=trust >/dev/null
as_pg pg_ctl -D "$dir" -l "$dir/log" -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=${PG_FSYNC:-off}" -w start >/dev/null
echo "PG_DIR=$dir"
echo "DATABASE_URL_PG=postgres://postgres@127.0.0.1:$port/postgres"
