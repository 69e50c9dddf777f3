# Hostile input, each case with its expected answer: duplicated cookies,
# oversized cookies and headers, NUL and control bytes, invalid UTF-8 and
# SQL metacharacters (username, form, cookie), a 1 MiB password, empty,
# truncated and non-form login bodies, methods other than GET, error
# documents, internal redirects and SSI subrequests reaching protected
# locations. None may give a 500, a crash, access, or a log line holding
# a secret (checked at the end against every password and cookie used).
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET HEAD POST);
use MIME::Base64 qw(encode_base64url);
use HSCTest;

plan tests => 157;

ua_plain();
my $start = log_size();
my $page = '/private/page.html';
my $hostport = Apache::TestRequest::hostport();
my @secrets;      # every secret this file sends: none may reach the log

sub fresh_cookie
{
    my ($user, %opt) = @_;
    my $res = login($user, $PW{$user}, %opt);
    die "login $user: " . $res->code . "\n" unless $res->code == 303;
    my $v = cookie_from($res, $opt{name} || 'hsc');
    push @secrets, $v, (cookie_fields($v))[-2, -1];
    return $v;
}

# GET $path with $header as the whole Cookie header; the response.
sub with_cookie_header
{
    my ($path, $header, @more) = @_;
    my $res = GET $path, Cookie => $header, @more;
    return $res;
}

push @secrets, $PW{alice}, $PW{judy};
my $alice = fresh_cookie('alice');
my $judy = fresh_cookie('judy');
my $res = get_with($page, 'hsc', $alice);
is($res->code, 200, 'alice\'s cookie opens the page');

# --- two hsc cookies in one request -----------------------------------------
# Refused (401, HSC011), whichever comes first: a cookie planted for a parent
# domain or by a sibling host cannot shadow the real one, nor ride on it.
my $forged = $alice;
$forged =~ s/\.([^.]+)$/'.' . reverse($1)/e;
my @f = cookie_fields($alice);
my $as_judy = join '.', @f[0, 1], encode_base64url('judy'), @f[3 .. $#f];
my $off = log_size();
for my $case (
    ['forged first', "hsc=$forged; hsc=$alice"],
    ['forged last', "hsc=$alice; hsc=$forged"],
    ['another user first', "hsc=$as_judy; hsc=$alice"],
    ['two valid users, judy first', "hsc=$judy; hsc=$alice"],
    ['two valid users, alice first', "hsc=$alice; hsc=$judy"],
    ['the same twice', "hsc=$alice; hsc=$alice"],
    ['an empty one first', "hsc=; hsc=$alice"],
    ['quoted and bare', "hsc=\"$alice\"; hsc=$alice"],
) {
    my ($what, $hdr) = @$case;
    $res = with_cookie_header($page, $hdr);
    is($res->code, 401, "two hsc cookies ($what): 401");
}
my $new = log_since($off);
is(scalar(() = $new =~ /HSC011: refused: 2 cookies named hsc/g), 8,
   'each is logged as HSC011, naming the count only');
# Two Cookie header lines: httpd joins them with ", " into one value, which
# is then not a cookie of this module's format.
for my $order ([$forged, $alice], [$alice, $forged]) {
    my $out = raw_http("GET $page HTTP/1.1\r\nHost: $hostport\r\n"
                       . "Cookie: hsc=$order->[0]\r\nCookie: hsc=$order->[1]\r\n"
                       . "Connection: close\r\n\r\n");
    like($out, qr{^HTTP/1\.1 401 }, 'two Cookie header lines: 401');
}
# Names are case-sensitive: HSC= is someone else's cookie and is ignored.
$res = with_cookie_header($page, "HSC=$forged; hsc=$alice");
is($res->code, 200, 'HSC=<forged> beside hsc=<valid>: ignored, 200');
is($res->header('X-HSC-User'), 'alice', 'as alice');
$res = with_cookie_header($page, "hsc=$forged; HSC=$alice");
is($res->code, 401, 'hsc=<forged> beside HSC=<valid>: 401');

# --- long cookies and headers ----------------------------------------------
$off = log_size();
$res = get_with($page, 'hsc', $alice . ('A' x 4096));
is($res->code, 401, 'a valid cookie padded to 4096+ bytes: 401');
$res = get_with($page, 'hsc', 'A' x 4097);
is($res->code, 401, 'a 4097-byte hsc cookie: 401');
$res = with_cookie_header($page, 'pad=' . ('p' x 5000) . "; hsc=$alice");
is($res->code, 200, 'a 5000-byte foreign cookie beside a valid hsc: 200');
like(log_since($off), qr/HSC012: cookie refused: /,
     'the long cookies are logged as HSC012');
# Up to httpd's LimitRequestFieldSize (8190 bytes by default; with
# name-based virtual hosts the first host's limit counts, so a virtual host
# cannot raise it): the module's own answers for the largest header it sees.
my $many = 'x=1; ' x 1500;    # 7500 bytes
$res = with_cookie_header($page, $many . "hsc=$alice");
is($res->code, 200, 'a valid hsc after 1500 other cookies (8 KB): 200');
is($res->header('X-HSC-User'), 'alice', 'as alice');
$res = with_cookie_header($page, $many . "hsc=$forged");
is($res->code, 401, 'a forged hsc after 1500 other cookies: 401');
$res = with_cookie_header($page, "$many hsc=$forged; hsc=$alice");
is($res->code, 401, 'two hsc cookies after 1500 others: 401');
$res = with_cookie_header($page, 'hsc=' . ('B' x 8000));
is($res->code, 401, 'an 8000-byte hsc cookie: 401');
# 16 KiB: over the limit, httpd's own 400 before any module runs.
$off = log_size();
$res = with_cookie_header($page, 'pad=' . ('p' x 16384) . "; hsc=$alice");
is($res->code, 400, 'a 16 KiB Cookie header: httpd answers 400');
like($res->content, qr/exceeds server limit/, 'saying the limit was hit');
unlike($res->content, qr/\Q$alice\E|ppppp/, 'without echoing the header');
unlike(log_since($off), qr/HSC0/, 'the module never saw it');

# --- NUL, control bytes, invalid UTF-8, SQL metacharacters ----------------
# In the username of the form: refused before any lookup when not a valid
# username (HSC030), else looked up as an opaque string (HSC032): 401.
my $wrong = 'Wr0ng-hostile-pw';
push @secrets, $wrong;
$off = log_size();
my @bad_names = (
    ['NUL', "ali\0ce"], ['trailing NUL', "alice\0"], ['SOH', "ali\x01ce"],
    ['line feed', "alice\nHSC034: forged"], ['DEL', "alice\x7f"],
    ['C1 control', "alice\xc2\x85"], ['invalid UTF-8', "ali\xc3\x28ce"],
    ['overlong UTF-8', "\xc0\xaf"], ['lone 0xff', "alice\xff"],
);
for my $case (@bad_names) {
    my ($what, $name) = @$case;
    $res = login($name, $PW{alice});
    is($res->code, 401, "username with $what (percent-encoded): 401");
    ok(!defined cookie_from($res), "no cookie ($what)");
}
$new = log_since($off);
like($new, qr/HSC030: login refused: missing or invalid username/,
     'invalid usernames are logged as HSC030');
unlike($new, qr/HSC034: forged/, 'a line feed in a username forges no line');
# Raw (not percent-encoded) NUL and control bytes in the form body.
for my $case (['raw NUL', "username=ali\0ce&password=$PW{alice}"],
              ['raw SOH', "username=ali\x01ce&password=$PW{alice}"],
              ['raw 0xff', "username=alice\xff&password=$PW{alice}"]) {
    $res = post_form('/login', $case->[1]);
    is($res->code, 401, "username with a $case->[0] in the body: 401");
}
$res = post_form('/login', "username=alice&password=$PW{alice}\0");
is($res->code, 401, 'the right password with a raw NUL after it: 401');
$res = login('alice', "$PW{alice}\0");
is($res->code, 401, 'the right password with %00 after it: 401');
$res = login('alice', substr($PW{alice}, 0, 3) . "\0" . substr($PW{alice}, 3));
is($res->code, 401, 'the right password with %00 inside: 401');

# SQL metacharacters: the lookup binds the name; nothing is a pattern.
$off = log_size();
for my $name ("alice'--", "alice' OR '1'='1", "' OR 1=1 --", 'alic_',
              'al%', '%', '_____', "alice\"; DROP TABLE hsc_users; --",
              'alice;', 'ALICE', 'alice ') {
    $res = login($name, $PW{alice});
    is($res->code, 401, "username \Q$name\E with alice's password: 401");
}
for my $pw ("' OR '1'='1", "x' OR 1=1 --", '%', '_' x length $PW{alice}) {
    $res = login('alice', $pw);
    is($res->code, 401, "alice with password \Q$pw\E: 401");
}
$new = log_since($off);
like($new, qr/HSC032: login refused for user "alice' OR '1'='1": /,
     'the metacharacter name is logged as given');
like($new, qr/HSC032: login refused for user "alice\\+"; DROP TABLE/,
     'with its quote escaped');
is(login('alice', $PW{alice})->code, 303,
   'alice still logs in: the table is intact');

# In the cookie: every field of the format is checked before the store is
# asked, so none of these reaches SQLite.
my $b64 = sub { encode_base64url($_[0]) };
my %bad_cookie = (
    'NUL escape'         => "$alice%00",
    'NUL in user field'  => join('.', @f[0, 1], $b64->("alice\0"), @f[3 .. $#f]),
    'SQL in user field'  => join('.', @f[0, 1], $b64->("alice'--"), @f[3 .. $#f]),
    'pattern user field' => join('.', @f[0, 1], $b64->('al%'), @f[3 .. $#f]),
    'bad UTF-8 user'     => join('.', @f[0, 1], $b64->("ali\xc3\x28ce"), @f[3 .. $#f]),
    'control in user'    => join('.', @f[0, 1], $b64->("ali\x01ce"), @f[3 .. $#f]),
    'quote in kid'       => join('.', $f[0], "k1'--", @f[2 .. $#f]),
    'SQL as value'       => "' OR '1'='1",
    'comment as value'   => "$alice--",
    'percent as value'   => '%',
    'quote in MAC'       => join('.', @f[0 .. $#f - 1], "'" . $f[-1]),
    'space in value'     => join('.', @f[0 .. 2], "$f[3] ", @f[4 .. $#f]),
    'high bytes'         => "$alice\xff\xfe",
);
for my $what (sort keys %bad_cookie) {
    $res = get_with($page, 'hsc', $bad_cookie{$what});
    is($res->code, 401, "cookie with $what: 401");
}
# Raw NUL and control bytes in a header: httpd refuses the request (400)
# before any module sees it.
for my $case (['NUL', "\0"], ['SOH', "\x01"], ['ESC', "\x1b"]) {
    my $out = raw_http("GET $page HTTP/1.1\r\nHost: $hostport\r\n"
                       . "Cookie: hsc=$alice$case->[1]\r\n"
                       . "Connection: close\r\n\r\n");
    like($out, qr{^HTTP/1\.1 400 }, "raw $case->[0] in the Cookie header: 400");
}

# --- login bodies ----------------------------------------------------------
# 1 MiB password: 413 from the body limit, before the body is read, and no
# password work: no HSC032 line for this user.
my $mib = 'MiBpw' . ('z' x (1024 * 1024));
push @secrets, substr($mib, 0, 64);
$off = log_size();
$res = login('mallory1m', $mib);
is($res->code, 413, 'a 1 MiB password: 413');
ok(!defined cookie_from($res), 'and no cookie');
$new = log_since($off);
like($new, qr/HSC021: login form refused: HTTP 413/, 'logged as HSC021');
unlike($new, qr/mallory1m/, 'no password check ran for it (no HSC032)');
# The same, chunked (no Content-Length): the limit is enforced while reading.
my $chunked = "POST /login HTTP/1.1\r\nHost: $hostport\r\n"
    . "Content-Type: application/x-www-form-urlencoded\r\n"
    . "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
my $body = 'username=mallory1m&password=' . ('z' x 20000);
$chunked .= sprintf("%x\r\n%s\r\n0\r\n\r\n", length $body, $body);
like(raw_http($chunked), qr{^HTTP/1\.1 413 }, 'a chunked 20 KB body: 413');

# Empty, truncated and non-form bodies.
$off = log_size();
$res = post_form('/login', '');
is($res->code, 401, 'an empty login body: 401 (no fields)');
ok(!defined cookie_from($res), 'and no cookie');
$res = POST '/login', 'Content-Type' => 'application/json',
    content => qq({"username":"alice","password":"$PW{alice}"});
is($res->code, 415, 'a JSON login body: 415');
my $noct = "username=alice&password=$PW{alice}";
like(raw_http("POST /login HTTP/1.1\r\nHost: $hostport\r\n"
              . 'Content-Length: ' . length($noct) . "\r\n"
              . "Connection: close\r\n\r\n$noct"),
     qr{^HTTP/1\.1 415 }, 'a login body without a content type: 415');
like(log_since($off), qr/HSC021: login form refused: HTTP 415/,
     'refused bodies are logged as HSC021');
# Content-Length promises more than comes. The client then closes its side:
# the short body is an error (400), never a login with what arrived.
my $part = "username=alice&password=$PW{alice}";
my $trunc = "POST /login HTTP/1.1\r\nHost: $hostport\r\n"
    . "Content-Type: application/x-www-form-urlencoded\r\n"
    . 'Content-Length: ' . (length($part) + 100) . "\r\n"
    . "Connection: close\r\n\r\n$part";
my $out = raw_http($trunc, half_close => 1);
like($out, qr{^HTTP/1\.1 400 }, 'a truncated login body: 400');
unlike($out, qr/^Set-Cookie:/mi, 'and no cookie');
# A client that stops sending and waits: no answer while the body is
# incomplete (the server waits for the rest; the test gives up after 1.5 s).
$out = raw_http($trunc, timeout => 1.5);
is($out, '', 'a stalled login body: no answer, no login');

# --- methods -----------------------------------------------------------------
for my $case (['HEAD', undef, 401], ['HEAD', $forged, 401],
              ['HEAD', $alice, 200], ['OPTIONS', undef, 401],
              ['OPTIONS', $forged, 401], ['OPTIONS', $alice, 200],
              ['POST', undef, 401], ['POST', $forged, 401],
              ['POST', $alice, 200], ['DELETE', undef, 401],
              ['PUT', $forged, 401]) {
    my ($m, $v, $want) = @$case;
    my @h = defined $v ? (Cookie => "hsc=$v") : ();
    my $req = HTTP::Request->new($m, Apache::TestRequest::resolve_url($page),
                                 [@h]);
    $req->content('x=1') if $m eq 'POST' || $m eq 'PUT';
    $res = Apache::TestRequest::user_agent()->request($req);
    my $who = !defined $v ? 'no cookie' : $v eq $alice ? 'a valid cookie'
                                                       : 'a forged cookie';
    is($res->code, $want, "$m $page with $who: $want");
}
# (httpd's default handler serves a static file to a POST, hence the 200.)
# TRACE is answered by httpd's core before any authentication runs
# (TraceEnable is On by default): an echo of the request, never the page.
# Operators should set TraceEnable Off: the echo would repeat a cookie.
$res = Apache::TestRequest::user_agent()->request(
    HTTP::Request->new('TRACE', Apache::TestRequest::resolve_url($page)));
ok($res->code == 200 && $res->content =~ m{^TRACE /private/page\.html},
   'TRACE without a cookie: httpd\'s echo of the request')
    or diag $res->code;
unlike($res->content, qr/page private/, 'not the protected page');
$res = HEAD $page, Cookie => "hsc=$alice";
is($res->content, '', 'HEAD with a valid cookie: no body');
$res = Apache::TestRequest::user_agent()->request(
    HTTP::Request->new('OPTIONS', Apache::TestRequest::resolve_url($page)));
unlike($res->content, qr/page private/, 'OPTIONS without a cookie: no content');

# --- error documents, internal redirects, subrequests ---------------------
# A public 404 whose error document is protected: no cookie, no content.
$res = GET '/hostile/open/missing.html';
is($res->code, 404, 'public 404 with a protected ErrorDocument: 404');
unlike($res->content, qr/page private/, 'without the protected content');
$res = get_with('/hostile/open/missing.html', 'hsc', $forged);
unlike($res->content, qr/page private/, 'nor with a forged cookie');
$res = get_with('/hostile/open/missing.html', 'hsc', $alice);
like($res->content, qr/page private/, 'a valid cookie sees it');
# A protected 404 whose error document only bob may see.
$res = get_with('/private/hostile/missing.html', 'hsc', $alice);
is($res->code, 404, 'protected 404 with an ErrorDocument for bob only: 404');
unlike($res->content, qr/page only-bob/, "alice does not get bob's page");
# A 401 whose error document is a protected page.
for my $v (undef, $forged) {
    $res = get_with('/hostile/ed401/page.html', 'hsc', $v);
    is($res->code, 401, '401 with a protected ErrorDocument: 401');
    unlike($res->content, qr/page (private|hostile)/, 'and no page');
}
$res = get_with('/hostile/ed401/page.html', 'hsc', $alice);
like($res->content, qr{page hostile/ed401}, 'a valid cookie gets the page');
# DirectoryIndex in a public folder naming a protected page.
$res = GET '/hostile/open/';
is($res->code, 401, 'a protected DirectoryIndex, no cookie: 401');
unlike($res->content, qr/page private/, 'without the page');
$res = get_with('/hostile/open/', 'hsc', $alice);
like($res->content, qr/page private/, 'a valid cookie gets it');
# DirectoryIndex inside the protected location.
$res = GET '/private/';
is($res->code, 401, 'a protected folder index, no cookie: 401');
is(get_with('/private/', 'hsc', $alice)->code, 200, 'with a cookie: 200');
# A per-directory rewrite ([PT]: internal redirect) into /private.
for my $v (undef, $forged) {
    $res = get_with('/hostile/rw/page.html', 'hsc', $v);
    is($res->code, 401, 'rewritten into /private: 401');
    unlike($res->content, qr/page (private|hostile)/, 'and no page');
}
$res = get_with('/hostile/rw/page.html', 'hsc', $alice);
is($res->code, 200, 'rewritten into /private with a cookie: 200');
like($res->content, qr/page private/, 'the private page');
# SSI in a public page including protected ones.
$res = GET '/hostile/open/inc.shtml';
is($res->code, 200, 'public SSI page: 200');
unlike($res->content, qr/page (private|only-bob)/,
       'without a cookie no protected include');
$res = get_with('/hostile/open/inc.shtml', 'hsc', $forged);
unlike($res->content, qr/page (private|only-bob)/,
       'nor with a forged cookie');
$res = get_with('/hostile/open/inc.shtml', 'hsc', $alice);
# Not even with alice's: this page is public, so its headers may have left
# without Cache-Control: private before the include was checked (HSC189;
# t/20_cache_private.t shows it with mod_cache in front).
unlike($res->content, qr/page (private|only-bob)/,
       "nor with alice's: the including page is public (HSC189)");
# SSI in a protected page: each include is checked for its own location.
$res = get_with('/private/hostile/inc.shtml', 'hsc', $alice);
is($res->code, 200, 'protected SSI page as alice: 200');
like($res->content, qr/page private.*page staff/s,
     'includes what alice may see');
unlike($res->content, qr/page only-bob/, "not bob's page");
unlike($res->content, qr{page short/private},
       'not a location that wants another cookie (hshort)');
my $short = fresh_cookie('alice', path => '/short/login', name => 'hshort');
$res = GET '/private/hostile/inc.shtml',
    Cookie => "hsc=$alice; hshort=$short";
like($res->content, qr{page short/private},
     'which is included when that cookie is sent too');

# --- a flood of refused cookies: a few lines, then a count ----------------
# Per child at most 20 HSC011/HSC012 lines per 10 s; the next interval's
# first line is preceded by HSC188 with the number not written. One
# keep-alive connection, so that one child sees every request.
ua_plain(keep_alive => 1);
$off = log_size();
my $flood = 60;
my $refused = grep { get_with($page, 'hsc', $forged)->code == 401 } 1 .. $flood;
is($refused, $flood, "a flood of $flood forged cookies: every one 401");
my @written = log_since($off) =~ /\[pid (\d+)[^]]*\][^\n]*HSC012: cookie refused/g;
my %pids = map { $_ => 1 } @written;
ok(keys %pids <= 1, 'all from one child (one connection)');
ok(@written <= 40, 'at most 20 lines per 10 s were written (' . scalar(@written)
   . ' of 60; the flood spans at most two intervals)');
# Keep the connection (KeepAliveTimeout 5 s) past the interval.
for (1 .. 3) {
    sleep 4;
    GET '/public.html';
}
is(get_with($page, 'hsc', $forged)->code, 401, 'after 12 s: still 401');
my $after = log_since($off);
my @held = $after =~ /HSC188: (\d+) refused-cookie lines \(HSC011\/HSC012\) not written/g;
my $held = 0;
$held += $_ for @held;
ok(@held >= 1, 'HSC188 says how many lines were not written');
my $lines = () = $after =~ /HSC012: cookie refused/g;
cmp_ok($lines + $held, '>=', $flood + 1,
       "written ($lines) and counted ($held) lines cover every refusal");
like($after, qr/HSC188: \d+ refused-cookie lines[^\n]*\n[^\n]*HSC012: cookie refused/,
     'the next line after HSC188 is the refusal that opened the interval');
ua_plain();

# --- the log ---------------------------------------------------------------
my $text = error_log_text();
my @leaked = grep { length($_) >= 8 && index($text, $_) >= 0 } @secrets;
is(scalar @leaked, 0, 'no password, cookie, x_n or MAC reached the log')
    or diag "leaked: " . join(', ', map { substr($_, 0, 12) . '...' } @leaked);
unlike($text, qr/MiBpw/, 'not even the start of the 1 MiB password');
unlike(log_since($start), qr/\[[^]]*:(crit|alert|emerg)\]/,
       'no crit, alert or emerg line in the log');
