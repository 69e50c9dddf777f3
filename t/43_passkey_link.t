# A one-time enrolment link adds a user's first passkey without
# a session (docs/passkeys.md, "Lost every passkey"), with the software
# authenticator (test/lib/hsc_soft_authn.py) on t/42's pk-attack.test
# host: the link's page offers the passkey; the options and the create
# step carry the link; the create uses it (one transaction with the add),
# so a second use is refused; the passkey is never sealed (a link adds a
# second factor, as it did before passkeys), so it cannot log in without
# the password, even with PRF; an expired, forged, malformed or other-purpose link
# is refused; a link of a user who has a passkey adds none (the link stays
# for the authenticator app); after hsc-admin webauthn remove, a new link
# adds one again.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use File::Temp qw(tempdir);
use JSON::PP ();
use HSCTest;
use HSCPasskey;

plan tests => 29;

ua_plain(keep_alive => 0);
my $db = var_dir() . '/users.db';
my $work = tempdir(CLEANUP => 1);
my $HOST = 'pk-attack.test';
my $ORIGIN = pk_host($HOST);

# A user from day one without a password (an invitation never used).
admin_ok(undef, 'add', $db, 'pk-lea', '--invite', '--kdf', 'sha256-chain:1000');

sub answer { my ($r) = @_; return $r->code . ' ' . (json_of($r)->{error} // 'ok') }

# A new link of purpose for pk-lea: its token.
sub new_link
{
    my ($purpose) = @_;
    my $out = admin_ok(undef, 'link', $db, 'pk-lea', '--for', $purpose);
    my ($t) = $out =~ m{^/account\?link=([A-Za-z0-9_-]{43})$}m;
    die "no link in: $out\n" unless $t;
    return $t;
}

# The create options with the link $link: the answer, the options' file.
sub link_options
{
    my ($link) = @_;
    my ($r, undef, $file) = options('/pk-account', 'create', link => $link);
    return ($r, $file);
}

my $st = "$work/lea.json";
sub register
{
    my ($opt, @more) = @_;
    return soft('register', '--state', $st, '--options', "\@$opt", '--origin', $ORIGIN,
                '--alg', '-7', '--resident', @more);
}

# --- the link adds the first passkey ---------------------------------------------
my $link = new_link('enrol');
my $res = page("/pk-account?link=$link");
is($res->code, 200, 'GET the enrolment link: 200');
like($res->content, qr/data-mode="create".*Add a passkey/s, 'its page offers a passkey');
like($res->content, qr/value="link-enrol"/, 'and the authenticator app');
my ($r, $opt) = link_options($link);
is($r->code, 200, 'options with the link: 200');
is(json_of($r)->{userName}, 'pk-lea', 'for the link\'s user');
my $f = register($opt, '--prf', '--name', 'phone');
my $id = $f->{id};
my $off = HSCTest::log_size();
$r = pk_post('/pk-account', { %$f, link => $link });
is(answer($r) . ' ' . (json_of($r)->{sealed} ? 'sealed' : '-')
   . ' ' . (json_of($r)->{prf} ? 'prf' : 'no-prf'), '200 ok - prf',
   'create with the link (PRF given): a passkey is added, not sealed, '
   . 'with PRF (the page says why)');
like(HSCTest::log_since($off),
     qr/HSC300: user "pk-lea" added a passkey "phone" \(not sealed: a link adds a second factor\) by a one-time enrolment link/,
     'HSC300 says why it is not sealed');
like(admin_ok(undef, 'webauthn', 'list', $db, 'pk-lea'), qr/phone/, 'hsc-admin lists it');
is(scalar(() = admin_ok(undef, 'link', $db, '--list') =~ /^pk-lea enrol /mg), 0,
   'the link is gone (used)');

# --- used once ------------------------------------------------------------------
$r = pk_post('/pk-account', { %$f, link => $link });
is(answer($r), '403 link', 'the same create again: refused');
($r) = link_options($link);
is(answer($r), '403 link', 'options with the used link: refused');
is(page("/pk-account?link=$link")->code, 400,
   'its page: the dead link');

# --- the passkey cannot log in without a password ------------------------------------
my (undef, undef, $lopt) = options('/pk-login', 'login');
my $a = soft('assert', '--state', $st, '--options', "\@$lopt", '--origin', $ORIGIN,
             '--purpose', 'login', '--cred', $id, '--prf');
$r = pk_post('/pk-login', $a);
is(answer($r), '403 refused', 'passwordless with the new passkey: refused (not sealed)');
ok(!defined cookie_from($r), 'and no cookie');

# --- a user who has a passkey: the link adds none ---------------------------------------
$link = new_link('enrol');
$res = page("/pk-account?link=$link");
is($res->code, 200, 'an enrolment link of a user with a passkey: its page');
unlike($res->content, qr/data-mode="create"/, 'offers no passkey');
like($res->content, qr/value="link-enrol"/, 'only the authenticator app');
($r, $opt) = link_options($link);
is(answer($r), '409 has_passkey', 'options with it: 409 has_passkey');
is(scalar(() = admin_ok(undef, 'link', $db, '--list') =~ /^pk-lea enrol /mg), 1,
   'the link stays');

# --- lost every passkey: the administrator removes, a new link adds ------------------
# (after "--": one id in 64 begins with "-")
is((HSCTest::admin('webauthn', 'remove', $db, 'pk-lea', '--', $id))[0], 0,
   'hsc-admin webauthn remove');
($r, $opt) = link_options($link);
is($r->code, 200, 'now the same link gives options');
$f = register($opt, '--name', 'key');
$r = pk_post('/pk-account', { %$f, link => $link });
is(answer($r) . ' ' . (json_of($r)->{sealed} ? 'sealed' : 'plain')
   . ' ' . (json_of($r)->{prf} ? 'prf' : 'no-prf'), '200 ok plain no-prf',
   'and adds a passkey (without PRF: unsealed)');

# --- dead links --------------------------------------------------------------------
$link = new_link('enrol');
system('sqlite3', $db, "UPDATE hsc_links SET expires = 1 WHERE username = 'pk-lea'") == 0
    or die "sqlite3 failed\n";
($r) = link_options($link);
is(answer($r), '403 link', 'an expired link: refused');
# (the user has a passkey again: remove it so that only the link decides)
my ($lst) = admin_ok(undef, 'webauthn', 'list', $db, 'pk-lea') =~ /^(\S+)/m;
admin_ok(undef, 'webauthn', 'remove', $db, 'pk-lea', '--', $lst // '');
($r) = link_options('A' x 43);
is(answer($r), '403 link', 'a forged link: refused');
($r) = link_options('not-a-link');
is(answer($r), '403 link', 'a malformed link: refused');
$link = new_link('reset');
($r) = link_options($link);
is(answer($r), '403 link', 'a reset link: refused (another purpose)');
# A create step with a good link but a challenge for another user.
$link = new_link('enrol');
($r, $opt) = link_options($link);
my $o = JSON::PP::decode_json(HSCTest::slurp($opt));
$o->{userName} = 'pk-dan';
HSCTest::spew($opt, JSON::PP::encode_json($o));
$f = register($opt, '--name', 'x');
$r = pk_post('/pk-account', { %$f, link => $link, challenge => 'AAAA' });
is(answer($r), '403 refused', 'a create with a challenge not ours: refused');
is(scalar(() = admin_ok(undef, 'link', $db, '--list') =~ /^pk-lea enrol /mg), 1,
   'and the link stays');
# Where HSCPasskeys is Off, the endpoint is not there.
$r = post_form('/account', form_encode(hsc_passkey => 'options', purpose => 'create',
                                       link => $link));
is($r->code, 404, 'HSCPasskeys Off (/account): 404');
