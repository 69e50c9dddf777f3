#!/bin/sh
# soft-authn.sh: the passkey tests' software authenticator and independent
# relying party (test/lib/hsc_soft_authn.py) check themselves: its verifier
# against WebAuthn Level 3's own vectors
# (test/vectors/vectors-webauthn.txt), its authenticator's responses for
# ES256, EdDSA and RS256 through that verifier, and each tampering knob refused. Prints TAP.
cd "$(dirname "$0")/../.." || exit 1
# Debian's interpreter: python3-cryptography is on its path, not another's.
py=/usr/bin/python3
if ! $py -c 'import cryptography' 2>/dev/null; then
    echo "1..1"
    echo "not ok 1 - soft authenticator: python3-cryptography is missing (scripts/install-deps-debian.sh --test)"
    exit 0
fi
$py test/lib/hsc_soft_authn.py selftest --vectors test/vectors/vectors-webauthn.txt
