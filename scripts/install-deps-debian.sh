#!/bin/sh
# Installs what mod_hsc needs on Debian 12, from Debian's archive only. Safe
# to run again: nothing happens when every package is there.
#   scripts/install-deps-debian.sh --build  building and `make install` (default;
#                                         what a server needs)
#   scripts/install-deps-debian.sh --demo   that, and curl (scripts/demo.sh)
#   scripts/install-deps-debian.sh --test   that, and every test's toolchain
#   scripts/install-deps-debian.sh --bench  that, and what bench/ compares
#   scripts/install-deps-debian.sh --list SET   prints SET's packages
#   scripts/install-deps-debian.sh --packages "P1 P2"  those, the same way
#                                         (test/install/services.sh)
# It never enables a module in the system's Apache, and it leaves no new
# service enabled or running: --test brings servers (nginx, Caddy, HAProxy,
# PostgreSQL, memcached, fail2ban) whose packages would start them, and
# start them at every boot, while the tests start their own instances on
# their own ports. Their services are held back while packages install (a
# policy-rc.d that refuses every start), and every unit or init script link
# the install made is disabled again; what was enabled before stays so.
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
# system's service); debootstrap for the tests that need a
# clean Debian of their own (the package built with only its Build-Depends,
# this script's services test); python3-cryptography for the passkey tests' software
# authenticator and independent relying party (test/lib/hsc_soft_authn.py:
# it signs what Chromium's virtual authenticator cannot be made to get
# wrong, and re-verifies assertions the module accepted with other code;
# its CBOR is its own, so no python3-cbor2).
TEST="libapache2-mod-perl2 sqlite3 curl clang libclang-rt-14-dev clang-format
      valgrind git
      ssl-cert dpkg-dev debhelper fakeroot lintian
      chromium chromium-driver python3-selenium postgresql memcached
      fail2ban python3-prometheus-client apache2-utils oathtool zbar-tools
      python3-cryptography debootstrap
      nginx caddy haproxy"
# Benchmarks only: the load generator and the two modules we compare with.
BENCH="wrk libapache2-mod-auth-tkt libaprutil1-dbd-sqlite3"

list=0
if [ "${1:-}" = --list ]; then
    list=1
    shift
fi
case "${1:---build}" in
--build) PKGS="$BUILD" ;;
--demo) PKGS="$BUILD curl" ;;
--test) PKGS="$BUILD $TEST" ;;
--bench) PKGS="$BUILD $TEST $BENCH" ;;
--packages) PKGS="${2:-}" ;;
*)
    echo "usage: $0 [--list] [--build | --demo | --test | --bench | --packages \"P...\"]" >&2
    exit 2
    ;;
esac
if [ "$list" = 1 ]; then
    printf '%s\n' $PKGS
    exit 0
fi

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

# links: every service link (systemd's *.wants, the init scripts' rc?.d).
links() {
    find /etc/systemd/system /etc/rc0.d /etc/rc1.d /etc/rc2.d /etc/rc3.d \
        /etc/rc4.d /etc/rc5.d /etc/rc6.d /etc/rcS.d -type l 2>/dev/null \
        | LC_ALL=C sort
}
links_before=$(mktemp)
links >"$links_before"
# No service starts while packages install: invoke-rc.d and
# deb-systemd-invoke ask policy-rc.d, and 101 is "action forbidden". A
# policy-rc.d of the system's own is put back afterwards.
policy=/usr/sbin/policy-rc.d
saved=""
if [ -e "$policy" ] || [ -L "$policy" ]; then
    saved="$policy.hsc-install-deps"
    mv "$policy" "$saved"
fi
restore_policy() {
    rm -f "$policy"
    if [ -n "$saved" ]; then mv "$saved" "$policy"; fi
    rm -f "$links_before" "$links_before.new"
}
trap 'restore_policy' EXIT
trap 'exit 1' INT TERM
printf '#!/bin/sh\n# scripts/install-deps-debian.sh: no service starts while it installs\nexit 101\n' >"$policy"
chmod 755 "$policy"

export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends $missing

# What the install enabled is disabled again: systemd's units (systemctl
# works without a running systemd; deb-systemd-helper also where there is
# no systemctl) and the init scripts' start links. Any that runs is stopped.
running_systemd=0
[ -d /run/systemd/system ] && running_systemd=1
links | LC_ALL=C comm -13 "$links_before" - >"$links_before.new"
units=$(sed -n 's|^/etc/systemd/system/[^/]*\.wants/||p' "$links_before.new" | LC_ALL=C sort -u)
inits=$(sed -n 's|^/etc/rc[0-6S]\.d/S[0-9][0-9]||p' "$links_before.new" | LC_ALL=C sort -u)
for u in $units; do
    echo "install-deps: disabling $u, which its package enabled (the tests start their own)"
    if command -v systemctl >/dev/null 2>&1; then
        [ "$running_systemd" = 0 ] || systemctl stop "$u" 2>/dev/null || true
        systemctl disable --quiet "$u" 2>/dev/null || true
    fi
    deb-systemd-helper disable "$u" >/dev/null 2>&1 || true
done
for n in $inits; do
    ls /etc/rc[0-6S].d/S[0-9][0-9]"$n" >/dev/null 2>&1 || continue
    echo "install-deps: disabling the init script $n, which its package enabled"
    [ "$running_systemd" = 1 ] || "/etc/init.d/$n" stop >/dev/null 2>&1 || true
    update-rc.d "$n" disable >/dev/null 2>&1 || true
done

if command -v a2dismod >/dev/null 2>&1; then
    for m in perl auth_tkt; do
        if [ -e "/etc/apache2/mods-enabled/$m.load" ] \
            && ! printf '%s\n' "$enabled_before" | grep -qx "$m.load"; then
            echo "install-deps: disabling mod_$m, which its package enabled in the system Apache"
            a2dismod -q "$m"
        fi
    done
fi
