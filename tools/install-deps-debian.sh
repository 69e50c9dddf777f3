#!/bin/sh
# Installs what building and testing mod_hsc needs on Debian 12, from Debian's
# archive only. Safe to run again: apt-get skips what is already there.
#   tools/install-deps-debian.sh          build + every test
#   tools/install-deps-debian.sh --bench  also what bench/httpd-bench.sh compares
set -eu

# Build: httpd (apache2-bin is the server and its modules, without the
# Debian service that would start on port 80), its headers and apxs, APR,
# OpenSSL 3, SQLite 3, autotools.
BUILD="build-essential pkg-config autoconf automake libtool
       apache2-bin apache2-dev libapr1-dev libaprutil1-dev libssl-dev
       libsqlite3-dev sqlite3"
# Tests: Apache::Test (with LWP) ships in libapache2-mod-perl2; curl for the
# demo and smoke checks; clang + its runtime for libFuzzer and sanitizers;
# valgrind for one memcheck pass of the unit tests; git, whose list of
# tracked files makes the sanitizer build's copy of the tree; fail2ban,
# whose fail2ban-regex runs the shipped filter over the audit log
# (t/17_audit.t); python3-prometheus-client, whose text parser reads the
# metrics page (t/18_metrics.t); apache2-utils for rotatelogs (a piped
# audit log in t/17_audit.t).
TEST="libapache2-mod-perl2 curl clang libclang-rt-14-dev valgrind git
      fail2ban python3-prometheus-client apache2-utils"
# Benchmarks only: the load generator and the two modules we compare with.
BENCH="wrk libapache2-mod-auth-tkt libaprutil1-dbd-sqlite3"

PKGS="$BUILD $TEST"
[ "${1:-}" = "--bench" ] && PKGS="$PKGS $BENCH"

# Nothing to do when every package is installed (no root needed then).
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" \
        || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
    echo "install-deps: missing packages:$missing (run as root, e.g. with sudo)" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# The package's own apache2 service is never used: tests start their own.
apt-get install -y -q --no-install-recommends $missing
