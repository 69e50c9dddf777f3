#!/bin/sh
# test/demo/demo-port.sh: the README's demo (scripts/demo.sh --smoke: start,
# log in with curl, stop) while port 8080, its default, is taken, as on a
# machine that already serves something there. Without HSC_DEMO_PORT it
# takes another free port and says which; with HSC_DEMO_PORT naming a taken
# port it stops with a message that says so. TAP; scripts/test-all.sh runs
# it (stage 1b). Needs perl (perl-base) and what the demo needs.
set -u
cd "$(dirname "$0")/../.." || exit 1
T=$(mktemp -d /tmp/hsc-demo-port.XXXXXX) || exit 1
holder=""
trap '[ -n "$holder" ] && kill "$holder" 2>/dev/null; rm -rf "$T"' EXIT
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

# Hold 8080 with a listener of our own, unless something already does.
perl -MIO::Socket::INET -e '
    my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => 8080,
        Listen => 5, ReuseAddr => 1) or exit 0;
    open(my $f, ">", $ARGV[0]) and close($f);
    sleep 600' "$T/held" &
holder=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do
    [ -e "$T/held" ] && break
    kill -0 "$holder" 2>/dev/null || break
    sleep 0.2
done
if [ -e "$T/held" ]; then
    echo "# 8080 held by this test (pid $holder)"
else
    holder=""
    echo "# 8080 was already taken on this machine"
fi

env HSC_DEMO_PORT=8080 scripts/demo.sh --smoke >"$T/out1" 2>"$T/err1"
rc=$?
if [ "$rc" -ne 0 ] && grep -q 'port 8080 (HSC_DEMO_PORT) is taken' "$T/err1"; then
    ok "HSC_DEMO_PORT=8080 while 8080 is taken: the demo stops and says the port is taken"
else
    notok "HSC_DEMO_PORT=8080 while 8080 is taken: the demo stops and says the port is taken (exit $rc)"
    sed 's/^/#   /' "$T/err1" | tail -n 5
fi

env -u HSC_DEMO_PORT scripts/demo.sh --smoke >"$T/out2" 2>"$T/err2"
rc=$?
# The demo's own checks ("ok - demo: ..."), counted here.
while IFS= read -r line; do
    case $line in
    "ok - "*) ok "${line#ok - }" ;;
    "not ok - "*) notok "${line#not ok - }" ;;
    esac
done <"$T/out2"
port=$(sed -n 's|^# demo: http://localhost:\([0-9]*\)/$|\1|p' "$T/out2")
if [ "$rc" -eq 0 ] && [ -n "$port" ] && [ "$port" != 8080 ] \
    && grep -q "port 8080 is taken; using port $port" "$T/err2"; then
    ok "without HSC_DEMO_PORT the demo takes a free port ($port), says so, and logs in there"
else
    notok "without HSC_DEMO_PORT the demo takes a free port, says so, and logs in there (exit $rc, port '${port}')"
    sed 's/^/#   /' "$T/err2" | tail -n 5
fi
# On a minimal system the demo installs what its curl lines need.
if scripts/install-deps-debian.sh --list --demo 2>/dev/null | grep -qx curl \
    && grep -q 'scripts/install-deps-debian.sh --demo' scripts/demo.sh \
    && grep -q '^    curl -c /tmp/jar' scripts/demo.sh; then
    ok "the demo prints curl lines and installs curl (install-deps-debian.sh --demo)"
else
    notok "the demo prints curl lines and installs curl (install-deps-debian.sh --demo)"
fi
echo "1..$n"
[ "$fails" -eq 0 ]
