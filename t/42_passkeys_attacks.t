# Passkey ceremonies under attack. The authenticator is software
# (test/lib/hsc_soft_authn.py, ES256, EdDSA and RS256, PRF over
# hmac-secret), so that each response can be wrong in one way: another
# origin or RP ID, type, crossOrigin, UV missing, a sign count going back,
# a bad signature, another user handle, no or a wrong PRF output, a replay,
# an expired challenge (minted here with the key file, as the module mints
# them: test/vectors/gen-wa-challenges.py), and sealed cookies forged with
# the real key but a wrong z or none. The hosts are the "t/42" section of
# t/conf/extra.conf.in (RP ID pk-attack.test, challenges living 30 s).
# The ceremony contract: docs/dev/passkeys.md.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Digest::SHA qw(hmac_sha256 sha256);
use File::Temp qw(tempdir);
use JSON::PP ();
use MIME::Base64 qw(encode_base64url decode_base64url);
use Time::HiRes ();
use HSCTest;
use HSCPasskey;

plan tests => 103;

ua_plain(keep_alive => 0);
my $db = var_dir() . '/users.db';
my $work = tempdir(CLEANUP => 1);
my $HOST = 'pk-attack.test';
my $ORIGIN = pk_host($HOST);
my %pw;
for my $u (qw(pk-ann pk-ben pk-cat)) {
    $pw{$u} = "$u-pw-1";
    admin_ok("$pw{$u}\n", 'add', $db, $u, '--kdf', 'sha256-chain:1000',
             '--password-stdin', '--force');
}

# --- helpers (the shared ones: t/lib/HSCPasskey.pm) --------------------------

# One refusal: status, the contract's error word.
sub refused
{
    my ($res, $status, $err, $what) = @_;
    my $got = $res->code . ' ' . (json_of($res)->{error} // '-');
    is($got, "$status $err", $what);
}

# The signing key: the key file's first key line (earlier files rotate
# keys: it need not be k1), as HSCTest::mint2 reads it.
my ($secret) = HSCTest::slurp(var_dir() . '/keys') =~ /^[A-Za-z0-9_-]+\s+(\S+)/m;
$secret = decode_base64url($secret);

# A challenge as the module makes them (hsc_core/hsc_wa_challenge.h):
# 1 | purpose | issued ms | nonce(16) | mac(16).
my %PURPOSE = (register => 1, 'second-factor' => 2, passwordless => 3);
sub mint_challenge
{
    my ($purpose, $user, $issued_ms) = @_;
    my $kc = hmac_sha256('hsc-webauthn-challenge-v1', $secret);
    my $signed = pack('CC', 1, $PURPOSE{$purpose})
        . pack('Q>', $issued_ms) . join('', map { chr int rand 256 } 1 .. 16);
    my $mac = substr(hmac_sha256("hsc-wa-challenge\n" . $signed . $user, $kc), 0, 16);
    return encode_base64url($signed . $mac);
}

# A format 2 cookie with amr and auth replaced, signed with the real key
# (docs/spec/hsc-v2.md; the vhosts have no scope and no address binding).
sub forge
{
    my ($cookie, $amr, $auth) = @_;
    my @f = split /\./, $cookie;
    $f[7] = $amr;
    $f[9] = encode_base64url($auth);
    my $body = join '.', @f[0 .. 9];
    my $mk = hmac_sha256('hsc-cookie-mac-v1', $secret);
    return $body . '.' . encode_base64url(hmac_sha256("$body\n\n", $mk));
}

sub sealed_get
{
    my ($path, $cookie) = @_;
    return page($path, cookie => $cookie)->code;
}

# --- passkeys off: no endpoint ---------------------------------------------------
my ($res, $j) = options('/login', 'login', host => 'localhost');
refused($res, 404, 'not_found', 'HSCPasskeys Off (/login): options are 404 not_found');

# --- registration ------------------------------------------------------------------
my $st = "$work/ann.json";
$res = pk_login('pk-ann', $pw{'pk-ann'});
my $ann = cookie_from($res) // '';
is($res->code, 303, 'pk-ann logs in with her password (no factor yet)');
my ($xn) = decode_base64url((split /\./, $ann)[9] // '');

my $opt;
($res, $j, $opt) = options('/pk-account', 'create', cookie => $ann);
is($res->code, 200, 'create options: 200');
like($res->header('Cache-Control') // '', qr/no-store/, 'not stored by caches');
is("$j->{rpId} $j->{userVerification}", "$HOST preferred",
   'the RP ID of the host, UV preferred');
is($j->{prfSalt}, encode_base64url(sha256('hsc-prf-seal-v1')),
   "prfSalt is SHA-256('hsc-prf-seal-v1')");
ok(length(decode_base64url($j->{userId} // '')) == 32, 'a 32-byte user handle');
my $handle = $j->{userId};

my $f = soft('register', '--state', $st, '--options', "\@$opt", '--origin',
             $ORIGIN, '--alg', '-7', '--prf', '--resident', '--name', 'es256');
my $create_fields = $f;
$res = pk_post('/pk-account', $f, cookie => $ann);
$j = json_of($res);
is($res->code . ' ' . ($j->{sealed} ? 'sealed' : 'plain'), '200 sealed',
   'an ES256 resident key with PRF is registered, sealed');
my $sealed_id = $f->{id};
# A second factor belongs to the user: with a passkey now, her
# password-only session changes no passkey (else a stolen password could
# add one); the registrations below come from a login that used the
# sealed key as its second factor.
$res = pk_post('/pk-account', $f, cookie => $ann);
refused($res, 403, 'factor_needed',
        'the same create again from the password-only session: 403 factor_needed');
{
    my $pq = cookie_from(pk_login('pk-ann', $pw{'pk-ann'})) // '';
    my ($r, $o, $file) = options('/pk-login', 'second-factor', cookie => $pq);
    my $a = soft('assert', '--state', $st, '--options', "\@$file", '--origin',
                 $ORIGIN, '--purpose', 'second-factor', '--cred', $sealed_id,
                 '--prf');
    $ann = cookie_from(pk_post('/pk-login', $a, cookie => $pq)) // '';
    is(((split /\./, $ann)[7] // 0) & ($AMR{hwk} | $AMR{seal}),
       $AMR{hwk} | $AMR{seal},
       'a new login with the sealed key as its second factor: hwk|seal');
}
$res = pk_post('/pk-account', $f, cookie => $ann);
is($res->code, 409, 'the same create again: 409 (exists)');

# Refused registrations, each on fresh options.
for my $case (
        [['--bad-origin', 'https://evil.test'], 'refused', 'another origin'],
        [['--bad-origin', "http://$HOST"], 'refused', 'the http origin'],
        [['--bad-rp-id', 'evil.test'], 'refused', 'another rpIdHash'],
        [['--bad-type', 'webauthn.get'], 'refused', 'type webauthn.get'],
        [['--cross-origin'], 'refused', 'crossOrigin true'],
        [['--wrong-public-key', '-7'], 'refused',
         "a publicKey that is not the attestation's key"],
        [['--flags-clear', '1'], 'refused', 'UP clear']) {
    my ($args, $err, $what) = @$case;
    ($res, $j, $opt) = options('/pk-account', 'create', cookie => $ann);
    $f = soft('register', '--state', "$work/junk.json", '--options', "\@$opt",
              '--origin', $ORIGIN, @$args);
    refused(pk_post('/pk-account', $f, cookie => $ann), 403, $err,
            "create with $what: 403 $err");
}
($res, $j, $opt) = options('/pk-account', 'create', cookie => $ann);
$f = soft('register', '--state', "$work/junk.json", '--options', "\@$opt",
          '--origin', $ORIGIN);
$f->{challenge} = mint_challenge('register', 'pk-ann', int(Time::HiRes::time() * 1000));
refused(pk_post('/pk-account', $f, cookie => $ann), 403, 'refused',
        'create whose clientDataJSON names another challenge than the field: 403');
$f->{clientDataJSON} = 'not base64!';
refused(pk_post('/pk-account', $f, cookie => $ann), 400, 'bad_request',
        'malformed base64url: 400 bad_request');

# The other two algorithms, without PRF: not sealed. EdDSA not resident.
($res, $j, $opt) = options('/pk-account', 'create', cookie => $ann);
like($j->{excludeCredentials} // '', qr/\Q$sealed_id\E/,
     'excludeCredentials names the first key');
# (Another authenticator, sharing the tool's state file.)
other_authenticator($opt, $j);
$f = soft('register', '--state', $st, '--options', "\@$opt", '--origin',
          $ORIGIN, '--alg', '-8', '--name', 'eddsa');
my $eddsa_id = $f->{id};
$res = pk_post('/pk-account', $f, cookie => $ann);
is($res->code . ' ' . (json_of($res)->{sealed} ? 'sealed' : 'plain'), '200 plain',
   'an EdDSA key without PRF: registered, not sealed');
($res, $j, $opt) = options('/pk-account', 'create', cookie => $ann);
other_authenticator($opt, $j);
$f = soft('register', '--state', $st, '--options', "\@$opt", '--origin',
          $ORIGIN, '--alg', '-257', '--resident', '--name', 'rs256');
my $rs256_id = $f->{id};
is(pk_post('/pk-account', $f, cookie => $ann)->code, 200,
   'an RS256 resident key without PRF: registered');

# A synced passkey's sign count stays 0: then only the challenge's time
# refuses a replay.
($res, $j, $opt) = options('/pk-account', 'create', cookie => $ann);
other_authenticator($opt, $j);
$f = soft('register', '--state', $st, '--options', "\@$opt", '--origin',
          $ORIGIN, '--alg', '-7', '--resident', '--prf', '--zero-counter',
          '--backup', '--name', 'synced');
my $synced_id = $f->{id};
is(pk_post('/pk-account', $f, cookie => $ann)->code, 200,
   'a synced ES256 key (BE, BS, count 0): registered');

# Registration needs a recent password (HSCAccountRecentAuth 1 there).
sleep 1;
($res, $j) = options('/pk-account-old', 'create', cookie => $ann);
refused($res, 403, 'reauth', 'create options 2 s after the login where 1 s is recent: 403 reauth');

# --- passwordless login --------------------------------------------------------------
sub passwordless
{
    my (@args) = @_;
    my ($r, $o, $file) = options('/pk-login', 'login');
    my $a = soft('assert', '--state', $st, '--options', "\@$file", '--origin',
                 $ORIGIN, '--purpose', 'login', @args);
    return ($a, pk_post('/pk-login', $a), $o);
}
my ($a, $o);
($a, $res, $o) = passwordless('--prf', '--cred', $sealed_id);
is($o->{userVerification}, 'required', 'passwordless options: UV required');
ok(!exists $o->{allowCredentials} || ($o->{allowCredentials} // '') eq '',
   'and no allowCredentials');
$j = json_of($res);
is($res->code . ' ' . ($j->{ok} ? 'ok' : '-'), '200 ok',
   'passwordless with the sealed ES256 key and its PRF output: 200 ok')
    or diag($res->content);
my $pl = cookie_from($res) // '';
my @c = split /\./, $pl;
is($c[7], $AMR{hwk} | $AMR{uv} | $AMR{seal}, 'the cookie: amr hwk|uv|seal');
my $z = soft('prf', '--state', $st, '--cred', $sealed_id);
chomp $z;
is($c[9], $z, 'its auth is z, the PRF output for the seal salt');
is(sealed_get('/pk-sealed/page.html', $pl), 200, 'Require hsc-factor sealed: 200');
is(sealed_get('/pk-hwk/page.html', $pl), 200, 'Require hsc-factor phishing-resistant: 200');

refused(pk_post('/pk-login', $a), 403, 'refused', 'the same assertion again (replay): 403');

for my $case (
        [['--bad-origin', 'https://evil.test'], 'another origin'],
        [['--bad-origin', "https://sub.$HOST"], 'a subdomain origin not listed'],
        [['--bad-rp-id', 'evil.test'], 'the rpIdHash of another RP ID'],
        [['--bad-type', 'webauthn.create'], 'type webauthn.create'],
        [['--cross-origin'], 'crossOrigin true'],
        [['--bad-signature'], 'a bit of the signature flipped'],
        [['--no-uv'], 'no UV (passwordless always requires it)'],
        [['--flags-clear', '1'], 'UP clear'],
        [['--user-handle', encode_base64url('x' x 32)], 'another user handle'],
        [['--no-user-handle'], 'no user handle'],
        [['--bad-prf', ''], 'no PRF output for a sealed key'],
        [['--bad-prf', encode_base64url('z' x 32)], 'a wrong PRF output'],
        [['--client-challenge', encode_base64url('c' x 42)],
         'clientDataJSON naming another challenge']) {
    my ($args, $what) = @$case;
    ($a, $res) = passwordless('--prf', '--cred', $sealed_id, @$args);
    refused($res, 403, 'refused', "passwordless with $what: 403 refused");
}
# The synced key (count 0): a replay is refused by the challenge's time.
($a, $res) = passwordless('--prf', '--cred', $synced_id);
is($res->code, 200, 'passwordless with the synced key (count 0): 200');
my $off = log_size();
refused(pk_post('/pk-login', $a), 403, 'refused', 'its assertion again: 403');
like(log_since($off), qr/passkey login refused for user "pk-ann": already used \(a replay\)/,
     'logged as a replay (the count is 0 both times)');
($a, $res) = passwordless('--prf', '--cred', $synced_id);
is($res->code, 200, 'a fresh one, count 0 again: 200');
# An unsealed key cannot log in alone, even with a good assertion.
($a, $res) = passwordless('--cred', $rs256_id);
refused($res, 403, 'refused', 'passwordless with the unsealed RS256 key: 403');
# The same credential at a host whose RP ID is another.
{
    my ($r, $oo, $file) = options('/pk-login', 'login', host => 'pk-other.test');
    is($oo->{rpId}, 'pk-other.test', 'pk-other.test: its own RP ID');
    my $x = soft('assert', '--state', $st, '--options', "\@$file", '--origin',
                 $ORIGIN, '--prf', '--cred', $sealed_id, '--bad-rp-id', $HOST);
    refused(pk_post('/pk-login', $x, host => 'pk-other.test'), 403, 'refused',
            "pk-attack.test's assertion at pk-other.test: 403");
}
# The sign count: the authenticator is at some count; one lower is refused,
# and then a higher one logs in (the refusal consumed nothing).
my ($cred) = grep { $_->{id} eq $sealed_id } @{ JSON::PP::decode_json(HSCTest::slurp($st))->{credentials} };
my $count = $cred->{sign_count};
($a, $res) = passwordless('--prf', '--cred', $sealed_id, '--counter', 1);
refused($res, 403, 'refused', "a sign count going back (1 after $count): 403");
($a, $res) = passwordless('--prf', '--cred', $sealed_id, '--counter', $count + 10);
is($res->code, 200, 'a greater count: 200');
($a, $res) = passwordless('--prf', '--cred', $sealed_id, '--counter', $count + 10);
refused($res, 403, 'refused', 'the same count twice: 403');

# Challenges: minted here with the key file. One just issued works (so the
# minting is right); one older than HSCWebAuthnChallengeLifetime (30 s) is
# expired; one from the future, or for another purpose, is refused.
sub with_challenge
{
    my ($chal) = @_;
    my $file = "$work/minted.json";
    open my $fh, '>', $file or die;
    print $fh JSON::PP::encode_json({ challenge => $chal, rpId => $HOST,
                                      userVerification => 'required',
                                      prfSalt => encode_base64url(sha256('hsc-prf-seal-v1')) });
    close $fh;
    my $x = soft('assert', '--state', $st, '--options', "\@$file", '--origin',
                 $ORIGIN, '--prf', '--cred', $sealed_id, '--counter', $count += 100);
    return pk_post('/pk-login', $x);
}
my $now = sub { int(Time::HiRes::time() * 1000) };
is(with_challenge(mint_challenge('passwordless', '', $now->()))->code, 200,
   'a challenge minted here with the key file: 200');
refused(with_challenge(mint_challenge('passwordless', '', $now->() - 31_000)),
        403, 'expired', 'one issued 31 s ago (lifetime 30 s): 403 expired');
refused(with_challenge(mint_challenge('passwordless', '', $now->() - 3_600_000)),
        403, 'expired', 'one issued an hour ago: 403 expired');
refused(with_challenge(mint_challenge('passwordless', '', $now->() + 60_000)),
        403, 'refused', 'one issued a minute ahead: 403');
refused(with_challenge(mint_challenge('second-factor', '', $now->())),
        403, 'refused', 'one minted for the second-factor step: 403');
refused(with_challenge(mint_challenge('register', '', $now->())),
        403, 'refused', 'one minted for a registration: 403');
{
    my $real = $secret;
    $secret = 'k' x 32;
    my $other = mint_challenge('passwordless', '', $now->());
    $secret = $real;
    refused(with_challenge($other), 403, 'refused', 'one minted with another key: 403');
}

# --- second factor ---------------------------------------------------------------------
($res, $j) = options('/pk-login', 'second-factor');
refused($res, 401, 'no_pending_login', 'second-factor options without a pending cookie: 401');

sub pending
{
    my ($path) = @_;
    my $r = pk_login('pk-ann', $pw{'pk-ann'}, $path);
    my $p = cookie_from($r) // '';
    return ($r, $p);
}
my $pend;
($res, $pend) = pending('/pk-login');
is($res->code . ' ' . (((split /\./, $pend)[7] // 0) & $AMR{pending} ? 'pending' : '-'),
   '303 pending', "pk-ann's password, now that she has passkeys: a pending cookie");
($res, $j, $opt) = options('/pk-login', 'second-factor', cookie => $pend);
my %allowed = map { $_ => 1 } split ' ', ($j->{allowCredentials} // '');
ok($allowed{$sealed_id} && $allowed{$eddsa_id} && $allowed{$rs256_id},
   'allowCredentials: her three keys');
is($j->{userVerification}, 'preferred', 'UV preferred (the default)');
$a = soft('assert', '--state', $st, '--options', "\@$opt", '--origin', $ORIGIN,
          '--purpose', 'second-factor', '--cred', $eddsa_id, '--no-uv');
$res = pk_post('/pk-login', $a, cookie => $pend);
is($res->code, 200, 'the EdDSA key without UV as a second factor (preferred): 200')
    or diag($res->content);
my $sf = cookie_from($res) // '';
is((split /\./, $sf)[7], $AMR{pwd} | $AMR{hwk}, 'amr pwd|hwk');
is(sealed_get('/pk-hwk/page.html', $sf), 200, 'phishing-resistant: 200');
isnt(sealed_get('/pk-sealed/page.html', $sf), 200, 'sealed: refused (no seal)');
refused(pk_post('/pk-login', $a, cookie => $pend), 403, 'refused',
        'the same second-factor assertion again: 403');

# UV required there: an assertion without it is refused, with it accepted.
($res, $pend) = pending('/pk-uv-login');
($res, $j, $opt) = options('/pk-uv-login', 'second-factor', cookie => $pend);
is($j->{userVerification}, 'required', 'HSCWebAuthnUserVerification required: in the options');
$a = soft('assert', '--state', $st, '--options', "\@$opt", '--origin', $ORIGIN,
          '--purpose', 'second-factor', '--cred', $eddsa_id, '--no-uv');
refused(pk_post('/pk-uv-login', $a, cookie => $pend), 403, 'refused',
        'UV required and missing: 403');
($res, $j, $opt) = options('/pk-uv-login', 'second-factor', cookie => $pend);
$a = soft('assert', '--state', $st, '--options', "\@$opt", '--origin', $ORIGIN,
          '--purpose', 'second-factor', '--cred', $eddsa_id);
$res = pk_post('/pk-uv-login', $a, cookie => $pend);
is($res->code, 200, 'with UV: 200');
is((split /\./, (cookie_from($res) // ''))[7], $AMR{pwd} | $AMR{hwk} | $AMR{uv},
   'amr pwd|hwk|uv');

# The sealed key as the second factor, with its PRF output: sealed, auth x_n ‖ z.
($res, $pend) = pending('/pk-login');
($res, $j, $opt) = options('/pk-login', 'second-factor', cookie => $pend);
$a = soft('assert', '--state', $st, '--options', "\@$opt", '--origin', $ORIGIN,
          '--purpose', 'second-factor', '--cred', $sealed_id, '--prf');
$res = pk_post('/pk-login', $a, cookie => $pend);
my $full = cookie_from($res) // '';
my @s = split /\./, $full;
is($s[7], $AMR{pwd} | $AMR{hwk} | $AMR{uv} | $AMR{seal},
   'the sealed key with prf as a second factor: amr pwd|hwk|uv|seal');
my $auth = decode_base64url($s[9] // '');
is(encode_base64url(substr($auth, 32)), $z, 'auth is x_n followed by z');
my $xn2 = substr($auth, 0, 32);
is(sealed_get('/pk-sealed/page.html', $full), 200, 'sealed: 200');
# Another user's pending cookie cannot use her key.
{
    my $r = pk_login('pk-ben', $pw{'pk-ben'});
    my $ben = cookie_from($r) // '';
    my ($r2, $oo, $file) = options('/pk-login', 'second-factor', cookie => $ben);
    # pk-ben has no passkey: no pending cookie, a full login.
    isnt($r2->code, 200, 'pk-ben (no passkey) has nothing to ask options for');
}

# --- one user's key or challenge for another ------------------------------------------------
# pk-cat has a passkey of her own; her pending login cannot be finished
# with pk-ann's key, nor with a challenge minted for pk-ann's step.
{
    my $cst = "$work/cat.json";
    my $r = pk_login('pk-cat', $pw{'pk-cat'});
    my $cat = cookie_from($r) // '';
    my ($r2, $oo, $file) = options('/pk-account', 'create', cookie => $cat);
    my $cf = soft('register', '--state', $cst, '--options', "\@$file", '--origin',
                  $ORIGIN, '--alg', '-7', '--resident', '--prf', '--name', 'cat');
    is(pk_post('/pk-account', $cf, cookie => $cat)->code, 200, 'pk-cat registers a key');
    $r = pk_login('pk-cat', $pw{'pk-cat'});
    my $cpend = cookie_from($r) // '';
    ($r2, $oo, $file) = options('/pk-login', 'second-factor', cookie => $cpend);
    is($oo->{allowCredentials}, $cf->{id}, "her options allow her key only");
    my $x = soft('assert', '--state', $st, '--options', "\@$file", '--origin', $ORIGIN,
                 '--purpose', 'second-factor', '--cred', $eddsa_id);
    refused(pk_post('/pk-login', $x, cookie => $cpend), 403, 'refused',
            "pk-cat's pending login with pk-ann's key (a good assertion): 403");
    my ($r3, $ao, $afile) = options('/pk-login', 'second-factor', cookie => (pending('/pk-login'))[1]);
    $x = soft('assert', '--state', $cst, '--options', "\@$afile", '--origin', $ORIGIN,
              '--purpose', 'second-factor', '--cred', $cf->{id});
    refused(pk_post('/pk-login', $x, cookie => $cpend), 403, 'refused',
            "her own key on a challenge made for pk-ann's step: 403");
    my ($r4, $lo, $lfile) = options('/pk-login', 'login');
    $x = soft('assert', '--state', $st, '--options', "\@$lfile", '--origin', $ORIGIN,
              '--prf', '--cred', $sealed_id, '--user-handle',
              JSON::PP::decode_json(HSCTest::slurp($cst))->{credentials}[0]{user_handle});
    refused(pk_post('/pk-login', $x), 403, 'refused',
            "passwordless with pk-ann's key under pk-cat's user handle: 403");
    $x = soft('assert', '--state', $cst, '--options', "\@$file", '--origin', $ORIGIN,
              '--purpose', 'second-factor', '--cred', $cf->{id});
    is(pk_post('/pk-login', $x, cookie => $cpend)->code, 200,
       'her own key on her own challenge: 200');
}

# --- forged sealed cookies (need the seal check on the request path) -----------------------
# Signed with the real key: only z is unknown to a forger. With z right the
# forgery is accepted (so forge() is right); with another z, or the seal
# bit and no z, or the seal bit dropped, Require hsc-factor sealed refuses.
my $seal_amr = $AMR{pwd} | $AMR{hwk} | $AMR{uv} | $AMR{seal};
is(sealed_get('/pk-sealed/page.html', forge($full, $seal_amr, $xn2 . decode_base64url($z))),
   200, 'a cookie re-signed here with the real key and the real z: 200 (the forgery is well made)');
is(sealed_get('/pk-sealed/page.html', forge($full, $seal_amr, $xn2 . ('w' x 32))),
   401, 'the real key, amr with seal, a wrong z: 401 at a sealed location');
is(sealed_get('/pk-sealed/page.html', forge($full, $seal_amr, $xn2 . sha256($xn2))),
   401, 'the real key, a z derived from x_n: 401');
is(sealed_get('/pk-hwk/page.html', forge($full, $seal_amr, $xn2 . ('w' x 32))),
   401, 'a wrong z is refused everywhere, not only where sealed is required');
isnt(sealed_get('/pk-sealed/page.html', forge($full, $AMR{pwd} | $AMR{hwk} | $AMR{uv}, $xn2)),
     200, 'the real key, no seal bit and no z: not let in where sealed is required');
is(sealed_get('/pk-sealed/page.html', forge($pl, $AMR{hwk} | $AMR{uv} | $AMR{seal}, 'q' x 32)),
   401, 'a passwordless cookie re-signed with a wrong z: 401');
is(sealed_get('/pk-sealed/page.html', forge($pl, $AMR{hwk} | $AMR{uv} | $AMR{seal},
                                             decode_base64url($z))),
   200, 'and with the real z: 200');

# --- malformed and hostile fields ---------------------------------------------------------
($a, $res) = passwordless('--prf', '--cred', $sealed_id);
is($res->code, 200, 'a good passwordless login (the baseline of what follows)');
for my $case ([id => ''], [signature => '!!'], [authenticatorData => 'AA'],
              [clientDataJSON => encode_base64url('{')]) {
    my ($k, $v) = @$case;
    my ($r, $oo, $file) = options('/pk-login', 'login');
    my $x = soft('assert', '--state', $st, '--options', "\@$file", '--origin',
                 $ORIGIN, '--prf', '--cred', $sealed_id);
    $x->{$k} = $v;
    my $code = pk_post('/pk-login', $x)->code;
    ok($code == 400 || $code == 403, "$k = '$v': refused ($code)");
}
{
    my ($r, $oo, $file) = options('/pk-login', 'login');
    my $x = soft('assert', '--state', $st, '--options', "\@$file", '--origin',
                 $ORIGIN, '--prf', '--cred', $sealed_id);
    my $res2 = post_form('/pk-login', form_encode(%$x), Host => $HOST,
                         Origin => 'https://evil.test');
    isnt($res2->code, 200, 'a cross-site POST (Origin another site) is refused');
    $x->{id} = $eddsa_id;
    refused(pk_post('/pk-login', $x), 403, 'refused',
            "an assertion of one key sent under another key's id: 403");
}

my $log = error_log_text();
unlike($log, qr/\Q$z\E/, 'z never reaches the error log');
unlike($log, qr/\Q$pl\E/, 'nor a whole cookie');
unlike($log, qr/AH00052|Segmentation/, 'no child crashed');
