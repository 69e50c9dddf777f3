# Every Set-Cookie attribute: Path, Domain, HttpOnly, Secure, SameSite,
# Max-Age and Expires, for the default and two configured locations, and
# the expiring cookie of a logout (same attributes, Max-Age=0).
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET);
use HTTP::Date qw(str2time);
use HSCTest;

plan tests => 33;

ua_plain();

# Defaults (with HSCCookieSecure Off, as the test server sets it).
my $res = login('grace', $PW{grace});
my $h = cookie_header_for($res, 'hsc');
ok(defined $h, 'default login sets hsc');
my $a = attrs_of($h // '');
is($a->{path}, '/', 'default Path=/');
ok(exists $a->{httponly}, 'HttpOnly always');
ok(!exists $a->{secure}, 'no Secure with HSCCookieSecure Off');
is($a->{samesite}, 'Lax', 'default SameSite=Lax');
ok(!exists $a->{domain}, 'no Domain by default');
is($a->{'max-age'}, 1800, 'Max-Age is the idle timeout (30m)');
my $exp = (cookie_fields(cookie_from($res)))[4];
my $iat = (cookie_fields(cookie_from($res)))[3];
is(str2time($a->{expires}), $exp, 'Expires is the cookie exp');
is(scalar(() = set_cookies($res)), 1, 'exactly one Set-Cookie');

# __Host- prefix, Secure On, SameSite Strict.
$res = login('grace', $PW{grace}, path => '/attr/secure');
is($res->code, 303, '__Host- login is 303');
$h = cookie_header_for($res, '__Host-hsc');
ok(defined $h, 'the cookie is named __Host-hsc');
$a = attrs_of($h // '');
ok(exists $a->{secure}, 'Secure with HSCCookieSecure On');
is($a->{samesite}, 'Strict', 'SameSite=Strict');
is($a->{path}, '/', '__Host-: Path=/');
ok(!exists $a->{domain}, '__Host-: no Domain');
ok(exists $a->{httponly}, 'HttpOnly');

# Domain, Path, SameSite None (needs Secure), max age capping the idle time.
$res = login('grace', $PW{grace}, path => '/attr/domain');
is($res->code, 303, 'domain login is 303');
$h = cookie_header_for($res, 'hdomain');
ok(defined $h, 'the cookie is named hdomain');
$a = attrs_of($h // '');
is($a->{domain}, 'example.test', 'Domain=example.test');
is($a->{path}, '/app', 'Path=/app');
is($a->{samesite}, 'None', 'SameSite=None');
ok(exists $a->{secure}, 'SameSite=None comes with Secure');
is($a->{'max-age'}, 1800, 'Max-Age capped by HSCMaxAge 30m');
my @f = cookie_fields(cookie_from($res, 'hdomain'));
is($f[4] - $f[3], 1800, 'exp = iat + max age when max age < idle');

# Logout: the same name and attributes, Max-Age=0, an Expires in the past.
my $v = cookie_from(login('grace', $PW{grace}));
$res = post_form('/logout', '', Cookie => "hsc=$v");
is($res->code, 303, 'logout is 303');
$h = cookie_header_for($res, 'hsc');
ok(defined $h, 'logout sets hsc');
like($h // '', qr/^hsc=;/, 'logout empties the value');
$a = attrs_of($h // '');
is($a->{'max-age'}, 0, 'logout: Max-Age=0');
ok(str2time($a->{expires}) < time - 86400, 'logout: Expires in the past');
is($a->{path}, '/', 'logout: same Path');
is($a->{samesite}, 'Lax', 'logout: same SameSite');
ok(exists $a->{httponly}, 'logout: HttpOnly');
ok(!exists $a->{domain}, 'logout: same (no) Domain');
