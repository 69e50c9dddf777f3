# A shared cache in front of mod_hsc must never hand a
# user's page, or a Set-Cookie carrying x_n, to another client. The host
# cached.test puts mod_cache (socache, quick handler: it answers before any
# access check) and ExpiresDefault "access plus 1 hour" in front of a
# protected location with a 10 s idle timeout; its logins last 2 s, so the
# first page view refreshes the cookie.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use HSCTest;

plan tests => 29;

my $db = var_dir() . '/users.db';
admin_ok("cache-pw\n", 'add', $db, 'cache-user', '--kdf',
         'sha256-chain:1000', '--password-stdin', '--force');

ua_plain();
my @host = (Host => 'cached.test');
sub get { my ($path, @h) = @_; Apache::TestRequest::GET($path, @host, @h) }
sub cc_of { lc(join ', ', $_[0]->headers->header('Cache-Control')) }

# The cache works: a public page is stored and served from it.
get('/public.html');
my $res = get('/public.html');
like($res->header('X-Cache') // '', qr/^HIT/,
     'control: a public page is served from the cache');

# Log in (2 s cookie), then view the page: the cookie is refreshed.
$res = login('cache-user', 'cache-pw', path => '/cachelogin',
             headers => [@host]);
is($res->code, 303, 'logged in');
my $c = cookie_from($res, 'hcache');
ok(defined $c, 'a cookie');
$res = get('/cached/page.html', Cookie => "hcache=$c");
is($res->code, 200, 'the user sees the page');
my $fresh = cookie_from($res, 'hcache');
ok(defined $fresh, 'and the cookie is refreshed on the way');
like(cc_of($res), qr/\bno-store\b/,
     'a response that refreshes the cookie says no-store');
like(cc_of($res), qr/max-age=3600/, 'what mod_expires said is kept');
like(lc($res->header('Vary') // ''), qr/\bcookie\b/, 'Vary: Cookie');

# A stranger without a cookie: neither the page nor the Set-Cookie.
$res = get('/cached/page.html');
isnt($res->code, 200, 'a client without a cookie does not get the page')
    or diag('X-Cache: ' . ($res->header('X-Cache') // '-'));
ok(!defined cookie_from($res, 'hcache'),
   'nor the refreshed cookie of the user before');
unlike($res->content, qr/private page/, 'nor its content');
like($res->header('X-Cache') // 'MISS', qr/^MISS/, 'no cache hit');

# An ordinary view (no refresh): private, with what the content said.
$res = get('/cached/page.html', Cookie => "hcache=$fresh");
is($res->code, 200, 'the user again');
ok(!defined cookie_from($res, 'hcache'), 'no refresh this time');
like(cc_of($res), qr/\bprivate\b/, 'Cache-Control: private');
like(cc_of($res), qr/max-age=3600/, 'merged with max-age');
unlike(cc_of($res), qr/\bpublic\b/, 'never public');
$res = get('/cached/page.html');
isnt($res->code, 200, 'and a stranger still gets no page');
unlike($res->content, qr/private page/, 'nor its content');

# A public SSI page that includes the protected page: the
# including page's headers may leave, and mod_cache decide, before the
# include is checked. The include is refused (HSC189), so nothing of the
# user's reaches the page or the cache, and a stranger gets no fragment.
my $off = log_size();
$res = get('/ssi/inc.shtml', Cookie => "hcache=$fresh");
is($res->code, 200, 'the public SSI page, as the user: 200');
like($res->content, qr/public greeting/, 'its public part');
unlike($res->content, qr/private page/,
       'without the protected include (refused: its page is public)');
like(log_since($off), qr/HSC189: [^\n]*\/cached\/page\.html[^\n]*\/ssi\/inc\.shtml/,
     'HSC189 names the include and the page');
$res = get('/ssi/inc.shtml');
unlike($res->content, qr/private page/,
       'a stranger gets no fragment of it (the cache kept none)');
# A protected index of a public folder: looked up before the folder's
# response begins, so it is served, private.
$res = get('/cachedir/', Cookie => "hcache=$fresh");
is($res->code, 200, 'a public folder whose index is protected, as the user: 200');
like($res->content, qr/private page/, 'the index');
like(cc_of($res), qr/\bprivate\b/, 'Cache-Control: private');
$res = get('/cachedir/');
unlike($res->content, qr/private page/, 'a stranger: not the index');
like($res->header('X-Cache') // 'MISS', qr/^MISS/, 'no cache hit');

