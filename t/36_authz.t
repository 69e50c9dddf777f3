# SetHandler hsc-authz, the authorization endpoint, behind the
# real proxies of Debian 12: nginx (auth_request, HSCAuthzStyle
# auth-request), Caddy (forward_auth, forward-auth) and HAProxy (a Lua
# action, auth-request). Each runs on its own port in front of this
# server's /via-proxy/ echo, which shows the identity headers that reached
# it. The proxies name this server as Host: localhost:PORT, its
# ServerName (the test configuration has name-based virtual hosts).
# Through each: no cookie sends a browser to the login page with the
# proxied URL to come back to; wes (group ops) gets the page with his
# name; xena (not in ops) gets 403, never a login loop. nginx relays the
# refreshed cookie. The login page's CSP lets its form's redirect go to
# the proxied URL's origin. The endpoint itself: only trusted proxies, and
# only a URL that parses.
use strict;
use warnings FATAL => 'all';

use FindBin ();
use lib "$FindBin::Bin/lib";
use Apache::Test qw(-withtestmore);
use Apache::TestRequest qw(GET);
use File::Path qw(make_path);
use IO::Socket::INET ();
use HSCTest;

plan tests => 39;

ua_plain();
my $aport = Apache::Test::vars('port');
my $dir = var_dir() . '/proxies';
make_path("$dir/nginx", "$dir/caddy");
my $html = 'text/html,application/xhtml+xml,*/*;q=0.8';
my @kids;

sub start
{
    my ($port, @cmd) = @_;
    my $pid = fork;
    die "fork: $!\n" unless defined $pid;
    if ($pid == 0) {
        open STDOUT, '>>', "$dir/proxies.log";
        open STDERR, '>&', \*STDOUT;
        exec @cmd or exit 127;
    }
    push @kids, $pid;
    for (1 .. 100) {
        return 1 if IO::Socket::INET->new(PeerAddr => "127.0.0.1:$port",
                                          Timeout => 1);
        select undef, undef, undef, 0.1;
    }
    diag "$cmd[0] did not listen on $port:\n" . (eval { HSCTest::slurp("$dir/proxies.log") } // '');
    return 0;
}
END { local $?; kill 'TERM', @kids if @kids; waitpid $_, 0 for @kids; }

my ($nport, $cport, $hport) = (free_port(), free_port(), free_port());
HSCTest::spew("$dir/nginx.conf", <<"EOT");
daemon off; master_process off; worker_processes 1;
error_log $dir/nginx/error.log info;
pid $dir/nginx/nginx.pid;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path $dir/nginx/cb; proxy_temp_path $dir/nginx/pt;
  fastcgi_temp_path $dir/nginx/ft; uwsgi_temp_path $dir/nginx/ut;
  scgi_temp_path $dir/nginx/st;
  server {
    listen 127.0.0.1:$nport;
    location = /internal/authz {
      internal;
      proxy_pass http://127.0.0.1:$aport/authz-nginx;
      proxy_set_header Host localhost:$aport;
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
      proxy_set_header X-Original-Method \$request_method;
      proxy_set_header X-Original-URL \$scheme://\$http_host\$request_uri;
    }
    location / {
      auth_request /internal/authz;
      auth_request_set \$user \$upstream_http_x_remote_user;
      auth_request_set \$groups \$upstream_http_x_remote_groups;
      auth_request_set \$loc \$upstream_http_location;
      auth_request_set \$cookie \$upstream_http_set_cookie;
      add_header Set-Cookie \$cookie;
      proxy_set_header X-Remote-User \$user;
      proxy_set_header X-Remote-Groups \$groups;
      proxy_set_header Host localhost:$aport;
      error_page 401 =302 \$loc;
      proxy_pass http://127.0.0.1:$aport;
    }
  }
}
EOT
HSCTest::spew("$dir/Caddyfile", <<"EOT");
{
	admin off
	auto_https off
	storage file_system $dir/caddy
}
http://127.0.0.1:$cport {
	forward_auth 127.0.0.1:$aport {
		uri /authz-fwd
		copy_headers X-Remote-User X-Remote-Groups
		header_up Host localhost:$aport
	}
	reverse_proxy 127.0.0.1:$aport {
		header_up Host localhost:$aport
	}
}
EOT
HSCTest::spew("$dir/hsc-authz.lua", <<"EOT");
-- Ask hsc-authz (auth-request style) about each request.
core.register_action("hsc_authz", { "http-req" }, function(txn)
  local h = txn.http:req_get_headers()
  local function first(n) local v = h[n]; if v and v[0] then return v[0] end; return nil end
  local hdrs = {
    ["host"] = { "localhost:$aport" },
    ["x-original-method"] = { txn.f:method() },
    ["x-original-url"] = { "http://" .. (first("host") or "") .. txn.f:pathq() },
  }
  if first("cookie") then hdrs["cookie"] = { first("cookie") } end
  if first("accept") then hdrs["accept"] = { first("accept") } end
  local res = core.httpclient():get{ url = "http://127.0.0.1:$aport/authz-nginx",
                                     headers = hdrs, timeout = 2000 }
  local function rh(n) local v = res and res.headers and res.headers[n]; if v and v[0] then return v[0] end; return "" end
  txn:set_var("txn.hsc_status", res and res.status or 0)
  txn:set_var("txn.hsc_user", rh("x-remote-user"))
  txn:set_var("txn.hsc_groups", rh("x-remote-groups"))
  txn:set_var("txn.hsc_location", rh("location"))
  txn:set_var("txn.hsc_cookie", rh("set-cookie"))
end, 0)
EOT
HSCTest::spew("$dir/haproxy.cfg", <<"EOT");
global
  lua-load $dir/hsc-authz.lua
defaults
  mode http
  timeout connect 2s
  timeout client 5s
  timeout server 5s
frontend fe
  bind 127.0.0.1:$hport
  http-request del-header x-remote-user
  http-request del-header x_remote_user
  http-request del-header x-remote-groups
  http-request lua.hsc_authz
  http-request return status 403 if { var(txn.hsc_status) -m int 403 }
  http-request redirect location %[var(txn.hsc_location)] if { var(txn.hsc_status) -m int 401 } { var(txn.hsc_location) -m found }
  http-request deny deny_status 401 if { var(txn.hsc_status) -m int 401 }
  http-request return status 503 if !{ var(txn.hsc_status) -m int 200 }
  http-request set-header X-Remote-User %[var(txn.hsc_user)]
  http-request set-header X-Remote-Groups %[var(txn.hsc_groups)]
  http-response add-header Set-Cookie %[var(txn.hsc_cookie)] if { var(txn.hsc_cookie) -m len gt 0 }
  default_backend app
backend app
  http-request set-header Host localhost:$aport
  server app 127.0.0.1:$aport
EOT
ok(start($nport, 'nginx', '-c', "$dir/nginx.conf", '-p', "$dir/nginx"),
   'nginx starts');
ok(start($cport, 'caddy', 'run', '--config', "$dir/Caddyfile", '--adapter',
         'caddyfile'), 'caddy starts');
ok(start($hport, 'haproxy', '-f', "$dir/haproxy.cfg"), 'haproxy starts');

my $wes = cookie_from(login('wes', $PW{wes})) // '';
my $xena = cookie_from(login('xena', $PW{xena})) // '';
ok($wes && $xena, 'wes and xena log in');

for my $p (['nginx', $nport, 302], ['caddy', $cport, 401],
           ['haproxy', $hport, 302]) {
    my ($name, $port, $api) = @$p;
    my $url = "http://127.0.0.1:$port/via-proxy/page.html?x=1";
    my $res = GET($url, Accept => $html);
    is($res->code, 302, "$name: no cookie, a browser is sent away (302)");
    my $loc = $res->header('Location') // '';
    my $back = $url;
    $back =~ s/([^A-Za-z0-9_.~\/-])/sprintf('%%%02X', ord $1)/ge;
    is($loc, "http://127.0.0.1:$aport/authz-login?return=$back",
       "$name: to the login page, with the proxied URL to come back to");
    $res = GET($url, Accept => 'application/json');
    is($res->code, $api, "$name: no cookie, an API client gets $api");
    $res = GET($url, Cookie => "hsc=$wes", ':X-Remote-User' => 'mallory',
               ':X_Remote_User' => 'mallory');
    is($res->code, 200, "$name: wes (group ops) gets the page");
    is($res->header('X-Seen-User'), 'wes', "$name: the backend sees X-Remote-User: wes");
    is($res->header('X-Seen-Groups'), 'ops,staff', "$name: and his groups");
    $res = GET($url, Cookie => "hsc=$xena");
    is($res->code, 403, "$name: xena, not in ops, gets 403 (no login loop)");
    if ($name eq 'nginx') {
        $res = GET($url, Cookie => "hsc=$wes");
        like(join("\n", $res->header('Set-Cookie')), qr/^hsc=/m,
             'nginx relays the refreshed cookie');
    }
    if ($name ne 'caddy') {
        # Caddy 2.6 passes a client's X_Remote_User on (docs/authz-endpoint.md).
        $res = GET($url, Cookie => "hsc=$wes", ':X_Remote_User' => 'mallory');
        is($res->header('X-Seen-User-U'), '', "$name: no X_Remote_User reaches the backend");
    }
}

# The login page goes back to the proxied URL (HSCReturnHosts 127.0.0.1).
my $there = "http://127.0.0.1:$nport/via-proxy/page.html";
my $res = login('wes', $PW{wes}, path => '/authz-login', return => $there);
is($res->code, 303, 'a login with the proxied URL to come back to');
is($res->header('Location'), $there, 'goes back to it');
$res = login('wes', $PW{wes}, path => '/authz-login',
             return => 'http://evil.example/x');
is($res->header('Location'), '/', 'not to a host it does not list');
# Browsers check that 303 against the login page's CSP (form-action): the
# page names the app's origin, scheme and port included, and no other.
(my $esc = $there) =~ s/([^A-Za-z0-9_.~-])/sprintf('%%%02X', ord $1)/ge;
$res = GET("/authz-login?return=$esc");
like($res->header('Content-Security-Policy') // '',
     qr{; form-action 'self' http://127\.0\.0\.1:$nport;},
     "the login page's form-action names the app's origin");
$res = GET('/authz-login?return=http%3A%2F%2Fevil.example%2Fx');
like($res->header('Content-Security-Policy') // '',
     qr{; form-action 'self';}, 'and no host it does not list');

# The endpoint itself.
$res = GET('/authz-nginx', 'X-Original-URL' => 'javascript:alert(1)',
           Cookie => "hsc=$wes");
is($res->code, 400, 'a forwarded URL that does not parse: 400');
$res = GET('/authz-nginx', Cookie => "hsc=$wes");
is($res->code, 400, 'no forwarded URL: 400');
$res = GET('/authz-nginx', 'X-Original-URL' => 'http://app.example/x',
           Cookie => "hsc=$wes");
is($res->code, 200, 'asked directly by a trusted address: 200');
is($res->header('Cache-Control'), 'no-store', 'never cached');
$res = GET('/authz-untrusted', 'X-Original-URL' => 'http://app.example/x',
           Cookie => "hsc=$wes");
is($res->code, 403, 'from an address that is not HSCAuthzTrustedProxy: 403');
like(log_since(0), qr/HSC226: hsc-authz: 127\.0\.0\.1 is not an HSCAuthzTrustedProxy/,
     'HSC226 names the address');
