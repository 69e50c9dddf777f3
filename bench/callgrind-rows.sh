#!/bin/sh
# callgrind-rows.sh: instructions per request, which unlike CPU time do not
# depend on what else the machine is doing. One httpd -X (one process,
# event MPM threads) under valgrind --tool=callgrind, instrumentation off
# until the rows start; per row: warm (unmeasured), zero the counters, run
# wrk for a few seconds, dump, and divide the instructions (Ir) by the
# requests wrk made. Rows: control (no auth, a cookie header of one of
# 1,000 users), hsc-1, hsc-1000 (/hsc/, one of 1,000 users' cookies at
# random a request). HSC_MODSO=other/.libs/mod_hsc.so measures another
# build (main's, for a before/after). With USERS over 1,000, one more row,
# hsc-USERS (one of USERS users' cookies at random a request: with more
# users than the record cache holds, the miss path, one SQLite lookup).
# Callgrind counts instructions in user space only: the pread() of a page
# SQLite's page cache did not hold costs kernel time it does not see.
# Not part of make check.
#
# Usage: bench/callgrind-rows.sh [SECONDS per row, default 4] [USERS]
# Needs: valgrind, apache2, wrk, curl, perl, make bench/bench_users.
set -eu
secs=${1:-4}
users=${2:-1000}
[ "$users" -ge 1000 ] || users=1000
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${HSC_BUILDDIR:-$top}
apxs=${APXS:-apxs}
modules=$($apxs -q LIBEXECDIR)
httpd=${HTTPD:-$($apxs -q SBINDIR)/$($apxs -q TARGET)}
modso=${HSC_MODSO:-$builddir/.libs/mod_hsc.so}
lua=$top/bench/cookies.lua
run=$(mktemp -d "${TMPDIR:-/tmp}/hsc-callgrind.XXXXXX")
chmod 755 "$run"
vpid=""
cleanup() {
    if [ -n "$vpid" ] && kill -TERM "$vpid" 2>/dev/null; then
        sleep 2
        kill -KILL "$vpid" 2>/dev/null || true
    fi
    cd / && rm -rf "$run"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
port=$(perl -MIO::Socket::INET -e '
    my $s = IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1:0",
                                  ReuseAddr => 1) or die; print $s->sockport;')
base=http://127.0.0.1:$port
mkdir -p "$run/logs" "$run/db" "$run/htdocs/control" "$run/htdocs/hsc"
for loc in control hsc; do perl -e 'print "x" x 1023, "\n"' >"$run/htdocs/$loc/1k.html"; done
"$builddir/hsc-admin" keygen "$run/hsc.keys" >/dev/null
"$builddir/hsc-admin" init "$run/db/users.db" >/dev/null
"$builddir/bench/bench_users" "$run/db/users.db" "$run/hsc.keys" "$users" "$run/cookies.txt"
cat >"$run/httpd.conf" <<CONF
ServerRoot "$run"
ServerName 127.0.0.1
Listen 127.0.0.1:$port
PidFile "$run/logs/httpd.pid"
ErrorLog "$run/logs/error_log"
LogLevel warn
LoadModule mpm_event_module $modules/mod_mpm_event.so
LoadModule authn_core_module $modules/mod_authn_core.so
LoadModule authz_core_module $modules/mod_authz_core.so
LoadModule authz_user_module $modules/mod_authz_user.so
LoadModule mime_module $modules/mod_mime.so
LoadModule hsc_module "$modso"
TypesConfig /etc/mime.types
DocumentRoot "$run/htdocs"
ThreadsPerChild 25
KeepAlive On
MaxKeepAliveRequests 0
HSCKeyFile "$run/hsc.keys"
HSCUserDB "$run/db/users.db"
HSCThrottleCache none
<Location "/hsc/">
    AuthType HSC
    HSCCookieSecure Off
    HSCUnauthenticated 401
    HSCIdleTimeout 4h
    HSCMaxAge 8h
    Require valid-user
</Location>
CONF
cd "$run"
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$run/cg.%p" \
    "$httpd" -X -f "$run/httpd.conf" >"$run/logs/valgrind" 2>&1 &
vpid=$!
i=0
until curl -s -o /dev/null "$base/control/1k.html"; do
    i=$((i + 1)); [ $i -gt 300 ] && { cat "$run/logs/valgrind" >&2; exit 1; }
    sleep 0.2
done
echo "# callgrind-rows: module $modso, $secs s per row, wrk -t1 -c4"
echo "| row | requests | Ir per request |"
echo "|---|---:|---:|"
dumps=0
rows="control hsc-1 hsc-1000"
[ "$users" -gt 1000 ] && rows="$rows hsc-$users"
for row in $rows; do
    case $row in control) url=$base/control/1k.html; n=1000 ;;
                 *) url=$base/hsc/1k.html; n=${row#hsc-} ;; esac
    # Warm every cookie (and every thread) before counting.
    wrk -t1 -c4 -d4s -s "$top/bench/cookies.lua" "$url" -- "$run/cookies.txt" "$n" seq >/dev/null 2>&1
    callgrind_control -i on "$vpid" >/dev/null 2>&1
    callgrind_control -z "$vpid" >/dev/null 2>&1
    wrk -t1 -c4 -d"${secs}s" -s "$lua" "$url" -- "$run/cookies.txt" "$n" random >"$run/wrk.out" 2>&1
    callgrind_control -d "$row" "$vpid" >/dev/null 2>&1
    callgrind_control -i off "$vpid" >/dev/null 2>&1
    reqs=$(awk '/ requests in / { print $1 }' "$run/wrk.out")
    bad=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$run/wrk.out")
    [ "${bad:-0}" = 0 ] || { echo "callgrind-rows: $row: non-2xx answers" >&2; exit 1; }
    sleep 1
    f=$(ls -t "$run"/cg.* | head -n 1)
    ir=$(awk '/^(summary|totals):/ { print $2; exit }' "$f")
    awk -v r="$row" -v q="$reqs" -v ir="$ir" \
        'BEGIN { printf "| %s | %d | %.0f |\n", r, q, ir / q }'
    rm -f "$f"
done
