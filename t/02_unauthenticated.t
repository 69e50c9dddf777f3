# A protected URL without a valid cookie: 302 to the login URL (with the
# original path and query in return=) for a browser navigation (by fetch
# metadata, else Accept), 401 for anything else; HSCUnauthenticated redirect|401; malformed, duplicated and
# look-alike cookies.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET HEAD POST);
use HSCTest;

plan tests => 34;

ua_plain();
my $html = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

# Browser navigation: GET accepting HTML.
my $res = GET '/private/page.html?a=1&b=x%20y', Accept => $html;
is($res->code, 302, 'browser GET without cookie is 302');
is($res->header('Location'),
   '/login?return=/private/page.html%3Fa%3D1%26b%3Dx%2520y',
   'redirect carries the percent-encoded path and query');
is($res->header('Cache-Control'), 'no-store', 'redirect: no-store');

$res = HEAD '/private/page.html', Accept => $html;
is($res->code, 302, 'browser HEAD without cookie is 302');

# The login page picks the return value up (HTML-escaped, as received).
$res = GET '/login?return=' . '%2Fprivate%2Fpage.html%3Fa%3D1%26b%3D2';
is(html_field($res->content, 'return'), '/private/page.html?a=1&amp;b=2',
   'login page carries return, HTML-escaped');

# Everything else: 401.
$res = GET '/private/page.html';
is($res->code, 401, 'GET without Accept is 401');
is($res->header('WWW-Authenticate'), 'HSC', '401 names the HSC scheme');
is($res->header('Cache-Control'), 'no-store', '401: no-store');
ok(!defined $res->header('Location'), '401 has no Location');
$res = GET '/private/page.html', Accept => 'application/json';
is($res->code, 401, 'GET accepting JSON only is 401');
$res = POST '/private/page.html', Accept => $html, content => 'x=1';
is($res->code, 401, 'POST accepting HTML is 401');

# Fetch metadata first: a single-page app's fetch() is 401
# whatever it accepts; a browser's navigation is redirected whatever its
# Accept says.
$res = GET '/private/page.html', Accept => $html, 'Sec-Fetch-Mode' => 'cors',
    'Sec-Fetch-Dest' => 'empty';
is($res->code, 401, 'a fetch() that accepts HTML (Sec-Fetch-Mode: cors) is 401');
$res = GET '/private/page.html', Accept => '*/*', 'Sec-Fetch-Mode' => 'navigate',
    'Sec-Fetch-Dest' => 'document';
is($res->code, 302, 'a navigation to a document accepting */* is 302');
$res = GET '/private/page.html', Accept => $html, 'Sec-Fetch-Mode' => 'navigate',
    'Sec-Fetch-Dest' => 'embed';
is($res->code, 401, 'a navigation into an <embed> is 401');

# HSCUnauthenticated redirect and 401.
$res = GET '/always-redirect/page.html', Accept => 'application/json';
is($res->code, 302, 'HSCUnauthenticated redirect: API client is 302');
like($res->header('Location') // '', qr{^/login\?return=/always-redirect/},
     'HSCUnauthenticated redirect: to the login URL');
$res = GET '/always-401/page.html', Accept => $html;
is($res->code, 401, 'HSCUnauthenticated 401: browser is 401');

# A real cookie, then ways of breaking it.
my $login = login('alice', $PW{alice});
is($login->code, 303, 'alice logs in');
my $v = cookie_from($login);
ok(defined $v, 'alice has a cookie');
$res = get_with('/private/page.html', 'hsc', $v);
is($res->code, 200, 'the cookie opens the page');
is($res->header('X-HSC-User'), 'alice', 'as alice');

# Two hsc cookies in one header are refused, even when both are the same.
$res = GET '/private/page.html', Cookie => "hsc=$v; hsc=$v";
is($res->code, 401, 'two hsc cookies: 401');
$res = GET '/private/page.html', Cookie => "hsc=$v; hsc=garbage";
is($res->code, 401, 'a valid and a bogus hsc cookie: 401');

# Name prefix confusion: only "hsc" counts.
$res = GET '/private/page.html', Cookie => "xhsc=$v";
is($res->code, 401, 'xhsc=<valid> is not hsc');
$res = GET '/private/page.html', Cookie => "hscx=$v";
is($res->code, 401, 'hscx=<valid> is not hsc');
$res = GET '/private/page.html', Cookie => "other=1; xhsc=junk; hsc=$v; y=2";
is($res->code, 200, 'hsc among other cookies is found');

# Tampering: every refusal is the same 401.
my @f = cookie_fields($v);
my %bad = (
    'garbage'        => 'garbage',
    'empty'          => '',
    'other user'     => join('.', @f[0, 1], 'Ym9i', @f[3 .. $#f]),
    'later expiry'   => join('.', @f[0 .. 3], $f[4] + 1000, @f[5 .. $#f]),
    'flipped MAC'    => join('.', @f[0 .. $#f - 1], scalar reverse $f[-1]),
    'unknown key'    => join('.', $f[0], 'nokey', @f[2 .. $#f]),
    'oversized'      => 'A' x 5000,
);
for my $what (sort keys %bad) {
    $res = get_with('/private/page.html', 'hsc', $bad{$what});
    is($res->code, 401, "tampered cookie ($what): 401");
}
my $log = Apache::Test::vars('t_logs') . '/error_log';
open my $fh, '<', $log or die "$log: $!";
my $text = do { local $/; <$fh> };
ok(index($text, $v) < 0, 'the error log never holds a whole cookie');
