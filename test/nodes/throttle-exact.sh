#!/bin/sh
# test/nodes/throttle-exact.sh: HSCThrottleCache memcache-exact: across two httpd
# nodes, in TAP (docs/throttling.md, docs/several-servers.md). Starts
# everything itself in a temporary directory: memcached on a free loopback
# port and two httpd (event MPM, two children each) on one SQLite user
# file, the same key file and the same ServerName. Checks: parallel bursts
# of wrong passwords over both nodes get exactly HSCThrottleUser password
# checks (401) and 429 for the rest, per username and per address; the
# next attempt is refused on both nodes, the right password too; a success
# clears the username's count; wrong second-factor codes between right
# passwords still reach the limit (codes have their own count); the count ends with HSCThrottleWindow;
# memcached stopped and back does what HSCThrottleUnavailable says
# (node A refuse, node B allow), logged once per child. Then the same
# bursts through the socache provider (memcache:, mutex per node) are
# measured and printed, not asserted: their overcount is a race.
set -u

. "${top_srcdir:-.}/test/lib/nodes.sh"

LIMIT=10       # HSCThrottleUser, and HSCThrottleAddress on the second site
WINDOW=6       # HSCThrottleWindow, seconds
BURST=40       # logins sent at once per burst, alternating nodes

nodes_init exact
trap 'nodes_cleanup' EXIT
trap 'exit 130' INT TERM

# --- memcached, fixtures ----------------------------------------------------
mc_start 2 || bail "memcached starts"
"$ADMIN" keygen "$W/keys" >/dev/null || bail "keygen"
chmod 644 "$W/keys"
mkdir -p "$W/db"
DB=$W/db/users.db
"$ADMIN" init "$DB" >/dev/null || bail "hsc-admin init"
add() { echo "$2" | "$ADMIN" add "$DB" "$1" --password-stdin --force --kdf sha256-chain:1000 >/dev/null; }
for u in u1 u2 u3 s1 p1 p2 p3 back f1; do
    add "$u" "right-$u" || bail "hsc-admin add $u"
done
# f1 has an authenticator app: its codes have a counter of their own.
F1_KEY=$("$ADMIN" totp enrol "$DB" f1 --keys "$W/keys" 2>/dev/null | sed -n 's/.*secret=\([A-Z2-7]*\)&.*/\1/p')
[ -n "$F1_KEY" ] || bail "hsc-admin totp enrol f1"
[ "$(id -u)" = 0 ] && chown -R nobody:nogroup "$W/db"

# --- two nodes --------------------------------------------------------------
PORT_A=$(free_port)
PORT_B=$(free_port)
SITE_A=$(free_port)
SITE_B=$(free_port)
write_conf() { # node port site-port unavailable throttle-cache
    # One ServerName on both nodes: the address counter is per
    # ServerName.
    node_conf "$1" hsc-exact 25 "$2" "$3" <<EOF
HSCUserDB "$DB"
HSCThrottleCache $5
HSCThrottleUnavailable $4
HSCThrottleAddress 1000
HSCThrottleUser $LIMIT
HSCThrottleWindow ${WINDOW}s
# No KDF cap: every attempt is either checked (401) or refused (429);
# a cheap KDF for failed logins, so that 40 at once stay light.
HSCMaxLoginKDF 0
HSCDummyKDF sha256-chain:1000
HSCCookieSecure Off
<Location /login>
    SetHandler hsc-login
</Location>
# The second site counts addresses only: one address, LIMIT attempts.
<VirtualHost 127.0.0.1:$3>
    ServerName hsc-exact-addr
    HSCThrottleAddress $LIMIT
    HSCThrottleUser 0
</VirtualHost>
EOF
    echo "node $1" >"$W/$1/htdocs/index.html"
}
A=http://127.0.0.1:$PORT_A
B=http://127.0.0.1:$PORT_B
start_nodes() { # throttle-cache
    write_conf a "$PORT_A" "$SITE_A" refuse "$1"
    write_conf b "$PORT_B" "$SITE_B" allow "$1"
    node_start a && node_start b && nodes_wait "$A/" "$B/"
}
EXACT="memcache-exact:127.0.0.1:$MC_PORT"
start_nodes "$EXACT" || bail "both nodes start with HSCThrottleCache $EXACT"
check "node A's configuration passes apache2 -t" node_configtest a

retry_after() { sed -n 's/^[Rr]etry-[Aa]fter: *\([0-9]*\).*/\1/p' "$W/headers"; }

# burst NODE1 NODE2 USER [distinct]: BURST logins at once (curl --parallel),
# alternating nodes, all wrong; with "distinct" each names another user.
# Sets n401, n429, nother.
burst() {
    : > "$W/burst.cfg"
    i=0
    while [ $i -lt "$BURST" ]; do
        node=$1
        [ $((i % 2)) = 1 ] && node=$2
        user=$3
        [ "${4:-}" = distinct ] && user="$3-$i"
        [ $i -gt 0 ] && echo next >> "$W/burst.cfg"
        cat >> "$W/burst.cfg" <<EOF
url = "$node/login"
header = "Origin: $node"
data-urlencode = "username=$user"
data-urlencode = "password=wrong-$i"
output = "/dev/null"
write-out = "%{http_code}\\n"
EOF
        i=$((i + 1))
    done
    curl -s -Z --parallel-max "$BURST" -K "$W/burst.cfg" > "$W/burst" 2>/dev/null
    n401=$(grep -c '^401$' "$W/burst")
    n429=$(grep -c '^429$' "$W/burst")
    nother=$((BURST - n401 - n429))
}

# --- exact: parallel bursts over two nodes ----------------------------------
t_u1=$(date +%s)
for u in u1 u2 u3; do
    burst "$A" "$B" "$u"
    check "exact: $BURST wrong passwords for $u at once over two nodes: $LIMIT password checks (401: $n401), the rest 429 ($n429, other $nother)" \
        [ "$n401" = "$LIMIT" -a "$n429" = $((BURST - LIMIT)) ]
done
st=$(login "$A" u1 wrong-again)
ra=$(retry_after)
check "exact: the next attempt for u1 is refused on node A ($st)" [ "$st" = 429 ]
check "with Retry-After within the window (${ra:-none})" \
    sh -c '[ -n "$0" ] && [ "$0" -ge 1 ] && [ "$0" -le "$1" ]' "$ra" "$WINDOW"
check "exact: and on node B, the right password too" [ "$(login "$B" u1 right-u1)" = 429 ]

SA=http://127.0.0.1:$SITE_A
SB=http://127.0.0.1:$SITE_B
burst "$SA" "$SB" addr distinct
check "exact, per address: $BURST wrong logins for $BURST names at once over two nodes: $LIMIT checks (401: $n401), the rest 429 ($n429, other $nother)" \
    [ "$n401" = "$LIMIT" -a "$n429" = $((BURST - LIMIT)) ]
check "exact, per address: the next one is refused on node B" \
    [ "$(login "$SB" someone-else wrong)" = 429 ]

# A success clears the username's count (sequential, alternating nodes).
codes=""
for i in 1 2 3 4; do
    node=$A
    [ $((i % 2)) = 0 ] && node=$B
    codes="$codes $(login "$node" s1 wrong-$i)"
done
codes="$codes $(login "$B" s1 right-s1)"
i=0
while [ $i -lt $((LIMIT + 1)) ]; do
    node=$A
    [ $((i % 2)) = 0 ] && node=$B
    codes="$codes $(login "$node" s1 wrong-again-$i)"
    i=$((i + 1))
done
check "exact: 4 failures, a success (303), then $LIMIT failures and the next is 429" \
    [ "$codes" = " 401 401 401 401 303 401 401 401 401 401 401 401 401 401 401 429" ]
echo "# statuses:$codes"

# Codes: wrong ones (a step-up from the password's cookie, at /login
# where HSCSecondFactor is off) between right passwords, alternating
# nodes: the password's successes never clear the codes' count, so after
# LIMIT wrong codes even a right one is refused.
code() { # node cookie code
    curl -s -o /dev/null -w '%{http_code}' -H "Origin: $1" -H "Cookie: $2" \
        --data-urlencode "code=$3" "$1/login"
}
codes=""
i=0
while [ $i -le "$LIMIT" ]; do
    node=$A
    [ $((i % 2)) = 0 ] && node=$B
    codes="$codes $(login "$node" f1 right-f1)"
    c=000000
    [ $i = "$LIMIT" ] && c=$(oathtool --totp -b "$F1_KEY")
    codes="$codes/$(code "$node" "$(cat "$W/cookie")" "$c")"
    i=$((i + 1))
done
want=""
i=0
while [ $i -lt "$LIMIT" ]; do want="$want 303/401"; i=$((i + 1)); done
check "exact: $LIMIT wrong codes between right passwords, then even the right code is 429" \
    [ "$codes" = "$want 303/429" ]
echo "# statuses:$codes"

# The window: the count of u1 is forgotten WINDOW seconds after it began.
now=$(date +%s)
left=$((t_u1 + WINDOW + 1 - now))
[ "$left" -gt 0 ] && sleep "$left"
check "exact: after the window, u1's count is forgotten: a wrong password is checked again (401) on node B" \
    [ "$(login "$B" u1 wrong-later)" = 401 ]
check "and the right one logs in on node A (303)" [ "$(login "$A" u1 right-u1)" = 303 ]

# --- memcached stopped, hung, back ------------------------------------------
# HSC054's error lines before the outage (none expected).
err_before_a=$(grep -c 'hsc:error.*HSC054' "$W/a/error.log")
err_before_b=$(grep -c 'hsc:error.*HSC054' "$W/b/error.log")
mc_stop
codes=""
for i in 1 2 3 4 5 6; do codes="$codes $(login "$A" back wrong-$i)"; done
check "memcached stopped: node A (HSCThrottleUnavailable refuse) answers 503 to every login:$codes" \
    [ "$codes" = " 503 503 503 503 503 503" ]
codes=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do codes="$codes $(login "$B" back wrong-$i)"; done
check "memcached stopped: node B (allow) checks every password, uncounted (12 x 401):$codes" \
    [ "$codes" = " 401 401 401 401 401 401 401 401 401 401 401 401" ]
check "memcached stopped: node B logs the right password in (303)" \
    [ "$(login "$B" back right-back)" = 303 ]
err_a=$(( $(grep -c 'hsc:error.*HSC054' "$W/a/error.log") - err_before_a ))
err_b=$(( $(grep -c 'hsc:error.*HSC054' "$W/b/error.log") - err_before_b ))
check "the outage is logged at error once per child, not per login (node A: $err_a, node B: $err_b; 2 children each)" \
    [ "$err_a" -ge 1 -a "$err_a" -le 2 -a "$err_b" -ge 1 -a "$err_b" -le 2 ]

mc_start 2 || bail "memcached starts again"
# A child tries a server that failed again 5 s later.
t0=$(date +%s)
st=""
while [ $(( $(date +%s) - t0 )) -lt 8 ]; do
    st=$(login "$A" back wrong-back)
    [ "$st" = 401 ] && break
    sleep 0.5
done
check "memcached back: node A checks passwords again within 8 s (401, got $st after $(( $(date +%s) - t0 )) s)" \
    [ "$st" = 401 ]
# Counted again once every child has found it back: a child tries a
# server it found dead again 5 s after it failed, on its next login.
left=$((t0 + 6 - $(date +%s)))
[ "$left" -gt 0 ] && sleep "$left"
burst "$A" "$B" after-back
check "memcached back: a burst for a new name gets $LIMIT checks again (401: $n401, 429: $n429)" \
    [ "$n401" = "$LIMIT" -a "$n429" = $((BURST - LIMIT)) ]

# A memcached that accepts connections and never answers (SIGSTOP: the
# kernel still accepts): every exchange ends within 1 s, so a burst of
# logins larger than a node's threads (MaxRequestWorkers 50) cannot hold
# them, and a static page answers meanwhile.
kill -STOP "$MC_PID"
HUNG=$((BURST + 20))
: > "$W/hung.cfg"
i=0
while [ $i -lt "$HUNG" ]; do
    [ $i -gt 0 ] && echo next >> "$W/hung.cfg"
    cat >> "$W/hung.cfg" <<EOF
url = "$A/login"
header = "Origin: $A"
data-urlencode = "username=hung-$i"
data-urlencode = "password=wrong"
output = "/dev/null"
write-out = "%{http_code}\\n"
max-time = 30
EOF
    i=$((i + 1))
done
t0=$(now_ms)
curl -s -Z --parallel-max "$HUNG" -K "$W/hung.cfg" > "$W/hung" 2>/dev/null &
hung_pid=$!
sleep 0.5
st=$(curl -s -o /dev/null -m 10 -w '%{http_code}' "$A/")
ms=$(( $(now_ms) - t0 ))
check "memcached hung: a static page on node A answers during $HUNG logins at once ($st after $ms ms)" \
    [ "$st" = 200 ] && [ "$ms" -lt 3000 ]
wait "$hung_pid"
ms=$(( $(now_ms) - t0 ))
n503=$(grep -c '^503$' "$W/hung")
check "memcached hung: node A (refuse) answers all $HUNG logins 503 ($n503) within 4 s ($ms ms)" \
    [ "$n503" = "$HUNG" ] && [ "$ms" -lt 4000 ]
t0=$(now_ms)
st=$(login "$B" back wrong-hung)
ms=$(( $(now_ms) - t0 ))
check "memcached hung: node B (allow) checks the password ($st) within 1.5 s ($ms ms)" \
    [ "$st" = 401 ] && [ "$ms" -lt 1500 ]
grep -h 'HSC054' "$W/a/error.log" | tail -1 | cut -c 1-240 | sed 's/^/#   /'
check "memcached hung: the log says no answer within 1 s" \
    grep -q 'HSC054.*no answer within 1 s' "$W/a/error.log"
kill -CONT "$MC_PID"
t0=$(date +%s)
st=""
while [ $(( $(date +%s) - t0 )) -lt 8 ]; do
    st=$(login "$A" back wrong-back)
    [ "$st" = 401 ] && break
    sleep 0.5
done
check "memcached answering again: node A checks passwords within 8 s ($st)" \
    [ "$st" = 401 ]

# --- the socache provider (memcache:), for comparison -----------------------
nodes_stop
start_nodes "memcache:127.0.0.1:$MC_PORT" || bail "both nodes start with HSCThrottleCache memcache:"
counts=""
bad=0
for u in p1 p2 p3; do
    burst "$A" "$B" "$u"
    counts="$counts $n401"
    [ "$nother" = 0 ] || bad=1
done
echo "# memcache: (socache, mutex per node): password checks in bursts of $BURST against a limit of $LIMIT:$counts (racy, not asserted; memcache-exact: gave $LIMIT each time)"
check "memcache:: every burst answer is 401 or 429" [ "$bad" = 0 ]

# --- no child crashed -------------------------------------------------------
nodes_check_logs
secrets=$(cat "$W/a/error.log" "$W/b/error.log" | grep -cE 'wrong-|right-')
check "no password in the error logs" [ "$secrets" = 0 ]
finish
