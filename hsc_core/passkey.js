/* passkey.js: mod_hsc's passkey buttons (docs/passkeys.md). Inlined in
 * the login, second-factor and account pages where HSCPasskeys is On,
 * allowed by its SHA-256 in the CSP; it posts to the page's own URL
 * (the endpoints of docs/dev/passkeys.md, "Ceremony contract"). */
(function () {
  'use strict';
  var root = document.getElementById('hsc-pk');
  if (!root || !window.PublicKeyCredential || !window.fetch) {
    return;
  }
  var mode = root.getAttribute('data-mode');
  var status = document.getElementById('hsc-pk-status');
  var button = document.getElementById('hsc-pk-go');
  var pending = null;

  function say(text) {
    status.textContent = text;
  }
  function b64u(buf) {
    var s = '', b = new Uint8Array(buf), i;
    for (i = 0; i < b.length; i++) {
      s += String.fromCharCode(b[i]);
    }
    return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  function bytes(s) {
    var t = atob(s.replace(/-/g, '+').replace(/_/g, '/')), b, i;
    b = new Uint8Array(t.length);
    for (i = 0; i < t.length; i++) {
      b[i] = t.charCodeAt(i);
    }
    return b;
  }
  function ids(list) {
    return (list || '').split(' ').filter(Boolean).map(function (id) {
      return {type: 'public-key', id: bytes(id)};
    });
  }
  function field(name) {
    var e = document.querySelector('input[name="' + name + '"]');
    return e ? e.value : '';
  }
  function post(fields) {
    return fetch(window.location.pathname, {
      method: 'POST', credentials: 'same-origin',
      headers: {'Content-Type': 'application/x-www-form-urlencoded'},
      body: new URLSearchParams(fields).toString()
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (j) {
        if (!r.ok) {
          throw {server: j.error || 'unavailable'};
        }
        return j;
      });
    });
  }
  var server = {
    refused: 'The passkey was refused.',
    expired: 'That took too long. Try again.',
    throttled: 'Too many attempts. Wait a while, then try again.',
    reauth: 'For a new passkey, log out and log in again with your password first.',
    exists: 'This passkey is registered already.',
    link: 'This link cannot be used: it was used already, replaced by a newer one, or it has expired. Ask for a new one.',
    factor_needed: 'This account has a second factor: confirm it first (\u201cConfirm with your second factor\u201d on this page), then add the passkey.',
    has_passkey: 'This account has a passkey already: sign in with it, and add more on your account page.',
    no_pending_login: 'Your sign-in expired. Log in again.',
    bad_request: 'The passkey answer was not understood.',
    unavailable: 'The service is unavailable. Try again later.'
  };
  function failed(e) {
    if (e && e.server) {
      say(server[e.server] || server.unavailable);
    } else if (e && e.name === 'AbortError') {
      return;
    } else if (e && (e.name === 'NotAllowedError' || e.name === 'InvalidStateError')) {
      say(e.name === 'InvalidStateError' ? server.exists
          : 'Cancelled, or no passkey for this site on this device.');
    } else {
      say('This browser could not use a passkey here.');
    }
  }
  function prfOf(cred) {
    var x = cred.getClientExtensionResults ? cred.getClientExtensionResults() : {};
    return x.prf && x.prf.results && x.prf.results.first
      ? b64u(x.prf.results.first) : '';
  }
  function assert(purpose, o, mediation) {
    var pk = {
      challenge: bytes(o.challenge), rpId: o.rpId, timeout: o.timeout,
      userVerification: o.userVerification,
      allowCredentials: ids(o.allowCredentials),
      extensions: {prf: {eval: {first: bytes(o.prfSalt)}}}
    };
    var opts = {publicKey: pk};
    if (pending) {
      pending.abort();
    }
    pending = window.AbortController ? new AbortController() : null;
    if (pending) {
      opts.signal = pending.signal;
    }
    if (mediation) {
      opts.mediation = mediation;
    }
    return navigator.credentials.get(opts).then(function (cred) {
      var r = cred.response, f = {
        hsc_passkey: 'assert', purpose: purpose, challenge: o.challenge,
        id: b64u(cred.rawId), clientDataJSON: b64u(r.clientDataJSON),
        authenticatorData: b64u(r.authenticatorData),
        signature: b64u(r.signature)
      };
      if (r.userHandle) {
        f.userHandle = b64u(r.userHandle);
      }
      if (prfOf(cred)) {
        f.prf = prfOf(cred);
      }
      if (field('return')) {
        f.hsc_return = field('return');
      }
      say('Checking…');
      return post(f);
    }).then(function (j) {
      window.location.assign(j.location || '/');
    });
  }
  function login(purpose, mediation) {
    return post({hsc_passkey: 'options', purpose: purpose}).then(function (o) {
      return assert(purpose, o, mediation);
    });
  }
  function create() {
    var name = document.getElementById('hsc-pk-name');
    // A one-time enrolment link's page: the link proves who, not a session.
    var link = field('link'), opts = {hsc_passkey: 'options', purpose: 'create'};
    if (link) {
      opts.link = link;
    }
    return post(opts).then(function (o) {
      return navigator.credentials.create({publicKey: {
        challenge: bytes(o.challenge), rp: {id: o.rpId, name: o.rpName},
        user: {id: bytes(o.userId), name: o.userName, displayName: o.userName},
        pubKeyCredParams: [{type: 'public-key', alg: -7},
                           {type: 'public-key', alg: -8},
                           {type: 'public-key', alg: -257}],
        timeout: o.timeout, attestation: 'none',
        authenticatorSelection: {residentKey: o.residentKey,
                                 userVerification: o.userVerification},
        excludeCredentials: ids(o.excludeCredentials),
        extensions: {prf: {eval: {first: bytes(o.prfSalt)}}}
      }}).then(function (cred) {
        var r = cred.response, f = {
          hsc_passkey: 'create', challenge: o.challenge, id: b64u(cred.rawId),
          clientDataJSON: b64u(r.clientDataJSON),
          attestationObject: b64u(r.attestationObject),
          publicKey: b64u(r.getPublicKey()), alg: String(r.getPublicKeyAlgorithm())
        };
        if (r.getTransports) {
          f.transports = r.getTransports().join(',');
        }
        if (prfOf(cred)) {
          f.prf = prfOf(cred);
        }
        if (name && name.value) {
          f.name = name.value;
        }
        if (link) {
          f.link = link;
        }
        say('Saving…');
        return post(f);
      });
    }).then(function (j) {
      say(j.sealed ? 'Passkey added.'
          : !j.prf ? 'Passkey added (without a seal: this authenticator has no PRF).'
          : 'Passkey added. Sign in with your password, then this passkey.');
      if (link) {
        // The link is used: nothing on this page works with it again.
        var signin = document.getElementById('hsc-pk-signin');
        ['hsc-link-app', 'hsc-pk-name'].forEach(function (id) {
          var e = document.getElementById(id);
          if (e) {
            e.hidden = true;
          }
        });
        if (name && name.labels && name.labels[0]) {
          name.labels[0].hidden = true;
        }
        button.hidden = true;
        if (signin) {
          signin.hidden = false;
        }
        return;
      }
      window.location.assign(window.location.pathname + '?done=passkey');
    });
  }
  root.hidden = false;
  button.addEventListener('click', function () {
    say('');
    (mode === 'create' ? create() : login(mode)).catch(failed);
  });
  if (mode === 'login' && PublicKeyCredential.isConditionalMediationAvailable) {
    PublicKeyCredential.isConditionalMediationAvailable().then(function (yes) {
      if (yes) {
        login('login', 'conditional').catch(failed);
      }
    });
  }
}());
