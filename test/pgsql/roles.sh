#!/bin/sh
# test/pgsql/roles.sh: the PostgreSQL roles of docs/several-servers.md, in
# TAP. Runs the doc's SQL blocks as written (as the superuser, then as the
# admin role) on a throwaway PostgreSQL, creates the schema with hsc-admin
# as the admin role, and then attacks the database as the httpd role:
# every write but through its functions is refused, revoked_before only
# grows, each second-factor function does its one thing and no more (a
# TOTP step only rises, a link or code needs its hash, a password needs
# the current x_n or a link, no factor table is readable), app passwords
# are read by id and touched only through hsc_token_get and
# hsc_token_touch (no right on hsc_tokens or hsc_token_activity;
# hsc-admin token add, the list of everyone's and revoke --all work as
# the admin role, not as this one), a token of a user's own is made only
# through hsc_token_add with that user's x_n (schema version 6: not with
# a wrong one, another user's, for a disabled user, nor by a temporary
# sha256()), listed through hsc_tokens_of without its hash, and revoked
# through hsc_token_revoke only under its owner's name, and the pg_temp
# attack (a temporary hsc_changes with a trigger,
# then the one write the role may make) runs nothing as the owner. The
# same attack on a version-1 schema must succeed, so that this test is
# known to see it; hsc-admin init then upgrades that schema and takes the
# column grant back. Databases of versions 1 to 5, made from their files
# with the grants of their time, are upgraded to the last version
# (LATEST, the number of schema files) by hsc-admin init, and
# the httpd role may then call what the account page needs. Passkeys
# (version 7): registered through hsc_passkey_add only with the owner's
# x_n, an id once, accepted through hsc_passkey_accept only forwards,
# renamed and removed only under the owner's name, no right on their
# tables; a version-6 database upgraded to 8 grants them. The seal switch
# (version 8): on only with every passkey sealed, off only with a seal's z
# (the admin role's hsc_passkey_seal_off is not the httpd role's). The
# first passkey by an enrolment link (version 9): only with the link's
# secret, of its user, while the user has none, once. When passkeys were
# last used (version 10): the time and id only, through hsc_passkeys_used.
# A password change, hsc-admin revoke and disabling delete the user's
# links (version 11), with no new right for the httpd role; its
# hsc_revoke (sign out everywhere, a factor removed) keeps them.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
ADMIN=${HSC_ADMIN:-$top_builddir/hsc-admin}
V1=$top_srcdir/hsc_core/sql/pgsql/001-users.sql
LATEST=$(ls "$top_srcdir"/hsc_core/sql/pgsql/[0-9]*.sql | wc -l)
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
doc_block() { pg_doc_block "$1"; }
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
grep -q 'one-time links kept' "$W/out" && ok "... says it kept the links (no right on them)" \
    || { notok "... says it kept the links (no right on them)"; sed 's/^/# /' "$W/out"; }
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

# --- second factors, links, passwords (schema version 4) -----------------------
# hsc-admin works on pgsql: as on a file (as the admin role).
check "hsc-admin keygen" "$ADMIN" keygen "$W/keys"
check "hsc-admin add bob (admin)" add "$SPEC_ADMIN" bob
check "hsc-admin totp enrol on pgsql:" "$ADMIN" totp enrol "$SPEC_ADMIN" bob --keys "$W/keys"
grep -q '^otpauth://totp/' "$W/out" && ok "it prints the otpauth URI" || notok "it prints the otpauth URI"
check "hsc-admin recovery-codes on pgsql:" "$ADMIN" recovery-codes "$SPEC_ADMIN" bob --count 3
[ "$(grep -c . "$W/out")" = 3 ] && ok "three codes printed" || notok "three codes printed"
check "hsc-admin link on pgsql:" "$ADMIN" link "$SPEC_ADMIN" bob --for reset
check "hsc-admin link --list on pgsql:" "$ADMIN" link "$SPEC_ADMIN" --list
grep -q 'bob.*reset' "$W/out" && ok "the list names bob's reset link" || notok "the list names bob's reset link"
check "hsc-admin show on pgsql:" "$ADMIN" show "$SPEC_ADMIN" bob
grep -q '^totp: yes' "$W/out" && grep -q '^recovery codes left: 3$' "$W/out" && ok "show: TOTP on, 3 codes" \
    || { notok "show: TOTP on, 3 codes"; sed 's/^/# /' "$W/out"; }
check "hsc-admin totp reseal on pgsql:" "$ADMIN" totp reseal "$SPEC_ADMIN" --keys "$W/keys"

# Known values as the admin role: alice's x_n is 32 bytes of 09, her TOTP
# secret is sealed bytes 01, one recovery code, one reset link whose
# token hash is SHA-256 of 32 bytes of 0a.
XN9="'\\x$(printf '09%.0s' $(seq 32))'::bytea"
XN8="'\\x$(printf '08%.0s' $(seq 32))'::bytea"
TOK="sha256('\\x$(printf '0a%.0s' $(seq 32))'::bytea)"
val hsc_admin "UPDATE hsc_users SET authenticator = sha256($XN9) WHERE username = 'alice';
INSERT INTO hsc_totp VALUES ('alice', '\x01', 'SHA1', 6, 30, true, 0);
INSERT INTO hsc_recovery VALUES (sha256('\x0b'), 'alice', 0);
INSERT INTO hsc_links VALUES ($TOK, 'alice', 'reset', 9999999999, 0),
    (sha256('\x0c'), 'alice', 'enrol', 9999999999, 0);" >/dev/null \
    || bail "factor rows as the admin role"
for t in hsc_totp hsc_totp_used hsc_recovery hsc_links; do
    refuse "the httpd role cannot read $t" val hsc_httpd "SELECT * FROM $t"
done
refuse "the httpd role cannot mint a link" \
    val hsc_httpd "INSERT INTO hsc_links VALUES (sha256('\x0d'), 'alice', 'reset', 9999999999, 0)"
refuse "the httpd role cannot swap a TOTP secret" \
    val hsc_httpd "UPDATE hsc_totp SET sealed = '\x02'"
refuse "the httpd role cannot reset TOTP's last step" \
    val hsc_httpd "DELETE FROM hsc_totp_used"
# Not granted to PUBLIC: another role of the database calls none of them.
val postgres "CREATE ROLE hsc_other LOGIN; GRANT CONNECT ON DATABASE hsc TO hsc_other;
GRANT USAGE ON SCHEMA public TO hsc_other;" >/dev/null || bail "another role"
refuse "a role without the grants cannot accept a TOTP step" \
    val hsc_other "SELECT hsc_totp_accept('alice', 99999)"
refuse "nor set a password by a link" \
    val hsc_other "SELECT hsc_link_password(sha256('\x0c'), 'reset', '\x00', 'x', '\x00')"
refuse "nor read a user's factors" val hsc_other "SELECT * FROM hsc_factors_of('alice')"
one() { [ "$(val hsc_httpd "$1")" = "$2" ]; } # sql expected-output
adm() { [ "$(val hsc_admin "$1")" = "$2" ]; }
one4() { [ "$(val hsc_httpd "$1" hsc_v4)" = "$2" ]; }
check "hsc_totp_accept takes step 3000" one "SELECT hsc_totp_accept('alice', 3000)" t
check "... not 3000 again (a replay)" one "SELECT hsc_totp_accept('alice', 3000) IS NULL" t
check "... nor an older step" one "SELECT hsc_totp_accept('alice', 2970) IS NULL" t
check "the last step stays 3000" adm "SELECT last_at FROM hsc_totp_used WHERE username = 'alice'" 3000
check "hsc_factors_of reads one user's enrolment and codes left" \
    one "SELECT active, recovery_left FROM hsc_factors_of('alice')" "t|1"
check "hsc_totp_begin does not replace an active secret" \
    one "SELECT hsc_totp_begin('alice', '\x02', 'SHA1', 6, 30)" f
check "alice's secret is still hers" adm "SELECT sealed FROM hsc_totp WHERE username = 'alice'" '\x01'
check "a recovery code needs its hash" one "SELECT hsc_recovery_use('alice', sha256('\x0e')) IS NULL" t
check "... and is used once" one "SELECT hsc_recovery_use('alice', sha256('\x0b'))" t
check "... only once" one "SELECT hsc_recovery_use('alice', sha256('\x0b')) IS NULL" t
check "a link cannot be guessed" one "SELECT hsc_link_take(sha256('\x0f'), 'reset') IS NULL" t
check "an enrolment link sets no password" \
    one "SELECT hsc_link_password(sha256('\x0c'), 'enrol', '\x00', 'x', '\x00') IS NULL" t
check "a reset link does not serve another purpose" \
    one "SELECT hsc_link_take($TOK, 'invite') IS NULL" t
check "hsc_password_change without the current x_n changes nothing" \
    one "SELECT hsc_password_change('alice', $XN8, '\x00', 'x', sha256($XN8)) IS NULL" t
check "... so alice's password is as it was" adm "SELECT authenticator = sha256($XN9) FROM hsc_users WHERE username = 'alice'" t
links() { adm "SELECT count(*) FROM hsc_links WHERE username = '$1'" "$2"; } # user count
check "alice has two links" links alice 2
check "hsc_password_change with it (the account page)" \
    one "SELECT hsc_password_change('alice', $XN9, decode(repeat('00', 16), 'hex'), 'sha256-chain:1000', sha256($XN8))" t
# Version 11: a password change, hsc-admin revoke and disabling end the
# user's links in the same statement (the trigger hsc_users_links_end).
check "... and deleted her links with it (version 11)" links alice 0
relink() {
    val hsc_admin "INSERT INTO hsc_links VALUES ($TOK, 'alice', 'reset', 9999999999, 0),
    (sha256('\x0c'), 'alice', 'enrol', 9999999999, 0) ON CONFLICT DO NOTHING" >/dev/null
    check "alice has two links again" links alice 2
}
relink
check "the reset link sets the password once" \
    one "SELECT hsc_link_password($TOK, 'reset', decode(repeat('00', 16), 'hex'), 'sha256-chain:1000', sha256($XN9))" alice
check "... and her enrolment link went with it" links alice 0
check "... only once" \
    one "SELECT hsc_link_password($TOK, 'reset', decode(repeat('00', 16), 'hex'), 'sha256-chain:1000', sha256($XN8)) IS NULL" t
check "and the password is the link's" adm "SELECT authenticator = sha256($XN9) FROM hsc_users WHERE username = 'alice'" t
relink
check "hsc_revoke as the httpd role (sign out everywhere, a factor removed)" one "SELECT hsc_revoke('alice', 1) IS NOT NULL" t
check "... keeps alice's links (an enrolment link is a way back in)" links alice 2
check "hsc-admin revoke on pgsql:" "$ADMIN" revoke "$SPEC_ADMIN" alice
check "... deletes alice's links" links alice 0
check "... and not bob's (hsc-admin link above)" links bob 1
relink
check "hsc-admin disable on pgsql:" "$ADMIN" disable "$SPEC_ADMIN" alice
check "... deletes alice's links" links alice 0
check "hsc-admin enable on pgsql:" "$ADMIN" enable "$SPEC_ADMIN" alice
relink
check "hsc-admin passwd on pgsql:" sh -c "echo alice-password | '$ADMIN' passwd '$SPEC_ADMIN' alice --password-stdin --force --kdf sha256-chain:1000"
check "... deletes alice's links" links alice 0
check "bob's link is still there" links bob 1
val hsc_admin "UPDATE hsc_users SET authenticator = sha256($XN9) WHERE username = 'alice'" >/dev/null
refuse "the httpd role cannot run the links' trigger function" \
    val hsc_httpd "SELECT hsc_users_links_end()"
refuse "nor drop its trigger" val hsc_httpd "DROP TRIGGER hsc_users_links_end ON hsc_users"
refuse "nor delete a link" val hsc_httpd "DELETE FROM hsc_links"

# --- app passwords and their last use (schema version 5) ----------------------
# A token of alice's, written as hsc-admin writes it (the admin role, on
# the table itself); its id is 16 letters, its hash SHA-256 of 01.
TID=abcdefghijklmnop
check "the admin role writes hsc_tokens directly" val hsc_admin \
    "INSERT INTO hsc_tokens (id, username, name, secret_hash, scopes, created)
     VALUES ('$TID', 'alice', 'ci', sha256('\x01'), 'dav', 100)"
refuse "the httpd role cannot read hsc_tokens" val hsc_httpd "SELECT * FROM hsc_tokens"
refuse "nor mint a token" val hsc_httpd \
    "INSERT INTO hsc_tokens (id, username, name, secret_hash, created)
     VALUES ('qrstuvwxyz234567', 'alice', 'evil', sha256('\x02'), 0)"
check "the admin role revokes it" val hsc_admin "UPDATE hsc_tokens SET revoked = 200 WHERE id = '$TID'"
refuse "the httpd role cannot un-revoke a token" val hsc_httpd "UPDATE hsc_tokens SET revoked = 0"
refuse "nor delete one" val hsc_httpd "DELETE FROM hsc_tokens"
refuse "the httpd role cannot read hsc_token_activity" \
    val hsc_httpd "SELECT * FROM hsc_token_activity"
refuse "nor insert into it" val hsc_httpd \
    "INSERT INTO hsc_token_activity VALUES ('$TID', 1, '')"
refuse "nor update it" val hsc_httpd "UPDATE hsc_token_activity SET last_at = 0"
check "hsc_token_get reads the token by its id (owner, hash, revocation)" \
    one "SELECT username, secret_hash = sha256('\x01'), scopes, created, revoked FROM hsc_token_get('$TID')" \
    "alice|t|dav|100|200"
check "... and nothing for an unknown id" \
    one "SELECT count(*) FROM hsc_token_get('aaaaaaaaaaaaaaaa')" 0
check "hsc_token_touch records a use" \
    one "SELECT hsc_token_touch('$TID', 1000, '192.0.2.1')" t
check "... not an older one (NULL)" \
    one "SELECT hsc_token_touch('$TID', 900, '198.51.100.1') IS NULL" t
check "... nor the same second again" \
    one "SELECT hsc_token_touch('$TID', 1000, '198.51.100.2') IS NULL" t
check "the last use stays 1000 from 192.0.2.1" \
    adm "SELECT last_at, last_addr FROM hsc_token_activity WHERE id = '$TID'" "1000|192.0.2.1"
check "hsc_token_touch far in the future is cut to the database's clock" \
    one "SELECT hsc_token_touch('$TID', 99999999999, '192.0.2.2')" t
check "... a minute past now at most" \
    adm "SELECT last_at <= extract(epoch FROM now())::bigint + 60 FROM hsc_token_activity WHERE id = '$TID'" t
refuse "hsc_token_touch refuses a malformed id (the table's CHECK)" \
    val hsc_httpd "SELECT hsc_token_touch('NOT-AN-ID', 1, '')"
refuse "nor an address over 64 bytes" \
    val hsc_httpd "SELECT hsc_token_touch('$TID', 99999999999, repeat('a', 65))"
refuse "a role without the grants cannot read a token" \
    val hsc_other "SELECT * FROM hsc_token_get('$TID')"
refuse "nor record a use" \
    val hsc_other "SELECT hsc_token_touch('$TID', 5000, '')"
refuse "nor read hsc_tokens" val hsc_other "SELECT * FROM hsc_tokens"

# hsc-admin token on pgsql: (the PostgreSQL backend's token entries) as
# the admin role; refused as the httpd role, which has no right on the
# table. The printed token's id is found by hsc_token_get.
check "hsc-admin token add on pgsql: (admin)" \
    "$ADMIN" token add "$SPEC_ADMIN" bob --name laptop --scopes dav
TOKEN=$(grep '^hsc_' "$W/out")
BID=$(echo "$TOKEN" | cut -c5-20)
check "hsc_token_get finds the token hsc-admin printed" \
    one "SELECT username || ' ' || name || ' ' || scopes FROM hsc_token_get('$BID')" "bob laptop dav"
check "hsc-admin token list on pgsql: (admin)" "$ADMIN" token list "$SPEC_ADMIN" bob
grep -q "$BID" "$W/out" && ! grep -q "$TOKEN" "$W/out" && ok "it lists the token by id, never its secret" \
    || { notok "it lists the token by id, never its secret"; sed 's/^/# /' "$W/out"; }
refuse "hsc-admin token add as the httpd role is refused" \
    "$ADMIN" token add "$SPEC_HTTPD" bob --name evil
refuse "hsc-admin token list as the httpd role is refused" \
    "$ADMIN" token list "$SPEC_HTTPD"
refuse "hsc-admin token revoke as the httpd role is refused" \
    "$ADMIN" token revoke "$SPEC_HTTPD" bob --all
check "hsc_token_get: still live after the httpd role's attempt" \
    one "SELECT revoked FROM hsc_token_get('$BID')" 0
check "hsc-admin token revoke on pgsql: (admin)" "$ADMIN" token revoke "$SPEC_ADMIN" bob "$BID"
check "hsc_token_get sees it revoked" one "SELECT revoked > 0 FROM hsc_token_get('$BID')" t

# --- a user's own app passwords (schema version 6) ---------------------------
# The account page as the httpd role: hsc_token_add needs the owner's
# x_n (alice's is XN9 since the reset link above; bob's is set to XN8),
# hsc_tokens_of lists without the hash, hsc_token_revoke only under the
# owner's name. OID is the new token's id, OHASH its secret's hash.
OID=oooooooooooooooo
OHASH="sha256('\\x03'::bytea)"
val hsc_admin "UPDATE hsc_users SET authenticator = sha256($XN8) WHERE username = 'bob'" >/dev/null \
    || bail "bob's x_n as the admin role"
tadd() { # user xn id name: hsc_token_add's answer, NULL as "refused"
    val hsc_httpd "SELECT coalesce(hsc_token_add('$1', $2, '$3', $OHASH, '$4', 'dav', 0, 500)::text, 'refused')"
}
is() { [ "$1" = "$2" ]; }
owned() { val hsc_admin "SELECT count(*) FROM hsc_tokens WHERE id = '$1'"; }
check "hsc_token_add with a wrong x_n is refused (NULL)" \
    is "$(tadd alice "$XN8" $OID phone)" refused
check "... and stores nothing" is "$(owned $OID)" 0
val hsc_admin "UPDATE hsc_users SET authenticator = sha256($XN8) WHERE username = 'bob'" >/dev/null
check "hsc_token_add for alice with bob's own x_n is refused" \
    is "$(tadd alice "$XN8" $OID phone)" refused
check "hsc_token_add for a user who does not exist is refused" \
    is "$(tadd mallory "$XN9" $OID phone)" refused
check "hsc_token_add with a NULL x_n is refused" \
    is "$(tadd alice NULL $OID phone)" refused
check "... none of them stored anything" is "$(owned $OID)" 0
check "hsc_token_add with alice's x_n makes her token" \
    is "$(tadd alice "$XN9" $OID phone)" true
check "... stored once, hers, with the hash given" \
    adm "SELECT username || ' ' || name || ' ' || (secret_hash = $OHASH) FROM hsc_tokens WHERE id = '$OID'" "alice phone true"
check "a second live token of that name is refused (false, not NULL)" \
    is "$(tadd alice "$XN9" pppppppppppppppp phone)" false
check "the same id again is refused (false)" \
    is "$(tadd alice "$XN9" $OID other)" false
val hsc_admin "UPDATE hsc_users SET disabled = true WHERE username = 'alice'" >/dev/null
check "a disabled user's x_n makes no token" \
    is "$(tadd alice "$XN9" qqqqqqqqqqqqqqqq laptop)" refused
val hsc_admin "UPDATE hsc_users SET disabled = false WHERE username = 'alice'" >/dev/null
refuse "the httpd role still cannot insert into hsc_tokens" val hsc_httpd \
    "INSERT INTO hsc_tokens (id, username, name, secret_hash, created)
     VALUES ('rrrrrrrrrrrrrrrr', 'alice', 'evil', sha256('\x02'), 0)"
grep -q 'permission denied' "$W/out" && ok "... permission denied" \
    || { notok "... permission denied"; sed 's/^/# /' "$W/out"; }
check "hsc_tokens_of lists alice's tokens" \
    one "SELECT string_agg(id || ':' || name, ',' ORDER BY created) FROM hsc_tokens_of('alice')" "$TID:ci,$OID:phone"
refuse "hsc_tokens_of has no secret_hash column" \
    val hsc_httpd "SELECT secret_hash FROM hsc_tokens_of('alice')"
ohex=$(val hsc_admin "SELECT encode($OHASH, 'hex')")
val hsc_httpd "SELECT * FROM hsc_tokens_of('alice')" >"$W/of.out" 2>&1
if [ -n "$ohex" ] && grep -q "$OID" "$W/of.out" && ! grep -q "$ohex" "$W/of.out"; then
    ok "every column of hsc_tokens_of: the token, never its hash"
else notok "every column of hsc_tokens_of: the token, never its hash"; sed 's/^/# /' "$W/of.out"; fi
check "hsc_tokens_of('bob') has only bob's" \
    one "SELECT count(*) FROM hsc_tokens_of('bob') WHERE username <> 'bob'" 0
check "hsc_token_revoke of alice's token under bob's name changes nothing (NULL)" \
    one "SELECT hsc_token_revoke('bob', '$OID', 600) IS NULL" t
check "... it stays live" adm "SELECT revoked FROM hsc_tokens WHERE id = '$OID'" 0
check "hsc_token_revoke under alice's name revokes it" \
    one "SELECT hsc_token_revoke('alice', '$OID', 99999999999)" t
check "... at most a minute past the database's clock" \
    adm "SELECT revoked BETWEEN 1 AND extract(epoch FROM now())::bigint + 60 FROM hsc_tokens WHERE id = '$OID'" t
check "... once" one "SELECT hsc_token_revoke('alice', '$OID', 700) IS NULL" t
refuse "the httpd role still cannot un-revoke it" \
    val hsc_httpd "UPDATE hsc_tokens SET revoked = 0 WHERE id = '$OID'"
check "its name is free again: a new one with alice's x_n" \
    is "$(tadd alice "$XN9" ssssssssssssssss phone)" true
refuse "a role without the grants cannot make a token" \
    val hsc_other "SELECT hsc_token_add('alice', $XN9, 'tttttttttttttttt', $OHASH, 'x', '', 0, 0)"
refuse "nor list one" val hsc_other "SELECT * FROM hsc_tokens_of('alice')"
refuse "nor revoke one" val hsc_other "SELECT hsc_token_revoke('alice', 'ssssssssssssssss', 1)"
check "hsc-admin token list USER as the httpd role works (through hsc_tokens_of)" \
    "$ADMIN" token list "$SPEC_HTTPD" alice
grep -q "ssssssssssssssss" "$W/out" && ok "it lists alice's new token" \
    || { notok "it lists alice's new token"; sed 's/^/# /' "$W/out"; }

# --- passkeys (schema version 7) -----------------------------------------------
# As the httpd role: hsc_passkey_add needs the owner's x_n (alice's XN9,
# bob's XN8), the id once; hsc_passkeys_of lists without a key or seal
# hash; hsc_passkey_accept only moves forwards; rename and remove only
# under the owner's name; no right on the passkey tables.
PID="'\\x$(printf 'a1%.0s' $(seq 16))'::bytea"
PHANDLE="'\\x$(printf '11%.0s' $(seq 32))'::bytea"
PSEAL="sha256('\\x05'::bytea)"
padd() { # user xn id: hsc_passkey_add's answer, NULL as "refused"
    val hsc_httpd "SELECT coalesce(hsc_passkey_add('$1', $2, $PHANDLE, $3, -7, '\\x3059'::bytea, 0, true, true, true, 'internal', true, $PSEAL, 'phone', 100)::text, 'refused')"
}
pcount() { val hsc_admin "SELECT count(*) FROM hsc_passkeys WHERE cred_id = $PID"; }
check "hsc_passkey_add with a wrong x_n is refused (NULL)" \
    is "$(padd alice "$XN8" "$PID")" refused
check "hsc_passkey_add for a user who does not exist is refused" \
    is "$(padd mallory "$XN9" "$PID")" refused
check "hsc_passkey_add with a NULL x_n is refused" \
    is "$(padd alice NULL "$PID")" refused
check "... none of them stored anything, nor made a handle" \
    adm "SELECT (SELECT count(*) FROM hsc_passkeys) + (SELECT count(*) FROM hsc_passkey_users)" 0
val hsc_admin "UPDATE hsc_users SET disabled = true WHERE username = 'alice'" >/dev/null
check "a disabled user's x_n registers nothing" \
    is "$(padd alice "$XN9" "$PID")" refused
val hsc_admin "UPDATE hsc_users SET disabled = false WHERE username = 'alice'" >/dev/null
check "hsc_passkey_add with alice's x_n registers hers" \
    is "$(padd alice "$XN9" "$PID")" true
check "... once, hers, and her handle is made" \
    adm "SELECT count(*) || ' ' || min(p.username) || ' ' || bool_and(h.handle = $PHANDLE) FROM hsc_passkeys p JOIN hsc_passkey_users h USING (username)" "1 alice true"
check "... and her row holds its seal hash" \
    adm "SELECT passkey_seals = $PSEAL FROM hsc_users WHERE username = 'alice'" t
check "the same id again is refused (false), even for bob with his x_n" \
    is "$(padd bob "$XN8" "$PID")" false
refuse "the httpd role cannot read hsc_passkeys" val hsc_httpd "SELECT * FROM hsc_passkeys"
grep -q 'permission denied' "$W/out" && ok "... permission denied" \
    || { notok "... permission denied"; sed 's/^/# /' "$W/out"; }
refuse "nor hsc_passkey_users" val hsc_httpd "SELECT * FROM hsc_passkey_users"
refuse "nor insert a passkey" val hsc_httpd \
    "INSERT INTO hsc_passkeys (cred_id, username, alg, spki, name, created)
     VALUES ('\\x01', 'alice', -7, '\\x30', 'evil', 0)"
refuse "nor lower a passkey's last challenge" \
    val hsc_httpd "UPDATE hsc_passkeys SET last_challenge = 0, sign_count = 0"
refuse "nor write the seal column" \
    val hsc_httpd "UPDATE hsc_users SET passkey_seals = NULL"
refuse "hsc_passkeys_of has no key column" \
    val hsc_httpd "SELECT spki FROM hsc_passkeys_of('alice')"
refuse "nor a seal hash column" \
    val hsc_httpd "SELECT seal_hash FROM hsc_passkeys_of('alice')"
check "hsc_passkeys_of lists alice's, sealed" \
    one "SELECT name || ' ' || sealed FROM hsc_passkeys_of('alice')" "phone true"
check "hsc_passkeys_of('bob') is empty" \
    one "SELECT count(*) FROM hsc_passkeys_of('bob')" 0
check "hsc_passkey_get finds it by id, with its owner and handle" \
    one "SELECT username || ' ' || (handle = $PHANDLE) FROM hsc_passkey_get($PID)" "alice true"
check "hsc_passkey_accept accepts a first assertion" \
    one "SELECT hsc_passkey_accept($PID, 1000, 1)" t
check "... the same challenge again is refused (NULL)" \
    one "SELECT hsc_passkey_accept($PID, 1000, 2) IS NULL" t
check "... an older challenge is refused" \
    one "SELECT hsc_passkey_accept($PID, 999, 3) IS NULL" t
check "... a sign count going backwards is refused" \
    one "SELECT hsc_passkey_accept($PID, 2000, 0) IS NULL" t
check "... the stored state is the accepted one" \
    adm "SELECT last_challenge || ' ' || sign_count FROM hsc_passkeys" "1000 1"
check "hsc_passkeys_used says when (seconds): id and time only" \
    one "SELECT (cred_id = $PID) || ' ' || last_used FROM hsc_passkeys_used('alice')" "true 1"
check "hsc_passkeys_used('bob') is empty" \
    one "SELECT count(*) FROM hsc_passkeys_used('bob')" 0
refuse "a role without the grants cannot read when it was used" \
    val hsc_other "SELECT * FROM hsc_passkeys_used('alice')"
refuse "the httpd role cannot call hsc_grant_like_revoke (init's helper)" \
    val hsc_httpd "SELECT hsc_grant_like_revoke('hsc_passkeys_used(text)')"
check "hsc_passkey_rename under bob's name changes nothing (NULL)" \
    one "SELECT hsc_passkey_rename('bob', $PID, 'mine') IS NULL" t
check "hsc_passkey_remove under bob's name changes nothing (NULL)" \
    one "SELECT hsc_passkey_remove('bob', $PID) IS NULL" t
check "... alice's passkey is as it was" \
    adm "SELECT username || ' ' || name FROM hsc_passkeys" "alice phone"
check "hsc_passkey_rename under alice's name renames it" \
    one "SELECT hsc_passkey_rename('alice', $PID, 'old phone')" t
check "hsc_passkey_remove under alice's name removes it" \
    one "SELECT hsc_passkey_remove('alice', $PID)" t
check "... and its seal hash left her row" \
    adm "SELECT passkey_seals IS NULL FROM hsc_users WHERE username = 'alice'" t
refuse "a role without the grants cannot register a passkey" \
    val hsc_other "SELECT hsc_passkey_add('alice', $XN9, $PHANDLE, $PID, -7, '\\x30'::bytea, 0, false, false, false, '', false, NULL, 'x', 0)"
refuse "nor read one" val hsc_other "SELECT * FROM hsc_passkey_get($PID)"
refuse "nor accept an assertion" val hsc_other "SELECT hsc_passkey_accept($PID, 5000, 9)"
refuse "nor remove one" val hsc_other "SELECT hsc_passkey_remove('alice', $PID)"

# hsc-admin webauthn on pgsql: (the admin role, and list as the httpd
# role through hsc_passkeys_of).
check "a passkey of alice's again" is "$(padd alice "$XN9" "$PID")" true
PB64=oaGhoaGhoaGhoaGhoaGhoQ
check "hsc-admin webauthn list as the httpd role works" \
    "$ADMIN" webauthn list "$SPEC_HTTPD" alice
grep -q "^$PB64	phone	.*	sealed	" "$W/out" && ok "it lists alice's, its id in base64url" \
    || { notok "it lists alice's, its id in base64url"; sed 's/^/# /' "$W/out"; }
check "hsc-admin show as the admin role lists it" "$ADMIN" show "$SPEC_ADMIN" alice
grep -q '^passkey: "phone", created .*, sealed$' "$W/out" && ok "... name, created, sealed" \
    || { notok "... name, created, sealed"; sed 's/^/# /' "$W/out"; }
refuse "hsc-admin webauthn rename of alice's under bob's name" \
    "$ADMIN" webauthn rename "$SPEC_ADMIN" bob "$PB64" mine
check "hsc-admin webauthn rename as the admin role" \
    "$ADMIN" webauthn rename "$SPEC_ADMIN" alice "$PB64" "old phone"
check "... renamed" adm "SELECT name FROM hsc_passkeys" "old phone"
check "hsc-admin webauthn remove as the admin role" \
    "$ADMIN" webauthn remove "$SPEC_ADMIN" alice "$PB64"
check "... removed, and its seal hash left her row" \
    adm "SELECT (SELECT count(*) FROM hsc_passkeys) || ' ' || (passkey_seals IS NULL) FROM hsc_users WHERE username = 'alice'" "0 true"

# --- the seal switch (schema version 8) -----------------------------------------
# As the httpd role: hsc_passkey_seal_switch turns alice's switch on only
# while every passkey of hers is sealed, and off only with the z of one of
# them; hsc_passkey_seal_off (off without z) is the admin role's; an
# unsealed passkey is refused while the switch is on.
ZS="'\\x$(printf '5a%.0s' $(seq 32))'::bytea"
ZW="'\\x$(printf '5b%.0s' $(seq 32))'::bytea"
PID2="'\\x$(printf 'a2%.0s' $(seq 16))'::bytea"
PID3="'\\x$(printf 'a3%.0s' $(seq 16))'::bytea"
pk_add() { # id seal-expression: hsc_passkey_add of alice's, as the httpd role
    val hsc_httpd "SELECT hsc_passkey_add('alice', $XN9, $PHANDLE, $1, -7, '\\x3059'::bytea, 0, true, true, true, '', true, $2, 'key', 300)"
}
MARKED="SELECT octet_length(passkey_seals) >= 32 AND substring(passkey_seals FROM octet_length(passkey_seals) - 31) = decode(repeat('00', 32), 'hex') FROM hsc_users WHERE username = 'alice'"
check "an unsealed passkey of alice's" is "$(pk_add "$PID3" NULL)" t
check "the httpd role cannot turn her switch on while it is unsealed" \
    one "SELECT hsc_passkey_seal_switch('alice', true, NULL)" refused
check "(it removes that one)" one "SELECT hsc_passkey_remove('alice', $PID3)" t
check "a sealed passkey of alice's, SHA-256(z) its seal" \
    is "$(pk_add "$PID2" "sha256($ZS)")" t
check "the httpd role turns her switch on" \
    one "SELECT hsc_passkey_seal_switch('alice', true, NULL)" ok
check "... her row ends with the block of zeros" adm "$MARKED" t
refuse "an unsealed passkey is then refused (check_violation)" pk_add "$PID3" NULL
grep -q 'seal switch is on' "$W/out" && ok "... naming the switch" \
    || { notok "... naming the switch"; sed 's/^/# /' "$W/out"; }
check "the httpd role cannot turn it off without a seal" \
    one "SELECT hsc_passkey_seal_switch('alice', false, NULL)" refused
check "nor with a z of no passkey of hers" \
    one "SELECT hsc_passkey_seal_switch('alice', false, $ZW)" refused
refuse "nor call the admin role's off" \
    val hsc_httpd "SELECT hsc_passkey_seal_off('alice')"
refuse "nor write the seal column around them" \
    val hsc_httpd "UPDATE hsc_users SET passkey_seals = sha256($ZS) WHERE username = 'alice'"
check "... the switch is still on" adm "$MARKED" t
refuse "a role without the grants cannot touch the switch" \
    val hsc_other "SELECT hsc_passkey_seal_switch('alice', false, $ZS)"
check "the httpd role turns it off with her passkey's z" \
    one "SELECT hsc_passkey_seal_switch('alice', false, $ZS)" ok
check "... off, her seal hash kept" \
    adm "SELECT passkey_seals = sha256($ZS) FROM hsc_users WHERE username = 'alice'" t
check "on again" one "SELECT hsc_passkey_seal_switch('alice', true, NULL)" ok
check "hsc-admin show as the admin role says so" "$ADMIN" show "$SPEC_ADMIN" alice
grep -q '^seal required: yes$' "$W/out" && ok "... seal required: yes" \
    || { notok "... seal required: yes"; sed 's/^/# /' "$W/out"; }
check "hsc-admin webauthn require-seal off as the admin role (no z)" \
    "$ADMIN" webauthn require-seal "$SPEC_ADMIN" alice off
check "... off" adm "$MARKED" f
refuse "hsc-admin webauthn require-seal off as the httpd role fails (no z)" \
    "$ADMIN" webauthn require-seal "$SPEC_HTTPD" alice off
check "hsc-admin webauthn require-seal on as the httpd role" \
    "$ADMIN" webauthn require-seal "$SPEC_HTTPD" alice on
check "... on" adm "$MARKED" t
check "removing her last passkey turns it off" \
    one "SELECT hsc_passkey_remove('alice', $PID2)" t
check "... no seal column left" \
    adm "SELECT passkey_seals IS NULL FROM hsc_users WHERE username = 'alice'" t

# --- the first passkey by an enrolment link (schema version 9) ----------------
# As the httpd role: hsc_passkey_add_link adds a passkey without x_n only
# given an enrolment link's hash (the SHA-256 of the secret in the URL;
# the role cannot read hsc_links, so only the secret gives it), of that
# link's user, while the user has no passkey; the link's delete and the add are one transaction, so a second
# use adds nothing, and a refusal keeps the link.
check "lou, a user with no passkey" add "$SPEC_ADMIN" lou
LTOK="'\\x$(printf '1e%.0s' $(seq 32))'::bytea"
val hsc_admin "INSERT INTO hsc_links VALUES (sha256($LTOK), 'lou', 'enrol', 9999999999, 0),
    (sha256('\x1f'), 'lou', 'reset', 9999999999, 0)" >/dev/null \
    || bail "lou's links as the admin role"
LH="'\\x$(printf '1c%.0s' $(seq 32))'::bytea"
LID() { echo "'\\x$(printf "$1%.0s" $(seq 16))'::bytea"; }
pk_link() { # token user id: hsc_passkey_add_link as the httpd role
    val hsc_httpd "SELECT hsc_passkey_add_link($1, '$2', $LH, $3, -7, '\\x3059'::bytea, 0, true, true, true, '', true, NULL, 'key', 300)"
}
check "a forged link adds nothing" is "$(pk_link "'\\x00'::bytea" lou "$(LID b1)")" link
check "the link's secret instead of its hash adds nothing" \
    is "$(pk_link "$LTOK" lou "$(LID b1)")" link
check "a reset link adds nothing" is "$(pk_link "sha256('\\x1f')" lou "$(LID b1)")" link
check "lou's link adds nothing of alice's" is "$(pk_link "sha256($LTOK)" alice "$(LID b1)")" link
check "(alice registers one, id b9)" is "$(pk_add "$(LID b9)" NULL)" t
check "an id taken already: refused" is "$(pk_link "sha256($LTOK)" lou "$(LID b9)")" exists
check "... and the link stays" adm "SELECT count(*) FROM hsc_links WHERE username = 'lou' AND purpose = 'enrol'" 1
check "lou's enrolment link adds his first passkey" is "$(pk_link "sha256($LTOK)" lou "$(LID b1)")" ok
check "... the link is gone" adm "SELECT count(*) FROM hsc_links WHERE username = 'lou' AND purpose = 'enrol'" 0
check "... one passkey, his handle made" \
    adm "SELECT count(*) FROM hsc_passkeys p JOIN hsc_passkey_users u USING (username) WHERE username = 'lou' AND u.handle = $LH" 1
check "the same link again adds nothing" is "$(pk_link "sha256($LTOK)" lou "$(LID b2)")" link
val hsc_admin "INSERT INTO hsc_links VALUES (sha256($LTOK), 'lou', 'enrol', 9999999999, 0)" >/dev/null
check "a new link while lou has a passkey: refused" is "$(pk_link "sha256($LTOK)" lou "$(LID b2)")" has
check "... and that link stays" adm "SELECT count(*) FROM hsc_links WHERE username = 'lou' AND purpose = 'enrol'" 1
check "... still one passkey" adm "SELECT count(*) FROM hsc_passkeys WHERE username = 'lou'" 1
val hsc_admin "DELETE FROM hsc_passkeys WHERE username = 'lou'; UPDATE hsc_links SET expires = 1 WHERE username = 'lou'" >/dev/null
check "an expired link adds nothing" is "$(pk_link "sha256($LTOK)" lou "$(LID b2)")" link
refuse "a role without the grants cannot call it" \
    val hsc_other "SELECT hsc_passkey_add_link($LTOK, 'lou', $LH, $(LID b3), -7, '\\x3059'::bytea, 0, true, true, true, '', true, NULL, 'key', 300)"
refuse "the httpd role cannot insert a passkey around it" \
    val hsc_httpd "INSERT INTO hsc_passkeys (cred_id, username, alg, spki, name, created) VALUES ($(LID b4), 'lou', -7, '\\x3059', 'k', 0)"

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
# A temporary sha256() that says every x_n is alice's: the pinned search
# path (pg_catalog first) must keep hsc_password_change on the real one.
sql hsc_httpd hsc >"$W/attack-fx.out" 2>&1 <<EOF
CREATE FUNCTION pg_temp.sha256(bytea) RETURNS bytea LANGUAGE sql
    AS \$f\$SELECT authenticator FROM public.hsc_users WHERE username = 'alice'\$f\$;
SELECT coalesce(hsc_password_change('alice', '\x00', '\x00', 'x', '\x00')::text, 'refused');
EOF
if grep -q '^refused$' "$W/attack-fx.out"; then ok "a temporary sha256() does not fool hsc_password_change"
else notok "a temporary sha256() does not fool hsc_password_change"; sed 's/^/# /' "$W/attack-fx.out"; fi

# The same temporary sha256() against hsc_token_add (version 6).
sql hsc_httpd hsc >"$W/attack-own.out" 2>&1 <<EOF
CREATE FUNCTION pg_temp.sha256(bytea) RETURNS bytea LANGUAGE sql
    AS \$f\$SELECT authenticator FROM public.hsc_users WHERE username = 'alice'\$f\$;
SELECT 'own:' || coalesce(hsc_token_add('alice', '\x00', 'uuuuuuuuuuuuuuuu', decode(repeat('04', 32), 'hex'), 'evil', '', 0, 0)::text, 'refused');
EOF
if grep -q '^own:refused$' "$W/attack-own.out"; then ok "a temporary sha256() does not fool hsc_token_add"
else notok "a temporary sha256() does not fool hsc_token_add"; sed 's/^/# /' "$W/attack-own.out"; fi

# A temporary hsc_tokens and hsc_token_activity: the functions name
# their tables with the schema, so neither is found first.
sql hsc_httpd hsc >"$W/attack-tk.out" 2>&1 <<EOF
CREATE TEMP TABLE hsc_tokens AS SELECT * FROM hsc_token_get('$TID');
UPDATE pg_temp.hsc_tokens SET revoked = 0, id = 'qrstuvwxyz234567';
CREATE TEMP TABLE hsc_token_activity (id text PRIMARY KEY, last_at bigint, last_addr text);
SELECT 'get:' || count(*) FROM hsc_token_get('qrstuvwxyz234567');
SELECT 'revoked:' || revoked FROM hsc_token_get('$TID');
SELECT 'touch:' || coalesce(hsc_token_touch('$TID', 1, 'x')::text, 'kept');
EOF
if grep -q '^get:0$' "$W/attack-tk.out" && grep -q '^revoked:200$' "$W/attack-tk.out" \
    && grep -q '^touch:kept$' "$W/attack-tk.out"; then
    ok "temporary token tables do not fool hsc_token_get or hsc_token_touch"
else notok "temporary token tables do not fool hsc_token_get or hsc_token_touch"; sed 's/^/# /' "$W/attack-tk.out"; fi

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
if [ "$(val hsc_admin "SELECT max(version) FROM hsc_schema" hsc_v1)" = "$LATEST" ] \
    && [ "$(val hsc_httpd "SELECT gen FROM hsc_users WHERE username = 'alice'" hsc_v1)" = 1 ]; then
    ok "the upgrade reaches version $LATEST: the httpd role reads gen, raised by hsc_revoke"
else notok "the upgrade reaches version $LATEST: the httpd role reads gen, raised by hsc_revoke"; fi

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
# Version 4 came with it: the role that could call hsc_revoke may call the
# factor functions, without a new GRANT, and still reads no factor table.
check "after the upgrade the httpd role accepts a TOTP step there" \
    val hsc_httpd "SELECT hsc_totp_accept('carol', 30)" hsc_v2
refuse "but reads no factor table" val hsc_httpd "SELECT * FROM hsc_totp_used" hsc_v2

# --- upgrading version 3 (before second factors) --------------------------------
# A database of schema version 3, as the release before second factors
# left it, with its grants: init brings it to 4, its user keeps gen, and
# the httpd role may use the new functions (and reads no factor table).
V3=$top_srcdir/hsc_core/sql/pgsql/003-gen.sql
val postgres "CREATE DATABASE hsc_v3 OWNER hsc_admin" postgres >/dev/null
cat "$V1" "$V2" "$V3" | sql hsc_admin hsc_v3 >/dev/null 2>&1 \
    && val hsc_admin "INSERT INTO hsc_schema (version) VALUES (1), (2), (3);
INSERT INTO hsc_users (username, salt, kdf, authenticator, created, updated, gen)
VALUES ('erin', decode(repeat('00', 16), 'hex'), 'sha256-chain:1000',
        decode(repeat('00', 32), 'hex'), 0, 0, 5);
GRANT CONNECT ON DATABASE hsc_v3 TO hsc_httpd;
GRANT USAGE ON SCHEMA public TO hsc_httpd;
GRANT SELECT ON hsc_users, hsc_generation, hsc_changes, hsc_schema, hsc_meta
    TO hsc_httpd;
GRANT EXECUTE ON FUNCTION hsc_revoke(text, bigint) TO hsc_httpd;" hsc_v3 >/dev/null \
    || bail "a version-3 database"
SPEC_V3="pgsql:host=$PG_DIR/sock port=$PG_PORT dbname=hsc_v3 user=hsc_admin"
check "hsc-admin init upgrades a version-3 schema" "$ADMIN" init "$SPEC_V3"
if [ "$(val hsc_admin "SELECT max(version) FROM hsc_schema" hsc_v3)" = "$LATEST" ] \
    && [ "$(val hsc_httpd "SELECT gen FROM hsc_users WHERE username = 'erin'" hsc_v3)" = 5 ]; then
    ok "version $LATEST, and erin kept her gen"
else notok "version $LATEST, and erin kept her gen"; fi
check "the httpd role reads erin's (empty) factors there" \
    val hsc_httpd "SELECT recovery_left FROM hsc_factors_of('erin')" hsc_v3
refuse "and reads no factor table" val hsc_httpd "SELECT * FROM hsc_totp" hsc_v3

# --- upgrading version 4 (before app passwords) ---------------------------------
# A database of schema version 4, as the release before app passwords
# left it, with the doc's grants of then (no token function): init brings
# it to 5, and the httpd role may call hsc_token_get and hsc_token_touch
# with no new GRANT, and still has no right on the token tables.
V4=$top_srcdir/hsc_core/sql/pgsql/004-factors.sql
val postgres "CREATE DATABASE hsc_v4 OWNER hsc_admin" postgres >/dev/null
cat "$V1" "$V2" "$V3" "$V4" | sql hsc_admin hsc_v4 >/dev/null 2>&1 \
    && val hsc_admin "INSERT INTO hsc_schema (version) VALUES (1), (2), (3), (4);
INSERT INTO hsc_users (username, salt, kdf, authenticator, created, updated)
VALUES ('frank', decode(repeat('00', 16), 'hex'), 'sha256-chain:1000',
        decode(repeat('00', 32), 'hex'), 0, 0);
GRANT CONNECT ON DATABASE hsc_v4 TO hsc_httpd;
GRANT USAGE ON SCHEMA public TO hsc_httpd;
GRANT SELECT ON hsc_users, hsc_generation, hsc_changes, hsc_schema, hsc_meta
    TO hsc_httpd;
GRANT EXECUTE ON FUNCTION hsc_revoke(text, bigint) TO hsc_httpd;
GRANT EXECUTE ON FUNCTION hsc_factors_of(text),
    hsc_totp_accept(text, bigint), hsc_password_change(text, bytea, bytea, text, bytea)
    TO hsc_httpd;" hsc_v4 >/dev/null \
    || bail "a version-4 database"
refuse "on version 4 there is no hsc_token_get" \
    val hsc_httpd "SELECT * FROM hsc_token_get('$TID')" hsc_v4
SPEC_V4="pgsql:host=$PG_DIR/sock port=$PG_PORT dbname=hsc_v4 user=hsc_admin"
check "hsc-admin init upgrades a version-4 schema" "$ADMIN" init "$SPEC_V4"
if [ "$(val hsc_admin "SELECT max(version) FROM hsc_schema" hsc_v4)" = "$LATEST" ]; then
    ok "it reaches version $LATEST"
else notok "it reaches version $LATEST"; fi
val hsc_admin "INSERT INTO hsc_tokens (id, username, name, secret_hash, created)
    VALUES ('$TID', 'frank', 'ci', sha256('\x01'), 7)" hsc_v4 >/dev/null
check "after the upgrade the httpd role reads a token through hsc_token_get" \
    one4 "SELECT username FROM hsc_token_get('$TID')" frank
check "and records its use through hsc_token_touch" \
    one4 "SELECT hsc_token_touch('$TID', 10, '192.0.2.3')" t
refuse "but reads no token table" val hsc_httpd "SELECT * FROM hsc_tokens" hsc_v4
refuse "nor writes the activity table" \
    val hsc_httpd "UPDATE hsc_token_activity SET last_at = 0" hsc_v4
refuse "a role that could not call hsc_revoke got nothing" \
    val hsc_other "SELECT * FROM hsc_token_get('$TID')" hsc_v4
# The chain from version 3 came to 6 as well, grants included.
check "the version-3 database, upgraded, has hsc_token_touch for the httpd role" \
    val hsc_httpd "SELECT hsc_token_touch('$TID', 1, '')" hsc_v3
check "and hsc_tokens_of (version 6) there too" \
    val hsc_httpd "SELECT count(*) FROM hsc_tokens_of('erin')" hsc_v3

# --- upgrading version 5 (before the account page's app passwords) ---------------
# A database of schema version 5, as the release before version 6 left
# it, with the doc's grants of then (hsc_token_get and hsc_token_touch, no
# hsc_token_add): init brings it to 6, and the httpd role may make a
# token of a user's own with that user's x_n, list and revoke it, with no
# new GRANT, and still has no right on the token table.
V5=$top_srcdir/hsc_core/sql/pgsql/005-tokens.sql
val postgres "CREATE DATABASE hsc_v5 OWNER hsc_admin" postgres >/dev/null
cat "$V1" "$V2" "$V3" "$V4" "$V5" | sql hsc_admin hsc_v5 >/dev/null 2>&1 \
    && val hsc_admin "INSERT INTO hsc_schema (version) VALUES (1), (2), (3), (4), (5);
INSERT INTO hsc_users (username, salt, kdf, authenticator, created, updated)
VALUES ('grace', decode(repeat('00', 16), 'hex'), 'sha256-chain:1000',
        sha256($XN9), 0, 0);
INSERT INTO hsc_tokens (id, username, name, secret_hash, created)
VALUES ('$TID', 'grace', 'ci', sha256('\x01'), 7);
GRANT CONNECT ON DATABASE hsc_v5 TO hsc_httpd;
GRANT USAGE ON SCHEMA public TO hsc_httpd;
GRANT SELECT ON hsc_users, hsc_generation, hsc_changes, hsc_schema, hsc_meta
    TO hsc_httpd;
GRANT EXECUTE ON FUNCTION hsc_revoke(text, bigint) TO hsc_httpd;
GRANT EXECUTE ON FUNCTION hsc_factors_of(text),
    hsc_totp_accept(text, bigint), hsc_password_change(text, bytea, bytea, text, bytea)
    TO hsc_httpd;
GRANT EXECUTE ON FUNCTION hsc_token_get(text), hsc_token_touch(text, bigint, text)
    TO hsc_httpd;" hsc_v5 >/dev/null \
    || bail "a version-5 database"
one5() { [ "$(val hsc_httpd "$1" hsc_v5)" = "$2" ]; }
refuse "on version 5 there is no hsc_token_add" \
    val hsc_httpd "SELECT hsc_token_add('grace', $XN9, '$OID', $OHASH, 'x', '', 0, 0)" hsc_v5
SPEC_V5="pgsql:host=$PG_DIR/sock port=$PG_PORT dbname=hsc_v5 user=hsc_admin"
SPEC_V5_HTTPD="pgsql:host=$PG_DIR/sock port=$PG_PORT dbname=hsc_v5 user=hsc_httpd"
refuse "this build's hsc-admin as the httpd role refuses version 5 (needs an upgrade)" \
    "$ADMIN" token list "$SPEC_V5_HTTPD" grace
grep -q 'schema version 5 needs an upgrade' "$W/out" && ok "... naming the upgrade" \
    || { notok "... naming the upgrade"; sed 's/^/# /' "$W/out"; }
check "hsc-admin init upgrades a version-5 schema" "$ADMIN" init "$SPEC_V5"
if [ "$(val hsc_admin "SELECT max(version) FROM hsc_schema" hsc_v5)" = "$LATEST" ]; then
    ok "it reaches version $LATEST"
else notok "it reaches version $LATEST"; fi
check "grace and her token are kept" one5 "SELECT username FROM hsc_token_get('$TID')" grace
check "after the upgrade the httpd role makes grace's token with her x_n" \
    one5 "SELECT hsc_token_add('grace', $XN9, '$OID', $OHASH, 'phone', '', 0, 0)" t
check "not with another x_n" \
    one5 "SELECT hsc_token_add('grace', $XN8, 'pppppppppppppppp', $OHASH, 'laptop', '', 0, 0) IS NULL" t
check "lists hers through hsc_tokens_of" \
    one5 "SELECT string_agg(id, ',' ORDER BY created) FROM hsc_tokens_of('grace')" "$OID,$TID"
check "and revokes one through hsc_token_revoke" \
    one5 "SELECT hsc_token_revoke('grace', '$OID', 1)" t
refuse "but reads no token table" val hsc_httpd "SELECT * FROM hsc_tokens" hsc_v5
refuse "nor writes it" val hsc_httpd "UPDATE hsc_tokens SET revoked = 0" hsc_v5
refuse "a role that could not call hsc_revoke got nothing" \
    val hsc_other "SELECT * FROM hsc_tokens_of('grace')" hsc_v5

# --- upgrading version 6 (before passkeys) -------------------------------------
# A database of schema version 6 with the doc's grants of then (no
# passkey function): init brings it to 7 and the httpd role may register
# a passkey of a user's own with that user's x_n and accept an assertion,
# with no new GRANT, and still has no right on the passkey tables.
V6=$top_srcdir/hsc_core/sql/pgsql/006-own-tokens.sql
val postgres "CREATE DATABASE hsc_v6 OWNER hsc_admin" postgres >/dev/null
cat "$V1" "$V2" "$V3" "$V4" "$V5" "$V6" | sql hsc_admin hsc_v6 >/dev/null 2>&1 \
    && val hsc_admin "INSERT INTO hsc_schema (version) VALUES (1), (2), (3), (4), (5), (6);
INSERT INTO hsc_users (username, salt, kdf, authenticator, created, updated)
VALUES ('heidi', decode(repeat('00', 16), 'hex'), 'sha256-chain:1000',
        sha256($XN9), 0, 0);
GRANT CONNECT ON DATABASE hsc_v6 TO hsc_httpd;
GRANT USAGE ON SCHEMA public TO hsc_httpd;
GRANT SELECT ON hsc_users, hsc_generation, hsc_changes, hsc_schema, hsc_meta
    TO hsc_httpd;
GRANT EXECUTE ON FUNCTION hsc_revoke(text, bigint) TO hsc_httpd;
GRANT EXECUTE ON FUNCTION hsc_token_get(text), hsc_token_touch(text, bigint, text),
    hsc_token_add(text, bytea, text, bytea, text, text, bigint, bigint),
    hsc_tokens_of(text), hsc_token_revoke(text, text, bigint)
    TO hsc_httpd;" hsc_v6 >/dev/null \
    || bail "a version-6 database"
one6() { [ "$(val hsc_httpd "$1" hsc_v6)" = "$2" ]; }
refuse "on version 6 there is no hsc_passkey_add" \
    val hsc_httpd "SELECT hsc_passkey_add('heidi', $XN9, $PHANDLE, $PID, -7, '\\x30'::bytea, 0, false, false, false, '', false, NULL, 'x', 0)" hsc_v6
SPEC_V6="pgsql:host=$PG_DIR/sock port=$PG_PORT dbname=hsc_v6 user=hsc_admin"
check "hsc-admin init upgrades a version-6 schema" "$ADMIN" init "$SPEC_V6"
if [ "$(val hsc_admin "SELECT max(version) FROM hsc_schema" hsc_v6)" = "$LATEST" ]; then
    ok "it reaches version $LATEST"
else notok "it reaches version $LATEST"; fi
check "after the upgrade the httpd role registers heidi's passkey with her x_n" \
    one6 "SELECT hsc_passkey_add('heidi', $XN9, $PHANDLE, $PID, -7, '\\x30'::bytea, 0, false, false, false, '', false, $PSEAL, 'key', 1)" t
check "not with another x_n" \
    one6 "SELECT hsc_passkey_add('heidi', $XN8, $PHANDLE, '\\x02'::bytea, -7, '\\x30'::bytea, 0, false, false, false, '', false, NULL, 'key2', 1) IS NULL" t
check "accepts an assertion through hsc_passkey_accept" \
    one6 "SELECT hsc_passkey_accept($PID, 10, 0)" t
check "and says when it was used through hsc_passkeys_used (version 10)" \
    one6 "SELECT (cred_id = $PID) || ' ' || last_used FROM hsc_passkeys_used('heidi')" "true 0"
check "reads heidi's seal column with her row" \
    one6 "SELECT passkey_seals = $PSEAL FROM hsc_users WHERE username = 'heidi'" t
refuse "but reads no passkey table" val hsc_httpd "SELECT * FROM hsc_passkeys" hsc_v6
refuse "a role that could not call hsc_revoke got nothing" \
    val hsc_other "SELECT * FROM hsc_passkeys_of('heidi')" hsc_v6
check "the upgrade gives the httpd role the seal switch (version 8)" \
    one6 "SELECT hsc_passkey_seal_switch('heidi', true, NULL)" ok
refuse "but not the admin role's off" \
    val hsc_httpd "SELECT hsc_passkey_seal_off('heidi')" hsc_v6
refuse "and a role that could not call hsc_revoke not the switch" \
    val hsc_other "SELECT hsc_passkey_seal_switch('heidi', false, NULL)" hsc_v6

rm -f "$W/out"
echo "1..$n"
[ "$fails" = 0 ]
