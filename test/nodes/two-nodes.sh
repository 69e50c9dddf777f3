#!/bin/sh
# test/nodes/two-nodes.sh: two httpd nodes on one PostgreSQL user table and
# one memcached, in TAP (docs/several-servers.md). Starts everything itself
# in a temporary directory: a PostgreSQL cluster (initdb, Unix socket only,
# every statement logged), memcached on a free loopback port, two httpd
# (event MPM) with the same key file. Checks: a cookie from A works on B;
# disable, revoke and a password change on the shared table are honoured by
# both within HSCUserDBMaxStale; failed logins are counted across nodes; a
# TOTP code or a recovery code used on one node is refused on the other,
# and the account page changes a password, with the nodes connected as the
# least role of the doc (its grants as written); app passwords made by
# hsc-admin on the database work on both nodes (Bearer on one, Basic on
# the other), HSCTokenScope answers 403 insufficient_scope, a revoke or a
# disable is honoured by both, the account page lists, makes and revokes
# a user's own (as the httpd role: hsc_tokens_of, hsc_token_add with the
# cookie's x_n, hsc_token_revoke), and so does hsc-api's tokens endpoint,
# the last use lands in hsc_token_activity
# (HSCActivityDB "pgsql:..." as the httpd role), a wrong secret is 401
# and logged without it, and token requests right after a PostgreSQL
# restart are 200, not 503;
# a passkey registered on node A (test/lib/hsc_soft_authn.py, sealed with
# PRF) logs in on A, that assertion replayed on node B is refused, a
# fresh one on B works, and the independent verifier agrees with what A
# accepted; 2,000 cookie requests cost fewer than 200 statements; PostgreSQL stopped
# gives 503 and back gives 200 within 5 s; memcached stopped does what
# HSCThrottleUnavailable says; no child crashed.
set -u

. "${top_srcdir:-.}/test/lib/nodes.sh"
. "${top_srcdir:-.}/test/pgsql/pg-tmp.sh"
nodes_init 2nodes
trap 'nodes_cleanup pg_tmp_stop' EXIT
trap 'exit 130' INT TERM

# --- PostgreSQL and memcached ------------------------------------------------
pg_tmp_start "$W" "-c log_min_duration_statement=0" || bail "PostgreSQL starts"
SPEC="pgsql:$PG_CONNINFO"
mc_start || bail "memcached starts"

# --- fixtures with hsc-admin -----------------------------------------------
"$ADMIN" keygen "$W/keys" >/dev/null || bail "keygen"
chmod 644 "$W/keys"
check "hsc-admin init on PostgreSQL" sh -c '"$0" init "$1" >/dev/null' "$ADMIN" "$SPEC"
add() { echo "$2" | "$ADMIN" add "$SPEC" "$1" --password-stdin --force --kdf sha256-chain:1000 >/dev/null; }
check "hsc-admin add alice" add alice alice-password-1
check "hsc-admin add bob" add bob bob-password-1
check "hsc-admin add carol" add carol carol-password-1
check "hsc-admin add erin (app passwords)" add erin erin-password-1
check "hsc-admin add fay (passkeys)" add fay fay-password-1
# The nodes connect as the httpd role of docs/several-servers.md, with the
# doc's grants as written: everything below works with no more.
pg_tmp_psql "CREATE ROLE hsc_httpd LOGIN" >/dev/null || bail "the httpd role"
check "the doc's grants for the httpd role run" \
    pg_tmp_psql "$(pg_doc_block 'GRANT CONNECT ON DATABASE hsc TO hsc_httpd')"
SPEC_HTTPD="$SPEC user=hsc_httpd"

# --- two nodes --------------------------------------------------------------
PORT_A=$(free_port)
PORT_B=$(free_port)
write_conf() { # node port spec
    node_conf "$1" "node-$1" 10 "$2" <<EOF
HSCUserDB "$3"
HSCUserDBMaxStale 1s
HSCThrottleCache memcache:127.0.0.1:$MC_PORT
HSCThrottleAddress 1000
HSCThrottleUser 10
HSCCookieSecure Off
HSCLoginURL /login
HSCActivityDB "$3"
# Passkeys: the RP ID cannot be an address; the origins are
# what the software authenticator writes for each node.
HSCWebAuthnRPID localhost
HSCWebAuthnOrigin http://localhost:$PORT_A
HSCWebAuthnOrigin http://localhost:$PORT_B
<Location /pk-login>
    SetHandler hsc-login
    HSCPasskeys On
    HSCSecondFactor optional
</Location>
<Location /pk-account>
    SetHandler hsc-account
    HSCPasskeys On
</Location>
LoadModule headers_module "$(httpd_modules_dir)/mod_headers.so"
<Location /login>
    SetHandler hsc-login
</Location>
<Location /api>
    AuthType HSC
    Require valid-user
    HSCAcceptTokens Both
    Header always set X-User "%{HSC_USER}e"
</Location>
<Location /api/dav>
    HSCTokenScope dav
</Location>
<Location /2fa-login>
    SetHandler hsc-login
    HSCSecondFactor optional
</Location>
<Location /account>
    SetHandler hsc-account
    HSCPasswordBlocklist none
</Location>
<Location /json>
    SetHandler hsc-api
</Location>
<Location /private>
    AuthType HSC
    Require valid-user
</Location>
<Location /hsc-health>
    SetHandler hsc-health
    HSCHealthDetails On
</Location>
EOF
    mkdir -p "$W/$1/htdocs/private"
    echo "private $1" >"$W/$1/htdocs/private/index.html"
    mkdir -p "$W/$1/htdocs/api/dav"
    echo "api $1" >"$W/$1/htdocs/api/index.html"
    echo "dav $1" >"$W/$1/htdocs/api/dav/index.html"
}
# Node B spells the same database differently: the per-user login counts
# are keyed by the store id, so both nodes still share them.
write_conf a "$PORT_A" "$SPEC_HTTPD"
write_conf b "$PORT_B" "$SPEC_HTTPD application_name=node-b"
check "node A's configuration is valid" node_configtest a
node_start a || bail "node A starts"
node_start b || bail "node B starts"
A=http://127.0.0.1:$PORT_A
B=http://127.0.0.1:$PORT_B
nodes_wait "$A/" "$B/" || bail "both nodes answer"


# --- a cookie from A works on B ---------------------------------------------
st=$(login "$A" alice alice-password-1)
C=$(cat "$W/cookie")
check "login on node A (303, got $st)" [ "$st" = 303 -a -n "$C" ]
check "the cookie works on node A" [ "$(get "$A" "$C")" = 200 ]
check "and on node B" [ "$(get "$B" "$C")" = 200 ]

# --- changes on the shared table, honoured by both within the bound --------
# The bound is HSCUserDBMaxStale (1 s); 500 ms more for the test's own
# polling on a loaded machine.
"$ADMIN" disable "$SPEC" alice >/dev/null
check "disable: node A refuses within 1.5 s" within 1500 "$A" "$C" 401
check "disable: node B refuses within 1.5 s" within 1500 "$B" "$C" 401
"$ADMIN" enable "$SPEC" alice >/dev/null
# Disabling revokes (hsc-v1.md): enabled again, alice logs in anew, and the
# cookie from before the disable stays refused everywhere once the lease
# (1 s) has passed; a child may serve its cached record until then.
sleep 1.2
refused_on() { # NODE COOKIE: six requests, each 401
    for i in 1 2 3 4 5 6; do [ "$(get "$1" "$2")" = 401 ] || return 1; done
}
check "enable: node A still refuses the cookie from before the disable" refused_on "$A" "$C"
check "enable: node B still refuses it too" refused_on "$B" "$C"
st=$(login "$A" alice alice-password-1)
C=$(cat "$W/cookie")
check "enable: alice logs in again on node A ($st)" [ "$st" = 303 ]
check "enable: the new cookie works on node B" within 1500 "$B" "$C" 200
sleep 1 # revoke refuses cookies issued before this second
"$ADMIN" revoke "$SPEC" alice >/dev/null
check "revoke: node A refuses within 1.5 s" within 1500 "$A" "$C" 401
check "revoke: node B refuses within 1.5 s" within 1500 "$B" "$C" 401
sleep 1
st=$(login "$B" alice alice-password-1)
C=$(cat "$W/cookie")
check "a new login on node B after the revoke ($st)" [ "$st" = 303 ]
check "its cookie works on node A" within 1500 "$A" "$C" 200
echo alice-password-2 | "$ADMIN" passwd "$SPEC" alice --password-stdin --force --kdf sha256-chain:1000 >/dev/null
check "passwd: node A refuses the old cookie within 1.5 s" within 1500 "$A" "$C" 401
check "passwd: node B refuses the old cookie within 1.5 s" within 1500 "$B" "$C" 401
check "passwd: the old password fails at once on node A" [ "$(login "$A" alice alice-password-1)" = 401 ]
st=$(login "$A" alice alice-password-2)
C=$(cat "$W/cookie")
check "the new password logs in at once ($st)" [ "$st" = 303 ]

# --- failed logins counted across nodes -------------------------------------
codes=""
for i in 1 2 3 4 5 6 7 8 9 10 11; do
    node=$A
    [ $((i % 2)) = 0 ] && node=$B
    codes="$codes $(login "$node" bob wrong-password)"
done
check "10 failed logins for bob, alternating nodes (two spellings of one database), are 401, the 11th 429" \
    [ "$codes" = " 401 401 401 401 401 401 401 401 401 401 429" ]
echo "# failed login statuses:$codes"
check "the right password is refused too while throttled" \
    [ "$(login "$B" bob bob-password-1)" = 429 ]

# --- 2,000 cookie requests, fewer than 200 statements -----------------------
i=0
: > "$W/urls-a"
: > "$W/urls-b"
while [ $i -lt 1000 ]; do
    printf 'url = "%s/private/"\noutput = "/dev/null"\n' "$A" >> "$W/urls-a"
    printf 'url = "%s/private/"\noutput = "/dev/null"\n' "$B" >> "$W/urls-b"
    i=$((i + 1))
done
before=$(wc -l < "$PG_LOG")
curl -s -H "Cookie: $C" -K "$W/urls-a" -w '%{http_code}\n' > "$W/codes-a" &
curl -s -H "Cookie: $C" -K "$W/urls-b" -w '%{http_code}\n' > "$W/codes-b"
wait $!
ok_count=$(cat "$W/codes-a" "$W/codes-b" | grep -c '^200$')
stmts=$(tail -n +"$((before + 1))" "$PG_LOG" | grep -cE 'duration: .* (execute|statement)')
check "2,000 cookie requests over both nodes all 200 (got $ok_count)" [ "$ok_count" = 2000 ]
check "and caused fewer than 200 statements (got $stmts)" [ "$stmts" -lt 200 ]

# --- second factors on two nodes ----------------------------------------------
# The code step's state is in the shared database: a code, or a recovery
# code, used on one node is refused on the other (hsc_totp_accept and
# hsc_recovery_use, as the httpd role). Codes by oathtool, not the module.
# password_step URL USER PASSWORD and code_step URL COOKIE CODE print the
# status and leave the cookie in $W/cookie.
password_step() {
    curl -s -o /dev/null -D "$W/headers" -w '%{http_code}' -H "Origin: $1" \
        --data-urlencode "username=$2" --data-urlencode "password=$3" \
        "$1/2fa-login"
    sed -n 's/^[Ss]et-[Cc]ookie: \(hsc=[^;]*\).*/\1/p' "$W/headers" > "$W/cookie"
}
code_step() {
    curl -s -o /dev/null -D "$W/headers" -w '%{http_code}' -H "Origin: $1" \
        -H "Cookie: $2" --data-urlencode "code=$3" "$1/2fa-login"
    sed -n 's/^[Ss]et-[Cc]ookie: \(hsc=[^;]*\).*/\1/p' "$W/headers" > "$W/cookie"
}
secret=$("$ADMIN" totp enrol "$SPEC" carol --keys "$W/keys" \
    | sed -n 's/^otpauth:.*[?&]secret=\([A-Z2-7]*\).*/\1/p')
check "hsc-admin totp enrol carol on PostgreSQL" [ -n "$secret" ]
"$ADMIN" recovery-codes "$SPEC" carol --count 2 > "$W/rcodes"
check "and two recovery codes" [ "$(grep -c . "$W/rcodes")" = 2 ]
# Not in the last seconds of a step: both nodes see the same code's step.
[ $(( $(date +%s) % 30 )) -gt 24 ] && sleep $(( 31 - $(date +%s) % 30 ))
code=$(oathtool --totp -b "$secret")
st=$(password_step "$A" carol carol-password-1)
P=$(cat "$W/cookie")
check "carol's password on node A: 303 with a pending cookie ($st)" [ "$st" = 303 -a -n "$P" ]
check "the pending cookie opens nothing on node B" [ "$(get "$B" "$P")" != 200 ]
st=$(code_step "$A" "$P" "$code")
C3=$(cat "$W/cookie")
check "her TOTP code on node A completes the login ($st)" [ "$st" = 303 -a -n "$C3" ]
check "that cookie works on node B" [ "$(get "$B" "$C3")" = 200 ]
st=$(password_step "$B" carol carol-password-1)
P=$(cat "$W/cookie")
check "her password on node B: a pending cookie ($st)" [ "$st" = 303 ]
check "the code used on node A is refused on node B" [ "$(code_step "$B" "$P" "$code")" = 401 ]
check "and on node A again" [ "$(code_step "$A" "$P" "$code")" = 401 ]
rc1=$(sed -n 1p "$W/rcodes")
check "a recovery code on node B completes the login" [ "$(code_step "$B" "$P" "$rc1")" = 303 ]
st=$(password_step "$A" carol carol-password-1)
P=$(cat "$W/cookie")
check "the same recovery code on node A is refused" [ "$(code_step "$A" "$P" "$rc1")" = 401 ]
check "hsc-admin show: one recovery code left" \
    sh -c '"$0" show "$1" carol | grep -q "^recovery codes left: 1$"' "$ADMIN" "$SPEC"

# The account page on node A, as the httpd role: a password change (only
# with the current password: hsc_password_change) ends the old sessions on
# both nodes, and the new password logs in on node B.
st=$(curl -s -o /dev/null -D "$W/headers" -w '%{http_code}' -H "Origin: $A" \
    -H "Cookie: $C3" --data-urlencode action=password \
    --data-urlencode password=carol-password-1 \
    --data-urlencode new_password=carol-password-22 \
    --data-urlencode new_password2=carol-password-22 "$A/account")
check "the account page on node A changes carol's password ($st)" [ "$st" = 303 ]
check "her cookie from before is refused on node B within 1.5 s" within 1500 "$B" "$C3" 401
check "the new password's first step works on node B" \
    [ "$(password_step "$B" carol carol-password-22)" = 303 ]
check "the old one does not" [ "$(password_step "$B" carol carol-password-1)" = 401 ]

# A one-time invitation made on the database, used on node B (as the httpd
# role: hsc_link_password), is dead on node A, and its password logs in.
link=$("$ADMIN" add "$SPEC" dave --invite --kdf sha256-chain:1000 | sed -n 's/^\/account?link=//p')
check "hsc-admin add --invite on PostgreSQL prints a link" [ -n "$link" ]
link_password() { # URL: the status of setting dave's password by the link
    curl -s -o /dev/null -w '%{http_code}' -H "Origin: $1" \
        --data-urlencode "link=$link" --data-urlencode action=link-password \
        --data-urlencode new_password=dave-password-123456 \
        --data-urlencode new_password2=dave-password-123456 "$1/account"
}
check "the invitation on node B sets dave's password" [ "$(link_password "$B")" = 200 ]
check "the same link on node A is dead (400)" [ "$(link_password "$A")" = 400 ]
check "dave logs in on node A" [ "$(login "$A" dave dave-password-123456)" = 303 ]
D=$(cat "$W/cookie")

# dave sets up an authenticator app on node A's account page, as the httpd
# role (hsc_totp_begin, hsc_totp_confirm, hsc_recovery_replace); node B's
# login then asks him for it.
account() { # NODE ACTION [CODE]: the page into $W/page, the status printed
    curl -s -o "$W/page" -w '%{http_code}' -H "Origin: $1" -H "Cookie: $D" \
        --data-urlencode "action=$2" --data-urlencode "code=${3:-}" "$1/account"
}
check "totp-setup on node A's account page (200)" [ "$(account "$A" totp-setup)" = 200 ]
key=$(sed -n 's/.*<p class="hsc-secret"><code>\([A-Z2-7 ]*\)<\/code>.*/\1/p' "$W/page" | tr -d ' ')
check "it shows a 160-bit key" [ "${#key}" = 32 ]
[ $(( $(date +%s) % 30 )) -gt 24 ] && sleep $(( 31 - $(date +%s) % 30 ))
check "its first code turns it on (200)" \
    [ "$(account "$A" totp-confirm "$(oathtool --totp -b "$key")")" = 200 ]
check "with ten recovery codes" [ "$(grep -o '<li><code>[0-9a-z-]*</code></li>' "$W/page" | wc -l)" = 10 ]
st=$(password_step "$B" dave dave-password-123456)
P=$(cat "$W/cookie")
check "dave's password on node B now gives a pending cookie ($st)" \
    [ "$st" = 303 -a "$(get "$B" "$P")" != 200 ]

# --- app passwords on two nodes ----------------------------------------------
# Made by hsc-admin as the admin role; each node looks a token up through
# hsc_token_get and records its last use through hsc_token_touch, both as
# the httpd role (HSCActivityDB is the same database). A token's lookup is
# not cached: a revoke is refused on the very next request.
# tok URL PATH AUTHORIZATION: the status; the headers in $W/theaders
tok() {
    curl -s -o /dev/null -D "$W/theaders" -w '%{http_code}' \
        -H "Authorization: $3" "$1$2"
}
x_user() { sed -n 's/^[Xx]-[Uu]ser: \([^[:cntrl:]]*\).*/\1/p' "$W/theaders"; }
basic() { printf 'Basic %s' "$(printf '%s:%s' "$1" "$2" | base64 -w0)"; }
tok_re='^hsc_[a-z2-7]{16}_[a-z2-7]{52}_[0-9a-f]{8}$'
T=$("$ADMIN" token add "$SPEC" erin --name laptop --scopes dav 2>/dev/null | grep -E "$tok_re")
T2=$("$ADMIN" token add "$SPEC" erin --name ci 2>/dev/null | grep -E "$tok_re")
check "hsc-admin token add on PostgreSQL prints a token" [ -n "$T" ]
check "and a second one, without scopes" [ -n "$T2" -a "$T2" != "$T" ]
TID=$(echo "$T" | cut -c5-20)
BOBT=$("$ADMIN" token add "$SPEC" bob --name phone 2>/dev/null | grep -E "$tok_re")
BOBID=$(echo "$BOBT" | cut -c5-20)
check "and one of bob's" [ -n "$BOBT" ]
st=$(tok "$A" /api/ "Bearer $T")
check "node A: the token as Bearer is 200 ($st) as erin ($(x_user))" \
    [ "$st" = 200 -a "$(x_user)" = erin ]
st=$(tok "$B" /api/ "$(basic erin "$T")")
check "node B: the token as Basic is 200 ($st) as erin ($(x_user))" \
    [ "$st" = 200 -a "$(x_user)" = erin ]
check "node B: Basic with another user's name is 401" \
    [ "$(tok "$B" /api/ "$(basic alice "$T")")" = 401 ]
check "HSCTokenScope dav: the token with scope dav is 200 on node B" \
    [ "$(tok "$B" /api/dav/ "Bearer $T")" = 200 ]
st=$(tok "$A" /api/dav/ "Bearer $T2")
check "a token without the scope is 403 on node A ($st)" [ "$st" = 403 ]
check "with WWW-Authenticate: Bearer error=\"insufficient_scope\", scope=\"dav\"" \
    grep -qi '^WWW-Authenticate: Bearer error="insufficient_scope", scope="dav"' "$W/theaders"
# The last use, written by a child as the httpd role, read as the admin.
activity() {
    pg_tmp_psql "SELECT last_at || ' ' || last_addr FROM hsc_token_activity WHERE id = '$TID'"
}
i=0
while [ $i -lt 30 ] && [ -z "$(activity)" ]; do sleep 0.1; i=$((i + 1)); done
row=$(activity)
at=${row%% *}
check "hsc_token_activity has the token's last use from 127.0.0.1 ($row)" \
    [ "${row#* }" = 127.0.0.1 -a $(( $(date +%s) - ${at:-0} )) -lt 120 ]
"$ADMIN" token list "$SPEC" erin --activity "$SPEC" > "$W/tlist" 2>&1
sed 's/^/# /' "$W/tlist"
check "hsc-admin token list --activity pgsql: shows it, from 127.0.0.1" \
    grep -qE "^$TID	.*	[0-9]{4}-[0-9]{2}-[0-9]{2}.* 127\.0\.0\.1$" "$W/tlist"
# A wrong secret with good check digits: refused after the lookup, and
# the log names the token's id, never a secret.
pre=$(echo "$T" | cut -c1-73)
sec=$(echo "$T" | cut -c22-73)
case $sec in a*) bad="b${sec#?}" ;; *) bad="a${sec#?}" ;; esac
pre="hsc_${TID}_$bad"
W_T="${pre}_$(printf '%s' "$pre" | sha256sum | cut -c1-8)"
check "the forged token has the form of a token" sh -c 'echo "$0" | grep -qE "$1"' "$W_T" "$tok_re"
st=$(tok "$A" /api/ "Bearer $W_T")
check "node A: a wrong secret with good check digits is 401 ($st)" [ "$st" = 401 ]
check "logged as HSC230, a wrong secret, naming the id" \
    grep -q "HSC230: app password refused: wrong secret (id $TID)" "$W/a/error.log"
check "and neither the wrong secret nor the right one is in any log" \
    sh -c '! grep -qe "$0" -e "$1" "$2"/*/error.log' "$bad" "$sec" "$W"

# PostgreSQL restarted: every pooled connection of both nodes is broken.
# The token lookup runs again on a new connection, as a cookie's does:
# the first requests are 200, not 503.
pg_tmp_as "$PG_BIN/pg_ctl" -D "$PG_DIR/pg" -w -t 30 -l "$PG_LOG" -m fast restart \
    >/dev/null 2>&1
check "pg_ctl restart -m fast" [ $? = 0 ]
codes=""
for i in 1 2 3 4 5 6; do
    codes="$codes $(tok "$A" /api/ "Bearer $T")"
    codes="$codes $(tok "$B" /api/ "$(basic erin "$T")")"
done
check "after the restart, the first 12 token requests over both nodes are all 200 (got$codes)" \
    [ "$codes" = " 200 200 200 200 200 200 200 200 200 200 200 200" ]

"$ADMIN" token revoke "$SPEC" erin "$TID" >/dev/null
check "token revoke: node A refuses it on the next request (401)" \
    [ "$(tok "$A" /api/ "Bearer $T")" = 401 ]
check "token revoke: node B too (401)" \
    [ "$(tok "$B" /api/ "$(basic erin "$T")")" = 401 ]
check "erin's other token still works on node B" \
    [ "$(tok "$B" /api/ "Bearer $T2")" = 200 ]
# The account page as the httpd role (schema version 6): erin lists her
# app passwords on node A (hsc_tokens_of), makes one there (hsc_token_add,
# proved by her cookie's x_n), uses it on node B, and revokes it on node
# B's page (hsc_token_revoke): refused on node A on the next request.
st=$(login "$A" erin erin-password-1)
E=$(cat "$W/cookie")
check "erin logs in on node A ($st)" [ "$st" = 303 -a -n "$E" ]
page() { # NODE [FIELD=VALUE...]: the account page (a POST with fields) into $W/page, the status
    n=$1
    shift
    if [ $# = 0 ]; then
        curl -s -o "$W/page" -w '%{http_code}' -H "Cookie: $E" "$n/account"
        return
    fi
    set -- $(for f in "$@"; do printf -- '--data-urlencode %s ' "$f"; done)
    curl -s -o "$W/page" -w '%{http_code}' -H "Origin: $n" -H "Cookie: $E" "$@" "$n/account"
}
st=$(page "$A")
check "node A's account page lists her live app password, not the revoked one ($st)" \
    sh -c '[ "$0" = 200 ] && grep -q "<td>ci</td>" "$1" && ! grep -q "<td>laptop</td>" "$1"' "$st" "$W/page"
st=$(page "$A" action=token-new token_name=phone token_scopes=dav token_expires=30d)
P=$(grep -oE 'hsc_[a-z2-7]{16}_[a-z2-7]{52}_[0-9a-f]{8}' "$W/page" | head -n 1)
check "node A's page makes an app password as the httpd role ($st)" [ "$st" = 200 -a -n "$P" ]
PID=$(echo "$P" | cut -c5-20)
check "stored through hsc_token_add: erin's, named phone, scope dav" \
    [ "$(pg_tmp_psql "SELECT username || ' ' || name || ' ' || scopes || ' ' || (expires > created) FROM hsc_tokens WHERE id = '$PID'")" = "erin phone dav true" ]
st=$(tok "$B" /api/dav/ "Bearer $P")
check "the new token as Bearer on node B is 200 ($st) as erin ($(x_user))" \
    [ "$st" = 200 -a "$(x_user)" = erin ]
check "a second live one named phone: 400 on node B" \
    [ "$(page "$B" action=token-new token_name=phone)" = 400 ]
st=$(page "$B")
check "node B's page lists it ($st)" sh -c '[ "$0" = 200 ] && grep -q "<td>phone</td><td>dav</td>" "$1"' "$st" "$W/page"
check "revoked on node B's page (303)" [ "$(page "$B" action=token-revoke token_id="$PID")" = 303 ]
check "node A refuses it on the next request (401)" [ "$(tok "$A" /api/dav/ "Bearer $P")" = 401 ]
check "revoked once: again is 400" [ "$(page "$A" action=token-revoke token_id="$PID")" = 400 ]
check "another user's token id is not erin's to revoke (400)" \
    [ "$(page "$A" action=token-revoke token_id="$BOBID")" = 400 ]
check "... and bob's token still works" [ "$(tok "$B" /api/ "Bearer $BOBT")" = 200 ]
# The same through hsc-api (docs/json-api.md): the account page's code,
# so hsc_token_add with the session's x_n, as the httpd role.
json() { # NODE PATH [BODY]: hsc-api with erin's cookie (a POST with BODY) into $W/json, the status
    if [ $# = 2 ]; then
        curl -s -o "$W/json" -w '%{http_code}' -H "Cookie: $E" "$1/json/$2"
        return
    fi
    curl -s -o "$W/json" -w '%{http_code}' -H "Origin: $1" -H "Cookie: $E" \
        -H 'Content-Type: application/json' --data "$3" "$1/json/$2"
}
st=$(json "$A" tokens '{"name":"json","scopes":"dav","expires":"30d"}')
J=$(grep -oE 'hsc_[a-z2-7]{16}_[a-z2-7]{52}_[0-9a-f]{8}' "$W/json" | head -n 1)
check "hsc-api POST tokens on node A makes one as the httpd role ($st)" [ "$st" = 201 -a -n "$J" ]
JID=$(echo "$J" | cut -c5-20)
st=$(tok "$B" /api/dav/ "Bearer $J")
check "that token as Bearer on node B is 200 ($st)" [ "$st" = 200 ]
st=$(json "$B" tokens)
check "hsc-api GET tokens on node B lists it ($st)" sh -c '[ "$0" = 200 ] && grep -q "\"id\":\"$1\"" "$2"' "$st" "$JID" "$W/json"
st=$(json "$B" tokens/revoke "{\"id\":\"$JID\"}")
check "hsc-api POST tokens/revoke on node B ($st)" [ "$st" = 200 ]
check "node A refuses it on the next request (401)" [ "$(tok "$A" /api/dav/ "Bearer $J")" = 401 ]
check "no hsc_token_add refusal was logged (HSC266)" sh -c '! grep -q HSC266 "$0"/*/error.log' "$W"
# tok_within MS URL AUTH STATUS: /api/ answers STATUS within MS
tok_within() {
    t0=$(now_ms)
    while [ "$(tok "$2" /api/ "$3")" != "$4" ]; do
        [ $(( $(now_ms) - t0 )) -gt "$1" ] && return 1
        sleep 0.05
    done
}
"$ADMIN" disable "$SPEC" erin >/dev/null
check "a disabled owner: node A refuses her token within 1.5 s" tok_within 1500 "$A" "Bearer $T2" 401
check "a disabled owner: node B refuses it within 1.5 s" tok_within 1500 "$B" "$(basic erin "$T2")" 401

# --- passkeys on two nodes ----------------------------------------------------
# fay registers a passkey on node A's account page (hsc_passkey_add as the
# httpd role), logs in with it there without a password, and the same
# assertion sent to node B is refused: the one-time rule is the shared
# row's (hsc_passkey_accept). Her key's sign count stays 0, as synced
# passkeys' do, so that only the challenge's time can refuse the replay.
# A fresh assertion on B works. The
# authenticator is software (test/lib/hsc_soft_authn.py), and its own
# relying party re-verifies what node A accepted.
SOFT="/usr/bin/python3 $srcdir/test/lib/hsc_soft_authn.py"
PKS="$W/fay-passkeys.json"
# pk NODE PATH COOKIE BODY: a passkey POST, the JSON answer in $W/pk.json,
# the cookie (if any) in $W/cookie, the status printed
pk() {
    curl -s -o "$W/pk.json" -D "$W/headers" -w '%{http_code}' \
        ${3:+-H "Cookie: $3"} --data "$4" "$1$2"
    sed -n 's/^[Ss]et-[Cc]ookie: \(hsc=[^;]*\).*/\1/p' "$W/headers" > "$W/cookie"
}
jget() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' "$@"; }
st=$(login "$A" fay fay-password-1)
F=$(cat "$W/cookie")
check "fay logs in with her password on node A ($st)" [ "$st" = 303 -a -n "$F" ]
st=$(pk "$A" /pk-account "$F" "hsc_passkey=options&purpose=create")
cp "$W/pk.json" "$W/create-options.json"
check "create options on node A ($st)" [ "$st" = 200 -a "$(jget "$W/pk.json" rpId)" = localhost ]
body=$($SOFT register --state "$PKS" --options "@$W/create-options.json" \
    --origin "http://localhost:$PORT_A" --alg -7 --prf --resident --zero-counter --name laptop \
    --format form)
st=$(pk "$A" /pk-account "$F" "$body")
check "node A registers her sealed passkey as the httpd role ($st: $(cat "$W/pk.json"))" \
    [ "$st" = 200 -a "$(jget "$W/pk.json" sealed)" = True ]
cid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["credentials"][0]["id"])' "$PKS")
z=$($SOFT prf --state "$PKS" --cred "$cid")
want=$(python3 -c 'import base64,hashlib,sys; z=sys.argv[1]; print(hashlib.sha256(base64.urlsafe_b64decode(z + "=" * (-len(z) % 4))).hexdigest())' "$z")
check "stored once; her row's seal column is SHA-256 of the authenticator's z" \
    [ "$(pg_tmp_psql "SELECT count(*) FROM hsc_passkeys WHERE username = 'fay'")" = 1 \
      -a "$(pg_tmp_psql "SELECT encode(passkey_seals, 'hex') FROM hsc_users WHERE username = 'fay'")" = "$want" ]
# passwordless NODE: a fresh assertion for NODE, its fields in $W/assert-NODE
passwordless() {
    pk "$1" /pk-login "" "hsc_passkey=options&purpose=login" >/dev/null
    cp "$W/pk.json" "$W/opts.json"
    $SOFT assert --state "$PKS" --options "@$W/opts.json" --origin "$2" \
        --purpose login --prf --format form
}
body=$(passwordless "$A" "http://localhost:$PORT_A")
st=$(pk "$A" /pk-login "" "$body")
PK=$(cat "$W/cookie")
check "passwordless on node A ($st)" [ "$st" = 200 -a -n "$PK" ]
amr=$(echo "$PK" | cut -d. -f8)
check "its cookie says hwk|uv|seal (44, got $amr)" [ "$amr" = 44 ]
check "and works on node B" [ "$(get "$B" "$PK")" = 200 ]
st=$(pk "$B" /pk-login "" "$body")
check "the same assertion replayed on node B: 403 refused ($st $(cat "$W/pk.json"))" \
    [ "$st" = 403 -a "$(jget "$W/pk.json" error)" = refused ]
check "and again on node A: 403" [ "$(pk "$A" /pk-login "" "$body")" = 403 ]
check "node B logged it as a replay (the count is 0: the challenge's time refused it)" \
    grep -q 'passkey login refused for user "fay": already used (a replay)' "$W/b/error.log"
# The independent check: the fields node A accepted, with the SPKI the
# authenticator gave at registration, verify in other code.
field() { printf '%s\n' "$body" | tr '&' '\n' | sed -n "s/^$1=//p" | python3 -c 'import sys,urllib.parse; print(urllib.parse.unquote(sys.stdin.read().strip()))'; }
spki=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["credentials"][0]["spki"])' "$PKS")
verdict=$($SOFT verify --spki "$spki" --alg -7 --authdata "$(field authenticatorData)" \
    --client-data "$(field clientDataJSON)" --signature "$(field signature)" \
    --rp-id localhost --origin "http://localhost:$PORT_A" --challenge "$(field challenge)" --require-uv)
check "the Python relying party verifies the assertion node A accepted ($verdict)" [ $? = 0 ]
body=$(passwordless "$B" "http://localhost:$PORT_B")
st=$(pk "$B" /pk-login "" "$body")
check "a fresh assertion on node B: 200 ($st)" [ "$st" = 200 -a -n "$(cat "$W/cookie")" ]
# The second factor on node B: her password there now asks for the passkey.
st=$(pk "$B" /pk-login "" "username=fay&password=fay-password-1")
P=$(cat "$W/cookie")
check "fay's password on node B: a pending cookie ($st)" [ "$st" = 303 -a "$(get "$B" "$P")" != 200 ]
pk "$B" /pk-login "$P" "hsc_passkey=options&purpose=second-factor" >/dev/null
cp "$W/pk.json" "$W/opts.json"
body=$($SOFT assert --state "$PKS" --options "@$W/opts.json" --origin "http://localhost:$PORT_B" \
    --purpose second-factor --prf --format form)
st=$(pk "$B" /pk-login "$P" "$body")
amr=$(cut -d. -f8 "$W/cookie")
FULL=$(cat "$W/cookie")
check "the passkey as her second factor on node B: 200, amr pwd|hwk|uv|seal (45, got $st $amr)" \
    [ "$st" = 200 -a "$amr" = 45 ]
check "that second-factor assertion on node A: refused" [ "$(pk "$A" /pk-login "$P" "$body")" = 403 ]
# The account page on node A says when (schema version 10's
# hsc_passkeys_used, as the httpd role): today, by the database's record.
today=$(date -u +%Y-%m-%d)
curl -s -H "Cookie: $FULL" "$A/pk-account" > "$W/account.html"
if grep -q "<td>laptop</td><td>[0-9-]*</td><td>$today</td><td>sealed</td>" "$W/account.html"; then
    ok "node A's account page: laptop, last used today ($today)"
else
    notok "node A's account page: laptop, last used today ($today)"
    grep -o '<tr class="hsc-key-row">.*' "$W/account.html" | sed 's/^/# /'
fi

# --- the health check on PostgreSQL (docs/metrics.md) ----------------------
health() { curl -s -w ' %{http_code}' "$1/hsc-health"; }
# health_is WHAT STATUS BODY-PART: the last health answer has both.
health_is() {
    case "$h" in *"$3"*" $2") ok "health: $1 (got: $h)" ;;
    *) notok "health: $1 (got: $h)" ;; esac
}
h=$(health "$A")
health_is "200, status ok" 200 '"status":"ok"'
# Anonymous probes reuse a child's answer for a second: 1,000 of them
# cost a statement per child and second, not one each.
before=$(wc -l < "$PG_LOG")
t0=$(now_ms)
probes=$(for i in $(seq 1000); do echo "url = \"$A/hsc-health\""; echo 'output = "/dev/null"'; echo 'write-out = "%{http_code}\n"'; done \
    | curl -s -Z --parallel-max 8 -K - | grep -c '^200$')
secs=$(( ($(now_ms) - t0 + 999) / 1000 ))
stmts=$(tail -n +"$((before + 1))" "$PG_LOG" | grep -cE 'duration: .* (execute|statement)')
check "1,000 health probes, all 200 ($probes), cost at most 2 statements per second of the run and child ($stmts in $secs s)" \
    [ "$probes" = 1000 -a "$stmts" -le $((2 * 2 * secs + 2)) ]
sleep 1.1
# A table lock held 1.5 s: the probe waits for it, under the 2 s statement
# timeout, and answers 503 "slow" (the bound is 1 s) instead of 200.
pg_tmp_psql "BEGIN; LOCK TABLE hsc_users IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(1.5); COMMIT;" >/dev/null &
locker=$!
sleep 0.3
h=$(health "$A")
wait "$locker"
health_is "a store that takes over 1 s: 503, slow" 503 '"user store slow"'
sleep 1.1 # a child reuses the answer for a second
h=$(health "$A")
health_is "the lock gone, 200 again" 200 '"status":"ok"'

# --- PostgreSQL down and back -----------------------------------------------
pg_tmp_stop
sleep 1.2 # the lease ends
check "PostgreSQL stopped: node A answers 503" within 1500 "$A" "$C" 503
check "PostgreSQL stopped: node B answers 503" within 1500 "$B" "$C" 503
check "a login answers 503, nothing granted" [ "$(login "$A" alice alice-password-2)" = 503 ]
h=$(health "$B")
health_is "PostgreSQL stopped: 503, down" 503 '"user store down"'
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do get "$A" "$C" >/dev/null; done
pg_tmp_start_again
check "PostgreSQL back: node A 200 again within 5 s" within 5000 "$A" "$C" 200
check "PostgreSQL back: node B 200 again within 5 s" within 5000 "$B" "$C" 200
sleep 1.1 # a child reuses the answer for a second
h=$(health "$B")
health_is "PostgreSQL back: 200" 200 '"status":"ok"'
# A node started while PostgreSQL is down: its first login's failure is
# logged at error (the store-id probe must not swallow it).
pg_tmp_stop
PORT_D=$(free_port)
write_conf d "$PORT_D" "$SPEC"
node_start d || bail "node D starts with PostgreSQL down"
D=http://127.0.0.1:$PORT_D
nodes_wait "$D/" || bail "node D answers"
check "node D, PostgreSQL down since its start: a login answers 503" \
    [ "$(login "$D" alice alice-password-2)" = 503 ]
check "... and the outage is logged at error" \
    grep -q '\[hsc:error\].*HSC186: user database .* cannot answer' "$W/d/error.log"
pg_tmp_start_again
outage_lines=$(grep -c 'HSC012: cookie refused: user store failure' "$W/a/error.log")
# At most one line per child (two) and per kind of failure.
check "the outage was logged, not once per request (node A: $outage_lines)" \
    [ "$outage_lines" -ge 1 -a "$outage_lines" -le 6 ]

# --- memcached down ---------------------------------------------------------
mc_stop
st=$(login "$A" alice alice-password-2)
check "memcached stopped: logins go on, unthrottled (HSCThrottleUnavailable allow; got $st)" [ "$st" = 303 ]
check "memcached stopped: cookies still work" [ "$(get "$B" "$C")" = 200 ]

# --- no child crashed -------------------------------------------------------
nodes_check_logs
finish
