#!/usr/bin/env python3
"""gen-wa-challenges.py: WebAuthn challenges (hsc_core/hsc_wa_challenge.h)
computed independently of the C code: Python's hashlib, hmac and struct.

    python3 test/vectors/gen-wa-challenges.py > test/vectors/vectors-wa-challenge.txt

A challenge is version(1)=1 | purpose(1) | issued ms (8, big-endian) |
nonce(16) | mac(16), where mac is the first 16 bytes of
HMAC-SHA256(Kc, "hsc-wa-challenge\\n" | the 26 bytes before it | user) and
Kc = HMAC-SHA256(key file secret, "hsc-webauthn-challenge-v1").

"challenge" blocks are accepted for their purpose and user at now_ms
(lifetime 300000 ms, skew 5000 ms) and give issued_ms; "refuse" blocks are
refused with the status named by why.
"""
import hashlib
import hmac
import struct

SECRET = bytes(range(32))
KID = "k1"
PURPOSES = {"register": 1, "second-factor": 2, "passwordless": 3}


def b64url(b):
    import base64
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def make(purpose, user, issued, nonce, secret=SECRET, version=1):
    kc = hmac.new(secret, b"hsc-webauthn-challenge-v1", hashlib.sha256).digest()
    signed = bytes([version, PURPOSES[purpose]]) + struct.pack(">Q", issued) + nonce
    mac = hmac.new(kc, b"hsc-wa-challenge\n" + signed + user.encode(),
                   hashlib.sha256).digest()[:16]
    return signed + mac


def block(kind, purpose, user, now, chal, **extra):
    print(kind)
    print("purpose = %s" % purpose)
    print("user = %s" % (user if user else "(empty)"))
    print("now_ms = %d" % now)
    print("challenge = %s" % chal.hex())
    for k, v in extra.items():
        print("%s = %s" % (k, v))
    print()


def main():
    print("# WebAuthn challenges, made by test/vectors/gen-wa-challenges.py (not by")
    print("# the C code). Key file line: %s %s" % (KID, b64url(SECRET)))
    print()
    n1 = hashlib.sha256(b"nonce 1").digest()[:16]
    n2 = hashlib.sha256(b"nonce 2").digest()[:16]
    t = 1764979200123
    block("challenge", "register", "alice", t + 1000,
          make("register", "alice", t, n1), issued_ms=t)
    block("challenge", "second-factor", "bob", t,
          make("second-factor", "bob", t, n2), issued_ms=t)
    block("challenge", "passwordless", "", t + 299999,
          make("passwordless", "", t, n1), issued_ms=t)
    block("refuse", "register", "alice", t + 300001,
          make("register", "alice", t, n1), why="expired")
    block("refuse", "register", "alice", t - 5001,
          make("register", "alice", t, n1), why="future")
    block("refuse", "register", "mallory", t,
          make("register", "alice", t, n1), why="badmac")
    block("refuse", "second-factor", "alice", t,
          make("register", "alice", t, n1), why="badmac")
    block("refuse", "register", "alice", t,
          make("register", "alice", t, n1, secret=bytes(32)), why="badmac")
    block("refuse", "register", "alice", t,
          make("register", "alice", t, n1, version=2), why="malformed")
    block("refuse", "register", "alice", t,
          make("register", "alice", t, n1)[:41], why="malformed")


main()
