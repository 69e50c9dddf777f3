# The account page (SetHandler hsc-account): who is signed in, a password
# change under the NIST rules of hsc_policy.h (the current password, the
# new one twice, a minimum length, a blocklist), every other session ended
# by it, and "sign out everywhere".
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET);
use HSCTest;

plan tests => 110;

# No keep-alive: a password change commits to the user file, and each
# request should meet a fresh view of it like a new browser would.
ua_plain(keep_alive => 0);
my $db = var_dir() . '/users.db';
my $page = '/private/page.html';
my $audit = HSCTest::t_dir() . '/logs/hsc-audit.log';
my $audit_at = -s $audit || 0;
sub audit_since { return substr(HSCTest::slurp($audit), $audit_at) }
my $new = 'correct horse battery staple';

sub change
{
    my ($path, $cookie, %f) = @_;
    return post_form($path, form_encode(action => 'password', %f),
                     Cookie => "hsc=$cookie");
}

# --- who is signed in -------------------------------------------------------
my $res = GET('/account', Accept => 'text/html');
is($res->code, 303, 'a browser without a cookie is sent to log in');
is($res->header('Location'), '/login?return=/account',
   'and back to the account page after');
$res = GET('/account');
is($res->code, 401, 'other clients without a cookie: 401');
is($res->header('WWW-Authenticate'), 'HSC', 'with WWW-Authenticate: HSC');
like($res->content, qr{You are not signed in\.}, 'and a page that says so');

my $c1 = cookie_from(login('oscar', $PW{oscar}));
my $c2 = cookie_from(login('oscar', $PW{oscar}));
ok(defined $c1 && defined $c2, 'oscar logs in on two browsers');
$res = get_with('/account', 'hsc', $c1);
is($res->code, 200, 'GET /account with a cookie: 200');
is($res->header('Cache-Control'), 'no-store', 'no-store');
like($res->header('Content-Security-Policy') // '', qr{default-src 'none'},
     'the pages\' CSP');
my $html = $res->content;
like($html, qr{<dt>Signed in as</dt><dd><strong>oscar</strong></dd>},
     'the page says who is signed in');
like($html, qr{<dt>Groups</dt><dd>none</dd>}, 'no groups');
like($html, qr{<dt>Authenticator app</dt><dd>off</dd>}, 'TOTP off');
like($html, qr{<dt>Recovery codes</dt><dd>0 left</dd>}, 'no recovery codes');
like($html, qr{name="password" type="password" autocomplete="current-password"},
     'the current password field');
like($html, qr{name="new_password" type="password" autocomplete="new-password"[^>]*minlength="15"},
     'the new password: new-password, 15 characters (the only factor)');
like($html, qr{name="new_password2" type="password" autocomplete="new-password"},
     'and again');
like(get_with('/account', 'hsc', cookie_from(login('alice', $PW{alice})))
         ->content,
     qr{<dt>Groups</dt><dd>staff,admins</dd>}, 'alice: her groups');

# --- refusals, each before anything changes --------------------------------
$res = change('/account', $c1, password => 'wrong-pw', new_password => $new,
              new_password2 => $new);
is($res->code, 401, 'a wrong current password: 401');
like($res->content, qr{The current password is not right\.},
     'the page says so');
$res = change('/account', $c1, password => $PW{oscar}, new_password => $new,
              new_password2 => "$new!");
is($res->code, 400, 'two different new passwords: 400');
like($res->content, qr{are not the same}, 'the page says so');
$res = change('/account', $c1, password => $PW{oscar},
              new_password => 'fourteen-chars', new_password2 => 'fourteen-chars');
is($res->code, 400, '14 characters: 400');
like($res->content, qr{at least 15 characters}, 'the page names the minimum');
$res = change('/account', $c1, password => $PW{oscar}, new_password => $new);
is($res->code, 400, 'a missing field: 400');
$res = post_form('/account', form_encode(action => 'password',
                 password => $PW{oscar}, new_password => $new,
                 new_password2 => $new),
                 Cookie => "hsc=$c1", Origin => 'http://evil.example');
is($res->code, 403, 'a cross-site POST: 403');
$res = post_form('/account', form_encode(action => 'nothing'),
                 Cookie => "hsc=$c1");
is($res->code, 400, 'an unknown action: 400');
is(get_with($page, 'hsc', $c2)->code, 200,
   'after the refusals both sessions still work');

# --- the change --------------------------------------------------------------
$res = change('/account', $c1, password => $PW{oscar}, new_password => $new,
              new_password2 => $new);
is($res->code, 303, 'a good change: 303');
is($res->header('Location'), '/account?done=password', 'to the page again');
my $c3 = cookie_from($res);
ok(defined $c3 && $c3 ne $c1, 'with a new cookie for this browser');
my @old = cookie_fields($c1);
my @now = cookie_fields($c3 // '');
is($now[3], $old[3], 'of the same login (iat)');
is($now[6], $old[6], 'of the same login (lid)');
is($now[5], $old[5] + 1, 'under the next gen');
is(get_with($page, 'hsc', $c3)->code, 200, 'the new cookie works');
is(get_with($page, 'hsc', $c1)->code, 401, 'the old one of this browser does not');
is(get_with($page, 'hsc', $c2)->code, 401, 'the other browser is signed out');
like(get_with('/account?done=password', 'hsc', $c3)->content,
     qr{Your password is changed\. Your other sessions have ended\.},
     'the page says what happened');
is(login('oscar', $PW{oscar})->code, 401, 'the old password no longer logs in');
is(login('oscar', $new)->code, 303, 'the new one does');

# --- a user with a second factor: 8 characters, and the blocklist ------------
my ($rc, $out) = HSCTest::admin('recovery-codes', $db, 'quinn', '--count', '3');
is($rc, 0, 'quinn gets recovery codes') or diag $out;
my @qcodes = $out =~ /^(\S{4}-\S{4}-\S{4})$/mg;
# A second factor belongs to the user: her password alone gives only a
# pending cookie, at /login too (no HSCSecondFactor there); one of her
# codes finishes the login, so the session carries a factor just used.
sub code_login
{
    my ($user, $pw, $code) = @_;
    my $pend = cookie_from(login($user, $pw)) // '';
    return ($pend, cookie_from(post_form('/login', form_encode(code => $code),
                                         Cookie => "hsc=$pend")));
}
my ($qp, $q) = code_login('quinn', $PW{quinn}, shift @qcodes);
is((cookie_fields($qp))[7], 65, 'quinn\'s password alone at /login: a pending cookie');
is((cookie_fields($q // ''))[7], 17, 'a recovery code finishes it: amr pwd|rc');
$html = get_with('/account', 'hsc', $q)->content;
like($html, qr{<dt>Recovery codes</dt><dd>2 left</dd>}, 'the page counts them');
like($html, qr{minlength="8"}, 'beside a second factor: 8 characters');
$res = change('/account', $q, password => $PW{quinn},
              new_password => 'ILoveYou', new_password2 => 'ILoveYou');
is($res->code, 400, 'a listed password, in other capitals: 400');
like($res->content, qr{commonly used passwords}, 'the page says why');
$res = change('/account', $q, password => $PW{quinn},
              new_password => $PW{quinn}, new_password2 => $PW{quinn});
is($res->code, 400, 'the current password again: 400');
$res = change('/account-min12', $q, password => $PW{quinn},
              new_password => 'eleven-char', new_password2 => 'eleven-char');
like($res->content, qr{at least 12 characters},
     'HSCPasswordMinLength 12 raises it');
$res = change('/account-min12', $q, password => $PW{quinn},
              new_password => 'iloveyou1234', new_password2 => 'iloveyou1234');
is($res->code, 303, 'HSCPasswordBlocklist none: no list');

# The built-in list, where the location names none.
$res = change('/account-default-list', (code_login('quinn', 'iloveyou1234', shift @qcodes))[1],
              password => 'iloveyou1234', new_password => 'Password',
              new_password2 => 'Password');
is($res->code, 400, 'no HSCPasswordBlocklist: the built-in list refuses "Password"');

# --- a pending cookie is no session here -----------------------------------
my $pending = cookie_from(login('quinn', 'iloveyou1234', path => '/2fa-login'));
ok(defined $pending, 'quinn at the second-factor login: a pending cookie');
is(get_with('/account', 'hsc', $pending)->code, 401,
   'which the account page does not take');

# --- a read-only user database ------------------------------------------------
my @ro = (Host => 'readonly.test');
# (HSC143 at start-up: logins and cookies work on it; a user without a
# factor is asked for none, so the factor state is no reason to refuse.)
$res = login('pat', $PW{pat}, headers => [@ro]);
is($res->code, 303, 'pat (no factor) logs in on a read-only user database');
my $r1 = cookie_from($res) // '';
$res = post_form('/account', form_encode(action => 'password',
                 password => $PW{pat}, new_password => $new,
                 new_password2 => $new),
                 Cookie => "hsc=$r1", @ro);
is($res->code, 503, 'a read-only user database: 503');
like($res->content, qr{read-only}, 'the page says why');

# --- sign out everywhere ------------------------------------------------------
my $p1 = cookie_from(login('pat', $PW{pat}));
my $p2 = cookie_from(login('pat', $PW{pat}));
$res = post_form('/account', form_encode(action => 'signout'),
                 Cookie => "hsc=$p1");
is($res->code, 200, 'sign out everywhere: 200');
like($res->content, qr{logged out}i, 'the logged-out page');
like(cookie_header_for($res, 'hsc') // '', qr/^hsc=;.*Max-Age=0/,
     'this browser\'s cookie is expired');
is(get_with($page, 'hsc', $p1)->code, 401, 'this session ends');
is(get_with($page, 'hsc', $p2)->code, 401, 'the other one too');
my $p3 = cookie_from(login('pat', $PW{pat}));
$res = post_form('/account-min12', form_encode(action => 'signout'),
                 Cookie => "hsc=$p3");
is($res->code, 303, 'with HSCLogoutURL: 303');
is($res->header('Location'), '/bye.html', 'to it');

# --- an authenticator app, set up on the page -----------------------------------
# Not in the last seconds of a TOTP step: the codes below are of this one.
sleep(31 - time % 30) if time % 30 > 22;
my $ra = cookie_from(login('rita', $PW{rita}));
my $rb = cookie_from(login('rita', $PW{rita}));
$html = get_with('/account', 'hsc', $ra)->content;
like($html, qr{name="action" value="totp-setup"}, 'the page offers to set up an app');
unlike($html, qr{Your password, to confirm},
       'a login of a moment ago needs no password for it');
$res = post_form('/account', form_encode(action => 'totp-setup'), Cookie => "hsc=$ra");
is($res->code, 200, 'totp-setup: 200');
$html = $res->content;
like($html, qr{<svg [^>]*class="hsc-qr"[^>]*role="img"}, 'the QR code, as inline SVG');
like($html, qr{<path fill="#000" d="M4 4h7v1h-7z}, 'with a finder pattern where QR codes have one');
like($res->header('Content-Security-Policy') // '', qr{default-src 'none'},
     'under the same CSP (inline SVG needs no image source)');
my ($typed) = $html =~ m{<p class="hsc-secret"><code>([A-Z2-7 ]+)</code>};
ok($typed, 'the key for typing, in groups');
(my $b32 = $typed // '') =~ s/ //g;
is(length $b32, 32, '160 bits');
my $rk = base32_decode($b32);
like($html, qr{autocomplete="one-time-code" inputmode="numeric"}, 'a code field');
$html = get_with('/account', 'hsc', $ra)->content;
like($html, qr{<dt>Authenticator app</dt><dd>off</dd>}, 'not on before its first code');
is(login('rita', $PW{rita}, path => '/2fa-login')->code, 303, 'and a login asks for no code yet');
my $wrong = totp($rk, time) eq '000000' ? '111111' : '000000';
$res = post_form('/account', form_encode(action => 'totp-confirm', code => $wrong),
                 Cookie => "hsc=$ra");
is($res->code, 400, 'a wrong first code: 400');
like($res->content, qr{class="hsc-qr"}, 'the QR code again, to try again');
my $first = totp($rk, time);
$res = post_form('/account', form_encode(action => 'totp-confirm', code => $first),
                 Cookie => "hsc=$ra");
is($res->code, 200, 'the right first code turns it on');
# The code just typed is a factor used now: this browser's cookie is
# re-issued with otp; the other browser keeps a password-only one.
my $rx = cookie_from($res) // '';
is((cookie_fields($rx))[7] & 2, 2, 'and this browser\'s cookie now carries otp');
my @rc = $res->content =~ m{<li><code>([0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4})</code></li>}g;
is(scalar @rc, 10, 'with a first set of ten recovery codes, shown once');
like($res->content, qr{The authenticator app is on}, 'the page says so');
$html = get_with('/account', 'hsc', $ra)->content;
like($html, qr{<dt>Authenticator app</dt><dd>on</dd>}, 'the account page: on');
like($html, qr{<dt>Recovery codes</dt><dd>10 left</dd>}, '10 codes left');
my $pend = cookie_from(login('rita', $PW{rita}, path => '/2fa-login'));
$res = post_form('/2fa-login', form_encode(code => $first), Cookie => "hsc=$pend");
is($res->code, 401, 'the first code cannot log in after it (its step is used)');
$res = post_form('/2fa-login', form_encode(code => $rc[0]), Cookie => "hsc=$pend");
is($res->code, 303, 'a recovery code of the page logs in');
# Rita has a factor now: a session changes her factors only with a factor
# used lately, her password-only session no longer may.
$res = post_form('/account', form_encode(action => 'recovery-new'), Cookie => "hsc=$rb");
is($res->code, 401, 'new recovery codes from the password-only session: 401');
like($res->content, qr{This change needs your second factor}, 'the page says why');
$res = post_form('/account', form_encode(action => 'recovery-new'), Cookie => "hsc=$rx");
my @rc2 = $res->content =~ m{<li><code>(\S+)</code></li>}g;
is(scalar @rc2, 10, 'new recovery codes: ten more');
$pend = cookie_from(login('rita', $PW{rita}, path => '/2fa-login'));
is(post_form('/2fa-login', form_encode(code => $rc[1]), Cookie => "hsc=$pend")->code,
   401, 'an old code no longer works');
is(post_form('/2fa-login', form_encode(code => $rc2[0]), Cookie => "hsc=$pend")->code,
   303, 'a new one does');
$res = post_form('/account', form_encode(action => 'totp-remove'), Cookie => "hsc=$rb");
is($res->code, 401, 'totp-remove from the password-only session: 401');
$res = post_form('/account', form_encode(action => 'totp-remove'), Cookie => "hsc=$rx");
is($res->code, 303, 'totp-remove: 303');
is($res->header('Location'), '/account?done=totp-off', 'to the page');
my $rn = cookie_from($res);
ok(defined $rn, 'with a new cookie for this browser');
is(get_with($page, 'hsc', $rb)->code, 401, 'the other session ends');
is(get_with($page, 'hsc', $rn)->code, 200, 'this one goes on');
like(get_with('/account?done=totp-off', 'hsc', $rn)->content,
     qr{<dt>Authenticator app</dt><dd>off</dd>}, 'off again');

# --- a login that is not recent: the password again ----------------------------
my $s1 = cookie_from(login('sam', $PW{sam}));
sleep 2;
$html = get_with('/account-reauth', 'hsc', $s1)->content;
like($html, qr{Your password, to confirm}, 'HSCAccountRecentAuth 1, 2 s later: the forms ask for the password');
$res = post_form('/account-reauth', form_encode(action => 'recovery-new'), Cookie => "hsc=$s1");
is($res->code, 401, 'without it: 401');
like($res->content, qr{enter your password to confirm}, 'the page says why');
$res = post_form('/account-reauth', form_encode(action => 'recovery-new', password => 'wrong'),
                 Cookie => "hsc=$s1");
is($res->code, 401, 'a wrong password: 401');
$res = post_form('/account-reauth', form_encode(action => 'recovery-new', password => $PW{sam}),
                 Cookie => "hsc=$s1");
is($res->code, 200, 'the right one: done');
is(scalar(() = $res->content =~ m{<li><code>}g), 10, 'ten codes');

# --- the audit log -------------------------------------------------------------
my @lines = grep { /"event":"account"/ } split /\n/, audit_since();
ok((grep { /"outcome":"success"/ && /"user":"oscar"/ && /"action":"password"/ } @lines),
   'audit: oscar changed his password');
ok((grep { /"reason":"wrong_password"/ } @lines), 'audit: a wrong current password');
ok((grep { /"reason":"policy_listed"/ } @lines), 'audit: a listed password');
ok((grep { /"action":"totp-on"/ && /"user":"rita"/ } @lines), 'audit: rita turned an app on');
ok((grep { /"action":"totp-off"/ } @lines), 'audit: and off');
ok((grep { /"reason":"factor_needed"/ && /"user":"rita"/ } @lines),
   'audit: a factor change refused for want of her factor');
ok((grep { /"action":"recovery-new"/ && /"reason":"not_recent"/ } @lines),
   'audit: a factor change refused for want of a recent login');
unlike(audit_since(), qr{\Q$new\E|oscar-pw-1},
       'no password in the audit log');
unlike(error_log_text(), qr{\Q$new\E}, 'nor in the error log');
