#!/bin/sh
# vectors-v2.sh: format 2's test vectors (test/vectors/vectors-v2.txt) are
# what the independent script test/vectors/gen-vectors-v2.py computes, that
# script computes format 1's committed cookies exactly (so the parts the
# formats share are right), and its TOTP codes are RFC 6238's appendix B
# (SHA-1). Prints TAP.
cd "$(dirname "$0")/../.." || exit 1
echo "1..3"
gen=test/vectors/gen-vectors-v2.py
if out=$(python3 "$gen" --check-v1 test/vectors/vectors-v1.txt); then
    echo "ok 1 - the script recomputes format 1's cookies ($out)"
else
    echo "not ok 1 - the script recomputes format 1's cookies ($out)"
fi
if python3 "$gen" | cmp -s - test/vectors/vectors-v2.txt; then
    echo "ok 2 - test/vectors/vectors-v2.txt is what $gen prints"
else
    echo "not ok 2 - test/vectors/vectors-v2.txt is what $gen prints (run it again)"
fi
# RFC 6238, appendix B: T (seconds) and the 8-digit SHA-1 code.
want="59:94287082 1111111109:07081804 1111111111:14050471 1234567890:89005924 2000000000:69279037 20000000000:65353130"
got=$(awk '/^time = / { t = $3 } /^code8 = / { printf "%s%s:%s", s, t, $3; s = " " }' test/vectors/vectors-v2.txt)
if [ "$got" = "$want" ]; then
    echo "ok 3 - the TOTP codes are RFC 6238's appendix B (SHA-1)"
else
    echo "not ok 3 - the TOTP codes are RFC 6238's appendix B (got: $got)"
fi
