#!/bin/sh
# test/clean/clean-debian.sh: what a fresh Debian 12 sees, in a debootstrap
# minbase chroot of bookworm made for this run (nothing cached between runs),
# in TAP:
#   1. the Debian package builds there from a clean copy of the tree with
#      only what docs/dev/packaging.md says to install first: dpkg-dev, then
#      `apt-get build-dep ./` (its Build-Depends); dh_auto_test's unit tests
#      run (no nocheck), so a tool they call that Build-Depends lacks fails;
#   2. scripts/install-deps-debian.sh, installing the servers of --test
#      (nginx, Caddy, HAProxy, PostgreSQL, memcached, fail2ban) into a
#      system with systemd, leaves none of them enabled (systemctl
#      is-enabled, *.wants and rc?.d start links) or running (no process
#      in the chroot), leaves no policy-rc.d behind, and keeps enabled what
#      was enabled before (cron).
# As root, with the Debian mirror reachable (HSC_DEBIAN_MIRROR, default
# http://deb.debian.org/debian); needs debootstrap. Not root: skipped.
# scripts/test-all.sh runs it in the background beside stage 2.
set -u
cd "$(dirname "$0")/../.." || exit 1
top=$(pwd)
mirror=${HSC_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# The servers --test installs (install-deps-debian.sh --list --test).
servers="nginx caddy haproxy postgresql memcached fail2ban"

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
check() { d=$1; shift; if "$@"; then ok "$d"; else notok "$d"; fi; }
finish() { echo "1..$n"; [ "$fails" -eq 0 ]; exit $?; }
logtail() { tail -n "${2:-25}" "$1" | sed 's/^/#   /'; }

if [ "$(id -u)" != 0 ] || ! command -v debootstrap >/dev/null 2>&1; then
    skip "a clean Debian in a chroot: needs root and debootstrap"
    finish
fi

W=$(mktemp -d /tmp/hsc-clean.XXXXXX) || exit 1
R="$W/root"
# in_root PID: the process runs in the chroot.
in_root() { [ "$(readlink "/proc/$1/root" 2>/dev/null)" = "$R" ]; }
root_pids() {
    for p in /proc/[0-9]*; do
        in_root "${p#/proc/}" && echo "${p#/proc/}"
    done
}
cleanup() {
    for p in $(root_pids); do kill -9 "$p" 2>/dev/null; done
    umount "$R/proc" 2>/dev/null
    rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
t0=$(date +%s)
inroot() { chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"; }

if ! debootstrap --variant=minbase bookworm "$R" "$mirror" >"$W/debootstrap.log" 2>&1; then
    notok "debootstrap --variant=minbase bookworm"
    logtail "$W/debootstrap.log"
    finish
fi
ok "debootstrap --variant=minbase bookworm ($(($(date +%s) - t0)) s)"
mount -t proc proc "$R/proc"
cp /etc/resolv.conf "$R/etc/resolv.conf" 2>/dev/null
echo "deb $mirror bookworm-updates main" >>"$R/etc/apt/sources.list"

# --- 1. the package, with only dpkg-dev and its Build-Depends --------------
t1=$(date +%s)
mkdir -p "$R/build/src"
if git rev-parse --git-dir >/dev/null 2>&1; then
    git ls-files -z -co --exclude-standard | (umask 022 && xargs -0 tar cf - --) \
        | tar xf - -C "$R/build/src"
else
    echo "not a git checkout: the clean copy needs git's list of files" >&2
    notok "a clean copy of the tree"
    finish
fi
if inroot sh -c 'apt-get update -q && apt-get install -y -q --no-install-recommends dpkg-dev \
        && cd /build/src && apt-get build-dep -y -q ./' >"$W/deps.log" 2>&1; then
    ok "dpkg-dev and apt-get build-dep ./ install ($(($(date +%s) - t1)) s)"
else
    notok "dpkg-dev and apt-get build-dep ./ install"
    logtail "$W/deps.log"
    finish
fi
t1=$(date +%s)
version=$(sed -n 's/^#define HSC_VERSION "\(.*\)"$/\1/p' hsc_core/hsc_version.h)
inroot sh -c 'cd /build/src && dpkg-buildpackage -us -uc -b' >"$W/build.log" 2>&1
rc=$?
deb=$(ls "$R"/build/libapache2-mod-hsc_"$version"_*.deb 2>/dev/null | head -n 1)
if [ "$rc" -eq 0 ] && [ -n "$deb" ]; then
    ok "dpkg-buildpackage -us -uc -b with its unit tests builds ${deb##*/} ($(($(date +%s) - t1)) s)"
else
    notok "dpkg-buildpackage -us -uc -b with its unit tests (exit $rc)"
    grep -E '^(not ok|FAIL|ERROR|# (FAIL|ERROR):)' "$W/build.log" | head -n 20 | sed 's/^/#   /'
    logtail "$W/build.log" 15
fi
check "its unit tests ran (dh_auto_test)" grep -q '^# PASS: *[1-9]' "$W/build.log"

# --- 2. install-deps leaves no server enabled or running -------------------
# A real server has systemd, and services enabled before that stay so: cron.
t1=$(date +%s)
printf '#!/bin/sh\nexit 101\n' >"$R/usr/sbin/policy-rc.d"
chmod 755 "$R/usr/sbin/policy-rc.d"
inroot apt-get install -y -q --no-install-recommends systemd cron >"$W/base.log" 2>&1 \
    || { notok "systemd and cron install"; logtail "$W/base.log"; finish; }
rm -f "$R/usr/sbin/policy-rc.d"
cp scripts/install-deps-debian.sh "$R/install-deps-debian.sh"
if inroot sh /install-deps-debian.sh --packages "$servers" >"$W/install.log" 2>&1; then
    ok "install-deps-debian.sh installs $servers ($(($(date +%s) - t1)) s)"
else
    notok "install-deps-debian.sh installs $servers"
    logtail "$W/install.log"
fi
sleep 1
for s in $servers; do
    state=$(inroot systemctl is-enabled "$s.service" 2>/dev/null)
    check "$s.service is not enabled (is-enabled: ${state:-nothing})" \
        test "$state" != enabled
    wants=$(ls "$R"/etc/systemd/system/*.wants/"$s".service 2>/dev/null | head -n 1)
    check "no systemd link wants $s${wants:+: ${wants#$R}}" test -z "$wants"
    starts=$(ls "$R"/etc/rc[2-5S].d/S[0-9][0-9]"$s" 2>/dev/null | head -n 1)
    check "no rc?.d link starts $s${starts:+: ${starts#$R}}" test -z "$starts"
done
check "cron, enabled before, still is" \
    test "$(inroot systemctl is-enabled cron.service 2>/dev/null)" = enabled
running=""
for p in $(root_pids); do
    running="$running $(cat "/proc/$p/comm" 2>/dev/null)"
done
check "no process runs in the fresh system${running:+:$running}" test -z "$running"
check "no policy-rc.d is left behind" test ! -e "$R/usr/sbin/policy-rc.d"
echo "# the whole run: $(($(date +%s) - t0)) s"
finish
