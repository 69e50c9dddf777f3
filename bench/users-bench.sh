#!/bin/sh
# users-bench.sh: what mod_hsc costs per request as the number of active
# users grows, side by side in one run, one httpd (event MPM, one child, so
# the child's record cache sees every request), one load generator (wrk
# with bench/cookies.lua for every row):
#
#   open      no authentication, no Cookie header
#   control   no authentication, a Cookie header of one of 1,000 users
#             (pays the same header cost as /hsc/, without the check)
#   hsc-1     /hsc/, one user's cookie on every request
#   hsc-1k    /hsc/, cookies of 1,000 users, one picked at random a request
#   hsc-100k  the same over 100,000 users
#   hsc-1m    the same over 1,000,000 users (more than the default cache)
#   f2-1k     /hsc/, the same 1,000 users' cookies in format 2 with amr
#             pwd|otp (a second factor at login; hsc-v2.md): its
#             "user-space over hsc-1000" column is what format 2 costs
#             over format 1
#   authz-1k  SetHandler hsc-authz asked with the same cookies as nginx
#             asks it (X-Original-URL), an empty 200 with the identity
#   bearer-1k /tok/ (HSCAcceptTokens Both), one of the same 1,000 users'
#   basic-1k  app passwords a request, as Bearer / as Basic with the name
#             (a module without app passwords gets no such rows)
#
# The users are written straight into the table by bench/bench_users (one
# transaction, KDF sha256-chain:1, cookies minted with the key file), so a
# million take seconds. Before each /hsc/ row of up to 100,000 users, an
# unmeasured pass sends every one of its cookies once (the steady state a
# site with that many active users is in); the 1,000,000 row starts from
# whatever the rows before it left. Rounds interleave the rows (the order
# rotates each round). Per row it prints the median req/s, the median of
# the per-round ratio to the control, httpd's CPU per request (user +
# system of every httpd process, /proc) and what it adds over the control,
# and the child's record cache: hit rate during the row, records held, the
# configured bound and the child's RSS (from SetHandler hsc-cache-status
# and /proc). Last, with every user warm in the cache, hsc-admin disable,
# enable and revoke must show on the very next request.
#
# Usage: bench/users-bench.sh [options]     (run from a built tree)
#   --rounds N       rounds (default 3)
#   --duration S     seconds per row per round (default 5)
#   --connections C  wrk connections (default 50)
#   --users LIST     /hsc/ rows (default "1 1000 100000 1000000")
#   --format2 LIST   format 2 rows (default "1000"; "" for none)
#   --extra LIST     more rows of 1,000 users: authz, bearer, basic
#                    (default all three; "" for none)
#   --cache-size N   HSCUserCacheSize (default: the module's, 131072)
#   --no-record-cache  HSCUserDBCache Off
#   --pin            httpd on CPU 0, wrk on CPU 1 (taskset)
#   --quick          1 round of 2 s, users "1 1000 10000" (a smoke test)
#   --keep           keep the temporary ServerRoot
# Needs: apache2, wrk, curl, perl, and `make bench/bench_users`.
# Not part of `make check`: a benchmark is not a test.
set -eu

rounds=3
duration=5
conns=50
users="1 1000 100000 1000000"
format2="1000"
extra="authz bearer basic"
cache_size=""
record_cache=On
pin=0
keep=0
while [ $# -gt 0 ]; do
    case $1 in
        --rounds) rounds=$2; shift ;;
        --duration) duration=$2; shift ;;
        --connections) conns=$2; shift ;;
        --users) users=$2; shift ;;
        --format2) format2=$2; shift ;;
        --extra) extra=$2; shift ;;
        --cache-size) cache_size=$2; shift ;;
        --no-record-cache) record_cache=Off ;;
        --pin) pin=1 ;;
        --quick) rounds=1; duration=2; users="1 1000 10000" ;;
        --keep) keep=1 ;;
        -h|--help) sed -n '2,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 0 ;;
        *) echo "users-bench: unknown option $1 (see --help)" >&2; exit 2 ;;
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
# HSC_MODSO: another build's module (e.g. main's, for a before/after).
modso=${HSC_MODSO:-$builddir/.libs/mod_hsc.so}
lua=$top/bench/cookies.lua
missing=""
for tool in wrk curl perl; do
    command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
for f in "$httpd" "$admin" "$mkusers"; do
    [ -x "$f" ] || missing="$missing $f"
done
[ -f "$modso" ] || missing="$missing $modso"
if [ -n "$missing" ]; then
    echo "users-bench: missing:$missing (make; make bench/bench_users)" >&2
    exit 1
fi
max=0
for n in $users $format2; do [ "$n" -gt "$max" ] && max=$n; done
[ "$max" -ge 1000 ] || max=1000 # the control's cookies

run=$(mktemp -d "${TMPDIR:-/tmp}/hsc-users-bench.XXXXXX")
chmod 755 "$run"
pidfile=$run/logs/httpd.pid
conf=$run/httpd.conf
stop_httpd() {
    if [ -f "$pidfile" ]; then
        pid=$(cat "$pidfile")
        kill -TERM "$pid" 2>/dev/null || true
        i=0
        while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
            sleep 0.1; i=$((i + 1))
        done
        kill -KILL "$pid" 2>/dev/null || true
        rm -f "$pidfile"
    fi
}
cleanup() {
    stop_httpd
    if [ "$keep" = 1 ]; then echo "users-bench: kept $run" >&2
    else rm -rf "$run"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port=$(perl -MIO::Socket::INET -e '
    my $s = IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1:0",
                                  ReuseAddr => 1) or die "no port: $!\n";
    print $s->sockport, "\n";')
base=http://127.0.0.1:$port

mkdir -p "$run/logs" "$run/db" "$run/htdocs/open" "$run/htdocs/control" \
         "$run/htdocs/hsc" "$run/htdocs/tok"
for loc in open control hsc tok; do
    perl -e 'print "x" x 1023, "\n"' >"$run/htdocs/$loc/1k.html"
done

"$admin" keygen "$run/hsc.keys" >/dev/null
"$admin" init "$run/db/users.db" >/dev/null
t0=$(date +%s.%N)
# App passwords for the bearer and basic rows, where the module has them.
if grep -q HSCAcceptTokens "$modso"; then
    tokens_env="HSC_BENCH_TOKENS=$run/tokens"
else
    tokens_env=""
    extra=$(echo "$extra" | tr ' ' '\n' | grep -v -e bearer -e basic | tr '\n' ' ')
fi
[ -z "$extra" ] || [ "$max" -ge 1000 ] || max=1000
env $tokens_env "$mkusers" "$run/db/users.db" "$run/hsc.keys" "$max" "$run/cookies.txt" \
    "$run/cookies2.txt"
t1=$(date +%s.%N)
echo "# bench_users: $max users and cookies in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s (one transaction, KDF sha256-chain:1)"

if [ "$(id -u)" = 0 ]; then
    chown -R nobody:nogroup "$run/db" # the children run as nobody
fi
size_directive=""
[ -n "$cache_size" ] && size_directive="HSCUserCacheSize $cache_size"
{
httpd_conf_head "$run" "$pidfile" "$run/logs/error_log" "$modso" mime
cat <<CONF
ServerName 127.0.0.1
Listen 127.0.0.1:$port
LogLevel warn
TypesConfig /etc/mime.types
DocumentRoot "$run/htdocs"
# One child, never recycled: its record cache sees every request, and
# /hsc-cache-status always reaches it.
StartServers 1
ServerLimit 1
ThreadLimit 128
ThreadsPerChild 128
MaxRequestWorkers 128
MinSpareThreads 1
MaxSpareThreads 128
MaxConnectionsPerChild 0
KeepAlive On
MaxKeepAliveRequests 0
KeepAliveTimeout 30
HSCKeyFile "$run/hsc.keys"
HSCUserDB "$run/db/users.db"
HSCUserDBCache $record_cache
$size_directive
HSCThrottleCache none
<Location "/hsc/">
    AuthType HSC
    HSCCookieSecure Off
    HSCUnauthenticated 401
    HSCIdleTimeout 4h
    HSCMaxAge 8h
    Require valid-user
</Location>
<Location "/hsc-cache-status">
    SetHandler hsc-cache-status
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
CONF
[ -z "$tokens_env" ] || cat <<CONF
<Location "/tok/">
    AuthType HSC
    HSCUnauthenticated 401
    HSCAcceptTokens Both
    Require valid-user
</Location>
CONF
} >"$conf"
if ! "$httpd" -t -f "$conf" >"$run/logs/configtest" 2>&1; then
    echo "users-bench: configuration refused:" >&2
    cat "$run/logs/configtest" >&2
    exit 1
fi
if [ "$pin" = 1 ]; then
    taskset -c 0 "$httpd" -f "$conf" -k start
    wrk="taskset -c 1 wrk"
else
    "$httpd" -f "$conf" -k start
    wrk=wrk
fi
i=0
until [ -s "$pidfile" ] && curl -s -o /dev/null "$base/open/1k.html"; do
    i=$((i + 1))
    if [ $i -gt 100 ]; then
        echo "users-bench: httpd did not start:" >&2
        cat "$run/logs/error_log" >&2
        exit 1
    fi
    sleep 0.1
done
ppid_httpd=$(cat "$pidfile")

status() { curl -s -o /dev/null -w '%{http_code}' "$1"; }
first=$(head -n 1 "$run/cookies.txt")
hstatus() { curl -s -o /dev/null -w '%{http_code}' -H "Cookie: $2" "$1"; }
checks_failed=0
expect() { # what, wanted, got
    if [ "$2" = "$3" ]; then echo "ok - $1: $3"
    else echo "not ok - $1: got $3, wanted $2"; checks_failed=1; fi
}
echo "# users-bench: $("$httpd" -v | sed -n 's/^Server version: //p'), port $port"
expect "/open/" 200 "$(status "$base/open/1k.html")"
expect "/control/ with a cookie" 200 "$(hstatus "$base/control/1k.html" "$first")"
expect "/hsc/ without a cookie" 401 "$(status "$base/hsc/1k.html")"
expect "/hsc/ with user b0000000's cookie" 200 "$(hstatus "$base/hsc/1k.html" "$first")"
last=$(sed -n "${max}p" "$run/cookies.txt")
expect "/hsc/ with the last user's cookie" 200 "$(hstatus "$base/hsc/1k.html" "$last")"
[ -z "$format2" ] || expect "/hsc/ with user b0000000's format 2 cookie" 200 \
    "$(hstatus "$base/hsc/1k.html" "$(head -n 1 "$run/cookies2.txt")")"
[ "$checks_failed" = 0 ] || { tail -n 20 "$run/logs/error_log" >&2; exit 1; }

hz=$(getconf CLK_TCK)
# "all user" CPU ticks of httpd: user + system, and user alone. mod_hsc
# adds user-space work only (no system call on a hit), while most of a
# request's CPU, and most of the noise of a virtual machine, is the
# kernel's: the user-space figure tells a few µs apart where the whole
# cannot.
httpd_ticks() {
    cat /proc/[0-9]*/stat 2>/dev/null | awk -v p="$ppid_httpd" '
        { pid = $1; rest = $0; sub(/^.*\) /, "", rest); split(rest, f, " ")
          if (pid == p || f[2] == p) { t += f[12] + f[13]; u += f[12] } }
        END { print t + 0, u + 0 }'
}
# "hits misses live bytes pid entries" of the child's cache.
cache_stat() {
    curl -s "$base/hsc-cache-status" | awk '
        { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
        END { printf "%s %s %s %s %s %s\n", v["hits"] + 0, v["misses"] + 0,
              v["live"] + 0, v["bytes"] + 0, v["pid"] + 0, v["entries"] + 0 }'
}
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0; }

rows="open control"
for n in $users; do rows="$rows hsc-$n"; done
for n in $format2; do rows="$rows f2-$n"; done
for x in $extra; do rows="$rows $x-1000"; done
row_url() { case $1 in open) echo "$base/open/1k.html" ;;
                       control) echo "$base/control/1k.html" ;;
                       authz-*) echo "$base/hsc-authz" ;;
                       bearer-*|basic-*) echo "$base/tok/1k.html" ;;
                       *) echo "$base/hsc/1k.html" ;; esac; }
row_n() { case $1 in open) echo 0 ;; control) echo 1000 ;;
                     *) echo "${1#*-}" ;; esac; }
# The lines a row sends (bench/cookies.lua): format 2 cookies for f2-N,
# the app passwords' Authorization lines, format 1 cookies for the others.
row_cookies() { case $1 in f2-*) echo "$run/cookies2.txt" ;;
                           bearer-*) echo "$run/tokens.bearer" ;;
                           basic-*) echo "$run/tokens.basic" ;;
                           *) echo "$run/cookies.txt" ;; esac; }
# The header a row adds to every request (hsc-authz's question), or "".
row_header() { case $1 in authz-*) echo "X-Original-URL: http://app.example/page" ;; esac; }

results=$run/results.txt
: >"$results"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $rounds rounds x $duration s per row, wrk -t1 -c$conns," \
     "pinning: $([ "$pin" = 1 ] && echo 'httpd CPU 0, wrk CPU 1' || echo none)"
nrows=$(echo $rows | wc -w)
evicted=0
r=1
while [ $r -le "$rounds" ]; do
    order=$(echo $rows | awk -v r=$r '{ for (i = 0; i < NF; i++)
        printf "%s ", $(((i + r - 1) % NF) + 1) }')
    for row in $order; do
        n=$(row_n "$row")
        url=$(row_url "$row")
        cookies=$(row_cookies "$row")
        hdr=$(row_header "$row")
        case $row in hsc-*|f2-*|authz-*|bearer-*|basic-*)
            set -- $(cache_stat)
            if [ "$n" -le 100000 ] && { [ "$evicted" = 1 ] || [ "$3" -lt $((n * 99 / 100)) ]; }; then
                # Warm: every cookie in file order (not measured), until
                # the cache holds 99% of them (at most 5 passes). Rows
                # are the first N lines of one file, so a warm bigger row
                # leaves a smaller one warm too, unless a row with more
                # users than the cache holds has evicted them since.
                wsec=$((n / 8000 + 1))
                w=0
                evicted=0
                while [ $w -lt 5 ]; do
                    $wrk -t1 -c"$conns" -d"${wsec}s" -s "$lua" "$url" \
                        -- "$cookies" "$n" seq ${hdr:+"$hdr"} >"$run/warm.out" 2>&1
                    set -- $(cache_stat)
                    [ "$3" -ge $((n * 99 / 100)) ] && break
                    [ "$4" = 0 ] && break # no cache to warm (off, or another build)
                    w=$((w + 1))
                done
            fi ;;
        esac
        s0=$(cache_stat)
        # More users than the cache holds (its size as the child reports
        # it): this row evicts what the smaller rows warmed.
        set -- $s0
        [ "$n" -gt "$6" ] && evicted=1
        t0=$(httpd_ticks)
        $wrk -t1 -c"$conns" -d"${duration}s" --timeout 30s --latency \
            -s "$lua" "$url" -- "$cookies" "$n" random ${hdr:+"$hdr"} >"$run/wrk.out" 2>&1
        t1=$(httpd_ticks)
        s1=$(cache_stat)
        rps=$(awk '/^Requests\/sec:/ { print $2 }' "$run/wrk.out")
        reqs=$(awk '/ requests in / { print $1 }' "$run/wrk.out")
        bad=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$run/wrk.out")
        if [ -z "$rps" ] || [ -z "$reqs" ] || [ "${bad:-0}" != 0 ]; then
            echo "users-bench: round $r $row failed:" >&2
            cat "$run/wrk.out" >&2
            tail -n 5 "$run/logs/error_log" >&2
            exit 1
        fi
        set -- $t0; a=$1; ua=$2
        set -- $t1
        cpu_us=$(awk -v a="$a" -v b="$1" -v hz="$hz" -v n="$reqs" \
            'BEGIN { printf "%.2f", (b - a) / hz * 1e6 / n }')
        usr_us=$(awk -v a="$ua" -v b="$2" -v hz="$hz" -v n="$reqs" \
            'BEGIN { printf "%.2f", (b - a) / hz * 1e6 / n }')
        set -- $s0; h0=$1; m0=$2
        set -- $s1; h1=$1; m1=$2; live=$3; bytes=$4; cpid=$5
        rss=$(rss_kib "$cpid")
        hit=$(awk -v h=$((h1 - h0)) -v m=$((m1 - m0)) \
            'BEGIN { if (h + m == 0) print "-"; else printf "%.1f", 100 * h / (h + m) }')
        echo "$r $row $rps $cpu_us $hit $live $bytes $rss $usr_us" >>"$results"
        printf '# round %d %-9s %8.0f req/s  cpu %6s us/req (user %5s)  hits %5s%%  records %7s  rss %7s KiB\n' \
            "$r" "$row" "$rps" "$cpu_us" "$usr_us" "$hit" "$live" "$rss"
    done
    r=$((r + 1))
done

# --- exactness: with every user warm, a change shows on the next request --
for u in 0 1 2 3 4 5 6 7 8 9; do # warm these once more
    hstatus "$base/hsc/1k.html" "$(sed -n "$((u + 1))p" "$run/cookies.txt")" >/dev/null
done
"$admin" disable "$run/db/users.db" b0000000 >/dev/null
expect "/hsc/ right after hsc-admin disable" 401 "$(hstatus "$base/hsc/1k.html" "$first")"
# Disabling revokes (hsc-v1.md): enabled again, the old cookie stays out.
"$admin" enable "$run/db/users.db" b0000000 >/dev/null
expect "/hsc/ after enable, a cookie from before the disable" 401 "$(hstatus "$base/hsc/1k.html" "$first")"
third=$(sed -n 3p "$run/cookies.txt")
"$admin" revoke "$run/db/users.db" b0000002 >/dev/null
expect "/hsc/ right after hsc-admin revoke" 401 "$(hstatus "$base/hsc/1k.html" "$third")"
second=$(sed -n 2p "$run/cookies.txt")
expect "/hsc/ another warm user still in" 200 "$(hstatus "$base/hsc/1k.html" "$second")"
[ "$checks_failed" = 0 ] || { echo "users-bench: a change was not seen at once" >&2; exit 1; }

echo
echo "| row | users | req/s (median) | vs control | httpd CPU µs/req | over control µs | user-space µs/req | user-space over control µs (quartiles) | user-space over hsc-1000 µs (quartiles) | cache hit rate | records held | cache bound MiB | child RSS MiB |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for row in $rows; do
    awk -v row="$row" -v n="$(row_n "$row")" '
        function sort(a, k,    i, j, t) {
            for (i = 2; i <= k; i++)
                for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
                    t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
        }
        # The q-quantile of the k sorted values in a (linear between ranks).
        function quantile(a, k, q,    x, i) {
            x = 1 + (k - 1) * q; i = int(x)
            return (i >= k) ? a[k] : a[i] + (x - i) * (a[i + 1] - a[i])
        }
        function median(a, k) { sort(a, k); return quantile(a, k, 0.5) }
        # "median (first quartile..third quartile)" of the m values in a.
        function quartiles(a, m) {
            if (m == 0) return "-"
            sort(a, m)
            return sprintf("%+.1f (%+.1f..%+.1f)", quantile(a, m, 0.5),
                           quantile(a, m, 0.25), quantile(a, m, 0.75))
        }
        { rps[$1, $2] = $3; cpu[$1, $2] = $4; usr[$1, $2] = $9 }
        $2 == row { k++; rd[k] = $1; r[k] = $3; c[k] = $4; hit = $5;
                    live = $6; bytes = $7; rss = $8; u[k] = $9 }
        END {
            m = 0
            for (i = 1; i <= k; i++) {
                ratio[i] = r[i] / rps[rd[i], "control"]
                over[i] = c[i] - cpu[rd[i], "control"]
                uover[i] = u[i] - usr[rd[i], "control"]
                if ((rd[i], "hsc-1000") in usr)
                    d[++m] = u[i] - usr[rd[i], "hsc-1000"]
            }
            vc = quartiles(uover, k)
            vs = quartiles(d, m)
            printf "| %s | %s | %.0f | %.2f | %.1f | %+.1f | %.1f | %s | %s | %s%s | %s | %.1f | %.1f |\n",
                row, (row == "open") ? "-" : n, median(r, k), median(ratio, k),
                median(c, k), median(over, k), median(u, k), vc, vs,
                hit, (hit == "-") ? "" : "%", live, bytes / 1048576, rss / 1024
        }' "$results"
done
echo
echo "# hit rate, records and RSS: the last round's; vs control and the \"over\" columns: medians of the"
echo "# per-round differences (a row against the other row of its own round); user-space: utime alone"
echo "# $(nproc) CPUs: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "# HSCUserDBCache $record_cache, HSCUserCacheSize ${cache_size:-default}"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if grep -qiE 'AddressSanitizer|runtime error:|segfault|exit signal' "$run/logs/error_log"; then
    echo "users-bench: the error log shows a crash" >&2
    exit 1
fi
