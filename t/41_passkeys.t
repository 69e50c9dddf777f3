# Passkeys end to end through the pages' endpoints, with the
# software authenticator (test/lib/hsc_soft_authn.py): the pages show the
# buttons only where HSCPasskeys is On (the script allowed by its hash);
# a passkey registered on the account page; the password then owes a
# second factor, which the passkey gives (hwk, uv); a sealed passkey logs
# in without the password (amr hwk|uv|seal, auth z), an unsealed one
# cannot; an expired challenge, a replay and another origin are refused;
# the account page lists, renames and removes passkeys (the removal ends
# the other sessions). The hosts: t/42's pk-attack.test section of
# t/conf/extra.conf.in. t/42 attacks each check one by one.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use Digest::SHA qw(sha256);
use File::Temp qw(tempdir);
use MIME::Base64 qw(encode_base64url decode_base64url);
use HSCTest;
use HSCPasskey;

plan tests => 40;

ua_plain(keep_alive => 0);
my $db = var_dir() . '/users.db';
my $work = tempdir(CLEANUP => 1);
my $HOST = 'pk-attack.test';
my $ORIGIN = pk_host($HOST);
my $PW = 'pk-dan-pw-1';
admin_ok("$PW\n", 'add', $db, 'pk-dan', '--kdf', 'sha256-chain:1000',
         '--password-stdin', '--force');

sub pw_login
{
    my $r = pk_login('pk-dan', $PW);
    return ($r, cookie_from($r) // '');
}

# --- the pages ---------------------------------------------------------------
my $res = page('/pk-login');
my $html = $res->content;
like($html, qr/autocomplete="username webauthn"/, 'login page: the username field offers passkeys');
like($html, qr/Sign in with a passkey/, 'login page: the passkey button');
my ($js) = $html =~ m{<script>(.*?)</script>}s;
my $csp = $res->header('Content-Security-Policy') // '';
my $want = 'sha256-' . MIME::Base64::encode_base64(sha256($js // ''), '');
like($csp, qr/script-src '\Q$want\E'/, "the CSP allows the inlined script by its SHA-256");
like($csp, qr/connect-src 'self'/, 'and fetch() to this site only');
$res = Apache::TestRequest::GET('/login');
unlike($res->content, qr/<script|hsc-pk/, 'HSCPasskeys Off (/login): no button, no script');
unlike($res->header('Content-Security-Policy') // '', qr/script-src/, 'and no script-src');

# --- registration ------------------------------------------------------------
my ($r0, $dan) = pw_login();
is($r0->code, 303, 'pk-dan logs in with his password');
$res = page('/pk-account', cookie => $dan);
like($res->content, qr/You have no passkeys\..*Add a passkey/s, 'account page: no passkeys yet, the Add button');
my $st = "$work/dan.json";
my ($r, $j, $opt) = options('/pk-account', 'create', cookie => $dan);
is($r->code, 200, 'create options');
my $f = soft('register', '--state', $st, '--options', "\@$opt", '--origin', $ORIGIN,
             '--alg', '-7', '--prf', '--resident', '--name', 'laptop');
my $sealed = $f->{id};
$r = pk_post('/pk-account', $f, cookie => $dan);
is($r->code . ' ' . (json_of($r)->{sealed} ? 'sealed' : '-'), '200 sealed', 'a sealed passkey is added');
# A second factor belongs to the user: with a passkey now, his
# password-only session adds no other; one that used the passkey may.
($r, $j) = options('/pk-account', 'create', cookie => $dan);
is($r->code . ' ' . ($j->{error} // ''), '403 factor_needed',
   'a second passkey from the password-only session: 403 factor_needed');
{
    my ($rq, $pq) = pw_login();
    ($r, $j, $opt) = options('/pk-login', 'second-factor', cookie => $pq);
    my $a0 = soft('assert', '--state', $st, '--options', "\@$opt", '--origin',
                  $ORIGIN, '--purpose', 'second-factor', '--cred', $sealed,
                  '--prf');
    $dan = cookie_from(pk_post('/pk-login', $a0, cookie => $pq)) // '';
    ok(((split /\./, $dan)[7] // 0) & $AMR{hwk},
       'a new login with the passkey as its second factor: amr has hwk');
}
($r, $j, $opt) = options('/pk-account', 'create', cookie => $dan);
other_authenticator($opt, $j); # the same tool state
$f = soft('register', '--state', $st, '--options', "\@$opt", '--origin', $ORIGIN,
          '--alg', '-8', '--name', 'key');
my $plain = $f->{id};
$r = pk_post('/pk-account', $f, cookie => $dan);
is($r->code . ' ' . (json_of($r)->{sealed} ? 'sealed' : 'plain'), '200 plain', 'an unsealed one (no PRF)');
$html = page('/pk-account', cookie => $dan)->content;
like($html, qr{<td>laptop</td><td>\d{4}-\d\d-\d\d</td><td>\d{4}-\d\d-\d\d[^<]*</td><td>sealed</td>}, 'listed: laptop, its date, used (the step above), sealed');
like($html, qr{<td>key</td><td>\d{4}-\d\d-\d\d</td><td>-</td><td>not sealed</td>}, 'listed: key, never used, not sealed');

# --- the second factor ---------------------------------------------------------
my ($rp, $pend) = pw_login();
my @c = split /\./, $pend;
ok(($c[7] // 0) & $AMR{pending}, 'with a passkey, the password owes a second factor (pending)');
{
    my $r2 = pk_login('pk-dan', $PW, '/pk-login-nopk');
    my @p = split /\./, (cookie_from($r2) // '');
    ok(($p[7] // 0) & $AMR{pending},
       'at a login location without HSCPasskeys the password still owes the factor');
}
like(page('/pk-login', cookie => $pend)->content, qr/Use a passkey or security key/,
     'the second-factor page offers the passkey');
($r, $j, $opt) = options('/pk-login', 'second-factor', cookie => $pend);
my $a = soft('assert', '--state', $st, '--options', "\@$opt", '--origin', $ORIGIN,
             '--purpose', 'second-factor', '--cred', $plain);
$r = pk_post('/pk-login', $a, cookie => $pend);
is($r->code, 200, 'the unsealed passkey as the second factor: 200');
@c = split /\./, (cookie_from($r) // '');
is($c[7], $AMR{pwd} | $AMR{hwk} | $AMR{uv}, 'amr pwd|hwk|uv');
is($c[3], (split /\./, $pend)[3], 'the same iat as the pending cookie');
is($c[6], (split /\./, $pend)[6], 'the same login id');
is(length(decode_base64url($c[9] // '')), 32, 'auth: x_n alone (no seal)');
my $full = join '.', @c;
$r = pk_post('/pk-login', $a, cookie => $pend);
is($r->code . ' ' . (json_of($r)->{error} // '-'), '403 refused', 'the same assertion again: refused (one-time)');

# --- passwordless --------------------------------------------------------------
($r, $j, $opt) = options('/pk-login', 'login');
$a = soft('assert', '--state', $st, '--options', "\@$opt", '--origin', $ORIGIN,
          '--purpose', 'login', '--cred', $sealed, '--prf');
$r = pk_post('/pk-login', $a);
is($r->code, 200, 'passwordless with the sealed passkey: 200');
@c = split /\./, (cookie_from($r) // '');
is($c[7], $AMR{hwk} | $AMR{uv} | $AMR{seal}, 'amr hwk|uv|seal');
my $z = soft('prf', '--state', $st, '--cred', $sealed);
chomp $z;
is($c[9], $z, 'auth is z alone');
my $nopw = join '.', @c;
($r, $j, $opt) = options('/pk-login', 'login');
$a = soft('assert', '--state', $st, '--options', "\@$opt", '--origin', $ORIGIN,
          '--purpose', 'login', '--cred', $plain, '--prf');
$r = pk_post('/pk-login', $a);
is($r->code . ' ' . (json_of($r)->{error} // '-'), '403 refused', 'passwordless with the unsealed one: refused');
($r, $j, $opt) = options('/pk-login', 'login');
$a = soft('assert', '--state', $st, '--options', "\@$opt", '--origin', 'https://evil.test',
          '--purpose', 'login', '--cred', $sealed, '--prf');
$r = pk_post('/pk-login', $a);
is($r->code . ' ' . (json_of($r)->{error} // '-'), '403 refused', 'another origin: refused');

# --- expiry (challenges live 30 s there) ------------------------------------------
($r, $j, $opt) = options('/pk-login', 'login');
sleep 31;
$a = soft('assert', '--state', $st, '--options', "\@$opt", '--origin', $ORIGIN,
          '--purpose', 'login', '--cred', $sealed, '--prf');
$r = pk_post('/pk-login', $a);
is($r->code . ' ' . (json_of($r)->{error} // '-'), '403 expired', 'a challenge 31 s old: expired');

# --- the account page: rename, remove ----------------------------------------------
# (a fresh password login: the one above is more than HSCAccountRecentAuth old)
($rp, $pend) = pw_login();
($r, $j, $opt) = options('/pk-login', 'second-factor', cookie => $pend);
$a = soft('assert', '--state', $st, '--options', "\@$opt", '--origin', $ORIGIN,
          '--purpose', 'second-factor', '--cred', $plain);
$full = cookie_from(pk_post('/pk-login', $a, cookie => $pend)) // '';
is(page('/pk-hwk/page.html', cookie => $full)->code, 200,
   'the second factor opens a phishing-resistant location');
$r = action($full, 'passkey-rename', fields => { passkey_id => $plain, passkey_name => 'yubikey' });
is($r->code, 303, 'rename: 303');
like(page('/pk-account', cookie => $full)->content, qr{<td>yubikey</td>}, 'renamed');
$r = action($full, 'passkey-rename', fields => { passkey_id => $plain, passkey_name => ' bad' });
is($r->code, 400, 'a name with a space first: 400');
$r = action($nopw, 'passkey-remove', fields => { passkey_id => $sealed });
isnt($r->code, 303, 'a passwordless session cannot remove a passkey');
$r = action($full, 'passkey-remove', fields => { passkey_id => $plain });
is($r->code, 303, 'remove: 303');
my $after = cookie_from($r) // '';
ok($after ne '' && (split /\./, $after)[5] > (split /\./, $full)[5], 'this session is re-issued with the new gen');
is(page('/pk-hwk/page.html', cookie => $full)->code, 401,
   'the old cookie (the other sessions) ended');
is(page('/pk-hwk/page.html', cookie => $after)->code, 200, 'this one goes on');
unlike(page('/pk-account', cookie => $after)->content, qr{<td>yubikey</td>}, 'removed from the list');
