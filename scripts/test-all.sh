#!/bin/sh
# Builds mod_hsc and runs every test, as CI does:
#   1. the normal build with warnings as errors, then `make check`: C unit
#      tests, hsc-admin end to end, the fuzz corpora replayed, and the
#      Apache::Test suite under the event, worker and prefork MPMs;
#   2. the same under AddressSanitizer + UndefinedBehaviorSanitizer, module
#      included (in a copy of the tree, so the normal build stays), the
#      Apache::Test suite under the event MPM (HSC_SAN_MPMS: stage 1 ran
#      all three; under ASan, event's threads run the same module code
#      prefork's children do, and a second MPM here took 10 of CI's
#      minutes: with it the run passed an hour);
#   3. the unit tests once under valgrind memcheck;
#   4. every libFuzzer target for HSC_FUZZ_SECONDS (default 60) each.
# Stage 1 also runs `make distcheck` (scripts/distcheck.sh: the tarball
# builds out of tree, passes its unit tests, installs and uninstalls under
# its own prefix), the README's demo while port 8080 is taken
# (test/demo/demo-port.sh: scripts/demo.sh --smoke on the port it picks), in
# CI the README's command from a checkout in root's home (stage 1e) and builds the
# Debian package (scripts/package-test.sh: installed and used only with
# CI=true or HSC_PACKAGE_TEST=1, else printed as skipped).
# Ends with the line "N passed, N failed": every assertion of every suite,
# Apache::Test's included; a part that did not run is listed as skipped,
# never counted as passed. Exits non-zero on any failure. Run as root on a
# fresh Debian 12 (it installs packages), or as any user once they are
# installed; from any directory.
# HSC_QUICK=1 runs stage 1 only. --copy-only (.ci/run, from a checkout in
# root's home) runs only what a copy of an unreadable tree changes: the copy,
# the build of every test program in it, and make distcheck there.
# As root, stage 5 (test/clean/clean-debian.sh, in the background beside
# stage 2) builds the Debian package in a fresh debootstrap chroot with only
# its Build-Depends, and installs the test servers there through
# install-deps-debian.sh: none may be left enabled or running.
set -u
copy_only=0
[ "${1:-}" = --copy-only ] && copy_only=1
cd "$(dirname "$0")/.." || exit 1
top=$(pwd)
scripts/install-deps-debian.sh --test || exit 1

# As root, the test httpd's children run as nobody and must read the tree:
# a checkout under /root (mode 0700) cannot be. Run from a copy in /tmp then
# (tracked and untracked files, as git sees them; the checkout is not
# touched), kept only if something fails.
if [ "$(id -u)" = 0 ] && [ -z "${HSC_TEST_ALL_COPY:-}" ] \
    && ! runuser -u nobody -- test -r "$top/t/TEST.PL" 2>/dev/null; then
    copy=$(mktemp -d /tmp/hsc-test-all.XXXXXX) || exit 1
    chmod 755 "$copy"
    echo "test-all: nobody (the test server's user) cannot read $top;"
    echo "test-all: running from a copy in $copy"
    if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
        (cd "$top" && git ls-files -z -co --exclude-standard \
            | (umask 022 && xargs -0 tar cf -)) | (umask 022 && tar xf - -C "$copy")
        # A git index of exactly those files: what reads git's list (the
        # sanitizer stage's copy, the format and dist-file checks, the
        # package builds) sees the same files as in the checkout.
        (cd "$copy" && umask 022 && git init -q && git add -A) || exit 1
    else
        (cd "$top" && tar cf - .) | (umask 022 && tar xf - -C "$copy")
    fi
    chmod -R o+rX "$copy"
    HSC_TEST_ALL_COPY=1 "$copy/scripts/test-all.sh" "$@"
    rc=$?
    if [ "$rc" -eq 0 ]; then rm -rf "$copy"; else echo "test-all: the copy is kept: $copy"; fi
    exit "$rc"
fi

passed=0
failed=0
skipped=0
skips=$(mktemp)
stage_failed=""
# What failed, in detail, printed again at the end: CI keeps only the tail
# of a long log, and the details must be in it.
details=$(mktemp)
trap 'rm -f "$details" "$skips"' EXIT

# Appends the failing lines of every failed automake test in DIR.
note_failures()
{
    for trs in $(find "$1" -name '*.trs' 2>/dev/null); do
        grep -qE '^:test-result: (FAIL|ERROR|XPASS)' "$trs" || continue
        log="${trs%.trs}.log"
        {
            echo "--- ${log#$1/}"
            grep -E '^(not ok|# +Failed test|#   |# +(got|expected):|Failed|apache-test:|Result:|\[[A-Z][a-z]{2} |# Looks like|Dubious|[A-Za-z]*Error:|.*: exit [0-9]+)' \
                "$log" 2>/dev/null | head -n 80
        } >>"$details"
    done
}

# Adds automake's counts from a test-suite.log (TAP assertions count one
# each). The Apache::Test runner is one automake test: its own count is
# replaced by its assertions, passed and failed, which it prints per MPM
# ("apache-test-count: MPM passed=N failed=N").
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
    trs="$1/t/apache-test.trs"
    if [ -f "$trs" ]; then
        if grep -q '^:test-result: PASS' "$trs"; then
            passed=$((passed - 1))
        else
            failed=$((failed - 1))
        fi
        counts=$(sed -n 's/^apache-test-count: [a-z]* //p' \
            "$1/t/apache-test.log" 2>/dev/null)
        at_p=$(printf '%s\n' "$counts" \
            | sed -n 's/^passed=\([0-9]*\) .*/\1/p' | awk '{s += $1} END {print s + 0}')
        at_f=$(printf '%s\n' "$counts" \
            | sed -n 's/.* failed=\([0-9]*\)$/\1/p' | awk '{s += $1} END {print s + 0}')
        # A runner that failed without saying why still counts as one.
        if ! grep -q '^:test-result: PASS' "$trs" && [ "$at_f" -eq 0 ]; then
            at_f=1
        fi
        passed=$((passed + at_p))
        failed=$((failed + at_f))
    fi
}

stage()
{
    echo
    echo "=== $1 ($(date -u +%H:%M:%S) UTC)"
}

build()
{
    dir=$1
    shift
    (cd "$dir" && ./autogen.sh >/dev/null 2>&1 && ./configure -q "$@" \
        && make -j2 >/dev/null) || return 1
}

if [ "$copy_only" = 1 ]; then
    echo "test-all --copy-only: in $top"
    echo "copy: a git index of $(git ls-files 2>/dev/null | wc -l) files"
    if ! build "$top" --enable-werror \
        || ! (cd "$top" && make -j2 check TESTS= >/dev/null); then
        echo "not ok - the build of every test program in $top"
        exit 1
    fi
    scripts/distcheck.sh
    exit $?
fi

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
    # "ok N # SKIP why" is a part that did not run: printed, never passed.
    sk=$(grep -ciE '^ok [0-9]* *-?.*# *skip' "$out")
    passed=$((passed + $(grep -c '^ok ' "$out") - sk))
    nf=$(grep -c '^not ok ' "$out")
    # A command that failed without a "not ok" line still counts as one.
    case " $stage_failed " in *" $st "*) [ "$nf" -eq 0 ] && nf=1 ;; esac
    failed=$((failed + nf))
    if [ "$sk" -gt 0 ]; then
        skipped=$((skipped + sk))
        grep -iE '^ok .*# *skip' "$out" | sed "s/^/skipped in $st: /" >>"$skips"
    fi
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

stage "1d. make distcheck: the tarball builds out of tree, installs, uninstalls"
tap_stage 1d scripts/distcheck.sh

stage "1e. the README's command from a checkout in root's home (mode 0700): the copy and make distcheck there"
if [ "${HSC_HOME_TEST:-0}" = 1 ]; then
    tap_stage 1e test/clean/root-home.sh
else
    tap_stage 1e echo "ok 1 # SKIP a clone into /root: set HSC_HOME_TEST=1 (.ci/run does)"
fi

stage "1b. the README's demo while 8080 is taken: start it, log in with curl, stop it"
tap_stage 1b test/demo/demo-port.sh

stage "1c. the Debian package: build, lintian; installed and used where allowed"
tap_stage 1c scripts/package-test.sh

if [ "${HSC_QUICK:-0}" != 1 ]; then
    stage "2. ASan + UBSan build and make check (module inside httpd too)"
    san=$(mktemp -d /tmp/hsc-san.XXXXXX)
    chmod 755 "$san"
    git ls-files -z | xargs -0 tar cf - | tar xf - -C "$san"
    if build "$san" --enable-werror --enable-sanitizers; then
        (cd "$san" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
            UBSAN_OPTIONS=print_stacktrace=1 \
            HSC_MPMS="${HSC_SAN_MPMS:-event}" make -j2 check)
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

    # Stage 5 (a clean Debian: network and a package build, 5 minutes or
    # so) runs in the background beside stages 3 and 4, whose tests do
    # not depend on timing.
    clean_out=$(mktemp)
    test/clean/clean-debian.sh >"$clean_out" 2>&1 &
    clean_pid=$!

    stage "3. unit tests under valgrind memcheck"
    tap_stage 3 test/run-valgrind.sh

    stage "4. libFuzzer targets, ${HSC_FUZZ_SECONDS:-60}s each, ASan + UBSan"
    tap_stage 4 test/fuzz/run-fuzzers.sh "${HSC_FUZZ_SECONDS:-60}"

    stage "5. a clean Debian 12 (debootstrap): the package with only its Build-Depends; install-deps leaves no server enabled or running"
    wait "$clean_pid"
    tap_stage 5 sh -c 'cat "$1"; exit "$2"' sh "$clean_out" "$?"
    rm -f "$clean_out"
fi

echo
if [ -n "$stage_failed" ]; then
    echo "=== what failed"
    cat "$details"
    echo "stages that failed:$stage_failed"
fi
if [ "$skipped" -gt 0 ]; then
    echo "=== skipped (not counted as passed)"
    cat "$skips"
fi
echo "$passed passed, $failed failed"
[ -z "$stage_failed" ] && [ "$failed" -eq 0 ]
