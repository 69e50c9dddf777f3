# `httpd -t` on small generated configurations: a missing, unreadable or
# invalid key file or user database, and every cross-field rule, fail the
# configuration with a message naming the directive; a good one passes.
# Also: the key file mode warning reaches the running server's log.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use File::Temp qw(tempdir);
use HSCTest;

my $httpd = Apache::Test::vars('httpd');
my $modules = Apache::Test::vars('httpd_conf');
my $module = $ENV{HSC_MODULE} || "$FindBin::Bin/../.libs/mod_hsc.so";
my $var = var_dir();
my $dir = tempdir(CLEANUP => 1);
chmod 0755, $dir;

# Files that are wrong in one way each.
spew("$dir/badkeys", "k1 tooshort\n");
spew("$dir/notadb", "this is not a database\n");
spew("$dir/emptykeys", "# no key here\n");

my $ok = <<"EOT";
HSCKeyFile "$var/keys"
HSCUserDB "$var/users.db"
<Location /p>
    AuthType HSC
    Require valid-user
</Location>
EOT

# (what, configuration, expected output or undef for "Syntax OK")
my @cases = (
    ['a good configuration', $ok, undef],
    # One duration grammar for every directive: 1m works for the
    # pool's durations as 30m does for HSCIdleTimeout.
    ['minutes for the pool durations', $ok . "HSCUserDBTimeout 1m\nHSCUserDBPoolWait 1m\nHSCUserDBMaxStale 1m\nHSCIdleTimeout 1m\n", undef],
    ['a missing key file', <<"EOT", qr{HSCKeyFile: .*\Q$dir\E/nokeys}],
HSCKeyFile "$dir/nokeys"
HSCUserDB "$var/users.db"
EOT
    ['a key file with a short secret', <<"EOT", qr{HSCKeyFile: .*badkeys}],
HSCKeyFile "$dir/badkeys"
HSCUserDB "$var/users.db"
EOT
    ['a key file without keys', <<"EOT", qr{HSCKeyFile: .*emptykeys}],
HSCKeyFile "$dir/emptykeys"
HSCUserDB "$var/users.db"
EOT
    ['a missing user database', <<"EOT", qr{HSCUserDB: cannot open user database \Q$dir\E/nodb}],
HSCKeyFile "$var/keys"
HSCUserDB "$dir/nodb"
EOT
    ['a file that is not a user database', <<"EOT", qr{HSCUserDB: cannot open user database .*notadb}],
HSCKeyFile "$var/keys"
HSCUserDB "$dir/notadb"
EOT
    ['AuthType HSC without HSCKeyFile', <<"EOT", qr{HSC002: AuthType HSC at .* HSCKeyFile is not set}],
HSCUserDB "$var/users.db"
<Location /p>
    AuthType HSC
    Require valid-user
</Location>
EOT
    ['AuthType HSC without HSCUserDB', <<"EOT", qr{HSC002: AuthType HSC at .* HSCUserDB is not set}],
HSCKeyFile "$var/keys"
<Location /p>
    AuthType HSC
    Require valid-user
</Location>
EOT
    ['a __Host- cookie without Secure', $ok . <<"EOT", qr{HSC001: a __Host- cookie needs HSCCookieSecure On}],
<Location /q>
    HSCCookieName __Host-x
    HSCCookieSecure Off
</Location>
EOT
    ['a __Host- cookie with a Domain', $ok . <<"EOT", qr{HSC001: a __Host- cookie needs}],
<Location /q>
    HSCCookieName __Host-x
    HSCCookieDomain example.test
</Location>
EOT
    ['a __Host- cookie with a Path', $ok . <<"EOT", qr{HSC001: a __Host- cookie needs}],
HSCCookieName __Host-x
HSCCookiePath /app
EOT
    ['a __Host- cookie where the server turned Secure off', $ok . <<"EOT", qr{HSC001: a __Host- cookie needs .*in a Location section of the main server}],
HSCCookieSecure Off
<Location /q>
    HSCCookieName __Host-x
</Location>
EOT
    ['a __Host- cookie in a virtual host', $ok . <<"EOT", qr{HSC007: a __Host- cookie needs .*in the server context of the virtual host at .*case\d+\.conf:\d+}],
<VirtualHost 127.0.0.1:1>
    HSCCookieName __Host-x
    HSCCookieSecure Off
</VirtualHost>
EOT
    ['SameSite None without Secure', $ok . <<"EOT", qr{HSC001: HSCCookieSameSite None needs HSCCookieSecure On}],
<Directory /tmp>
    HSCCookieSameSite None
    HSCCookieSecure Off
</Directory>
EOT
    ['a bad duration', $ok . "HSCIdleTimeout 10x\n", qr{HSCIdleTimeout: '10x' is not a duration}],
    ['a zero max age', $ok . "HSCMaxAge 0\n", qr{HSCMaxAge: '0' is not a duration}],
    ['an overflowing duration', $ok . "HSCMaxAge 99999999999999999999d\n", qr{HSCMaxAge: .* is not a duration}],
    ['a bad SameSite', $ok . "HSCCookieSameSite Sometimes\n", qr{HSCCookieSameSite: must be Strict, Lax or None}],
    ['a bad HSCUnauthenticated', $ok . "HSCUnauthenticated maybe\n", qr{HSCUnauthenticated: must be auto, redirect or 401}],
    ['a bad cookie name', $ok . "HSCCookieName \"a b\"\n", qr{HSCCookieName: 'a b' is not a valid cookie name}],
    ['a bad cookie path', $ok . "HSCCookiePath app\n", qr{HSCCookiePath: the path must start with '/'}],
    ['a scope with a control character', $ok . "HSCScope \"a\x01b\"\n", qr{HSCScope: only printable ASCII}],
    ['a bad group name', $ok . "<Location /g>\nAuthType HSC\nRequire hsc-group \"a,b\"\n</Location>\n", qr{Require hsc-group: 'a,b' is not a valid group name}],
    ['HSCKeyFile inside a Location', $ok . "<Location /k>\nHSCKeyFile \"$var/keys\"\n</Location>\n", qr{HSCKeyFile .*not allowed}],
);

# Login throttling (t/16_throttle.t): bad values stop the configuration.
push @cases,
    ['a throttle count that is not a number', $ok . "HSCThrottleAddress lots\n", qr{HSCThrottleAddress: 'lots' is not a count}],
    ['a negative throttle count', $ok . "HSCThrottleUser -1\n", qr{HSCThrottleUser: '-1' is not a count}],
    ['a throttle count over the maximum', $ok . "HSCThrottleUser 1000001\n", qr{HSCThrottleUser: '1000001' is not a count}],
    ['a zero throttle window', $ok . "HSCThrottleWindow 0\n", qr{HSCThrottleWindow: '0' is not a duration}],
    ['a bad KDF cap', $ok . "HSCMaxLoginKDF 2x\n", qr{HSCMaxLoginKDF: '2x' is not a count}],
    ['a dummy KDF that is not a KDF', $ok . "HSCDummyKDF md5:1\n", qr{HSCDummyKDF: 'md5:1' is not a KDF}],
    ['a dummy KDF above the ceilings', $ok . "HSCDummyKDF sha256-chain:20000001\n", qr{HSCDummyKDF: 'sha256-chain:20000001' is above the KDF ceilings}],
    ['a pgsql: conninfo that does not parse', $ok . "HSCUserDB \"pgsql:host='x\"\n", qr{HSCUserDB: (invalid conninfo: unterminated|this mod_hsc was built without the PostgreSQL store)}],
    ['HSCUserDBPoolSize 0', $ok . "HSCUserDBPoolSize 0\n", qr{HSCUserDBPoolSize: '0' is not a number of connections from 1 to 64}],
    ['HSCUserDBMaxStale in words', $ok . "HSCUserDBMaxStale soon\n", qr{HSCUserDBMaxStale: 'soon' is not a duration}],
    ['HSCUserDBPoolWait in a virtual host', $ok . "<VirtualHost 127.0.0.1:1>\nHSCUserDBPoolWait 1s\n</VirtualHost>\n", qr{HSCUserDBPoolWait cannot occur within <VirtualHost> section}],
    ['an unknown throttle cache', $ok . "HSCThrottleCache nosuch\n", qr{HSCThrottleCache: the socache provider 'nosuch' is not loaded}],
    ['bad shmcb arguments', $ok . "HSCThrottleCache shmcb:x(12)\n", qr{HSCThrottleCache: shmcb: .*size}],
    ['memcache-exact without servers', $ok . "HSCThrottleCache memcache-exact:\n", qr{HSCThrottleCache: memcache-exact: name the memcached servers}],
    ['memcache-exact with a bad port', $ok . "HSCThrottleCache memcache-exact:127.0.0.1:99999\n", qr{HSCThrottleCache: memcache-exact: '127.0.0.1:99999' is not host\[:port\]}],
    ['memcache-exact on IPv6', $ok . "HSCThrottleCache memcache-exact:[::1]:11211\n", undef],
    ['memcache-exact with two servers', $ok . "HSCThrottleCache memcache-exact:127.0.0.1:11211,cache.example.net\n", undef],
    ['HSCThrottleCache in a virtual host', $ok . "<VirtualHost 127.0.0.1:1>\nHSCThrottleCache none\n</VirtualHost>\n", qr{HSCThrottleCache cannot occur within <VirtualHost> section}],
    ['HSCThrottleUser inside a Location', $ok . "<Location /t>\nHSCThrottleUser 3\n</Location>\n", qr{HSCThrottleUser .*not allowed}],
    ['throttling set in a virtual host, no cache', $ok . <<"EOT", undef];
HSCThrottleCache none
HSCMaxLoginKDF 0
<VirtualHost 127.0.0.1:1>
    HSCThrottleAddress 0
    HSCThrottleUser 5
    HSCThrottleWindow 90s
    HSCMaxLoginKDF 4
</VirtualHost>
EOT

# The validated record cache (HSCUserDBCache): main server only, a flag.
push @cases,
    ['HSCUserDBCache Off', $ok . "HSCUserDBCache Off\n", undef],
    ['HSCUserDBCache not a flag', $ok . "HSCUserDBCache sometimes\n", qr{HSCUserDBCache must be On or Off}],
    ['HSCUserDBCache in a virtual host', $ok . "<VirtualHost 127.0.0.1:1>\nHSCUserDBCache Off\n</VirtualHost>\n", qr{HSCUserDBCache cannot occur within <VirtualHost> section}];

# The pages' directives (docs/login-page.md).
push @cases,
    ['the pages directives', $ok . qq{HSCSiteName "Example & Co"\nHSCLoginStylesheet https://cdn.example/s.css\nHSCLoginFailureURL /signin?x=1\n}, undef],
    ['HSCLoginStylesheet scheme-relative', $ok . "HSCLoginStylesheet //evil.example/s.css\n", qr{HSCLoginStylesheet: '//evil.example/s.css' must be a local path}],
    ['HSCLoginStylesheet with a quote', $ok . qq{HSCLoginStylesheet "/s.css'"\n}, qr{HSCLoginStylesheet: .* must be a local path}],
    ['HSCSiteName with a control character', $ok . "HSCSiteName \"a\tb\"\n", qr{HSCSiteName: no control characters}],
    ['HSCLoginFailureURL with a space', $ok . qq{HSCLoginFailureURL "/a b"\n}, qr{HSCLoginFailureURL: the URL must be non-empty}];
# The shared record cache's size: records, 0 (off) to 16 Mi, main server only.
push @cases,
    ['HSCUserCacheSize 500000', $ok . "HSCUserCacheSize 500000\n", undef],
    ['HSCUserCacheSize 0', $ok . "HSCUserCacheSize 0\n", undef],
    ['HSCUserCacheSize not a number', $ok . "HSCUserCacheSize 10k\n", qr{HSCUserCacheSize: '10k' is not a number of records}],
    ['HSCUserCacheSize too large', $ok . "HSCUserCacheSize 16777217\n", qr{HSCUserCacheSize: '16777217' is not a number of records}],
    ['HSCUserCacheSize in a virtual host', $ok . "<VirtualHost 127.0.0.1:1>\nHSCUserCacheSize 10\n</VirtualHost>\n", qr{HSCUserCacheSize cannot occur within <VirtualHost> section}];
# The audit log (t/17_audit.t): main server only, a file or a program.
push @cases,
    ['HSCAuditLog to a file', $ok . "HSCAuditLog logs/hsc-audit.log\n", undef],
    ['HSCAuditLog to a program', $ok . "HSCAuditLog \"|/usr/bin/rotatelogs /tmp/a.%Y 86400\"\n", undef],
    ['HSCAuditLog without a program', $ok . "HSCAuditLog \"| \"\n", qr{HSCAuditLog: name a file or a "\|program"}],
    ['HSCAuditLog in a virtual host', $ok . "<VirtualHost 127.0.0.1:1>\nHSCAuditLog /tmp/x\n</VirtualHost>\n", qr{HSCAuditLog cannot occur within <VirtualHost> section}];

# Second factors (docs/second-factors.md).
push @cases,
    ['the second-factor directives', $ok . "HSCSecondFactor optional\nHSCSecondFactorMaxAge 15m\nHSCMaxAuthAge Off\n<Location /a>\nAuthType HSC\nRequire hsc-factor 2\n</Location>\n", undef],
    ['HSCSecondFactor not a mode', $ok . "HSCSecondFactor maybe\n", qr{HSCSecondFactor: must be off, optional or required}],
    ['HSCAccountURL with a control character', $ok . "HSCAccountURL \"/acc\tount\"\n", qr{HSCAccountURL: the URL must be non-empty, without space}],
    ['HSCTOTPSkew 0 and 2', $ok . "HSCTOTPSkew 0\n<Location /a>\nHSCTOTPSkew 2\n</Location>\n", undef],
    ['HSCTOTPSkew over 2', $ok . "HSCTOTPSkew 3\n", qr{HSCTOTPSkew: must be 0, 1 or 2}],
    ['HSCTOTPSkew not a number', $ok . "HSCTOTPSkew one\n", qr{HSCTOTPSkew: must be 0, 1 or 2}],
    ['Require hsc-factor 3', $ok . "<Location /a>\nAuthType HSC\nRequire hsc-factor 3\n</Location>\n", qr{Require hsc-factor: 2, phishing-resistant or sealed, not '3'}],
    ['hsc-authz with AuthzSendForbiddenOnFailure On', $ok . "<Location /authz>\nSetHandler hsc-authz\nAuthType HSC\nRequire valid-user\nAuthzSendForbiddenOnFailure On\nHSCAuthzStyle forward-auth\nHSCAuthzTrustedProxy 127.0.0.1 10.0.0.0/8\nHSCReturnHosts app.example.com app.example.com:8443\n</Location>\n", undef],
    ['hsc-authz without AuthzSendForbiddenOnFailure On', $ok . "<Location /authz>\nSetHandler hsc-authz\nAuthType HSC\nRequire valid-user\n</Location>\n", qr{HSC229: .*SetHandler hsc-authz needs AuthzSendForbiddenOnFailure On}],
    ['HSCAuthzStyle not a style', $ok . "HSCAuthzStyle nginx\n", qr{HSCAuthzStyle: auth-request \(nginx\) or forward-auth}],
    ['HSCAuthzTrustedProxy not an address', $ok . "HSCAuthzTrustedProxy proxy.example\n", qr{HSCAuthzTrustedProxy: 'proxy.example' is not an IP address}],
    ['HSCReturnHosts not a host', $ok . "HSCReturnHosts https://app.example\n", qr{HSCReturnHosts: 'https://app.example' is not a host name}],
    ['app passwords', $ok . "HSCActivityDB /tmp/hsc-activity.db\n<Location /dav>\nAuthType HSC\nRequire valid-user\nHSCAcceptTokens Both\nHSCTokenScope dav git:read\n</Location>\n<Location /b>\nAuthType Basic\nAuthName x\nAuthBasicProvider hsc\nRequire valid-user\n</Location>\n", undef],
    ['HSCAcceptTokens not a way', $ok . "HSCAcceptTokens Token\n", qr{HSCAcceptTokens: Off, Basic, Bearer or Both}],
    ['HSCBasicPassword', $ok . "<Location /dav>\nAuthType HSC\nRequire valid-user\nHSCBasicPassword On\n</Location>\n<Location /b>\nAuthType Basic\nAuthName x\nAuthBasicProvider hsc\nRequire valid-user\nHSCBasicPassword On\n</Location>\n", undef],
    ['HSCBasicPassword not On or Off', $ok . "HSCBasicPassword Yes\n", qr{HSCBasicPassword must be On or Off}],
    ['HSCBasicPassword without a value', $ok . "HSCBasicPassword\n", qr{HSCBasicPassword must be On or Off}],
    ['HSCTokenScope not a scope', $ok . "HSCTokenScope Dav\n", qr{HSCTokenScope: 'Dav' is not a scope name}],
    ['HSCTokenScope with a comma', $ok . "HSCTokenScope dav,git\n", qr{HSCTokenScope: 'dav,git' is not a scope name}],
    ['HSCActivityDB in a virtual host', $ok . "<VirtualHost 127.0.0.1:1>\nHSCActivityDB /tmp/x\n</VirtualHost>\n", qr{HSCActivityDB cannot occur within <VirtualHost> section}],
    ['HSCActivityDB with a bad conninfo', $ok . "HSCActivityDB \"pgsql:host\"\n", qr{HSCActivityDB: }],
    ['hsc-api with HSCAPIAllowOrigin', $ok . "<Location /api>\nSetHandler hsc-api\nHSCAPIAllowOrigin https://app.example.com http://localhost:8080\n</Location>\n", undef],
    ['HSCAPIAllowOrigin with a path', $ok . "HSCAPIAllowOrigin https://app.example.com/\n", qr{HSCAPIAllowOrigin: 'https://app.example.com/' is not an origin}],
    ['HSCAPIAllowOrigin a wildcard', $ok . "HSCAPIAllowOrigin *\n", qr{HSCAPIAllowOrigin: '\*' is not an origin}],
    ['HSCAPIAllowOrigin the default port', $ok . "HSCAPIAllowOrigin https://app.example.com:443\n", qr{HSCAPIAllowOrigin: 'https://app.example.com:443' is not an origin}],
    # Passkeys: the RP ID is a domain name, origins are on it.
    ['passkeys on localhost', $ok . "HSCPasskeys On\nHSCWebAuthnRPID localhost\nHSCWebAuthnOrigin http://localhost:8529 https://localhost\nHSCWebAuthnUserVerification required\nHSCWebAuthnChallengeLifetime 2m\n", undef],
    ['an IPv4 RP ID', $ok . "HSCWebAuthnRPID 192.0.2.1\n", qr{HSCWebAuthnRPID: '192\.0\.2\.1': the RP ID is an IP address}],
    ['an IPv6 RP ID', $ok . "HSCWebAuthnRPID ::1\n", qr{HSCWebAuthnRPID: '::1': the RP ID is an IP address}],
    ['an empty RP ID', $ok . "HSCWebAuthnRPID \"\"\n", qr{HSCWebAuthnRPID takes one argument}],
    ['an IP ServerName as the default RP ID', $ok . "ServerName 127.0.0.1\nHSCPasskeys On\n", qr{HSC281: HSCWebAuthnRPID: '127\.0\.0\.1' \(the ServerName\) cannot be the RP ID of passkeys: the RP ID is an IP address}],
    ['an IP ServerName without passkeys', $ok . "ServerName 127.0.0.1\n", undef],
    ['an origin off the RP ID', $ok . "HSCWebAuthnRPID example.com\nHSCWebAuthnOrigin https://example.net\n", qr{HSC282: HSCWebAuthnOrigin: 'https://example\.net' does not fit the RP ID 'example\.com'}],
    ['an origin on a suffix that is not a subdomain', $ok . "HSCWebAuthnRPID example.com\nHSCWebAuthnOrigin https://badexample.com\n", qr{HSC282: HSCWebAuthnOrigin: 'https://badexample\.com' does not fit the RP ID 'example\.com'}],
    ['a subdomain origin', $ok . "HSCWebAuthnRPID example.com\nHSCWebAuthnOrigin https://login.example.com:8443\n", undef],
    ['an http origin other than localhost', $ok . "HSCWebAuthnOrigin http://example.com\n", qr{HSCWebAuthnOrigin: 'http://example\.com': http:// is only for http://localhost}],
    ['an origin with a path', $ok . "HSCWebAuthnOrigin https://example.com/login\n", qr{HSCWebAuthnOrigin: 'https://example\.com/login': }],
    ['a challenge lifetime under 30 s', $ok . "HSCWebAuthnChallengeLifetime 10\n", qr{HSCWebAuthnChallengeLifetime: '10' is not a duration from 30 to 3600 seconds}],
    ['an unknown user verification', $ok . "HSCWebAuthnUserVerification always\n", qr{HSCWebAuthnUserVerification: 'always' is not preferred, required or discouraged}],
    ['HSCSecondFactor with a pgsql: database (its factors are there too)', qq{HSCKeyFile "$var/keys"\nHSCUserDB "pgsql:host=/nonexistent dbname=none"\nHSCSecondFactor required\n}, undef];

# The annotated sample, with this tree's module, database and key file.
{
    my $src = "$FindBin::Bin/../conf/httpd-hsc-sample.conf";
    open my $sfh, '<', $src or die "$src: $!";
    my $sample = do { local $/; <$sfh> };
    $sample =~ s{^LoadModule hsc_module .*$}{}m;
    $sample =~ s{/var/lib/apache2/hsc/users\.db}{$var/users.db}g;
    $sample =~ s{/etc/apache2/hsc\.keys}{$var/keys}g;
    push @cases, ['conf/httpd-hsc-sample.conf', $sample, undef];
    my $defaults = "$FindBin::Bin/../conf/hsc.conf";
    push @cases, ['conf/hsc.conf', $ok . qq{Include "$defaults"\n}, undef];
}

plan tests => 2 * @cases + 16;

# The running server warned about the key file readable by others.
my $log = Apache::Test::vars('t_logs') . '/error_log';
open my $lfh, '<', $log or die "$log: $!";
my $text = do { local $/; <$lfh> };
like($text, qr{\[hsc:warn\] .*HSC003: .*keys-open: key file is readable by group or others},
     'startup warns about a key file readable by others');
unlike($text, qr{HSC003: .*/keys:}, 'and not about the 0600 key file');

my $n = 0;
for my $case (@cases) {
    my ($what, $conf, $want) = @$case;
    my $file = "$dir/case" . $n++ . '.conf';
    spew($file, <<"EOT" . $conf);
ServerRoot "$dir"
ServerName localhost
Listen 127.0.0.1:1
PidFile "$dir/pid"
ErrorLog "$dir/error_log"
Include "$modules"
LoadModule hsc_module "$module"
EOT
    my $out = `"$httpd" -t -f "$file" 2>&1`;
    my $rc = $? >> 8;
    if (defined $want) {
        isnt($rc, 0, "httpd -t fails on $what");
        like($out, $want, "with a clear message for $what") or diag $out;
    }
    else {
        is($rc, 0, "httpd -t passes $what") or diag $out;
        like($out, qr/Syntax OK/, 'Syntax OK');
    }
}

# `httpd -t` shows the key file warning a start logs (HSC003),
# and still passes.
{
    my $file = "$dir/openkey.conf";
    spew($file, <<"EOT");
ServerRoot "$dir"
ServerName localhost
Listen 127.0.0.1:1
PidFile "$dir/pid"
ErrorLog "$dir/error_log"
Include "$modules"
LoadModule hsc_module "$module"
HSCKeyFile "$var/keys-open"
HSCUserDB "$var/users.db"
EOT
    my $out = `"$httpd" -t -f "$file" 2>&1`;
    is($? >> 8, 0, 'httpd -t passes a key file readable by others');
    like($out, qr{HSC003: .*keys-open: key file is readable by group or others},
         'but says so (HSC003), as a start would') or diag $out;
}

# A user database of schema version 1 is named at `httpd -t`
# (HSC187), not only at a child's first login (HSC181).
{
    my $file = "$dir/v1db.conf";
    spew($file, <<"EOT");
ServerRoot "$dir"
ServerName localhost
Listen 127.0.0.1:1
PidFile "$dir/pid"
ErrorLog "$dir/error_log"
Include "$modules"
LoadModule hsc_module "$module"
HSCKeyFile "$var/keys"
HSCUserDB "$var/storeid-v1/users.db"
EOT
    my $out = `"$httpd" -t -f "$file" 2>&1`;
    is($? >> 8, 0, 'httpd -t passes a version 1 user database');
    like($out, qr{HSC187: HSCUserDB \S*storeid-v1/users\.db has schema version 1},
         'but says it has no store id yet (HSC187)') or diag $out;
}

# A header built from %{REMOTE_USER}s or %{REMOTE_USER}e where
# AuthType HSC is used sends "(null)": `httpd -t` says so (HSC225), and
# still passes; expr=%{REMOTE_USER} is not warned about.
{
    my $file = "$dir/remoteuser.conf";
    spew($file, <<"EOT");
ServerRoot "$dir"
ServerName localhost
Listen 127.0.0.1:1
PidFile "$dir/pid"
ErrorLog "$dir/error_log"
Include "$modules"
LoadModule hsc_module "$module"
HSCKeyFile "$var/keys"
HSCUserDB "$var/users.db"
<Location /app>
    AuthType HSC
    Require valid-user
    RequestHeader set X-User "%{REMOTE_USER}s"
    RequestHeader set X-User-E "%{REMOTE_USER}e"
    RequestHeader set X-User-X "expr=%{REMOTE_USER}"
</Location>
EOT
    my $out = `"$httpd" -t -f "$file" 2>&1`;
    is($? >> 8, 0, 'httpd -t passes RequestHeader from REMOTE_USER');
    like($out, qr{HSC225: \S*remoteuser\.conf:13: RequestHeader builds a header from %\{REMOTE_USER\}s, which is "\(null\)" here},
         'but warns about %{REMOTE_USER}s (HSC225), naming the line') or diag $out;
    like($out, qr{HSC225: \S*remoteuser\.conf:14: .*%\{REMOTE_USER\}e},
         'and about %{REMOTE_USER}e');
    is(() = $out =~ /HSC225/g, 2, 'and not about expr=%{REMOTE_USER}');
    like($out, qr{use HSCIdentityHeader user NAME}, 'naming the way out');
}

# The sample configurations set TraceEnable Off: httpd answers TRACE before
# any module and echoes the request, the HttpOnly cookie included.
for my $f ("$FindBin::Bin/../conf/httpd-hsc-sample.conf",
           "$FindBin::Bin/../scripts/demo.sh") {
    my $t = do { local @ARGV = ($f); local $/; <> };
    like($t, qr/^\s*TraceEnable Off\b/m, "TraceEnable Off in $f");
}

# docs/directives.md lists exactly the directives the module registers.
my $good = "$dir/case0.conf";
my @registered = sort map { /^(HSC\w+) \(mod_hsc\.c\)/ ? $1 : () }
    `"$httpd" -L -f "$good" 2>&1`;
ok(@registered >= 17, 'httpd -L lists the HSC directives')
    or diag "@registered";
my $doc = "$FindBin::Bin/../docs/directives.md";
open my $dfh, '<', $doc or die "$doc: $!";
my @documented = sort map { /^## (HSC\w+)\s*$/ ? $1 : () } <$dfh>;
is("@documented", "@registered",
   'docs/directives.md has a section for each directive, and no other');
my $d = do { local @ARGV = ($doc); local $/; <> };
my @incomplete = grep {
    $d !~ /^## \Q$_\E\n(?:(?!^## ).)*\| Syntax \|(?:(?!^## ).)*\| Default \|(?:(?!^## ).)*\| Context \|(?:(?!^## ).)*```apache/ms
} @registered;
is("@incomplete", '', 'each section has syntax, default, context, example');

sub spew
{
    my ($file, $text) = @_;
    open my $fh, '>', $file or die "$file: $!";
    print $fh $text;
    close $fh;
}
