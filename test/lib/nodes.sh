# test/lib/nodes.sh: what the tests with several httpd nodes share, sourced
# by sh scripts (test/nodes/two-nodes.sh, test/nodes/restart-under-load.sh,
# test/nodes/throttle-exact.sh). One place for: the paths of the build, TAP output,
# free ports, a memcached of the test's own, and httpd nodes in a temporary
# directory, started with the sanitizer runtime when the module needs it.
#
#   nodes_init TAG       paths (HTTPD, ADMIN, MODULE), W: a new
#                        temporary directory; bails when something is missing
#   ok / notok / check DESC CMD... / finish / bail DESC
#                        TAP; finish prints the plan, and on a failure the
#                        last lines of every node's error log
#   free_port / now_ms
#   mc_start [THREADS] / mc_stop
#                        memcached on 127.0.0.1:MC_PORT (MC_PID); mc_start
#                        waits until it accepts a connection
#   node_conf NODE SERVERNAME THREADS PORT... <TEXT
#                        writes W/NODE/httpd.conf: test/lib/httpd.sh's head
#                        (with mod_dir, mod_socache_memcache), what every node has (two
#                        children of THREADS threads, LogLevel warn hsc:info,
#                        DocumentRoot W/NODE/htdocs, the key file W/keys),
#                        then TEXT, the test's own directives
#   node_configtest NODE / node_start NODE / nodes_wait URL...
#   login URL USER PASSWORD / get URL COOKIE / within MS URL COOKIE STATUS
#                        a node's /login (status printed, the cookie in
#                        W/cookie) and /private/ (status printed); within
#                        retries get until STATUS, for at most MS (elapsed)
#   nodes_check_logs     two TAP checks: no child crashed, no sanitizer
#                        report, in every node's error log
#   nodes_stop           stops every node under W, waiting for each
#   nodes_cleanup [CMD...]
#                        nodes_stop, mc_stop, CMD (e.g. pg_tmp_stop: its
#                        files are under W), and W removed
#
# The caller sets top_srcdir/top_builddir (make check does) and its own
# EXIT trap, which calls nodes_cleanup.

. "${top_srcdir:-.}/test/lib/httpd.sh"

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { d=$1; shift; if "$@"; then ok "$d"; else notok "$d"; fi; }
finish() {
    if [ "$failed" != 0 ] && [ -n "${W:-}" ]; then
        for log in "$W"/*/error.log; do
            [ -f "$log" ] || continue
            echo "# --- $(basename "$(dirname "$log")")'s error log (last lines)"
            tail -n 15 "$log" | sed 's/^/#   /'
        done
    fi
    echo "1..$n"
    [ "$n" -gt 0 ] && [ "$failed" = 0 ]
    exit $?
}
bail() { notok "$1"; finish; }

free_port() { httpd_free_port; }
now_ms() { date +%s%3N; }

nodes_init() {
    W=""
    srcdir=$(cd "${top_srcdir:-.}" && pwd) || bail "top_srcdir exists"
    builddir=$(cd "${top_builddir:-.}" && pwd) || bail "top_builddir exists"
    HTTPD=${HTTPD:-/usr/sbin/apache2}
    APXS=${APXS:-apxs}
    ADMIN=$builddir/hsc-admin
    MODULE=$builddir/.libs/mod_hsc.so
    for f in "$MODULE" "$ADMIN" "$HTTPD"; do
        [ -e "$f" ] || bail "missing $f"
    done
    for tool in memcached curl python3; do
        command -v "$tool" >/dev/null \
            || bail "$tool is installed (scripts/install-deps-debian.sh --test)"
    done
    W=$(mktemp -d "${TMPDIR:-/tmp}/hsc-$1.XXXXXX") || bail "a temporary directory"
    chmod 755 "$W"
    # A sanitizer build of the module needs its runtime loaded first (as
    # in t/apache-test.httpd); its reports land in the error logs, which
    # each test checks. httpd frees its pools, not everything at exit: no
    # leak check in it.
    preload=""
    if ldd "$MODULE" 2>/dev/null | grep -q libasan; then
        preload=$(${CC:-gcc} -print-file-name=libasan.so)
    fi
    asan_opts=${preload:+detect_leaks=0:abort_on_error=0}
    MC_PID=""
    MC_PORT=$(free_port)
}

mc_start() {
    memcached -u nobody -l 127.0.0.1 -p "$MC_PORT" -m 16 -t "${1:-1}" &
    MC_PID=$!
    i=0
    while [ $i -lt 50 ]; do
        python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1",int(sys.argv[1])),1)' \
            "$MC_PORT" 2>/dev/null && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}
mc_stop() {
    if [ -n "$MC_PID" ]; then
        kill -CONT "$MC_PID" 2>/dev/null # a test may have stopped it (SIGSTOP)
        kill "$MC_PID" 2>/dev/null
        wait "$MC_PID" 2>/dev/null
    fi
    MC_PID=""
}

node_conf() { # NODE SERVERNAME THREADS PORT... <TEXT
    node=$1 name=$2 threads=$3
    shift 3
    mkdir -p "$W/$node/htdocs"
    {
        httpd_conf_head "$W/$node" "$W/$node/httpd.pid" "$W/$node/error.log" \
            "$MODULE" dir socache_memcache
        echo "ServerName $name"
        for port in "$@"; do echo "Listen 127.0.0.1:$port"; done
        node_conf_common
        cat
    } >"$W/$node/httpd.conf"
}
node_conf_common() {
    cat <<EOF
LogLevel warn hsc:info
StartServers 2
ServerLimit 2
ThreadsPerChild $threads
MaxRequestWorkers $((2 * threads))
DocumentRoot "$W/$node/htdocs"
DirectoryIndex index.html
Mutex file:$W/$node default
HSCKeyFile "$W/keys"
EOF
}

node_configtest() { # what httpd -t said goes to the TAP stream as comments
    LD_PRELOAD=$preload ASAN_OPTIONS=$asan_opts \
        "$HTTPD" -t -f "$W/$1/httpd.conf" >"$W/$1/configtest.out" 2>&1
    st=$?
    sed 's/^/# /' "$W/$1/configtest.out"
    return $st
}
node_start() {
    LD_PRELOAD=$preload ASAN_OPTIONS=$asan_opts \
        "$HTTPD" -f "$W/$1/httpd.conf" -k start
}
# 0 once every URL answers (any status), within about 6 s.
nodes_wait() {
    i=0
    while [ $i -lt 30 ]; do
        all=1
        for url in "$@"; do
            curl -s -o /dev/null "$url" || { all=0; break; }
        done
        [ "$all" = 1 ] && return 0
        sleep 0.2
        i=$((i + 1))
    done
    return 1
}

# login URL USER PASSWORD: prints the status; the cookie in $W/cookie
login() {
    curl -s -o /dev/null -D "$W/headers" -w '%{http_code}' \
        -H "Origin: $1" --data-urlencode "username=$2" \
        --data-urlencode "password=$3" "$1/login"
    sed -n 's/^[Ss]et-[Cc]ookie: \(hsc=[^;]*\).*/\1/p' "$W/headers" > "$W/cookie"
}
# get URL COOKIE: prints the status of /private/
get() { curl -s -o /dev/null -w '%{http_code}' -H "Cookie: $2" "$1/private/"; }
# within MS URL COOKIE STATUS: 0 when /private/ answers STATUS within MS
within() {
    t0=$(now_ms)
    while :; do
        [ "$(get "$2" "$3")" = "$4" ] && { elapsed=$(( $(now_ms) - t0 )); return 0; }
        [ $(( $(now_ms) - t0 )) -gt "$1" ] && return 1
        sleep 0.05
    done
}

nodes_check_logs() {
    crashes=$(cat "$W"/*/error.log | grep -ciE 'exit signal|segmentation|AH00052')
    check "no child crashed (error logs)" [ "$crashes" = 0 ]
    reports=$(cat "$W"/*/error.log | grep -cE 'ERROR: AddressSanitizer|runtime error:|LeakSanitizer')
    check "no sanitizer report in the error logs" [ "$reports" = 0 ]
}

nodes_stop() {
    for pidfile in "$W"/*/httpd.pid; do
        [ -f "$pidfile" ] || continue
        kill "$(cat "$pidfile")" 2>/dev/null
        i=0
        while [ -f "$pidfile" ] && [ $i -lt 50 ]; do
            sleep 0.1
            i=$((i + 1))
        done
    done
}
nodes_cleanup() {
    [ -n "${W:-}" ] || return 0
    nodes_stop
    mc_stop
    [ $# -gt 0 ] && "$@"
    rm -rf "$W"
}
