#!/bin/sh
# run-fuzzers.sh [SECONDS]: build every fuzz target with clang's libFuzzer,
# AddressSanitizer and UndefinedBehaviorSanitizer, run each for SECONDS
# (default 60) on a copy of its committed corpus, and print per target the
# executions and the coverage libFuzzer reached. Exits non-zero when any
# target crashes, leaks, times out, runs out of memory or cannot be built.
#
# The core sources (hsc_core/*.c) are compiled straight into each target: no
# configure, no libtool. Needs clang with its fuzzer runtime (Debian:
# clang, libclang-rt-14-dev), and the APR, OpenSSL and SQLite headers.
#
# Environment:
#   CLANG              compiler (default: clang, else clang-14)
#   HSC_FUZZ_TARGETS   targets to run (default: all eighteen)
#   HSC_FUZZ_OUT       where logs, crash inputs and the grown corpora go
#                      (default: a temporary directory, kept on failure)
#   HSC_FUZZ_JOBS      libFuzzer -jobs/-workers per target (default 1)
set -eu

secs=${1:-60}
case $secs in
    ''|*[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
targets=${HSC_FUZZ_TARGETS:-"cookie b64 cookie_header form return_url keyfile util cache origin parse pages audit response code link authz json webauthn"}

cc=${CLANG:-}
if [ -z "$cc" ]; then
    for c in clang clang-14; do
        if command -v "$c" >/dev/null 2>&1; then cc=$c; break; fi
    done
fi
if [ -z "$cc" ]; then
    echo "run-fuzzers: clang not found (Debian: apt-get install clang libclang-rt-14-dev)" >&2
    exit 1
fi

if [ -n "${HSC_FUZZ_OUT:-}" ]; then
    out=$HSC_FUZZ_OUT
    mkdir -p "$out"
    keep=1
else
    out=$(mktemp -d "${TMPDIR:-/tmp}/hsc-fuzz.XXXXXX")
    keep=0
fi
failed=0
cleanup() {
    if [ "$keep" = 0 ] && [ "$failed" = 0 ]; then
        rm -rf "$out"
    else
        echo "run-fuzzers: logs, crash inputs and corpora kept in $out" >&2
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

deps="apr-1 apr-util-1 libcrypto sqlite3 libqrencode"
# The PostgreSQL store is built as configure builds it: with libpq when
# pkg-config finds it, left out otherwise.
pgdef=""
if pkg-config --exists libpq; then
    deps="$deps libpq"
    pgdef="-DHSC_HAVE_PGSQL=1"
fi
if ! pkgflags=$(pkg-config --cflags $deps) || ! pkglibs=$(pkg-config --libs $deps); then
    echo "run-fuzzers: pkg-config cannot find $deps" >&2
    failed=1
    exit 1
fi

# -fno-sanitize-recover: a UBSan report must stop the run, or libFuzzer
# never sees it. -O1 keeps the sanitizers' reports readable.
san="-fsanitize=address,undefined -fno-sanitize-recover=all"
cflags="-g -O1 -fno-omit-frame-pointer -pthread $san"
inc="-I$top/hsc_core -I$here $pkgflags $pgdef"

echo "# run-fuzzers: $($cc --version | head -n 1); $secs s per target"

# The core, once, instrumented for coverage but without libFuzzer's main.
mkdir -p "$out/obj"
objs=""
for src in "$top"/hsc_core/*.c; do
    if [ -z "$pgdef" ] && [ "$(basename "$src")" = hsc_store_pgsql.c ]; then
        continue
    fi
    o="$out/obj/$(basename "$src" .c).o"
    if ! $cc $cflags -fsanitize=fuzzer-no-link $inc -c "$src" -o "$o" \
        2>"$o.log"; then
        echo "run-fuzzers: cannot compile $src:" >&2
        cat "$o.log" >&2
        failed=1
        exit 1
    fi
    objs="$objs $o"
done

# TAP, one line per target (CI counts them), then the table as comments.
# Targets run HSC_FUZZ_PARALLEL at a time (default 2, the machine's cores),
# each writing its TAP line, row and report to files printed in order.
set -- $targets
echo "1..$#"
par=${HSC_FUZZ_PARALLEL:-2}
row() { # target runs speed cov ft corpus result
    printf '# %-14s %10s %8s %7s %7s %7s  %s\n' "$@" >"$out/$1.row"
}
# one_target N TARGET: build and run it; its TAP in $out/TARGET.tap.
one_target()
{
    n=$1
    t=$2
    src="$here/fuzz_$t.c"
    bin="$out/fuzz_$t"
    log="$out/$t.log"
    if [ ! -f "$src" ]; then
        echo "not ok $n - fuzz_$t: no such target"
        touch "$out/$t.failed"
        return
    fi
    if ! $cc $cflags -fsanitize=fuzzer $inc "$src" $objs $pkglibs \
        -o "$bin" 2>"$out/$t.build.log"; then
        echo "not ok $n - fuzz_$t: build failed"
        row "$t" - - - - - "BUILD FAILED"
        sed 's/^/# /' "$out/$t.build.log"
        touch "$out/$t.failed"
        return
    fi
    rm -rf "$out/corpus-$t"
    mkdir -p "$out/corpus-$t"
    cp "$here/corpus/$t"/* "$out/corpus-$t/"
    dict=""
    if [ -f "$here/$t.dict" ]; then
        dict="-dict=$here/$t.dict"
    fi
    rc=0
    "$bin" -max_total_time="$secs" -timeout=5 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$out/$t-" $dict \
        ${HSC_FUZZ_JOBS:+-jobs=$HSC_FUZZ_JOBS -workers=$HSC_FUZZ_JOBS} \
        "$out/corpus-$t" >"$log" 2>&1 || rc=$?

    # "#123456 DONE cov: 321 ft: 654 corp: 98/2Kb ..." is the last
    # status line; final stats give the exact count and speed.
    last=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" \
        | tail -n 1 || true)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    cov=$(printf '%s\n' "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
    ft=$(printf '%s\n' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
    corp=$(printf '%s\n' "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
    if [ "$rc" = 0 ] && ! grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|property violated' "$log"; then
        result=ok
    else
        result="FAILED (exit $rc)"
        touch "$out/$t.failed"
    fi
    row "$t" "${runs:--}" "${speed:--}" "${cov:--}" "${ft:--}" "${corp:--}" \
        "$result"
    if [ "$result" = ok ]; then
        echo "ok $n - fuzz_$t: ${runs:-?} runs in ${secs}s, cov ${cov:-?}," \
             "ft ${ft:-?}"
    else
        echo "not ok $n - fuzz_$t: $result after ${runs:-?} runs"
        # The report: its first line and the stack, not the shadow map.
        echo "# ---- from $log"
        pat='ERROR: |runtime error:|property violated'
        if grep -qE "$pat" "$log"; then
            grep -m 1 -A 30 -E "$pat" "$log" | sed 's/^/# /'
        else
            tail -n 30 "$log" | sed 's/^/# /'
        fi
        ls "$out/$t-"* 2>/dev/null | sed 's/^/# crash input: /' || true
    fi
}
n=0
for t in $targets; do
    n=$((n + 1))
    one_target "$n" "$t" >"$out/$t.tap" 2>&1 &
    if [ $((n % par)) -eq 0 ]; then wait; fi
done
wait
printf '# %-14s %10s %8s %7s %7s %7s  %s\n' target runs exec/s cov ft corpus \
    result
for t in $targets; do
    cat "$out/$t.tap"
    if [ -f "$out/$t.row" ]; then cat "$out/$t.row"; fi
    if [ -f "$out/$t.failed" ]; then failed=1; fi
done

if [ "$failed" != 0 ]; then
    echo "run-fuzzers: FAILED" >&2
    exit 1
fi
echo "# run-fuzzers: all targets ran $secs s without a finding"
