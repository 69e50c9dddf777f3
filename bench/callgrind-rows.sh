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
# hsc-USERS (one of USERS users' cookies at random a request). With USERS
# up to the record cache's size (as hsc-cache-status reports it) its warm pass sends
# cookies in file order until the cache holds 99% of them, so the row is
# the hit path with that many users; with more, the miss path, one SQLite
# lookup. Callgrind counts instructions in user space only: the pread() of
# a page SQLite's page cache did not hold costs kernel time it does not see.
#
# HSC_CACHESIM=1 adds callgrind's cache simulation (about twice as slow):
# per request also the first-level data misses (D1, reads and writes), the
# last-level misses (LL: a trip to memory), and callgrind's cycle estimate
# Ir + 10 x L1 misses + 100 x LL misses. That is what tells whether a row
# with many users pays memory stalls the instruction count does not show.
# The last level is simulated as 8 MiB, 16-way (HSC_CACHESIM_LL, valgrind's
# --LL=size,assoc,line): less than the default record cache's 24.5 MiB, as
# a core's share of a server's L3 is, so many users' records miss in it;
# valgrind's own guess on a VM can be far off (512 MiB on this one).
# Not part of make check.
#
# HSC_CALLGRIND_KEEP=DIR keeps the profiles, one file a row.
# Row authz-1000: the same 1,000 users' cookies asking hsc-authz (as nginx
# does: X-Original-URL), the call a proxy makes for each request.
# Rows bearer-1000 and basic-1000: one of the same 1,000 users' app
# passwords a request (Authorization: Bearer, and Basic with the name), at
# /tok/ (HSCAcceptTokens Both): a lookup by id, then the owner's record.
# A module without app passwords (HSC_MODSO of an older build) gets
# neither the location nor these rows.
# Row basicpw-100: the account password over Basic (HSCBasicPassword On,
# at /bpw/), one of 100 users' "name:password" a request: warmed, so each
# is a hit of the child's password cache (an HMAC, the owner's record from
# the record cache), never the KDF. A module without HSCBasicPassword gets
# neither the location nor the row.
# Row f2-1000: the same 1,000 users' cookies in format 2 with amr pwd|otp
# (bench_users' second file), beside hsc-1000's format 1: what verifying
# format 2 costs over format 1, in the same run. (HSC_BENCH_AMR=3 makes
# every row's cookies format 2 instead.) Row sealed-1000: 1,000 other
# users (bench_users' HSC_BENCH_SEALED), each with three passkey seal
# hashes in its row, their cookies sealed (amr pwd|hwk|uv|seal, auth x_n
# || z): what the seal's check costs over f2-1000 (one SHA-256 of z and
# three compares). Valgrind's CPU has no SHA
# extensions, so OpenSSL takes its AVX2 path here: a SHA-256 block costs
# about 2,000 instructions, several times what it does on a CPU with them.
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
. "$top/test/lib/httpd.sh"
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
mkdir -p "$run/logs" "$run/db" "$run/htdocs/control" "$run/htdocs/hsc" "$run/htdocs/tok" "$run/htdocs/bpw"
for loc in control hsc tok bpw; do perl -e 'print "x" x 1023, "\n"' >"$run/htdocs/$loc/1k.html"; done
"$builddir/hsc-admin" keygen "$run/hsc.keys" >/dev/null
"$builddir/hsc-admin" init "$run/db/users.db" >/dev/null
HSC_BENCH_SEALED=$run/cookies-sealed.txt HSC_BENCH_TOKENS=$run/tokens "$builddir/bench/bench_users" "$run/db/users.db" "$run/hsc.keys" "$users" \
    "$run/cookies.txt" "$run/cookies2.txt"
tokens=no
grep -q HSCAcceptTokens "$modso" && tokens=yes
basicpw=no
grep -q HSCBasicPassword "$modso" && basicpw=yes
# bench_users' passwords: b0000000 has pw-0, and so on.
perl -MMIME::Base64 -e 'printf "Authorization: Basic %s\n",
    encode_base64(sprintf("b%07d:pw-%d", $_, $_), "") for 0 .. 99' >"$run/basicpw.txt"
{
# httpd -X: one process, as whoever runs this script (no User line).
HTTPD_CONF_NO_USER=1 httpd_conf_head "$run" "$run/logs/httpd.pid" \
    "$run/logs/error_log" "$modso" mime
cat <<CONF
ServerName 127.0.0.1
Listen 127.0.0.1:$port
LogLevel warn
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
<Location "/hsc-authz">
    SetHandler hsc-authz
    AuthType HSC
    Require valid-user
    AuthzSendForbiddenOnFailure On
    HSCAuthzTrustedProxy 127.0.0.1
    HSCIdentityHeader user X-Remote-User
    HSCIdentityHeader groups X-Remote-Groups
</Location>
<Location "/hsc-cache-status">
    SetHandler hsc-cache-status
</Location>
CONF
[ "$tokens" = no ] || cat <<CONF
<Location "/tok/">
    AuthType HSC
    HSCUnauthenticated 401
    HSCAcceptTokens Both
    Require valid-user
</Location>
CONF
[ "$basicpw" = no ] || cat <<CONF
<Location "/bpw/">
    AuthType HSC
    HSCUnauthenticated 401
    HSCBasicPassword On
    Require valid-user
</Location>
CONF
} >"$run/httpd.conf"
cd "$run"
cachesim=no
simargs=""
if [ "${HSC_CACHESIM:-0}" = 1 ]; then
    cachesim=yes
    simargs="--LL=${HSC_CACHESIM_LL:-8388608,16,64}"
fi
valgrind --tool=callgrind --instr-atstart=no --cache-sim=$cachesim $simargs \
    --callgrind-out-file="$run/cg.%p" \
    "$httpd" -X -f "$run/httpd.conf" >"$run/logs/valgrind" 2>&1 &
vpid=$!
i=0
until curl -s -o /dev/null "$base/control/1k.html"; do
    i=$((i + 1)); [ $i -gt 300 ] && { cat "$run/logs/valgrind" >&2; exit 1; }
    sleep 0.2
done
echo "# callgrind-rows: module $modso, $secs s per row, wrk -t1 -c4, cache simulation $cachesim"
if [ "$cachesim" = yes ]; then
    echo "| row | requests | Ir per request | D1 misses per request | LL misses per request | estimated cycles per request | cache hit rate |"
    echo "|---|---:|---:|---:|---:|---:|---:|"
else
    echo "| row | requests | Ir per request | cache hit rate |"
    echo "|---|---:|---:|---:|"
fi
# "hits misses live entries" of the record cache.
cache_stat() {
    curl -s "$base/hsc-cache-status" | awk '
        { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
        END { printf "%s %s %s %s\n", v["hits"] + 0, v["misses"] + 0,
              v["live"] + 0, v["entries"] + 0 }'
}
dumps=0
rows="control hsc-1 hsc-1000 authz-1000 f2-1000"
# A module that checks seals (an older one refuses every sealed cookie).
grep -q "the seal switch is on" "$modso" && rows="$rows sealed-1000"
[ "$tokens" = no ] || rows="$rows bearer-1000 basic-1000"
[ "$basicpw" = no ] || rows="$rows basicpw-100"
[ "$users" -gt 1000 ] && rows="$rows hsc-$users"
for row in $rows; do
    cookies=$run/cookies.txt
    extra=""
    case $row in control) url=$base/control/1k.html; n=1000 ;;
                 authz-*) url=$base/hsc-authz; n=${row#authz-}
                          extra="X-Original-URL: http://app.example/page" ;;
                 bearer-*) url=$base/tok/1k.html; n=${row#bearer-}
                           cookies=$run/tokens.bearer ;;
                 basic-*) url=$base/tok/1k.html; n=${row#basic-}
                          cookies=$run/tokens.basic ;;
                 basicpw-*) url=$base/bpw/1k.html; n=${row#basicpw-}
                            cookies=$run/basicpw.txt ;;
                 f2-*) url=$base/hsc/1k.html; n=${row#f2-}
                       cookies=$run/cookies2.txt ;;
                 sealed-*) url=$base/hsc/1k.html; n=${row#sealed-}
                           cookies=$run/cookies-sealed.txt ;;
                 *) url=$base/hsc/1k.html; n=${row#hsc-} ;; esac
    # Warm every cookie (and every thread) before counting: file order
    # until the cache holds 99% of them (at most 5 passes, each long
    # enough for every cookie at the 1,000 or so requests a second httpd
    # makes uninstrumented under valgrind; a row with more users than the
    # cache holds stops after one).
    wsec=$((n / 800 + 4))
    w=0
    while :; do
        wrk -t1 -c4 -d"${wsec}s" -s "$lua" "$url" -- "$cookies" "$n" seq ${extra:+"$extra"} >/dev/null 2>&1
        w=$((w + 1))
        [ "$row" = control ] && break
        set -- $(cache_stat)
        [ "$3" -ge $((n * 99 / 100)) ] || [ $w -ge 5 ] && break
        [ "$n" -gt "$4" ] && break # more users than the cache holds
    done
    s0=$(cache_stat)
    [ "$row" = control ] || echo "# $row: warmed in $w passes of $wsec s, $(echo $s0 | cut -d' ' -f3) records held" >&2
    callgrind_control -i on "$vpid" >/dev/null 2>&1
    callgrind_control -z "$vpid" >/dev/null 2>&1
    wrk -t1 -c4 -d"${secs}s" -s "$lua" "$url" -- "$cookies" "$n" random ${extra:+"$extra"} >"$run/wrk.out" 2>&1
    callgrind_control -d "$row" "$vpid" >/dev/null 2>&1
    callgrind_control -i off "$vpid" >/dev/null 2>&1
    s1=$(cache_stat)
    set -- $s0; h0=$1; m0=$2
    set -- $s1
    hit=$(awk -v h=$(($1 - h0)) -v m=$(($2 - m0)) -v r="$row" \
        'BEGIN { if (r == "control" || h + m == 0) print "-"; else printf "%.1f%%", 100 * h / (h + m) }')
    reqs=$(awk '/ requests in / { print $1 }' "$run/wrk.out")
    bad=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$run/wrk.out")
    [ "${bad:-0}" = 0 ] || { echo "callgrind-rows: $row: non-2xx answers" >&2; exit 1; }
    sleep 1
    f=$(ls -t "$run"/cg.* | head -n 1)
    # HSC_CALLGRIND_KEEP=DIR keeps each row's profile as DIR/ROW.callgrind
    # (callgrind_annotate reads it: where a row's instructions go).
    [ -z "${HSC_CALLGRIND_KEEP:-}" ] || cp "$f" "$HSC_CALLGRIND_KEEP/$row.callgrind"
    if [ "$cachesim" = yes ]; then
        # The simulated caches, beside the table (stderr, as the warm lines).
        [ "$row" = control ] && sed -n 's/^desc: \(.* cache:\)/# simulated \1/p' "$f" >&2
        # events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
        awk -v r="$row" -v q="$reqs" -v hit="$hit" '
            /^events:/ { for (i = 2; i <= NF; i++) col[$i] = i }
            /^(summary|totals):/ && !done { done = 1
                ir = $col["Ir"]; l1 = $col["I1mr"] + $col["D1mr"] + $col["D1mw"]
                d1 = $col["D1mr"] + $col["D1mw"]
                ll = $col["ILmr"] + $col["DLmr"] + $col["DLmw"]
                printf "| %s | %d | %.0f | %.1f | %.2f | %.0f | %s |\n", r, q,
                    ir / q, d1 / q, ll / q, (ir + 10 * l1 + 100 * ll) / q, hit }' "$f"
    else
        ir=$(awk '/^(summary|totals):/ { print $2; exit }' "$f")
        awk -v r="$row" -v q="$reqs" -v ir="$ir" -v hit="$hit" \
            'BEGIN { printf "| %s | %d | %.0f | %s |\n", r, q, ir / q, hit }'
    fi
    rm -f "$f"
done
