# Step-up. Require hsc-factor 2 lets in a login that did a
# second factor (HSCSecondFactorMaxAge: lately); a browser whose login
# falls short is sent to the login page's code step (303) and back, other
# clients get 401 with WWW-Authenticate: HSC error="insufficient_
# authentication". HSCMaxAuthAge asks for the password again when it was
# entered too long ago.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use HSCTest;

plan tests => 34;

# No keep-alive: the tests sleep past httpd's KeepAliveTimeout before a POST,
# which LWP would send on a connection the server has closed.
ua_plain(keep_alive => 0);
my $db = var_dir() . '/users.db';
my @html = (Accept => 'text/html,application/xhtml+xml');

# Not in the last seconds of a TOTP step: the code below is of this one,
# and no sleep comes between the password and HSCMaxAuthAge's check.
sleep(31 - time % 30) if time % 30 > 22;
# mia's session from before she set up a factor: /login has
# HSCSecondFactor off, so the password alone made it, amr pwd.
my $cookie = cookie_from(login('mia', $PW{mia})) // '';
my @f = cookie_fields($cookie);
is($f[7], 1, 'a password login (no factor yet)');

my ($rc, $out) = admin('totp', 'enrol', $db, 'mia', '--keys',
                       var_dir() . '/keys');
my ($b32) = $out =~ /secret=([A-Z2-7]+)&/;
ok($b32, 'mia has TOTP');
($rc, $out) = admin('recovery-codes', $db, 'mia', '--count', '2');
my @codes = $out =~ /^(\S{4}-\S{4}-\S{4})$/mg;
# A second factor belongs to the user: from now on her password alone
# gives only the pending cookie (amr pwd|pending), at /login too.
is((cookie_fields(cookie_from(login('mia', $PW{mia})) // ''))[7], 65,
   'her password now: only a pending cookie, though /login has no HSCSecondFactor');
is(get_with('/private/page.html', 'hsc', $cookie)->code, 200,
   'valid-user lets it in');

my $res = get_with('/factor2/page.html', 'hsc', $cookie, @html);
is($res->code, 303, 'Require hsc-factor 2: a browser is sent on (303)');
is($res->header('Location'), '/login?return=/factor2/page.html&factor=1',
   'to the login page, for a second factor, with the way back');
$res = get_with('/factor2/page.html', 'hsc', $cookie);
is($res->code, 401, 'another client: 401');
is($res->header('WWW-Authenticate'),
   'HSC error="insufficient_authentication"', 'saying why');
$res = get_with('/factor2/page.html', undef, undef, @html);
is($res->code, 302, 'without a cookie: the usual login redirect');

$res = get_with('/login?return=/factor2/page.html&factor=1', 'hsc',
                $cookie, @html);
is($res->code, 200, 'the login page, for a second factor');
like($res->content, qr/Signing in as <strong>mia<\/strong>/,
     'asks the signed-in user for a code');
like(get_with('/login?return=%2ffactor2%2fpage.html', 'hsc', $cookie)
         ->content, qr/name="password"/,
     'without factor=1: the password form, as before');

$res = post_form('/login',
                 form_encode(code => totp(base32_decode($b32), time),
                             return => '/factor2/page.html'),
                 Cookie => "hsc=$cookie");
is($res->code, 303, 'the code');
is($res->header('Location'), '/factor2/page.html', 'back to the page');
my $up = cookie_from($res) // '';
my @u = cookie_fields($up);
is($u[7], 3, 'amr pwd|otp');
is("$u[3] $u[6]", "$f[3] $f[6]", 'the same login: iat and login id kept');
$res = get_with('/factor2/page.html', 'hsc', $up, @html);
is($res->code, 200, 'Require hsc-factor 2 lets it in');
is($res->header('X-HSC-AMR'), 'pwd otp mfa', 'HSC_AMR says how');
is(get_with('/factor2-fresh/page.html', 'hsc', $up)->code, 200,
   'HSCSecondFactorMaxAge 3: a factor just done');
is(get_with('/auth-fresh/page.html', 'hsc', $up)->code, 200,
   'HSCMaxAuthAge 3: a password just entered');
is(get_with('/phishing-resistant/page.html', 'hsc', $up)->code, 401,
   'phishing-resistant: TOTP is not');

sleep 4;
$res = get_with('/factor2-fresh/page.html', 'hsc', $up, @html);
is($res->code, 303, 'four seconds on: the factor is too old there');
like($res->header('Location') // '', qr/&factor=1$/, 'to the code step');
is(get_with('/factor2/page.html', 'hsc', $up)->code, 200,
   'but not where no age is set');
$res = get_with('/auth-fresh/page.html', 'hsc', $up, @html);
is($res->code, 303, 'HSCMaxAuthAge: the password is too old');
is($res->header('Location'), '/login?return=/auth-fresh/page.html',
   'to the login form');
$res = get_with('/auth-fresh/page.html', 'hsc', $up);
is($res->code, 401, 'another client: 401');
is($res->header('WWW-Authenticate'),
   'HSC error="insufficient_authentication"', 'saying why');

# A recovery code does for a step-up too.
$res = post_form('/login', form_encode(code => $codes[0], return => '/'),
                 Cookie => "hsc=$up");
is((cookie_fields(cookie_from($res) // ''))[7], 19,
   'a recovery code: amr pwd|otp|rc');
is(get_with('/factor2-fresh/page.html', 'hsc', cookie_from($res))->code, 200,
   'fresh again');

# A user without any factor cannot step up: the page says so.
my $ned = cookie_from(login('ned', $PW{ned})) // '';
is(get_with('/factor2/page.html', 'hsc', $ned, @html)->code, 303,
   'a user without a factor is sent on too');
$res = get_with('/login?return=/factor2/page.html&factor=1', 'hsc', $ned,
                @html);
is($res->code, 403, 'and told at the login page (403)');
like($res->content, qr/enrolment link/, 'to ask for an enrolment link');
is(post_form('/login', form_encode(code => '123456'), Cookie => "hsc=$ned")
       ->code, 401, 'a code for a user without a factor: refused');
