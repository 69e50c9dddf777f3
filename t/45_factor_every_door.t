# A second factor belongs to the user, at every door. A user who has one
# (TOTP, or a passkey) gets only a pending cookie from the password at
# every door that takes one, whatever HSCSecondFactor says there: the
# login form (/login has no HSCSecondFactor), hsc-api's login, the account
# password over Basic and AuthBasicProvider hsc. The child's Basic
# password cache sees a factor set up later on the next request. A
# session without a recent second factor cannot change what proves such a
# user (app passwords, recovery codes, the password, a passkey), on the
# account page and in hsc-api; after a step-up with a code it can. Users
# ed-* are this file's.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET POST);
use File::Temp qw(tempdir);
use JSON::PP ();
use MIME::Base64 qw(encode_base64);
use HSCTest;
use HSCPasskey;

plan tests => 55;

ua_plain(keep_alive => 0);
my $db = var_dir() . '/users.db';
my $keys = var_dir() . '/keys';
my $work = tempdir(CLEANUP => 1);
my %pw = map { $_ => "$_-door-1" } qw(ed-otp ed-pk ed-late ed-bas ed-pkt ed-pks ed-new ed-new2);
for my $u (sort keys %pw) {
    admin_ok("$pw{$u}\n", 'add', $db, $u, '--kdf', 'sha256-chain:1000',
             '--password-stdin', '--force');
}

sub enrol
{
    my ($user) = @_;
    my ($rc, $out) = admin('totp', 'enrol', $db, $user, '--keys', $keys);
    my ($b32) = $out =~ /secret=([A-Z2-7]+)&/;
    die "totp enrol $user: $out\n" unless $rc == 0 && $b32;
    return base32_decode($b32);
}
sub amr_of { my @f = cookie_fields($_[0] // ''); return $f[7] // -1 }
sub pending { return (amr_of($_[0]) & 64) != 0 }
sub basic
{
    my ($path, $user, $secret) = @_;
    return GET($path, Authorization => 'Basic '
               . encode_base64("$user:$secret", ''));
}
sub api_post
{
    my ($path, $body, $cookie) = @_;
    return POST($path, 'Content-Type' => 'application/json',
                Accept => 'application/json',
                ($cookie ? (Cookie => "hsc=$cookie") : ()),
                content => JSON::PP::encode_json($body));
}
sub json { return eval { JSON::PP::decode_json($_[0]->content) } // {} }
sub account_action
{
    my ($cookie, @fields) = @_;
    return post_form('/account', form_encode(@fields),
                     Cookie => "hsc=$cookie");
}
# The doors that take a password, for $user: each answer in a word.
sub doors
{
    my ($user) = @_;
    my $r = login($user, $pw{$user});
    my $c = cookie_from($r);
    my %d;
    $d{form} = $r->code == 303 && pending($c) ? 'pending' : 'full';
    $d{pending_opens} = GET('/private/page.html', Cookie => "hsc=$c")->code;
    my $j = json(api_post('/api/login', {username => $user,
                                         password => $pw{$user}}));
    $d{api} = $j->{authenticated} ? 'full'
            : ($j->{second_factor} // '') eq 'required' ? 'pending' : 'other';
    $d{basic} = basic('/bpw-on/page.html', $user, $pw{$user})->code;
    $d{provider} = basic('/bpw-provider/page.html', $user, $pw{$user})->code;
    return \%d;
}

# --- a TOTP user at every door --------------------------------------------------
my $otp_key = enrol('ed-otp');
my $d = doors('ed-otp');
is($d->{form}, 'pending',
   'TOTP user, /login without HSCSecondFactor: a pending cookie only');
isnt($d->{pending_opens}, 200, 'the pending cookie opens no protected page');
is($d->{api}, 'pending',
   'hsc-api login (no HSCSecondFactor): second_factor required, no cookie');
is($d->{basic}, 401, 'HSCBasicPassword: refused');
is($d->{provider}, 401, 'AuthBasicProvider hsc: refused');

# The code at the same door finishes the login.
my $r = login('ed-otp', $pw{'ed-otp'});
my $pend = cookie_from($r);
$r = GET('/login', Cookie => "hsc=$pend");
like($r->content, qr/name="code"/,
     'the login page without HSCSecondFactor shows the code form');
$r = post_form('/login', form_encode(code => totp($otp_key, time)),
               Cookie => "hsc=$pend");
my $full = cookie_from($r);
ok($r->code == 303 && !pending($full) && (amr_of($full) & 2),
   'a right code there gives the full cookie with otp');
is(GET('/private/page.html', Cookie => "hsc=$full")->code, 200,
   'which opens the protected page');

# The API's login goes on at its code step.
$r = api_post('/api/login', {username => 'ed-otp', password => $pw{'ed-otp'}});
my $apend = cookie_from($r);
ok(pending($apend), 'the API login set a pending cookie');
sleep_until(int(time / 30) * 30 + 30) if time % 30 > 27;
$r = api_post('/api/code', {code => totp($otp_key, time + 30)}, $apend);
is(json($r)->{authenticated} ? 1 : 0, 1,
   'the API code step finishes it (the next step\'s code)');

# --- a passkey user at every door -----------------------------------------------
my $ORIGIN = pk_host('pk-attack.test');
$r = pk_login('ed-pk', $pw{'ed-pk'});
my $pkc = cookie_from($r) // '';
ok($r->code == 303 && !pending($pkc), 'ed-pk logs in (no factor yet)');
my ($res, $j, $opt) = options('/pk-account', 'create', cookie => $pkc);
my $f = soft('register', '--state', "$work/pk.json", '--options', "\@$opt",
             '--origin', $ORIGIN, '--alg', '-7', '--resident', '--name', 'k');
$res = pk_post('/pk-account', $f, cookie => $pkc);
is($res->code, 200, 'ed-pk adds a passkey');
$d = doors('ed-pk');
is($d->{form}, 'pending',
   'passkey user, /login (no HSCPasskeys, no HSCSecondFactor): pending only');
isnt($d->{pending_opens}, 200, 'the pending cookie opens no protected page');
is($d->{api}, 'pending', 'hsc-api login: second_factor required');
is($d->{basic}, 401, 'HSCBasicPassword: refused');
is($d->{provider}, 401, 'AuthBasicProvider hsc: refused');

# --- the Basic password cache sees a factor set up later ------------------------
# (One keep-alive connection: the same child, whose cache answers.)
ua_plain();
my $off = log_size();
is(join(' ', map { basic('/bpw-on/page.html', 'ed-bas', $pw{'ed-bas'})->code }
        1 .. 3), '200 200 200', 'ed-bas over Basic three times');
like(log_since($off), qr/HSC254[^\n]*"ed-bas"/, 'answered from the cache');
$off = log_size();
enrol('ed-bas');
is(basic('/bpw-on/page.html', 'ed-bas', $pw{'ed-bas'})->code, 401,
   'TOTP set up: the cached password is refused on the next request');
unlike(log_since($off), qr/HSC254[^\n]*"ed-bas"/, 'no cache hit after it');
admin_ok(undef, 'totp', 'remove', $db, 'ed-bas');
is(basic('/bpw-on/page.html', 'ed-bas', $pw{'ed-bas'})->code, 200,
   'TOTP removed: the password over Basic works again');
admin_ok(undef, 'recovery-codes', $db, 'ed-bas');
is(basic('/bpw-on/page.html', 'ed-bas', $pw{'ed-bas'})->code, 401,
   'recovery codes alone are a factor too: refused on the next request');
ua_plain(keep_alive => 0);

# --- a session without the factor changes nothing that proves the user ----------
$r = login('ed-late', $pw{'ed-late'});
my $late = cookie_from($r);
ok($r->code == 303 && !pending($late), 'ed-late logs in before any factor');
my $late_key = enrol('ed-late');
$off = log_size();
$r = account_action($late, action => 'token-new', token_name => 'dav');
is($r->code, 401, 'account page: a new app password is refused (401)');
like($r->content, qr/needs your second factor/, 'saying the factor is needed');
unlike($r->content, qr/hsc_[a-z2-7]{16}_/, 'and shows no app password');
like(log_since($off), qr/HSC380[^\n]*"ed-late"/, 'logged (HSC380)');
is(account_action($late, action => 'recovery-new')->code, 401,
   'new recovery codes: refused');
is(account_action($late, action => 'totp-remove')->code, 401,
   'removing the authenticator app: refused');
$r = account_action($late, action => 'password', password => $pw{'ed-late'},
                    new_password => 'ed-late-new-pass-9',
                    new_password2 => 'ed-late-new-pass-9');
is($r->code, 401, 'a password change with the right current password: refused');
ok(pending(cookie_from(login('ed-late', $pw{'ed-late'}))),
   'the password is unchanged');
like(GET('/account', Cookie => "hsc=$late")->content,
     qr/id="hsc-stepup"[^\n]*href="[^"]*factor=1/,
     'the account page links to the step-up');
$r = api_post('/api/tokens', {name => 'ci'}, $late);
is($r->code . ' ' . (json($r)->{error} // ''), '403 factor_needed',
   'hsc-api: a new app password is refused (403 factor_needed)');
$r = api_post('/api/password', {current => $pw{'ed-late'},
                                new => 'ed-late-new-pass-9'}, $late);
is($r->code . ' ' . (json($r)->{error} // ''), '403 factor_needed',
   'hsc-api: a password change is refused (403 factor_needed)');

# The step-up with a code: then the same session may.
$r = post_form('/login', form_encode(code => totp($late_key, time)),
               Cookie => "hsc=$late");
my $stepped = cookie_from($r);
ok($r->code == 303 && (amr_of($stepped) & 2), 'a step-up with a code');
$r = account_action($stepped, action => 'recovery-new');
is($r->code . ' ' . scalar(() = $r->content =~ m{<li><code>}g), '200 10',
   'then ten new recovery codes are made');
$r = api_post('/api/tokens', {name => 'ci'}, $stepped);
is($r->code, 201, 'and hsc-api makes an app password');

# A password-only session may set up the first factor, and the code that
# confirms it counts as using it.
$r = login('ed-pkt', $pw{'ed-pkt'});
my $pkt = cookie_from($r);
$r = account_action($pkt, action => 'totp-setup');
my ($setup_b32) = $r->content =~ m{<p class="hsc-secret"><code>([A-Z2-7 ]+)</code>};
$setup_b32 =~ s/ //g if defined $setup_b32;
ok($r->code == 200 && $setup_b32, 'no factor yet: the first one can be set up');
$r = account_action($pkt, action => 'totp-confirm',
                    code => totp(base32_decode($setup_b32 // ''), time));
my $confirmed = cookie_from($r);
ok(defined $confirmed && (amr_of($confirmed) & 2),
   'its first code re-issues the cookie with otp');
is(account_action($confirmed // '', action => 'recovery-new')->code, 200,
   'so new recovery codes need no second sign-in');

# A passkey for a TOTP user from a password-only session: refused (else a
# stolen password would add a sealed passkey that logs in without it).
$r = pk_login('ed-pks', $pw{'ed-pks'});
my $pks = cookie_from($r) // '';
ok($r->code == 303 && !pending($pks), 'ed-pks logs in before any factor');
enrol('ed-pks');
($res, $j) = options('/pk-account', 'create', cookie => $pks);
is($res->code . ' ' . ($j->{error} // ''), '403 factor_needed',
   'a new passkey: 403 factor_needed');

# --- HSCSecondFactor required + HSCAccountURL: set one up to finish ----------------
$r = login('ed-new', $pw{'ed-new'}, path => '/setup-login',
           return => '/private/page.html');
my $setup = cookie_from($r) // '';
is($r->code . ' ' . lc($r->header('Location') // ''),
   '303 /account?setup=1&return=%2fprivate%2fpage.html',
   'required, no factor: 303 to the account page to set one up');
ok(pending($setup), 'with a pending cookie');
isnt(GET('/private/page.html', Cookie => "hsc=$setup")->code, 200,
     'which opens no protected page');
my $surl = '/account?setup=1&return=%2Fprivate%2Fpage.html';
$r = GET($surl, Cookie => "hsc=$setup");
ok($r->code == 200 && $r->content =~ /value="totp-setup"/
   && $r->content !~ /value="password"/,
   'the account page offers only setting up an app');
$r = post_form($surl, form_encode(action => 'token-new', token_name => 'x'),
               Cookie => "hsc=$setup");
is($r->code, 403, 'anything else there: 403');
$r = post_form($surl, form_encode(action => 'totp-setup'), Cookie => "hsc=$setup");
my ($nb32) = $r->content =~ m{<p class="hsc-secret"><code>([A-Z2-7 ]+)</code>};
$nb32 =~ s/ //g if defined $nb32;
ok($r->code == 200 && $nb32, 'the setup page, with its key');
$r = post_form($surl, form_encode(action => 'totp-confirm',
                                  code => totp(base32_decode($nb32 // ''), time)),
               Cookie => "hsc=$setup");
my $done = cookie_from($r) // '';
ok($r->code == 200 && $done && !pending($done) && (amr_of($done) & 2),
   'its first code finishes the login: a full cookie with otp');
like($r->content, qr{href="/private/page\.html"},
     'the recovery codes link back to the return target');
is(GET('/private/page.html', Cookie => "hsc=$done")->code, 200,
   'the login opens the protected page');
$j = json(api_post('/setup-api/login', {username => 'ed-new2',
                                        password => $pw{'ed-new2'}}));
is(($j->{second_factor} // '') . ' ' . ($j->{next} // ''), 'setup /account',
   'hsc-api: second_factor setup, next the account page');
$r = login('ed-otp', $pw{'ed-otp'}, path => '/setup-login');
ok(pending(cookie_from($r)) && ($r->header('Location') // '') =~ m{^/setup-login},
   'a user with a factor there goes to the code step, not the setup');
isnt(GET('/account?setup=1', Cookie => 'hsc=' . (cookie_from($r) // ''))->content
     =~ /value="totp-setup"/ ? 1 : 0, 1,
     'and the account page does not take that pending cookie for a setup');
