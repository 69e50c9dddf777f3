#!/bin/sh
# The pages in headless Chromium (test/browser/browser_test.py), for
# `make check`. Needs Debian's chromium, chromium-driver and
# python3-selenium (tools/install-deps-debian.sh); without them it fails
# and says what to install. Prints TAP; screenshots land in
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
exec /usr/bin/python3 "$top_srcdir/test/browser/browser_test.py"
