# Logout: GET only shows a form; POST expires the cookie and goes to
# HSCLogoutURL; everywhere=1 also revokes the user's other cookies.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET);
use HSCTest;

plan tests => 24;

ua_plain();
my $page = '/private/page.html';

my $va = cookie_from(login('frank', $PW{frank}));
my $vb = cookie_from(login('frank', $PW{frank}));
ok(defined $va && defined $vb, 'frank logs in twice (two browsers)');

# GET: a confirmation form, nobody is logged out.
my $res = get_with('/logout', 'hsc', $va);
is($res->code, 200, 'GET /logout is 200');
is($res->header('Cache-Control'), 'no-store', 'logout page: no-store');
like($res->content, qr{<form method="post">}, 'GET /logout shows a form');
like($res->content, qr{name="everywhere"}, 'with the everywhere option');
like($res->content, qr{Signed in as <strong>frank</strong>\.}, 'saying who is signed in');
ok(!defined cookie_from($res), 'GET /logout sets no cookie');
is(get_with($page, 'hsc', $va)->code, 200, 'still logged in after GET');

# POST: this browser only.
$res = post_form('/logout', '', Cookie => "hsc=$va");
is($res->code, 303, 'POST /logout is 303');
is($res->header('Location'), '/logout?done',
   'without HSCLogoutURL: to the logged-out message');
like(GET('/logout?done')->content, qr{You are logged out\.},
     'which says so');
like(cookie_header_for($res, 'hsc') // '', qr/^hsc=;.*Max-Age=0/,
     'the cookie is expired');
is(get_with($page, 'hsc', $vb)->code, 200,
   'a plain logout leaves the other browser logged in');

# Everywhere: revoke. Cookies issued before this second stop working.
sleep 1;
$res = post_form('/logout', form_encode(everywhere => 1),
                 Cookie => "hsc=$vb");
is($res->code, 303, 'POST /logout everywhere=1 is 303');
is($res->header('Location'), '/logout?done=everywhere',
   'to the logged-out-everywhere message');
like(cookie_header_for($res, 'hsc') // '', qr/Max-Age=0/,
     'everywhere: the cookie is expired');
is(get_with($page, 'hsc', $va)->code, 401,
   'everywhere: the first browser is logged out');
is(get_with($page, 'hsc', $vb)->code, 401,
   'everywhere: the cookie that asked is refused too');

# A read-only user database: logging in works, "everywhere" says plainly
# that it could not revoke, and this browser is logged out all the same.
my @ro = (Host => 'readonly.test');
my $res2 = login('frank', $PW{frank}, headers => [@ro]);
is($res2->code, 303, 'login works with a read-only database');
my $vr = cookie_from($res2) // '';
is(get_with($page, 'hsc', $vr, @ro)->code, 200, 'and the cookie works');
sleep 1;
$res2 = post_form('/logout', form_encode(everywhere => 1),
                  Cookie => "hsc=$vr", @ro);
is($res2->code, 200, 'everywhere on a read-only database: a page, no 500');
like($res2->content, qr/other sessions could not be ended: the user database is read-only/,
     'which says so plainly');
like(cookie_header_for($res2, 'hsc') // '', qr/Max-Age=0/,
     'the cookie of this browser is expired anyway');
is(get_with($page, 'hsc', $vr, @ro)->code, 200,
   'nothing was revoked (the cookie itself still verifies)');
