#!/bin/sh
# check-format.sh: every C file of the project is as clang-format (with the
# tree's .clang-format) writes it, so a change never mixes a reformat with
# its substance. To fix a file: clang-format -i FILE.
# TAP, one line; needs clang-format (Debian: apt-get install clang-format).
top=$(cd "$(dirname "$0")/../.." && pwd)
cf=${CLANG_FORMAT:-clang-format}
echo "1..1"
if ! command -v "$cf" >/dev/null 2>&1; then
    echo "not ok 1 - clang-format not installed (Debian: apt-get install clang-format)"
    exit 1
fi
cd "$top" || exit 1
# The layout differs between clang-format releases: the tree is kept as
# Debian 12's clang-format 14 writes it.
major=$("$cf" --version | sed -n 's/.*version \([0-9]*\).*/\1/p')
if [ "$major" != 14 ]; then
    echo "ok 1 # SKIP the tree is formatted by clang-format 14; this is $major"
    exit 0
fi
# The tracked files: a tarball's tree has no list of them (and has config.h).
files=$(git ls-files '*.c' '*.h' 2>/dev/null)
if [ -z "$files" ]; then
    echo "ok 1 # SKIP not a git checkout"
    exit 0
fi
bad=""
for f in $files; do
    if ! "$cf" --style=file "$f" | cmp -s - "$f"; then
        bad="$bad $f"
    fi
done
if [ -n "$bad" ]; then
    echo "not ok 1 - not as clang-format writes them:$bad"
    for f in $bad; do
        "$cf" --style=file "$f" | diff -u "$f" - | head -n 20 | sed 's/^/# /'
    done
    exit 1
fi
echo "ok 1 - every C file is as clang-format writes it ($("$cf" --version | sed 's/.*version //'))"
