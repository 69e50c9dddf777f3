#!/bin/sh
# rss-rows.sh: where an httpd child's memory goes as the number of users
# it has seen grows. One httpd (event MPM, one child, THREADS threads, as
# bench/users-bench.sh runs it), users made by bench/bench_users; every
# thread first opens its store handle (a pass of one user's cookie over
# many connections), then, per row of N users, every one of their cookies
# is sent once (test/rss/hsc-load.pl, 50 connections or one a thread) and the child's
# memory is read from /proc/PID/smaps, by kind of mapping:
#
#   rss       VmRSS of the child
#   cache     the record cache's mapping (its size is the bound)
#   heap      the main arena ([heap])
#   arenas    other anonymous memory: glibc's per-thread malloc arenas
#             (where each thread's SQLite page cache lives), large mallocs
#   stacks    the threads' stacks (8 MiB mappings)
#   files     file-backed (libraries, the database's -shm)
#
# RSS does not depend on the machine's load, so this runs anywhere.
#
# --check makes it a test (test/rss/child-rss.sh runs it in make check):
# it then prints TAP and fails when the child grew, from the row "1 user"
# (every thread's handle open) to the last row, by more than the record
# cache's bound + 320 KiB a thread (each connection's page cache,
# HSC_SQLITE_PAGE_CACHE_KIB = 256, + 25% for headers) + 4 MiB.
#
# Usage: bench/rss-rows.sh [--threads N] [--users "1000 100000 1000000"]
#                          [--cache-size N] [--check] [--keep]
# Needs: apache2, curl, perl, `make bench/bench_users`. Not in make check.
set -eu

threads=128
users="1000 100000 1000000"
cache_size=""
keep=0
check=0
while [ $# -gt 0 ]; do
    case $1 in
        --threads) threads=$2; shift ;;
        --users) users=$2; shift ;;
        --cache-size) cache_size=$2; shift ;;
        --keep) keep=1 ;;
        --check) check=1 ;;
        -h|--help) sed -n '2,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 0 ;;
        *) echo "rss-rows: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${HSC_BUILDDIR:-$top}
apxs=${APXS:-apxs}
modules=$($apxs -q LIBEXECDIR)
. "$top/test/lib/httpd.sh"
httpd=${HTTPD:-$($apxs -q SBINDIR)/$($apxs -q TARGET)}
admin=$builddir/hsc-admin
mkusers=$builddir/bench/bench_users
modso=${HSC_MODSO:-$builddir/.libs/mod_hsc.so}
load=$top/test/rss/hsc-load.pl
[ -x "$mkusers" ] || { echo "rss-rows: make bench/bench_users first" >&2; exit 1; }
max=1
for n in $users; do [ "$n" -gt "$max" ] && max=$n; done

run=$(mktemp -d "${TMPDIR:-/tmp}/hsc-rss-rows.XXXXXX")
chmod 755 "$run"
pidfile=$run/logs/httpd.pid
cleanup() {
    if [ -f "$pidfile" ]; then
        pid=$(cat "$pidfile")
        kill -TERM "$pid" 2>/dev/null || true
        i=0
        while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    fi
    if [ "$keep" = 1 ]; then echo "rss-rows: kept $run" >&2; else rm -rf "$run"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
port=$(perl -MIO::Socket::INET -e '
    my $s = IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1:0",
                                  ReuseAddr => 1) or die; print $s->sockport;')
base=http://127.0.0.1:$port
mkdir -p "$run/logs" "$run/db" "$run/htdocs/hsc"
echo x >"$run/htdocs/hsc/x.html"
"$admin" keygen "$run/hsc.keys" >/dev/null
"$admin" init "$run/db/users.db" >/dev/null
"$mkusers" "$run/db/users.db" "$run/hsc.keys" "$max" "$run/cookies.txt"
if [ "$(id -u)" = 0 ]; then
    chown -R nobody:nogroup "$run/db" # the children run as nobody
fi
size_directive=""
[ -n "$cache_size" ] && size_directive="HSCUserCacheSize $cache_size"
{
httpd_conf_head "$run" "$pidfile" "$run/logs/error_log" "$modso"
cat <<CONF
ServerName 127.0.0.1
Listen 127.0.0.1:$port
LogLevel warn
DocumentRoot "$run/htdocs"
StartServers 1
ServerLimit 1
ThreadLimit $threads
ThreadsPerChild $threads
MaxRequestWorkers $threads
MinSpareThreads 1
MaxSpareThreads $threads
MaxConnectionsPerChild 0
KeepAlive On
MaxKeepAliveRequests 0
HSCKeyFile "$run/hsc.keys"
HSCUserDB "$run/db/users.db"
$size_directive
${HSC_EXTRA_CONF:-}
HSCThrottleCache none
<Location "/hsc/">
    AuthType HSC
    HSCCookieSecure Off
    HSCUnauthenticated 401
    Require valid-user
</Location>
<Location "/hsc-cache-status">
    SetHandler hsc-cache-status
</Location>
CONF
} >"$run/httpd.conf"
"$httpd" -f "$run/httpd.conf" -k start
i=0
until [ -s "$pidfile" ] && curl -s -o /dev/null "$base/hsc-cache-status"; do
    i=$((i + 1)); [ $i -gt 100 ] && { cat "$run/logs/error_log" >&2; exit 1; }
    sleep 0.1
done
cache_field() { curl -s "$base/hsc-cache-status" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
cpid=$(cache_field pid)
bytes=$(cache_field bytes)
# smaps of the child, summed by kind (KiB): rss cache heap arenas stacks files
mem() {
    awk -v cachekb=$((bytes / 1024)) '
        /^[0-9a-f]+-[0-9a-f]+ / {
            path = $6
            kind = (path == "[heap]") ? "heap" : (path ~ /^\// ? "files" : "anon")
            if ($0 ~ /\[anon:hsc record cache\]$/) kind = "cache" }
        /^Size:/ { # unnamed (no CONFIG_ANON_VMA_NAME): the cache is the
                   # mapping of its bound less its locks (< 64 KiB)
            if (kind == "anon" && $2 <= cachekb && $2 > cachekb - 64) kind = "cache"
            else if (kind == "anon" && $2 == 8192) kind = "stacks"
            else if (kind == "anon") kind = "arenas" }
        /^Rss:/ { k[kind] += $2; t += $2 }
        END { printf "%d %d %d %d %d %d\n", t, k["cache"], k["heap"],
              k["arenas"], k["stacks"], k["files"] }' "/proc/$cpid/smaps"
}
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
last_rss=0
row() { # label
    set -- "$1" $(mem)
    last_rss=$2
    [ "$check" = 1 ] && printf '# '
    printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$1" "$(mib $2)" \
        "$(mib $3)" "$(mib $4)" "$(mib $5)" "$(mib $6)" "$(mib $7)" \
        "$(cache_field live)"
}
[ "$check" = 1 ] && echo "1..2"
echo "# rss-rows: $threads threads, HSCUserCacheSize ${cache_size:-default}" \
     "(bound $(mib $((bytes / 1024))) MiB), module $modso"
[ "$check" = 1 ] && printf '# '
echo "| after | child RSS MiB | record cache | main heap | other anon (arenas) | stacks | files | records held |"
[ "$check" = 1 ] && printf '# '
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
row "start"
# At most one connection a thread: a busy event MPM closes kept-alive
# connections beyond what its threads serve, and the client would resend.
conns=50
[ "$threads" -lt "$conns" ] && conns=$threads
# Every thread opens its handle: one user, many connections, many passes.
yes "$(head -n 1 "$run/cookies.txt")" | head -n 20000 >"$run/one.txt"
perl "$load" 127.0.0.1 "$port" /hsc/x.html "$run/one.txt" 20000 "$threads" 4 >/dev/null
row "1 user x 20,000"
base_rss=$last_rss
for n in $users; do
    # Up to 250,000 requests a row: every user of a smaller row, every
    # (n / 250,000)th of a larger one (enough to fill every cache).
    stride=$(( (n + 249999) / 250000 ))
    t0=$(date +%s)
    got=$(perl "$load" 127.0.0.1 "$port" /hsc/x.html "$run/cookies.txt" "$n" "$conns" 16 "$stride")
    sent=$(( (n + stride - 1) / stride ))
    if [ "$got" != "200=$sent" ]; then
        [ "$check" = 1 ] && echo "not ok 1 - every request of $n users answered 200: $got"
        echo "rss-rows: $n users: $got" >&2
        exit 1
    fi
    row "$n users: $sent requests, $(( $(date +%s) - t0 )) s"
done
echo "# load average: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$check" = 1 ]; then
    echo "ok 1 - every request answered 200"
    grew=$((last_rss - base_rss))
    allowed=$((bytes / 1024 + threads * 320 + 4096))
    what="the child grew by $grew KiB after the first user, allowed $allowed (record cache $((bytes / 1024)) + $threads threads x 320 KiB of pages + 4 MiB)"
    if [ "$grew" -le "$allowed" ]; then echo "ok 2 - $what"
    else echo "not ok 2 - $what"; exit 1; fi
fi
