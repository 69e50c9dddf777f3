#!/bin/sh
# pgsql-vs-sqlite.sh: requests per second of one httpd node (event MPM,
# 127.0.0.1 only) checking mod_hsc cookies against the PostgreSQL user store
# beside the same node against SQLite, and an unprotected control, in one
# run (docs/several-servers.md, docs/dev/benchmarks.md).
#
# One httpd, three ports: /open/ without authentication, the same 1 KiB file
# behind AuthType HSC with HSCUserDB on an SQLite file, and with HSCUserDB
# "pgsql:..." on a throwaway PostgreSQL cluster this script starts (initdb in
# a temporary directory, Unix socket only; test/pgsql/pg-tmp.sh). Same key
# file, same user and password in both stores. wrk runs in interleaved
# rounds; per location it prints the median requests/s, the ratio to /open/
# in the same round, the httpd CPU time per request, and for PostgreSQL the
# transactions the database committed per 1,000 requests (its statements:
# the lease's polls and cache misses).
#
# Usage: bench/pgsql-vs-sqlite.sh [--rounds N] [--duration S]
#        [--connections C] [--max-stale DURATION] [--quick]
# Needs: apache2, wrk, curl, postgresql (server binaries), a built tree.
set -eu

rounds=3
duration=5
conns=50
stale=1s
while [ $# -gt 0 ]; do
    case $1 in
        --rounds) rounds=$2; shift ;;
        --duration) duration=$2; shift ;;
        --connections) conns=$2; shift ;;
        --max-stale) stale=$2; shift ;;
        --quick) rounds=2; duration=2 ;;
        *) echo "usage: $0 [--rounds N] [--duration S] [--connections C] [--max-stale D] [--quick]" >&2; exit 2 ;;
    esac
    shift
done

top=$(pwd)
HTTPD=${HTTPD:-/usr/sbin/apache2}
libexec=$(apxs -q LIBEXECDIR 2>/dev/null || echo /usr/lib/apache2/modules)
. "$top/test/lib/httpd.sh"
for f in "$top/.libs/mod_hsc.so" "$top/hsc-admin"; do
    [ -e "$f" ] || { echo "missing $f: run make first" >&2; exit 1; }
done
for tool in wrk curl; do
    command -v $tool >/dev/null || { echo "missing $tool" >&2; exit 1; }
done
. "$top/test/pgsql/pg-tmp.sh"

W=$(mktemp -d "${TMPDIR:-/tmp}/hsc-pgbench.XXXXXX")
chmod 755 "$W"
cleanup() {
    [ -f "$W/httpd.pid" ] && kill "$(cat "$W/httpd.pid")" 2>/dev/null || true
    pg_tmp_stop
    sleep 0.3
    rm -rf "$W"
}
trap cleanup EXIT INT TERM

pg_tmp_start "$W" >/dev/null
SPEC="pgsql:$PG_CONNINFO"
ADMIN="$top/hsc-admin"
"$ADMIN" keygen "$W/keys" >/dev/null
chmod 644 "$W/keys"
"$ADMIN" init "$W/users.db" >/dev/null
"$ADMIN" init "$SPEC" >/dev/null
for db in "$W/users.db" "$SPEC"; do
    echo bench-password-1 | "$ADMIN" add "$db" bench --password-stdin --force \
        --kdf sha256-chain:1000 >/dev/null
done
[ "$(id -u)" = 0 ] && chown -R nobody "$W/users.db"* && chmod 777 "$W"

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
P_OPEN=$(port); P_SQ=$(port); P_PG=$(port)
mkdir -p "$W/htdocs/open" "$W/htdocs/p"
head -c 1024 /dev/zero | tr '\0' x > "$W/htdocs/open/1k.html"
cp "$W/htdocs/open/1k.html" "$W/htdocs/p/1k.html"
{
httpd_conf_head "$W" "$W/httpd.pid" "$W/error.log" "$top/.libs/mod_hsc.so" socache_shmcb
cat <<EOF
ServerName bench
LogLevel warn
StartServers 2
ServerLimit 4
ThreadsPerChild 64
MaxRequestWorkers 256
Mutex file:$W default
DocumentRoot "$W/htdocs"
HSCKeyFile "$W/keys"
HSCCookieSecure Off
HSCUserDBMaxStale $stale
Listen 127.0.0.1:$P_OPEN
Listen 127.0.0.1:$P_SQ
Listen 127.0.0.1:$P_PG
<VirtualHost 127.0.0.1:$P_SQ>
    HSCUserDB "$W/users.db"
    <Location /login>
        SetHandler hsc-login
    </Location>
    <Location /p>
        AuthType HSC
        Require valid-user
    </Location>
</VirtualHost>
<VirtualHost 127.0.0.1:$P_PG>
    HSCUserDB "$SPEC"
    <Location /login>
        SetHandler hsc-login
    </Location>
    <Location /p>
        AuthType HSC
        Require valid-user
    </Location>
</VirtualHost>
EOF
} >"$W/httpd.conf"
"$HTTPD" -f "$W/httpd.conf" -k start
sleep 1

cookie() { # port
    curl -s -o /dev/null -D - -H "Origin: http://127.0.0.1:$1" \
        -d username=bench -d password=bench-password-1 \
        "http://127.0.0.1:$1/login" | sed -n 's/^[Ss]et-[Cc]ookie: \(hsc=[^;]*\).*/\1/p'
}
C_SQ=$(cookie "$P_SQ")
C_PG=$(cookie "$P_PG")
for chk in "$P_OPEN:/open/1k.html:" "$P_SQ:/p/1k.html:$C_SQ" "$P_PG:/p/1k.html:$C_PG"; do
    p=${chk%%:*}; rest=${chk#*:}; path=${rest%%:*}; c=${rest#*:}
    code=$(curl -s -o /dev/null -w '%{http_code}' -H "Cookie: $c" "http://127.0.0.1:$p$path")
    [ "$code" = 200 ] || { echo "check failed: $p$path answered $code" >&2; exit 1; }
done
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$P_PG/p/1k.html")" != 200 ] \
    || { echo "check failed: /p/ without a cookie answered 200" >&2; exit 1; }

ticks() { # user+system clock ticks of every httpd process
    for pid in $(pgrep -f "$W/httpd.conf"); do
        awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || true
    done | awk '{ s += $1 } END { print s + 0 }'
}
pg_xacts() {
    pg_tmp_psql "SELECT xact_commit FROM pg_stat_database WHERE datname = 'hsc'"
}
hz=$(getconf CLK_TCK)

echo "# $rounds rounds x $duration s per store, wrk -t1 -c$conns, HSCUserDBMaxStale $stale"
for r in $(seq 1 "$rounds"); do
    for loc in open sqlite pgsql; do
        case $loc in
            open) url="http://127.0.0.1:$P_OPEN/open/1k.html"; c="" ;;
            sqlite) url="http://127.0.0.1:$P_SQ/p/1k.html"; c=$C_SQ ;;
            pgsql) url="http://127.0.0.1:$P_PG/p/1k.html"; c=$C_PG ;;
        esac
        t0=$(ticks); x0=$(pg_xacts)
        wrk -t1 -c"$conns" -d"${duration}s" -H "Cookie: $c" "$url" > "$W/wrk.out"
        t1=$(ticks); x1=$(pg_xacts)
        rps=$(awk '/^Requests\/sec:/ { print $2 }' "$W/wrk.out")
        n=$(awk '/ requests in / { print $1 }' "$W/wrk.out")
        non2xx=$(awk '/Non-2xx/ { print $NF }' "$W/wrk.out")
        [ -z "$non2xx" ] || { echo "$loc: $non2xx answers were not 2xx" >&2; exit 1; }
        echo "$r $loc $rps $n $((t1 - t0)) $((x1 - x0))" >> "$W/results"
    done
done

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf "%-8s %12s %10s %16s %18s\n" store "req/s (med)" "vs open" "CPU us/request" "PG xacts/1000 req"
for loc in open sqlite pgsql; do
    med=$(awk -v l=$loc '$2 == l { print $3 }' "$W/results" | median)
    ratio=$(awk -v l=$loc '$2 == "open" { o[$1] = $3 } $2 == l { r[$1] = $3 }
                END { for (k in r) print r[k] / o[k] }' "$W/results" | median)
    awk -v l=$loc -v hz="$hz" -v med="$med" -v ratio="$ratio" '
        $2 == l { n += $4; t += $5; x += $6 }
        END { printf "%-8s %12.0f %10.2f %16.1f %18s\n", l, med, ratio,
                     t * 1e6 / hz / n, l == "pgsql" ? sprintf("%.2f", x * 1000 / n) : "-" }' "$W/results"
done
