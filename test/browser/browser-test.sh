#!/bin/sh
# The pages in headless Chromium (test/browser/browser_test.py), for
# `make check`. Needs Debian's chromium, chromium-driver and
# python3-selenium (scripts/install-deps-debian.sh); without them it fails
# and says what to install. The login through proxies needs nginx, caddy
# and haproxy too (installed by the same script with --test); a missing
# one fails its "starts" line, naming it. Prints TAP; screenshots land in
# test/browser/screenshots/.
top_srcdir=${top_srcdir:-.}
for f in /usr/bin/chromium /usr/bin/chromedriver; do
    if [ ! -x "$f" ]; then
        echo "not ok 1 - browser test: $f is missing (apt-get install chromium chromium-driver python3-selenium)"
        echo "1..1"
        exit 1
    fi
done
# Debian's interpreter: its python3-selenium is not on another python3's path.
# Exit 3: every assertion held until Chromium itself went away (seen under
# the sanitizer stage's load, twice in one run there). Each such run is
# shown as comments and the whole test runs again, three runs at most; a
# failed assertion in any run, or a third loss, fails.
tries=1
while :; do
    out=$(/usr/bin/python3 "$top_srcdir/test/browser/browser_test.py")
    rc=$?
    [ "$rc" = 3 ] && [ "$tries" -lt 3 ] || break
    echo "# the browser went away during run $tries; that run, then another:"
    printf '%s\n' "$out" | sed 's/^/#   /'
    tries=$((tries + 1))
done
printf '%s\n' "$out"
exit "$rc"
