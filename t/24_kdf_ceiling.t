# A stored KDF above the ceilings (20,000,000 chain
# steps; scrypt 256 MiB of memory or 512 MiB of work) is never run: the
# login fails closed, in a failure's time, and the log names the KDF
# (HSC120). Before, scrypt:1048576:8:1 cost 1 GiB and some 12 s a login.
# The records are written with sqlite3, as another program could (hsc-admin
# refuses them without --force).
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Time::HiRes qw(time);
use HSCTest;

my @huge = ('scrypt:1048576:8:1', 'sha256-chain:100000000');
plan tests => 4 * @huge + 1;

my $db = var_dir() . '/users.db';
ua_plain();
my $log = Apache::Test::vars('t_logs') . '/error_log';
my $i = 0;
for my $kdf (@huge) {
    my $u = 'ceiling-' . $i++;
    admin_ok("$u-pw\n", 'add', $db, $u, '--kdf', 'sha256-chain:1000',
             '--password-stdin', '--force');
    system('sqlite3', $db,
           "UPDATE hsc_users SET kdf = '$kdf' WHERE username = '$u'") == 0
        or die "sqlite3: $?";
    HSCTest::fix_owner();
    my $t0 = time;
    my $res = login($u, "$u-pw");
    my $dt = time - $t0;
    is($res->code, 401, "$kdf: the login fails (closed)");
    ok(!defined cookie_from($res), "$kdf: no cookie");
    ok($dt < 3, sprintf('%s: at once (%.2f s), the KDF was not run',
                        $kdf, $dt));
    my $text = do { open my $fh, '<', $log or die "$log: $!"; local $/; <$fh> };
    like($text, qr/HSC120: login refused for user "\Q$u\E": the stored KDF \Q$kdf\E is above the ceilings/,
         "$kdf: logged with the user's KDF (HSC120)");
}
my ($rc) = HSCTest::admin_in("pw\n", 'add', $db, 'ceiling-x', '--kdf',
                             $huge[0], '--password-stdin');
is($rc, 3, 'hsc-admin add refuses such a KDF without --force');
