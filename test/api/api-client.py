#!/usr/bin/env python3
"""A client of SetHandler hsc-api (docs/json-api.md) with Python's standard
library only, as a script or a service would use it: urllib and a cookie
jar. Signs in, reads the session, logs out, reads it again. With --account:
makes, lists and revokes an app password, and changes the password (to
HSC_API_NEW_PASSWORD).

    api-client.py [--account] BASE_URL USERNAME  (the password in
                                                  HSC_API_PASSWORD)

BASE_URL is the hsc-api location, e.g. http://localhost:8529/api. Prints
TAP; exits 1 when any step is not what docs/json-api.md says.
"""
import http.cookiejar
import json
import os
import sys
import urllib.error
import urllib.request


def call(opener, method, url, body=None, headers=None):
    """(status, headers, parsed JSON) of one request."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    req = urllib.request.Request(url, data=data, method=method,
                                 headers=headers or {})
    req.add_header("Accept", "application/json")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with opener.open(req, timeout=30) as res:
            return res.status, res.headers, json.loads(res.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, err.headers, json.loads(err.read() or b"null")


def account(opener, jar, base, user, password, check):
    """The account endpoints: app passwords, then the password."""
    new_password = os.environ["HSC_API_NEW_PASSWORD"]
    st, hd, js = call(opener, "POST", base + "/login",
                      {"username": user, "password": password})
    check(st == 200 and len(jar) == 1, "signed in")

    st, hd, js = call(opener, "POST", base + "/tokens",
                      {"name": "python", "scopes": "git", "expires": "90d"})
    token = js.get("token", "") if isinstance(js, dict) else ""
    check(st == 201 and token.startswith("hsc_") and js.get("id"),
          "POST tokens: 201, the token once")
    tid = js.get("id")

    st, hd, js = call(opener, "GET", base + "/tokens")
    check(st == 200 and [t.get("id") for t in js.get("tokens", [])] == [tid]
          and "token" not in js["tokens"][0],
          "GET tokens lists it, without its text")

    st, hd, js = call(opener, "GET", base + "/tokens",
                      headers={"Authorization": "Bearer " + token})
    check(st == 403 and js.get("error") == "token_not_login",
          "the token itself may not manage tokens: 403")

    st, hd, js = call(opener, "POST", base + "/tokens/revoke", {"id": tid})
    check(st == 200 and js == {"revoked": tid}, "revoked")

    st, hd, js = call(opener, "GET", base + "/tokens")
    check(st == 200 and js.get("tokens") == [], "the list is empty again")

    st, hd, js = call(opener, "POST", base + "/password",
                      {"current": password + "x", "new": new_password})
    check(st == 401 and js.get("error") == "wrong_password",
          "a wrong current password: 401")

    st, hd, js = call(opener, "POST", base + "/password",
                      {"current": password, "new": "short"})
    check(st == 400 and js.get("error", "").startswith("policy_"),
          "a weak new password: 400 and the rule")

    before = [c.value for c in jar]
    st, hd, js = call(opener, "POST", base + "/password",
                      {"current": password, "new": new_password})
    check(st == 200 and js.get("changed") is True
          and [c.value for c in jar] != before,
          "changed: 200, the jar's cookie re-issued")

    st, hd, js = call(opener, "GET", base + "/session")
    check(st == 200 and js.get("user") == user, "still signed in")

    call(opener, "POST", base + "/logout", {})
    st, hd, js = call(opener, "POST", base + "/login",
                      {"username": user, "password": password})
    check(st == 401, "the old password no longer logs in")
    st, hd, js = call(opener, "POST", base + "/login",
                      {"username": user, "password": new_password})
    check(st == 200, "the new one does")


def main():
    args = sys.argv[1:]
    do_account = args[:1] == ["--account"]
    if do_account:
        args = args[1:]
    if len(args) != 2 or "HSC_API_PASSWORD" not in os.environ:
        print("usage: HSC_API_PASSWORD=... api-client.py [--account] "
              "BASE_URL USERNAME", file=sys.stderr)
        return 2
    base, user = args[0].rstrip("/"), args[1]
    password = os.environ["HSC_API_PASSWORD"]
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(jar))
    results = []

    def check(cond, what):
        results.append(bool(cond))
        print("%s %d - %s" % ("ok" if cond else "not ok", len(results), what))

    if do_account:
        account(opener, jar, base, user, password, check)
        print("1..%d" % len(results))
        return 0 if all(results) else 1

    st, hd, js = call(opener, "GET", base + "/session")
    check(st == 200 and js == {"authenticated": False},
          "signed out: 200 {\"authenticated\":false}")
    check(hd.get("Content-Type", "").startswith("application/json")
          and hd.get("Cache-Control") == "no-store"
          and hd.get("X-Content-Type-Options") == "nosniff",
          "JSON, no-store, nosniff")

    st, hd, js = call(opener, "POST", base + "/login",
                      {"username": user, "password": password + "x"})
    check(st == 401 and js.get("error") == "login_failed",
          "a wrong password: 401 login_failed")
    check(len(jar) == 0, "and no cookie")

    st, hd, js = call(opener, "POST", base + "/login",
                      {"username": user, "password": password})
    check(st == 200 and js == {"authenticated": True, "user": user},
          "signed in: 200 with the user")
    check(len(jar) == 1, "the jar holds the session cookie")

    st, hd, js = call(opener, "GET", base + "/session")
    check(st == 200 and js.get("authenticated") is True
          and js.get("user") == user and js.get("methods") == ["pwd"]
          and isinstance(js.get("login_time"), int)
          and js.get("expires", 0) > js.get("login_time", 0),
          "session: the user, methods, login time before expiry")
    check("Set-Cookie" not in hd, "reading the session sets no cookie")

    st, hd, js = call(opener, "POST", base + "/logout", {})
    check(st == 200 and js == {"authenticated": False, "everywhere": False},
          "logged out: 200")
    check(len(jar) == 0, "the cookie is gone from the jar")

    st, hd, js = call(opener, "GET", base + "/session")
    check(st == 200 and js == {"authenticated": False},
          "signed out again")

    print("1..%d" % len(results))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
