# The per-user seal switch on the account page (action=seal-on,
# seal-off; docs/passkeys.md). It shows only to a user with passkeys; on
# is refused from an unsealed session and while an unsealed passkey
# exists, and needs a recent login; once on, a password-only cookie
# (minted with the real key file and the user's real x_n, as a thief of
# both could) and an unsealed passkey's cookie are refused on protected
# pages while the sealed session goes on; off from the sealed session
# gives them back. The passkey list shows when each was last used.
# Hosts: t/42's pk-attack.test section of t/conf/extra.conf.in.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use File::Temp qw(tempdir);
use MIME::Base64 qw(decode_base64url);
use POSIX qw(strftime);
use HSCTest;
use HSCPasskey;

plan tests => 32;

ua_plain(keep_alive => 0);
my $db = var_dir() . '/users.db';
my $work = tempdir(CLEANUP => 1);
my $HOST = 'pk-attack.test';
my $ORIGIN = pk_host($HOST);
my $PW = 'pk-sam-pw-1';
my $U = 'pk-sam';
admin_ok("$PW\n", 'add', $db, $U, '--kdf', 'sha256-chain:1000',
         '--password-stdin', '--force');

sub seal_required
{
    my (undef, $out) = admin('show', $db, $U);
    return ($out // '') =~ /^seal required: (\w+)/m ? $1 : '?';
}

my $st = "$work/sam.json";
# The second factor with passkey $cred (its z too when $prf): the cookie.
sub second_factor
{
    my ($cred, $prf) = @_;
    my $pend = cookie_from(pk_login($U, $PW)) // '';
    my (undef, undef, $opt) = options('/pk-login', 'second-factor', cookie => $pend);
    my $a = soft('assert', '--state', $st, '--options', "\@$opt", '--origin', $ORIGIN,
                 '--purpose', 'second-factor', "--cred=$cred", $prf ? ('--prf') : ());
    return cookie_from(pk_post('/pk-login', $a, cookie => $pend)) // '';
}

my $r0;
# --- no passkey: no switch ----------------------------------------------------------
my $pw = cookie_from(pk_login($U, $PW)) // '';
is((cookie_fields($pw))[7], $AMR{pwd}, 'a password login (no passkey yet): amr pwd');
unlike(page('/pk-account', cookie => $pw)->content, qr/Every sign-in needs a passkey/,
       'no passkey: the page shows no switch');

# --- an unsealed and a sealed passkey -------------------------------------------------
# The first passkey may come from the password-only session; with it, a
# second factor belongs to pk-sam, and the second needs a session that
# used one (the unsealed key here, so that phone stays unused).
my (undef, undef, $opt) = options('/pk-account', 'create', cookie => $pw);
my $f = soft('register', '--state', $st, '--options', "\@$opt", '--origin', $ORIGIN,
             '--alg', '-7', '--name', 'old-key');
my $plain = $f->{id};
is(pk_post('/pk-account', $f, cookie => $pw)->code, 200, 'an unsealed passkey added');
my $j;
($r0, $j) = options('/pk-account', 'create', cookie => $pw);
is($r0->code . ' ' . ($j->{error} // ''), '403 factor_needed',
   'another from the password-only session: 403 factor_needed');
my $hw = second_factor($plain, 0);
is((cookie_fields($hw))[7], $AMR{pwd} | $AMR{hwk} | $AMR{uv},
   'the unsealed passkey as the second factor: amr pwd|hwk|uv');
(undef, $j, $opt) = options('/pk-account', 'create', cookie => $hw);
other_authenticator($opt, $j); # the same tool state
$f = soft('register', '--state', $st, '--options', "\@$opt", '--origin', $ORIGIN,
          '--alg', '-7', '--prf', '--name', 'phone');
my $sealed = $f->{id};
is(pk_post('/pk-account', $f, cookie => $hw)->code, 200, 'a sealed one added');

my $html = page('/pk-account', cookie => $pw)->content;
like($html, qr{<strong>Every sign-in needs a passkey: off</strong>}, 'the switch is shown: off');
like($html, qr/cannot be turned on while a passkey is not sealed/,
     'with an unsealed passkey, the page says why it cannot be turned on');
like($html, qr{<td>phone</td><td>\d{4}-\d\d-\d\d</td><td>-</td>}, 'phone: never used yet');
like($html, qr{placeholder="old-key"}, 'the rename field shows the current name');
my $r = action($pw, 'seal-on');
is($r->code, 403, 'seal-on from a password session: 403');
like($r->content, qr/sign in with your passkey first/, 'and the page says to sign in with the passkey');

# --- from a sealed session ------------------------------------------------------------
my $sd = second_factor($sealed, 1);
my @c = cookie_fields($sd);
is($c[7], $AMR{pwd} | $AMR{hwk} | $AMR{uv} | $AMR{seal}, 'the sealed passkey as the second factor: amr pwd|hwk|uv|seal');
my $today = strftime('%Y-%m-%d', gmtime);
like(page('/pk-account', cookie => $sd)->content,
     qr{<td>phone</td><td>\d{4}-\d\d-\d\d</td><td>\Q$today\E</td>}, 'phone: last used today');
$r = action($sd, 'seal-on');
is($r->code, 400, 'seal-on while an unsealed passkey exists: 400');
is(seal_required(), 'no', 'and the store says off');
$r = action($sd, 'passkey-remove', fields => { passkey_id => $plain });
is($r->code, 303, 'the unsealed passkey removed');
$sd = cookie_from($r) // '';
my $unsealed = second_factor($sealed, 0); # the sealed passkey without its z
is((cookie_fields($unsealed))[7], $AMR{pwd} | $AMR{hwk} | $AMR{uv}, 'a login with the passkey but no z: not sealed');
@c = cookie_fields($sd);
# A thief with the key file and the password's x_n: the session's own.
my $forged = mint2(user => $U, iat => $c[3], exp => time + 600, gen => $c[5],
                   lid => $c[6], amr => $AMR{pwd}, mfa_at => 0,
                   auth => substr(decode_base64url($c[9]), 0, 32));
is(page('/pk-any/page.html', cookie => $forged)->code, 200, 'switch off: a password-only cookie is accepted');
like(page('/pk-account', cookie => $sd)->content, qr{value="seal-on">\n<button type="submit">Turn it on},
     'all sealed, a sealed session: the Turn it on button');
sleep 2;
$r = action($sd, 'seal-on', path => '/pk-account-old');
is($r->code, 401, 'seal-on needs a recent login (HSCAccountRecentAuth 1 there)');

# --- on --------------------------------------------------------------------------------
$r = action($sd, 'seal-on');
is($r->code . ' ' . ($r->header('Location') // ''), '303 /pk-account?done=seal-on', 'seal-on from the sealed session: 303');
is(seal_required(), 'yes', 'the store says on');
is(page('/pk-any/page.html', cookie => $forged)->code, 401, 'on: the password-only cookie is refused');
is(page('/pk-hwk/page.html', cookie => $unsealed)->code, 401, 'on: the unsealed passkey login is refused');
is(page('/pk-any/page.html', cookie => $sd)->code, 200, 'on: the sealed session goes on');
$html = page('/pk-account', cookie => $sd)->content;
like($html, qr{<strong>Every sign-in needs a passkey: on</strong>}, 'the page says on');
like($html, qr{value="seal-off">\n<button type="submit">Turn it off}, 'and offers to turn it off');

# --- off -------------------------------------------------------------------------------
$r = action($sd, 'seal-off');
is($r->code, 303, 'seal-off from the sealed session: 303');
is(seal_required(), 'no', 'the store says off');
is(page('/pk-any/page.html', cookie => $forged)->code, 200, 'off: the password-only cookie works again');
is(page('/pk-hwk/page.html', cookie => $unsealed)->code, 200, 'off: so does the unsealed passkey login');
