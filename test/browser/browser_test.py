"""The login, logout and 429 pages in a real browser (headless Chromium
through Selenium), against a real httpd with the module, started here on a
free loopback port with a SQLite user table made by hsc-admin. Prints TAP.
A screenshot of every page, at 1000 px and at 375 px, is kept in
test/browser/screenshots/ (CI keeps that folder as an artifact), and the
whole account page at 1000 px and 390 px. nginx, Caddy and HAProxy in
front of hsc-authz (proxies.py) are started once for a login through each.

Run by test/browser/browser-test.sh (make check) with Debian's
/usr/bin/python3, chromium, chromium-driver and python3-selenium.
"""
import base64
import hmac
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import (StaleElementReferenceException,
                                        TimeoutException, WebDriverException)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ left in the tree
import cross_site  # noqa: E402
import proxies  # noqa: E402  (beside this file)

TOP_BUILD = os.path.abspath(os.environ.get("top_builddir", "."))
TOP_SRC = os.path.abspath(os.environ.get("top_srcdir", "."))
# In the build tree (the source tree may be read-only, as in distcheck).
SHOTS = os.environ.get("HSC_SCREENSHOTS") or os.path.join(
    TOP_BUILD, "test", "browser", "screenshots")
APXS = os.environ.get("APXS") or "apxs"

n = 0
failed = 0


def ok(cond, what, detail=None):
    global n, failed
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, what), flush=True)
    if not cond:
        failed += 1
        if detail is not None:
            print("#   " + str(detail).replace("\n", "\n#   "), flush=True)
    return cond


def apxs(var):
    return subprocess.run([APXS, "-q", var], check=True, capture_output=True,
                          text=True).stdout.strip()


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Server:
    """httpd with mod_hsc in a temporary folder."""

    def __init__(self):
        self.run = tempfile.mkdtemp(prefix="hsc-browser.")
        os.chmod(self.run, 0o755)
        self.port = free_port()
        self.base = "http://127.0.0.1:%d" % self.port
        self.httpd = os.environ.get("HTTPD") or os.path.join(
            apxs("SBINDIR"), apxs("TARGET"))
        modules = apxs("LIBEXECDIR")
        run = self.run
        for d in ("htdocs/private", "htdocs/static", "htdocs/pk-sealed",
                  "htdocs/proxied", "logs", "db"):
            os.makedirs(os.path.join(run, d))
        # The single-page app that calls hsc-api (test/browser/api-page/).
        shutil.copytree(os.path.join(TOP_SRC, "test", "browser", "api-page"),
                        os.path.join(run, "htdocs", "app"))
        shutil.copy(os.path.join(TOP_BUILD, ".libs", "mod_hsc.so"), run)
        admin = os.path.join(TOP_BUILD, "hsc-admin")
        self.db = os.path.join(run, "db", "users.db")
        subprocess.run([admin, "keygen", run + "/hsc.keys"], check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run([admin, "init", self.db], check=True)
        self.pw = {"alice": "alice-Pw-1", "bob": "bob-Pw-1",
                   "carol": "carol-Pw-1", "dora": "dora-Pw-1",
                   "erin": "erin-Pw-1", "fred": "fred-Pw-1",
                   "gina": "gina-Pw-1", "hank": "hank-Pw-1",
                   "ivy": "ivy-Pw-1"}
        # Through each proxy: a password-only user and a TOTP user.
        for px in ("nginx", "caddy", "haproxy"):
            self.pw[px + "-pw"] = px + "-Pw-1"
            self.pw[px + "-otp"] = px + "-Otp-1"
        for user, pw in self.pw.items():
            subprocess.run([admin, "add", self.db, user, "--kdf",
                            "sha256-chain:1000", "--password-stdin", "--force"],
                           input=pw + "\n", text=True, check=True)
        # carol has TOTP and two recovery codes (docs/second-factors.md).
        uri = subprocess.run([admin, "totp", "enrol", self.db, "carol",
                              "--keys", run + "/hsc.keys"], check=True,
                             capture_output=True, text=True).stdout
        self.totp_secret = uri.split("secret=")[1].split("&")[0]
        self.proxy_totp = {}
        for px in ("nginx", "caddy", "haproxy"):
            uri = subprocess.run([admin, "totp", "enrol", self.db, px + "-otp",
                                  "--keys", run + "/hsc.keys"], check=True,
                                 capture_output=True, text=True).stdout
            self.proxy_totp[px] = uri.split("secret=")[1].split("&")[0]
        self.recovery = subprocess.run(
            [admin, "recovery-codes", self.db, "carol", "--count", "2"],
            check=True, capture_output=True, text=True).stdout.split()
        cross_site.prepare(self, admin)
        user = ""
        if os.getuid() == 0:
            # Children run as nobody; SQLite writes beside the database.
            user = "User nobody\nGroup nogroup\n"
            subprocess.run(["chown", "-R", "nobody:nogroup", run + "/db"],
                           check=True)
        with open(run + "/htdocs/private/index.html", "w") as f:
            f.write('<!doctype html><meta charset="utf-8">'
                    '<meta name="viewport" content="width=device-width">'
                    '<title>Private</title><h1>Private page</h1>'
                    '<p><a id="logout" href="/logout">Log out</a>\n')
        # The passkey ceremonies run from a page of the site's origin
        # without the module's CSP (whose connect-src the pages keep for
        # their own script).
        with open(run + "/htdocs/static/pk.html", "w") as f:
            f.write('<!doctype html><title>Passkeys</title><h1>Passkeys</h1>')
        with open(run + "/htdocs/pk-sealed/index.html", "w") as f:
            f.write('<!doctype html><title>Sealed</title><h1>Sealed page</h1>')
        with open(run + "/htdocs/proxied/index.html", "w") as f:
            f.write(proxies.APP)
        with open(run + "/htdocs/static/site.css", "w") as f:
            f.write("h1 { color: rgb(1, 2, 3); }\n")
        with open(run + "/httpd.conf", "w") as f:
            f.write(f"""ServerRoot "{run}"
ServerName 127.0.0.1
Listen 127.0.0.1:{self.port}
PidFile "{run}/logs/httpd.pid"
ErrorLog "{run}/logs/error_log"
LogLevel warn hsc:info
{user}
LoadModule mpm_event_module {modules}/mod_mpm_event.so
LoadModule authn_core_module {modules}/mod_authn_core.so
LoadModule authz_core_module {modules}/mod_authz_core.so
LoadModule authz_user_module {modules}/mod_authz_user.so
LoadModule mime_module {modules}/mod_mime.so
LoadModule headers_module {modules}/mod_headers.so
LoadModule dir_module {modules}/mod_dir.so
LoadModule socache_shmcb_module {modules}/mod_socache_shmcb.so
LoadModule hsc_module "{run}/mod_hsc.so"
TypesConfig /etc/mime.types
DirectoryIndex index.html
DocumentRoot "{run}/htdocs"

HSCKeyFile "{run}/hsc.keys"
HSCUserDB "{self.db}"
# Secure stays On: Chromium keeps Secure cookies over http on 127.0.0.1.
HSCLoginURL /login
HSCSiteName "Example Intranet"
HSCThrottleUser 3
HSCThrottleWindow 5m
HSCThrottleAddress 100

<Location "/private/">
    AuthType HSC
    Require valid-user
</Location>
<Location "/login">
    SetHandler hsc-login
</Location>
<Location "/logout">
    SetHandler hsc-logout
</Location>
<Location "/2fa-login">
    SetHandler hsc-login
    HSCSecondFactor optional
</Location>
<Location "/account">
    SetHandler hsc-account
</Location>
<Location "/api">
    SetHandler hsc-api
</Location>
# The app's page: its script a file of its own, under a strict CSP.
<Location "/app/">
    Header always set Content-Security-Policy "default-src 'self'"
</Location>
<Location "/styled-login">
    SetHandler hsc-login
    HSCLoginStylesheet /static/site.css
</Location>
# Passkeys at http://localhost:{self.port}: an IP address is no
# RP ID, and Chromium resolves localhost itself.
HSCWebAuthnRPID localhost
HSCWebAuthnOrigin http://localhost:{self.port}
<Location "/pk-login">
    SetHandler hsc-login
    HSCPasskeys On
    HSCSecondFactor optional
</Location>
<Location "/pk-uv-login">
    SetHandler hsc-login
    HSCPasskeys On
    HSCSecondFactor optional
    HSCWebAuthnUserVerification required
</Location>
{proxies.HTTPD.format(modules=modules, run=run, port=self.port)}
<Location "/pk-account">
    SetHandler hsc-account
    HSCPasskeys On
</Location>
<Location "/pk-sealed/">
    AuthType HSC
    Require hsc-factor sealed
</Location>
""")

    def env(self):
        """A sanitizer build of the module needs libasan loaded first."""
        env = dict(os.environ)
        ldd = subprocess.run(["ldd", self.run + "/mod_hsc.so"],
                             capture_output=True, text=True).stdout
        if "libasan" in ldd:
            cc = os.environ.get("CC") or "gcc"
            env["LD_PRELOAD"] = subprocess.run(
                [cc, "-print-file-name=libasan.so"], capture_output=True,
                text=True).stdout.strip()
            env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=0"
        return env

    def start(self):
        subprocess.run([self.httpd, "-f", self.run + "/httpd.conf", "-k",
                        "start"], check=True, env=self.env())
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("httpd did not start: " + self.log())

    def log(self):
        try:
            with open(self.run + "/logs/error_log") as f:
                return f.read()
        except OSError:
            return ""

    def stop(self):
        subprocess.run([self.httpd, "-f", self.run + "/httpd.conf", "-k",
                        "stop"], stderr=subprocess.DEVNULL, env=self.env())
        pidfile = self.run + "/logs/httpd.pid"
        for _ in range(50):
            if not os.path.exists(pidfile):
                break
            time.sleep(0.1)
        shutil.rmtree(self.run, ignore_errors=True)


def totp(secret, t):
    """RFC 6238 with SHA-1, 6 digits, 30 s: computed here, not by mod_hsc."""
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    mac = hmac.new(key, struct.pack(">Q", int(t) // 30), "sha1").digest()
    o = mac[-1] & 15
    return "%06d" % ((struct.unpack(">I", mac[o:o + 4])[0] & 0x7FFFFFFF)
                     % 1000000)


def status_with_cookie(url, cookie):
    """The status of a GET sent with just this Cookie header."""
    req = urllib.request.Request(url, headers={"Cookie": cookie})

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *a, **k):
            return None

    try:
        return urllib.request.build_opener(NoRedirect).open(req).status
    except urllib.error.HTTPError as e:
        return e.code


def gone(el):
    """Selenium's staleness_of, also for Chromium's answer while the old document
    is being replaced: a bare error that the node "does not belong to the
    document" (Selenium 4.8 would take it for a lost browser)."""
    try:
        el.is_enabled()
        return False
    except StaleElementReferenceException:
        return True
    except WebDriverException as e:
        if "does not belong to the document" in str(e):
            return True
        raise


class Browser:
    def __init__(self):
        o = webdriver.ChromeOptions()
        o.binary_location = "/usr/bin/chromium"
        # No GPU process: headless Chromium's software GL is one more
        # process to lose under the sanitizer stage's load.
        for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                  "--disable-gpu", "--window-size=1000,800",
                  "--hide-scrollbars"):
            o.add_argument(a)
        # The console tells whether the CSP blocked anything.
        o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        # chromedriver's own log, shown when the browser goes away.
        fd, self.driver_log = tempfile.mkstemp(prefix="hsc-chromedriver.")
        os.close(fd)
        self.d = webdriver.Chrome(
            service=Service("/usr/bin/chromedriver", log_path=self.driver_log),
            options=o)

    def driver_log_tail(self, lines=15):
        try:
            with open(self.driver_log, errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError as e:
            return repr(e)

    def text(self):
        return self.d.find_element(By.TAG_NAME, "body").text

    def csp_errors(self):
        return [e["message"] for e in self.d.get_log("browser")
                if "Content Security Policy" in e["message"]]

    def shot(self, name):
        """A screenshot at 1000 px, then the phone checks and one at 375."""
        d = self.d
        errors = self.csp_errors()
        ok(not errors, "%s: the CSP blocked nothing" % name, errors)
        d.save_screenshot(os.path.join(SHOTS, name + ".png"))
        d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": 375, "height": 740, "deviceScaleFactor": 2,
            "mobile": True})
        try:
            time.sleep(0.2)
            m = d.execute_script("""
                var de = document.documentElement, small = [];
                document.querySelectorAll(
                    'input:not([type=hidden]):not([type=checkbox]),button,a.hsc-link,label.hsc-check'
                ).forEach(function (e) {
                    var h = e.getBoundingClientRect().height;
                    if (h < 44) small.push(e.tagName + (e.id ? '#' + e.id : '') + ':' + h);
                });
                return {sw: de.scrollWidth, cw: de.clientWidth, iw: window.innerWidth,
                        small: small,
                        font: getComputedStyle(document.body).fontSize,
                        n: document.querySelectorAll('input:not([type=hidden]),button,a.hsc-link').length};
            """)
            ok(m["sw"] <= m["cw"] and m["iw"] == 375,
               "%s at 375 px: no horizontal scroll" % name, m)
            ok(m["n"] > 0 and not m["small"],
               "%s at 375 px: every control is at least 44 px tall" % name,
               m)
            ok(m["font"] == "16px", "%s at 375 px: 16 px text" % name, m)
            d.save_screenshot(os.path.join(SHOTS, name + "-375.png"))
        finally:
            d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    def go(self, el, timeout=10):
        """Click a link or button and wait for the next page to load."""
        old = self.d.find_element(By.TAG_NAME, "html")
        el.click()
        WebDriverWait(self.d, timeout).until(lambda d: gone(old))
        WebDriverWait(self.d, 10).until(lambda d: d.execute_script(
            "return document.readyState") == "complete")

    def login(self, user, pw):
        d = self.d
        u = d.find_element(By.ID, "hsc-username")
        u.clear()
        u.send_keys(user)
        d.find_element(By.ID, "hsc-password").send_keys(pw)
        self.go(d.find_element(By.CSS_SELECTOR, "button[type=submit]"))

    def cookie(self):
        for c in self.d.get_cookies():
            if c["name"] == "hsc":
                return c
        return None


def main():
    os.makedirs(SHOTS, exist_ok=True)
    for f in os.listdir(SHOTS):
        if f.endswith(".png"):
            os.unlink(os.path.join(SHOTS, f))
    srv = Server()
    srv.start()
    b = None
    browser_died = False
    try:
        b = Browser()
        # HSC_BROWSER_ONLY=passkeys, cross-site or proxies: that part alone (while
        # working on it).
        if os.environ.get("HSC_BROWSER_ONLY") == "passkeys":
            passkey_walk(srv, b)
        elif os.environ.get("HSC_BROWSER_ONLY") == "cross-site":
            cross_site.walk(srv, b, ok, totp, status_with_cookie)
        elif os.environ.get("HSC_BROWSER_ONLY") == "proxies":
            proxy_walk(srv, b)
        else:
            run(srv, b)
    except Exception as e:  # a crash is a failed assertion, not a skip
        ok(False, "the browser test ran to the end", repr(e))
        # Chromium itself gone (a bare WebDriverException, not a missing
        # element or a timeout, which are its subclasses): browser-test.sh
        # may run the whole test once more, and says so.
        if type(e) is WebDriverException and failed == 1:
            browser_died = True
            if b is not None:
                print("# chromedriver's last words:\n# "
                      + b.driver_log_tail().replace("\n", "\n# "))
    finally:
        if b is not None:
            b.d.quit()
            os.unlink(b.driver_log)
        log = srv.log()
        ok("Sanitizer" not in log and "AH00052" not in log,
           "no sanitizer report or crashed child in the error log")
        if failed:
            print("# httpd error log:\n# " + srv.log().replace("\n", "\n# "))
        srv.stop()
    print("1..%d" % n)
    if browser_died and failed == 1:  # and nothing else failed
        return 3
    return 1 if failed or n == 0 else 0


def run(srv, b):
    d, base = b.d, srv.base

    # A protected page sends the browser to the login page.
    d.get(base + "/private/")
    ok(d.current_url in (base + "/login?return=/private/",
                         base + "/login?return=%2Fprivate%2F"),
       "a protected page redirects to the login page", d.current_url)
    ok(d.title == "Log in \u00b7 Example Intranet",
       "the title carries HSCSiteName", d.title)
    active = d.switch_to.active_element.get_attribute("id")
    ok(active == "hsc-username", "the focus is on the username", active)
    css = d.execute_script(
        "return document.styleSheets.length && "
        "document.styleSheets[0].cssRules.length")
    ok(css and css > 10, "the built-in stylesheet applied (CSP allows it)",
       css)
    b.shot("login")

    # A wrong password: the message, the username kept, focus on password.
    b.login("alice", "wrong")
    ok("Login failed: wrong username or password." in b.text(),
       "a wrong password shows the message")
    u = d.find_element(By.ID, "hsc-username")
    ok(u.get_attribute("value") == "alice", "the username is kept",
       u.get_attribute("value"))
    ok(d.switch_to.active_element.get_attribute("id") == "hsc-password",
       "the focus is on the password")
    ok(u.get_attribute("aria-describedby") == "hsc-error"
       and d.find_element(By.ID, "hsc-error").get_attribute("role")
       == "alert", "the error is an alert tied to the fields")
    ok(b.cookie() is None, "no cookie after a failure")
    b.shot("login-failed")

    # The right password: back at the page first asked for.
    d.find_element(By.ID, "hsc-password").send_keys(srv.pw["alice"])
    b.go(d.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    ok(d.current_url == base + "/private/",
       "the right password goes back to the original page", d.current_url)
    ok("Private page" in b.text(), "which is the protected page")
    d.refresh()
    ok(d.current_url == base + "/private/" and "Private page" in b.text(),
       "a reload stays signed in")
    c = b.cookie()
    ok(c is not None and c.get("httpOnly") is True,
       "the cookie is HttpOnly", c)
    ok(c is not None and c.get("sameSite") == "Lax",
       "the cookie is SameSite=Lax", c)
    ok(c is not None and c.get("secure") is True,
       "the cookie is Secure (kept by Chromium on 127.0.0.1)", c)
    ok(d.execute_script("return document.cookie").find("hsc=") < 0,
       "scripts cannot read it")

    # The logout page: who, a way back (Referer), the everywhere option.
    b.go(d.find_element(By.ID, "logout"))
    ok("Signed in as alice." in b.text(), "the logout page says who is in")
    ok("every other browser and device" in b.text(),
       "and explains log out everywhere")
    b.shot("logout")
    b.go(d.find_element(By.LINK_TEXT, "Cancel, stay signed in"))
    ok(d.current_url == base + "/private/",
       "Cancel goes back to the page before", d.current_url)

    # Log out (this browser): the logged-out message, then login again.
    b.go(d.find_element(By.ID, "logout"))
    b.go(d.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    ok(d.current_url == base + "/logout?done", "a logout lands on ?done",
       d.current_url)
    ok("You are logged out." in b.text(), "which says so")
    ok(b.cookie() is None, "the cookie is gone")
    b.shot("logged-out")
    b.go(d.find_element(By.LINK_TEXT, "Log in again"))
    ok(d.current_url == base + "/login", "Log in again: the login page",
       d.current_url)
    d.get(base + "/private/")
    ok(d.current_url.startswith(base + "/login?"),
       "the protected page asks for a login again", d.current_url)

    # Log out everywhere: a copied cookie stops working.
    b.login("alice", srv.pw["alice"])
    copied = b.cookie()["value"]
    ok(status_with_cookie(base + "/private/", "hsc=" + copied) == 200,
       "a copy of the cookie works in another client")
    time.sleep(1.1)  # revocation refuses logins before this second
    d.get(base + "/logout")
    d.find_element(By.NAME, "everywhere").click()
    b.go(d.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    ok(d.current_url == base + "/logout?done=everywhere",
       "log out everywhere lands on ?done=everywhere", d.current_url)
    ok("You are logged out everywhere" in b.text(), "which says so")
    b.shot("logged-out-everywhere")
    ok(status_with_cookie(base + "/private/", "hsc=" + copied) == 401,
       "the copied cookie is refused afterwards")
    d.add_cookie({"name": "hsc", "value": copied, "path": "/"})
    d.get(base + "/private/")
    ok(d.current_url.startswith(base + "/login?"),
       "put back into the browser, it is refused too", d.current_url)

    # Throttling: HSCThrottleUser 3 in a 5 minute window.
    d.get(base + "/login")
    for i in range(3):
        b.login("bob", "wrong-%d" % i)
    ok("Login failed" in b.text(), "three failures: the form each time")
    b.login("bob", "wrong-3")
    text = b.text()
    ok("Too many failed logins. Try again in about 5 minutes." in text,
       "the fourth: 429 page with the wait in words", text)
    ok(d.title.startswith("Too many login attempts"), "its title", d.title)
    b.shot("throttled")
    b.go(d.find_element(By.LINK_TEXT, "Back to the login page"))
    ok(d.current_url == base + "/login"
       and d.find_elements(By.ID, "hsc-username"),
       "its link goes back to the login page", d.current_url)

    # The site's own stylesheet (HSCLoginStylesheet): applied, after ours.
    d.get(base + "/styled-login")
    color = d.execute_script(
        "return getComputedStyle(document.querySelector('h1')).color")
    ok(color == "rgb(1, 2, 3)", "HSCLoginStylesheet: the site's rule applies",
       color)
    width = d.execute_script(
        "return getComputedStyle(document.querySelector('main')).maxWidth")
    ok(width == "384px", "and the built-in stylesheet still does", width)
    b.shot("login-site-stylesheet")

    # The second-factor step: after carol's password, the code form; a
    # wrong code says so; the right one goes on to the page asked for.
    d.delete_all_cookies()
    d.get(base + "/2fa-login?return=/private/")
    b.login("carol", srv.pw["carol"])
    ok(d.current_url.startswith(base + "/2fa-login?return="),
       "the password: back to the login page, for the code", d.current_url)
    ok("Signing in as carol." in b.text(), "which names the user")
    field = d.find_element(By.ID, "hsc-code")
    ok(field.get_attribute("autocomplete") == "one-time-code"
       and field.get_attribute("inputmode") == "numeric",
       "the code field: one-time-code, numeric keyboard")
    ok(d.switch_to.active_element.get_attribute("id") == "hsc-code",
       "the focus is on the code")
    ok(status_with_cookie(base + "/private/",
                          "hsc=" + b.cookie()["value"]) == 401,
       "the pending cookie opens no page")
    b.shot("second-factor")
    if time.time() % 30 > 25:
        time.sleep(31 - time.time() % 30)
    now = time.time()
    wrong = "000000" if totp(srv.totp_secret, now) != "000000" else "111111"
    field.send_keys(wrong)
    b.go(d.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    ok("That code is not right" in b.text(), "a wrong code: the message")
    b.shot("second-factor-failed")
    d.find_element(By.ID, "hsc-code").send_keys(totp(srv.totp_secret, now))
    b.go(d.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    ok(d.current_url == base + "/private/",
       "the right code: the page first asked for", d.current_url)
    ok("Private page" in b.text(), "signed in")
    # A recovery code, in the second form, in capitals.
    d.delete_all_cookies()
    d.get(base + "/2fa-login?return=/private/")
    b.login("carol", srv.pw["carol"])
    d.find_element(By.ID, "hsc-recovery").send_keys(srv.recovery[0].upper())
    b.go(d.find_elements(By.CSS_SELECTOR, "button[type=submit]")[1])
    ok(d.current_url == base + "/private/",
       "a recovery code signs in too", d.current_url)

    account_walk(srv, b)

    # Not signed in: the logout page says so.
    d.delete_all_cookies()
    d.get(base + "/logout")
    ok("You are not signed in." in b.text(),
       "logout without a session says not signed in")
    b.shot("logout-not-signed-in")
    shots = sorted(f for f in os.listdir(SHOTS) if f.endswith(".png"))
    ok(len(shots) == 32, "a screenshot of each page at both widths", shots)

    api_walk(srv, b)
    cross_site.walk(srv, b, ok, totp, status_with_cookie)
    proxy_walk(srv, b)
    passkey_walk(srv, b)


def api_walk(srv, b):
    """A single-page app's sign-in with fetch() through hsc-api
    (test/browser/api-page/, docs/json-api.md)."""
    d, base = b.d, srv.base
    d.delete_all_cookies()
    b.csp_errors()  # the log so far, read and dropped

    def status_after(click):
        before = d.find_element(By.ID, "status").get_attribute("data-done")
        d.find_element(By.ID, click).click()
        WebDriverWait(d, 10).until(lambda d: d.find_element(
            By.ID, "status").get_attribute("data-done") not in (None, before))
        return d.find_element(By.ID, "status").text

    d.get(base + "/app/")
    WebDriverWait(d, 10).until(lambda d: d.find_element(
        By.ID, "status").get_attribute("data-done") is not None)
    ok(d.find_element(By.ID, "status").text == "Signed out",
       "the app: signed out on arrival")
    d.find_element(By.ID, "username").send_keys("erin")
    d.find_element(By.ID, "password").send_keys("not-her-password")
    text = status_after("signin")
    ok(text == "Refused (401): Wrong username or password.",
       "the app: a wrong password, the API's words", text)
    ok(b.cookie() is None, "and no cookie")
    d.find_element(By.ID, "password").send_keys(srv.pw["erin"])
    text = status_after("signin")
    ok(text == "Welcome, erin", "the app: signed in with fetch()", text)
    c = b.cookie()
    ok(c is not None and c.get("httpOnly"), "an HttpOnly cookie", c)
    ok(d.execute_script("return document.cookie.indexOf('hsc=')") == -1,
       "that the page's script cannot read")
    text = status_after("whoami")
    ok(text == "Signed in as erin (pwd)", "the app: who am I", text)
    d.save_screenshot(os.path.join(SHOTS, "api-app-signed-in.png"))
    ok(status_with_cookie(base + "/private/", "hsc=" + c["value"]) == 200,
       "the cookie opens a protected page")
    text = status_after("signout")
    ok(text == "Signed out", "the app: signed out", text)
    ok(b.cookie() is None, "the cookie is gone")
    ok(status_after("whoami") == "Signed out", "and the API agrees")
    errors = b.csp_errors()
    ok(not errors, "the app under default-src 'self': the CSP blocked "
       "nothing", errors)


def proxy_walk(srv, b):
    """Through nginx, Caddy and HAProxy in front of hsc-authz
    (test/browser/proxies.py, docs/authz-endpoint.md): the app's URL at
    the proxy's origin, httpd's login page at its own, the password (and a
    TOTP code), then back on the app's page. The login page's CSP must let
    the form's 303 go to the app's origin (form-action), and Chromium must
    say nothing about the CSP on the way."""
    d, base = b.d, srv.base

    def submit(el):
        # A navigation the CSP blocks leaves the page as it was: no
        # exception, the assertions after say what happened.
        try:
            b.go(el, timeout=5)
        except TimeoutException:
            pass

    px = proxies.Proxies(srv.port)
    try:
        up, why = px.start()
        for name in ("nginx", "caddy", "haproxy"):
            ok(name in up, "%s starts in front of hsc-authz" % name,
               why.get(name))
        for name, port in up.items():
            app = "http://127.0.0.1:%d/proxied/" % port
            for kind in ("pw", "otp"):
                user = name + "-" + kind
                what = "%s, %s" % (name, "password" if kind == "pw"
                                   else "password and TOTP code")
                d.delete_all_cookies()
                b.csp_errors()  # the log so far, read and dropped
                d.get(app)
                ok(d.current_url.startswith(base + "/authz-login?return="),
                   "%s: the app sends a stranger to httpd's login page"
                   % what, d.current_url)
                d.find_element(By.ID, "hsc-username").send_keys(user)
                d.find_element(By.ID, "hsc-password").send_keys(srv.pw[user])
                submit(d.find_element(By.CSS_SELECTOR,
                                      "button[type=submit]"))
                if kind == "otp":
                    codes = d.find_elements(By.ID, "hsc-code")
                    ok(len(codes) == 1, "%s: the code step" % what,
                       d.current_url)
                    if codes:  # one step of skew is allowed: no wait
                        codes[0].send_keys(totp(srv.proxy_totp[name],
                                                time.time()))
                        submit(d.find_element(By.CSS_SELECTOR,
                                              "button[type=submit]"))
                text = b.text()
                ok(d.current_url == app and "App page" in text,
                   "%s: back on the app's page at the proxy's origin" % what,
                   (d.current_url, text[:200]))
                ok("User: " + user in text,
                   "%s: the app got the user from the proxy" % what, text[:200])
                errors = b.csp_errors()
                ok(not errors, "%s: no CSP message in the console" % what,
                   errors)
            d.save_screenshot(os.path.join(SHOTS, "proxy-%s-app.png" % name))
    finally:
        px.stop()


def account_walk(srv, b):
    """The account page: an authenticator app set up with its QR code,
    recovery codes, a login with the app, a password change."""
    d, base = b.d, srv.base
    d.delete_all_cookies()
    d.get(base + "/account")
    ok(d.current_url.startswith(base + "/login?return="),
       "the account page sends a stranger to log in", d.current_url)
    b.login("dora", srv.pw["dora"])
    ok(d.current_url == base + "/account",
       "and back to the account page after", d.current_url)
    text = b.text()
    ok("Signed in as\ndora" in text or "Signed in as dora" in text,
       "it says who is signed in", text)
    b.shot("account")

    # Set up an authenticator app: the QR code, drawn by the server.
    b.go(d.find_element(By.XPATH,
                        "//button[text()='Set up an authenticator app']"))
    qr = d.find_element(By.CSS_SELECTOR, "svg.hsc-qr")
    box = qr.rect
    ok(qr.is_displayed() and box["width"] >= 150
       and abs(box["width"] - box["height"]) < 1,
       "the QR code shows, square and large enough to scan", box)
    key = d.find_element(By.CSS_SELECTOR, ".hsc-secret code").text
    secret = key.replace(" ", "")
    ok(len(secret) == 32, "the key is there to type, in groups", key)
    ok(d.switch_to.active_element.get_attribute("id") == "hsc-code",
       "the focus is on the code")
    b.shot("account-totp-setup")
    # zbarimg (Debian's zbar-tools) reads the screenshot as a phone would.
    read = subprocess.run(["zbarimg", "-q", "--raw",
                           os.path.join(SHOTS, "account-totp-setup.png")],
                          capture_output=True, text=True).stdout.strip()
    ok(read == "otpauth://totp/Example%20Intranet:dora?secret=" + secret
       + "&issuer=Example%20Intranet&algorithm=SHA1&digits=6&period=30",
       "a QR reader finds the otpauth URI of that key in the screenshot",
       read)
    if time.time() % 30 > 25:
        time.sleep(31 - time.time() % 30)
    now = time.time()
    d.find_element(By.ID, "hsc-code").send_keys(totp(secret, now))
    b.go(d.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    codes = [e.text for e in d.find_elements(By.CSS_SELECTOR, ".hsc-codes code")]
    ok(len(codes) == 10, "its first code turns it on, with ten recovery "
       "codes", codes)
    ok("The authenticator app is on." in b.text(), "the page says so")
    b.shot("account-recovery-codes")
    b.go(d.find_element(By.LINK_TEXT, "Done"))
    ok("Authenticator app\non" in b.text()
       or "Authenticator app on" in b.text(), "the account page: on")

    # A login with the app (the next step's code: this one is used).
    d.delete_all_cookies()
    d.get(base + "/2fa-login?return=/account")
    b.login("dora", srv.pw["dora"])
    d.find_element(By.ID, "hsc-code").send_keys(totp(secret, now + 30))
    b.go(d.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    ok(d.current_url == base + "/account",
       "a login with the app's code", d.current_url)

    # A password change: too short first, then a good one.
    def change(new):
        d.find_element(By.ID, "hsc-current").send_keys(srv.pw["dora"])
        d.find_element(By.ID, "hsc-new").send_keys(new)
        d.find_element(By.ID, "hsc-new2").send_keys(new)
        b.go(d.find_element(By.XPATH, "//button[text()='Change password']"))
    d.execute_script("document.getElementById('hsc-new')"
                     ".removeAttribute('minlength')")
    change("short")
    ok("too short" in b.text(), "a short new password: the rule",
       b.text())
    b.shot("account-password-refused")
    change("a long and unlisted passphrase")
    ok(d.current_url == base + "/account?done=password",
       "a good one: changed", d.current_url)
    ok("Your password is changed." in b.text(), "the page says so")
    b.shot("account-password-changed")
    d.delete_all_cookies()
    d.get(base + "/login?return=/account")
    b.login("dora", "a long and unlisted passphrase")
    # /login has no HSCSecondFactor: dora's app is asked for all the same.
    ok(d.find_elements(By.ID, "hsc-code") != [],
       "the new password logs in, and a login without HSCSecondFactor "
       "asks for the app's code too (the factor is the user's)")
    # (Both of this step's codes are used: one of the recovery codes.)
    d.find_element(By.ID, "hsc-recovery").send_keys(codes[0])
    b.go(d.find_elements(By.CSS_SELECTOR, "button[type=submit]")[1])
    ok(d.current_url == base + "/account" and b.cookie() is not None,
       "a recovery code finishes it", d.current_url)
    account_look(srv, b)


def full_shot(b, name, width):
    """The whole page (not only the window) at this width."""
    d = b.d
    m = {"width": width, "height": 800, "deviceScaleFactor": 1,
         "mobile": width < 500}
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", m)
    time.sleep(0.2)
    m["height"] = d.execute_script(
        "return document.documentElement.scrollHeight")
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", m)
    time.sleep(0.2)
    d.save_screenshot(os.path.join(SHOTS, name + ".png"))


def account_look(srv, b):
    """The account page's look: its sections (cards) in order, the main
    action of a form, the secondary ones and the destructive ones each
    drawn apart, the same at a phone's 390 px without scrolling sideways;
    the whole page shot at both widths."""
    d, base = b.d, srv.base
    d.get(base + "/account")
    d.find_element(By.ID, "hsc-token-name").send_keys("calendar")
    b.go(d.find_element(By.XPATH, "//button[text()='Create app password']"))
    b.go(d.find_element(By.LINK_TEXT, "Back to your account"))
    heads = [e.text for e in d.find_elements(
        By.CSS_SELECTOR, "section.hsc-group > h2")]
    ok(heads == ["Account", "Password", "Sign-in methods", "App passwords",
                 "Sessions"], "the account page: its sections in order", heads)
    look = """
        function s(e) { var c = getComputedStyle(e);
            return [c.backgroundColor, c.color, c.borderTopColor,
                    c.borderTopWidth, e.getBoundingClientRect().width]; }
        function by(t) { var r = null;
            document.querySelectorAll('button').forEach(function (e) {
                if (e.textContent === t) r = s(e); });
            return r; }
        return {primary: by('Change password'),
                primary2: by('Create app password'),
                secondary: by('Make new recovery codes'),
                danger: by('Remove the authenticator app'),
                signout: by('Sign out everywhere'), revoke: by('Revoke'),
                column: document.querySelector('#hsc-current')
                    .getBoundingClientRect().width};
    """
    m = d.execute_script(look)

    def red(c):  # "rgb(r, g, b)": red well above green and blue
        r, g, bl = [int(x) for x in re.findall(r"\d+", c)[:3]]
        return r > 120 and r > 2 * g and r > 2 * bl
    p, sec, dan = m["primary"], m["secondary"], m["danger"]
    ok(p and sec and dan and p[:3] == m["primary2"][:3]
       and dan[:3] == m["signout"][:3] == m["revoke"][:3],
       "main, secondary and destructive buttons: each kind drawn alike", m)
    ok(p and sec and dan and p[0] != sec[0] and sec[1] != p[1]
       and sec[3] != "0px" and p[3] == "0px",
       "a secondary action is outlined, not filled like the main one", m)
    ok(dan and sec and red(dan[1]) and red(dan[2]) and not red(sec[1])
       and dan[0] == sec[0], "a destructive action is red (remove, revoke, "
       "sign out everywhere)", m)
    ok(sec and dan and sec[4] < m["column"] and dan[4] < m["column"],
       "at 1000 px neither spans the column", m)
    errors = b.csp_errors()
    ok(not errors, "account page: the CSP blocked nothing", errors)
    full_shot(b, "account-sections", 1000)
    try:
        full_shot(b, "account-sections-390", 390)
        m = d.execute_script("""
            var de = document.documentElement, out = [];
            document.querySelectorAll('button, input, select').forEach(
                function (e) { var r = e.getBoundingClientRect();
                    if (e.type !== 'hidden' && (r.left < 0 || r.right > 390
                        || r.height < 44))
                        out.push(e.textContent || e.id || e.name); });
            return {sw: de.scrollWidth, cw: de.clientWidth, bad: out};""")
        ok(m["sw"] <= m["cw"] == 390 and not m["bad"],
           "account page at 390 px: no sideways scroll, every control "
           "within the screen and at least 44 px tall", m)
    finally:
        d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


# --- passkeys -----------------------------------------------------------------
# The pages' own passkey buttons (hsc_core/passkey.js) with Chromium's
# virtual authenticator. A script run in every new document of the tab
# records each POST the page's fetch() makes (in sessionStorage, so that
# it outlives the page's navigation), for a replay with urllib and the
# independent relying party; it can also narrow pubKeyCredParams to one
# algorithm and hide conditional mediation (sessionStorage flags), so that
# a test chooses ES256, EdDSA or RS256 and the button or the autofill.
CAPTURE_JS = r"""
(function () {
  var f = window.fetch;
  window.fetch = function (url, init) {
    try {
      if (init && init.method === 'POST') {
        var all = JSON.parse(sessionStorage.getItem('hscPosts') || '[]');
        all.push({url: String(url), body: String(init.body)});
        sessionStorage.setItem('hscPosts', JSON.stringify(all));
      }
    } catch (e) {}
    return f.apply(this, arguments);
  };
  var alg = sessionStorage.getItem('hscAlg');
  if (alg && navigator.credentials) {
    var create = navigator.credentials.create.bind(navigator.credentials);
    navigator.credentials.create = function (o) {
      o.publicKey.pubKeyCredParams = [{type: 'public-key', alg: Number(alg)}];
      return create(o);
    };
  }
  if (sessionStorage.getItem('hscNoAutofill') && window.PublicKeyCredential) {
    PublicKeyCredential.isConditionalMediationAvailable = function () {
      return Promise.resolve(false);
    };
  }
})();
"""


def pk_flags(b, alg=None, autofill=False):
    b.d.execute_script(
        "sessionStorage.setItem('hscAlg', arguments[0] || '');"
        "if (arguments[1]) sessionStorage.removeItem('hscNoAutofill');"
        "else sessionStorage.setItem('hscNoAutofill', '1');",
        str(alg) if alg else "", autofill)


def pk_posts(b, kind):
    """The fields of the recorded POSTs with hsc_passkey=kind, oldest first."""
    out = []
    for p in b.d.execute_script(
            "return JSON.parse(sessionStorage.getItem('hscPosts') || '[]')"):
        f = dict(urllib.parse.parse_qsl(p["body"]))
        if f.get("hsc_passkey") == kind:
            f["_url"] = p["url"]
            f["_body"] = p["body"]
            out.append(f)
    return out


def pk_click(b, timeout=15):
    """The passkey button; waits until the page goes elsewhere or says
    something in its status. Returns the status text ('' when it went
    elsewhere)."""
    d = b.d
    url = d.current_url
    d.find_element(By.ID, "hsc-pk-go").click()

    def settled(d):
        # While the page navigates, Chromium may answer for a node of the
        # old document with a bare WebDriverException: not yet settled.
        try:
            if d.current_url != url:
                return "gone"
            t = d.find_element(By.ID, "hsc-pk-status").text.strip()
            return t if t not in ("", "Checking\u2026", "Saving\u2026") else None
        except WebDriverException:
            return None
    got = WebDriverWait(d, timeout).until(settled)
    if got == "gone":
        WebDriverWait(d, 10).until(lambda d: d.execute_script(
            "return document.readyState") == "complete")
        return ""
    return got


def add_authenticator(b, **opts):
    """One virtual authenticator (any other removed first: which of
    several Chromium would use is not ours to guess)."""
    d = b.d
    d.execute_cdp_cmd("WebAuthn.enable", {"enableUI": False})
    for aid in getattr(b, "authenticators", []):
        d.execute_cdp_cmd("WebAuthn.removeVirtualAuthenticator",
                          {"authenticatorId": aid})
    o = {"protocol": "ctap2", "ctap2Version": "ctap2_1",
         "transport": "internal", "hasResidentKey": True,
         "hasUserVerification": True, "isUserVerified": True,
         "automaticPresenceSimulation": True, "hasPrf": True}
    o.update(opts)
    aid = d.execute_cdp_cmd("WebAuthn.addVirtualAuthenticator",
                            {"options": o})["authenticatorId"]
    b.authenticators = [aid]
    return aid


def repost(url, body, cookie=None):
    """POST a captured body again from outside the browser: (status, JSON)."""
    import json
    h = {"Content-Type": "application/x-www-form-urlencoded"}
    if cookie:
        h["Cookie"] = cookie
    req = urllib.request.Request(url, data=body.encode(), headers=h)
    try:
        r = urllib.request.urlopen(req)
        return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        try:
            return e.code, json.loads(e.read() or b"{}")
        except ValueError:
            return e.code, {}


def soft_authn():
    sys.path.insert(0, os.path.join(TOP_SRC, "test", "lib"))
    import hsc_soft_authn
    return hsc_soft_authn


def pk_shot(b, name):
    """The page at desktop width (1000 px) and at a phone's (390 px)."""
    d = b.d
    # The passkey part of the page in view (the account page is long):
    # from the list of passkeys down, where there is one.
    scroll = ("var l = document.getElementById('hsc-pk-list');"
              "if (l) l.scrollIntoView({block: 'start'}); else {"
              "var e = document.getElementById('hsc-pk');"
              "if (e) e.scrollIntoView({block: 'center'}); }")
    d.execute_script(scroll)
    d.save_screenshot(os.path.join(SHOTS, name + ".png"))
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
    try:
        time.sleep(0.2)
        m = d.execute_script("var de = document.documentElement;"
                             "return {sw: de.scrollWidth, cw: de.clientWidth};")
        ok(m["sw"] <= m["cw"], "%s at 390 px: no horizontal scroll" % name, m)
        d.execute_script(scroll)
        d.save_screenshot(os.path.join(SHOTS, name + "-390.png"))
    finally:
        d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def amr_of(b):
    c = b.cookie()
    return int(c["value"].split(".")[7]) if c else None


AMR = {"pwd": 1, "otp": 2, "hwk": 4, "uv": 8, "seal": 32, "pending": 64}


def passkey_walk(srv, b):
    """Passkeys through the pages: registration on the account page, the
    passwordless button and the autofill (conditional mediation), the
    second factor with a resident key (UV required) and with a security
    key (no UV, no PRF), PRF present (a sealed cookie) and absent (refused
    passwordless, in the page's words), ES256, EdDSA and RS256, an
    assertion replayed with urllib, the Python RP re-verifying what the
    module accepted, and UV failing (setUserVerified false)."""
    sa = soft_authn()
    d = b.d
    base = b.pk_base = "http://localhost:%d" % srv.port
    d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                      {"source": CAPTURE_JS})
    d.delete_all_cookies()
    d.get(base + "/pk-login")
    pk_flags(b)
    aid = add_authenticator(b)  # internal: resident keys, UV, PRF

    def verify(f, reg, alg, what):
        try:
            ad = sa.verify_assertion(
                sa.unb64u(reg["publicKey"]), alg,
                sa.unb64u(f["authenticatorData"]),
                sa.unb64u(f["clientDataJSON"]), sa.unb64u(f["signature"]),
                "localhost", base, sa.unb64u(f["challenge"]))
            ok(True, "%s (flags 0x%02x, count %d)" % (what, ad["flags"],
                                                       ad["sign_count"]))
        except Exception as e:  # VerifyError, KeyError: both a failure
            ok(False, what, repr(e))

    # fred: his password, then Add a passkey on the account page.
    d.get(base + "/pk-login")
    ok(d.find_element(By.ID, "hsc-pk-go").is_displayed(),
       "passkeys: the login page shows the passkey button",
       d.find_element(By.ID, "hsc-pk").get_attribute("outerHTML"))
    pk_shot(b, "pk-login")
    b.login("fred", srv.pw["fred"])
    d.get(base + "/pk-account")
    pk_shot(b, "pk-account")
    d.find_element(By.ID, "hsc-pk-name").send_keys("laptop")
    said = pk_click(b)
    ok(d.current_url == base + "/pk-account?done=passkey",
       "Add a passkey: registered (ES256, resident, PRF)", (said, d.current_url))
    regs = pk_posts(b, "create")
    reg = regs[-1] if regs else {}
    ok(reg.get("alg") == "-7" and len(sa.unb64u(reg.get("prf", ""))) == 32,
       "the page sent ES256 and the PRF output", reg.get("alg"))
    ok("laptop" in b.text(), "the account page lists it")
    pk_shot(b, "pk-account-registered")
    said = pk_click(b)
    ok(said.startswith("This account has a second factor: confirm it first"),
       "another passkey from this password-only session: the page says to "
       "confirm the second factor first (fred has one now)", said)
    fred_creds = d.execute_cdp_cmd("WebAuthn.getCredentials",
                                   {"authenticatorId": aid})["credentials"]

    # Passwordless with the button (no autofill on this load).
    d.delete_all_cookies()
    d.get(base + "/pk-login")
    said = pk_click(b)
    ok(said == "" and amr_of(b) == AMR["hwk"] | AMR["uv"] | AMR["seal"],
       "Sign in with a passkey: signed in, amr hwk|uv|seal",
       (said, d.current_url, amr_of(b)))
    asserts = pk_posts(b, "assert")
    f = asserts[-1] if asserts else {}
    verify(f, reg, -7, "the Python RP verifies the assertion the module "
                       "accepted, with the SPKI the page sent at registration")
    st, j = repost(base + "/pk-login", f.get("_body", ""))
    ok(st == 403 and j.get("error") == "refused",
       "that assertion re-posted with urllib: 403 refused", (st, j))
    d.get(base + "/pk-sealed/")
    ok("Sealed page" in b.text(),
       "Require hsc-factor sealed lets the sealed cookie in")

    # The autofill: the page's conditional request resolves by itself.
    d.delete_all_cookies()
    pk_flags(b, autofill=True)
    d.get(base + "/pk-login")
    try:
        WebDriverWait(d, 15).until(lambda d: "/pk-login" not in d.current_url)
    except Exception:
        pass
    ok("/pk-login" not in d.current_url
       and amr_of(b) == AMR["hwk"] | AMR["uv"] | AMR["seal"],
       "autofill (conditional mediation): signed in without a click",
       (d.current_url, amr_of(b)))
    pk_flags(b)

    # The second factor where UV is required: the password, then the key.
    d.delete_all_cookies()
    d.get(base + "/pk-uv-login")
    b.login("fred", srv.pw["fred"])
    ok(amr_of(b) is not None and amr_of(b) & AMR["pending"],
       "fred's password now leaves a pending login", amr_of(b))
    pk_shot(b, "pk-second-factor")
    said = pk_click(b)
    ok(said == "" and amr_of(b) == AMR["pwd"] | AMR["hwk"] | AMR["uv"]
       | AMR["seal"], "Use a passkey (UV required): amr pwd|hwk|uv|seal",
       (said, amr_of(b)))
    d.get(base + "/pk-account")
    said = pk_click(b)
    ok(said == "This passkey is registered already.",
       "the same authenticator again, from a session that used it: the page "
       "says it is registered", said)

    # gina: a security key, EdDSA, not resident, without UV or PRF.
    d.delete_all_cookies()
    add_authenticator(b, transport="usb", hasResidentKey=False,
                      hasUserVerification=False, isUserVerified=False,
                      hasPrf=False)
    d.get(base + "/pk-login")
    pk_flags(b, alg=-8)
    b.login("gina", srv.pw["gina"])
    d.get(base + "/pk-account")
    said = pk_click(b)
    reg_g = (pk_posts(b, "create") or [{}])[-1]
    ok(d.current_url.endswith("?done=passkey") and reg_g.get("alg") == "-8"
       and "prf" not in reg_g, "a security key (EdDSA, no PRF): registered",
       (said, reg_g.get("alg")))
    d.delete_all_cookies()
    d.get(base + "/pk-login")
    pk_flags(b)
    b.login("gina", srv.pw["gina"])
    said = pk_click(b)
    ok(said == "" and amr_of(b) == AMR["pwd"] | AMR["hwk"],
       "as a second factor: amr pwd|hwk (no UV, no seal)", (said, amr_of(b)))
    verify((pk_posts(b, "assert") or [{}])[-1], reg_g, -8,
           "the Python RP verifies the EdDSA assertion")
    d.get(base + "/pk-sealed/")
    ok("Sealed page" not in b.text(), "not sealed: the sealed page refuses")

    # hank: RS256, resident, UV, no PRF: passwordless refused in the
    # page's words; a second factor.
    d.delete_all_cookies()
    add_authenticator(b, hasPrf=False)
    d.get(base + "/pk-login")
    pk_flags(b, alg=-257)
    b.login("hank", srv.pw["hank"])
    d.get(base + "/pk-account")
    pk_click(b)
    reg_h = (pk_posts(b, "create") or [{}])[-1]
    ok(d.current_url.endswith("?done=passkey") and reg_h.get("alg") == "-257"
       and "prf" not in reg_h, "an RS256 key without PRF: registered",
       reg_h.get("alg"))
    d.delete_all_cookies()
    d.get(base + "/pk-login")
    pk_flags(b)
    d.get(base + "/pk-login")
    said = pk_click(b)
    ok(said == "The passkey was refused." and b.cookie() is None,
       "passwordless with a key without PRF: the page says it was refused",
       said)
    pk_shot(b, "pk-login-refused")
    b.login("hank", srv.pw["hank"])
    said = pk_click(b)
    ok(said == "" and amr_of(b) == AMR["pwd"] | AMR["hwk"] | AMR["uv"],
       "as a second factor: amr pwd|hwk|uv", (said, amr_of(b)))
    verify((pk_posts(b, "assert") or [{}])[-1], reg_h, -257,
           "the Python RP verifies the RS256 assertion")

    # ivy: a one-time enrolment link adds her first passkey, no session
    # (docs/passkeys.md, "Lost every passkey"). A link's passkey is never
    # sealed, even with PRF: the page says what to do next, and she signs
    # in with her password, then it.
    out = subprocess.run([os.path.join(TOP_BUILD, "hsc-admin"), "link",
                          srv.db, "ivy", "--for", "enrol"], check=True,
                         capture_output=True, text=True).stdout
    token = re.search(r"link=([A-Za-z0-9_-]{43})", out).group(1)
    d.delete_all_cookies()
    add_authenticator(b)  # resident, UV, PRF
    d.get(base + "/pk-account?link=" + token)
    pk_flags(b)
    d.get(base + "/pk-account?link=" + token)
    pk_shot(b, "pk-link")
    d.find_element(By.ID, "hsc-pk-name").send_keys("phone")
    said = pk_click(b)
    reg_i = (pk_posts(b, "create") or [{}])[-1]
    ok(said == "Passkey added. Sign in with your password, then this passkey."
       and reg_i.get("link") == token and b.cookie() is None,
       "an enrolment link's page: Add a passkey, with the link, no session; "
       "the page says what comes next", (said, reg_i.get("link")))
    signin = d.find_element(By.ID, "hsc-pk-signin")
    ok(signin.is_displayed() and signin.find_element(By.TAG_NAME, "a")
       .get_attribute("href") == base + "/login",
       "and shows the way to sign in (HSCLoginURL)")
    ok(not d.find_element(By.ID, "hsc-pk-go").is_displayed()
       and not d.find_element(By.ID, "hsc-pk-name").is_displayed()
       and not d.find_element(By.ID, "hsc-link-app").is_displayed(),
       "the used link's forms are gone (Add a passkey, the authenticator "
       "app)")
    pk_shot(b, "pk-link-added")
    d.get(base + "/pk-account?link=" + token)
    ok("Add a passkey" not in b.text(), "the link works once",
       b.text()[:200])
    d.get(base + "/pk-login")
    said = pk_click(b)
    ok(said == "The passkey was refused." and b.cookie() is None,
       "passwordless with the link's passkey: refused (not sealed)", said)
    b.login("ivy", srv.pw["ivy"])
    said = pk_click(b)
    ok(said == "" and amr_of(b) == AMR["pwd"] | AMR["hwk"] | AMR["uv"],
       "her password, then the passkey: amr pwd|hwk|uv", (said, amr_of(b)))
    verify((pk_posts(b, "assert") or [{}])[-1], reg_i, -7,
           "the Python RP verifies the assertion of the link's passkey")

    # Last (a failed ceremony leaves this Chromium refusing later ones):
    # fred's key on an authenticator whose user is not verified.
    d.delete_all_cookies()
    aid = add_authenticator(b)
    for c in fred_creds:
        d.execute_cdp_cmd("WebAuthn.addCredential",
                          {"authenticatorId": aid, "credential": c})
    d.execute_cdp_cmd("WebAuthn.setUserVerified",
                      {"authenticatorId": aid, "isUserVerified": False})
    d.get(base + "/pk-login")
    said = pk_click(b)
    ok(said == "Cancelled, or no passkey for this site on this device."
       and b.cookie() is None,
       "UV failing (setUserVerified false): no login, the page says so", said)
    d.execute_cdp_cmd("WebAuthn.removeVirtualAuthenticator",
                      {"authenticatorId": aid})
    b.authenticators = []

if __name__ == "__main__":
    sys.exit(main())
