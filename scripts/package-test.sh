#!/bin/sh
# The Debian package, in TAP (scripts/test-all.sh runs it):
#   1. debian/changelog's version is HSC_VERSION;
#   2. dpkg-buildpackage -us -uc -b builds libapache2-mod-hsc_VERSION_ARCH.deb
#      (in a copy of the tree), with the module, hsc.load/hsc.conf, hsc-admin,
#      its manual page and the documentation; lintian finds no error;
#   3. only with CI=true or HSC_PACKAGE_TEST=1, as root: apt-get install the
#      .deb (and apache2, ssl-cert), then an apache2 instance of its own
#      (APACHE_CONFDIR: a copy of /etc/apache2, its pid file and logs in a
#      temporary directory) with a2enmod hsc and the
#      README's site conf/debian-site.conf on a free loopback port:
#      apache2ctl -t, start, a login with curl, the protected page, stop.
#      This installs packages into the system and enables hsc in its
#      /etc/apache2 (what the package's postinst does), so it is not run on a
#      developer's machine unless asked; when not run it says "skipped".
set -u
cd "$(dirname "$0")/.." || exit 1
top=$(pwd)

n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
check() { d=$1; shift; if "$@"; then ok "$d"; else notok "$d"; fi; }
finish() { echo "1..$n"; [ "$fails" -eq 0 ]; exit $?; }

work=$(mktemp -d /tmp/hsc-package.XXXXXX) || exit 1
chmod 755 "$work"
cleanup_cmds=""
trap 'eval "$cleanup_cmds"; rm -rf "$work"' EXIT

version=$(sed -n 's/^#define HSC_VERSION "\(.*\)"$/\1/p' hsc_core/hsc_version.h)
deb_version=$(dpkg-parsechangelog -l debian/changelog -S Version 2>/dev/null)
check "debian/changelog's version ($deb_version) is HSC_VERSION ($version)" \
    test -n "$version" -a "$deb_version" = "$version"

# --- build, in a copy of the tracked and new files (no build outputs) -------
mkdir "$work/src"
if git rev-parse --git-dir >/dev/null 2>&1; then
    git ls-files -z -co --exclude-standard | (umask 022 && xargs -0 tar cf - --) \
        | tar xf - -C "$work/src"
else
    tar cf - --exclude=./debian/libapache2-mod-hsc . | tar xf - -C "$work/src"
fi
# The unit tests already ran in make check: nocheck keeps this short.
(cd "$work/src" && DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b) \
    >"$work/build.log" 2>&1
rc=$?
arch=$(dpkg --print-architecture)
deb="$work/libapache2-mod-hsc_${version}_$arch.deb"
if [ "$rc" -eq 0 ] && [ -f "$deb" ]; then
    ok "dpkg-buildpackage -us -uc -b builds ${deb##*/}"
else
    notok "dpkg-buildpackage -us -uc -b builds ${deb##*/} (exit $rc)"
    tail -n 30 "$work/build.log" | sed 's/^/#   /'
    finish
fi

dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$work/contents"
for f in /usr/lib/apache2/modules/mod_hsc.so \
    /etc/apache2/mods-available/hsc.load /etc/apache2/mods-available/hsc.conf \
    /usr/bin/hsc-admin /usr/share/man/man1/hsc-admin.1.gz \
    /usr/share/doc/libapache2-mod-hsc/copyright \
    /usr/share/doc/libapache2-mod-hsc/README.md.gz \
    /usr/share/doc/libapache2-mod-hsc/README.Debian; do
    check "the package has $f" grep -qx "$f" "$work/contents"
done
# Every user page (docs/*.md, docs/spec/) and every sample configuration
# and fail2ban file of conf/, compressed or not (dh_compress decides).
doc=/usr/share/doc/libapache2-mod-hsc
missing=""
for f in $(cd "$top" && ls docs/*.md docs/spec/*.md) \
    examples/debian-site.conf examples/httpd-hsc-sample.conf \
    examples/private-location.conf examples/password-blocklist.txt \
    examples/fail2ban/filter.d/mod-hsc.conf examples/fail2ban/jail.d/mod-hsc.conf; do
    grep -qxE "$doc/$f(\.gz)?" "$work/contents" || missing="$missing $f"
done
check "the package has every user page and sample file under $doc${missing:+ (missing:$missing)}" \
    test -z "$missing"
# The README's quick start names conf/debian-site.conf: where a package user finds it.
dpkg-deb --fsys-tarfile "$deb" | tar xf - -C "$work" .$doc/README.Debian
check "README.Debian names the packaged debian-site.conf" \
    grep -q "cp $doc/examples/debian-site.conf" "$work$doc/README.Debian"
dpkg-deb --fsys-tarfile "$deb" | tar xf - -C "$work" ./etc/apache2/mods-available/hsc.load
check "its hsc.load loads /usr/lib/apache2/modules/mod_hsc.so" \
    grep -qx 'LoadModule hsc_module /usr/lib/apache2/modules/mod_hsc.so' \
    "$work/etc/apache2/mods-available/hsc.load"
if lintian --fail-on error "$work"/libapache2-mod-hsc_"${version}"_"$arch".changes \
    >"$work/lintian.log" 2>&1; then
    ok "lintian: no error"
else
    notok "lintian: no error"
    grep '^E:' "$work/lintian.log" | sed 's/^/#   /'
fi

# --- install and use it: CI, or when asked -----------------------------------
if [ "${CI:-}" != true ] && [ "${HSC_PACKAGE_TEST:-0}" != 1 ]; then
    skip "installing the .deb and a login through it: installs into this system; set HSC_PACKAGE_TEST=1 (CI=true does)"
    finish
fi
if [ "$(id -u)" != 0 ]; then
    notok "installing the .deb needs root"
    finish
fi

# No service of the system's apache2 starts while packages install.
if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    cleanup_cmds="rm -f /usr/sbin/policy-rc.d;"
fi
# The package's postinst enables hsc in the system's Apache (as Debian's
# module packages do); if it was not enabled before, disable it afterwards.
if [ ! -e /etc/apache2/mods-enabled/hsc.load ]; then
    cleanup_cmds="$cleanup_cmds [ -e /etc/apache2/mods-enabled/hsc.load ] && env -u APACHE_CONFDIR a2dismod -q hsc >/dev/null;"
fi
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q --no-install-recommends "$deb" apache2 ssl-cert curl \
    >"$work/install.log" 2>&1
rc=$?
check "apt-get install ./${deb##*/} apache2 ssl-cert" test "$rc" -eq 0
[ "$rc" -eq 0 ] || { tail -n 20 "$work/install.log" | sed 's/^/#   /'; finish; }
check "hsc-admin --version says $version" \
    test "$(hsc-admin --version)" = "hsc-admin (mod_hsc) $version"
# Built with the PostgreSQL store (Build-Depends libpq-dev, --with-pgsql):
# a pgsql: spec is tried, not refused as unknown to this build.
pgout=$(hsc-admin list "pgsql:host=/nonexistent-hsc connect_timeout=1" 2>&1)
check "the packaged hsc-admin has the PostgreSQL store" \
    sh -c 'printf "%s" "$1" | grep -q "cannot connect"' sh "$pgout"

# The snakeoil certificate the site names (ssl-cert makes it where it can).
if [ ! -f /etc/ssl/certs/ssl-cert-snakeoil.pem ]; then
    make-ssl-cert generate-default-snakeoil >/dev/null 2>&1
fi
check "the snakeoil certificate exists" \
    test -f /etc/ssl/certs/ssl-cert-snakeoil.pem -a -f /etc/ssl/private/ssl-cert-snakeoil.key

# An apache2 instance of its own: a copy of /etc/apache2 whose envvars put
# its pid file, run, lock and log directories in $work, on a free port.
port=$(perl -MIO::Socket::INET -e \
    'print IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1")->sockport')
conf="$work/apache2-hsctest"
cp -a /etc/apache2 "$conf"
rm -f "$conf"/sites-enabled/*
printf 'Listen 127.0.0.1:%s https\n' "$port" >"$conf/ports.conf"
mkdir -p "$work/run" "$work/lock" "$work/log"
cat >>"$conf/envvars" <<VARS
export APACHE_RUN_DIR=$work/run
export APACHE_PID_FILE=$work/run/apache2.pid
export APACHE_LOCK_DIR=$work/lock
export APACHE_LOG_DIR=$work/log
VARS
log="$work/log/error.log"
cleanup_cmds="$cleanup_cmds APACHE_CONFDIR='$conf' apache2ctl stop >/dev/null 2>&1; sleep 1;"
export APACHE_CONFDIR="$conf"
check "a2enmod ssl hsc" a2enmod -q ssl hsc
check "a2enmod hsc enabled socache_shmcb (hsc.load's Depends)" \
    test -e "$conf/mods-enabled/socache_shmcb.load"

# The README's steps, in this instance's places.
mkdir -p "$work/www/private"
printf '<!doctype html><title>private</title><p>Private page\n' \
    >"$work/www/private/index.html"
install -d -o www-data -g www-data -m 0700 "$work/hsc"
hsc-admin keygen "$work/hsc.keys" >/dev/null
check "hsc-admin init as www-data (runuser)" \
    runuser -u www-data -- hsc-admin init "$work/hsc/users.db"
password=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
printf '%s\n' "$password" | runuser -u www-data -- hsc-admin add \
    "$work/hsc/users.db" alice --groups staff --password-stdin
check "hsc-admin add --password-stdin as www-data" test $? -eq 0
sed -e "s|<VirtualHost \*:443>|<VirtualHost 127.0.0.1:$port>|" \
    -e "s|/etc/apache2/hsc.keys|$work/hsc.keys|" \
    -e "s|/var/lib/apache2/hsc/users.db|$work/hsc/users.db|" \
    -e "s|/var/www/html|$work/www|" \
    conf/debian-site.conf >"$conf/sites-available/hsc.conf"
# apache2.conf grants /var/www only; this instance's document root is here.
printf '<Directory "%s/www">\n    Require all granted\n</Directory>\n' "$work" \
    >"$conf/conf-enabled/hsc-test-docroot.conf"
check "a2ensite hsc (conf/debian-site.conf)" a2ensite -q hsc

out=$(apache2ctl -t 2>&1)
rc=$?
check "apache2ctl -t passes" test "$rc" -eq 0
[ "$rc" -eq 0 ] || { echo "$out" | sed 's/^/#   /'; finish; }
# Started by apache2ctl itself: on a systemd machine it would otherwise ask
# systemd to start the system's apache2 service instead.
APACHE_STARTED_BY_SYSTEMD=1 apache2ctl start >"$work/start.log" 2>&1
base="https://127.0.0.1:$port"
up=0
for i in 1 2 3 4 5 6 7 8 9 10; do
    curl -ks -o /dev/null "$base/" && { up=1; break; }
    sleep 0.5
done
check "apache2 with mod_hsc starts on 127.0.0.1:$port" test "$up" = 1

code() { curl -ks -o /dev/null -w '%{http_code}' "$@"; }
check "/private/ without a cookie is sent to the login page" \
    test "$(code "$base/private/" -H 'Accept: text/html')" = 302
check "a wrong password is refused" test "$(code "$base/login" \
    --data-urlencode username=alice --data-urlencode password=wrong)" = 401
jar="$work/jar"
check "the login with curl is accepted" test "$(code -c "$jar" "$base/login" \
    --data-urlencode username=alice --data-urlencode "password=$password")" = 303
check "the cookie is Secure and HttpOnly" grep -q '^#HttpOnly_127.0.0.1.*TRUE' "$jar"
page=$(curl -ks -b "$jar" "$base/private/")
check "the protected page is served with the cookie" \
    sh -c 'printf "%s" "$1" | grep -q "Private page"' sh "$page"
check "the account page shows who is signed in" \
    sh -c 'curl -ks -b "$1" "$2/account" | grep -q "<strong>alice</strong>"' \
    sh "$jar" "$base"
check "the account page refuses a listed password (the built-in list)" \
    test "$(code -b "$jar" "$base/account" -H "Origin: $base" \
        --data-urlencode action=password --data-urlencode "password=$password" \
        --data-urlencode new_password=password --data-urlencode new_password2=password)" = 400
check "the module logged its version (HSC019)" \
    grep -q "HSC019: mod_hsc/$version configured" "$log"
[ "$fails" -eq 0 ] || tail -n 15 "$log" | sed 's/^/#   /'
finish
