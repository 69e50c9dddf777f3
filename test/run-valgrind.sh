#!/bin/sh
# run-valgrind.sh [PROGRAM...]: run each unit test binary (and each fuzz
# corpus replay) once under valgrind's memcheck and print TAP, one line per
# program. A program fails on any memcheck error, a definite or possible
# leak, a non-zero exit, or the time limit.
#
#   test/run-valgrind.sh                  every built test/unit/test_* and
#                                         test/fuzz/replay_*
#   test/run-valgrind.sh test/unit/test_b64
#
# Run from the build tree after `make check` (or `make <program>`). The
# programs link the core statically (a libtool convenience library), but a
# libtool wrapper script is run through `libtool --mode=execute` all the
# same. Environment: HSC_VALGRIND_TIMEOUT seconds per program (default 900),
# VALGRIND (default valgrind), top_builddir (default: this script's tree),
# HSC_VALGRIND_LOGS (default: a new temporary folder, printed at the end).
set -u

here=$(cd "$(dirname "$0")" && pwd)
builddir=${top_builddir:-$(cd "$here/.." && pwd)}
valgrind=${VALGRIND:-valgrind}
limit=${HSC_VALGRIND_TIMEOUT:-900}

# run_one PROGRAM: one program under memcheck; its TAP line (unnumbered)
# and report in $logdir/NAME.tap.
run_one()
{
    p=$1
    name=$(basename "$p")
    case $p in /*) ;; *) p=$(pwd)/$p ;; esac
    # A libtool wrapper is a script; run the real program through libtool.
    run=""
    if head -c 2 "$p" 2>/dev/null | grep -q '^#!' && [ -x "$builddir/libtool" ]; then
        run="$builddir/libtool --mode=execute"
    fi
    log=$logdir/$name.valgrind
    out=$logdir/$name.out
    start=$(date +%s)
    # Run from the program's folder: unit tests create their files there.
    # HSC_UNDER_VALGRIND tells a test that counts work done in a fixed time
    # (a thread race) that everything runs 20 to 50 times slower.
    (cd "$(dirname "$p")" && HSC_UNDER_VALGRIND=1 \
        timeout "$limit" $run "$valgrind" -q \
        --error-exitcode=99 --leak-check=full --fair-sched=yes \
        --errors-for-leak-kinds=definite,possible \
        --log-file="$log" "$p" >"$out" 2>&1)
    rc=$?
    secs=$(( $(date +%s) - start ))
    if [ "$rc" = 0 ]; then
        echo "ok - valgrind $name (${secs}s)" >"$logdir/$name.tap"
    else
        case $rc in
            99) why="memcheck errors" ;;
            124) why="timed out after ${limit}s" ;;
            *) why="exit $rc" ;;
        esac
        {
            echo "not ok - valgrind $name: $why (${secs}s)"
            sed 's/^/# /' "$log" | head -n 60
            grep '^not ok' "$out" | head -n 10 | sed 's/^/# /'
        } >"$logdir/$name.tap"
    fi
}
if [ "${1:-}" = --one ]; then
    logdir=$HSC_VALGRIND_LOGS
    run_one "$2"
    exit 0
fi

if ! command -v "$valgrind" >/dev/null 2>&1; then
    echo "1..0 # SKIP valgrind not installed (Debian: apt-get install valgrind)"
    echo "run-valgrind: valgrind not found" >&2
    exit 1
fi

if [ $# -gt 0 ]; then
    progs="$*"
else
    progs=""
    for p in "$builddir"/test/unit/test_* "$builddir"/test/fuzz/replay_*; do
        case $p in *.c|*.o|*.h|*.log|*.trs|*.db*) continue ;; esac
        [ -f "$p" ] && [ -x "$p" ] && progs="$progs $p"
    done
fi
if [ -z "$progs" ]; then
    echo "1..1"
    echo "not ok 1 - no test programs found under $builddir (run make check)"
    exit 1
fi

tmplogs=0
if [ -n "${HSC_VALGRIND_LOGS:-}" ]; then
    logdir=$HSC_VALGRIND_LOGS
else
    logdir=$(mktemp -d "${TMPDIR:-/tmp}/hsc-valgrind.XXXXXX")
    tmplogs=1
fi
mkdir -p "$logdir"
# HSC_VALGRIND_JOBS programs at a time (default 2, the machine's cores):
# each writes its result to a file, printed in order and numbered here.
set -- $progs
echo "1..$#"
export HSC_VALGRIND_LOGS="$logdir" top_builddir="$builddir"
printf '%s\n' "$@" | xargs -P "${HSC_VALGRIND_JOBS:-2}" -I{} \
    sh "$here/run-valgrind.sh" --one {}
n=0
failed=0
for p in "$@"; do
    n=$((n + 1))
    t="$logdir/$(basename "$p").tap"
    if [ ! -f "$t" ]; then
        echo "not ok $n - valgrind $(basename "$p"): no result"
        failed=$((failed + 1))
        continue
    fi
    sed "1s/^\(not \)\{0,1\}ok /&$n /" "$t"
    grep -q '^not ok' "$t" && failed=$((failed + 1))
done
if [ "$failed" = 0 ] && [ "$tmplogs" = 1 ]; then
    rm -rf "$logdir"
    exit 0
fi
echo "# logs in $logdir"
[ "$failed" = 0 ]
