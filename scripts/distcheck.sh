#!/bin/sh
# distcheck.sh: `make distcheck` from a configured tree, in TAP (one line):
# the tarball holds everything a build needs, builds out of tree from a
# read-only source, passes its unit tests, installs under its own prefix
# (never into the system's httpd) and uninstalls cleanly. The tests run
# there are the C unit tests only; the full suite runs in the tree itself.
# Usage: scripts/distcheck.sh   (from a configured tree; test-all.sh stage 1d)
set -u
cd "$(dirname "$0")/.." || exit 1
echo "1..1"
out=$(mktemp)
if make distcheck TESTS='$(UNIT_TESTS)' >"$out" 2>&1; then
    echo "ok 1 - make distcheck: $(ls mod_hsc-*.tar.gz 2>/dev/null | head -n 1) builds out of tree, passes its unit tests, installs and uninstalls"
    rm -f "$out"
    exit 0
fi
echo "not ok 1 - make distcheck"
tail -n 40 "$out" | sed 's/^/# /'
rm -f "$out"
exit 1
