# One-time links (hsc-admin link, add --invite) on the account page: an
# invitation and a reset set a password, an enrolment sets up an
# authenticator app, each once. A GET only looks; the POST that finishes
# uses the link; a newer link, an expiry, another purpose or a revocation
# makes it dead, and so does a password change (by a link, the account
# page or hsc-api). The table keeps only the link's SHA-256.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET);
use HSCTest;

plan tests => 56;

ua_plain(keep_alive => 0);
my $db = var_dir() . '/users.db';
my $audit = HSCTest::t_dir() . '/logs/hsc-audit.log';
my $audit_at = -s $audit || 0;
my $page = '/private/page.html';

# The link hsc-admin printed: the path and query of the account page.
sub link_of
{
    my ($out) = @_;
    my ($l) = $out =~ m{^(/account\?link=[A-Za-z0-9_-]{43})$}m;
    return $l;
}
sub token_of { my ($l) = @_; return ($l // '') =~ /link=(.*)/ ? $1 : '' }
sub post_link
{
    my ($link, %f) = @_;
    return post_form('/account', form_encode(link => token_of($link), %f));
}

# --- an invitation -----------------------------------------------------------
my ($rc, $out) = HSCTest::admin('add', $db, 'vic', '--invite', '--kdf',
                                'sha256-chain:1000');
is($rc, 0, 'hsc-admin add --invite') or diag $out;
my $inv = link_of($out);
ok($inv, 'prints the link alone on a line') or diag $out;
unlike(HSCTest::slurp($db) , qr{\Q${\ token_of($inv)}\E}, 'the link is not stored');
my $res = GET($inv);
is($res->code, 200, 'GET the link: 200');
like($res->content, qr{Welcome: choose a password}, 'the invitation page');
like($res->content, qr{For <strong>vic</strong>}, 'for vic');
like($res->content, qr{name="link" value="\Q${\ token_of($inv)}\E"}, 'carrying the link');
is(GET($inv)->code, 200, 'a second GET: still there (a GET only looks)');
is(post_link($inv, action => 'link-password', new_password => 'short',
             new_password2 => 'short')->code, 400, 'a short password: 400');
my $vpw = 'a welcome passphrase for vic';
is(post_link($inv, action => 'link-password', new_password => $vpw,
             new_password2 => "$vpw!")->code, 400, 'two different: 400');
$res = post_link($inv, action => 'link-password', new_password => $vpw,
                 new_password2 => $vpw);
is($res->code, 200, 'a good one: 200');
like($res->content, qr{Your password is set}, 'which says so');
is(login('vic', $vpw)->code, 303, 'vic logs in with it');
$res = post_link($inv, action => 'link-password', new_password => 'another passphrase here',
                 new_password2 => 'another passphrase here');
is($res->code, 400, 'the link a second time: 400');
like($res->content, qr{This link cannot be used}, 'dead');
is(GET($inv)->code, 400, 'and a GET of it too');

# --- a reset -------------------------------------------------------------------
my $t1 = cookie_from(login('tom', $PW{tom}));
($rc, $out) = HSCTest::admin('link', $db, 'tom', '--for', 'reset');
my $r1 = link_of($out);
($rc, $out) = HSCTest::admin('link', $db, 'tom', '--for', 'reset', '--url',
                             'https://example.org/account');
like($out, qr{^https://example\.org/account\?link=[A-Za-z0-9_-]{43}$}m,
     '--url names the whole address');
my ($r2) = $out =~ m{\?link=([A-Za-z0-9_-]{43})}m;
is(GET($r1)->code, 400, 'a newer link replaces the older one');
$res = post_form('/account', form_encode(link => $r2, action => 'link-enrol'));
is($res->code, 400, 'a reset link cannot enrol a factor');
my $tpw = 'a brand new passphrase for tom';
$res = post_form('/account', form_encode(link => $r2, action => 'link-password',
                 new_password => $tpw, new_password2 => $tpw));
is($res->code, 200, 'the newer one sets the password');
is(get_with($page, 'hsc', $t1)->code, 401, 'tom\'s session from before ends');
is(login('tom', $PW{tom})->code, 401, 'the old password no longer logs in');
is(login('tom', $tpw)->code, 303, 'the new one does');

# --- dead links ------------------------------------------------------------------
is(GET('/account?link=abc')->code, 400, 'a malformed link: 400');
is(GET('/account?link=' . ('A' x 43))->code, 400, 'an unknown one: 400');
($rc, $out) = HSCTest::admin('link', $db, 'tom', '--for', 'reset', '--ttl', '1h');
my $exp = link_of($out);
system('sqlite3', $db, "UPDATE hsc_links SET expires = 1 WHERE username = 'tom'") == 0
    or die "sqlite3: $?";
HSCTest::fix_owner();
is(GET($exp)->code, 400, 'an expired one: 400');
($rc, $out) = HSCTest::admin('link', $db, 'tom', '--for', 'enrol');
my $rev = link_of($out);
($rc, $out) = HSCTest::admin('link', $db, '--list');
like($out, qr{^tom enrol \S+Z$}m, '--list: the user, purpose and expiry');
like($out, qr{^tom reset \S+Z expired$}m, 'and which ones expired');
unlike($out, qr{[A-Za-z0-9_-]{43}}, 'never a link');
($rc, $out) = HSCTest::admin('link', $db, 'tom', '--revoke');
like($out, qr{tom: 2 links deleted}, '--revoke deletes them');
is(GET($rev)->code, 400, 'a revoked link: 400');
($rc, $out) = HSCTest::admin('link', $db, 'nobody-here', '--for', 'reset');
is($rc, 3, 'no link for a user who does not exist');

# --- a password change ends the user's links ------------------------------------
# A reset or invitation must not outlive a password change: the link's own
# (the user's other links go with it), the account page's, hsc-api's.
my $l1 = link_of((HSCTest::admin('link', $db, 'tom', '--for', 'enrol'))[1]);
my $l2 = link_of((HSCTest::admin('link', $db, 'tom', '--for', 'reset'))[1]);
my $tpw2 = 'yet another passphrase for tom';
is(post_link($l2, action => 'link-password', new_password => $tpw2,
             new_password2 => $tpw2)->code, 200, 'a reset link sets a password');
is(GET($l1)->code, 400, '... and tom\'s enrolment link is dead with it');
my $vc = cookie_from(login('vic', $vpw)) // '';
my $l3 = link_of((HSCTest::admin('link', $db, 'vic', '--for', 'reset'))[1]);
my $vpw2 = 'a second passphrase for vic';
$res = post_form('/account', form_encode(action => 'password', password => $vpw,
                 new_password => $vpw2, new_password2 => $vpw2),
                 Cookie => "hsc=$vc");
is($res->header('Location') // '', '/account?done=password',
   'vic changes the password on the account page');
is(GET($l3)->code, 400, '... and the reset link made before is dead');
$vc = cookie_from(login('vic', $vpw2)) // '';
my $l4 = link_of((HSCTest::admin('link', $db, 'vic', '--for', 'reset'))[1]);
my $vpw3 = 'a third passphrase for vic';
$res = Apache::TestRequest::POST('/api/password',
    'Content-Type' => 'application/json', Cookie => "hsc=$vc",
    content => qq({"current":"$vpw2","new":"$vpw3"}));
is($res->code, 200, 'vic changes the password through hsc-api');
is(GET($l4)->code, 400, '... and the reset link made before is dead');

# --- an enrolment -----------------------------------------------------------------
sleep(31 - time % 30) if time % 30 > 22;
($rc, $out) = HSCTest::admin('link', $db, 'uma', '--for', 'enrol');
my $en = link_of($out);
$res = GET($en);
is($res->code, 200, 'GET an enrolment link: 200');
like($res->content, qr{Set up an authenticator app.*For <strong>uma</strong>}s,
     'the page says for whom');
$res = post_link($en, action => 'link-enrol');
is($res->code, 200, 'Begin: the setup page');
like($res->content, qr{class="hsc-qr"}, 'with its QR code');
like($res->content, qr{name="link" value="\Q${\ token_of($en)}\E"},
     'the link carried to the first code');
my ($typed) = $res->content =~ m{<p class="hsc-secret"><code>([A-Z2-7 ]+)</code>};
(my $b32 = $typed // '') =~ s/ //g;
my $key = base32_decode($b32);
my $wrong = totp($key, time) eq '000000' ? '111111' : '000000';
is(post_link($en, action => 'totp-confirm', code => $wrong)->code, 400,
   'a wrong first code: 400');
is(post_form('/account', form_encode(action => 'totp-confirm',
                                      code => totp($key, time)))->code,
   401, 'the right code without the link and without a session: 401');
my $now = time;
$res = post_link($en, action => 'totp-confirm', code => totp($key, $now));
is($res->code, 200, 'the right first code: on');
my @rc = $res->content =~ m{<li><code>([0-9a-z-]{14})</code></li>}g;
is(scalar @rc, 10, 'with ten recovery codes');
is(GET($en)->code, 400, 'the enrolment link is used');
my $pend = cookie_from(login('uma', $PW{uma}, path => '/2fa-login'));
$res = post_form('/2fa-login', form_encode(code => totp($key, $now + 30)),
                 Cookie => "hsc=$pend");
is($res->code, 303, 'uma logs in with the app');
$pend = cookie_from(login('uma', $PW{uma}, path => '/2fa-required-login'));
ok(defined $pend, 'where a second factor is required, she may now log in');
is(post_form('/2fa-required-login', form_encode(code => $rc[0]),
             Cookie => "hsc=$pend")->code, 303, 'with a recovery code too');

# --- the logs ---------------------------------------------------------------------
my $a = substr(HSCTest::slurp($audit), $audit_at);
like($a, qr{"event":"account","outcome":"success"[^\n]*"user":"vic"[^\n]*"action":"link-invite"},
     'audit: vic\'s invitation used');
like($a, qr{"user":"tom"[^\n]*"action":"link-reset"}, 'audit: tom\'s reset');
like($a, qr{"user":"uma"[^\n]*"action":"totp-on"}, 'audit: uma\'s app on');
like(error_log_text(), qr{HSC220: one-time link refused}, 'the error log: HSC220');
unlike($a . error_log_text(), qr{\Q${\ token_of($inv)}\E|\Q$r2\E},
       'no link in the logs');
