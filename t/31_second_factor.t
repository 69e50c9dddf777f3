# The second-factor step. Where HSCSecondFactor is on, a user
# with a factor gets a pending cookie after the password (valid nowhere
# but the step), then a TOTP code or a recovery code finishes the login
# with the same iat and login id. Codes are used once: the same code twice,
# an older step after a newer one and a used recovery code are refused.
# TOTP codes are computed here, in Perl (RFC 6238), not by the module.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest ();
use HSCTest;

plan tests => 85;

# No keep-alive: the tests sleep past httpd's KeepAliveTimeout before a POST,
# which LWP would send on a connection the server has closed.
ua_plain(keep_alive => 0);
my $db = var_dir() . '/users.db';
my $keys = var_dir() . '/keys';

# Enrolment by the administrator: the URI on standard output.
my ($rc, $out) = admin('totp', 'enrol', $db, 'kim', '--keys', $keys,
                       '--issuer', 'Test Site');
is($rc, 0, 'hsc-admin totp enrol');
my ($b32) = $out =~ m{^otpauth://totp/Test%20Site:kim\?secret=([A-Z2-7]+)&}m;
ok($b32, 'it printed the otpauth URI') or diag $out;
my $key = base32_decode($b32 // '');
($rc, $out) = admin('recovery-codes', $db, 'kim', '--count', '3');
is($rc, 0, 'hsc-admin recovery-codes');
my @codes = $out =~ /^([0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4})$/mg;
is(scalar @codes, 3, 'three codes, one a line');
($rc, $out) = admin('show', $db, 'kim');
like($out, qr/^totp: yes \(SHA1, 6 digits, 30 s\)/m, 'show: TOTP on');
like($out, qr/^recovery codes left: 3$/m, 'show: 3 codes left');

# The password: a pending cookie and a 303 back to the step.
sub password_step
{
    my ($path, $user) = @_;
    return post_form($path // '/2fa-login',
                     form_encode(username => $user // 'kim',
                                 password => $PW{$user // 'kim'},
                                 return => '/private/page.html'));
}

sub code_step
{
    my ($pending, $code) = @_;
    return post_form('/2fa-login',
                     form_encode(code => $code, return => '/private/page.html'),
                     Cookie => "hsc=$pending");
}

# Not in the last seconds of a step: the codes below are of known steps.
sleep(31 - time % 30) if time % 30 > 24;

my $res = password_step();
is($res->code, 303, 'the right password: 303');
is($res->header('Location'), '/2fa-login?return=%2fprivate%2fpage.html',
   'back to the login page, which asks for the code');
my $pending = cookie_from($res) // '';
my @p = cookie_fields($pending);
is($p[7], 65, 'a pending cookie: amr pwd|pending');
is($p[4] - $p[3], 300, 'valid five minutes');
isnt(get_with('/private/page.html', 'hsc', $pending)->code, 200,
     'it opens no protected page');

$res = get_with('/2fa-login', 'hsc', $pending);
is($res->code, 200, 'the login page with it: the code form');
my $page = $res->content;
like($page, qr/Signing in as <strong>kim<\/strong>/, 'naming the user');
like($page, qr/autocomplete="one-time-code" inputmode="numeric"/,
     'one-time-code and a numeric keyboard');
like($page, qr/Or a recovery code/, 'and the recovery code form');
like(get_with('/2fa-login')->content, qr/name="password"/,
     'without the cookie: the password form');

$res = code_step($pending, '000000' eq totp($key, time) ? '111111' : '000000');
is($res->code, 401, 'a wrong code: 401');
like($res->content, qr/not right/, 'saying so, on the code form');
is(cookie_from($res), undef, 'and no cookie');

my $now = time;
$res = code_step($pending, totp($key, $now));
is($res->code, 303, 'the right code: 303');
is($res->header('Location'), '/private/page.html', 'to the return target');
my @f = cookie_fields(cookie_from($res) // '');
is($f[0], 2, 'a format 2 cookie');
is($f[7], 3, 'amr pwd|otp');
is("$f[3] $f[5] $f[6]", "$p[3] $p[5] $p[6]", 'the same iat, gen and login id');
ok($f[8] >= $f[3] && $f[8] <= time, 'mfa_at: now');
# Sliding, from the code step (mfa_at is its time): under a slow build a
# second may pass between the password and the code.
is($f[4] - $f[8], 1800, 'and the idle timeout from the code step');
$res = get_with('/private/page.html', 'hsc', join('.', @f));
is($res->code, 200, 'it opens a protected page');
is($res->header('X-HSC-AMR'), 'pwd otp mfa', 'HSC_AMR: pwd otp mfa (RFC 8176)');

# Once only, on every server: the state is in the database.
$pending = cookie_from(password_step()) // '';
is(code_step($pending, totp($key, $now))->code, 401,
   'the same code twice: refused');
is(code_step($pending, totp($key, $now - 30))->code, 401,
   'the step before, after a newer one: refused');
$res = code_step($pending, totp($key, $now + 30));
is($res->code, 303, 'the next step (one step of skew): accepted');
is(code_step($pending, totp($key, $now + 60))->code, 401,
   'two steps ahead: refused');

# Recovery codes, in the same field, each once.
$pending = cookie_from(password_step()) // '';
$res = code_step($pending, $codes[0]);
is($res->code, 303, 'a recovery code');
is((cookie_fields(cookie_from($res) // ''))[7], 17, 'amr pwd|rc');
is(code_step($pending, $codes[0])->code, 401, 'the same code again: refused');
is(code_step($pending, uc($codes[1]) =~ s/-/ /gr)->code, 303,
   'another, typed in capitals with spaces');
like((admin('show', $db, 'kim'))[1], qr/^recovery codes left: 1$/m,
     'one left');

# A finished login may take a code too (a step-up, t/32), but not a used
# one; no cookie takes none.
like(code_step(join('.', @f), totp($key, $now + 30))->content,
     qr/not right, or was used/, 'a finished login: the used code refused');
like(code_step('', '123456')->content, qr/sign-in expired/,
     'no cookie: back to the password');

# A user without a factor: optional lets them in, required does not.
$res = password_step(undef, 'leo');
is((cookie_fields(cookie_from($res) // ''))[7], 1,
   'optional, no factor: an ordinary login');
$res = password_step('/2fa-required-login', 'leo');
is($res->code, 403, 'required, no factor: 403');
like($res->content, qr/enrolment link/, 'the page says what to ask for');
is(cookie_from($res), undef, 'no cookie');
$res = password_step('/2fa-required-login', 'kim');
is((cookie_fields(cookie_from($res) // ''))[7], 65,
   'required, with a factor: the code step');

# Removing the factor ends the user's cookies (gen).
$res = code_step(cookie_from(password_step()) // '', $codes[2]);
my $full = cookie_from($res) // '';
is(get_with('/private/page.html', 'hsc', $full)->code, 200,
   'a finished login');
($rc, $out) = admin('totp', 'remove', $db, 'kim');
is($rc, 0, 'hsc-admin totp remove');
isnt(get_with('/private/page.html', 'hsc', $full)->code, 200,
     'its cookie is refused');
$res = password_step();
is((cookie_fields(cookie_from($res) // ''))[7], 1,
   'no factor left: the password alone logs in again');

# Failed codes count in the login throttle, in the user's counter of codes
# (throttle-user.test: HSCThrottleUser 3 in 6 s; t/16's host, this file's
# own user), which a right password never empties.
admin_ok("thr-f1-pw\n", 'add', $db, 'thr-f1', '--kdf', 'sha256-chain:1000',
         '--password-stdin', '--force');
($rc, $out) = admin('totp', 'enrol', $db, 'thr-f1', '--keys', $keys);
my ($b32t) = $out =~ /secret=([A-Z2-7]+)&/;
my $keyt = base32_decode($b32t // '');
my @host = (Host => 'throttle-user.test');
sub host_step
{
    my ($body, $cookie) = @_;
    return post_form('/2fa-login', form_encode(@$body),
                     ($cookie ? (Cookie => "hsc=$cookie") : ()), @host);
}
sleep(31 - time % 30) if time % 30 > 24;
$pending = cookie_from(host_step([username => 'thr-f1',
                                  password => 'thr-f1-pw'])) // '';
my $wrong = totp($keyt, time) eq '000000' ? '111111' : '000000';
my @codes3 = map { host_step([code => $wrong], $pending)->code } 1 .. 3;
is("@codes3", '401 401 401', 'three wrong codes: 401 each');
$res = host_step([code => totp($keyt, time)], $pending);
is($res->code, 429, 'the fourth, even a right one: 429');
ok(($res->header('Retry-After') // 0) > 0, 'with Retry-After');
$res = host_step([username => 'thr-f1', password => 'thr-f1-pw']);
is($res->code, 303, 'the right password has a count of its own: 303');
is(host_step([code => totp($keyt, time)], cookie_from($res) // '')->code,
   429, 'and does not clear the codes\' count: the code step still 429');

# At a door without HSCSecondFactor (/login) too: wrong codes (a step-up
# from the password's cookie) interleaved with right passwords reach the
# codes' limit, and a right code is then refused as well.
admin_ok("thr-f2-pw\n", 'add', $db, 'thr-f2', '--kdf', 'sha256-chain:1000',
         '--password-stdin', '--force');
($rc, $out) = admin('totp', 'enrol', $db, 'thr-f2', '--keys', $keys);
my ($b32u) = $out =~ /secret=([A-Z2-7]+)&/;
my $keyu = base32_decode($b32u // '');
my %near = map { totp($keyu, time + $_) => 1 } -60, -30, 0, 30, 60;
my ($wrongu) = grep { !$near{$_} } qw(000000 111111 222222);
my @mixed;
for (1 .. 4) {
    my $pw = post_form('/login', form_encode(username => 'thr-f2',
                                             password => 'thr-f2-pw'), @host);
    push @mixed, $pw->code;
    my $code = $_ < 4 ? $wrongu : totp($keyu, time);
    push @mixed, post_form('/login', form_encode(code => $code),
                           Cookie => 'hsc=' . (cookie_from($pw) // ''),
                           @host)->code;
}
is("@mixed", '303 401 303 401 303 401 303 429',
   'HSCSecondFactor off: three wrong codes between right passwords, then 429');
sleep 7;
$pending = cookie_from(host_step([username => 'thr-f1',
                                  password => 'thr-f1-pw'])) // '';
ok($pending, 'after the window, the password again');
$res = host_step([code => totp($keyt, time)], $pending);
is($res->code, 303, 'and a right code finishes the login');
is((cookie_fields(cookie_from($res) // ''))[7], 3, 'amr pwd|otp');

# The window (HSCTOTPSkew): one step either side by default, two at
# /skew2-login; codes from oathtool at offsets from now. A code is taken
# once whatever the window: after a later step, an earlier one is refused.
admin_ok("skw-pw\n", 'add', $db, 'skw', '--kdf', 'sha256-chain:1000',
         '--password-stdin', '--force');
($rc, $out) = admin('totp', 'enrol', $db, 'skw', '--keys', $keys);
my ($b32s) = $out =~ /secret=([A-Z2-7]+)&/;
sub oath
{
    my ($t) = @_;
    my $c = `oathtool --totp -b $b32s --now \@$t`;
    chomp $c;
    return $c;
}
sub skew_try
{
    my ($path, $t) = @_;
    my $p = cookie_from(post_form($path, form_encode(username => 'skw',
                                                     password => 'skw-pw')))
        // '';
    return post_form($path, form_encode(code => oath($t)),
                     Cookie => "hsc=$p")->code;
}
sleep(31 - time % 30) if time % 30 > 24;
my $t0 = time;
like(oath($t0), qr/^\d{6}$/, 'oathtool computes the codes');
my @skew = (['/2fa-login', -60, 401, 'default: two steps back refused'],
            ['/2fa-login', 60, 401, 'default: two steps ahead refused'],
            ['/skew2-login', -90, 401, 'HSCTOTPSkew 2: three steps back refused'],
            ['/skew2-login', -60, 303, 'HSCTOTPSkew 2: two steps back taken'],
            ['/2fa-login', -30, 303, 'default: one step back taken'],
            ['/skew2-login', -30, 401,
             'that code again, where the wider window takes it: refused'],
            ['/2fa-login', 30, 303, 'default: one step ahead taken'],
            ['/2fa-login', 30, 401, 'that code again: refused'],
            ['/skew2-login', 90, 401, 'HSCTOTPSkew 2: three steps ahead refused'],
            ['/skew2-login', 60, 303, 'HSCTOTPSkew 2: two steps ahead taken'],
            ['/skew2-login', 0, 401,
             'the current code after a later one (the window\'s edge): refused']);
for (@skew) {
    my ($path, $off, $want, $what) = @$_;
    is(skew_try($path, $t0 + $off), $want, $what);
}
ok(int(time / 30) == int($t0 / 30), 'all within one step (the offsets held)');

# Where the user's attempts cannot be counted (throttle-addr.test has
# HSCThrottleUser 0), no code is checked at all: 503 (HSC206).
my @ah = (Host => 'throttle-addr.test');
$pending = cookie_from(post_form('/2fa-login',
                                 form_encode(username => 'thr-f1',
                                             password => 'thr-f1-pw'),
                                 @ah)) // '';
is(post_form('/2fa-login', form_encode(code => totp($keyt, time + 30)),
             Cookie => "hsc=$pending", @ah)->code,
   503, 'HSCThrottleUser 0: no code is checked (503)');

# A user database older than the factor tables (schema-v2.test): since any
# user may have a second factor, no login gets past the password unchecked.
my @v2 = (Host => 'schema-v2.test');
my $v2login = sub {
    my ($path) = @_;
    return post_form($path, form_encode(username => 'sid-user',
                                        password => 'sid-pw'), @v2);
};
is($v2login->('/2fa-required-login')->code, 503,
   'schema 2, HSCSecondFactor required: 503, not a login');
is($v2login->('/2fa-login')->code, 503, 'optional: 503 too');
# A second factor belongs to the user, not to the location: where
# HSCSecondFactor is off the module must still know whether the user has
# one, and this file cannot say, so that login fails closed as well.
my $v2off = log_size();
$res = $v2login->('/login');
is($res->code, 503, 'where it is off: 503 too (the user may have a factor)');
like(log_since($v2off), qr/HSC193: .*schema version 2 has no second factors: "hsc-admin init \S+" upgrades it/,
     'the log names the upgrade');
# A format 1 cookie that a login issued before the factor rule (minted
# here from the password, checked against the stored authenticator).
my $f1 = mint1(db => storeid_db('schema-v2'), user => 'sid-user',
               password => 'sid-pw', iat => time - 60, exp => time + 3600)
    // '';
is((cookie_fields($f1))[0], 1, 'a format 1 cookie such a login made (no gen there)');
is(get_with('/private/page.html', 'hsc', $f1, @v2)->code, 200,
   'which the file still takes (a cookie check reads no factor)');
like(get_with('/login?factor=1', 'hsc', $f1, @v2)->content,
     qr/name="password"/, 'a format 1 login is asked for the password');
like(post_form('/login', form_encode(code => '123456'), Cookie => "hsc=$f1",
               @v2)->content,
     qr/sign-in expired/, 'and cannot take a code');

# The metrics count each step by method (GET /hsc-metrics, as t/18 does).
my %m = map { /^(\S+) (\S+)$/ ? ($1 => $2) : () }
    grep { !/^#/ } split /\n/, Apache::TestRequest::GET('/hsc-metrics')->content;
my $la = 'hsc_login_attempts_total';
for (['password', 'pwd', 'factor_due', 7], ['password', 'pwd', 'no_factor', 1],
     ['second_factor', 'otp', 'success', 3],
     ['second_factor', 'otp', 'bad_code', 7],
     ['second_factor', 'rc', 'success', 3],
     ['second_factor', 'none', 'throttled', 1]) {
    my ($step, $how, $out, $least) = @$_;
    my $k = "$la\{step=\"$step\",method=\"$how\",outcome=\"$out\"\}";
    ok(($m{$k} // -1) >= $least, "$k >= $least") or diag $m{$k} // 'none';
}
