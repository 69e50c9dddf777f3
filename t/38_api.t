# Issue 20: SetHandler hsc-api, the JSON login for single-page apps
# (docs/json-api.md), and the JSON body of a protected page's 401 for a
# client that prefers JSON. Its users: yves (signs in and out), zoe
# (throttled), vera (logs out everywhere, then a second factor), ugo (the
# Python client).
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET POST);
use HTTP::Request ();
use JSON::PP ();
use HSCTest;

plan tests => 104;

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
                second_factor => 'required', next => '/2fa-login' },
              'second_factor required, next: the code step');
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

# --- from Python: urllib and a cookie jar ---------------------------------
{
    local $ENV{HSC_API_PASSWORD} = $PW{ugo};
    my $script = "$FindBin::Bin/../test/api/api-client.py";
    # Without the sanitizer build's LD_PRELOAD of libasan (the server's).
    my $out = `env -u LD_PRELOAD -u ASAN_OPTIONS python3 $script http://localhost:$port/api ugo 2>&1`;
    is($?, 0, 'test/api/api-client.py: every step as documented')
        or diag $out;
    like($out, qr/^1\.\.11$/m, 'all eleven of its checks ran');
}

# --- nothing secret in the error log ---------------------------------------
my $logged = log_since($log0);
unlike($logged, qr/\Q$PW{yves}\E|\Q$PW{vera}\E|\Q$PW{ugo}\E/,
       'no password in the error log');
unlike($logged, qr/\Q$cookie\E/, 'nor a whole cookie');
