# HSCBasicPassword, the account password over HTTP Basic. Off
# (the default) it is refused where app passwords are taken over Basic;
# On, a right one opens the location (REMOTE_USER, HSC_AMR basic-password),
# a wrong one or an unknown user gets the same 401 with the Basic
# challenge, failures count per user (429 + Retry-After), the first check
# is a login in the audit log and later requests are answered from the
# child's cache (HSC254) until the user's row changes: a new password, a
# disabled user and a revocation take effect on the next request. A user
# with a second factor (audited pending) and a location with
# HSCSecondFactor required are refused; AuthBasicProvider hsc takes the
# password too; Basic use empties no record cache. Users bp-* are this
# file's (made here).
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET);
use MIME::Base64 qw(encode_base64);
use HSCTest;

plan tests => 46;

ua_plain();
my $db = var_dir() . '/users.db';
my $keys = var_dir() . '/keys';
my $audit = Apache::Test::vars('t_logs') . '/hsc-audit.log';
my %pw = map { $_ => "$_-basic-1" } qw(bp-ann bp-bob bp-tfa bp-thr bp-dis);
for my $u (sort keys %pw) {
    admin_ok("$pw{$u}\n", 'add', $db, $u, '--kdf', 'sha256-chain:1000',
             '--password-stdin', '--force');
}

sub basic
{
    my ($path, $user, $secret, @more) = @_;
    return GET($path, Authorization => 'Basic '
               . encode_base64("$user:$secret", ''), @more);
}
sub audit_size { return -s $audit || 0 }
sub audit_since
{
    my ($off) = @_;
    open my $fh, '<:raw', $audit or return '';
    seek $fh, $off, 0;
    local $/;
    return scalar(<$fh>) // '';
}
my $challenge = 'Basic realm="Files", charset="UTF-8"';

# --- Off by default ----------------------------------------------------------
is(basic('/bpw-off/page.html', 'bp-ann', $pw{'bp-ann'})->code, 401,
   'default Off: the account password over Basic is refused (401)');

# --- On: the challenge, a right password, the cache ---------------------------
my $res = GET('/bpw-on/page.html', Accept => '*/*');
is($res->code, 401, 'On, no credentials: 401');
is(join(' | ', $res->header('WWW-Authenticate')), $challenge,
   'HSCBasicPassword On alone sends the Basic challenge (a DAV client asks)');

my ($off, $aoff) = (log_size(), audit_size());
$res = basic('/bpw-on/page.html', 'bp-ann', $pw{'bp-ann'});
is($res->code, 200, 'On: the right password opens the location');
is($res->header('X-Remote-User'), 'bp-ann', 'REMOTE_USER is the user');
is($res->header('X-AMR'), 'basic-password', 'HSC_AMR says basic-password');
ok(($res->header('X-Login-Time') // '') =~ /^\d+$/
   && abs($res->header('X-Login-Time') - time) < 60,
   'HSC_LOGIN_TIME is when the password was checked');
like($res->header('Cache-Control') // '', qr/private|no-store/,
     'the answer is private to the user');
like(audit_since($aoff), qr/"event":"login","outcome":"success"[^\n]*"user":"bp-ann"/,
     'the KDF check is a login in the audit log');
my $ok = 1;
$ok &&= basic('/bpw-on/page.html', 'bp-ann', $pw{'bp-ann'})->code == 200
    for 1 .. 5;
ok($ok, 'five more requests on the same connection: 200');
my $log = log_since($off);
like($log, qr/HSC254[^\n]*"bp-ann": accepted from this child's cache/,
     'answered from the child\'s cache (HSC254)');
my $logins = () = audit_since($aoff) =~ /"user":"bp-ann"/g;
ok($logins < 6, "cache hits are not audited ($logins login lines for 6 requests)");
unlike($log, qr/\Q$pw{'bp-ann'}\E/, 'the log holds no password');

# --- refusals: wrong password, unknown user -----------------------------------
$off = log_size();
my $wrong = basic('/bpw-on/page.html', 'bp-ann', 'not-her-password');
is($wrong->code, 401, 'a wrong password: 401');
is(join(' | ', $wrong->header('WWW-Authenticate')), $challenge,
   'with the Basic challenge');
like(log_since($off), qr/HSC251[^\n]*"bp-ann" refused/, 'logged (HSC251)');
my $nobody = basic('/bpw-on/page.html', 'bp-nobody', 'whatever');
is($nobody->code . ' ' . join(' | ', $nobody->header('WWW-Authenticate')),
   "401 $challenge", 'an unknown user: the same 401');
is($nobody->content, $wrong->content, 'with the same body');
is(basic('/bpw-on/page.html', 'bp-ann', $pw{'bp-ann'})->code, 200,
   'the right password still works after a wrong one');

# --- the row decides: passwd, disable, revoke ---------------------------------
is(basic('/bpw-on/page.html', 'bp-bob', $pw{'bp-bob'})->code
   . basic('/bpw-on/page.html', 'bp-bob', $pw{'bp-bob'})->code, '200200',
   'bp-bob is cached');
admin_ok("bp-bob-basic-2\n", 'passwd', $db, 'bp-bob', '--kdf',
         'sha256-chain:1000', '--password-stdin', '--force');
is(basic('/bpw-on/page.html', 'bp-bob', $pw{'bp-bob'})->code, 401,
   'hsc-admin passwd: the old password fails on the next request');
is(basic('/bpw-on/page.html', 'bp-bob', 'bp-bob-basic-2')->code, 200,
   'and the new one works');

is(basic('/bpw-on/page.html', 'bp-dis', $pw{'bp-dis'})->code
   . basic('/bpw-on/page.html', 'bp-dis', $pw{'bp-dis'})->code, '200200',
   'bp-dis is cached');
admin_ok(undef, 'disable', $db, 'bp-dis');
is(basic('/bpw-on/page.html', 'bp-dis', $pw{'bp-dis'})->code, 401,
   'hsc-admin disable: the cached password is refused on the next request');
admin_ok(undef, 'enable', $db, 'bp-dis');
is(basic('/bpw-on/page.html', 'bp-dis', $pw{'bp-dis'})->code, 200,
   'enabled again: it works');

basic('/bpw-on/page.html', 'bp-ann', $pw{'bp-ann'}) for 1 .. 2;
admin_ok(undef, 'revoke', $db, 'bp-ann');
($off, $aoff) = (log_size(), audit_size());
is(basic('/bpw-on/page.html', 'bp-ann', $pw{'bp-ann'})->code, 200,
   'after hsc-admin revoke the (still right) password is checked again');
unlike(log_since($off), qr/HSC254[^\n]*"bp-ann"/,
       'the revocation dropped the cached entry: no cache hit');
like(audit_since($aoff), qr/"outcome":"success"[^\n]*"user":"bp-ann"/,
     'a fresh KDF check, audited as a login');

# HSCMaxAuthAge shorter than an entry's life: checked again as often.
basic('/bpw-fresh/page.html', 'bp-dis', $pw{'bp-dis'}) for 1 .. 2;
sleep 2;
($off, $aoff) = (log_size(), audit_size());
$res = basic('/bpw-fresh/page.html', 'bp-dis', $pw{'bp-dis'});
ok($res->code == 200 && abs(($res->header('X-Login-Time') // 0) - time) <= 1,
   'HSCMaxAuthAge 1: an entry two seconds old is not used, the password is '
   . 'checked again (HSC_LOGIN_TIME now)');
ok(log_since($off) !~ /HSC254[^\n]*"bp-dis"/
   && audit_since($aoff) =~ /"outcome":"success"[^\n]*"user":"bp-dis"/,
   'a fresh KDF check, audited, no cache hit');

# --- second factors ---------------------------------------------------------
my ($rc, $out) = admin('totp', 'enrol', $db, 'bp-tfa', '--keys', $keys);
is($rc, 0, 'hsc-admin totp enrol bp-tfa') or diag $out;
($off, $aoff) = (log_size(), audit_size());
$res = basic('/bpw-on/page.html', 'bp-tfa', $pw{'bp-tfa'});
is($res->code, 401, 'a user with TOTP: the right password over Basic is refused');
like(log_since($off), qr/HSC252[^\n]*"bp-tfa"[^\n]*use an app password/,
     'logged, saying to use an app password (HSC252)');
like(audit_since($aoff),
     qr/"outcome":"pending","reason":"factor_due"[^\n]*"user":"bp-tfa"/,
     'audited as a right password whose second factor never came');
$off = log_size();
is(basic('/bpw-2fa/page.html', 'bp-ann', $pw{'bp-ann'})->code, 401,
   'HSCSecondFactor required: refused for everyone');
like(log_since($off), qr/HSC253[^\n]*"bp-ann"/, 'logged (HSC253)');

# --- AuthType Basic + AuthBasicProvider hsc; tokens beside --------------------
$res = basic('/bpw-provider/page.html', 'bp-ann', $pw{'bp-ann'});
is($res->code . ' ' . ($res->header('X-Remote-User') // ''), '200 bp-ann',
   'AuthBasicProvider hsc with HSCBasicPassword On takes the password');
$res = basic('/bpw-provider/page.html', 'bp-ann', 'wrong');
is($res->code . ' ' . ($res->header('WWW-Authenticate') // ''),
   '401 Basic realm="BP"', 'and refuses a wrong one with mod_auth_basic\'s 401');
is(basic('/bpw-provider/page.html', 'bp-tfa', $pw{'bp-tfa'})->code, 401,
   'the provider refuses a user with a second factor');
(undef, $out) = admin('token', 'add', $db, 'bp-ann', '--name', 'dav');
my ($tok) = $out =~ /(hsc_[a-z2-7]{16}_[a-z2-7]{52}_[0-9a-f]{8})/;
$res = basic('/bpw-both/page.html', 'bp-ann', $tok // 'none');
is($res->code . ' ' . ($res->header('X-AMR') // ''), '200 app-password',
   'HSCAcceptTokens Basic beside it: an app password is still one');
$res = basic('/bpw-both/page.html', 'bp-ann', $pw{'bp-ann'});
is($res->code . ' ' . ($res->header('X-AMR') // ''), '200 basic-password',
   'and the account password is taken too');

# --- the throttle -------------------------------------------------------------
my @codes = map { basic('/bpw-on/page.html', 'bp-thr', "wrong-$_",
                        Host => 'basicpw-throttle.test')->code } 1 .. 4;
is("@codes", '401 401 401 429',
   'wrong passwords count per user (HSCThrottleUser 3): 429');
$res = basic('/bpw-on/page.html', 'bp-thr', $pw{'bp-thr'},
             Host => 'basicpw-throttle.test');
is($res->code, 429, 'then even the right password waits');
ok(($res->header('Retry-After') // 0) > 0, 'the 429 has a Retry-After');

# --- the record cache is not emptied ------------------------------------------
sub cache_clears
{
    my %c;
    for (1 .. 30) {
        my $s = GET('/hsc-cache-status')->content // '';
        $c{$1} = $2 if $s =~ /pid=(\d+).*\bclears=(\d+)/s;
    }
    return \%c;
}
my $c0 = cache_clears();
$ok = 1;
$ok &&= basic('/bpw-on/page.html', 'bp-ann', $pw{'bp-ann'})->code == 200
    for 1 .. 30;
ok($ok, 'thirty requests with the password over Basic');
my $c1 = cache_clears();
my @same = grep { exists $c1->{$_} } keys %$c0;
ok(@same && !grep({ $c0->{$_} != $c1->{$_} } @same),
   'hsc-cache-status: no child emptied its record cache ('
   . scalar(@same) . ' children seen twice)')
    or diag explain [$c0, $c1];
