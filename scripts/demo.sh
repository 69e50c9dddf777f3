#!/bin/sh
# Builds mod_hsc and starts a demo httpd on http://localhost:8080/
# with the embedded SQLite user store: a protected page at /private/, a login
# page at /login, a logout form at /logout, and a demo user whose password is
# printed below. Ctrl-C stops it. Everything lives in a fresh temporary folder.
# When 8080 is taken, it takes the next free port from 8081 to 8099 (or
# one the kernel picks) and says so; the URL it prints is the one to open.
#   HSC_DEMO_PORT=N    listen on port N (an error when N is taken)
#   --smoke            start, log in and out with curl, stop (used by tests)
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
smoke=0
[ "${1:-}" = "--smoke" ] && smoke=1

# curl: the smoke test's client, and the README's way to try the demo.
scripts/install-deps-debian.sh --demo
if [ ! -f .libs/mod_hsc.so ] || [ ! -x hsc-admin ]; then
    [ -f configure ] || ./autogen.sh >/dev/null
    [ -f Makefile ] || ./configure -q
    make -j2 >/dev/null
fi

# port_free N: nothing listens on 127.0.0.1:N (perl-base is in every Debian).
port_free() {
    perl -MIO::Socket::INET -e 'exit(IO::Socket::INET->new(ReuseAddr => 1, LocalAddr =>
        "127.0.0.1", LocalPort => $ARGV[0], Listen => 1) ? 0 : 1)' "$1"
}
if [ -n "${HSC_DEMO_PORT:-}" ]; then
    port=$HSC_DEMO_PORT
    if ! port_free "$port"; then
        echo "demo: port $port (HSC_DEMO_PORT) is taken: choose another" >&2
        exit 1
    fi
else
    port=""
    for p in $(seq 8080 8099); do
        if port_free "$p"; then port=$p; break; fi
    done
    # None free there: one the kernel picks.
    [ -n "$port" ] || port=$(perl -MIO::Socket::INET -e 'print
        IO::Socket::INET->new(LocalAddr => "127.0.0.1", Listen => 1)->sockport')
    [ "$port" = 8080 ] \
        || echo "demo: port 8080 is taken; using port $port (HSC_DEMO_PORT=N chooses one)" >&2
fi

. test/lib/httpd.sh
httpd="$(apxs -q SBINDIR)/$(apxs -q TARGET)"
run=$(mktemp -d /tmp/hsc-demo.XXXXXX)
chmod 755 "$run"
mkdir -p "$run/htdocs/private" "$run/logs" "$run/db"
cp .libs/mod_hsc.so "$run/mod_hsc.so"

# The key file is read by the parent before it drops privileges: 0600.
./hsc-admin keygen "$run/hsc.keys" >/dev/null
password=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
./hsc-admin init "$run/db/users.db"
printf '%s\n' "$password" \
    | ./hsc-admin add "$run/db/users.db" demo --groups staff --password-stdin

if [ "$(id -u)" = 0 ]; then
    # Children run as nobody; SQLite needs to write its WAL files beside the
    # database, so the folder is theirs.
    chown -R nobody:nogroup "$run/db"
fi

cat >"$run/htdocs/index.html" <<'HTML'
<!doctype html><meta charset="utf-8"><title>mod_hsc demo</title>
<h1>mod_hsc demo</h1>
<ul><li><a href="/private/">a protected page</a>
<li><a href="/login">log in</a><li><a href="/account">your account</a><li><a href="/logout">log out</a></ul>
HTML
cat >"$run/htdocs/private/index.html" <<'HTML'
<!doctype html><meta charset="utf-8"><title>private</title>
<h1>Private page</h1><p>You are logged in. <a href="/account">Your account</a>. <a href="/logout">Log out</a>.
HTML

# The modules: test/lib/httpd.sh's head, with mod_mime, mod_dir, and
# mod_socache_shmcb for the failed-login counts (login throttling).
{
echo "# A demo of mod_hsc; see conf/httpd-hsc-sample.conf for the annotated version."
httpd_conf_head "$run" "$run/logs/httpd.pid" "$run/logs/error_log" \
    "$run/mod_hsc.so" mime dir socache_shmcb
cat <<CONF
ServerName 127.0.0.1
Listen 127.0.0.1:$port
LogLevel warn hsc:info
TraceEnable Off
TypesConfig /etc/mime.types
DirectoryIndex index.html
DocumentRoot "$run/htdocs"

HSCKeyFile "$run/hsc.keys"
HSCUserDB "$run/db/users.db"
# Passkeys need a domain name as the RP ID, never an IP address: they work
# when the demo is opened as http://localhost:$port/.
HSCWebAuthnRPID localhost
HSCWebAuthnOrigin http://localhost:$port

<Location "/private/">
    AuthType HSC
    HSCLoginURL /login
    # Plain http on localhost for the demo; keep the default (On) behind TLS.
    HSCCookieSecure Off
    Require valid-user
</Location>
<Location "/login">
    SetHandler hsc-login
    HSCCookieSecure Off
    HSCLoginSuccessURL /private/
    HSCPasskeys On
</Location>
<Location "/logout">
    SetHandler hsc-logout
    HSCCookieSecure Off
</Location>
<Location "/account">
    SetHandler hsc-account
    HSCLoginURL /login
    HSCCookieSecure Off
    HSCPasskeys On
</Location>
CONF
} >"$run/httpd.conf"

"$httpd" -t -f "$run/httpd.conf" >/dev/null 2>&1 || {
    "$httpd" -t -f "$run/httpd.conf"
    exit 1
}

if [ "$smoke" = 1 ]; then
    "$httpd" -f "$run/httpd.conf" -k start
    trap '"$httpd" -f "$run/httpd.conf" -k stop; sleep 1; rm -rf "$run"' EXIT
    sleep 1
    base="http://127.0.0.1:$port"
    echo "# demo: http://localhost:$port/"
    jar="$run/jar"
    fail=0
    check() { # description, expected, actual
        if [ "$2" = "$3" ]; then echo "ok - demo: $1"
        else echo "not ok - demo: $1 (got $3, expected $2)"; fail=1; fi
    }
    check "protected page without a cookie" 401 \
        "$(curl -s -o /dev/null -w '%{http_code}' "$base/private/")"
    check "login" 303 "$(curl -s -o /dev/null -w '%{http_code}' -c "$jar" \
        --data-urlencode username=demo --data-urlencode "password=$password" \
        "$base/login")"
    check "protected page with the cookie" 200 \
        "$(curl -s -o /dev/null -w '%{http_code}' -b "$jar" "$base/private/")"
    check "account page with the cookie" 200 \
        "$(curl -s -o /dev/null -w '%{http_code}' -b "$jar" "$base/account")"
    check "the login page offers a passkey" 1 \
        "$(curl -s "$base/login" | grep -c 'Sign in with a passkey')"
    exit $fail
fi

cat <<EOT

  mod_hsc demo: http://localhost:$port/
    protected page  http://localhost:$port/private/
    account page    http://localhost:$port/account (add a passkey there)
    log in as       demo
    password        $password

  With curl, from another terminal:
    curl -c /tmp/jar --data-urlencode username=demo --data-urlencode password=$password http://localhost:$port/login
    curl -b /tmp/jar http://localhost:$port/private/

  Files (key, user database, config, logs): $run
  Stop with Ctrl-C.
EOT
trap 'rm -rf "$run"' EXIT INT TERM
"$httpd" -f "$run/httpd.conf" -DFOREGROUND
