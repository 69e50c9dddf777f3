#!/bin/sh
# dist-prune.sh DISTDIR [PROGRAM...]: removes from `make dist`'s copy of
# t/, test/, docs/ and debian/ (directories EXTRA_DIST takes whole) what a
# build, a test run or a package build leaves there: objects, libtool's and
# automake's files, the test programs (PROGRAM..., from Makefile.am), logs,
# databases, Apache::Test's generated files, the browser test's screenshots
# and debhelper's output. The same rules as .gitignore, so the tarball's
# list is the same in a git checkout, in a copy without .git (test-all.sh
# copies a tree nobody can read) and after any build. Makefile.am's
# dist-hook runs it.
set -eu
d=$1
shift
cd "$d"
for p in "$@"; do rm -f "./$p" "./$p.exe"; done
find t test docs debian \( -name '*.o' -o -name '*.lo' -o -name '*.la' \
    -o -name '*.so' -o -name '*.log' -o -name '*.trs' -o -name '*.db' \
    -o -name '*.db-wal' -o -name '*.db-shm' -o -name .deps -o -name .libs \
    -o -name .dirstamp \) -prune -exec rm -rf {} +
# Programs built outside Makefile.am's lists (test/fuzz/run-fuzzers.sh).
find test/unit test/fuzz -maxdepth 1 -type f \( -name 'test_*' \
    -o -name 'fuzz_*' -o -name 'replay_*' \) ! -name '*.c' ! -name '*.dict' \
    ! -name '*.h' -exec rm -f {} +
rm -rf t/TEST t/logs t/htdocs/index.html t/conf/apache_test_config.pm \
    t/conf/extra.conf t/conf/httpd.conf t/conf/modperl_inc.pl \
    t/conf/modperl_startup.pl t/var t/conf/mime.types t/state \
    test/browser/screenshots \
    debian/libapache2-mod-hsc debian/.debhelper debian/files \
    debian/debhelper-build-stamp debian/*.substvars debian/*.debhelper
find t test docs debian -depth -type d -empty -delete
