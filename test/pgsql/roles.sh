#!/bin/sh
# test/pgsql/roles.sh: the PostgreSQL roles of docs/several-servers.md, in
# TAP. Runs the doc's SQL blocks as written (as the superuser, then as the
# admin role) on a throwaway PostgreSQL, creates the schema with hsc-admin
# as the admin role, and then attacks the database as the httpd role:
# every write but hsc_revoke is refused, revoked_before only grows, and
# the pg_temp attack of issue 18 (a temporary hsc_changes with a trigger,
# then the one write the role may make) runs nothing as the owner. The
# same attack on a version-1 schema must succeed, so that this test is
# known to see it; hsc-admin init then upgrades that schema and takes the
# column grant back.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
ADMIN=${HSC_ADMIN:-$top_builddir/hsc-admin}
DOC=$top_srcdir/docs/several-servers.md
V1=$top_srcdir/hsc_core/sql/pgsql/001-users.sql
. "$top_srcdir/test/pgsql/pg-tmp.sh"

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
check() { # description command...: ok when the command succeeds
    d=$1; shift
    if "$@" >"$W/out" 2>&1; then ok "$d"; else notok "$d"; sed 's/^/# /' "$W/out"; fi
}
refuse() { # description command...: ok when the command fails
    d=$1; shift
    if "$@" >"$W/out" 2>&1; then notok "$d"; sed 's/^/# /' "$W/out"; else ok "$d"; fi
}
bail() { echo "Bail out! $1"; exit 1; }

W=$(mktemp -d "${TMPDIR:-/tmp}/hsc-roles.XXXXXX") || exit 1
trap 'pg_tmp_stop; rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
pg_tmp_start "$W" || bail "a throwaway PostgreSQL starts (install postgresql)"
[ -x "$ADMIN" ] || bail "hsc-admin is built ($ADMIN)"

# psql as ROLE on DB, reading SQL from standard input; stops at the first
# error, and fails then.
sql() { # role db
    pg_tmp_as "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -At -h "$PG_DIR/sock" \
        -p "$PG_PORT" -U "$1" -d "$2"
}
# The fenced sql block of the doc that contains a line matching $1.
doc_block() {
    awk -v pat="$1" '
        /^```sql$/ { inb = 1; buf = ""; hit = 0; next }
        inb && /^```$/ { if (hit) { printf "%s", buf; exit } inb = 0; next }
        inb { buf = buf $0 "\n"; if ($0 ~ pat) hit = 1 }' "$DOC"
}
val() { echo "$2" | sql "$1" "${3:-hsc}"; }
sql_file() { sql "$1" "$2" <"$3"; }

# --- the doc's setup, as written --------------------------------------------
val postgres "DROP DATABASE hsc" postgres >/dev/null || bail "drop pg-tmp's database"
doc_block 'CREATE ROLE hsc_httpd' >"$W/setup.sql"
grep -q 'REVOKE TEMPORARY' "$W/setup.sql" || bail "the doc's first block revokes TEMPORARY"
check "the doc's superuser block runs" sql_file postgres postgres "$W/setup.sql"
SPEC_ADMIN="pgsql:host=$PG_DIR/sock port=$PG_PORT dbname=hsc user=hsc_admin"
SPEC_HTTPD="pgsql:host=$PG_DIR/sock port=$PG_PORT dbname=hsc user=hsc_httpd"
check "hsc-admin init as the admin role" "$ADMIN" init "$SPEC_ADMIN"
if grep -q superuser "$W/out"; then notok "init as the admin role gives no superuser warning"
else ok "init as the admin role gives no superuser warning"; fi
add() { echo "$2-password" | "$ADMIN" add "$1" "$2" --password-stdin --force --kdf sha256-chain:1000; }
check "hsc-admin add as the admin role" add "$SPEC_ADMIN" alice
# The conninfo kept off the command line (and out of ps): a libpq service
# file names host, database and role; a password would go in ~/.pgpass or
# PGPASSFILE (docs/hsc-admin.md).
printf '[hsc-admin]\nhost=%s\nport=%s\ndbname=hsc\nuser=hsc_admin\n' \
    "$PG_DIR/sock" "$PG_PORT" >"$W/pg_service.conf"
list_by_service() {
    PGSERVICEFILE="$W/pg_service.conf" "$ADMIN" list "pgsql:service=hsc-admin" | grep -q '^alice'
}
check "hsc-admin finds the database by a service file (pgsql:service=...)" list_by_service
doc_block 'GRANT CONNECT ON DATABASE hsc TO hsc_httpd' >"$W/grants.sql"
grep -q 'hsc_revoke' "$W/grants.sql" || bail "the doc's grants name hsc_revoke"
check "the doc's grants run as the admin role" sql_file hsc_admin hsc "$W/grants.sql"

# --- what the httpd role may do -----------------------------------------------
hsc_httpd_reads() { [ "$(val hsc_httpd "SELECT count(*) FROM hsc_users")" = 1 ]; }
check "the httpd role reads a user" hsc_httpd_reads
check "the httpd role polls the change log" \
    val hsc_httpd "SELECT max(generation) FROM hsc_changes; SELECT generation FROM hsc_generation"
check "hsc-admin revoke as the httpd role (log out everywhere)" \
    "$ADMIN" revoke "$SPEC_HTTPD" alice
rb1=$(val hsc_admin "SELECT revoked_before FROM hsc_users WHERE username = 'alice'")
g1=$(val hsc_admin "SELECT gen FROM hsc_users WHERE username = 'alice'")
check "hsc_revoke as the httpd role" val hsc_httpd "SELECT hsc_revoke('alice', 5)"
rb2=$(val hsc_admin "SELECT revoked_before FROM hsc_users WHERE username = 'alice'")
g2=$(val hsc_admin "SELECT gen FROM hsc_users WHERE username = 'alice'")
if [ "$rb2" -gt "$rb1" ] 2>/dev/null; then ok "hsc_revoke to an earlier time still raises revoked_before ($rb1 -> $rb2)"
else notok "hsc_revoke to an earlier time still raises revoked_before ($rb1 -> $rb2)"; fi
if [ "$g1" -ge 1 ] 2>/dev/null && [ "$g2" = $((g1 + 1)) ]; then ok "each revocation raises gen by one (format 2: $g1 -> $g2)"
else notok "each revocation raises gen by one (format 2: $g1 -> $g2)"; fi

# --- what it may not ------------------------------------------------------------
refuse "the httpd role cannot lower revoked_before" \
    val hsc_httpd "UPDATE hsc_users SET revoked_before = 0"
refuse "the httpd role cannot set gen (bring format 2 cookies back)" \
    val hsc_httpd "UPDATE hsc_users SET gen = 0"
refuse "the httpd role cannot enable a user" \
    val hsc_httpd "UPDATE hsc_users SET disabled = false"
refuse "the httpd role cannot add a user" add "$SPEC_HTTPD" mallory
refuse "the httpd role cannot delete a user" val hsc_httpd "DELETE FROM hsc_users"
refuse "the httpd role cannot write the change log" \
    val hsc_httpd "DELETE FROM hsc_changes"
refuse "the httpd role cannot move the generation" \
    val hsc_httpd "UPDATE hsc_generation SET generation = 0"
refuse "the httpd role cannot change the store id" \
    val hsc_httpd "UPDATE hsc_meta SET store_id = repeat('0', 32)"
refuse "the httpd role cannot create a temporary table" \
    val hsc_httpd "CREATE TEMP TABLE t (i int)"
refuse "the httpd role cannot create a table in public" \
    val hsc_httpd "CREATE TABLE public.t (i int)"
refuse "the httpd role cannot call the change-log trigger" \
    val hsc_httpd "SELECT hsc_users_changed()"

# --- the pg_temp attack -------------------------------------------------------
# A temporary hsc_changes with a trigger that grants the role everything,
# then the one write the role may make. On version 1 the change-log trigger
# ran as the owner and found pg_temp.hsc_changes first.
attack() { # db revoke-statement
    sql hsc_httpd "$1" <<EOF
CREATE TEMP TABLE hsc_changes (generation bigint, username text,
                               changed timestamptz DEFAULT now());
GRANT ALL ON pg_temp.hsc_changes TO PUBLIC;
CREATE FUNCTION pg_temp.evil() RETURNS trigger LANGUAGE plpgsql AS \$\$
BEGIN
    EXECUTE 'GRANT ALL ON public.hsc_users TO hsc_httpd';
    RETURN NULL;
END \$\$;
CREATE TRIGGER evil AFTER INSERT ON pg_temp.hsc_changes
    FOR EACH ROW EXECUTE FUNCTION pg_temp.evil();
$2
EOF
}
escalated() { # db: 1 when hsc_httpd got UPDATE on hsc_users
    [ "$(echo "SELECT has_table_privilege('hsc_httpd', 'public.hsc_users', 'UPDATE')" \
        | sql postgres "$1")" = t ]
}
# Give TEMPORARY back for the attack: the pinned path must hold on its own.
val postgres "GRANT TEMPORARY ON DATABASE hsc TO hsc_httpd" >/dev/null
# Every statement of the attack must run, or the next check proves nothing.
check "the pg_temp attack's statements all run (TEMPORARY given back)" \
    attack hsc "SELECT hsc_revoke('alice', 6);"
if escalated hsc; then notok "the pg_temp attack runs nothing as the owner (version 2)"
else ok "the pg_temp attack runs nothing as the owner (version 2)"; fi
refuse "the httpd role still cannot lower revoked_before after it" \
    val hsc_httpd "UPDATE hsc_users SET revoked_before = 0"

# The same attack on a version-1 schema (its file, applied by hand, with the
# version-1 grants) succeeds: the test sees the hole it guards.
val postgres "CREATE DATABASE hsc_v1 OWNER hsc_admin" postgres >/dev/null
sql hsc_admin hsc_v1 <"$V1" >/dev/null 2>&1 \
    && val hsc_admin "INSERT INTO hsc_schema (version) VALUES (1);
INSERT INTO hsc_users (username, salt, kdf, authenticator, created, updated)
VALUES ('alice', decode(repeat('00', 16), 'hex'), 'sha256-chain:1000',
        decode(repeat('00', 32), 'hex'), 0, 0);
GRANT CONNECT, TEMPORARY ON DATABASE hsc_v1 TO hsc_httpd;
GRANT USAGE ON SCHEMA public TO hsc_httpd;
GRANT SELECT ON hsc_users, hsc_generation, hsc_changes, hsc_schema, hsc_meta
    TO hsc_httpd;
GRANT UPDATE (revoked_before) ON hsc_users TO hsc_httpd;" hsc_v1 >/dev/null \
    || bail "a version-1 database for the control"
attack hsc_v1 "UPDATE hsc_users SET revoked_before = 7 WHERE username = 'alice';" \
    >"$W/attack-v1.out" 2>&1
if escalated hsc_v1; then ok "control: the same attack escalates on a version-1 schema"
else notok "control: the same attack escalates on a version-1 schema"; sed 's/^/# /' "$W/attack-v1.out"; fi

# --- upgrading version 1 --------------------------------------------------------
echo "REVOKE ALL ON public.hsc_users FROM hsc_httpd; GRANT SELECT ON hsc_users TO hsc_httpd; GRANT UPDATE (revoked_before) ON hsc_users TO hsc_httpd;" \
    | sql hsc_admin hsc_v1 >/dev/null
SPEC_V1="pgsql:host=$PG_DIR/sock port=$PG_PORT dbname=hsc_v1 user=hsc_admin"
val postgres "CREATE DATABASE hsc_su" postgres >/dev/null
"$ADMIN" init "pgsql:host=$PG_DIR/sock port=$PG_PORT dbname=hsc_su user=postgres" \
    >"$W/su.out" 2>&1
if grep -q 'warning: connected as a PostgreSQL superuser' "$W/su.out"; then
    ok "hsc-admin init as a superuser warns"
else
    notok "hsc-admin init as a superuser warns"; sed 's/^/# /' "$W/su.out"
fi
check "hsc-admin init upgrades a version-1 schema" "$ADMIN" init "$SPEC_V1"
refuse "after the upgrade the httpd role cannot lower revoked_before" \
    val hsc_httpd "UPDATE hsc_users SET revoked_before = 0" hsc_v1
check "after the upgrade the httpd role revokes through hsc_revoke" \
    val hsc_httpd "SELECT hsc_revoke('alice', 8)" hsc_v1
if [ "$(val hsc_admin "SELECT max(version) FROM hsc_schema" hsc_v1)" = 3 ] \
    && [ "$(val hsc_httpd "SELECT gen FROM hsc_users WHERE username = 'alice'" hsc_v1)" = 1 ]; then
    ok "the upgrade reaches version 3: the httpd role reads gen, raised by hsc_revoke"
else notok "the upgrade reaches version 3: the httpd role reads gen, raised by hsc_revoke"; fi

# --- upgrading version 2 (before gen) -------------------------------------------
# A database of schema version 2, as mod_hsc 0.2 left it: files 1 and 2,
# a user and the version 2 grants; init brings it to 3 with the user at
# gen 0, and the httpd role's hsc_revoke raises gen without a new grant.
V2=$top_srcdir/hsc_core/sql/pgsql/002-revoke-only-grows.sql
val postgres "CREATE DATABASE hsc_v2 OWNER hsc_admin" postgres >/dev/null
cat "$V1" "$V2" | sql hsc_admin hsc_v2 >/dev/null 2>&1 \
    && val hsc_admin "INSERT INTO hsc_schema (version) VALUES (1), (2);
INSERT INTO hsc_users (username, salt, kdf, authenticator, created, updated)
VALUES ('carol', decode(repeat('00', 16), 'hex'), 'sha256-chain:1000',
        decode(repeat('00', 32), 'hex'), 0, 0);
GRANT CONNECT ON DATABASE hsc_v2 TO hsc_httpd;
GRANT USAGE ON SCHEMA public TO hsc_httpd;
GRANT SELECT ON hsc_users, hsc_generation, hsc_changes, hsc_schema, hsc_meta
    TO hsc_httpd;
GRANT EXECUTE ON FUNCTION hsc_revoke(text, bigint) TO hsc_httpd;" hsc_v2 >/dev/null \
    || bail "a version-2 database"
SPEC_V2="pgsql:host=$PG_DIR/sock port=$PG_PORT dbname=hsc_v2 user=hsc_admin"
check "hsc-admin init upgrades a version-2 schema" "$ADMIN" init "$SPEC_V2"
if [ "$(val hsc_httpd "SELECT gen FROM hsc_users WHERE username = 'carol'" hsc_v2)" = 0 ]; then
    ok "its user is kept, at gen 0, readable by the httpd role"
else notok "its user is kept, at gen 0, readable by the httpd role"; fi
check "the httpd role revokes there" val hsc_httpd "SELECT hsc_revoke('carol', 1)" hsc_v2
if [ "$(val hsc_admin "SELECT gen FROM hsc_users WHERE username = 'carol'" hsc_v2)" = 1 ]; then
    ok "raising gen through the replaced hsc_revoke, with the grant it had"
else notok "raising gen through the replaced hsc_revoke, with the grant it had"; fi
refuse "and still cannot set gen itself" \
    val hsc_httpd "UPDATE hsc_users SET gen = 0" hsc_v2

rm -f "$W/out"
echo "1..$n"
[ "$fails" = 0 ]
