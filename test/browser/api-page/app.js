// A single-page app's use of SetHandler hsc-api (docs/json-api.md):
// fetch() with JSON both ways; the cookie stays HttpOnly, never seen here.
"use strict";
(function () {
  var api = "/api";
  var status = document.getElementById("status");

  function say(text) {
    status.textContent = text;
    status.setAttribute("data-done", String(Date.now()));
  }

  function call(method, path, body) {
    var init = { method: method, credentials: "same-origin",
                 headers: { "Accept": "application/json" } };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(api + path, init).then(function (res) {
      return res.json().then(function (js) {
        return { status: res.status, body: js };
      });
    });
  }

  function session() {
    return call("GET", "/session").then(function (r) {
      if (r.body.authenticated) {
        say("Signed in as " + r.body.user + " (" + r.body.methods.join(" ")
            + ")");
      } else {
        say("Signed out");
      }
    });
  }

  document.getElementById("login").addEventListener("submit", function (e) {
    e.preventDefault();
    call("POST", "/login", {
      username: document.getElementById("username").value,
      password: document.getElementById("password").value
    }).then(function (r) {
      document.getElementById("password").value = "";
      if (r.status === 200 && r.body.authenticated) {
        say("Welcome, " + r.body.user);
      } else {
        say("Refused (" + r.status + "): " + (r.body.message || r.body.error));
      }
    });
  });
  document.getElementById("whoami").addEventListener("click", session);
  document.getElementById("signout").addEventListener("click", function () {
    call("POST", "/logout", {}).then(function (r) {
      say(r.status === 200 ? "Signed out" : "Logout failed: " + r.status);
    });
  });
  session();
})();
