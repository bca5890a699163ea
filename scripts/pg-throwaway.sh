#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster on loopback and prints its URL; `stop DIR` removes it.
# Used by .ci/run and by developers who want the PostgreSQL store contract tests locally.
set -euo pipefail
if [ "${1:-}" = stop ]; then
  dir=$2
  runuser -u postgres -- pg_ctl -D "$dir" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
  exit 0
fi
command -v initdb >/dev/null || PATH="$(ls -d /usr/lib/postgresql/*/bin | tail -n1):$PATH"
port=${PGPORT_THROWAWAY:-55432}
dir=$(mktemp -d /tmp/svc-pg.XXXXXX)
chown postgres "$dir"
runuser -u postgres -- initdb -D "$dir" -U postgres --auth=trust >/dev/null
runuser -u postgres -- pg_ctl -D "$dir" -l "$dir/log" -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off" -w start >/dev/null
echo "PG_DIR=$dir"
echo "DATABASE_URL_PG=postgres://postgres@127.0.0.1:$port/postgres"
