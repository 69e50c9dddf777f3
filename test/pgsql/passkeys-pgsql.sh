#!/bin/sh
# test/pgsql/passkeys-pgsql.sh: the passkey store on PostgreSQL:
# test/unit/test_passkeys in its "pgsql" mode (the same checks as on
# SQLite: two handles standing for two servers, the one-time rule through
# hsc_passkey_accept, the seal column kept by its trigger, the seal switch
# of version 8; the upgrade of a version 6 database to 8) against a throwaway PostgreSQL that this
# script starts and stops (pg-tmp.sh).
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
. "$top_srcdir/test/pgsql/pg-tmp.sh"

W=$(mktemp -d "${TMPDIR:-/tmp}/hsc-pgpk.XXXXXX") || exit 1
trap 'pg_tmp_stop; rm -rf "$W"' EXIT INT TERM
if ! pg_tmp_start "$W"; then
    echo "not ok 1 - a throwaway PostgreSQL starts (install postgresql)"
    echo "1..1"
    exit 1
fi
for db in pk_store pk_switch pk_old pk_link; do
    pg_tmp_psql "CREATE DATABASE $db" || {
        echo "not ok 1 - CREATE DATABASE $db"
        echo "1..1"
        exit 1
    }
done
HSC_PG_CONNINFO=$PG_CONNINFO
export HSC_PG_CONNINFO
"$top_builddir/test/unit/test_passkeys" pgsql
