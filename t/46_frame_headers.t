# No page of mod_hsc may be framed by another site (clickjacking a login,
# a password change or an app password's one-time page): every page its
# handlers write, whatever its status, carries both
# `Content-Security-Policy: ... frame-ancestors 'none'` and
# `X-Frame-Options: DENY` (for browsers without CSP level 2). Walked
# here: the login page and its refusals (401, 400, 403 cross-site, 405,
# 413, 415, 429), the code step, the logout page, the account page with
# and without a session and after each kind of action, the one-time link
# pages (good, used and dead) and an app password's one-time page. The status
# of each is only shown: what is asserted is the two headers.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET);
use HSCTest;

ua_plain(keep_alive => 0);
my $db = var_dir() . '/users.db';
my $keys = var_dir() . '/keys';
my $pw = 'frame-pw-1';
admin_ok("$pw\n", 'add', $db, $_, '--kdf', 'sha256-chain:1000',
         '--password-stdin', '--force') for qw(frame-a frame-t frame-l);
my ($rc, $out) = admin('totp', 'enrol', $db, 'frame-t', '--keys', $keys);
die "hsc-admin totp enrol: $out\n" if $rc;
my ($b32) = $out =~ /secret=([A-Z2-7]+)/;
my $totp_key = base32_decode($b32);
($rc, $out) = admin('link', $db, 'frame-l', '--for', 'reset');
die "hsc-admin link: $out\n" if $rc;
my ($link) = $out =~ m{^(/account\?link=[A-Za-z0-9_-]{43})$}m;
die "no link in: $out\n" unless $link;

my $res = login('frame-a', $pw);
die 'frame-a logs in: ' . $res->code . "\n" unless $res->code == 303;
my $cookie = 'hsc=' . cookie_from($res);
$res = login('frame-t', $pw, path => '/2fa-login');
my $pending = 'hsc=' . (cookie_from($res) // '');

my $form = 'application/x-www-form-urlencoded';
sub post { my ($path, $cookie, @f) = @_;
           return post_form($path, form_encode(@f),
                            $cookie ? (Cookie => $cookie) : ()) }
# [what, a code ref that makes the request]
my @pages = (
    ['the login page', sub { GET('/login') }],
    ['a wrong password', sub { login('frame-a', 'wrong') }],
    ['a login form without its fields', sub { post('/login', undef, x => 1) }],
    ['a cross-site login POST', sub {
        post_form('/login', form_encode(username => 'frame-a', password => $pw),
                  Origin => 'http://evil.example') }],
    ['a PUT to the login page', sub {
        Apache::TestRequest::PUT('/login', content => 'x') }],
    ['a login body too large', sub {
        post_form('/login', 'username=' . ('a' x 9000)) }],
    ['a login body of another type', sub {
        Apache::TestRequest::POST('/login', 'Content-Type' => 'text/plain',
                                  content => 'username=a') }],
    ['a throttled login', sub {
        my $r;
        $r = login('frame-throttle', 'wrong',
                   headers => [Host => 'throttle-user.test']) for 1 .. 4;
        $r }],
    ['the code step', sub { get_with('/2fa-login', 'hsc', $pending =~ s/^hsc=//r) }],
    ['a wrong code', sub {
        post('/2fa-login', $pending,
             code => totp($totp_key, time) eq '000000' ? '111111' : '000000') }],
    ['the logout page', sub { GET('/logout') }],
    ['the account page without a session', sub { GET('/account') }],
    ['the account page', sub { GET('/account', Cookie => $cookie) }],
    ['the account page with a pending cookie', sub {
        GET('/account', Cookie => $pending) }],
    ['an unknown account action', sub {
        post('/account', $cookie, action => 'nothing') }],
    ['a password change with a wrong password', sub {
        post('/account', $cookie, action => 'password', password => 'wrong',
             new_password => 'a new long passphrase 1',
             new_password2 => 'a new long passphrase 1') }],
    ['an authenticator app set-up', sub {
        post('/account', $cookie, action => 'totp-setup') }],
    ['a wrong set-up code', sub {
        post('/account', $cookie, action => 'totp-confirm', code => '000000') }],
    ['new recovery codes', sub {
        post('/account', $cookie, action => 'recovery-new', password => $pw) }],
    ['a new app password', sub {
        post('/account', $cookie, action => 'token-new',
             token_name => 'framed', password => $pw) }],
    ['revoking an unknown app password', sub {
        post('/account', $cookie, action => 'token-revoke', id => 'AAAAAAAA') }],
    ['a one-time link', sub { GET($link) }],
    ['a dead one-time link', sub { GET('/account?link=' . ('A' x 43)) }],
    ['a link form with a short password', sub {
        post('/account', undef, link => $link =~ s/.*link=//r,
             action => 'link-password', new_password => 'short',
             new_password2 => 'short') }],
    ['a link form that sets the password', sub {
        post('/account', undef, link => $link =~ s/.*link=//r,
             action => 'link-password',
             new_password => 'a framed new passphrase',
             new_password2 => 'a framed new passphrase') }],
    ['the login page with its own stylesheet', sub { GET('/styled-login') }],
    ['a password where a factor must be set up', sub {
        login('frame-a', $pw, path => '/2fa-required-login') }],
    ['signing out everywhere', sub {
        post('/account', $cookie, action => 'signout') }],
    ['the logout POST', sub { post('/logout', $cookie) }],
);

plan tests => 2 * @pages;
for my $p (@pages) {
    my ($what, $req) = @$p;
    my $r = $req->();
    my $st = $r->code;
    is($r->header('X-Frame-Options'), 'DENY',
       "$what ($st): X-Frame-Options: DENY");
    like($r->header('Content-Security-Policy') // '',
         qr/(?:^|;\s*)frame-ancestors 'none'(?:;|$)/,
         "$what ($st): Content-Security-Policy frame-ancestors 'none'");
}
