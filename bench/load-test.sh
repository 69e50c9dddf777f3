#!/bin/sh
# load-test.sh: a bounded load test of mod_hsc in one real httpd (event MPM,
# 127.0.0.1 only, its own temporary ServerRoot and a free port).
#
# For HSC_LOAD_SECONDS (default 60) wrk drives HSC_LOAD_CONNECTIONS (default
# 200) keep-alive connections against a protected 1 KiB file, each request
# with a cookie chosen at random by bench/load-mix.lua:
#   valid    cookies from real logins (expect 200)
#   expired  cookies from real logins at a location with HSCIdleTimeout 2s,
#            checked to work first and to be refused once expired (expect 401)
#   forged   a bit flipped in the MAC, another user's name or auth field,
#            a later expiry on an expired cookie, an unknown key id, a
#            truncated value, base64url garbage, no cookie (expect 401)
# in the proportion 50:25:25 (HSC_LOAD_MIX="50 25 25"). In parallel a curl
# loop logs in 2-3 times a second (right and a few wrong passwords, fast
# and default KDF) and uses each fresh cookie once, and the RSS of every
# httpd child is read from /proc/PID/status every second.
#
# It prints the figures and exits 1 if any of these fails:
#   - an answer other than 200 for a valid cookie or other than 401 for an
#     expired or forged one (so an expired or forged cookie never gets 200),
#     or an answer the script cannot attribute to a class;
#   - any 5xx answer (load or logins), or a wrong login answer;
#   - a crash in the error log ("exit signal", "Segmentation",
#     AddressSanitizer, "runtime error", LeakSanitizer) or an hsc line at
#     level error or worse;
#   - a child whose RSS grew by more than HSC_LOAD_RSS_LIMIT_KB (default
#     8192 KiB = 8 MiB) between 10 s (the least of its samples in 10-13 s;
#     from half the run if it is shorter than 20 s) and the end (a sample
#     after the load stopped); only children alive in both samples
#     are compared (children that came or went are counted and shown).
#     With a sanitizer build the growth is shown but does not fail the run
#     (ASan's quarantine and caches grow RSS by tens of MiB a minute here);
#     its reports in the error log do.
# Exit 2: a usage or setup problem (missing tool, httpd would not start, a
# cookie that does not behave before the load starts). Socket errors and
# timeouts that wrk reports are shown but do not fail the run.
#
# Usage: bench/load-test.sh [--keep]      (from a built tree: it builds
#        nothing, run `make` first; --keep keeps the ServerRoot and logs)
# Environment: HSC_LOAD_SECONDS, HSC_LOAD_CONNECTIONS, HSC_LOAD_THREADS (wrk
# threads, default 2), HSC_LOAD_MIX, HSC_LOAD_RSS_LIMIT_KB,
# HSC_LOAD_LOGLEVEL (default "warn": every forged cookie but "none" logs
# one HSC012 warning, 20-25 MB in 60 s), HSC_BUILDDIR (where
# .libs/mod_hsc.so and hsc-admin are, e.g. an --enable-sanitizers build:
# libasan is then preloaded into httpd), HSC_LOAD_ASAN_OPTIONS, APXS, HTTPD.
# Needs: apache2 (apache2-bin, with mod_headers), wrk, curl, perl
# (scripts/install-deps-debian.sh --bench).
set -eu

keep=0
while [ $# -gt 0 ]; do
    case $1 in
        --keep) keep=1 ;;
        -h|--help) sed -n '2,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//;$d'; exit 0 ;;
        *) echo "load-test: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
seconds=${HSC_LOAD_SECONDS:-60}
conns=${HSC_LOAD_CONNECTIONS:-200}
threads=${HSC_LOAD_THREADS:-2}
rss_limit=${HSC_LOAD_RSS_LIMIT_KB:-8192}
mix=${HSC_LOAD_MIX:-50 25 25}
loglevel=${HSC_LOAD_LOGLEVEL:-warn}
for n in "$seconds" "$conns" "$threads" "$rss_limit"; do
    case $n in
        ''|*[!0-9]*|0) echo "load-test: HSC_LOAD_* numbers are positive integers" >&2
                       exit 2 ;;
    esac
done
set -- $mix
if [ $# != 3 ]; then
    echo "load-test: HSC_LOAD_MIX is three weights: valid expired forged" >&2
    exit 2
fi
for n in "$@"; do
    case $n in
        ''|*[!0-9]*) echo "load-test: HSC_LOAD_MIX weights are integers" >&2
                     exit 2 ;;
    esac
done
set --
# The RSS baseline: at 10 s, or at half a run shorter than 20 s.
if [ "$seconds" -ge 20 ]; then base_t=10; else base_t=$(((seconds + 1) / 2)); fi

top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${HSC_BUILDDIR:-$top}
apxs=${APXS:-apxs}
modules=$($apxs -q LIBEXECDIR)
. "$top/test/lib/httpd.sh"
httpd=${HTTPD:-$($apxs -q SBINDIR)/$($apxs -q TARGET)}
admin=$builddir/hsc-admin
modso=$builddir/.libs/mod_hsc.so
lua=$top/bench/load-mix.lua

missing=""
for tool in wrk curl perl; do
    command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
[ -x "$httpd" ] || missing="$missing $httpd"
[ -x "$admin" ] || missing="$missing $admin"
[ -f "$modso" ] || missing="$missing $modso"
[ -f "$lua" ] || missing="$missing $lua"
for m in mod_mpm_event mod_authn_core mod_authz_core mod_authz_user \
         mod_mime mod_headers; do
    [ -f "$modules/$m.so" ] || missing="$missing $modules/$m.so"
done
if [ -n "$missing" ]; then
    echo "load-test: missing:$missing" >&2
    echo "  (scripts/install-deps-debian.sh --bench; make)" >&2
    exit 2
fi

# A sanitizer build of the module needs its runtime loaded first in httpd;
# its reports go to the error log, which is checked at the end. No leak
# check (httpd does not free everything at exit); a small quarantine, since
# ASan's default (256 MiB of freed memory held per process) would fill
# during the run and read as RSS growth.
preload=""
asan_options=${HSC_LOAD_ASAN_OPTIONS:-detect_leaks=0:abort_on_error=0:quarantine_size_mb=16}
if ldd "$modso" 2>/dev/null | grep -q libasan; then
    preload=$(${CC:-gcc} -print-file-name=libasan.so)
fi

run=$(mktemp -d "${TMPDIR:-/tmp}/hsc-load-test.XXXXXX")
chmod 755 "$run"
pidfile=$run/logs/httpd.pid
conf=$run/httpd.conf
errlog=$run/logs/error_log
bg_pids=""

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
    touch "$run/stop" 2>/dev/null || true
    for p in $bg_pids; do
        kill "$p" 2>/dev/null || true
    done
    for p in $bg_pids; do
        wait "$p" 2>/dev/null || true
    done
    stop_httpd
    if [ "$keep" = 1 ]; then
        echo "load-test: kept $run" >&2
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
url=$base/hsc/1k.html

# --- content, keys, users ------------------------------------------------------
mkdir -p "$run/logs" "$run/db" "$run/htdocs/hsc" "$run/secret"
chmod 700 "$run/secret"
# A copy: a `make` in the tree during the run must not rewrite the module
# that httpd has mapped.
cp "$modso" "$run/mod_hsc.so"
perl -e 'my ($h, $t) = ("<!doctype html><title>load</title><pre>\n",
                        "</pre>\n");
         my $s = $h . ("x" x 63 . "\n") x 14;
         print $s, "x" x (1023 - length($s) - length($t)), "\n", $t' \
    >"$run/htdocs/hsc/1k.html"

"$admin" keygen "$run/hsc.keys" >/dev/null
"$admin" init "$run/db/users.db" >/dev/null
# load1..load4 with a fast KDF (logins are a trickle, not a CPU sink), slow
# with the default (scrypt, 64 MiB, about 0.4 s a login here).
users="load1 load2 load3 load4 slow"
for u in $users; do
    od -An -N12 -tx1 /dev/urandom | tr -d ' \n' >"$run/secret/$u.pw"
    if [ "$u" = slow ]; then kdf=""; else kdf="--kdf sha256-chain:1000"; fi
    "$admin" add "$run/db/users.db" "$u" $kdf --password-stdin --force \
        <"$run/secret/$u.pw" >/dev/null
done
printf 'not-the-password' >"$run/secret/wrong.pw"

# socache_shmcb when httpd has it: a module with login throttling keeps
# its counts there (and only warns without it).
shmcb=""
if [ -f "$modules/mod_socache_shmcb.so" ]; then
    shmcb="LoadModule socache_shmcb_module $modules/mod_socache_shmcb.so"
fi

if [ "$(id -u)" = 0 ]; then
    # The children run as nobody (test/lib/httpd.sh); SQLite writes its
    # -wal/-shm files beside the database, so the folder is theirs.
    chown -R nobody:nogroup "$run/db"
fi

{
echo "# Generated by bench/load-test.sh."
httpd_conf_head "$run" "$pidfile" "$errlog" "$run/mod_hsc.so" mime headers
cat <<CONF
ServerName 127.0.0.1
Listen 127.0.0.1:$port
LogLevel $loglevel
$shmcb
TypesConfig /etc/mime.types
DocumentRoot "$run/htdocs"

# Two children with a thread for every connection (as bench/httpd-bench.sh).
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

# The request's class comes back in every answer, errors included, so that
# load-mix.lua can count answers per class.
Header always set X-Load-Tag "expr=%{req:X-Load-Tag}"

HSCKeyFile "$run/hsc.keys"
HSCUserDB "$run/db/users.db"
<Location "/hsc/">
    AuthType HSC
    HSCCookieSecure Off
    HSCUnauthenticated 401
    # Long enough that no valid cookie expires or is refreshed in the run.
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
# Cookies from here expire 2 s after the login: the expired class.
<Location "/hsc-short-login">
    SetHandler hsc-login
    HSCCookieSecure Off
    HSCIdleTimeout 2s
    HSCLoginSuccessURL /hsc/1k.html
</Location>
CONF
} >"$conf"

asan_env=""
if [ -n "$preload" ]; then
    asan_env="LD_PRELOAD=$preload ASAN_OPTIONS=$asan_options"
fi
if ! env $asan_env "$httpd" -t -f "$conf" >"$run/logs/configtest" 2>&1; then
    echo "load-test: configuration refused:" >&2
    cat "$run/logs/configtest" >&2
    exit 2
fi
env $asan_env "$httpd" -f "$conf" -k start
i=0
until [ -s "$pidfile" ] && curl -s -o /dev/null "$url"; do
    i=$((i + 1))
    if [ $i -gt 100 ]; then
        echo "load-test: httpd did not start:" >&2
        cat "$errlog" >&2
        exit 2
    fi
    sleep 0.1
done
ppid_httpd=$(cat "$pidfile")
# The children mapped their own copy of the module (see below): a rebuild in
# the tree during the run cannot change the code under test.

# --- cookies -------------------------------------------------------------------
# login LOCATION USER PASSWORDFILE JAR: prints the status; the cookie lands
# in JAR. The password goes from its file into the body, never into argv.
login() {
    curl -s -o /dev/null -w '%{http_code}' -c "$4" \
        --data-urlencode "username=$2" --data-urlencode "password@$3" \
        "$base$1"
}
# The value of the hsc cookie in a curl cookie jar.
jar_cookie() {
    awk '$6 == "hsc" { v = $7 } END { print v }' "$1"
}
cookies=$run/secret/cookies
: >"$cookies"
for u in $users; do
    st=$(login /hsc-login "$u" "$run/secret/$u.pw" "$run/secret/jar.$u")
    c=$(jar_cookie "$run/secret/jar.$u")
    if [ "$st" != 303 ] || [ -z "$c" ]; then
        echo "load-test: logging in as $u gave $st and no cookie" >&2
        tail -n 20 "$errlog" >&2
        exit 2
    fi
    echo "valid login-$u $c" >>"$cookies"
done
# Expired: real logins with a 2 s idle timeout, then wait them out.
for u in load1 load2; do
    st=$(login /hsc-short-login "$u" "$run/secret/$u.pw" "$run/secret/short.$u")
    c=$(jar_cookie "$run/secret/short.$u")
    if [ "$st" != 303 ] || [ -z "$c" ]; then
        echo "load-test: the short login as $u gave $st and no cookie" >&2
        exit 2
    fi
    # Still fresh: it must work before it expires.
    st=$(curl -s -o /dev/null -w '%{http_code}' -H "Cookie: hsc=$c" "$url")
    if [ "$st" != 200 ]; then
        echo "load-test: a fresh short-lived cookie gave $st, not 200" >&2
        exit 2
    fi
    echo "expired idle-$u $c" >>"$cookies"
done
sleep 3

# Forged: derived from the cookies above by a perl filter. Fields:
# 1.<kid>.<user>.<iat>.<exp>.<auth>.<mac>
perl -e '
    use strict;
    my (%valid, @expired);
    while (<STDIN>) {
        chomp;
        my ($class, $kind, $v) = split / /;
        $valid{$kind} = $v if $class eq "valid";
        push @expired, $v if $class eq "expired";
    }
    my @a = split /\./, $valid{"login-load1"};
    my @b = split /\./, $valid{"login-load2"};
    my @e = split /\./, $expired[0];
    my $alpha = join "", "A".."Z", "a".."z", "0".."9", "-", "_";
    sub b64u { my $s = shift; my $r = "";
        # base64url without padding, canonical
        require MIME::Base64; $r = MIME::Base64::encode_base64($s, "");
        $r =~ tr{+/}{-_}; $r =~ s/=+$//; return $r }
    my %f;
    # One bit flipped in a middle character of the MAC (still canonical).
    my @m = @a; my $i = 20; my $ch = substr($m[6], $i, 1);
    substr($m[6], $i, 1) = substr($alpha, index($alpha, $ch) ^ 1, 1);
    $f{"mac-bitflip"} = join ".", @m;
    # Another existing user in the name field, the rest unchanged.
    @m = @a; $m[2] = b64u("load3"); $f{"wrong-user"} = join ".", @m;
    # Another user s auth field.
    @m = @a; $m[5] = $b[5]; $f{"auth-swap"} = join ".", @m;
    # An expired cookie with its expiry moved an hour on.
    @m = @e; $m[4] += 3600; $f{"exp-extended"} = join ".", @m;
    # A key id that is not in the key file.
    @m = @a; $m[1] = "k19700101-zzzzzz"; $f{"unknown-kid"} = join ".", @m;
    # Truncated in the MAC.
    $f{"truncated"} = substr($valid{"login-load1"}, 0, -10);
    # Garbage: random base64url, about a cookie s length.
    $f{"garbage"} = join "", map { substr($alpha, int(rand 64), 1) } 1 .. 180;
    # No cookie at all.
    $f{"none"} = "-";
    print "forged $_ $f{$_}\n" for sort keys %f;
'  <"$cookies" >"$run/secret/forged"
cat "$run/secret/forged" >>"$cookies"

# Before loading: every cookie once, with its expected answer and the tag.
precheck_failed=0
while read -r class kind value; do
    if [ "$value" = "-" ]; then
        set -- -H "X-Load-Tag: $class/$kind"
    else
        set -- -H "X-Load-Tag: $class/$kind" -H "Cookie: hsc=$value"
    fi
    got=$(curl -s -o /dev/null -D - -w '%{http_code}' "$@" "$url" | tr -d '\r' \
          | awk -v t="$class/$kind" 'tolower($1) == "x-load-tag:" && $2 == t { tag = 1 }
                                     /^[0-9][0-9][0-9]$/ { st = $1 }
                                     END { print st (tag ? "" : " untagged") }')
    if [ "$class" = valid ]; then want=200; else want=401; fi
    if [ "$got" != "$want" ]; then
        echo "load-test: before the load, $class/$kind gave $got, wanted $want" >&2
        precheck_failed=1
    fi
done <"$cookies"
set --
if [ "$precheck_failed" != 0 ]; then
    tail -n 20 "$errlog" >&2
    exit 2
fi
ncookies=$(wc -l <"$cookies")

# --- the load ------------------------------------------------------------------
# RSS of every child of the httpd parent: "T PID KB" lines, T in seconds
# since the start. A name in parentheses may hold spaces: fields are counted
# after the ")".
start_up=$(cut -d' ' -f1 /proc/uptime)
rss_sample() { # label
    cat /proc/[0-9]*/stat 2>/dev/null | awk -v p="$ppid_httpd" '
        { pid = $1; rest = $0; sub(/^.*\) /, "", rest); split(rest, f, " ")
          if (f[2] == p) print pid }' \
    | while read -r pid; do
        kb=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" 2>/dev/null) || true
        if [ -n "$kb" ]; then echo "$1 $pid $kb"; fi
    done
}
elapsed() {
    awk -v s="$start_up" '{ printf "%.1f\n", $1 - s }' /proc/uptime
}
monitor() {
    while [ ! -f "$run/stop" ]; do
        rss_sample "$(elapsed)"
        sleep 1
    done
}
# Logins: 2-3 a second until told to stop. Every 10th with the default
# KDF, every 20th (offset 7) with a wrong password (expect 401, or 429 from
# a module that throttles failed logins), the rest with the fast KDF; each
# fresh cookie is used once (expect 200). At most 10 wrong passwords in a
# run: a throttle's per-address limit (20 per 5 minutes by default in the
# throttling work) would refuse the right passwords too.
login_loop() {
    n=0
    wrong=0
    while [ ! -f "$run/stop" ]; do
        n=$((n + 1))
        if [ $((n % 10)) = 0 ]; then u=slow; else u=load$((n % 4 + 1)); fi
        if [ $((n % 20)) = 7 ] && [ $wrong -lt 10 ]; then
            wrong=$((wrong + 1))
            st=$(login /hsc-login "$u" "$run/secret/wrong.pw" "$run/secret/loop.jar") || true
            echo "wrong-password $st"
        else
            st=$(login /hsc-login "$u" "$run/secret/$u.pw" "$run/secret/loop.jar") || true
            echo "login-$([ $u = slow ] && echo scrypt || echo fast) $st"
            if [ "$st" = 303 ]; then
                st=$(curl -s -o /dev/null -w '%{http_code}' \
                     -b "$run/secret/loop.jar" "$url") || true
                echo "fresh-cookie $st"
            fi
        fi
        rm -f "$run/secret/loop.jar"
        sleep 0.2
    done
}

echo "# load-test: $("$httpd" -v | sed -n 's/^Server version: //p'), event MPM, port $port"
echo "# module: $modso${preload:+ (sanitizers; libasan preloaded)}"
echo "# $seconds s, wrk -t$threads -c$conns," \
     "mix valid:expired:forged = $(echo $mix | tr ' ' ':'), $ncookies cookies"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
monitor >"$run/rss.txt" &
bg_pids="$bg_pids $!"
login_loop >"$run/logins.txt" &
bg_pids="$bg_pids $!"
rc=0
# --timeout: wrk's 2 s default would count slow answers on a busy machine
# as errors.
# In the background, so that a signal to this script is handled at once
# (the shell runs a trap only after a foreground child ends); cleanup()
# stops it.
wrk -t"$threads" -c"$conns" -d"${seconds}s" --timeout 30s --latency \
    -s "$lua" "$url" -- "$cookies" $mix >"$run/wrk.out" 2>&1 &
wrk_pid=$!
bg_pids="$bg_pids $wrk_pid"
wait "$wrk_pid" || rc=$?
touch "$run/stop"
for p in $bg_pids; do
    wait "$p" 2>/dev/null || true
done
bg_pids=""
end_t=$(elapsed)
rss_sample "$end_t" >"$run/rss-end.txt"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$rc" != 0 ] || ! grep -q '^load-mix: ' "$run/wrk.out"; then
    echo "load-test: wrk failed (exit $rc):" >&2
    cat "$run/wrk.out" >&2
    exit 2
fi

# --- figures -------------------------------------------------------------------
failed=""
fail() {
    failed="$failed
  - $1"
}

reqs=$(awk '/ requests in / { print $1 }' "$run/wrk.out")
rps=$(awk '/^Requests\/sec:/ { print $2 }' "$run/wrk.out")
p50=$(awk '/^ +50% / { print $2 }' "$run/wrk.out")
p99=$(awk '/^ +99% / { print $2 }' "$run/wrk.out")
sockerr=$(awk '/Socket errors:/ { sub(/^ *Socket errors: */, ""); print }' "$run/wrk.out")
echo
echo "requests: ${reqs:-?} in ${seconds} s, ${rps:-?} requests/s," \
     "latency p50 ${p50:-?} p99 ${p99:-?}"
echo "socket errors: ${sockerr:-none}"

# Answers per class and kind, and what is wrong: valid must be 200,
# expired and forged 401, and no answer may lack its tag.
grep '^load-mix: ' "$run/wrk.out" | awk '
    { class = $2; kind = $3; st = $4; n = $5
      key = class "/" kind
      if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
      by[key] = by[key] " " st "=" n
      tot[key] += n; ctot[class] += n; cst[class, st] += n
      if (!(class in cseen)) { cseen[class] = 1 }
      want = (class == "valid") ? 200 : 401
      if (class != "valid" && class != "expired" && class != "forged") want = -1
      if (st != want) { wrong[key] += n; cwrong[class] += n }
      if (st >= 200 && st < 300 && class != "valid") let[class] += n
      if (st >= 500 && st < 600) fivexx += n
      all += n }
    END {
      printf "answers counted: %d\n", all
      printf "%-8s %10s %10s %10s %10s %8s %8s\n", "class", "answers",
             "200", "401", "other", "wrong", "2xx-let"
      split("valid expired forged untagged", cl, " ")
      for (i = 1; i <= 4; i++) {
        c = cl[i]
        if (!(c in cseen)) {
          if (c != "untagged") printf "%-8s %10d %10d %10d %10d %8d %8s\n", c, 0, 0, 0, 0, 0, "-"
          continue
        }
        other = ctot[c] - cst[c, 200] - cst[c, 401]
        printf "%-8s %10d %10d %10d %10d %8d %8s\n", c, ctot[c], cst[c, 200],
               cst[c, 401], other, cwrong[c] + 0,
               (c == "valid") ? "-" : let[c] + 0
      }
      printf "per kind:\n"
      for (i = 1; i <= nk; i++)
        printf "  %-24s %s%s\n", order[i], substr(by[order[i]], 2),
               wrong[order[i]] ? "   WRONG " wrong[order[i]] : ""
      printf "5xx: %d\n", fivexx
      printf "TOTALS %d %d %d %d %d %d\n", cwrong["valid"], cwrong["expired"],
             cwrong["forged"], ctot["untagged"], fivexx, all
    }' >"$run/answers.txt"
grep -v '^TOTALS ' "$run/answers.txt"
set -- $(sed -n 's/^TOTALS //p' "$run/answers.txt")
w_valid=$1 w_expired=$2 w_forged=$3 untagged=$4 fivexx=$5 counted=$6
set --
[ "$w_valid" = 0 ] || fail "$w_valid wrong answers to valid cookies"
[ "$w_expired" = 0 ] || fail "$w_expired wrong answers to expired cookies"
[ "$w_forged" = 0 ] || fail "$w_forged wrong answers to forged cookies"
[ "$untagged" = 0 ] || fail "$untagged answers without their class tag"
[ "$fivexx" = 0 ] || fail "$fivexx answers 5xx under load"
[ "$counted" -gt 0 ] || fail "no answer counted"
if [ -n "$reqs" ] && [ "$reqs" != "$counted" ]; then
    echo "note: wrk counted $reqs requests, load-mix.lua $counted answers"
fi

# Logins.
echo "logins (expected: login 303, wrong-password 401 or 429, fresh-cookie 200):"
awk '{ n[$1 " " $2]++; k[$1] = 1 }
     END { for (key in n) print key, n[key] }' "$run/logins.txt" \
    | sort | awk '{ printf "  %-16s %s x %d\n", $1, $2, $3 }'
set -- $(awk '
    { want = ($1 == "wrong-password") ? 401 : ($1 == "fresh-cookie") ? 200 : 303
      if ($2 != want && !($1 == "wrong-password" && $2 == 429)) bad++
      if ($2 >= 500 && $2 < 600) five++
      if ($1 ~ /^login-/ && $2 == 303) ok++
      n++ }
    END { print bad + 0, five + 0, ok + 0, n + 0 }' "$run/logins.txt")
login_bad=$1 login_5xx=$2 login_ok=$3 login_n=$4
set --
echo "  $login_ok successful logins in $login_n login-loop requests;" \
     "wrong answers: $login_bad; 5xx: $login_5xx"
[ "$login_bad" = 0 ] || fail "$login_bad wrong answers in the login loop"
[ "$login_5xx" = 0 ] || fail "$login_5xx 5xx answers in the login loop"
[ "$login_ok" -gt 0 ] || fail "no successful login during the load"

# RSS: the baseline is each child's smallest sample in [base_t, base_t + 3)
# s (a default-KDF login briefly maps 64 MiB: one sample must not set it);
# the end is the sample taken after the load and the logins stopped.
awk -v b="$base_t" '$1 >= b && $1 < b + 3 { if (!($2 in m) || $3 < m[$2]) m[$2] = $3 }
    END { for (p in m) print p, m[p] }' "$run/rss.txt" >"$run/rss-base.txt"
bt=$(awk -v b="$base_t" '$1 >= b { print $1; exit }' "$run/rss.txt")
if [ ! -s "$run/rss-base.txt" ]; then
    fail "no RSS sample at ${base_t} s"
else
    echo "RSS per httpd child (KiB): at ${bt} s (least of 3 samples)," \
         "at the end (${end_t} s), growth; limit +$rss_limit KiB"
    set -- $(awk -v lim="$rss_limit" -v out="$run/rss-table.txt" '
        FNR == NR { base[$1] = $2; next }
        { end[$2] = $3 }
        END {
          for (p in base) {
            if (p in end) {
              g = end[p] - base[p]
              flag = (g > lim) ? "  OVER" : ""
              printf "  child %-8s %8d %8d %+8d%s\n", p, base[p], end[p], g,
                     flag > out
              if (g > lim) over++
              both++
            }
            else gone++
          }
          for (p in end) if (!(p in base)) new++
          printf "%d %d %d %d\n", both + 0, over + 0, gone + 0, new + 0
        }' "$run/rss-base.txt" "$run/rss-end.txt")
    both=$1 over=$2 gone=$3 new=$4
    set --
    if [ -f "$run/rss-table.txt" ]; then sort -k2n "$run/rss-table.txt"; fi
    peak=$(awk '{ if ($3 > m[$2]) m[$2] = $3 }
                END { for (p in m) s = s " " p ":" m[p]; print s }' "$run/rss.txt")
    echo "  peak per child during the run (pid:KiB):$peak"
    nsamples=$(awk '{ print $1 }' "$run/rss.txt" | sort -u | wc -l)
    echo "  children compared: $both; gone since ${bt} s: $gone;" \
         "new since: $new; samples: $nsamples"
    [ "$both" -gt 0 ] || fail "no httpd child alive in both RSS samples"
    if [ "$over" != 0 ] && [ -n "$preload" ]; then
        echo "  (not judged under sanitizers: ASan's allocator holds freed memory in"
        echo "  its quarantine and per-thread caches, so RSS there does not measure"
        echo "  leaks; judge RSS with a normal build)"
    elif [ "$over" != 0 ]; then
        fail "$over children grew by more than $rss_limit KiB"
    fi
fi

# The error log: crashes, sanitizer reports, and hsc errors.
crash_re='exit signal|Segmentation|AddressSanitizer|runtime error|LeakSanitizer'
crashes=$(grep -cE "$crash_re" "$errlog" || true)
hsc_errors=$(grep -cE '\[hsc:(error|crit|alert|emerg)\]' "$errlog" || true)
refusals=$(grep -c 'HSC012: cookie refused' "$errlog" || true)
echo "error log: $(wc -l <"$errlog") lines, $(wc -c <"$errlog") bytes; HSC012 refusals logged: $refusals;" \
     "crash lines: $crashes; hsc error lines: $hsc_errors"
if [ "$crashes" != 0 ]; then
    grep -E "$crash_re" "$errlog" | head -n 20
    fail "$crashes crash or sanitizer lines in the error log"
fi
if [ "$hsc_errors" != 0 ]; then
    grep -E '\[hsc:(error|crit|alert|emerg)\]' "$errlog" | head -n 20
    fail "$hsc_errors hsc error lines in the error log"
fi

echo
if [ -n "$failed" ]; then
    echo "load-test: FAIL:$failed"
    exit 1
fi
if [ -n "$preload" ]; then
    echo "load-test: PASS (no wrong answer, no 5xx, no crash or sanitizer report; RSS not judged)"
else
    echo "load-test: PASS (no wrong answer, no 5xx, no crash, RSS growth within $rss_limit KiB)"
fi
