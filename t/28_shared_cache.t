# The record cache shared by a child's threads stays exact: with many
# users' cookies warm in it, a revoke, disable or password change made by
# hsc-admin in another process, or "log out everywhere" through the
# module, is honoured by the very next request, under every MPM (t/ runs
# each). Other users stay in.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET);
use HSCTest;

my $N = 40; # warm users
plan tests => 15;

ua_plain();
my $db = var_dir() . '/users.db';
my $page = '/private/page.html';

# $N users with a cheap KDF, each logged in once.
my (%cookie, $ok);
$ok = 1;
for my $i (1 .. $N) {
    my $u = sprintf 'warm%02d', $i;
    my ($rc, $out) = HSCTest::admin_in("pw-$u\n", 'add', $db, $u, '--kdf',
                                       'sha256-chain:1000',
                                       '--password-stdin', '--force');
    $ok &&= $rc == 0;
    $cookie{$u} = cookie_from(login($u, "pw-$u"));
    $ok &&= defined $cookie{$u};
}
ok($ok, "$N users added and logged in");

# Warm: every cookie a few times (under prefork, several children).
$ok = 1;
for my $round (1 .. 4) {
    for my $u (sort keys %cookie) {
        $ok &&= get_with($page, 'hsc', $cookie{$u})->code == 200;
    }
}
ok($ok, 'every cookie works, four times over');

# The cache is on and answered some of those (any child).
my ($hits, $entries) = (0, 0);
for (1 .. 10) {
    my $s = GET('/hsc-cache-status')->content // '';
    $hits += $1 if $s =~ /\bhits=(\d+)/;
    $entries = $1 if $s =~ /\bentries=(\d+)/;
}
is($entries, 131072, 'the shared cache has the default size');
ok($hits > 0, "and answered requests from memory ($hits hits seen)");

# Revoked_before has one-second resolution: the cookies must be older.
sleep 1;

my ($rc, $out) = admin('revoke', $db, 'warm01');
is($rc, 0, 'hsc-admin revoke warm01 (another process)') or diag $out;
is(get_with($page, 'hsc', $cookie{warm01})->code, 401,
   'warm01: the very next request is refused');

($rc, $out) = admin('disable', $db, 'warm02');
is($rc, 0, 'hsc-admin disable warm02') or diag $out;
is(get_with($page, 'hsc', $cookie{warm02})->code, 401,
   'warm02: the very next request is refused');

($rc, $out) = HSCTest::admin_in("new-pw\n", 'passwd', $db, 'warm03', '--kdf',
                                'sha256-chain:1000', '--password-stdin', '--force');
is($rc, 0, 'hsc-admin passwd warm03') or diag $out;
is(get_with($page, 'hsc', $cookie{warm03})->code, 401,
   'warm03: the very next request with the old cookie is refused');

# Log out everywhere through the module: another cookie of the same user,
# warm in the cache, is refused on the next request.
my $other = cookie_from(login('warm04', 'pw-warm04'));
is(get_with($page, 'hsc', $other)->code, 200, 'warm04: a second cookie works');
get_with($page, 'hsc', $cookie{warm04}) for 1 .. 4;
sleep 1;
my $res = post_form('/logout', form_encode(everywhere => 1),
                    Cookie => "hsc=$other");
is($res->code, 303, 'warm04 logs out everywhere with the second cookie');
is(get_with($page, 'hsc', $cookie{warm04})->code, 401,
   'warm04: the first cookie is refused on the next request');

# Everyone else is still in, on the next request as on every other.
$ok = 1;
for my $u (grep { !/^warm0[1-4]$/ } sort keys %cookie) {
    $ok &&= get_with($page, 'hsc', $cookie{$u})->code == 200;
}
ok($ok, 'the other users are still in');
unlike(error_log_text(), qr/HSC101:/, 'no cache failure logged');
