# Identity headers for an application behind httpd's reverse
# proxy. HSCIdentityHeader sets X-Remote-User (and groups, methods, login
# time) from the verified cookie; every spelling of those names the client
# sends is removed first (any case, '_' for '-'), as are the
# HSCStripRequestHeaders names, whether or not a user is verified; with no
# verified user nothing is set; HSCStripCookie keeps the session cookie
# from the backend. The backend is this server's /echo-backend/ behind
# mod_proxy_http, which reports what reached it.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET);
use HSCTest;

plan tests => 27;

ua_plain();
my $absent = ''; # the backend's expr=%{req:...} of a header that is not there

my $res = login('wes', $PW{wes});
is($res->code, 303, 'wes logs in');
my $c = cookie_from($res) // '';
# A leading ':' makes LWP send a name exactly as written (it would
# otherwise turn '_' into '-' and fix the case itself).
my @spoof = (':X-Remote-User' => 'mallory', ':X_Remote_User' => 'mallory',
             ':x-remote_USER' => 'mallory', ':X_REMOTE-user' => 'mallory',
             ':X-Remote-Groups' => 'admins', ':X_Remote_Methods' => 'hwk',
             ':X-Forwarded-User' => 'mallory', ':x_forwarded_user' => 'mallory');
my $at = log_size();

$res = GET('/idapp/page.html', Cookie => "theme=dark; hsc=$c; lang=en",
           @spoof);
is($res->code, 200, 'the proxied application answers 200 for wes');
is($res->content, "page private\n", 'with the backend\'s page');
is($res->header('X-Seen-User'), 'wes', 'the backend sees X-Remote-User: wes');
is($res->header('X-Seen-User-U'), $absent, 'not X_Remote_User');
is($res->header('X-Seen-User-M1'), $absent, 'not X-Remote_User');
is($res->header('X-Seen-User-M2'), $absent, 'not X_Remote-User');
is($res->header('X-Seen-Groups'), 'ops,staff', 'X-Remote-Groups: his groups');
is($res->header('X-Seen-Methods'), 'pwd', 'X-Remote-Methods: pwd');
my (undef, undef, undef, $iat) = cookie_fields($c);
is($res->header('X-Seen-Login-Time'), $iat, 'X-Remote-Login-Time: iat');
is($res->header('X-Seen-Fwd-User'), $absent,
   'HSCStripRequestHeaders: X-Forwarded-User removed');
is($res->header('X-Seen-Fwd-User-U'), $absent, 'in every spelling');
is($res->header('X-Seen-Cookie'), 'theme=dark; lang=en',
   'HSCStripCookie: the other cookies go on, the session cookie does not');
my $log = log_since($at);
like($log, qr/\[hsc:warn\].*HSC224: removed the client's request header "X_Remote_User": it names X-Remote-User/,
     'HSC224 names a removed spelling');
like($log, qr/HSC224: .*"x_forwarded_user": it names X-Forwarded-User/,
     'and a stripped name');
unlike($log, qr/mallory/, 'the values are not logged');

# Without a cookie the location asks for a login; the backend is not reached.
$res = GET('/idapp/page.html', @spoof);
is($res->code, 401, 'no cookie: 401');
ok(!defined $res->header('X-Seen-User'), 'and the backend was not reached');

# Where no user is needed, nothing is set and the client's copies still go.
$res = GET('/idapp-open/page.html', @spoof);
is($res->code, 200, 'an open location: 200');
is($res->header('X-Seen-User'), $absent,
   'no verified user: no X-Remote-User at all (not "(null)", not empty)');
is($res->header('X-Seen-User-U'), $absent, 'and no client spelling either');
$res = GET('/idapp-open/page.html', Cookie => "hsc=$c", @spoof);
is($res->header('X-Seen-User'), $absent,
   'a cookie where no user is required: still nothing (no check ran)');
is($res->header('X-Seen-Cookie'), "hsc=$c",
   'without HSCStripCookie the cookie goes on');

# A forged or expired cookie gives no identity either.
$res = GET('/idapp/page.html', Cookie => 'hsc=2.x.d2Vz.1.2.0.AAAAAAAAAAAAAAAAAAAAAA.1.0.x.x',
           @spoof);
is($res->code, 401, 'a forged cookie: 401');
ok(!defined $res->header('X-Seen-User'), 'nothing reached the backend');

# An application's own header names are its own: HSCIdentityHeader on a
# name the client does not send still sets it.
$res = GET('/idapp/page.html', Cookie => "hsc=$c");
is($res->header('X-Seen-User'), 'wes', 'without spoofed headers: wes');
is($res->header('X-Seen-Cookie'), $absent,
   'the session cookie alone: no Cookie header at all');
