#!/bin/sh
# test/pgsql/tokens-pgsql.sh: app passwords and the activity store on
# PostgreSQL: test/unit/test_tokens and test/unit/test_activity in their
# "pgsql" mode (the same checks as on SQLite, two handles standing for two
# servers; the activity store through hsc_token_touch) against a throwaway
# PostgreSQL that this script starts and stops (pg-tmp.sh). Both outputs
# are one TAP stream, numbered again here.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
. "$top_srcdir/test/pgsql/pg-tmp.sh"

W=$(mktemp -d "${TMPDIR:-/tmp}/hsc-pgtk.XXXXXX") || exit 1
trap 'pg_tmp_stop; rm -rf "$W"' EXIT INT TERM
if ! pg_tmp_start "$W"; then
    echo "not ok 1 - a throwaway PostgreSQL starts (install postgresql)"
    echo "1..1"
    exit 1
fi
for db in tk_store tk_own tk_v4 ac_store ac_old; do
    pg_tmp_psql "CREATE DATABASE $db" || {
        echo "not ok 1 - CREATE DATABASE $db"
        echo "1..1"
        exit 1
    }
done
HSC_PG_CONNINFO=$PG_CONNINFO
export HSC_PG_CONNINFO
rc=0
"$top_builddir/test/unit/test_tokens" pgsql >"$W/tokens.tap" 2>&1 || rc=1
"$top_builddir/test/unit/test_activity" pgsql >"$W/activity.tap" 2>&1 || rc=1
# One plan: renumber the two streams' assertions, keep their comments.
cat "$W/tokens.tap" "$W/activity.tap" | awk '
    /^(not )?ok [0-9]+/ {
        n++; sub(/^ok [0-9]+/, "ok " n); sub(/^not ok [0-9]+/, "not ok " n)
        print; next }
    /^1\.\.[0-9]+$/ { plans++; next }
    { print }
    END { if (plans != 2) { n++; print "not ok " n " - both programs ran to their plan" }
          print "1.." n }'
exit $rc
