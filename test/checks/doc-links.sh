#!/bin/sh
# check-doc-links.sh: every relative link in every tracked .md file names a
# file that exists, so moving a page cannot leave a dead link. Anchors are
# not checked (GitHub and pandoc slug headings differently). Prints TAP.
cd "$(dirname "$0")/../.." || exit 1
# Outside a git checkout (the sanitizer stage's copy, a release tarball)
# every .md below the top counts.
list_md()
{
    if git rev-parse --git-dir >/dev/null 2>&1; then
        git ls-files '*.md'
    else
        find . -name '*.md' -type f | sed 's|^\./||'
    fi
}
bad=$(list_md | while read -r f; do
    dir=$(dirname "$f")
    # Inline links [text](target); code spans are stripped first.
    sed 's/`[^`]*`//g' "$f" | grep -o '\]([^)]*)' | sed 's/^](//; s/)$//' |
        while read -r t; do
            case $t in
            http:* | https:* | mailto:* | '#'*) continue ;;
            esac
            p=${t%%#*}
            [ -e "$dir/$p" ] || echo "$f: $t"
        done
done)
echo 1..1
if [ -z "$bad" ]; then
    echo "ok 1 - every relative link in every .md resolves"
else
    echo "not ok 1 - dead relative links:"
    echo "$bad" | sed 's/^/# /'
    exit 1
fi
