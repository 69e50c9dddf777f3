# SetHandler hsc-api, the JSON login for single-page apps
# (docs/json-api.md), and the JSON body of a protected page's 401 for a
# client that prefers JSON. Its users: yves (signs in and out), zoe
# (throttled), vera (logs out everywhere, then a second factor), ugo (the
# Python client), ines (the code step), omar (the password change), pia
# (app passwords), rui (the Python client's account endpoints), tara
# (409).
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET POST);
use HTTP::Request ();
use JSON::PP ();
use POSIX ();
use HSCTest;

plan tests => 190;

ua_plain();
my $port = Apache::Test::vars('port');
my $json = JSON::PP->new;
my $log0 = log_size();

sub body_of
{
    my ($res) = @_;
    my $v = eval { $json->decode($res->content) };
    return ref $v eq 'HASH' ? $v : {};
}

# POST $body (text) as JSON to $path; @h extra headers.
sub post_json
{
    my ($path, $body, @h) = @_;
    return POST($path, 'Content-Type' => 'application/json', @h,
                content => $body);
}

sub login_json
{
    my ($user, $pw, @h) = @_;
    return post_json('/api/login',
                     $json->encode({ username => $user, password => $pw }),
                     @h);
}

sub options
{
    my ($path, @h) = @_;
    return Apache::TestRequest::user_agent()->request(
        HTTP::Request->new('OPTIONS', Apache::TestRequest::resolve_url($path),
                           [@h]));
}

# --- signed out ----------------------------------------------------------
my $res = GET '/api/session';
is($res->code, 200, 'session signed out: 200');
is_deeply(body_of($res), { authenticated => JSON::PP::false },
          '{"authenticated":false}');
like($res->header('Content-Type') // '', qr{^application/json},
     'Content-Type: application/json');
is($res->header('X-Content-Type-Options'), 'nosniff', 'nosniff');
is($res->header('Cache-Control'), 'no-store', 'no-store');
ok(!defined $res->header('Access-Control-Allow-Origin'),
   'no Origin: no CORS header');

# --- login ---------------------------------------------------------------
$res = login_json('yves', $PW{yves});
is($res->code, 200, 'login: 200');
is_deeply(body_of($res), { authenticated => JSON::PP::true, user => 'yves' },
          '{"authenticated":true,"user":"yves"}');
my $cookie = cookie_from($res);
ok(defined $cookie && length $cookie > 40, 'the session cookie is set');
like(cookie_header_for($res, 'hsc') // '', qr/HttpOnly/i, 'HttpOnly');
is($res->header('Cache-Control'), 'no-store', 'login answer: no-store');

$res = GET '/api/session', Cookie => "hsc=$cookie";
my $s = body_of($res);
is($res->code, 200, 'session signed in: 200');
ok($s->{authenticated}, 'authenticated');
is($s->{user}, 'yves', 'user');
is_deeply($s->{groups}, ['staff', 'ops'], 'groups as an array');
is_deeply($s->{methods}, ['pwd'], 'methods: pwd');
ok(($s->{login_time} // 0) > 1_600_000_000
   && ($s->{expires} // 0) > $s->{login_time}, 'login time, then expiry');
ok(!defined set_cookies($res), 'session sets no cookie');

# The cookie works on a protected page as a form login's does.
$res = GET '/private/page.html', Cookie => "hsc=$cookie";
is($res->code, 200, 'the API cookie opens a protected page');

# --- refusals: one answer for a wrong password and an unknown user --------
my $wrong = login_json('yves', 'not-the-password');
my $unknown = login_json('nobody-here', 'not-the-password');
is($wrong->code, 401, 'wrong password: 401');
is($unknown->code, 401, 'unknown user: 401');
is($wrong->content, $unknown->content, 'the same body for both');
is(body_of($wrong)->{error}, 'login_failed', 'error login_failed');
ok(!defined set_cookies($wrong), 'no cookie on a failure');

$res = POST '/api/login', 'Content-Type' => 'text/plain',
    content => $json->encode({ username => 'yves', password => $PW{yves} });
is($res->code, 415, 'text/plain: 415');
is(body_of($res)->{error}, 'unsupported_media_type', 'error code');
$res = post_form('/api/login',
                 form_encode(username => 'yves', password => $PW{yves}));
is($res->code, 415, 'a form body: 415');
ok(!defined set_cookies($res), 'and no cookie');

for my $bad (['{"username":"yves"', 'cut short'],
             ['{"username":"yves","password":{"a":1}}', 'nested'],
             ['{"username":"yves","username":"x","password":"p"}',
              'a duplicate key'],
             ['[1,2]', 'an array'],
             ["{\"username\":\"\xff\",\"password\":\"p\"}", 'bad UTF-8']) {
    $res = post_json('/api/login', $bad->[0]);
    ok($res->code == 400 && body_of($res)->{error} eq 'bad_json',
       "$bad->[1]: 400 bad_json") or diag $res->code . ' ' . $res->content;
}
$res = post_json('/api/login', '{"username":1,"password":"p"}');
is($res->code, 400, 'a username that is not a string: 400');
$res = post_json('/api/login', '{"password":"' . ('x' x 9000) . '"}');
is($res->code, 413, 'a body over 8 KiB: 413');
is(body_of($res)->{error}, 'too_large', 'error too_large');

$res = login_json('yves', $PW{yves}, Origin => 'http://evil.example');
is($res->code, 403, 'another site\'s Origin: 403');
is(body_of($res)->{error}, 'origin', 'error origin');
ok(!defined set_cookies($res), 'no cookie');
$res = login_json('yves', $PW{yves}, 'Sec-Fetch-Site' => 'cross-site');
is($res->code, 403, 'Sec-Fetch-Site cross-site: 403');
$res = login_json('yves', $PW{yves}, Origin => "http://localhost:$port");
is($res->code, 200, 'its own origin: 200');

$res = GET '/api/nope';
is($res->code, 404, 'an unknown endpoint: 404');
is(body_of($res)->{error}, 'not_found', 'error not_found');
# Named by the whole path below the <Location>, not its last segment.
for my $path ('/api/x/session', '/api/session/', '/api/', '/api') {
    $res = GET $path, Cookie => "hsc=$cookie";
    is($res->code, 404, "$path: 404");
}
$res = GET '/api/login';
is($res->code, 405, 'GET login: 405');
like($res->header('Allow') // '', qr/POST/, 'Allow: POST');
$res = post_json('/api/session', '{}');
is($res->code, 405, 'POST session: 405');
is(body_of($res)->{error}, 'method_not_allowed', 'as JSON');

# --- the throttle: api-throttle.test allows zoe two failures --------------
for my $i (1 .. 2) {
    $res = login_json('zoe', 'wrong', Host => 'api-throttle.test');
    is($res->code, 401, "zoe's failure $i: 401");
}
$res = login_json('zoe', $PW{zoe}, Host => 'api-throttle.test');
is($res->code, 429, 'then even the right password: 429');
ok(($res->header('Retry-After') // 0) > 0, 'with Retry-After')
    or diag $res->header('Retry-After');
is(body_of($res)->{error}, 'throttled', 'error throttled');
ok((body_of($res)->{retry_after} // 0) > 0, 'retry_after in the body');

# --- logout --------------------------------------------------------------
$res = post_json('/api/logout', '{}', Cookie => "hsc=$cookie");
is($res->code, 200, 'logout: 200');
is_deeply(body_of($res),
          { authenticated => JSON::PP::false, everywhere => JSON::PP::false },
          '{"authenticated":false,"everywhere":false}');
my $cleared = cookie_header_for($res, 'hsc') // '';
like($cleared, qr/^hsc=;/, 'the cookie is cleared');
like($cleared, qr/Max-Age=0|expires=Thu, 01 Jan 1970/i, 'expired now');
$res = post_json('/api/logout', '', Cookie => "hsc=$cookie");
is($res->code, 200, 'an empty body reads as {}');
$res = post_json('/api/logout', '{}', Origin => 'http://evil.example',
                 Cookie => "hsc=$cookie");
is($res->code, 403, 'a cross-site logout: 403');

# Everywhere: two logins, the second logs out everywhere, the first dies.
$res = login_json('vera', $PW{vera});
my $older = cookie_from($res);
sleep 1;
$res = login_json('vera', $PW{vera});
my $newer = cookie_from($res);
ok(defined $older && defined $newer && $older ne $newer, 'vera twice');
is(body_of(GET '/api/session', Cookie => "hsc=$older")->{user}, 'vera',
   'the older cookie is good before');
$res = post_json('/api/logout', '{"everywhere":true}',
                 Cookie => "hsc=$newer");
is($res->code, 200, 'logout everywhere: 200');
ok(body_of($res)->{everywhere}, '"everywhere":true');
$res = GET '/api/session', Cookie => "hsc=$older";
is_deeply(body_of($res), { authenticated => JSON::PP::false },
          'the older cookie: no longer signed in');
$res = GET '/private/page.html', Cookie => "hsc=$older",
    Accept => 'application/json';
is($res->code, 401, 'nor on a protected page');

# --- session never slides: /refresh's idle timeout is 6 s ----------------
$res = post_json('/refresh/api/login',
                 $json->encode({ username => 'yves',
                                 password => $PW{yves} }));
my $short = cookie_from($res, 'hrefresh');
ok(defined $short, 'a login under /refresh');
sleep 4; # past half the idle timeout: a protected page would refresh
$res = GET '/refresh/api/session', Cookie => "hrefresh=$short";
ok(body_of($res)->{authenticated}, 'its session is good');
ok(!defined set_cookies($res), 'and hsc-api sets no cookie');
$res = GET '/refresh/private', Cookie => "hrefresh=$short";
ok(defined cookie_from($res, 'hrefresh'),
   'where a protected page refreshes it (the control)');

# --- CORS: only http://app.example.test --------------------------------
my $app = 'http://app.example.test';
$res = GET '/api/session', Origin => $app;
is($res->header('Access-Control-Allow-Origin'), $app, 'the listed origin');
is($res->header('Access-Control-Allow-Credentials'), 'true',
   'with credentials');
like($res->header('Vary') // '', qr/Origin/, 'Vary: Origin');
$res = GET '/api/session', Origin => 'http://evil.example';
ok(!defined $res->header('Access-Control-Allow-Origin'),
   'another origin: no Access-Control-Allow-Origin');
like($res->header('Vary') // '', qr/Origin/, 'Vary: Origin still');
$res = GET '/refresh/api/session', Origin => $app;
ok(!defined $res->header('Access-Control-Allow-Origin')
   && !defined $res->header('Vary'),
   'a location without HSCAPIAllowOrigin: no CORS, no Vary');
$res = login_json('yves', $PW{yves}, Origin => $app);
is($res->code, 200, 'a login from the listed origin: 200');
is($res->header('Access-Control-Allow-Origin'), $app, 'readable by it');

$res = options('/api/login', Origin => $app,
               'Access-Control-Request-Method' => 'POST',
               'Access-Control-Request-Headers' => 'content-type');
is($res->code, 204, 'preflight: 204');
is($res->header('Access-Control-Allow-Origin'), $app, 'for the origin');
like($res->header('Access-Control-Allow-Methods') // '', qr/POST.*GET/,
     'Allow-Methods POST, GET');
like($res->header('Access-Control-Allow-Headers') // '', qr/Content-Type/i,
     'Allow-Headers Content-Type');
$res = options('/api/login', Origin => 'http://evil.example',
               'Access-Control-Request-Method' => 'POST');
ok(!defined $res->header('Access-Control-Allow-Origin')
   && !defined $res->header('Access-Control-Allow-Methods'),
   'another origin\'s preflight: no CORS headers');

# --- a second factor due: vera gets an authenticator app -----------------
{
    my ($rc, $out) = admin('totp', 'enrol', var_dir() . '/users.db', 'vera',
                           '--keys', var_dir() . '/keys');
    is($rc, 0, 'vera enrols an authenticator app') or diag $out;
    $res = post_json('/api-2fa/login',
                     $json->encode({ username => 'vera',
                                     password => $PW{vera} }));
    is($res->code, 200, 'a login where her second factor is due: 200');
    is_deeply(body_of($res),
              { authenticated => JSON::PP::false,
                second_factor => 'required', code_url => '/api-2fa/code',
                next => '/2fa-login' },
              'second_factor required: code_url, and next (the page)');
    my $pending = cookie_from($res);
    ok(defined $pending, 'with the pending cookie');
    $res = GET '/api-2fa/session', Cookie => "hsc=$pending";
    is_deeply(body_of($res), { authenticated => JSON::PP::false },
              'which is no session yet');
    $res = GET '/2fa-login', Cookie => "hsc=$pending";
    like($res->content, qr/id="hsc-code"/, 'the code step asks for the code');
}

# --- the 401 of a protected page -----------------------------------------
$res = GET '/private/page.html', Accept => 'application/json';
is($res->code, 401, 'a JSON client on a protected page: 401');
like($res->header('Content-Type') // '', qr{^application/json},
     'typed application/json');
is_deeply(body_of($res),
          { error => 'unauthenticated',
            login_url => '/login?return=/private/page.html' },
          'the body names the login URL with the return');
is($res->header('WWW-Authenticate'), 'HSC', 'WWW-Authenticate still');
$res = GET '/private/page.html', Accept => 'text/html',
    'Sec-Fetch-Mode' => 'navigate', 'Sec-Fetch-Dest' => 'document';
is($res->code, 302, 'a browser\'s navigation: the redirect');
unlike($res->content, qr/unauthenticated/, 'and no JSON body');
$res = GET '/private/page.html', Accept => '*/*';
is($res->code, 401, 'Accept */*: 401');
unlike($res->header('Content-Type') // '', qr/json/, 'not JSON');

my $plain = 'env -u LD_PRELOAD -u ASAN_OPTIONS';
my $db = var_dir() . '/users.db';

# --- POST code: ines's TOTP code (oathtool), her recovery code ------------
{
    # ines's password-only session at /api (no HSCSecondFactor there), from
    # before she has a factor: the step-up below starts from it.
    $res = login_json('ines', $PW{ines});
    my $plain_login = cookie_from($res);
    ok(body_of($res)->{authenticated},
       'ines signs in at /api before she has a factor: no code asked');
    my ($rc, $out) = admin('totp', 'enrol', $db, 'ines', '--keys',
                           var_dir() . '/keys');
    my ($b32) = $out =~ m{secret=([A-Z2-7]+)};
    ok($rc == 0 && $b32, 'ines enrols an authenticator app') or diag $out;
    ($rc, $out) = admin('recovery-codes', $db, 'ines', '--count', '2');
    my @rec = $out =~ /^([0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4})$/mg;
    is(scalar @rec, 2, 'and two recovery codes');
    # Not in the last seconds of a step: the code is of a known step.
    sleep(31 - time % 30) if time % 30 > 24;
    $res = post_json('/api-2fa/login',
                     $json->encode({ username => 'ines',
                                     password => $PW{ines} }));
    is(body_of($res)->{code_url}, '/api-2fa/code', 'code_url');
    my $pending = cookie_from($res);
    $res = post_json('/api-2fa/code', '{"code":"12"}',
                     Cookie => "hsc=$pending");
    is($res->code, 401, 'a wrong code: 401');
    is(body_of($res)->{error}, 'code_failed', 'error code_failed');
    ok(!defined set_cookies($res), 'and no cookie');
    $res = post_json('/api-2fa/code', '{"code":123456}',
                     Cookie => "hsc=$pending");
    is($res->code, 400, 'a code that is not a string: 400');
    my $code = `$plain oathtool --totp -b $b32`;
    chomp $code;
    like($code, qr/^\d{6}$/, 'oathtool computes the code');
    $res = post_json('/api-2fa/code', $json->encode({ code => $code }),
                     Cookie => "hsc=$pending");
    is($res->code, 200, 'the right code: 200');
    is_deeply(body_of($res), { authenticated => JSON::PP::true,
                               user => 'ines' }, 'signed in');
    my $full = cookie_from($res);
    ok(defined $full && $full ne $pending, 'the cookie re-issued');
    my $s = body_of(GET '/api-2fa/session', Cookie => "hsc=$full");
    ok($s->{authenticated} && grep({ $_ eq 'otp' } @{ $s->{methods} // [] }),
       'the session: methods has otp') or diag explain $s;
    ok(($s->{second_factor_time} // 0) >= $s->{login_time},
       'second_factor_time');
    $res = GET '/private/page.html', Cookie => "hsc=$full";
    is($res->code, 200, 'the cookie opens a protected page');
    $res = post_json('/api-2fa/code', $json->encode({ code => $code }));
    is($res->code, 401, 'without a login: 401');
    is(body_of($res)->{error}, 'no_login', 'error no_login');
    $res = post_json('/api-2fa/code', $json->encode({ code => $code }),
                     Cookie => "hsc=$pending");
    is($res->code, 401, 'the same code again (replayed): 401');

    # A second factor belongs to the user: with one, her password at /api
    # asks for it too, though /api has no HSCSecondFactor.
    $res = login_json('ines', $PW{ines});
    is_deeply([ body_of($res)->{authenticated} ? 1 : 0,
                body_of($res)->{second_factor} // '' ], [ 0, 'required' ],
              'ines signs in at /api now: second_factor required');
    # Step-up: a full login's code, where no second factor is asked.
    $res = post_json('/api/code', $json->encode({ code => $rec[0] }),
                     Cookie => "hsc=$plain_login");
    is($res->code, 200, 'step-up with a recovery code: 200');
    $s = body_of(GET '/api/session', Cookie => 'hsc=' . cookie_from($res));
    ok(($s->{second_factor_time} // 0) > 0, 'the session has its time');

    # Wrong codes count like failed logins: api-throttle.test allows two.
    my @h = (Host => 'api-throttle.test');
    $res = post_json('/api-2fa/login',
                     $json->encode({ username => 'ines',
                                     password => $PW{ines} }), @h);
    $pending = cookie_from($res);
    for my $i (1 .. 2) {
        $res = post_json('/api-2fa/code', '{"code":"000000"}', @h,
                         Cookie => "hsc=$pending");
    }
    $res = post_json('/api-2fa/code', $json->encode({ code => $rec[1] }), @h,
                     Cookie => "hsc=$pending");
    is($res->code, 429, 'after two wrong codes, even a right one: 429');
    ok((body_of($res)->{retry_after} // 0) > 0, 'with retry_after');
}

# --- POST password: omar --------------------------------------------------
my $new_pw = 'omar-Grey-Lantern-Moss-71';
{
    my $oc = cookie_from(login_json('omar', $PW{omar}));
    my $pw = sub {
        my ($body, @h) = @_;
        return post_json('/api/password', $json->encode($body),
                         Cookie => "hsc=$oc", @h);
    };
    $res = $pw->({ current => 'wrong', new => $new_pw });
    is($res->code, 401, 'a wrong current password: 401');
    is(body_of($res)->{error}, 'wrong_password', 'error wrong_password');
    $res = $pw->({ current => $PW{omar}, new => 'short1' });
    is($res->code, 400, 'a short new password: 400');
    is(body_of($res)->{error}, 'policy_short', 'error names the rule');
    like(body_of($res)->{message} // '', qr/\d+/, 'the message says how long');
    $res = $pw->({ current => $PW{omar}, new => "omar-Grey-Lantern\x01-Moss" });
    is(body_of($res)->{error}, 'policy_not_text',
       'a control character: policy_not_text');
    $res = $pw->({ current => $PW{omar} });
    ok($res->code == 400 && body_of($res)->{error} eq 'bad_request',
       'no new password: 400 bad_request');
    $res = $pw->({ current => $PW{omar}, new => $new_pw },
                 Authorization => 'Bearer hsc_x');
    is($res->code, 403, 'with Authorization (a token): 403');
    is(body_of($res)->{error}, 'token_not_login', 'error token_not_login');
    $res = post_json('/api/password',
                     $json->encode({ current => $PW{omar}, new => $new_pw }));
    is($res->code, 401, 'without a session: 401');
    $res = $pw->({ current => $PW{omar}, new => $new_pw },
                 Origin => 'http://evil.example');
    is($res->code, 403, 'from another site: 403');
    # (omar has no factor: HSC143 says logins work on a read-only file.)
    $res = login_json('omar', $PW{omar}, Host => 'readonly.test');
    is($res->code, 200, 'omar signs in on a read-only user database');
    $res = post_json('/api/password',
                     $json->encode({ current => $PW{omar}, new => $new_pw }),
                     Cookie => 'hsc=' . (cookie_from($res) // ''),
                     Host => 'readonly.test');
    is($res->code, 503, 'a read-only user database: 503');
    is(body_of($res)->{error}, 'readonly', 'error readonly');
    $res = $pw->({ current => $PW{omar}, new => $new_pw });
    is($res->code, 200, 'the change: 200');
    is_deeply(body_of($res), { changed => JSON::PP::true, user => 'omar' },
              '{"changed":true,"user":"omar"}');
    my $nc = cookie_from($res);
    ok(defined $nc && $nc ne $oc, 'this client\'s cookie re-issued');
    is(body_of(GET '/api/session', Cookie => "hsc=$nc")->{user}, 'omar',
       'and good');
    is_deeply(body_of(GET '/api/session', Cookie => "hsc=$oc"),
              { authenticated => JSON::PP::false }, 'the old one is dead');
    is(login_json('omar', $PW{omar})->code, 401, 'the old password: 401');
    is(login_json('omar', $new_pw)->code, 200, 'the new one: 200');
    # The throttle: two wrong current passwords at api-throttle.test.
    my @h = (Host => 'api-throttle.test');
    my $tc = cookie_from(login_json('omar', $new_pw, @h));
    for my $i (1 .. 2) {
        post_json('/api/password',
                  $json->encode({ current => 'wrong', new => 'x' x 20 }),
                  Cookie => "hsc=$tc", @h);
    }
    $res = post_json('/api/password',
                     $json->encode({ current => $new_pw,
                                     new => $new_pw . 'x' }),
                     Cookie => "hsc=$tc", @h);
    is($res->code, 429, 'throttled: 429');
}

# --- 409: tara's password changed by an administrator meanwhile ----------
# Her KDF is the ceiling's (20,000,000 SHA-256 rounds, about a second
# here, more under a sanitizer), run twice by the request: for the
# current password, then for the new one. hsc-admin passwd (a fast KDF)
# writes 0.3 s after the request began: after the request read her
# record, long before it writes, however loaded the machine.
my @slow_kdf = ('--kdf', 'sha256-chain:20000000', '--password-stdin',
                '--force');
my @fast_kdf = ('--kdf', 'sha256-chain:1000', '--password-stdin', '--force');
{
    my ($rc, $out) = HSCTest::admin_in("$PW{tara}\n", 'passwd', $db, 'tara',
                                       @slow_kdf);
    is($rc, 0, 'tara gets a slow KDF') or diag $out;
    my $tc = cookie_from(login_json('tara', $PW{tara}));
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        select(undef, undef, undef, 0.3);
        my ($rc2) = HSCTest::admin_in("tara-by-admin-Quartz-Fern-9\n",
                                      'passwd', $db, 'tara', @fast_kdf);
        POSIX::_exit($rc2 == 0 ? 0 : 1);
    }
    $res = post_json('/api/password',
                     $json->encode({ current => $PW{tara},
                                     new => 'tara-Amber-Kettle-Slate-34' }),
                     Cookie => "hsc=$tc");
    waitpid $pid, 0;
    is($?, 0, 'the administrator\'s change meanwhile');
    is($res->code, 409, 'changed meanwhile: 409') or diag $res->content;
    is(body_of($res)->{error}, 'changed_meanwhile', 'error changed_meanwhile');
    ok(!defined set_cookies($res), 'no cookie');
    is(login_json('tara', 'tara-by-admin-Quartz-Fern-9')->code, 200,
       'the administrator\'s password stands');
}

# --- 409 for a new app password: the password changed meanwhile ---------
# At /api-old (a login is recent for 1 s) a new app password needs the
# password, checked with tara's slow KDF again; hsc-admin passwd (a fast
# KDF) writes 0.3 s into it, so the store's insert, which needs the
# user's current x_n, refuses (HSC266).
{
    my $tara_pw = 'tara-Slow-Walnut-Harbor-26';
    my ($rc0, $out0) = HSCTest::admin_in("$tara_pw\n", 'passwd', $db, 'tara',
                                         @slow_kdf);
    is($rc0, 0, 'tara\'s slow KDF again') or diag $out0;
    my $tc = cookie_from(post_json('/api-old/login',
        $json->encode({ username => 'tara', password => $tara_pw })));
    sleep 2;
    my $pid = fork // die "fork: $!";
    if ($pid == 0) {
        select(undef, undef, undef, 0.3);
        my ($rc2) = HSCTest::admin_in("tara-Fast-Lichen-Moss-71\n", 'passwd',
                                      $db, 'tara', @fast_kdf);
        POSIX::_exit($rc2 == 0 ? 0 : 1);
    }
    $res = post_json('/api-old/tokens',
                     $json->encode({ name => 'raced',
                                     password => $tara_pw }),
                     Cookie => "hsc=$tc");
    waitpid $pid, 0;
    is($?, 0, 'the administrator\'s change during the token\'s check');
    is($res->code, 409, 'a new app password, changed meanwhile: 409')
        or diag $res->content;
    is(body_of($res)->{error}, 'changed_meanwhile',
       'error changed_meanwhile');
    ok(!defined body_of($res)->{token}, 'no token text in the answer');
    my ($rc, $out) = HSCTest::admin_in('', 'token', 'list', $db, 'tara');
    unlike($out, qr/raced/, 'nothing stored');
}

# --- app passwords: pia ---------------------------------------------------
my $made_token;
{
    my $pc = cookie_from(login_json('pia', $PW{pia}));
    my @c = (Cookie => "hsc=$pc");
    $res = GET '/api/tokens', @c;
    is($res->code, 200, 'GET tokens: 200');
    is_deeply(body_of($res), { user => 'pia', tokens => [] }, 'none yet');
    $res = post_json('/api/tokens',
                     '{"name":"ci","scopes":"git,dav","expires":"30d"}', @c);
    is($res->code, 201, 'POST tokens: 201');
    my $t = body_of($res);
    like($t->{token} // '', qr/^hsc_/, 'the token text, once');
    $made_token = $t->{token} // 'none';
    is_deeply($t->{scopes}, ['git', 'dav'], 'its scopes');
    ok(($t->{expires} // 0) - time > 29 * 86400, 'expires in 30 days');
    $res = post_json('/api/tokens', '{"name":"ci"}', @c);
    is(body_of($res)->{error}, 'name_taken', 'the same name: 400 name_taken');
    $res = post_json('/api/tokens', '{"name":"x","expires":"7d"}', @c);
    ok($res->code == 400 && body_of($res)->{error} eq 'bad_expiry',
       'an expiry not offered: 400 bad_expiry');
    my $url = "http://localhost:$port/tok-bearer/page.html";
    my $code = `$plain curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer $t->{token}' '$url'`;
    is($code, '200', 'curl with the token as Bearer: 200');
    $res = GET '/api/tokens', @c;
    my ($listed) = @{ body_of($res)->{tokens} // [] };
    ok($listed && $listed->{id} eq $t->{id} && $listed->{name} eq 'ci'
       && $listed->{created} > 0 && !defined $listed->{token},
       'listed: id, name, created, never the text') or diag $res->content;
    ok(($listed->{last_used} // 0) >= time - 60, 'last_used (HSCActivityDB)')
        or diag $res->content;
    for my $m (['GET', '/api/tokens'], ['POST', '/api/tokens'],
               ['POST', '/api/password']) {
        my $req = $m->[0] eq 'GET'
            ? GET($m->[1], Authorization => "Bearer $t->{token}")
            : post_json($m->[1], '{"name":"z"}',
                        Authorization => "Bearer $t->{token}");
        is($req->code, 403, "$m->[0] $m->[1] with the token: 403");
    }
    $res = GET '/api/tokens';
    is($res->code, 401, 'GET tokens without a session: 401');
    $res = GET '/api/tokens/revoke', @c;
    is($res->code, 405, 'GET tokens/revoke: 405');
    $res = Apache::TestRequest::user_agent()->request(
        HTTP::Request->new('DELETE',
                           Apache::TestRequest::resolve_url('/api/tokens'),
                           ['Cookie' => "hsc=$pc"]));
    is($res->code, 405, 'DELETE tokens: 405');
    like($res->header('Allow') // '', qr/GET, HEAD, POST/, 'Allow: GET, POST');
    $res = post_json('/api/tokens/revoke',
                     $json->encode({ id => $t->{id} }), @c);
    is($res->code, 200, 'revoke: 200');
    $code = `$plain curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer $t->{token}' '$url'`;
    is($code, '401', 'the revoked token: 401');
    $res = post_json('/api/tokens/revoke',
                     $json->encode({ id => $t->{id} }), @c);
    ok($res->code == 400 && body_of($res)->{error} eq 'unknown',
       'revoked again: 400 unknown');

    # HSCAccountRecentAuth 1: after it, the password again.
    my $oldc = cookie_from(post_json('/api-old/login',
        $json->encode({ username => 'pia', password => $PW{pia} })));
    sleep 2;
    my @o = (Cookie => "hsc=$oldc");
    $res = post_json('/api-old/tokens', '{"name":"late"}', @o);
    is($res->code, 403, 'a login not recent: 403');
    is(body_of($res)->{error}, 'not_recent', 'error not_recent');
    $res = post_json('/api-old/tokens',
                     '{"name":"late","password":"wrong"}', @o);
    is($res->code, 401, 'with a wrong password: 401');
    $res = post_json('/api-old/tokens',
                     $json->encode({ name => 'late',
                                     password => $PW{pia} }), @o);
    is($res->code, 201, 'with the password: 201');
}

# --- from Python: urllib and a cookie jar ---------------------------------
{
    local $ENV{HSC_API_PASSWORD} = $PW{ugo};
    local $ENV{HSC_API_NEW_PASSWORD} = 'rui-Copper-Heron-Dune-58';
    my $script = "$FindBin::Bin/../test/api/api-client.py";
    # Without the sanitizer build's LD_PRELOAD of libasan (the server's).
    my $out = `env -u LD_PRELOAD -u ASAN_OPTIONS python3 $script http://localhost:$port/api ugo 2>&1`;
    is($?, 0, 'test/api/api-client.py: every step as documented')
        or diag $out;
    like($out, qr/^1\.\.11$/m, 'all eleven of its checks ran');
    $ENV{HSC_API_PASSWORD} = $PW{rui};
    $out = `env -u LD_PRELOAD -u ASAN_OPTIONS python3 $script --account http://localhost:$port/api rui 2>&1`;
    is($?, 0, 'api-client.py --account: app passwords, the password')
        or diag $out;
    like($out, qr/^1\.\.12$/m, 'all twelve of its account checks ran');
}

# --- nothing secret in the error log ---------------------------------------
my $logged = log_since($log0);
unlike($logged, qr/\Q$PW{yves}\E|\Q$PW{vera}\E|\Q$PW{ugo}\E|\Q$new_pw\E/,
       'no password in the error log');
unlike($logged, qr/\Q$cookie\E/, 'nor a whole cookie');
unlike($logged, qr/\Q$made_token\E/, 'nor an app password\'s text');
like($logged, qr{HSC260: hsc-api: no endpoint "x/session" below the location /api\b},
     'a 404 names the location it looked below');
