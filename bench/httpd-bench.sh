#!/bin/sh
# httpd-bench.sh: requests per second and server CPU per request of one
# httpd (event MPM, 127.0.0.1 only) serving the same 1 KiB file behind four
# kinds of access control:
#
#   /open/  no authentication (the baseline)
#   /hsc/   mod_hsc: a hardened stateless cookie from logging in through the
#           hsc-login handler (SQLite user store, HMAC + SHA-256 per request)
#   /tkt/   mod_auth_tkt (Debian's libapache2-mod-auth-tkt), SHA256 digests,
#           a ticket made here per its documented format
#   /dbd/   mod_auth_basic + mod_authn_dbd + mod_dbd on SQLite: HTTP Basic,
#           the password hash checked on every request (bcrypt, cost 5:
#           what `htpasswd -B` makes)
#
# It first checks with curl that every protected URL answers 200 with its
# credential and 401 or a redirect without or with a tampered one, then runs wrk in
# interleaved rounds (each round visits every location, the order rotating)
# and prints per location the median requests/s, the ratio to /open/ in the
# same round, p50/p99 latency, and the httpd CPU time (user + system of every
# httpd process, from /proc/PID/stat) per request. Last, it checks that
# hsc-admin disable, enable and revoke are seen by the very next request to
# /hsc/ (every thread's validated record cache is warm by then).
#
# Usage: bench/httpd-bench.sh [options]     (run from a built tree)
#   --rounds N       rounds (default 5)
#   --duration S     seconds per location per round (default 5)
#   --connections C  wrk connections (default 50; try 200)
#   --threads T      wrk threads (default 1)
#   --pin            httpd on CPU 0, wrk on CPU 1 (taskset)
#   --bcrypt-cost N  cost of the /dbd/ password hash (default 5)
#   --no-record-cache  HSCUserDBCache Off: /hsc/ runs the SQLite query on
#                    every request (the default keeps validated records)
#   --users N        /hsc/ rotates over the cookies of N users (default 1),
#                    so each thread's 32-record cache mostly misses when N is
#                    large; the extra users have a fast KDF (sha256-chain:1000)
#   --quick          2 rounds of 2 s (a smoke test of the script)
#   --keep           keep the temporary ServerRoot (config, logs)
# Needs: apache2 (apache2-bin), wrk, curl, perl, sqlite3,
# libapache2-mod-auth-tkt, libaprutil1-dbd-sqlite3, and the built
# .libs/mod_hsc.so and hsc-admin (`make`).
set -eu

rounds=5
duration=5
conns=50
threads=1
pin=0
cost=5
keep=0
record_cache=On
nusers=1
while [ $# -gt 0 ]; do
    case $1 in
        --rounds) rounds=$2; shift ;;
        --duration) duration=$2; shift ;;
        --connections) conns=$2; shift ;;
        --threads) threads=$2; shift ;;
        --pin) pin=1 ;;
        --bcrypt-cost) cost=$2; shift ;;
        --no-record-cache) record_cache=Off ;;
        --users) nusers=$2; shift ;;
        --quick) rounds=2; duration=2 ;;
        --keep) keep=1 ;;
        -h|--help) sed -n '2,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 0 ;;
        *) echo "httpd-bench: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
for n in "$rounds" "$duration" "$conns" "$threads" "$cost" "$nusers"; do
    case $n in
        ''|*[!0-9]*|0) echo "httpd-bench: options take positive integers" >&2
                       exit 2 ;;
    esac
done

top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${HSC_BUILDDIR:-$top}
apxs=${APXS:-apxs}
. "$top/test/lib/httpd.sh"
modules=$(httpd_modules_dir)
httpd=${HTTPD:-$($apxs -q SBINDIR)/$($apxs -q TARGET)}
admin=$builddir/hsc-admin
modso=$builddir/.libs/mod_hsc.so

missing=""
for tool in wrk curl perl sqlite3; do
    command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
[ -x "$httpd" ] || missing="$missing $httpd"
[ -x "$admin" ] || missing="$missing $admin"
[ -f "$modso" ] || missing="$missing $modso"
for m in mod_auth_tkt mod_dbd mod_authn_dbd mod_auth_basic mod_mpm_event; do
    [ -f "$modules/$m.so" ] || missing="$missing $modules/$m.so"
done
if ! ls /usr/lib/*/apr-util-1/apr_dbd_sqlite3*.so >/dev/null 2>&1; then
    missing="$missing apr_dbd_sqlite3 (libaprutil1-dbd-sqlite3)"
fi
if [ "$pin" = 1 ]; then
    command -v taskset >/dev/null 2>&1 || missing="$missing taskset"
fi
if [ -n "$missing" ]; then
    echo "httpd-bench: missing:$missing" >&2
    echo "  (scripts/install-deps-debian.sh --bench; make)" >&2
    exit 1
fi

run=$(mktemp -d "${TMPDIR:-/tmp}/hsc-httpd-bench.XXXXXX")
chmod 755 "$run"
pidfile=$run/logs/httpd.pid
conf=$run/httpd.conf

stop_httpd() {
    if [ -f "$pidfile" ]; then
        pid=$(cat "$pidfile")
        kill -TERM "$pid" 2>/dev/null || true
        i=0
        while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do
            sleep 0.1
            i=$((i + 1))
        done
        kill -KILL "$pid" 2>/dev/null || true
        rm -f "$pidfile"
    fi
}
cleanup() {
    stop_httpd
    if [ "$keep" = 1 ]; then
        echo "httpd-bench: kept $run" >&2
    else
        rm -rf "$run"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A free port on the loopback interface, chosen by the kernel.
port=$(perl -MIO::Socket::INET -e '
    my $s = IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1:0",
                                  ReuseAddr => 1) or die "no port: $!\n";
    print $s->sockport, "\n";')
base=http://127.0.0.1:$port

# --- content: the same 1 KiB file in four folders --------------------------
mkdir -p "$run/logs" "$run/db" "$run/htdocs"
for loc in open hsc tkt dbd; do
    mkdir -p "$run/htdocs/$loc"
    perl -e 'my ($h, $t) = ("<!doctype html><title>bench</title><pre>\n",
                            "</pre>\n");
             my $s = $h . ("x" x 63 . "\n") x 14;
             print $s, "x" x (1023 - length($s) - length($t)), "\n", $t' \
        >"$run/htdocs/$loc/1k.html"
done
size=$(wc -c <"$run/htdocs/open/1k.html")
[ "$size" = 1024 ] || { echo "httpd-bench: test file is $size bytes" >&2; exit 1; }

user=bench
password=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')

# --- mod_hsc: key file, user store with one user (default KDF) -------------
"$admin" keygen "$run/hsc.keys" >/dev/null
"$admin" init "$run/db/users.db" >/dev/null
printf '%s\n' "$password" \
    | "$admin" add "$run/db/users.db" "$user" --password-stdin --force >/dev/null

# --- mod_auth_tkt: a secret and a ticket (README "Cookie Format") ----------
tkt_secret=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
tkt_ticket=$(TKT_SECRET=$tkt_secret perl -MDigest::SHA=sha256_hex \
    -MMIME::Base64 -e '
    # digest0 = H(iptstamp . secret . uid . "\0" . tokens . "\0" . data)
    # digest  = H(digest0 . secret); ticket = digest . hex(ts) . uid . "!"
    # With TKTAuthIgnoreIP the address bytes are 0.0.0.0.
    my ($secret, $uid, $ts) = ($ENV{TKT_SECRET}, $ARGV[0], time);
    my $ipts = pack("C4N", 0, 0, 0, 0, $ts);
    my $d0 = sha256_hex($ipts . $secret . $uid . "\0" . "" . "\0" . "");
    my $d = sha256_hex($d0 . $secret);
    print encode_base64(sprintf("%s%08x%s!", $d, $ts, $uid), ""), "\n";
' "$user")

# --- mod_authn_dbd: an SQLite table with a bcrypt hash (htpasswd -B) -------
bcrypt=$(BENCH_PW=$password perl -e '
    my @c = ("." , "/", "A".."Z", "a".."z", "0".."9");
    my $salt = join "", map { $c[rand @c] } 1 .. 21;
    $salt .= (".", "O", "e", "u")[rand 4];
    my $h = crypt($ENV{BENCH_PW}, sprintf(q{$2y$%02d$%s}, $ARGV[0], $salt));
    die "crypt() has no bcrypt here\n" unless defined $h && $h =~ /^\$2y\$/;
    print $h, "\n";' "$cost")
sqlite3 "$run/db/dbd.sqlite" <<SQL
CREATE TABLE users (name TEXT PRIMARY KEY, password TEXT NOT NULL);
INSERT INTO users VALUES ('$user', '$bcrypt');
SQL

if [ "$(id -u)" = 0 ]; then
    # The children run as nobody (test/lib/httpd.sh); SQLite writes its
    # -wal/-shm files beside each database, so the folder is theirs.
    chown -R nobody:nogroup "$run/db"
fi

{
echo "# Generated by bench/httpd-bench.sh: one httpd, four locations."
httpd_conf_head "$run" "$pidfile" "$run/logs/error_log" "$modso" \
    auth_basic dbd authn_dbd auth_tkt mime
cat <<CONF
ServerName 127.0.0.1
Listen 127.0.0.1:$port
LogLevel warn
TypesConfig /etc/mime.types
DocumentRoot "$run/htdocs"
# No access log: every location pays the same, and less is measured.

# Two children that are never recycled, so /proc accounting sees them all,
# each with a thread for every connection wrk may open (fewer makes the
# event MPM close idle keep-alive connections under -c200).
StartServers 2
ServerLimit 2
ThreadLimit 256
ThreadsPerChild 256
MaxRequestWorkers 512
AsyncRequestWorkerFactor 4
MinSpareThreads 1
MaxSpareThreads 512
MaxConnectionsPerChild 0
KeepAlive On
MaxKeepAliveRequests 0
KeepAliveTimeout 30

HSCKeyFile "$run/hsc.keys"
HSCUserDB "$run/db/users.db"
HSCUserDBCache $record_cache
<Location "/hsc/">
    AuthType HSC
    HSCCookieSecure Off
    HSCUnauthenticated 401
    # Long enough that no response in the run carries a refreshed cookie.
    HSCIdleTimeout 4h
    HSCMaxAge 8h
    Require valid-user
</Location>
<Location "/hsc-login">
    SetHandler hsc-login
    HSCCookieSecure Off
    HSCIdleTimeout 4h
    HSCMaxAge 8h
    HSCLoginSuccessURL /hsc/1k.html
</Location>

TKTAuthSecret "$tkt_secret"
TKTAuthDigestType SHA256
<Location "/tkt/">
    AuthType None
    TKTAuthLoginURL $base/login
    TKTAuthIgnoreIP on
    TKTAuthTimeout 1d
    Require valid-user
</Location>

DBDriver sqlite3
DBDParams "$run/db/dbd.sqlite"
DBDMin 1
DBDKeep 256
DBDMax 256
<Location "/dbd/">
    AuthType Basic
    AuthName "bench"
    AuthBasicProvider dbd
    AuthDBDUserPWQuery "SELECT password FROM users WHERE name = %s"
    Require valid-user
</Location>
CONF
} >"$conf"

if ! "$httpd" -t -f "$conf" >"$run/logs/configtest" 2>&1; then
    echo "httpd-bench: configuration refused:" >&2
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
        echo "httpd-bench: httpd did not start:" >&2
        cat "$run/logs/error_log" >&2
        exit 1
    fi
    sleep 0.1
done
ppid_httpd=$(cat "$pidfile")

# --- credentials -------------------------------------------------------------
# mod_hsc: log in through the handler, keep the cookie from Set-Cookie.
hsc_login() {
    curl -s -o /dev/null -D - \
        --data-urlencode "username=$user" --data-urlencode "password=$password" \
        "$base/hsc-login" | tr -d '\r' \
        | sed -n 's/^[Ss]et-[Cc]ookie: hsc=\([^;]*\).*/\1/p' | head -n 1
}
hsc_cookie=$(hsc_login)
if [ -z "$hsc_cookie" ]; then
    echo "httpd-bench: logging in at /hsc-login gave no hsc cookie" >&2
    tail -n 20 "$run/logs/error_log" >&2
    exit 1
fi
basic=$(printf '%s:%s' "$user" "$password" | base64 | tr -d '\n')

# --users N: N-1 more users, each logged in once; a wrk script sends their
# cookies in turn (the first user's included).
hsc_script=""
if [ "$nusers" -gt 1 ]; then
    {
        echo "local cookies = {"
        echo "  \"hsc=$hsc_cookie\","
        i=2
        while [ "$i" -le "$nusers" ]; do
            printf 'pw-%s\n' "$i" | "$admin" add "$run/db/users.db" "user$i" \
                --kdf sha256-chain:1000 --password-stdin --force >/dev/null
            c=$(curl -s -o /dev/null -D - --data-urlencode "username=user$i" \
                --data-urlencode "password=pw-$i" "$base/hsc-login" \
                | tr -d '\r' \
                | sed -n 's/^[Ss]et-[Cc]ookie: hsc=\([^;]*\).*/\1/p' | head -n 1)
            if [ -z "$c" ]; then
                echo "httpd-bench: user$i could not log in" >&2
                exit 1
            fi
            echo "  \"hsc=$c\","
            i=$((i + 1))
        done
        echo "}"
        echo "local i = 0"
        echo "request = function()"
        echo "  i = i % #cookies + 1"
        echo "  return wrk.format(nil, nil, { [\"Cookie\"] = cookies[i] })"
        echo "end"
    } >"$run/hsc-users.lua"
    hsc_script="$run/hsc-users.lua"
fi

cred_open=""
cred_hsc="Cookie: hsc=$hsc_cookie"
cred_tkt="Cookie: auth_tkt=$tkt_ticket"
cred_dbd="Authorization: Basic $basic"
# The same credentials, each broken in its last characters.
bad_hsc="Cookie: hsc=${hsc_cookie%????}AAAA"
bad_tkt="Cookie: auth_tkt=$(printf '%s' "$tkt_ticket" | cut -c 2-)"
bad_dbd="Authorization: Basic $(printf '%s:%s' "$user" "x$password" | base64 | tr -d '\n')"

status() { # URL [HEADER]
    if [ -n "${2:-}" ]; then
        curl -s -o /dev/null -w '%{http_code}' -H "$2" "$1"
    else
        curl -s -o /dev/null -w '%{http_code}' "$1"
    fi
}
checks_failed=0
expect() { # what, wanted (a|b), got
    case "|$2|" in
        *"|$3|"*) echo "ok - $1: $3" ;;
        *) echo "not ok - $1: got $3, wanted $2"; checks_failed=1 ;;
    esac
}
echo "# httpd-bench: $("$httpd" -v | sed -n 's/^Server version: //p'), port $port"
expect "/open/ without a credential" 200 "$(status "$base/open/1k.html")"
for loc in hsc tkt dbd; do
    eval "cred=\$cred_$loc; bad=\$bad_$loc"
    expect "/$loc/ with its credential" 200 "$(status "$base/$loc/1k.html" "$cred")"
    expect "/$loc/ without" "401|302|303|307" "$(status "$base/$loc/1k.html")"
    expect "/$loc/ with a tampered one" "401|302|303|307" "$(status "$base/$loc/1k.html" "$bad")"
done
if [ "$checks_failed" != 0 ]; then
    echo "httpd-bench: a location does not behave; not measuring" >&2
    tail -n 20 "$run/logs/error_log" >&2
    exit 1
fi

# --- measuring -----------------------------------------------------------------
hz=$(getconf CLK_TCK)

# utime + stime (clock ticks) of the httpd parent and all its children.
# A name in parentheses may hold spaces: fields are counted after the ')'.
httpd_ticks() {
    cat /proc/[0-9]*/stat 2>/dev/null | awk -v p="$ppid_httpd" '
        { pid = $1; rest = $0; sub(/^.*\) /, "", rest); split(rest, f, " ")
          if (pid == p || f[2] == p) t += f[12] + f[13] }
        END { print t + 0 }'
}

# wrk's latency ("123.45us", "1.20ms", "1.01s") in microseconds.
to_us() {
    awk -v v="$1" 'BEGIN {
        n = v + 0
        if (v ~ /us$/) print n; else if (v ~ /ms$/) print n * 1000;
        else if (v ~ /s$/) print n * 1000000; else print n }'
}

results=$run/results.txt
: >"$results"
locs="open hsc tkt dbd"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $rounds rounds x $duration s per location, wrk -t$threads" \
     "-c$conns, pinning: $([ "$pin" = 1 ] && echo 'httpd CPU 0, wrk CPU 1' || echo none)"
r=1
while [ $r -le "$rounds" ]; do
    # Rotate the order each round so slow drift does not favour one.
    order=$(echo $locs | awk -v r=$r '{ for (i = 0; i < NF; i++)
        printf "%s ", $(((i + r - 1) % NF) + 1) }')
    # wrk's own 2 s timeout would drop /dbd/'s slowest answers from the
    # latency figures (bcrypt queues up); 30 s is longer than any run.
    for loc in $order; do
        eval "cred=\$cred_$loc"
        t0=$(httpd_ticks)
        if [ "$loc" = hsc ] && [ -n "$hsc_script" ]; then
            $wrk -t"$threads" -c"$conns" -d"${duration}s" --timeout 30s --latency \
                -s "$hsc_script" "$base/$loc/1k.html" >"$run/wrk.out" 2>&1
        elif [ -n "$cred" ]; then
            $wrk -t"$threads" -c"$conns" -d"${duration}s" --timeout 30s --latency \
                -H "$cred" "$base/$loc/1k.html" >"$run/wrk.out" 2>&1
        else
            $wrk -t"$threads" -c"$conns" -d"${duration}s" --timeout 30s --latency \
                "$base/$loc/1k.html" >"$run/wrk.out" 2>&1
        fi
        t1=$(httpd_ticks)
        rps=$(awk '/^Requests\/sec:/ { print $2 }' "$run/wrk.out")
        reqs=$(awk '/ requests in / { print $1 }' "$run/wrk.out")
        p50=$(awk '/^ +50% / { print $2 }' "$run/wrk.out")
        p99=$(awk '/^ +99% / { print $2 }' "$run/wrk.out")
        bad=$(awk '/Non-2xx or 3xx responses:/ { print $NF }' "$run/wrk.out")
        errs=$(awk '/Socket errors:/ { gsub(/,/, ""); print $4 + $6 + $8 + $10 }' "$run/wrk.out")
        # A wrong status means the credential stopped working: fatal. Socket
        # errors are counted and shown.
        if [ -z "$rps" ] || [ -z "$reqs" ] || [ "${bad:-0}" != 0 ]; then
            echo "httpd-bench: round $r /$loc/ failed:" >&2
            cat "$run/wrk.out" >&2
            exit 1
        fi
        cpu_us=$(awk -v a="$t0" -v b="$t1" -v hz="$hz" -v n="$reqs" \
            'BEGIN { printf "%.1f", (b - a) / hz * 1e6 / n }')
        echo "$r $loc $rps $(to_us "$p50") $(to_us "$p99") $cpu_us $reqs ${errs:-0}" \
            >>"$results"
        printf '# round %d %-5s %8.0f req/s  p50 %8.0f us  p99 %8.0f us  cpu %6s us/req  errors %s\n' \
            "$r" "/$loc/" "$rps" "$(to_us "$p50")" "$(to_us "$p99")" "$cpu_us" "${errs:-0}"
    done
    r=$((r + 1))
done

# --- immediacy: the measured cookie stops working on the next request -------
# Every httpd thread has served this cookie many times (its validated record
# cache is warm); hsc-admin's commit must still be seen at once.
"$admin" disable "$run/db/users.db" "$user" >/dev/null
expect "/hsc/ right after hsc-admin disable" 401 \
    "$(status "$base/hsc/1k.html" "$cred_hsc")"
"$admin" enable "$run/db/users.db" "$user" >/dev/null
# Disabling also revoked the cookies issued so far: a new login is needed.
expect "/hsc/ right after hsc-admin enable, the old cookie (revoked by disable)" 401 \
    "$(status "$base/hsc/1k.html" "$cred_hsc")"
cred_hsc="Cookie: hsc=$(hsc_login)"
expect "/hsc/ right after hsc-admin enable, a new login" 200 \
    "$(status "$base/hsc/1k.html" "$cred_hsc")"
"$admin" revoke "$run/db/users.db" "$user" >/dev/null
expect "/hsc/ right after hsc-admin revoke" 401 \
    "$(status "$base/hsc/1k.html" "$cred_hsc")"
if [ "$checks_failed" != 0 ]; then
    echo "httpd-bench: a change to the user table was not seen at once" >&2
    exit 1
fi

# --- summary: medians over rounds; the ratio is taken within each round -----
echo
echo "| location | req/s (median) | vs /open/ | p50 ms | p99 ms | httpd CPU us/req | socket errors |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for loc in $locs; do
    awk -v loc="$loc" '
        function median(a, n,    i, j, t) {
            for (i = 2; i <= n; i++)
                for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
                    t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
                }
            return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        { rps[$1, $2] = $3 }
        $2 == loc { n++; r[n] = $3; p50[n] = $4; p99[n] = $5; cpu[n] = $6;
                    round[n] = $1; errs += $8 }
        END {
            for (i = 1; i <= n; i++) ratio[i] = r[i] / rps[round[i], "open"]
            printf "| /%s/ | %.0f | %.2f | %.2f | %.2f | %.1f | %d |\n", loc,
                median(r, n), median(ratio, n), median(p50, n) / 1000,
                median(p99, n) / 1000, median(cpu, n), errs
        }' "$results"
done
echo
echo "# $(nproc) CPUs: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "# /dbd/ hash: bcrypt cost $cost; /hsc/: $nusers user(s) in turn, SQLite, HSCUserDBCache $record_cache"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if grep -qiE 'AddressSanitizer|runtime error:|segfault|exit signal' "$run/logs/error_log"; then
    echo "httpd-bench: the error log shows a crash:" >&2
    grep -iE 'AddressSanitizer|runtime error:|segfault|exit signal' "$run/logs/error_log" >&2
    exit 1
fi
