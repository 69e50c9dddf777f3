"""nginx, Caddy and HAProxy in front of hsc-authz, for the browser test:
the recipes of docs/authz-endpoint.md with this test's ports (plain http
on 127.0.0.1, the app being httpd's /proxied/), each started once in a
folder of its own and stopped at the end. Debian 12's nginx, caddy and
haproxy (scripts/install-deps-debian.sh --test).
"""
import os
import shutil
import socket
import subprocess
import tempfile
import time

NGINX = """daemon off; master_process off; worker_processes 1;
error_log {d}/nginx.log info;
pid {d}/nginx.pid;
events {{ worker_connections 64; }}
http {{
  access_log off;
  client_body_temp_path {d}/cb; proxy_temp_path {d}/pt;
  fastcgi_temp_path {d}/ft; uwsgi_temp_path {d}/ut; scgi_temp_path {d}/st;
  server {{
    listen 127.0.0.1:{port};
    location = /internal/hsc-authz {{
      internal;
      proxy_pass http://127.0.0.1:{aport}/hsc-authz/nginx;
      proxy_pass_request_body off;
      proxy_set_header Content-Length "";
      proxy_set_header X-Original-Method $request_method;
      proxy_set_header X-Original-URL $scheme://$http_host$request_uri;
    }}
    location / {{
      auth_request /internal/hsc-authz;
      auth_request_set $user $upstream_http_x_remote_user;
      auth_request_set $groups $upstream_http_x_remote_groups;
      auth_request_set $loc $upstream_http_location;
      auth_request_set $cookie $upstream_http_set_cookie;
      add_header Set-Cookie $cookie;
      proxy_set_header X-Remote-User $user;
      proxy_set_header X-Remote-Groups $groups;
      error_page 401 =302 $loc;
      proxy_pass http://127.0.0.1:{aport};
    }}
  }}
}}
"""

CADDY = """{{
\tadmin off
\tauto_https off
\tstorage file_system {d}
}}
http://127.0.0.1:{port} {{
\tforward_auth 127.0.0.1:{aport} {{
\t\turi /hsc-authz/caddy
\t\tcopy_headers X-Remote-User X-Remote-Groups
\t}}
\treverse_proxy 127.0.0.1:{aport}
}}
"""

LUA = """core.register_action("hsc_authz", {{ "http-req" }}, function(txn)
  local h = txn.http:req_get_headers()
  local function first(n) local v = h[n]; if v and v[0] then return v[0] end; return nil end
  local hdrs = {{
    ["host"] = {{ "127.0.0.1:{aport}" }},
    ["x-original-method"] = {{ txn.f:method() }},
    ["x-original-url"] = {{ "http://" .. (first("host") or "") .. txn.f:pathq() }},
  }}
  if first("cookie") then hdrs["cookie"] = {{ first("cookie") }} end
  if first("accept") then hdrs["accept"] = {{ first("accept") }} end
  local res = core.httpclient():get{{ url = "http://127.0.0.1:{aport}/hsc-authz/haproxy",
                                     headers = hdrs, timeout = 2000 }}
  local function rh(n) local v = res and res.headers and res.headers[n]; if v and v[0] then return v[0] end; return "" end
  txn:set_var("txn.hsc_status", res and res.status or 0)
  txn:set_var("txn.hsc_user", rh("x-remote-user"))
  txn:set_var("txn.hsc_groups", rh("x-remote-groups"))
  txn:set_var("txn.hsc_location", rh("location"))
  txn:set_var("txn.hsc_cookie", rh("set-cookie"))
end, 0)
"""

HAPROXY = """global
  lua-load {d}/hsc-authz.lua
defaults
  mode http
  timeout connect 2s
  timeout client 10s
  timeout server 10s
frontend app
  bind 127.0.0.1:{port}
  http-request del-header x-remote-user
  http-request del-header x_remote_user
  http-request del-header x-remote-groups
  http-request lua.hsc_authz
  http-request return status 403 if {{ var(txn.hsc_status) -m int 403 }}
  http-request redirect location %[var(txn.hsc_location)] if {{ var(txn.hsc_status) -m int 401 }} {{ var(txn.hsc_location) -m found }}
  http-request deny deny_status 401 if {{ var(txn.hsc_status) -m int 401 }}
  http-request return status 503 if !{{ var(txn.hsc_status) -m int 200 }}
  http-request set-header X-Remote-User %[var(txn.hsc_user)]
  http-request set-header X-Remote-Groups %[var(txn.hsc_groups)]
  http-response add-header Set-Cookie %[var(txn.hsc_cookie)] if {{ var(txn.hsc_cookie) -m len gt 0 }}
  default_backend app
backend app
  server app 127.0.0.1:{aport}
"""

# The endpoint's locations in the httpd.conf of the test (app: port).
HTTPD = """LoadModule include_module {modules}/mod_include.so
<Directory "{run}/htdocs/proxied">
    Options +Includes
    AddOutputFilter INCLUDES .html
</Directory>
<Location "/authz-login">
    SetHandler hsc-login
    HSCSecondFactor optional
    HSCReturnHosts 127.0.0.1
</Location>
<Location "/hsc-authz/">
    SetHandler hsc-authz
    AuthType HSC
    Require valid-user
    AuthzSendForbiddenOnFailure On
    HSCAuthzTrustedProxy 127.0.0.1
    HSCLoginURL http://127.0.0.1:{port}/authz-login
    HSCIdentityHeader user X-Remote-User
    HSCIdentityHeader groups X-Remote-Groups
</Location>
<Location "/hsc-authz/nginx">
    HSCAuthzStyle auth-request
</Location>
<Location "/hsc-authz/haproxy">
    HSCAuthzStyle auth-request
</Location>
<Location "/hsc-authz/caddy">
    HSCAuthzStyle forward-auth
</Location>
"""

# The app behind the proxies: says whom the proxy named.
APP = ('<!doctype html><meta charset="utf-8">'
       '<meta name="viewport" content="width=device-width">'
       '<title>App</title><h1>App page</h1>'
       '<p id="who">User: <!--#echo var="HTTP_X_REMOTE_USER" --></p>\n')


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Proxies:
    """The three proxies, in front of httpd at aport. start() returns
    {name: port} of those that listen, and the reasons of the others."""

    def __init__(self, aport):
        self.aport = aport
        self.dir = tempfile.mkdtemp(prefix="hsc-proxies.")
        self.kids = []

    def _write(self, name, text):
        with open(os.path.join(self.dir, name), "w") as f:
            f.write(text)

    def _launch(self, name, cmd):
        env = dict(os.environ, HOME=self.dir, XDG_CONFIG_HOME=self.dir,
                   XDG_DATA_HOME=self.dir)
        with open(os.path.join(self.dir, name + ".out"), "w") as log:
            try:
                p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, env=env)
            except OSError as e:
                return "%s: %s" % (cmd[0], e)
        self.kids.append(p)
        return p

    def _wait(self, name, port, p):
        """None when p listens on port (within 10 s), else why not."""
        for _ in range(100):
            if p.poll() is not None:
                break
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                return None
            except OSError:
                time.sleep(0.1)
        with open(os.path.join(self.dir, name + ".out"),
                  errors="replace") as f:
            return "%s did not listen on %d: %s" % (name, port, f.read())

    def start(self):
        d, a = self.dir, self.aport
        ports = {n: free_port() for n in ("nginx", "caddy", "haproxy")}
        for sub in ("cb", "pt", "ft", "ut", "st"):
            os.makedirs(os.path.join(d, sub))
        self._write("nginx.conf", NGINX.format(d=d, port=ports["nginx"],
                                               aport=a))
        self._write("Caddyfile", CADDY.format(d=d, port=ports["caddy"],
                                              aport=a))
        self._write("hsc-authz.lua", LUA.format(aport=a))
        self._write("haproxy.cfg", HAPROXY.format(d=d, port=ports["haproxy"],
                                                  aport=a))
        cmds = {
            "nginx": ["nginx", "-c", d + "/nginx.conf", "-p", d, "-e",
                      d + "/nginx.log"],
            "caddy": ["caddy", "run", "--config", d + "/Caddyfile",
                      "--adapter", "caddyfile"],
            "haproxy": ["haproxy", "-f", d + "/haproxy.cfg"],
        }
        # All three at once, then each waited for: the slowest sets the
        # time, not the sum.
        kids = {name: self._launch(name, cmd) for name, cmd in cmds.items()}
        up, why = {}, {}
        for name, p in kids.items():
            err = p if isinstance(p, str) else self._wait(name, ports[name], p)
            if err is None:
                up[name] = ports[name]
            else:
                why[name] = err
        return up, why

    def stop(self):
        for p in self.kids:
            p.terminate()
        for p in self.kids:
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        shutil.rmtree(self.dir, ignore_errors=True)
