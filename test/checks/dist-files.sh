#!/bin/sh
# test/checks/dist-files.sh: every file git tracks is in the release tarball
# (`make distdir`, what `make dist` packs), except the few listed below that
# are deliberately not shipped. A file left out of EXTRA_DIST (conf/fail2ban
# was) fails here, not in a user's build. TAP.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
# Not shipped, on purpose: the CI script and git's own file.
not_shipped='.ci/run
.gitignore'

echo "1..2"
if ! git -C "$top_srcdir" rev-parse --git-dir >/dev/null 2>&1; then
    # A tarball (make distcheck) has no list to compare with.
    echo "ok 1 # SKIP not a git checkout: nothing to compare the tarball with"
    echo "ok 2 # SKIP not a git checkout: nothing to compare the tarball with"
    exit 0
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/hsc-dist.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
if ! ${MAKE:-make} -s -C "$top_builddir" distdir distdir="$T/d" >"$T/log" 2>&1; then
    echo "not ok 1 - make distdir runs"
    tail -20 "$T/log" | sed 's/^/# /'
    exit 1
fi
(cd "$T/d" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) >"$T/dist"
git -C "$top_srcdir" ls-files | LC_ALL=C sort >"$T/git"
missing=$(LC_ALL=C comm -23 "$T/git" "$T/dist" | grep -vxF "$not_shipped")
if [ -z "$missing" ]; then
    echo "ok 1 - every tracked file is in the tarball ($(wc -l <"$T/git") files; not shipped on purpose: $(echo $not_shipped))"
else
    echo "not ok 1 - tracked files missing from the tarball (add them to EXTRA_DIST in Makefile.am):"
    echo "$missing" | sed 's/^/#   /'
fi
if ! GIT_DIR=/nonexistent ${MAKE:-make} -s -C "$top_builddir" distdir \
    distdir="$T/n" >"$T/log" 2>&1; then
    echo "not ok 2 - make distdir runs without git"
    tail -20 "$T/log" | sed 's/^/# /'
    exit 1
fi
(cd "$T/n" && find t test docs debian -type f | LC_ALL=C sort) >"$T/nogit"
built=$(find "$top_builddir/test/unit" -name '*.o' | wc -l)
extra=$(LC_ALL=C comm -23 "$T/nogit" "$T/git")
if [ -z "$extra" ]; then
    echo "ok 2 - without git, the tarball's t/, test/, docs/ and debian/ hold only tracked files ($built objects in test/unit/ left out)"
else
    echo "not ok 2 - without git, the tarball takes files git does not track (scripts/dist-prune.sh):"
    echo "$extra" | head -n 20 | sed 's/^/#   /'
    exit 1
fi
[ -z "$missing" ]
