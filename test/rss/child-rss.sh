#!/bin/sh
# child-rss.sh: an httpd child's memory stays within its bounds as it
# meets more users than its record cache holds. One child of
# 25 threads (event MPM), HSCUserCacheSize 16384 (3.1 MiB), 50,000 users'
# cookies each sent once: the child may grow, after every thread has
# opened its handle, by the cache's bound, 320 KiB of SQLite pages a
# thread and 4 MiB (bench/rss-rows.sh --check does the work). Before the
# page cache was bounded it grew by about 2 MiB a thread. About 20 s.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
builddir=$(cd "$top_builddir" && pwd)
if [ "${HSC_SANITIZERS:-0}" = 1 ]; then
    echo "1..0 # SKIP a sanitizer build (its shadow memory is not the child's)"
    exit 0
fi
for f in "$builddir/bench/bench_users" "$builddir/.libs/mod_hsc.so"; do
    if [ ! -e "$f" ]; then
        echo "1..0 # SKIP $f not built"
        exit 0
    fi
done
HSC_BUILDDIR=$builddir exec sh "$top_srcdir/bench/rss-rows.sh" --check \
    --threads 25 --cache-size 16384 --users 50000
