# Issue 10, item 3: a failed login takes the same time whatever the name.
# Before, a user stored with a cheap KDF (sha256-chain:1000) answered a
# wrong password in about 2 ms, against some 450 ms for an unknown name
# (the dummy check of the default KDF): one request told whether a name
# exists. timing.test runs the default dummy (HSCDummyKDF
# scrypt:65536:8:2, as a server without the directive).
#
# Robust on a loaded 2-core machine: three samples of each kind, taken in
# turn, medians compared within a factor of two.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use Time::HiRes qw(time);
use HSCTest;

plan tests => 5;

my $db = var_dir() . '/users.db';
admin_ok("t-pw\n", 'add', $db, 'timing-cheap', '--kdf', 'sha256-chain:1000',
         '--password-stdin');
admin_ok("t-pw\n", 'add', $db, 'timing-default', '--password-stdin');

ua_plain();
sub failed_login_time
{
    my ($user) = @_;
    my $t0 = time;
    my $res = login($user, 'wrong', headers => [Host => 'timing.test']);
    die "$user: " . $res->code . "\n" if $res->code != 401;
    return time - $t0;
}
sub median { my @s = sort { $a <=> $b } @_; return $s[@s / 2] }

my (%t, $n);
for my $round (1 .. 3) {
    push @{ $t{cheap} }, failed_login_time('timing-cheap');
    push @{ $t{default} }, failed_login_time('timing-default');
    push @{ $t{unknown} }, failed_login_time('timing-nosuch-' . ++$n);
}
my %m = map { $_ => median(@{ $t{$_} }) } keys %t;
diag(sprintf '%s median %.3f s (%s)', $_, $m{$_},
             join ' ', map { sprintf '%.3f', $_ } @{ $t{$_} })
    for sort keys %m;

ok($m{default} > 0.02, 'the default KDF costs something here')
    or diag 'the dummy of timing.test is not the default';
for my $pair (['cheap', 'unknown'], ['cheap', 'default'],
              ['default', 'unknown']) {
    my ($a, $b) = @$pair;
    my $ratio = $m{$a} > $m{$b} ? $m{$a} / $m{$b} : $m{$b} / $m{$a};
    ok($ratio < 2, sprintf('%s and %s within a factor of two (%.2f)',
                           $a, $b, $ratio));
}
ok($m{cheap} >= $m{unknown} / 2,
   'a cheap-KDF user is never the quick one');
