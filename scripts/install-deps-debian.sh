#!/bin/sh
# Installs what mod_hsc needs on Debian 12, from Debian's archive only. Safe
# to run again: nothing happens when every package is there.
#   scripts/install-deps-debian.sh --build  building and `make install` (default;
#                                         what a server needs)
#   scripts/install-deps-debian.sh --test   that, and every test's toolchain
#   scripts/install-deps-debian.sh --bench  that, and what bench/ compares
# It never enables a module in the system's Apache.
set -eu

# Build and install: httpd's headers and apxs, APR, OpenSSL 3, SQLite 3,
# libpq (the PostgreSQL user store), libqrencode (the QR code of TOTP
# enrolment), autotools. apache2-bin is the server
# binary and its modules without the Debian service; a server installs `apache2` itself (README, Quick start).
BUILD="build-essential pkg-config autoconf automake libtool
       apache2-bin apache2-dev libapr1-dev libaprutil1-dev libssl-dev
       libsqlite3-dev libpq-dev libqrencode-dev"
# Tests: Apache::Test (with LWP) ships in libapache2-mod-perl2; sqlite3 and
# curl for the shell tests and the demo's smoke test; clang + its runtime for
# libFuzzer and sanitizers; clang-format, which test/checks/format.sh runs
# over the C files; valgrind for a memcheck pass of the unit tests;
# git, whose list of tracked files makes the sanitizer build's copy of the
# tree; ssl-cert for the snakeoil certificate the sample TLS site names;
# debhelper, fakeroot and lintian to build and check the Debian package;
# Chromium, its driver and Selenium for the browser test of the pages
# (test/browser/); postgresql and memcached for the PostgreSQL store's
# tests and the two-node test (each starts its own server in a temporary
# directory, never the system's service); fail2ban, whose fail2ban-regex
# runs the shipped filter over the audit log (t/17_audit.t);
# python3-prometheus-client, whose text parser reads the metrics page
# (t/18_metrics.t); apache2-utils for rotatelogs (a piped audit log);
# oathtool, an independent RFC 6238 implementation the TOTP code is checked
# against (test/unit/test_totp.c); zbar-tools, whose zbarimg reads the
# account page's QR code from the browser test's screenshot, as a phone
# would; nginx, caddy and haproxy, the proxies t/36_authz.t puts in front
# of hsc-authz (each started by the test on its own port, never the
# system's service); python3-cryptography for the passkey tests' software
# authenticator and independent relying party (test/lib/hsc_soft_authn.py:
# it signs what Chromium's virtual authenticator cannot be made to get
# wrong, and re-verifies assertions the module accepted with other code;
# its CBOR is its own, so no python3-cbor2).
TEST="libapache2-mod-perl2 sqlite3 curl clang libclang-rt-14-dev clang-format
      valgrind git
      ssl-cert dpkg-dev debhelper fakeroot lintian
      chromium chromium-driver python3-selenium postgresql memcached
      fail2ban python3-prometheus-client apache2-utils oathtool zbar-tools
      python3-cryptography
      nginx caddy haproxy"
# Benchmarks only: the load generator and the two modules we compare with.
BENCH="wrk libapache2-mod-auth-tkt libaprutil1-dbd-sqlite3"

case "${1:---build}" in
--build) PKGS="$BUILD" ;;
--test) PKGS="$BUILD $TEST" ;;
--bench) PKGS="$BUILD $TEST $BENCH" ;;
*)
    echo "usage: $0 [--build | --test | --bench]" >&2
    exit 2
    ;;
esac

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

# Module packages enable themselves in an installed apache2 (perl, auth_tkt):
# note what is enabled now, and disable afterwards what this install enabled.
enabled_before=$(ls /etc/apache2/mods-enabled 2>/dev/null || true)

export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends $missing

if command -v a2dismod >/dev/null 2>&1; then
    for m in perl auth_tkt; do
        if [ -e "/etc/apache2/mods-enabled/$m.load" ] \
            && ! printf '%s\n' "$enabled_before" | grep -qx "$m.load"; then
            echo "install-deps: disabling mod_$m, which its package enabled in the system Apache"
            a2dismod -q "$m"
        fi
    done
fi
