#!/bin/sh
# test/pgsql/store-pgsql.sh: runs test/pgsql/test_store_pgsql (TAP) against a
# throwaway PostgreSQL that this script starts and stops (pg-tmp.sh).
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
. "$top_srcdir/test/pgsql/pg-tmp.sh"

W=$(mktemp -d "${TMPDIR:-/tmp}/hsc-pg.XXXXXX") || exit 1
trap 'pg_tmp_stop; rm -rf "$W"' EXIT INT TERM
if ! pg_tmp_start "$W"; then
    echo "not ok 1 - a throwaway PostgreSQL starts (install postgresql)"
    echo "1..1"
    exit 1
fi
HSC_PG_CONNINFO=$PG_CONNINFO
# The C test crashes and restarts the server through these.
lib=$(cd "$top_srcdir/test/pgsql" && pwd)/pg-tmp.sh
HSC_PG_STOP=". '$lib'; PG_DIR='$W' PG_BIN='$PG_BIN'; pg_tmp_stop"
HSC_PG_START=". '$lib'; PG_DIR='$W' PG_BIN='$PG_BIN' PG_PORT=$PG_PORT PG_LOG='$PG_LOG' PG_OPTS=''; pg_tmp_start_again"
# ... and stall it: the postmaster and every backend stopped, sockets open.
pg_pids="\$(head -1 '$W/pg/postmaster.pid') \$(pgrep -P \$(head -1 '$W/pg/postmaster.pid') | tr '\\n' ' ')"
HSC_PG_PAUSE="kill -STOP $pg_pids"
HSC_PG_RESUME="kill -CONT $pg_pids"
export HSC_PG_CONNINFO HSC_PG_STOP HSC_PG_START HSC_PG_PAUSE HSC_PG_RESUME
"$top_builddir/test/pgsql/test_store_pgsql"
