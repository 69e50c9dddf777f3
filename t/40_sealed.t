# Sealed cookies on the request path. A cookie whose amr has
# seal carries z (a passkey's PRF output) after x_n; it passes only when
# SHA-256(z) is one of the seal hashes in the user's row. The cookies here
# are minted with the real key file (HSCTest::mint2, Perl's HMAC), as a
# thief of the key file and the table could: the seal is what stops him.
# Require hsc-factor sealed and phishing-resistant, HSCSecondFactorMaxAge,
# the per-user switch (hsc-admin webauthn require-seal) refusing unsealed
# cookies everywhere but at the second-factor step, and the record cache
# forgetting a removed seal, and a step-up with a code that keeps the seal.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use Digest::SHA qw(sha256 sha256_hex);
use MIME::Base64 qw(decode_base64url);
use HSCTest;

plan tests => 48;

ua_plain(keep_alive => 0);
my $db = var_dir() . '/users.db';
my $user = 'dora';

# A write to the user file as the account page's passkey store would
# leave it (hsc-admin cannot register a passkey: that needs a browser).
sub sql
{
    my ($q) = @_;
    system('sqlite3', $db, $q) == 0 or die "sqlite3: $q\n";
    HSCTest::fix_owner();
}

# dora's password-only session, from before she has a factor (a second
# factor belongs to the user: with one, her password gives only a
# pending cookie, at /login too).
my $pwd = cookie_from(login($user, $PW{$user})) // '';
my @f = cookie_fields($pwd);
is($f[7], 1, 'a password login before any factor: amr pwd');

my ($rc, $out) = admin('totp', 'enrol', $db, $user, '--keys',
                       var_dir() . '/keys');
my ($b32) = $out =~ /secret=([A-Z2-7]+)&/;
ok($b32, 'dora has TOTP (for the second-factor step below)');
is((cookie_fields(cookie_from(login($user, $PW{$user})) // ''))[7], 65,
   'now her password at /login gives only a pending cookie');
my $xn = decode_base64url($f[9]);
is(length $xn, 32, 'its auth is x_n');

my $z = pack('C*', map { int(rand(256)) } 1 .. 32);
my $wrong = pack('C*', map { ($_ * 7) & 255 } 1 .. 32);
my $now = time;
# A cookie of dora's login, with other methods: the same iat, gen, lid.
sub forge
{
    my (%o) = @_;
    return mint2(user => $user, iat => $o{iat} // $f[3],
                 exp => $o{exp} // $now + 600, gen => $f[5], lid => $f[6],
                 amr => $o{amr}, mfa_at => $o{mfa_at} // 0,
                 auth => $o{auth});
}
my $sealed = forge(amr => 45, mfa_at => $now, auth => $xn . $z);
my $bad_z = forge(amr => 45, mfa_at => $now, auth => $xn . $wrong);
my $hwk = forge(amr => 13, mfa_at => $now, auth => $xn);
my $pwless = forge(amr => 44, mfa_at => $now, auth => $z);
my $stale = forge(iat => $now - 20, mfa_at => $now - 10, amr => 45,
                  auth => $xn . $z);
my $fresh = forge(iat => $now - 20, mfa_at => $now, amr => 45,
                  auth => $xn . $z);
is(forge(amr => 1, auth => $xn, exp => $f[4]), $pwd,
   'mint2 makes exactly the cookie the module made (the same MAC)');

sub code_of { return get_with($_[0], 'hsc', $_[1])->code }

is(code_of('/sealed/page.html', $sealed), 401,
   'a seal before the row holds any seal hash: refused');
is(code_of('/private/page.html', $sealed), 401,
   '... everywhere (step 6 fails: not authenticated)');

my $hex = sha256_hex($z);
sql("INSERT INTO hsc_passkeys (cred_id, username, alg, spki, prf, seal_hash, "
    . "name, created) VALUES (x'd0d0', '$user', -7, x'30', 1, x'$hex', "
    . "'phone', $now); UPDATE hsc_users SET passkey_seals = x'"
    . sha256_hex('another passkey') . "$hex' WHERE username = '$user'");

my $res = get_with('/sealed/page.html', 'hsc', $sealed);
is($res->code, 200, 'Require hsc-factor sealed: the right z passes');
is($res->header('X-HSC-AMR'), 'pwd hwk uv seal mfa', 'HSC_AMR says how');
is(code_of('/sealed/page.html', $sealed), 200, '... again (from the cache)');
is(code_of('/private/page.html', $sealed), 200, 'valid-user too');
is(code_of('/phishing-resistant/page.html', $sealed), 200,
   'phishing-resistant takes it (seal implies hwk)');
is(code_of('/sealed/page.html', $pwless), 200,
   'a passwordless sealed cookie (z alone) passes');
my $size = log_size();
is(code_of('/sealed/page.html', $bad_z), 401, 'a wrong z is refused');
like(log_since($size), qr/cookie refused: authentication failed/,
     '... and the error log says so');
is(code_of('/private/page.html', $bad_z), 401, '... everywhere');
$res = get_with('/sealed/page.html', 'hsc', $pwd);
is($res->code, 401, 'a password-only cookie is refused at sealed');
is($res->header('WWW-Authenticate'),
   'HSC error="insufficient_authentication"', '... as too weak');
is(code_of('/private/page.html', $pwd), 200, 'it still opens valid-user');
is(code_of('/sealed/page.html', $hwk), 401,
   'a hwk cookie without seal is refused at sealed');
is(code_of('/phishing-resistant/page.html', $hwk), 200,
   'phishing-resistant takes hwk');
is(code_of('/sealed-fresh/page.html', $fresh), 200,
   'HSCSecondFactorMaxAge 3: a seal of this second passes');
is(code_of('/sealed-fresh/page.html', $stale), 401,
   '... one of 10 seconds ago does not');
is(code_of('/sealed/page.html', $stale), 200,
   'where no age is set, it does');

# A step-up of a sealed session with a code (TOTP, or a recovery code
# for the passwordless one): the code is spent, and the new cookie keeps
# the seal and its z.
sleep(31 - time % 30) if time % 30 > 24;
my ($rc2, $rcs) = admin('recovery-codes', $db, $user, '--count', '2');
my @rcodes = $rcs =~ /^([0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4})$/mg;
$res = post_form('/2fa-login',
                 form_encode(code => totp(base32_decode($b32), time - 30),
                             return => '/private/page.html'),
                 Cookie => "hsc=$sealed");
is($res->code, 303, 'a sealed session steps up with a TOTP code: 303');
my @up = cookie_fields(cookie_from($res) // '');
is($up[7], 47, '... amr pwd|otp|hwk|uv|seal');
is(decode_base64url($up[9] // ''), $xn . $z, '... auth still x_n then z');
is(code_of('/sealed/page.html', join('.', @up)), 200,
   '... and it opens a sealed location');
$res = post_form('/2fa-login', form_encode(code => $rcodes[0]),
                 Cookie => "hsc=$pwless");
is($res->code, 303, 'a passwordless sealed session, a recovery code: 303');
@up = cookie_fields(cookie_from($res) // '');
is($up[7], 60, '... amr hwk|uv|rc|seal');
is(code_of('/sealed/page.html', join('.', @up)), 200,
   '... and it opens a sealed location');

# The switch: every cookie of dora's needs the seal.
($rc, $out) = admin('webauthn', 'require-seal', $db, $user, 'on');
is($rc, 0, 'hsc-admin webauthn require-seal on');
is(code_of('/private/page.html', $pwd), 401,
   'a password-only cookie is now refused everywhere');
is(code_of('/private/page.html', $hwk), 401, 'so is hwk without seal');
is(code_of('/private/page.html', $sealed), 200, 'a sealed one passes');
is(code_of('/private/page.html', $pwless), 200, 'so does a passwordless one');
sleep(31 - time % 30) if time % 30 > 24;
$res = post_form('/2fa-login', form_encode(username => $user,
                                           password => $PW{$user},
                                           return => '/private/page.html'));
my $pending = cookie_from($res) // '';
is((cookie_fields($pending))[7], 65, 'the password: a pending cookie');
$res = get_with('/2fa-login', 'hsc', $pending);
is($res->code, 200, 'which still works at the second-factor step');
like($res->content, qr/Signing in as <strong>dora<\/strong>/,
     '... the code form');
$res = post_form('/2fa-login',
                 form_encode(code => totp(base32_decode($b32), time),
                             return => '/private/page.html'),
                 Cookie => "hsc=$pending");
my $otp = cookie_from($res) // '';
is((cookie_fields($otp))[7], 3, 'a TOTP code finishes it: amr pwd|otp');
is(code_of('/private/page.html', $otp), 401,
   '... which the switch refuses (only a sealed passkey may finish)');
($rc, $out) = admin('show', $db, $user);
like($out, qr/^seal required: yes$/m, 'hsc-admin show says so');
($rc, $out) = admin('webauthn', 'require-seal', $db, $user, 'off');
is($rc, 0, 'require-seal off');
is(code_of('/private/page.html', $pwd), 200,
   'the password-only cookie works again (no gen + 1 either way)');

# The record cache forgets a removed seal (no gen + 1 here: only the
# row's seal column changes, as the store leaves it).
is(code_of('/sealed/page.html', $sealed), 200, 'sealed, warm in the cache');
sql("DELETE FROM hsc_passkeys WHERE username = '$user'; "
    . "UPDATE hsc_users SET passkey_seals = NULL WHERE username = '$user'");
is(code_of('/sealed/page.html', $sealed), 401,
   'its seal hash removed: refused on the next request');
is(code_of('/private/page.html', $sealed), 401, '... everywhere');
is(code_of('/private/page.html', $pwd), 200,
   'while the password-only cookie still works');
