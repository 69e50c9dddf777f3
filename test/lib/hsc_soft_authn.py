#!/usr/bin/python3
"""hsc_soft_authn.py: a software WebAuthn authenticator and client, and an
independent relying party, for mod_hsc's passkey tests.

Only the Python standard library and python3-cryptography (Debian's
38.0): its CBOR is written here (python3-cbor2 is not needed). Nothing
here calls mod_hsc: the verifier is a second implementation, so that a
test can check an assertion the module accepted with other code.

The client side takes the JSON options of docs/dev/passkeys.md's ceremony
contract (the endpoints' answers) and prints the form fields the page
would post. clientDataJSON is written exactly as Chrome writes it:
    {"type":"webauthn.create","challenge":"..","origin":"..","crossOrigin":false}
Attestation is "none" (fmt "none", attStmt {}), the AAGUID zero.

PRF: the WebAuthn PRF extension over CTAP2's hmac-secret, as both define
it: salt' = SHA-256("WebAuthn PRF" || 0x00 || salt), and
    z = HMAC-SHA-256(CredRandom, salt')
with one 32-byte CredRandom per credential (CTAP 2.1 keeps two, with and
without UV; this authenticator keeps one, so z does not depend on UV).

Usage (prints the form fields as one JSON object, or with --format form as
an application/x-www-form-urlencoded body):
  hsc_soft_authn.py register --state FILE --options JSON --origin URL
        [--alg -7|-8|-257] [--prf] [--no-uv] [--resident] [--name S] ...
  hsc_soft_authn.py assert --state FILE --options JSON --origin URL
        [--purpose login|second-factor] [--cred ID] [--prf] [--no-uv] ...
  hsc_soft_authn.py prf --state FILE --cred ID --salt B64URL   (z, base64url)
  hsc_soft_authn.py verify --spki B --alg N --authdata B --client-data B
        --signature B --rp-id S --origin URL --challenge B   (exit 0: valid)
  hsc_soft_authn.py selftest [--vectors test/vectors/vectors-webauthn.txt]
The state file is JSON: {"credentials": [...]} with each credential's id,
RP ID, algorithm, private key (PEM), SPKI, user handle, sign count and PRF
secret; a test may read it (Perl's JSON::PP) for the SPKI or the ids.
Knobs that tamper with a response are listed by `--help` of each command.
"""

import argparse
import base64
import hashlib
import hmac
import json
import os
import struct
import sys
import urllib.parse

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa

ALG_ES256, ALG_EDDSA, ALG_RS256 = -7, -8, -257
FLAG_UP, FLAG_UV, FLAG_BE, FLAG_BS, FLAG_AT, FLAG_ED = 0x01, 0x04, 0x08, 0x10, 0x40, 0x80
PRF_LABEL = b"WebAuthn PRF\x00"
# The contract's one salt for every credential.
CONTRACT_PRF_SALT = hashlib.sha256(b"hsc-prf-seal-v1").digest()


class VerifyError(Exception):
    """An assertion or registration the relying party refuses."""


# --- base64url ---------------------------------------------------------------

def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64u(text):
    if isinstance(text, bytes):
        text = text.decode("ascii")
    if "=" in text or "+" in text or "/" in text:
        raise ValueError("not unpadded base64url: %r" % text[:40])
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# --- CBOR (RFC 8949), the subset WebAuthn uses ---------------------------------

def _cbor_head(major, n):
    if n < 24:
        return bytes([major << 5 | n])
    if n < 0x100:
        return bytes([major << 5 | 24, n])
    if n < 0x10000:
        return bytes([major << 5 | 25]) + struct.pack(">H", n)
    if n < 0x100000000:
        return bytes([major << 5 | 26]) + struct.pack(">I", n)
    return bytes([major << 5 | 27]) + struct.pack(">Q", n)


def cbor_encode(v):
    """Shortest-form heads; map keys in CTAP2's canonical order (encoded
    length, then bytes), the order authenticators and Chrome write."""
    if v is True:
        return b"\xf5"
    if v is False:
        return b"\xf4"
    if v is None:
        return b"\xf6"
    if isinstance(v, int):
        return _cbor_head(0, v) if v >= 0 else _cbor_head(1, -1 - v)
    if isinstance(v, (bytes, bytearray)):
        return _cbor_head(2, len(v)) + bytes(v)
    if isinstance(v, str):
        b = v.encode("utf-8")
        return _cbor_head(3, len(b)) + b
    if isinstance(v, (list, tuple)):
        return _cbor_head(4, len(v)) + b"".join(cbor_encode(x) for x in v)
    if isinstance(v, dict):
        items = sorted(((cbor_encode(k), cbor_encode(x)) for k, x in v.items()),
                       key=lambda kv: (len(kv[0]), kv[0]))
        return _cbor_head(5, len(items)) + b"".join(k + x for k, x in items)
    raise TypeError("cannot encode %r" % type(v))


def cbor_decode_one(data, pos=0, depth=0):
    """One item at pos: (value, next pos). Definite lengths only."""
    if depth > 16:
        raise ValueError("CBOR nested too deep")
    if pos >= len(data):
        raise ValueError("CBOR truncated")
    ib = data[pos]
    major, info = ib >> 5, ib & 31
    pos += 1
    if info < 24:
        n = info
    elif info in (24, 25, 26, 27):
        size = 1 << (info - 24)
        if pos + size > len(data):
            raise ValueError("CBOR truncated")
        n = int.from_bytes(data[pos:pos + size], "big")
        pos += size
    else:
        raise ValueError("CBOR: unsupported head 0x%02x" % ib)
    if major == 0:
        return n, pos
    if major == 1:
        return -1 - n, pos
    if major in (2, 3):
        if pos + n > len(data):
            raise ValueError("CBOR truncated")
        raw = bytes(data[pos:pos + n])
        return (raw if major == 2 else raw.decode("utf-8")), pos + n
    if major == 4:
        out = []
        for _ in range(n):
            x, pos = cbor_decode_one(data, pos, depth + 1)
            out.append(x)
        return out, pos
    if major == 5:
        out = {}
        for _ in range(n):
            k, pos = cbor_decode_one(data, pos, depth + 1)
            x, pos = cbor_decode_one(data, pos, depth + 1)
            if k in out:
                raise ValueError("CBOR: a map key twice")
            out[k] = x
        return out, pos
    if major == 7 and info in (20, 21, 22):
        return {20: False, 21: True, 22: None}[info], pos
    raise ValueError("CBOR: unsupported major type %d" % major)


def cbor_decode(data):
    v, pos = cbor_decode_one(data)
    if pos != len(data):
        raise ValueError("CBOR: %d bytes after the item" % (len(data) - pos))
    return v


# --- keys ----------------------------------------------------------------------

def new_private_key(alg):
    if alg == ALG_ES256:
        return ec.generate_private_key(ec.SECP256R1())
    if alg == ALG_EDDSA:
        return ed25519.Ed25519PrivateKey.generate()
    if alg == ALG_RS256:
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)
    raise ValueError("unsupported alg %d" % alg)


def cose_key(pub, alg):
    if alg == ALG_ES256:
        nums = pub.public_numbers()
        return {1: 2, 3: ALG_ES256, -1: 1,
                -2: nums.x.to_bytes(32, "big"), -3: nums.y.to_bytes(32, "big")}
    if alg == ALG_EDDSA:
        raw = pub.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return {1: 1, 3: ALG_EDDSA, -1: 6, -2: raw}
    if alg == ALG_RS256:
        nums = pub.public_numbers()
        n = nums.n.to_bytes((nums.n.bit_length() + 7) // 8, "big")
        e = nums.e.to_bytes((nums.e.bit_length() + 7) // 8, "big")
        return {1: 3, 3: ALG_RS256, -1: n, -2: e}
    raise ValueError("unsupported alg %d" % alg)


def spki_of(pub):
    return pub.public_bytes(serialization.Encoding.DER,
                            serialization.PublicFormat.SubjectPublicKeyInfo)


def public_key_from_cose(m):
    """The public key of a COSE_Key map, for the three algorithms only."""
    kty, alg = m.get(1), m.get(3)
    if kty == 2 and alg == ALG_ES256 and m.get(-1) == 1:
        x, y = m[-2], m[-3]
        if len(x) != 32 or len(y) != 32:
            raise VerifyError("EC2 coordinates are not 32 bytes")
        return ec.EllipticCurvePublicNumbers(int.from_bytes(x, "big"), int.from_bytes(y, "big"),
                                             ec.SECP256R1()).public_key(), alg
    if kty == 1 and alg == ALG_EDDSA and m.get(-1) == 6:
        return ed25519.Ed25519PublicKey.from_public_bytes(m[-2]), alg
    if kty == 3 and alg == ALG_RS256:
        return rsa.RSAPublicNumbers(int.from_bytes(m[-2], "big"),
                                    int.from_bytes(m[-1], "big")).public_key(), alg
    raise VerifyError("unsupported COSE key (kty %r, alg %r)" % (kty, alg))


def sign(priv, alg, msg):
    if alg == ALG_ES256:
        return priv.sign(msg, ec.ECDSA(hashes.SHA256()))
    if alg == ALG_EDDSA:
        return priv.sign(msg)
    if alg == ALG_RS256:
        return priv.sign(msg, padding.PKCS1v15(), hashes.SHA256())
    raise ValueError("unsupported alg %d" % alg)


# --- the independent relying party ---------------------------------------------

def parse_auth_data(ad):
    """authenticatorData (WebAuthn §6.1) as a dict; attested credential
    data and extensions decoded when their flags say so."""
    if len(ad) < 37:
        raise VerifyError("authenticatorData shorter than 37 bytes")
    out = {"rp_id_hash": ad[:32], "flags": ad[32],
           "sign_count": struct.unpack(">I", ad[33:37])[0]}
    pos = 37
    if ad[32] & FLAG_AT:
        if len(ad) < pos + 18:
            raise VerifyError("attested credential data truncated")
        out["aaguid"] = ad[pos:pos + 16]
        idlen = struct.unpack(">H", ad[pos + 16:pos + 18])[0]
        pos += 18
        out["cred_id"] = ad[pos:pos + idlen]
        if len(out["cred_id"]) != idlen:
            raise VerifyError("credential id truncated")
        pos += idlen
        try:
            out["cose_key"], pos = cbor_decode_one(ad, pos)
        except ValueError as e:
            raise VerifyError("COSE key: %s" % e)
    if ad[32] & FLAG_ED:
        try:
            out["extensions"], pos = cbor_decode_one(ad, pos)
        except ValueError as e:
            raise VerifyError("extensions: %s" % e)
    if pos != len(ad):
        raise VerifyError("%d bytes after authenticatorData" % (len(ad) - pos))
    return out


def check_client_data(client_data_json, typ, origin, challenge):
    """The full JSON parse (not the limited algorithm the module uses:
    a second reading of the same bytes)."""
    try:
        cd = json.loads(client_data_json.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise VerifyError("clientDataJSON is not JSON: %s" % e)
    if not isinstance(cd, dict):
        raise VerifyError("clientDataJSON is not an object")
    if cd.get("type") != typ:
        raise VerifyError("clientDataJSON type %r, not %r" % (cd.get("type"), typ))
    if not hmac.compare_digest(str(cd.get("challenge", "")), b64u(challenge)):
        raise VerifyError("clientDataJSON challenge differs")
    if cd.get("origin") != origin:
        raise VerifyError("clientDataJSON origin %r, not %r" % (cd.get("origin"), origin))
    if cd.get("crossOrigin", False) is not False:
        raise VerifyError("clientDataJSON crossOrigin is not false")
    if "topOrigin" in cd:
        raise VerifyError("clientDataJSON has a topOrigin")
    return cd


def verify_assertion(spki, alg, auth_data, client_data_json, signature, rp_id, origin,
                     challenge, require_uv=False):
    """WebAuthn §7.2 for one credential whose SPKI and alg the RP stored.
    Returns the parsed authenticatorData; raises VerifyError."""
    check_client_data(client_data_json, "webauthn.get", origin, challenge)
    ad = parse_auth_data(auth_data)
    if not hmac.compare_digest(ad["rp_id_hash"], hashlib.sha256(rp_id.encode()).digest()):
        raise VerifyError("rpIdHash is not SHA-256(%r)" % rp_id)
    if not ad["flags"] & FLAG_UP:
        raise VerifyError("UP flag not set")
    if require_uv and not ad["flags"] & FLAG_UV:
        raise VerifyError("UV flag not set")
    if ad["flags"] & FLAG_BS and not ad["flags"] & FLAG_BE:
        raise VerifyError("BS without BE")
    if ad["flags"] & FLAG_AT:
        raise VerifyError("an assertion with attested credential data")
    try:
        pub = serialization.load_der_public_key(spki)
    except ValueError as e:
        raise VerifyError("SPKI: %s" % e)
    msg = auth_data + hashlib.sha256(client_data_json).digest()
    try:
        if alg == ALG_ES256 and isinstance(pub, ec.EllipticCurvePublicKey) \
                and pub.curve.name == "secp256r1":
            pub.verify(signature, msg, ec.ECDSA(hashes.SHA256()))
        elif alg == ALG_EDDSA and isinstance(pub, ed25519.Ed25519PublicKey):
            pub.verify(signature, msg)
        elif alg == ALG_RS256 and isinstance(pub, rsa.RSAPublicKey) and pub.key_size >= 2048:
            pub.verify(signature, msg, padding.PKCS1v15(), hashes.SHA256())
        else:
            raise VerifyError("key type does not fit alg %d" % alg)
    except InvalidSignature:
        raise VerifyError("signature does not verify")
    return ad


def verify_registration(attestation_object, client_data_json, rp_id, origin, challenge):
    """WebAuthn §7.1 with attestation none (the statement unread). Returns
    (credential id, SPKI DER, alg, parsed authData)."""
    check_client_data(client_data_json, "webauthn.create", origin, challenge)
    try:
        att = cbor_decode(attestation_object)
    except ValueError as e:
        raise VerifyError("attestationObject: %s" % e)
    if not isinstance(att, dict) or not isinstance(att.get("authData"), bytes):
        raise VerifyError("attestationObject has no authData")
    ad = parse_auth_data(att["authData"])
    if not hmac.compare_digest(ad["rp_id_hash"], hashlib.sha256(rp_id.encode()).digest()):
        raise VerifyError("rpIdHash is not SHA-256(%r)" % rp_id)
    if not ad["flags"] & FLAG_UP or not ad["flags"] & FLAG_AT:
        raise VerifyError("UP or AT flag not set")
    pub, alg = public_key_from_cose(ad["cose_key"])
    return ad["cred_id"], spki_of(pub), alg, ad


# --- the authenticator and client ------------------------------------------------

def prf_eval(cred_random, salt):
    """WebAuthn PRF over hmac-secret (see the module docstring)."""
    return hmac.new(cred_random, hashlib.sha256(PRF_LABEL + salt).digest(),
                    hashlib.sha256).digest()


def client_data(typ, challenge_b64, origin, cross_origin=False, extra=False):
    """Byte for byte as Chrome serialises it (CollectedClientData, §5.8.1.1)."""
    s = '{"type":%s,"challenge":%s,"origin":%s,"crossOrigin":%s' % (
        json.dumps(typ), json.dumps(challenge_b64), json.dumps(origin),
        "true" if cross_origin else "false")
    if extra:
        # Chrome adds this now and then so that nobody compares templates.
        s += ',"other_keys_can_be_added_here":"do not compare clientDataJSON against ' \
             'a template. See https://goo.gl/yabPex"'
    return (s + "}").encode("utf-8")


def auth_data_bytes(rp_id, flags, count, attested=None, extensions=None):
    out = hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", count)
    if attested is not None:
        aaguid, cred_id, cose = attested
        out += aaguid + struct.pack(">H", len(cred_id)) + cred_id + cbor_encode(cose)
    if extensions is not None:
        out += cbor_encode(extensions)
    return out


class State:
    def __init__(self, path):
        self.path = path
        self.data = {"credentials": []}
        if path and os.path.exists(path):
            with open(path) as f:
                self.data = json.load(f)

    def save(self):
        if not self.path:
            return
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.data, f, indent=1, sort_keys=True)
        os.replace(tmp, self.path)

    def creds(self):
        return self.data["credentials"]

    def find(self, cred_id_b64):
        for c in self.creds():
            if c["id"] == cred_id_b64:
                return c
        raise SystemExit("hsc_soft_authn: no credential %s in %s" % (cred_id_b64, self.path))


def split_ids(v):
    if v is None:
        return []
    if isinstance(v, list):
        return [x["id"] if isinstance(x, dict) else x for x in v]
    return [x for x in str(v).split() if x]


def register(state, options, origin, alg=ALG_ES256, prf=False, uv=True, resident=False,
             name=None, backup=False, counter=0, transports=None, extensions=True,
             t=None):
    """navigator.credentials.create() with the contract's options; returns
    the form fields of `hsc_passkey=create` and stores the credential.
    t: tampering knobs (dict): origin, type, rp_id, cross_origin, challenge,
    flags_set, flags_clear, public_key_alg (another key's SPKI), extra."""
    t = t or {}
    rp_id = options["rpId"]
    for ex in split_ids(options.get("excludeCredentials")):
        if any(c["id"] == ex and c["rp_id"] == rp_id for c in state.creds()) \
                and not t.get("ignore_exclude"):
            raise SystemExit("hsc_soft_authn: InvalidStateError (excluded credential %s)" % ex)
    priv = new_private_key(alg)
    pub = priv.public_key()
    cred_id = os.urandom(32)
    cred_random = os.urandom(32)
    flags = FLAG_UP | FLAG_AT | (FLAG_UV if uv else 0) | (FLAG_BE | FLAG_BS if backup else 0)
    exts = None
    if prf and extensions:
        exts = {"hmac-secret": True}  # what a CTAP2 authenticator answers at create
        flags |= FLAG_ED
    flags = (flags | t.get("flags_set", 0)) & ~t.get("flags_clear", 0) & 0xFF
    ad = auth_data_bytes(t.get("rp_id", rp_id), flags, counter,
                         (b"\0" * 16, cred_id, cose_key(pub, alg)), exts)
    att = cbor_encode({"fmt": "none", "attStmt": {}, "authData": ad})
    chal = t.get("challenge", options["challenge"])
    cdj = client_data(t.get("type", "webauthn.create"), chal, t.get("origin", origin),
                      t.get("cross_origin", False), t.get("extra", False))
    spki = spki_of(pub)
    if t.get("public_key_alg"):
        spki = spki_of(new_private_key(t["public_key_alg"]).public_key())
    fields = {"hsc_passkey": "create", "challenge": options["challenge"], "id": b64u(cred_id),
              "clientDataJSON": b64u(cdj), "attestationObject": b64u(att),
              "publicKey": b64u(spki), "alg": str(alg),
              "transports": transports or ("internal,hybrid" if resident else "usb")}
    if name:
        fields["name"] = name
    z = None
    if prf:
        salt = unb64u(options["prfSalt"]) if options.get("prfSalt") else CONTRACT_PRF_SALT
        z = prf_eval(cred_random, salt)
        fields["prf"] = b64u(z)
    state.creds().append({
        "id": b64u(cred_id), "rp_id": rp_id, "alg": alg,
        "private_pem": priv.private_bytes(serialization.Encoding.PEM,
                                          serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()).decode(),
        "spki": b64u(spki_of(pub)), "user_handle": options.get("userId"),
        "user_name": options.get("userName"), "resident": bool(resident),
        "sign_count": counter, "counter_step": 0 if counter == 0 and t.get("zero_counter") else 1,
        "prf_secret": b64u(cred_random), "prf": bool(prf), "uv": bool(uv),
        "backup": bool(backup), "name": name})
    state.save()
    return fields


def assertion(state, options, origin, purpose="login", cred=None, prf=False, uv=True,
              extensions=True, t=None):
    """navigator.credentials.get() with the contract's options; returns the
    form fields of `hsc_passkey=assert`. t: tampering knobs (dict):
    origin, type, rp_id, cross_origin, challenge (in clientDataJSON),
    field_challenge (the form field), flags_set, flags_clear, counter,
    bad_signature, user_handle, no_user_handle, prf (bytes), id, extra."""
    t = t or {}
    rp_id = options["rpId"]
    allow = split_ids(options.get("allowCredentials"))
    mine = [c for c in state.creds() if c["rp_id"] == rp_id]
    if cred:
        c = state.find(cred)
    elif allow:
        cands = [c for c in mine if c["id"] in allow]
        if not cands:
            raise SystemExit("hsc_soft_authn: NotAllowedError (no allowed credential here)")
        c = cands[-1]
    else:
        cands = [c for c in mine if c["resident"]]
        if not cands:
            raise SystemExit("hsc_soft_authn: NotAllowedError (no discoverable credential)")
        c = cands[-1]
    alg = c["alg"]
    priv = serialization.load_pem_private_key(c["private_pem"].encode(), None)
    c["sign_count"] += c.get("counter_step", 1)
    count = t.get("counter", c["sign_count"])
    # A count forced higher moves the authenticator on (it never goes back).
    c["sign_count"] = max(c["sign_count"], count)
    flags = FLAG_UP | (FLAG_UV if uv else 0) | (FLAG_BE | FLAG_BS if c.get("backup") else 0)
    z = None
    exts = None
    if prf and c.get("prf"):
        salt = unb64u(options["prfSalt"]) if options.get("prfSalt") else CONTRACT_PRF_SALT
        z = prf_eval(unb64u(c["prf_secret"]), salt)
        if extensions:
            # hmac-secret's output is encrypted to the platform's shared
            # secret in CTAP: opaque bytes to the RP.
            exts = {"hmac-secret": hashlib.sha256(b"opaque" + z).digest()}
            flags |= FLAG_ED
    flags = (flags | t.get("flags_set", 0)) & ~t.get("flags_clear", 0) & 0xFF
    ad = auth_data_bytes(t.get("rp_id", rp_id), flags, count, None, exts)
    chal = t.get("challenge", options["challenge"])
    cdj = client_data(t.get("type", "webauthn.get"), chal, t.get("origin", origin),
                      t.get("cross_origin", False), t.get("extra", False))
    sig = sign(priv, alg, ad + hashlib.sha256(cdj).digest())
    if t.get("bad_signature"):
        sig = bytearray(sig)
        sig[len(sig) // 2] ^= 0x01
        sig = bytes(sig)
    fields = {"hsc_passkey": "assert", "purpose": purpose,
              "challenge": t.get("field_challenge", options["challenge"]),
              "id": t.get("id", c["id"]), "clientDataJSON": b64u(cdj),
              "authenticatorData": b64u(ad), "signature": b64u(sig)}
    uh = t.get("user_handle", c.get("user_handle") if c.get("resident") else None)
    if uh and not t.get("no_user_handle"):
        fields["userHandle"] = uh
    if "prf" in t:
        if t["prf"] is not None:
            fields["prf"] = b64u(t["prf"])
    elif z is not None:
        fields["prf"] = b64u(z)
    state.save()
    return fields


# --- the W3C vectors (self-test) --------------------------------------------------

def read_vectors(path):
    out, cur = [], None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line == "vector":
                cur = {}
                out.append(cur)
                continue
            k, _, v = line.partition(" = ")
            cur[k] = v
    return out


def selftest(vectors_path):
    """TAP: the verifier against W3C WebAuthn Level 3's vectors, then the
    authenticator's own outputs through the verifier and tampered ones
    refused. Returns the number of failures."""
    results = []

    def ok(cond, what):
        results.append((bool(cond), what))

    def refused(fn, what):
        try:
            fn()
        except VerifyError as e:
            ok(True, "%s refused (%s)" % (what, e))
            return
        ok(False, "%s refused" % what)

    # The W3C vectors: all with RP ID example.org at https://example.org.
    want = {"none-es256": True, "none-es256-crossOrigin": False,
            "none-es256-topOrigin": False, "none-es256-long-credential-id": True,
            "packed-es256": True, "packed-rs256": True, "packed-eddsa": True,
            "packed-es384": False}
    vecs = read_vectors(vectors_path)
    ok(sorted(v["name"] for v in vecs) == sorted(want), "the vector file names the 8 vectors")
    for v in vecs:
        h = {k: bytes.fromhex(x) for k, x in v.items() if k != "name"}
        name = v["name"]
        try:
            cid, spki, alg, ad = verify_registration(h["attestation"], h["reg_client_data"],
                                                     "example.org", "https://example.org",
                                                     h["reg_challenge"])
            verify_assertion(spki, alg, h["auth_data"], h["auth_client_data"], h["signature"],
                             "example.org", "https://example.org", h["auth_challenge"])
            got, why = True, "alg %d, id %d bytes" % (alg, len(cid))
            # And the signature is what makes it valid: one bit of the
            # sign count changed.
            bad = bytearray(h["auth_data"])
            bad[-1] ^= 1
            refused(lambda: verify_assertion(spki, alg, bytes(bad), h["auth_client_data"],
                                             h["signature"], "example.org", "https://example.org",
                                             h["auth_challenge"]),
                    "W3C %s with its sign count changed" % name)
            refused(lambda: verify_assertion(spki, alg, h["auth_data"], h["auth_client_data"],
                                             h["signature"], "example.com",
                                             "https://example.org", h["auth_challenge"]),
                    "W3C %s for RP ID example.com" % name)
        except VerifyError as e:
            got, why = False, str(e)
        ok(got == want.get(name), "W3C %s: %s (%s)" % (name, "valid" if got else "refused", why))

    # Our own authenticator, each algorithm, through our own RP.
    st = State(None)
    rp, origin = "localhost", "http://localhost:8529"
    for alg in (ALG_ES256, ALG_EDDSA, ALG_RS256):
        chal = os.urandom(32)
        opts = {"challenge": b64u(chal), "rpId": rp, "userId": b64u(os.urandom(32)),
                "userName": "alice", "prfSalt": b64u(CONTRACT_PRF_SALT)}
        f = register(st, opts, origin, alg=alg, prf=True, resident=True)
        cdj = unb64u(f["clientDataJSON"])
        ok(cdj == ('{"type":"webauthn.create","challenge":"%s","origin":"%s",'
                   '"crossOrigin":false}' % (b64u(chal), origin)).encode(),
           "alg %d: clientDataJSON is Chrome's serialisation" % alg)
        cid, spki, alg2, ad = verify_registration(unb64u(f["attestationObject"]), cdj, rp,
                                                  origin, chal)
        ok(b64u(cid) == f["id"] and b64u(spki) == f["publicKey"] and alg2 == alg,
           "alg %d: the attestation's COSE key is getPublicKey()'s SPKI" % alg)
        ok(ad["extensions"] == {"hmac-secret": True} and ad["flags"] & FLAG_UV,
           "alg %d: UV and hmac-secret at create" % alg)
        # Assertions: valid, then one tamper at a time.
        for knob, what in ((None, None), ({"origin": "http://localhost:1"}, "another origin"),
                           ({"type": "webauthn.create"}, "type webauthn.create"),
                           ({"rp_id": "example.org"}, "another rpIdHash"),
                           ({"cross_origin": True}, "crossOrigin true"),
                           ({"flags_clear": FLAG_UP}, "UP clear"),
                           ({"bad_signature": True}, "a signature bit flipped"),
                           ({"challenge": b64u(os.urandom(32))}, "another challenge"),
                           ({"flags_clear": FLAG_UV}, "UV clear (UV required)")):
            chal = os.urandom(32)
            o = {"challenge": b64u(chal), "rpId": rp, "prfSalt": b64u(CONTRACT_PRF_SALT)}
            a = assertion(st, o, origin, prf=True, t=knob)

            def check(a=a, chal=chal):
                return verify_assertion(spki, alg, unb64u(a["authenticatorData"]),
                                        unb64u(a["clientDataJSON"]), unb64u(a["signature"]),
                                        rp, origin, chal, require_uv=True)
            if knob is None:
                try:
                    ad = check()
                    ok(True, "alg %d: an assertion verifies (count %d)" % (alg, ad["sign_count"]))
                except VerifyError as e:
                    ok(False, "alg %d: an assertion verifies (%s)" % (alg, e))
                c = st.find(f["id"])
                ok(a["prf"] == f["prf"] == b64u(prf_eval(unb64u(c["prf_secret"]),
                                                         CONTRACT_PRF_SALT))
                   and a["userHandle"] == opts["userId"],
                   "alg %d: the same z at create and get, and the user handle" % alg)
            else:
                refused(check, "alg %d: %s" % (alg, what))
    # hmac-secret's salt derivation, computed here by hand once more.
    ok(prf_eval(b"\x01" * 32, b"\x02" * 32) ==
       hmac.new(b"\x01" * 32, hashlib.sha256(b"WebAuthn PRF\x00" + b"\x02" * 32).digest(),
                hashlib.sha256).digest(), "PRF: HMAC(CredRandom, SHA-256(label||0||salt))")
    ok(cbor_decode(cbor_encode({"fmt": "none", "attStmt": {}, "authData": b"x"}))
       == {"fmt": "none", "attStmt": {}, "authData": b"x"}
       and cbor_encode({"fmt": "none", "attStmt": {}, "authData": b""})[:20]
       == bytes.fromhex("a363666d74646e6f6e656761747453746d74a068"),
       "CBOR: the attestation object's canonical key order (as the W3C vectors)")
    print("1..%d" % len(results))
    fails = 0
    for i, (good, what) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if good else "not ok", i, what))
        fails += not good
    return fails


# --- CLI ---------------------------------------------------------------------------

def _int(s):
    return int(s, 0)


def _tamper_args(p):
    g = p.add_argument_group("tampering")
    g.add_argument("--bad-origin", help="clientDataJSON origin instead of --origin")
    g.add_argument("--bad-type", help="clientDataJSON type")
    g.add_argument("--bad-rp-id", help="rpIdHash of this RP ID instead")
    g.add_argument("--cross-origin", action="store_true", help="crossOrigin true")
    g.add_argument("--client-challenge", help="challenge written into clientDataJSON")
    g.add_argument("--flags-set", type=_int, default=0)
    g.add_argument("--flags-clear", type=_int, default=0)
    g.add_argument("--extra-client-data", action="store_true",
                   help="Chrome's other_keys_can_be_added_here member")


def _tamper(a):
    t = {}
    if a.bad_origin:
        t["origin"] = a.bad_origin
    if a.bad_type:
        t["type"] = a.bad_type
    if a.bad_rp_id:
        t["rp_id"] = a.bad_rp_id
    if a.cross_origin:
        t["cross_origin"] = True
    if a.client_challenge:
        t["challenge"] = a.client_challenge
    t["flags_set"], t["flags_clear"] = a.flags_set, a.flags_clear
    t["extra"] = a.extra_client_data
    return t


def _print(fields, fmt, extra=None):
    if fmt == "form":
        print(urllib.parse.urlencode(fields))
    else:
        print(json.dumps(fields, sort_keys=True))


def _options(s):
    if s.startswith("@"):
        with open(s[1:]) as f:
            s = f.read()
    return json.loads(s)


# Options whose value is base64url, which may begin with '-': argparse
# would read "--cred -abc" as a missing value, so they are joined as
# "--cred=-abc" before parsing (a credential id is random: 1 in 64 do).
B64_VALUE_OPTIONS = ("--cred", "--user-handle", "--id", "--bad-prf",
                     "--field-challenge", "--client-challenge", "--salt")


def _join_b64_values(argv):
    out, i = [], 0
    while i < len(argv):
        if argv[i] in B64_VALUE_OPTIONS and i + 1 < len(argv):
            out.append(argv[i] + "=" + argv[i + 1])
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def main(argv):
    argv = _join_b64_values(list(argv))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)

    r = sub.add_parser("register", help="a create() response: the fields of hsc_passkey=create")
    r.add_argument("--state", required=True)
    r.add_argument("--options", required=True, help="the options JSON (or @FILE)")
    r.add_argument("--origin", required=True)
    r.add_argument("--alg", type=int, default=ALG_ES256, choices=(ALG_ES256, ALG_EDDSA, ALG_RS256))
    r.add_argument("--prf", action="store_true", help="PRF supported: prf = results.first")
    r.add_argument("--no-uv", action="store_true", help="UV flag clear")
    r.add_argument("--resident", action="store_true", help="a discoverable credential")
    r.add_argument("--backup", action="store_true", help="BE and BS set")
    r.add_argument("--counter", type=int, default=0, help="sign count at creation")
    r.add_argument("--zero-counter", action="store_true", help="the count stays 0 (synced keys)")
    r.add_argument("--name")
    r.add_argument("--transports")
    r.add_argument("--no-extensions", action="store_true", help="no hmac-secret in authData")
    r.add_argument("--ignore-exclude", action="store_true")
    r.add_argument("--wrong-public-key", type=int, metavar="ALG",
                   help="publicKey: another key's SPKI (of this alg)")
    r.add_argument("--format", choices=("json", "form"), default="json")
    _tamper_args(r)

    s = sub.add_parser("assert", help="a get() response: the fields of hsc_passkey=assert")
    s.add_argument("--state", required=True)
    s.add_argument("--options", required=True, help="the options JSON (or @FILE)")
    s.add_argument("--origin", required=True)
    s.add_argument("--purpose", default="login", help="login or second-factor")
    s.add_argument("--cred", help="this credential id (default: the allowed or resident one)")
    s.add_argument("--prf", action="store_true", help="send prf (when the credential has it)")
    s.add_argument("--no-uv", action="store_true")
    s.add_argument("--no-extensions", action="store_true")
    s.add_argument("--counter", type=int, help="this sign count instead of the next")
    s.add_argument("--bad-signature", action="store_true")
    s.add_argument("--user-handle", help="this userHandle (base64url)")
    s.add_argument("--no-user-handle", action="store_true")
    s.add_argument("--bad-prf", help="this prf (base64url) instead of z; '' for none")
    s.add_argument("--id", help="this id field instead of the credential's")
    s.add_argument("--field-challenge", help="this challenge form field")
    s.add_argument("--format", choices=("json", "form"), default="json")
    _tamper_args(s)

    p = sub.add_parser("prf", help="z of a stored credential for a salt (base64url)")
    p.add_argument("--state", required=True)
    p.add_argument("--cred", required=True)
    p.add_argument("--salt", default=b64u(CONTRACT_PRF_SALT))

    v = sub.add_parser("verify", help="the independent RP: exit 0 when the assertion verifies")
    for k in ("spki", "authdata", "client-data", "signature", "rp-id", "origin", "challenge"):
        v.add_argument("--" + k, required=True)
    v.add_argument("--alg", type=int, required=True)
    v.add_argument("--require-uv", action="store_true")

    t = sub.add_parser("selftest", help="TAP: W3C vectors and the tool's own outputs")
    t.add_argument("--vectors", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "..", "vectors", "vectors-webauthn.txt"))
    a = ap.parse_args(argv)

    if a.cmd == "register":
        tk = _tamper(a)
        if a.ignore_exclude:
            tk["ignore_exclude"] = True
        if a.zero_counter:
            tk["zero_counter"] = True
        if a.wrong_public_key:
            tk["public_key_alg"] = a.wrong_public_key
        f = register(State(a.state), _options(a.options), a.origin, alg=a.alg, prf=a.prf,
                     uv=not a.no_uv, resident=a.resident, name=a.name, backup=a.backup,
                     counter=a.counter, transports=a.transports,
                     extensions=not a.no_extensions, t=tk)
        _print(f, a.format)
    elif a.cmd == "assert":
        tk = _tamper(a)
        if a.counter is not None:
            tk["counter"] = a.counter
        if a.bad_signature:
            tk["bad_signature"] = True
        if a.user_handle:
            tk["user_handle"] = a.user_handle
        if a.no_user_handle:
            tk["no_user_handle"] = True
        if a.bad_prf is not None:
            tk["prf"] = unb64u(a.bad_prf) if a.bad_prf else None
        if a.id:
            tk["id"] = a.id
        if a.field_challenge:
            tk["field_challenge"] = a.field_challenge
        f = assertion(State(a.state), _options(a.options), a.origin, purpose=a.purpose,
                      cred=a.cred, prf=a.prf, uv=not a.no_uv,
                      extensions=not a.no_extensions, t=tk)
        _print(f, a.format)
    elif a.cmd == "prf":
        c = State(a.state).find(a.cred)
        print(b64u(prf_eval(unb64u(c["prf_secret"]), unb64u(a.salt))))
    elif a.cmd == "verify":
        try:
            ad = verify_assertion(unb64u(a.spki), a.alg, unb64u(a.authdata),
                                  unb64u(a.client_data), unb64u(a.signature), a.rp_id, a.origin,
                                  unb64u(a.challenge), require_uv=a.require_uv)
        except VerifyError as e:
            print("refused: %s" % e)
            return 1
        print("valid: flags 0x%02x, sign count %d" % (ad["flags"], ad["sign_count"]))
    elif a.cmd == "selftest":
        return 1 if selftest(a.vectors) else 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
