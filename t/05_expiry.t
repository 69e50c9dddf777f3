# Idle expiry without refresh (HSCIdleTimeout 2s), and the sliding refresh
# bounded by the max age (HSCIdleTimeout 6s, HSCMaxAge 9s). Times are taken
# from the cookie's own iat, so the sleeps line up with its seconds.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET);
use HSCTest;

plan tests => 18;

ua_plain();

# --- idle expiry, no refresh --------------------------------------------
my $res = login('ivan', $PW{ivan}, path => '/short/login');
is($res->code, 303, 'short login is 303');
is($res->header('Location'), '/short/private/page.html',
   'per-location HSCLoginSuccessURL');
my $v = cookie_from($res, 'hshort');
my (undef, undef, undef, $iat, $exp) = cookie_fields($v // '');
is($exp - $iat, 2, 'exp = iat + 2s');
$res = get_with('/short/private/page.html', 'hshort', $v);
is($res->code, 200, 'valid right after login');
ok(!defined cookie_from($res, 'hshort'), 'HSCRefresh Off: no re-issue');
sleep_until($exp + 0.2);
$res = get_with('/short/private/page.html', 'hshort', $v);
is($res->code, 401, 'refused once the idle timeout has passed');

# --- sliding refresh up to the max age ----------------------------------
$res = login('ivan', $PW{ivan}, path => '/refresh/login');
my $v1 = cookie_from($res, 'hrefresh');
($iat, $exp) = (cookie_fields($v1 // ''))[3, 4];
is($exp - $iat, 6, 'exp = iat + 6s');
$res = get_with('/refresh/private/page.html', 'hrefresh', $v1);
is($res->code, 200, 'valid right after login');
ok(!defined cookie_from($res, 'hrefresh'),
   'no re-issue while more than half the idle time remains');

$res = get_with('/refresh/strict/page.html', 'hrefresh', $v1);
is($res->code, 200, 'a stricter location (HSCMaxAge 3s) admits it at first');

sleep_until($iat + 4.2);   # 2 s of 6 left: under half
$res = get_with('/refresh/strict/page.html', 'hrefresh', $v1);
is($res->code, 401,
   "the stricter location's max age counts from iat (3 s), not the login's");
$res = get_with('/refresh/private/page.html', 'hrefresh', $v1);
is($res->code, 200, 'still valid at iat+4');
my $v2 = cookie_from($res, 'hrefresh');
ok(defined $v2, 're-issued past half the idle time');
my ($iat2, $exp2) = (cookie_fields($v2 // ''))[3, 4];
is($iat2, $iat, 'the refreshed cookie keeps iat');
is($exp2, $iat + 9, 'refreshed exp is capped at iat + max age');

sleep_until($iat + 6.2);
$res = get_with('/refresh/private/page.html', 'hrefresh', $v1);
is($res->code, 401, 'the original cookie has expired at iat+6');
$res = get_with('/refresh/private/page.html', 'hrefresh', $v2);
is($res->code, 200, 'the refreshed cookie still works at iat+6');

sleep_until($iat + 9.2);
$res = get_with('/refresh/private/page.html', 'hrefresh', $v2);
is($res->code, 401, 'nothing outlives the max age');
