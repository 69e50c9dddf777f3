"""Another origin against mod_hsc's forms and pages, in Chromium (called
by browser_test.py with its server and browser).

A page of another origin posts to every form mod_hsc serves: the login,
the code step, each account action, the logout, and hsc-api's POSTs (as a
form, as a no-cors fetch() with a JSON text body, and as a CORS fetch()
that needs a preflight). The main attacker is 127.0.0.1 on another port:
the same site, so SameSite cookies go along and only mod_hsc's Origin
check stands in the way; one login comes from 127.0.0.2, another site.
Every post must be refused and change nothing: `hsc-admin show` of the
victim is the same before and after, the session cookie still opens a
protected page, the password still logs in, the TOTP code the attacker
sent is still good for its owner. Then framing: the login page in an
iframe of another site does not render (frame-ancestors 'none',
X-Frame-Options DENY), while a page without those headers does.
"""
import json
import subprocess
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

USERS = {"jack": "jack-Pw-1", "kate": "kate-Pw-1"}


def prepare(srv, admin):
    """Before the server starts: jack (an app password) and kate (TOTP)."""
    for user, pw in USERS.items():
        subprocess.run([admin, "add", srv.db, user, "--kdf",
                        "sha256-chain:1000", "--password-stdin", "--force"],
                       input=pw + "\n", text=True, check=True)
    uri = subprocess.run([admin, "totp", "enrol", srv.db, "kate", "--keys",
                          srv.run + "/hsc.keys"], check=True,
                         capture_output=True, text=True).stdout
    srv.kate_secret = uri.split("secret=")[1].split("&")[0]
    out = subprocess.run([admin, "token", "add", srv.db, "jack", "--name",
                          "kept"], check=True, capture_output=True,
                         text=True).stdout
    srv.jack_token_id = out.split("_")[1]
    srv.admin = admin


class Attacker:
    """A site of its own: GET /N answers the page registered as N."""

    def __init__(self, host):
        pages = self.pages = {}

        class H(BaseHTTPRequestHandler):
            def do_GET(self):
                body = pages.get(self.path.lstrip("/"), "").encode()
                self.send_response(200 if body else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *a):
                pass

        self.httpd = ThreadingHTTPServer((host, 0), H)
        self.base = "http://%s:%d" % (host, self.httpd.server_address[1])
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.n = 0

    def page(self, html):
        self.n += 1
        self.pages[str(self.n)] = "<!doctype html><title>evil</title>" + html
        return "%s/%d" % (self.base, self.n)

    def form(self, target, fields, enctype=None):
        inputs = "".join(
            '<input type="hidden" name="%s" value="%s">'
            % (_attr(k), _attr(v)) for k, v in fields)
        return self.page(
            '<form id="f" method="POST" action="%s"%s>%s</form>'
            "<script>document.getElementById('f').submit()</script>"
            % (_attr(target), ' enctype="%s"' % enctype if enctype else "",
               inputs))

    def fetch(self, target, body, cors):
        """fetch() with credentials; the outcome lands in the title."""
        opts = {"method": "POST", "credentials": "include", "body": body,
                "mode": "cors" if cors else "no-cors",
                "headers": {"Content-Type": "application/json" if cors
                            else "text/plain"}}
        return self.page(
            "<script>fetch(%s, %s).then(function (r) {"
            " document.title = 'answered ' + r.type + ' ' + r.status; },"
            " function (e) { document.title = 'failed ' + e.name; });"
            "</script>" % (json.dumps(target), json.dumps(opts)))

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def _attr(s):
    return (str(s).replace("&", "&amp;").replace('"', "&quot;")
            .replace("<", "&lt;"))


def _show(srv, user):
    return subprocess.run([srv.admin, "show", srv.db, user], check=True,
                          capture_output=True, text=True).stdout


def _login_status(srv, user, pw, path="/login"):
    """A same-origin login by hand: its status (303 when the password is
    right)."""
    req = urllib.request.Request(
        srv.base + path, method="POST",
        data=urllib.parse.urlencode({"username": user,
                                     "password": pw}).encode(),
        headers={"Origin": srv.base})

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *a, **k):
            return None

    try:
        return urllib.request.build_opener(NoRedirect).open(req).status
    except urllib.error.HTTPError as e:
        return e.code


def walk(srv, b, ok, totp, status_with_cookie):
    d, base = b.d, srv.base
    same_site = Attacker("127.0.0.1")
    other_site = Attacker("127.0.0.2")
    try:
        _posts(srv, b, ok, totp, status_with_cookie, same_site, other_site)
        _frames(srv, b, ok, other_site)
    finally:
        same_site.stop()
        other_site.stop()
        d.get(base + "/login")


def _landed(b, url):
    """Open an attacker's page and wait for where its post lands."""
    d = b.d
    d.get(url)
    WebDriverWait(d, 10).until(
        lambda d: not d.current_url.startswith(url)
        and d.execute_script("return document.readyState") == "complete")
    return d.title


def _fetched(b, url):
    d = b.d
    d.get(url)
    WebDriverWait(d, 10).until(lambda d: d.title != "evil")
    return d.title


def _posts(srv, b, ok, totp, status_with_cookie, ev, ev2):
    d, base = b.d, srv.base
    api = base + "/api/"

    # The login, from the same site and from another: no cookie.
    for who, att in (("127.0.0.1 on another port", ev),
                     ("127.0.0.2", ev2)):
        d.delete_all_cookies()
        t = _landed(b, att.form(base + "/login", [
            ("username", "jack"), ("password", USERS["jack"])]))
        ok(t == "403 Forbidden" and b.cookie() is None,
           "cross-site: a login form posted from %s: 403, no cookie" % who, t)
    for cors in (False, True):
        t = _fetched(b, ev.fetch(api + "login", json.dumps(
            {"username": "jack", "password": USERS["jack"]}), cors))
        ok(b.cookie() is None and t.startswith(
               "failed" if cors else "answered opaque"),
           "cross-site: hsc-api login by %s fetch(): no cookie"
           % ("a CORS" if cors else "a no-cors"), t)

    # The code step: kate's pending cookie; the attacker posts her right
    # code, which stays good for her.
    d.delete_all_cookies()
    d.get(base + "/2fa-login")
    b.login("kate", USERS["kate"])
    pending = (b.cookie() or {}).get("value")
    ok(pending and d.find_elements(By.NAME, "code"),
       "kate's password: the code step, with a pending cookie")
    now = time.time()
    if int(now) % 30 > 25:  # not at a step's edge: the code must stay good
        time.sleep(31 - int(now) % 30)
    code = totp(srv.kate_secret, time.time())
    t = _landed(b, ev.form(base + "/2fa-login", [("code", code)]))
    ok(t == "403 Forbidden" and (b.cookie() or {}).get("value") == pending,
       "cross-site: the code form: 403, the cookie still the pending one", t)
    for cors in (False, True):
        _fetched(b, ev.fetch(api + "code", json.dumps({"code": code}), cors))
    ok((b.cookie() or {}).get("value") == pending,
       "cross-site: hsc-api code by fetch(): still pending")
    ok(status_with_cookie(base + "/private/", "hsc=" + pending) != 200,
       "the pending cookie still opens nothing")
    d.get(base + "/2fa-login")
    b.go(_code_field(d, code))
    full = (b.cookie() or {}).get("value")
    ok(full and full != pending
       and status_with_cookie(base + "/private/", "hsc=" + full) == 200,
       "kate's own post of the same code logs her in: the attacker's did "
       "not use it")

    # jack, signed in: every account action and the logout.
    d.delete_all_cookies()
    d.get(base + "/login")
    b.login("jack", USERS["jack"])
    c = (b.cookie() or {}).get("value")
    ok(c and status_with_cookie(base + "/private/", "hsc=" + c) == 200,
       "jack signed in")
    before = _show(srv, "jack")
    newpw = "a hijacked passphrase 9"
    account = [
        [("action", "password"), ("password", USERS["jack"]),
         ("new_password", newpw), ("new_password2", newpw)],
        [("action", "signout")],
        [("action", "totp-setup")],
        [("action", "totp-confirm"), ("code", "123456")],
        [("action", "recovery-new"), ("password", USERS["jack"])],
        [("action", "totp-remove"), ("password", USERS["jack"])],
        [("action", "token-new"), ("token_name", "stolen"),
         ("password", USERS["jack"])],
        [("action", "token-revoke"), ("id", srv.jack_token_id),
         ("password", USERS["jack"])],
        [("action", "seal-on"), ("password", USERS["jack"])],
        [("action", "seal-off"), ("password", USERS["jack"])],
        [("action", "passkey-remove"), ("id", "x")],
    ]
    for fields in account:
        t = _landed(b, ev.form(base + "/account", fields))
        ok(t == "403 Forbidden",
           "cross-site: the account form, action %s: 403" % fields[0][1], t)
    t = _landed(b, ev.form(base + "/logout", []))
    ok(t == "403 Forbidden", "cross-site: the logout form: 403", t)
    # multipart and text/plain forms are refused the same way.
    for enc in ("multipart/form-data", "text/plain"):
        t = _landed(b, ev.form(base + "/account", account[0], enc))
        ok(t == "403 Forbidden",
           "cross-site: a password change as %s: 403" % enc, t)
    for name, body in (("password", {"password": USERS["jack"],
                                     "new_password": newpw}),
                       ("tokens", {"name": "stolen",
                                   "password": USERS["jack"]}),
                       ("tokens/revoke", {"id": srv.jack_token_id,
                                          "password": USERS["jack"]}),
                       ("logout", {})):
        for cors in (False, True):
            t = _fetched(b, ev.fetch(api + name, json.dumps(body), cors))
            # no-cors: sent as text/plain, which hsc-api refuses (415);
            # CORS: its preflight is not answered, so never sent.
            ok(t == ("failed TypeError" if cors else "answered opaque 0"),
               "cross-site: hsc-api %s by a %s fetch(): %s"
               % (name, "CORS" if cors else "no-cors", t))
        # The same JSON as a text/plain form: the body a form can forge.
        js = json.dumps(body)
        _landed(b, ev.form(api + name, [(js[:-1] + ',"x":"', '"}')],
                           "text/plain"))
    ok(_show(srv, "jack") == before,
       "after every cross-site post: hsc-admin show jack is unchanged "
       "(password gen, factors, app passwords, seal)")
    ok((b.cookie() or {}).get("value") == c
       and status_with_cookie(base + "/private/", "hsc=" + c) == 200,
       "jack's cookie is the same and still opens a protected page")
    ok(_login_status(srv, "jack", USERS["jack"]) == 303
       and _login_status(srv, "jack", newpw) == 401,
       "jack's password is unchanged")


def _code_field(d, code):
    f = d.find_element(By.NAME, "code")
    f.send_keys(code)
    return f.find_element(By.XPATH, "ancestor::form//button[@type='submit']")


def _frames(srv, b, ok, ev2):
    """The login page in another site's iframe: blank; a page of the site
    without the headers renders there (the check can see a frame)."""
    d, base = b.d, srv.base
    b.csp_errors()  # the log so far, read and dropped
    d.get(ev2.page('<iframe id="a" src="%s/login"></iframe>'
                   '<iframe id="b" src="%s/static/pk.html"></iframe>'
                   % (base, base)))
    time.sleep(1)
    d.switch_to.frame(d.find_element(By.ID, "b"))
    control = d.find_elements(By.TAG_NAME, "h1")
    control = control[0].text if control else None
    d.switch_to.default_content()
    d.switch_to.frame(d.find_element(By.ID, "a"))
    fields = d.find_elements(By.ID, "hsc-username")
    url = d.execute_script("return location.href")
    d.switch_to.default_content()
    ok(control == "Passkeys",
       "framing: a page without the headers renders in another site's frame",
       control)
    ok(not fields, "framing: the login page in another site's frame does "
       "not render (%s)" % url)
    logs = [e["message"] for e in d.get_log("browser")]
    ok(any("frame-ancestors" in m or "X-Frame-Options" in m for m in logs),
       "framing: Chromium says it refused to frame it", logs)
