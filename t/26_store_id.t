# The per-username failed-login counter is keyed by the SQLite file's store
# id, not by the path HSCUserDB spells, in the hosts of the
# "t/26_store_id.t" section of t/conf/extra.conf.in (HSCThrottleUser 3,
# address counting off):
#   storeid-a.test      var/storeid/users.db
#   storeid-b.test      var/storeid-link/users.db (the same file)
#   storeid-other.test  var/storeid-other/users.db (another file)
#   storeid-v1.test     var/storeid-v1/users.db (schema version 1: no id)
# Every database holds its own sid-user (t/lib/HSCTest.pm).
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use HSCTest;

plan tests => 32;

ua_plain();

sub login_at
{
    my ($host, $user, $pw) = @_;
    return login($user, $pw, headers => [Host => $host])->code;
}

sub codes
{
    my ($n, @args) = @_;
    return join ' ', map { login_at(@args) } 1 .. $n;
}

sub user_version
{
    my ($db) = @_;
    my $v = `sqlite3 '$db' 'PRAGMA user_version'`;
    chomp $v;
    return $v;
}

my ($a, $b) = ('storeid-a.test', 'storeid-b.test');

# Both spellings serve the same users.
is(login_at($a, 'sid-user', 'sid-pw'), 303, 'a login through the first path');
is(login_at($b, 'sid-user', 'sid-pw'), 303, 'and through the second');

# Three failures, spread over the two spellings, reach the limit of 3: the
# fourth is refused through either. Keyed by the path, each spelling would
# have its own count and the fourth would be checked (401).
is(codes(2, $a, 'sid-user', 'wrong'), '401 401', 'two failures through a');
is(login_at($b, 'sid-user', 'wrong'), 401, 'a third through b');
is(login_at($b, 'sid-user', 'wrong'), 429,
   'the fourth, through b, is refused: one count for both spellings');
is(login_at($a, 'sid-user', 'sid-pw'), 429,
   'through a too, even with the right password');

# Another database with a user of the same name keeps its own count.
is(codes(3, 'storeid-other.test', 'sid-user', 'wrong'), '401 401 401',
   'another database: its own count (three failures checked)');
is(login_at('storeid-other.test', 'sid-user', 'wrong'), 429,
   'and its own limit');

# A file of schema version 1: served as it is (httpd never upgrades a
# schema), counted under its path, with one notice per child.
my $v1 = storeid_db('storeid-v1');
my $off = log_size();
my $res = login('sid-user', 'sid-pw', headers => [Host => 'storeid-v1.test']);
# A second factor belongs to the user, and this file cannot say whether
# one has any: a right password there is refused (fail closed).
is($res->code, 503, 'a version 1 file: no login (its users\' factors cannot be read)');
# A file without gen had format 1 cookies (its revocation is
# revoked_before alone); they open pages with amr pwd and no login id.
# One its login made before the factor rule, minted here from the password
# (checked against the stored authenticator).
my $old_cookie = mint1(db => $v1, user => 'sid-user', password => 'sid-pw',
                       iat => time - 60, exp => time + 3600) // '';
like($old_cookie, qr/^1\./, 'a format 1 cookie (the file has no gen)');
sub page_at
{
    my ($cookie) = @_;
    return get_with('/private/page.html', 'hsc', $cookie,
                    Host => 'storeid-v1.test');
}
$res = page_at($old_cookie);
is($res->code, 200, 'which opens a protected page there');
is($res->header('X-HSC-AMR'), 'pwd', 'HSC_AMR is pwd');
unlike($res->header('X-HSC-Login-Id') // '', qr/^[A-Za-z0-9_-]{11}$/,
       'and there is no login id (HSC_LOGIN_ID unset)');
is(codes(3, 'storeid-v1.test', 'sid-user', 'wrong'), '401 401 401',
   'three failures there are checked');
is(login_at('storeid-v1.test', 'sid-user', 'wrong'), 429,
   'the fourth is refused: counted under the path');
is(user_version($v1), 1, 'httpd left the file at version 1');
my $log = log_since($off);
my @notes = $log =~ /^.*HSC181: .*$/mg;
ok(@notes >= 1, 'HSC181 says the file has no store id')
    or diag $log;
like($notes[0] // '', qr/\[hsc:notice\].*storeid-v1\/users\.db: .*hsc-admin init/,
     'at notice, naming the file and what adds an id');
my %per_child;
for my $line (@notes) {
    my ($pid) = $line =~ /\[pid (\d+)/;
    $per_child{ $pid // 'none' }++;
}
is((grep { $_ > 1 } values %per_child), 0,
   'once per child, not once per login')
    or diag explain \%per_child;

# hsc-admin init upgrades it while httpd runs; the next login counts under
# the new store id (a fresh count), without a restart.
my ($rc, $out) = admin('init', $v1);
storeid_fix_owner();
is($rc, 0, 'hsc-admin init upgrades the file') or diag $out;
like($out, qr/store id [0-9a-f]{32}$/m, 'and prints its new store id');
is(user_version($v1), 7, 'now version 7');
is(login_at('storeid-v1.test', 'sid-user', 'wrong'), 401,
   'the next failure is checked: counted under the store id now');
# The upgrade logs nobody out; new logins are format 2; a revocation ends
# both (format 1 by revoked_before, format 2 by gen).
is(page_at($old_cookie)->code, 200,
   'the format 1 cookie still opens the page after the upgrade');
$res = login('sid-user', 'sid-pw', headers => [Host => 'storeid-v1.test']);
my $new_cookie = cookie_from($res) // '';
like($new_cookie, qr/^2\.[^.]+\.[^.]+\.\d+\.\d+\.0\./,
     'a new login there is format 2, at gen 0');
$res = page_at($new_cookie);
is($res->code, 200, 'and opens the page');
is($res->header('X-HSC-Login-Id'), (cookie_fields($new_cookie))[6],
   'HSC_LOGIN_ID is its lid');
is(get_with('/format2-only/page.html', 'hsc', $old_cookie,
            Host => 'storeid-v1.test')->code, 401,
   'HSCCookieFormat1 Off refuses the format 1 cookie');
is(get_with('/format2-only/page.html', 'hsc', $new_cookie,
            Host => 'storeid-v1.test')->code, 200,
   'and takes the format 2 one');
($rc, $out) = admin('revoke', $v1, 'sid-user');
storeid_fix_owner();
is($rc, 0, 'hsc-admin revoke') or diag $out;
is(page_at($new_cookie)->code, 401, 'ends the format 2 cookie (gen 1 now)');
is(page_at($old_cookie)->code, 401, 'and the format 1 one');
