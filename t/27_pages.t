# The pages as served: the CSP allows exactly the served stylesheet (its
# SHA-256, computed here independently), the username is kept and escaped
# after a failure, the site's name and stylesheet, the logout page, and
# HSCLoginFailureURL for custom login pages (locations in the "t/17"
# section of t/conf/extra.conf.in). The 429 wording is in t/16.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET);
use Digest::SHA qw(sha256_base64);
use HSCTest;

plan tests => 36;

ua_plain();

# The stylesheet inside <style>, and the CSP's style-src sources.
sub style_of { $_[0] =~ m{<style>(.*?)</style>}s ? $1 : undef }
sub style_src
{
    my ($csp) = @_;
    return $csp =~ /(?:^|;)\s*style-src ([^;]*)/ ? [split ' ', $1] : [];
}
# Digest::SHA leaves out base64 padding; CSP hashes carry it.
sub csp_hash
{
    my $b = sha256_base64($_[0]);
    $b .= '=' while length($b) % 4;
    return "'sha256-$b'";
}

my $res = GET '/login';
my $csp = $res->header('Content-Security-Policy') // '';
my $css = style_of($res->content);
ok(defined $css && length $css > 100, 'the login page has a built-in stylesheet');
is_deeply(style_src($csp), [csp_hash($css)],
          'style-src is exactly the SHA-256 of the served stylesheet');
like($csp, qr/^default-src 'none';/, "default-src 'none'");
like($csp, qr/frame-ancestors 'none'/, "frame-ancestors 'none'");
like($csp, qr/; form-action 'self'(;|$)/, "form-action 'self' (forms post here only)");
like($csp, qr/; base-uri 'none'(;|$)/, "base-uri 'none'");
unlike($csp, qr/unsafe/, 'no unsafe-inline (or any unsafe-)');
like($css, qr/font:16px/, 'the text is 16 px');
like($css, qr/min-height:44px/, 'controls are at least 44 px tall');
like($res->content,
     qr{<meta name="viewport" content="width=device-width, initial-scale=1">},
     'a viewport for phones');
like($res->content,
     qr{<input id="hsc-username" name="username" type="text" value="" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus>},
     'username: no capitalisation or spell check, focused first');

# A failure keeps the username, escaped, and moves the focus.
my $tricky = q{al"ice<b>&'};
$res = login($tricky, 'wrong');
is($res->code, 401, 'a failed login is 401');
my $html = $res->content;
like($html, qr{value="al&quot;ice&lt;b&gt;&amp;&#x27;"},
     'the username is kept, HTML-escaped');
unlike($html, qr{<b>}, 'never as markup');
like($html, qr{<p id="hsc-error" class="hsc-error" role="alert">Login failed: wrong username or password\.</p>},
     'the error is an alert');
is(scalar(() = $html =~ /aria-invalid="true" aria-describedby="hsc-error"/g),
   2, 'both fields are marked invalid and described by the error');
like($html, qr{autocomplete="current-password" required autofocus},
     'the focus is on the password');
is_deeply(style_src($res->header('Content-Security-Policy') // ''),
          [csp_hash(style_of($html))], 'the failure page: the same CSP hash');

# HSCSiteName and HSCLoginStylesheet (local: 'self').
$res = GET '/styled-login';
like($res->content, qr{<title>Log in \x{c2}\x{b7} Example &amp; &lt;Co&gt;</title>},
     'HSCSiteName in the title, escaped');
like($res->content, qr{<p class="hsc-site">Example &amp; &lt;Co&gt;</p>\n<h1>Log in</h1>},
     'and above the heading');
like($res->content, qr{</style>\n<link rel="stylesheet" href="/static/site.css">},
     'the site stylesheet is linked after the built-in one');
is_deeply(style_src($res->header('Content-Security-Policy') // ''),
          [csp_hash(style_of($res->content)), "'self'"],
          "a local stylesheet adds 'self' to style-src");
$res = GET '/cdn-login';
is_deeply(style_src($res->header('Content-Security-Policy') // ''),
          [csp_hash(style_of($res->content)), 'https://cdn.example/site.css'],
          'an absolute stylesheet adds its URL to style-src');

# HSCLoginFailureURL: a custom page gets its failures back.
$res = login('alice', 'wrong', path => '/custom-login',
             return => '/private/x?a=1');
is($res->code, 303, 'with HSCLoginFailureURL a failed login is a 303');
is($res->header('Location'),
   '/signin.html?lang=en&hsc_error=failed&return=%2fprivate%2fx%3fa%3d1',
   'to the failure URL with hsc_error=failed and the return target');
ok(!defined cookie_from($res), 'and no cookie');
is(login('alice', $PW{alice}, path => '/custom-login')->code, 303,
   'the right password still logs in');

# ... and when throttled: hsc_error=throttled with the seconds left
# (pages-throttle.test: HSCThrottleUser 2 in 5 minutes; its own user).
admin_ok("pt-pw\n", 'add', var_dir() . '/users.db', 'pages-thr', '--kdf',
         'sha256-chain:1000', '--password-stdin', '--force');
my @pt = (headers => [Host => 'pages-throttle.test']);
is(join(' ', map { login('pages-thr', 'wrong', @pt)->header('Location') } 1 .. 2),
   '/signin.html?hsc_error=failed /signin.html?hsc_error=failed',
   'HSCLoginFailureURL in a vhost: two failures, to hsc_error=failed');
$res = login('pages-thr', 'wrong', @pt);
like($res->header('Location') // '',
     qr{^/signin\.html\?hsc_error=throttled&retry_after=(29\d|300)\z},
     'throttled: hsc_error=throttled with the seconds left');
like($res->header('Retry-After') // '', qr/^(29\d|300)\z/,
     'and Retry-After');

# The logout page: who is signed in, a way back, the logged-out message.
my $v = cookie_from(login('grace', $PW{grace}));
$res = get_with('/logout', 'hsc', $v,
                Referer => 'http://' . Apache::TestRequest::hostport() . '/private/page.html');
like($res->content, qr{Signed in as <strong>grace</strong>\.}, 'logout: signed in as grace');
like($res->content, qr{<a class="hsc-link" href="/private/page.html">Cancel, stay signed in</a>},
     'Cancel goes back to the page of the Referer (same host)');
$res = get_with('/logout', 'hsc', $v, Referer => 'http://evil.example/x');
like($res->content, qr{href="/">Cancel}, 'another host: Cancel goes to HSCLoginSuccessURL');
like($res->content, qr{Log out everywhere</label>\n<p id="hsc-everywhere-help" class="hsc-help">Also ends your sessions in every other browser and device},
     'log out everywhere is explained');
like(GET('/logout')->content, qr{You are not signed in\..*href="/login">Log in</a>}s,
     'without a cookie: not signed in, and a login link');
is(post_form('/styled-logout', '', Cookie => "hsc=$v")->header('Location'),
   '/bye.html', 'HSCLogoutURL still decides where a logout goes');
