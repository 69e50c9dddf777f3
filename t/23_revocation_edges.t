# Revocation edges (spec hsc-v1, amended). Revoking
# stores now + 1, so a cookie issued in the same second as "hsc-admin
# revoke" or "log out everywhere" is refused too; a login in that second
# gets iat = max(now, revoked_before) and works; disabling revokes, so
# enabling again brings back no earlier cookie (a stolen one included).
# Each case runs inside one second (it starts just after a second begins,
# and is tried again, up to three times, if the machine was too slow).
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use POSIX qw(floor);
use Time::HiRes qw(time);
use HSCTest;

plan tests => 11;

my $db = var_dir() . '/users.db';
for my $u (qw(rv-admin rv-logout rv-disable)) {
    admin_ok("$u-pw\n", 'add', $db, $u, '--kdf', 'sha256-chain:1000',
             '--password-stdin', '--force');
}
ua_plain();
my $page = '/private/page.html';
sub status { get_with($page, 'hsc', $_[0])->code }

# Run $steps (a code ref returning a list of results) inside one second:
# start just after a second begins; again when the second was left.
sub in_one_second
{
    my ($steps) = @_;
    for (1 .. 3) {
        sleep_until(floor(time) + 1.02);
        my $sec = floor(time);
        my @r = $steps->();
        return @r if floor(time) == $sec;
    }
    die "three tries, never inside one second: the machine is too slow\n";
}

# hsc-admin revoke in the second of a login.
my ($before, $rc, $after) = in_one_second(sub {
    my $c = cookie_from(login('rv-admin', 'rv-admin-pw'));
    my ($rc) = admin('revoke', $db, 'rv-admin');
    my $again = cookie_from(login('rv-admin', 'rv-admin-pw'));
    return ($c, $rc, $again);
});
is($rc, 0, 'hsc-admin revoke');
isnt(status($before), 200,
     'a cookie issued in the same second as the revocation is refused');
is(status($after), 200,
   'a login after it, in the same second, works (iat = revoked_before)');
my $iat = (cookie_fields($after))[3];
ok(defined $iat && $iat > floor(time) - 5, 'its iat is about now');

# "Log out everywhere" in the second of another login.
my ($other, $mine, $code) = in_one_second(sub {
    my $o = cookie_from(login('rv-logout', 'rv-logout-pw'));
    my $m = cookie_from(login('rv-logout', 'rv-logout-pw'));
    my $res = post_form('/logout', form_encode(everywhere => 1),
                        Cookie => "hsc=$m");
    return ($o, $m, $res->code);
});
is($code, 303, 'logged out everywhere');
isnt(status($other), 200,
     'the other cookie of that second is refused');
my $next = cookie_from(login('rv-logout', 'rv-logout-pw'));
is(status($next), 200, 'a new login works');

# Disable, then enable: no earlier cookie comes back.
my $stolen = cookie_from(login('rv-disable', 'rv-disable-pw'));
is(status($stolen), 200, 'a cookie (think: a stolen one)');
admin_ok(undef, 'disable', $db, 'rv-disable');
isnt(status($stolen), 200, 'refused while disabled');
admin_ok(undef, 'enable', $db, 'rv-disable');
isnt(status($stolen), 200, 'and still refused once enabled again');
is(status(cookie_from(login('rv-disable', 'rv-disable-pw'))), 200,
   'a new login works');
