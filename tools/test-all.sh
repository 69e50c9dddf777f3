#!/bin/sh
# Builds mod_hsc and runs every test, as CI does:
#   1. the normal build with warnings as errors, then `make check`: C unit
#      tests, hsc-admin end to end, the fuzz corpora replayed, and the
#      Apache::Test suite under the event, worker and prefork MPMs;
#   2. the same under AddressSanitizer + UndefinedBehaviorSanitizer, module
#      included (in a copy of the tree, so the normal build stays);
#   3. the unit tests once under valgrind memcheck;
#   4. every libFuzzer target for HSC_FUZZ_SECONDS (default 60) each.
# Stage 1 also runs the README's demo (tools/demo.sh --smoke).
# Ends with the line "N passed, N failed". Run as root on a fresh Debian 12
# (it installs packages), or as any user once they are installed.
# HSC_QUICK=1 runs stage 1 only.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
tools/install-deps-debian.sh || exit 1

passed=0
failed=0
stage_failed=""
# What failed, in detail, printed again at the end: CI keeps only the tail
# of a long log, and the details must be in it.
details=$(mktemp)
trap 'rm -f "$details"' EXIT

# Appends the failing lines of every failed automake test in DIR.
note_failures()
{
    for trs in $(find "$1" -name '*.trs' 2>/dev/null); do
        grep -qE '^:test-result: (FAIL|ERROR|XPASS)' "$trs" || continue
        log="${trs%.trs}.log"
        {
            echo "--- ${log#$1/}"
            grep -E '^(not ok|# +Failed test|#   |# +(got|expected):|Failed|apache-test:|Result:|\[[A-Z][a-z]{2} )' \
                "$log" 2>/dev/null | head -n 80
        } >>"$details"
    done
}

# Adds automake's counts from a test-suite.log (TAP assertions count one
# each; the Apache::Test runner counts its own assertions in its log).
count_suite()
{
    log="$1/test-suite.log"
    if [ ! -f "$log" ]; then
        failed=$((failed + 1))
        return
    fi
    p=$(sed -n 's/^# PASS: *\([0-9]*\)$/\1/p' "$log")
    f=$(sed -n 's/^# FAIL: *\([0-9]*\)$/\1/p' "$log")
    e=$(sed -n 's/^# ERROR: *\([0-9]*\)$/\1/p' "$log")
    x=$(sed -n 's/^# XPASS: *\([0-9]*\)$/\1/p' "$log")
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-0} + ${e:-0} + ${x:-0}))
    # The Apache::Test runner is one automake test; add its assertions.
    if [ -f "$1/t/apache-test.log" ]; then
        at=$(sed -n 's/.*Files=[0-9]*, Tests=\([0-9]*\).*/\1/p' \
             "$1/t/apache-test.log" | awk '{s += $1} END {print s + 0}')
        passed=$((passed + at))
    fi
}

stage()
{
    echo
    echo "=== $1"
}

build()
{
    dir=$1
    shift
    (cd "$dir" && ./autogen.sh >/dev/null 2>&1 && ./configure -q "$@" \
        && make -j2 >/dev/null) || return 1
}

# Runs a command that prints TAP, shows its output, and counts its ok and
# not ok lines: tap_stage STAGE COMMAND [ARG...]
tap_stage()
{
    st=$1
    shift
    out=$(mktemp)
    "$@" >"$out" 2>&1
    if [ $? -ne 0 ]; then
        stage_failed="$stage_failed $st"
        { echo "--- stage $st"; grep '^not ok' "$out"; } >>"$details"
    fi
    cat "$out"
    passed=$((passed + $(grep -c '^ok ' "$out")))
    failed=$((failed + $(grep -c '^not ok ' "$out")))
    rm -f "$out"
}

stage "1. build (--enable-werror) and make check"
if build "$top" --enable-werror; then
    (cd "$top" && make -j2 check)
    if [ $? -ne 0 ]; then
        stage_failed="$stage_failed 1"
        note_failures "$top"
    fi
    count_suite "$top"
else
    echo "build failed"
    stage_failed="$stage_failed 1"
    failed=$((failed + 1))
fi

stage "1b. the README's demo: start it, log in with curl, stop it"
tap_stage 1b env HSC_DEMO_PORT="${HSC_DEMO_PORT:-18080}" tools/demo.sh --smoke

if [ "${HSC_QUICK:-0}" != 1 ]; then
    stage "2. ASan + UBSan build and make check (module inside httpd too)"
    san=$(mktemp -d /tmp/hsc-san.XXXXXX)
    chmod 755 "$san"
    git ls-files -z | xargs -0 tar cf - | tar xf - -C "$san"
    if build "$san" --enable-werror --enable-sanitizers; then
        (cd "$san" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
            UBSAN_OPTIONS=print_stacktrace=1 make -j2 check)
        if [ $? -ne 0 ]; then
            stage_failed="$stage_failed 2"
            note_failures "$san"
        fi
        count_suite "$san"
    else
        echo "sanitizer build failed"
        stage_failed="$stage_failed 2"
        failed=$((failed + 1))
    fi

    stage "3. unit tests under valgrind memcheck"
    tap_stage 3 test/run-valgrind.sh

    stage "4. libFuzzer targets, ${HSC_FUZZ_SECONDS:-60}s each, ASan + UBSan"
    tap_stage 4 test/fuzz/run-fuzzers.sh "${HSC_FUZZ_SECONDS:-60}"
fi

echo
if [ -n "$stage_failed" ]; then
    echo "=== what failed"
    cat "$details"
    echo "stages that failed:$stage_failed"
fi
echo "$passed passed, $failed failed"
[ -z "$stage_failed" ] && [ "$failed" -eq 0 ]
