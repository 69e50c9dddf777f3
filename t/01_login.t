# Login success and failure, the built-in login page, and a protected page
# with the cookie (through LWP's cookie jar, as a browser would).
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET POST);
use HSCTest;

plan tests => 40;

ua_jar();

# The login page: valid HTML5 form without JavaScript, never cached.
my $res = GET '/login';
is($res->code, 200, 'GET /login is 200');
is($res->header('Cache-Control'), 'no-store', 'login page: no-store');
like($res->header('Content-Type'), qr{^text/html; charset=utf-8},
        'login page is HTML in UTF-8');
my $html = $res->content;
ok $html =~ /^<!DOCTYPE html>/ && $html =~ m{<html lang="en">}
    && $html =~ m{<meta charset="utf-8">} && $html =~ m{<title>},
    'login page is an HTML5 document';
ok $html =~ m{<form method="post">} && $html =~ /name="username"/
    && $html =~ /name="password"[^>]*type="password"|type="password"[^>]*name="password"/,
    'login page has the form fields';
ok $html !~ /<script/i, 'login page has no script';
ok !defined cookie_from($res), 'login page sets no cookie';

# A wrong password: 401, the form again with one generic message.
$res = login('alice', 'wrong');
is($res->code, 401, 'wrong password is 401');
is($res->header('Cache-Control'), 'no-store', 'failed login: no-store');
ok !defined cookie_from($res), 'failed login sets no cookie';
my $failed = $res->content;
ok $failed =~ /Login failed: wrong username or password\./,
    'failed login shows the generic message';
ok $failed =~ /name="username"/, 'failed login shows the form again';

# An unknown user looks exactly the same.
$res = login('nosuchuser', 'whatever');
is($res->code, 401, 'unknown user is 401');
(my $same = $res->content) =~ s/value="nosuchuser"/value="alice"/;
is($same, $failed,
   'unknown user: same page as wrong password (but the username typed)');
ok !defined cookie_from($res), 'unknown user: no cookie';

# A disallowed username (control character) and missing fields.
$res = login("al\nice", 'x');
is($res->code, 401, 'username with a line feed is 401');
$res = POST '/login', 'Content-Type' => 'application/x-www-form-urlencoded',
    content => 'username=alice';
is($res->code, 401, 'missing password is 401');

# Success: 303 to the success URL and the cookie.
$res = login('alice', $PW{alice});
is($res->code, 303, 'login is 303');
is($res->header('Location'), '/', 'login goes to HSCLoginSuccessURL');
is($res->header('Cache-Control'), 'no-store', 'login response: no-store');
my $value = cookie_from($res);
ok defined $value
    && $value =~ /^2\.[A-Za-z0-9_-]+\.YWxpY2U\.\d+\.\d+\.\d+\.[A-Za-z0-9_-]{11}\.1\.0\./,
    'login sets a format 2 cookie for alice: amr pwd, no second factor';

# The jar sends it back: the protected page is alice's.
$res = GET '/private/page.html';
is($res->code, 200, 'protected page with the cookie is 200');
is($res->content, "page private\n", 'protected page content');
is($res->header('X-HSC-User'), 'alice', 'HSC_USER is alice');
is($res->header('X-Remote-User'), 'alice', 'r->user is alice');
is($res->header('X-HSC-Groups'), 'staff,admins', 'HSC_GROUPS');
my (undef, undef, undef, $iat, $exp) = cookie_fields($value);
is($res->header('X-HSC-Login-Time'), $iat, 'HSC_LOGIN_TIME is iat');
is($res->header('X-HSC-Expires'), $exp, 'HSC_EXPIRES is exp');
is($exp - $iat, 1800, 'default idle timeout: 30 minutes');
# Format 2: the methods, the second factor's time, the login id.
is($res->header('X-HSC-AMR'), 'pwd', 'HSC_AMR is pwd');
is($res->header('X-HSC-MFA-Time'), '0', 'HSC_MFA_TIME is 0: no second factor');
is($res->header('X-HSC-Login-Id'), (cookie_fields($value))[6],
   'HSC_LOGIN_ID is the cookie\'s lid');
my $other = cookie_from(login('alice', $PW{alice}));
isnt((cookie_fields($other // ''))[6], (cookie_fields($value))[6],
     'another login of alice has another login id');

# A name the configuration set before the check is the module's after it.
$res = GET '/private-preset/page.html';
is($res->code, 200, 'a location that presets HSC_USER with SetEnvIf: 200');
is($res->header('X-HSC-User'), 'alice', 'HSC_USER is alice, not the preset');
is($res->header('X-HSC-AMR'), 'pwd', 'HSC_AMR is the cookie\'s, not the preset');

# mod_dir's internal subrequest and redirect reuse the verdict.
$res = GET '/private/';
is($res->code, 200, 'directory index behind AuthType HSC is 200');
ok $res->content =~ /private index/, 'directory index content';
is($res->header('X-HSC-User'), 'alice',
   'HSC_USER survives the internal redirect to the index');

# Login with a safe return goes there.
$res = login('alice', $PW{alice}, return => '/private/page.html?x=1&y=2');
is($res->header('Location'), '/private/page.html?x=1&y=2',
         'login honours a safe return');
