# Two virtual hosts with different HSCScope refuse each other's cookies; key
# rotation (a vhost whose key file has a new signing key first and the old
# key second, and one where the old key is retired); address binding.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET);
use HSCTest;

plan tests => 22;

ua_plain();
my $page = '/private/page.html';

sub login_at
{
    my ($host, $user) = @_;
    my $res = login($user, $PW{$user}, headers => [Host => $host]);
    return cookie_from($res);
}

sub code_at
{
    my ($host, $v, $path) = @_;
    return get_with($path || $page, 'hsc', $v, Host => $host)->code;
}

# --- scope ----------------------------------------------------------------
my $main = login_at('localhost', 'judy');
my $ca = login_at('scope-a.test', 'judy');
my $cb = login_at('scope-b.test', 'judy');
ok(defined $main && defined $ca && defined $cb, 'judy logs in on each host');
is(code_at('scope-a.test', $ca), 200, 'scope-a accepts its own cookie');
is(code_at('scope-b.test', $cb), 200, 'scope-b accepts its own cookie');
is(code_at('scope-a.test', $cb), 401, "scope-a refuses scope-b's cookie");
is(code_at('scope-b.test', $ca), 401, "scope-b refuses scope-a's cookie");
is(code_at('localhost', $ca), 401, 'no scope refuses a scoped cookie');
is(code_at('scope-a.test', $main), 401, 'scope-a refuses an unscoped cookie');
is(code_at('localhost', $main), 200, 'the unscoped host accepts its own');

# --- key rotation -----------------------------------------------------------
my $old = $main;                          # signed with k1
my $new = login_at('rotated.test', 'judy');  # signed with the new key
my $old_kid = (cookie_fields($old))[1];
my $new_kid = (cookie_fields($new // ''))[1];
ok(defined $new, 'judy logs in on the rotated host');
is($old_kid, 'k1', 'the main server signs with k1');
is($new_kid, 'k2', 'the rotated host signs with the new first key, k2');
is(code_at('rotated.test', $new), 200, 'rotated host accepts the new key');
is(code_at('rotated.test', $old), 200,
   'rotated host still accepts a cookie signed by the old key');
is(code_at('localhost', $new), 401,
   'a host without the new key refuses its cookies');
is(code_at('k2only.test', $new), 200, 'retired-old-key host: new key works');
is(code_at('k2only.test', $old), 401,
   'once the old key is removed, its cookies are refused');
my $res = get_with($page, 'hsc', $old, Host => 'rotated.test');
ok(!defined cookie_from($res), 'no refresh of a fresh old-key cookie');

# --- address binding ----------------------------------------------------------
$res = login('judy', $PW{judy}, path => '/bound/login');
my $bound = cookie_from($res);
ok(defined $bound, 'judy logs in at a bound location');
is(get_with('/bound/private/page.html', 'hsc', $bound)->code, 200,
   'bound cookie works from the same address');
is(get_with($page, 'hsc', $bound)->code, 401,
   'a bound cookie is refused where cookies are not bound');
is(get_with('/bound/private/page.html', 'hsc', $main)->code, 401,
   'an unbound cookie is refused where cookies are bound');
is(get_with($page, 'hsc', $main)->code, 200, 'and works where they are not');
