#!/bin/sh
# test/nodes/restart-under-load.sh: PostgreSQL restarted (pg_ctl restart
# -m fast) while two httpd nodes serve a steady load, in TAP
# (docs/several-servers.md, "Faults"). Starts everything itself in a
# temporary directory, as test/nodes/two-nodes.sh does. The load: curl
# loops sending cookies of three valid users and of one user disabled
# before the restart to both nodes, and a login loop. Checks: every cookie
# answer is 200 or 503 (never 500, never 401 for a valid user, never 200
# for the disabled one), every login 303 or 503; both nodes answer 200
# within 5 s of the restart, and the load saw no 503 later than that; no
# request took longer than the timeouts allow; no statement of the nodes
# is left running; no child crashed; each child logged the outage once at
# error (not once per request) and then, once, that the database answers
# again (HSC182). The statuses seen are printed.
set -u

. "${top_srcdir:-.}/test/lib/nodes.sh"
. "${top_srcdir:-.}/test/pgsql/pg-tmp.sh"
nodes_init pgrestart
LOAD_PIDS=""
stop_load() {
    touch "$W/stop"
    for p in $LOAD_PIDS; do kill "$p" 2>/dev/null; done
}
trap 'stop_load; nodes_cleanup pg_tmp_stop' EXIT
trap 'exit 130' INT TERM

# --- PostgreSQL, memcached, users --------------------------------------------
pg_tmp_start "$W" || bail "PostgreSQL starts"
SPEC="pgsql:$PG_CONNINFO"
mc_start || bail "memcached starts"
"$ADMIN" keygen "$W/keys" >/dev/null || bail "keygen"
chmod 644 "$W/keys"
"$ADMIN" init "$SPEC" >/dev/null || bail "hsc-admin init on PostgreSQL"
USERS="u1 u2 u3 dis"
for u in $USERS; do
    echo "$u-password" | "$ADMIN" add "$SPEC" "$u" --password-stdin --force \
        --kdf sha256-chain:1000 >/dev/null || bail "hsc-admin add $u"
done

# --- two nodes ------------------------------------------------------------------
PORT_A=$(free_port)
PORT_B=$(free_port)
write_conf() { # node port spec
    node_conf "$1" "node-$1" 10 "$2" <<EOF
HSCUserDB "$3"
HSCUserDBMaxStale 1s
HSCThrottleCache memcache:127.0.0.1:$MC_PORT
HSCThrottleAddress 100000
HSCThrottleUser 100000
HSCCookieSecure Off
HSCLoginURL /login
<Location /login>
    SetHandler hsc-login
</Location>
<Location /private>
    AuthType HSC
    Require valid-user
</Location>
EOF
    mkdir -p "$W/$1/htdocs/private"
    echo "private $1" >"$W/$1/htdocs/private/index.html"
}
write_conf a "$PORT_A" "$SPEC"
write_conf b "$PORT_B" "$SPEC application_name=node-b"
for node in a b; do
    node_start "$node" || bail "node $node starts"
done
A=http://127.0.0.1:$PORT_A
B=http://127.0.0.1:$PORT_B
nodes_wait "$A/" "$B/" || bail "both nodes answer"


for u in $USERS; do
    st=$(login "$A" "$u" "$u-password")
    [ "$st" = 303 ] && [ -s "$W/cookie" ] || bail "login of $u (got $st)"
    cp "$W/cookie" "$W/cookie-$u"
done
ok "four users logged in"
"$ADMIN" disable "$SPEC" dis >/dev/null || bail "hsc-admin disable dis"
check "the disabled user's cookie is refused by node A before the restart" \
    within 1500 "$A" "$(cat "$W/cookie-dis")" 401
check "and by node B" within 1500 "$B" "$(cat "$W/cookie-dis")" 401
check "a valid user's cookie works on both nodes" \
    [ "$(get "$A" "$(cat "$W/cookie-u1")")$(get "$B" "$(cat "$W/cookie-u1")")" = 200200 ]

# --- the load ---------------------------------------------------------------------
# Each cookie loop sends batches of 10 requests on one connection, turning
# over nodes and users; every answer is one line "start_ms node user
# status seconds" in its own file.
for node in A B; do
    url=$A
    [ "$node" = B ] && url=$B
    i=0
    : > "$W/urls-$node"
    while [ $i -lt 10 ]; do
        printf 'url = "%s/private/"\noutput = "/dev/null"\n' "$url" >> "$W/urls-$node"
        i=$((i + 1))
    done
done
cookie_loop() { # id offset
    id=$1
    k=$2
    while [ ! -e "$W/stop" ]; do
        set -- $USERS
        shift $((k % 4))
        u=$1
        node=A
        [ $(( (k / 4) % 2 )) = 1 ] && node=B
        t=$(now_ms)
        curl -s --max-time 20 -H "Cookie: $(cat "$W/cookie-$u")" -K "$W/urls-$node" \
            -w '%{http_code} %{time_total}\n' | sed "s/^/$t $node $u /" >> "$W/load-$id"
        k=$((k + 1))
    done
}
login_loop() {
    k=0
    while [ ! -e "$W/stop" ]; do
        node=$A
        [ $((k % 2)) = 1 ] && node=$B
        t=$(now_ms)
        code=$(curl -s --max-time 20 -o /dev/null -w '%{http_code} %{time_total}' \
            -H "Origin: $node" --data-urlencode username=u2 \
            --data-urlencode password=u2-password "$node/login")
        echo "$t $code" >> "$W/logins"
        k=$((k + 1))
        sleep 0.2
    done
}
: > "$W/logins"
for l in 1 2 3 4; do
    : > "$W/load-$l"
    cookie_loop "$l" "$((l * 3))" &
    LOAD_PIDS="$LOAD_PIDS $!"
done
login_loop &
LOAD_PIDS="$LOAD_PIDS $!"

sleep 3
r0=$(now_ms)
pg_tmp_as "$PG_BIN/pg_ctl" -D "$PG_DIR/pg" -w -t 30 -l "$PG_LOG" -m fast restart \
    >/dev/null 2>&1
restart_rc=$?
r1=$(now_ms)
check "pg_ctl restart -m fast under load (exit $restart_rc, $((r1 - r0)) ms)" [ "$restart_rc" = 0 ]
back_a=no
back_b=no
within 5000 "$A" "$(cat "$W/cookie-u1")" 200 && back_a="$elapsed ms"
within 5000 "$B" "$(cat "$W/cookie-u3")" 200 && back_b="$elapsed ms"
check "node A answers 200 again within 5 s of the restart ($back_a)" [ "$back_a" != no ]
check "node B answers 200 again within 5 s of the restart ($back_b)" [ "$back_b" != no ]
sleep 6
touch "$W/stop"
for p in $LOAD_PIDS; do wait "$p" 2>/dev/null; done
LOAD_PIDS=""

# --- what the load saw ---------------------------------------------------------------
cat "$W"/load-* > "$W/load"
total=$(wc -l < "$W/load")
echo "# cookie requests: $total; statuses by user:"
awk '{ c[$3 " " $4]++ } END { for (k in c) print "#   " k ": " c[k] }' "$W/load" | sort
echo "# logins: $(wc -l < "$W/logins"); statuses:" \
    "$(awk '{ c[$2]++ } END { for (k in c) printf " %s x%d", k, c[k] }' "$W/logins")"
during=$(awk -v a="$r0" -v b="$r1" '$1 >= a - 1000 && $1 <= b + 2000' "$W/load" | wc -l)
echo "# requests in batches started from 1 s before the restart to 2 s after: $during"
check "the load ran through the restart (at least 100 requests near it; got $during)" \
    [ "$during" -ge 100 ]
bad_valid=$(awk '$3 != "dis" && $4 != 200 && $4 != 503' "$W/load" | wc -l)
check "every answer to a valid user's cookie is 200 or 503 (others: $bad_valid)" \
    [ "$bad_valid" = 0 ]
valid_ok=$(awk '$3 != "dis" && $4 == 200' "$W/load" | wc -l)
check "valid users got 200s ($valid_ok)" [ "$valid_ok" -gt 0 ]
dis_200=$(awk '$3 == "dis" && $4 == 200' "$W/load" | wc -l)
dis_bad=$(awk '$3 == "dis" && $4 != 401 && $4 != 503' "$W/load" | wc -l)
dis_all=$(awk '$3 == "dis"' "$W/load" | wc -l)
check "the user disabled before the restart never got 200 ($dis_200 of $dis_all)" \
    [ "$dis_200" = 0 -a "$dis_all" -gt 0 ]
check "and only 401 or 503 (others: $dis_bad)" [ "$dis_bad" = 0 ]
late=$(awk -v t="$((r1 + 5000))" '$1 > t && $4 == 503' "$W/load" | wc -l)
check "no 503 in batches started later than 5 s after the restart ($late)" [ "$late" = 0 ]
slow=$( (awk '$5 > 5' "$W/load"; awk '$3 > 5' "$W/logins") | wc -l)
maxt=$( (awk '{ print $5 }' "$W/load"; awk '{ print $3 }' "$W/logins") \
    | awk '$1 > m { m = $1 } END { print m + 0 }')
check "no request took over 5 s: nothing waited on a dead connection (slowest ${maxt} s)" \
    [ "$slow" = 0 ]
bad_login=$(awk '$2 != 303 && $2 != 503' "$W/logins" | wc -l)
logins_ok=$(awk '$2 == 303' "$W/logins" | wc -l)
check "every login answered 303 or 503 (others: $bad_login)" [ "$bad_login" = 0 ]
check "logins succeeded ($logins_ok)" [ "$logins_ok" -gt 0 ]
stuck=$(pg_tmp_psql "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND state <> 'idle'")
check "no statement of the nodes is left running or in a transaction ($stuck)" \
    [ "$stuck" = 0 ]

# --- the error logs ----------------------------------------------------------------------
nodes_check_logs
# Per child (pid): the outage lines at error (HSC012 cookies, HSC032
# logins) and the recovery lines (HSC182), in order.
for node in a b; do
    grep -E '\[hsc:error\].*(HSC012|HSC032):|HSC182:' "$W/$node/error.log" \
        | sed -n 's/.*\[pid \([0-9]*\)[^]]*\].*\(HSC012\|HSC032\|HSC182\).*/\1 \2/p' \
        > "$W/events-$node"
done
cat "$W/events-a" "$W/events-b" > "$W/events"
children=$(awk '{ print $1 }' "$W/events" | sort -u | wc -l)
outages=$(grep -vc ' HSC182' "$W/events")
recoveries=$(grep -c ' HSC182' "$W/events")
echo "# children that logged the outage: $children; outage lines at error: $outages; recovery lines: $recoveries"
cat "$W/a/error.log" "$W/b/error.log" \
    | grep -E '\[hsc:error\].*(HSC012|HSC032):|HSC182:' | cut -c 1-300 | sed 's/^/#   /'
check "the outage was logged at error with a tag (HSC012/HSC032: $outages lines)" \
    [ "$outages" -ge 1 ]
most=$(awk '$2 != "HSC182" { c[$1]++ } END { m = 0; for (p in c) if (c[p] > m) m = c[p]; print m }' "$W/events")
check "once per child, not once per request (at most $most per child; $total requests)" \
    [ "$most" = 1 ]
unrecovered=$(awk '{ last[$1] = $2 } END { for (p in last) if (last[p] != "HSC182") n++; print n + 0 }' "$W/events")
check "every child that logged the outage then logged HSC182, the database answering again ($unrecovered without)" \
    [ "$unrecovered" = 0 ]
many=$(awk '$2 == "HSC182" { c[$1]++ } END { m = 0; for (p in c) if (c[p] > m) m = c[p]; print m }' "$W/events")
check "HSC182 once per child ($many at most)" [ "$many" -le 1 ]
pw=$(cat "$W/a/error.log" "$W/b/error.log" | grep -cE '(u[0-9]|dis)-password')
check "no password in the error logs ($pw lines show one)" [ "$pw" = 0 ]
if [ "$failed" != 0 ]; then
    for node in a b; do
        echo "# --- node $node error log (hsc lines, last 20)"
        grep 'hsc:' "$W/$node/error.log" | tail -n 20 | sed 's/^/#   /'
    done
fi
finish
