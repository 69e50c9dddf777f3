#!/bin/sh
# test/http2/h2c.sh: mod_hsc's answers over HTTP/2 are its answers over
# HTTP/1.1. One httpd (event MPM: mod_http2 serves nothing under prefork)
# with mod_http2 and `Protocols h2c http/1.1`; every request is sent twice
# by curl, once as HTTP/1.1 and once as h2 with prior knowledge, and the
# two answers must agree on the status and the headers a client or proxy
# acts on (WWW-Authenticate, Location, Cache-Control, Vary, the identity
# headers, whether a cookie is set or cleared). Covered: no cookie, a
# forged and a good cookie; a wrong and a malformed Bearer app password;
# a wrong Basic app password; a wrong account password over Basic
# (HSCBasicPassword and AuthBasicProvider hsc); hsc-authz in both styles
# without, with a forged and with a good cookie; a cross-site login POST.
# Prints TAP.
set -u

. "${top_srcdir:-.}/test/lib/nodes.sh"

nodes_init h2c
trap 'nodes_cleanup' EXIT
trap 'exit 130' INT TERM
MODS=$(httpd_modules_dir)
[ -f "$MODS/mod_http2.so" ] || bail "mod_http2 is installed (apache2-bin)"
curl -V | grep -q HTTP2 || bail "curl speaks HTTP/2"

"$ADMIN" keygen "$W/keys" >/dev/null || bail "keygen"
chmod 644 "$W/keys"
mkdir -p "$W/db"
DB=$W/db/users.db
"$ADMIN" init "$DB" >/dev/null || bail "hsc-admin init"
echo "alice-pw-1" | "$ADMIN" add "$DB" alice --password-stdin --force \
    --kdf sha256-chain:1000 --groups ops >/dev/null || bail "hsc-admin add alice"
echo "bob-pw-1" | "$ADMIN" add "$DB" bob --password-stdin --force \
    --kdf sha256-chain:1000 >/dev/null || bail "hsc-admin add bob"
TOKEN=$("$ADMIN" token add "$DB" alice --name laptop 2>/dev/null \
    | grep -o 'hsc_[A-Za-z0-9_]*' | head -n 1)
[ -n "$TOKEN" ] || bail "hsc-admin token add"
[ "$(id -u)" = 0 ] && chown -R nobody:nogroup "$W/db"

PORT=$(free_port)
node_conf h2 h2c.test 16 "$PORT" <<EOF
LoadModule http2_module $MODS/mod_http2.so
LoadModule auth_basic_module $MODS/mod_auth_basic.so
LoadModule socache_shmcb_module $MODS/mod_socache_shmcb.so
Protocols h2c http/1.1
HSCUserDB "$DB"
HSCCookieSecure Off
HSCDummyKDF sha256-chain:1000
HSCLoginURL /login
<Location /login>
    SetHandler hsc-login
</Location>
<Location /private>
    AuthType HSC
    Require valid-user
</Location>
<Location /tok>
    AuthType HSC
    AuthName "Files"
    Require valid-user
    HSCAcceptTokens Both
</Location>
<Location /bpw>
    AuthType HSC
    AuthName "Files"
    Require valid-user
    HSCBasicPassword On
</Location>
<Location /provider>
    AuthType Basic
    AuthName "Provider"
    AuthBasicProvider hsc
    Require valid-user
</Location>
<Location /authz-req>
    SetHandler hsc-authz
    AuthType HSC
    Require hsc-group ops
    AuthzSendForbiddenOnFailure On
    HSCAuthzStyle auth-request
    HSCAuthzTrustedProxy 127.0.0.1
    HSCLoginURL http://app.test/login
    HSCIdentityHeader user X-Remote-User
</Location>
<Location /authz-fwd>
    SetHandler hsc-authz
    AuthType HSC
    Require valid-user
    AuthzSendForbiddenOnFailure On
    HSCAuthzStyle forward-auth
    HSCAuthzTrustedProxy 127.0.0.1
    HSCLoginURL http://app.test/login
    HSCIdentityHeader user X-Remote-User
</Location>
EOF
for d in private tok bpw provider; do
    mkdir -p "$W/h2/htdocs/$d"
    echo "$d" >"$W/h2/htdocs/$d/index.html"
done
check "the configuration passes apache2 -t" node_configtest h2
node_start h2 || bail "httpd starts"
U=http://127.0.0.1:$PORT
nodes_wait "$U/" || bail "httpd answers"

[ "$(login "$U" alice alice-pw-1)" = 303 ] || bail "alice logs in"
GOOD=$(cat "$W/cookie")
[ -n "$GOOD" ] || bail "the login set a cookie"
[ "$(login "$U" bob bob-pw-1)" = 303 ] || bail "bob logs in"
BOB=$(cat "$W/cookie")
[ "$(login "$U" alice alice-pw-1)" = 303 ] || bail "alice logs in again"
# The good cookie with its MAC's last character changed.
last=$(printf '%s' "$GOOD" | tail -c 1)
repl=A
[ "$last" = A ] && repl=B
FORGED=$(printf '%s' "$GOOD" | sed "s/.\$/$repl/")
BADTOKEN=$(printf '%s' "$TOKEN" | sed 's/_\([^_]*\)_\([^_]*\)$/_AAAAAAAAAAAAAAAAAAAAAAAA_\2/')
basic() { printf '%s' "$1" | base64 -w0; }

# The answer's status and key headers, one per line, names lower-cased,
# sorted; Set-Cookie as its name and whether it clears. $1: http1.1 or
# http2-prior-knowledge; the rest: curl's arguments.
answer() {
    proto=$1
    shift
    curl -s -o /dev/null -D - --"$proto" -w 'version=%{http_version}\n' \
        "$@" | tr -d '\r' | awk '
        /^HTTP\// { print "status=" $2; next }
        /^version=/ { next }
        {
            i = index($0, ":"); if (i == 0) next
            k = tolower(substr($0, 1, i - 1)); v = substr($0, i + 2)
            if (k == "www-authenticate" || k == "location" \
                || k == "cache-control" || k == "vary" \
                || k == "x-remote-user" || k == "content-type" \
                || k == "retry-after" || k == "x-frame-options")
                print k "=" v
            else if (k == "set-cookie") {
                split(v, c, ";")
                print "set-cookie=" (c[1] ~ /=$/ ? "cleared " : "set ") \
                    substr(c[1], 1, index(c[1], "=") - 1)
            }
        }' | sort
}
version() {
    curl -s -o /dev/null --http2-prior-knowledge -w '%{http_version}' "$@"
}

# same DESC CURL-ARGS...: both protocols, the same answer.
same() {
    desc=$1
    shift
    answer http1.1 "$@" >"$W/ans1"
    answer http2-prior-knowledge "$@" >"$W/ans2"
    v=$(version "$@")
    if [ "$v" = 2 ] && [ -s "$W/ans1" ] && cmp -s "$W/ans1" "$W/ans2"; then
        ok "$desc: the same over h2 ($(grep status= "$W/ans1" | head -n 1))"
    else
        notok "$desc: h2 (version $v) differs from HTTP/1.1"
        diff "$W/ans1" "$W/ans2" | sed 's/^/#   /'
    fi
}
# expect STATUS DESC: the last HTTP/1.1 answer had STATUS
expect() {
    check "$2: $1" grep -qx "status=$1" "$W/ans1"
}

NAV="-H Sec-Fetch-Mode:navigate -H Accept:text/html"
# shellcheck disable=SC2086 # NAV is a word list on purpose
same "a navigation without a cookie" $NAV "$U/private/"
expect 302 "a navigation without a cookie: the login page"
check "its Location names the login page" grep -q '^location=.*/login' "$W/ans1"
same "a fetch without a cookie" "$U/private/"
expect 401 "a fetch without a cookie"
# shellcheck disable=SC2086
same "a navigation with a forged cookie" $NAV -H "Cookie: $FORGED" "$U/private/"
expect 302 "a navigation with a forged cookie"
same "a fetch with a forged cookie" -H "Cookie: $FORGED" "$U/private/"
expect 401 "a fetch with a forged cookie"
same "a good cookie" -H "Cookie: $GOOD" "$U/private/"
expect 200 "a good cookie"
same "a cookie that is not one" -H "Cookie: hsc=x.y.z" "$U/private/"

same "no credentials where app passwords are taken" "$U/tok/"
expect 401 "no credentials at HSCAcceptTokens Both"
check "its WWW-Authenticate names Bearer" grep -q '^www-authenticate=Bearer' "$W/ans1"
same "a wrong Bearer app password" -H "Authorization: Bearer $BADTOKEN" "$U/tok/"
expect 401 "a wrong Bearer"
same "a malformed Bearer" -H "Authorization: Bearer not-a-token" "$U/tok/"
expect 401 "a malformed Bearer"
same "a good Bearer" -H "Authorization: Bearer $TOKEN" "$U/tok/"
expect 200 "a good Bearer"
same "a wrong Basic app password" \
    -H "Authorization: Basic $(basic "alice:$BADTOKEN")" "$U/tok/"
expect 401 "a wrong Basic app password"

same "no credentials at HSCBasicPassword On" "$U/bpw/"
expect 401 "no credentials at HSCBasicPassword On"
same "a wrong account password over Basic" \
    -H "Authorization: Basic $(basic alice:wrong)" "$U/bpw/"
expect 401 "a wrong account password over Basic"
same "a wrong password at AuthBasicProvider hsc" \
    -H "Authorization: Basic $(basic alice:wrong)" "$U/provider/"
expect 401 "a wrong password at AuthBasicProvider hsc"
same "a good app password at AuthBasicProvider hsc" \
    -H "Authorization: Basic $(basic "alice:$TOKEN")" "$U/provider/"
expect 200 "a good app password at AuthBasicProvider hsc"

REQ="X-Original-URL: http://app.test/docs/?a=1"
same "hsc-authz (auth-request), no cookie" -H "$REQ" "$U/authz-req"
expect 401 "hsc-authz (auth-request), no cookie"
check "its Location names the login URL" grep -q '^location=http://app.test/login' "$W/ans1"
same "hsc-authz (auth-request), a forged cookie" -H "$REQ" \
    -H "Cookie: $FORGED" "$U/authz-req"
expect 401 "hsc-authz (auth-request), a forged cookie"
same "hsc-authz (auth-request), a good cookie" -H "$REQ" \
    -H "Cookie: $GOOD" "$U/authz-req"
expect 200 "hsc-authz (auth-request), a good cookie"
check "its identity header names alice" grep -qx 'x-remote-user=alice' "$W/ans1"
same "hsc-authz (auth-request), a user without the group" -H "$REQ" \
    -H "Cookie: $BOB" "$U/authz-req"
expect 403 "hsc-authz (auth-request), a user without the group"
FWD="-H X-Forwarded-Proto:http -H X-Forwarded-Host:app.test -H X-Forwarded-Uri:/docs/ -H X-Forwarded-Method:GET"
# shellcheck disable=SC2086 # FWD is a word list on purpose
same "hsc-authz (forward-auth), a navigation without a cookie" $FWD \
    -H "Sec-Fetch-Mode: navigate" -H "Accept: text/html" "$U/authz-fwd"
expect 302 "hsc-authz (forward-auth), a navigation without a cookie"
# shellcheck disable=SC2086
same "hsc-authz (forward-auth), a fetch without a cookie" $FWD "$U/authz-fwd"
expect 401 "hsc-authz (forward-auth), a fetch without a cookie"
# shellcheck disable=SC2086
same "hsc-authz (forward-auth), a forged cookie" $FWD \
    -H "Cookie: $FORGED" "$U/authz-fwd"
# shellcheck disable=SC2086
same "hsc-authz (forward-auth), a good cookie" $FWD \
    -H "Cookie: $GOOD" "$U/authz-fwd"
expect 200 "hsc-authz (forward-auth), a good cookie"

same "a login POST from another origin" -H "Origin: http://evil.test" \
    --data "username=alice&password=alice-pw-1" "$U/login"
expect 403 "a login POST from another origin"
same "a wrong password at the login form" -H "Origin: $U" \
    --data "username=alice&password=wrong" "$U/login"
expect 401 "a wrong password at the login form"

nodes_check_logs
finish
