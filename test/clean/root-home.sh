#!/bin/sh
# test/clean/root-home.sh: the README's test command as root from a checkout
# in root's home, which the test server's user (nobody) cannot read: a clone
# of this checkout's HEAD in a new mode-0700 directory under /root runs
# `scripts/test-all.sh --copy-only`, the part that differs there: the copy
# of the tree into /tmp, the build of every test program in the copy, and
# make distcheck in it (whose tarball must not take the copy's build
# outputs). The rest of test-all is the same code as in the checkout, where
# CI runs it. TAP; as root only (scripts/test-all.sh runs it with
# HSC_HOME_TEST=1, which .ci/run sets).
set -u
cd "$(dirname "$0")/../.." || exit 1
top=$(pwd)
echo "1..1"
if [ "$(id -u)" != 0 ] || [ ! -d /root ] || ! git rev-parse --git-dir >/dev/null 2>&1; then
    echo "ok 1 # SKIP needs root, /root and a git checkout"
    exit 0
fi
home=$(mktemp -d /root/hsc-home.XXXXXX) || exit 1
trap 'rm -rf "$home"' EXIT
chmod 700 "$home"
git clone -q "$top" "$home/mod_hsc" || { echo "not ok 1 - git clone into $home"; exit 1; }
t0=$(date +%s)
"$home/mod_hsc/scripts/test-all.sh" --copy-only >"$home/out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && grep -q 'running from a copy in /tmp/' "$home/out" \
    && grep -q '^ok 1 - make distcheck' "$home/out" \
    && grep -q '^copy: a git index of [1-9][0-9]* files' "$home/out"; then
    echo "ok 1 - test-all from a checkout in root's home (mode 0700): the copy builds every test program and passes make distcheck ($(($(date +%s) - t0)) s)"
else
    echo "not ok 1 - test-all from a checkout in root's home (mode 0700): the copy, its test programs, make distcheck (exit $rc)"
    tail -n 30 "$home/out" | sed 's/^/# /'
    exit 1
fi
