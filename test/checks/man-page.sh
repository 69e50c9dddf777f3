#!/bin/sh
# check-man-page.sh: docs/hsc-admin.1 and docs/hsc-admin.md name the same
# commands and the same options, so the manual page cannot fall behind the
# reference unnoticed. Cheap on purpose: it compares names, not prose.
# Prints TAP.
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# "\-" is a dash; '.BR "hsc-admin del" | disable' is the md's "del|disable".
sed 's/\\-/-/g; s/"* | /|/g' docs/hsc-admin.1 >"$tmp/man"
# "--name" is the md's placeholder in "--name value", not an option.
opts() { grep -o -- '--[a-z][a-z-]*[a-z]' "$1" | grep -vx -- '--name' | sort -u; }
# Commands as the synopses write them: "hsc-admin del|disable|...".
cmds() {
    grep -o 'hsc-admin [a-z][a-z|]*' "$1" | sed 's/^hsc-admin //' |
        tr '|' '\n' | grep -vx keeps | sort -u
}
echo 1..2
n=0
for kind in opts cmds; do
    n=$((n + 1))
    $kind "$tmp/man" >"$tmp/a"
    $kind docs/hsc-admin.md >"$tmp/b"
    if diff "$tmp/a" "$tmp/b" >"$tmp/d"; then
        echo "ok $n - hsc-admin.1 and hsc-admin.md name the same $kind"
    else
        echo "not ok $n - hsc-admin.1 (<) and hsc-admin.md (>) differ in $kind"
        sed 's/^/# /' "$tmp/d"
        fail=1
    fi
done
exit ${fail:-0}
