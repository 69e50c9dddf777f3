#!/bin/sh
# Function length (docs/dev/HACKING.md): no function over 80 lines in the
# glue (every mod_hsc*.c), over 120 in the core (hsc_core/) or the tools
# (tools/). A function runs from the first line of its signature to its
# closing brace; the code is clang-format's (test/checks/format.sh), so a
# body opens with "{" alone in column 0 and closes with "}" in column 0.
# Known offenders sit in test/checks/func-length.allow ("FILE FUNCTION"),
# a list that can only shrink: an entry no longer too long fails too, so
# that it is removed. Prints TAP.
cd "${top_srcdir:-.}" || exit 1
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=1; echo "not ok $n - $1"; }
allow=test/checks/func-length.allow

# FILE FUNCTION LINES for every function of the files given.
lengths()
{
    awk '
    FNR == 1 { sig = 0 }
    /^[A-Za-z_]/ && !/^(#|\/\*|typedef|struct [a-z_]* \{)/ { if (!body) { sig = FNR; line = $0 } }
    /^\{$/ && sig { body = 1; start = sig; name = line;
                    sub(/\(.*/, "", name); sub(/.*[ *]/, "", name); next }
    /^\}/ && body { print FILENAME, name, FNR - start + 1; body = 0; sig = 0 }
    ' "$@"
}

over=$(mktemp)
trap 'rm -f "$over"' EXIT
glue=$(find . -name 'mod_hsc*.c' -not -path './t/*' -not -path './debian/*' \
       -not -path './_build/*' -not -path './libapache2-mod-hsc*' | sort)
core=$(ls hsc_core/*.c)
tools=$(find tools -name '*.c' | sort)
{
    lengths $glue | awk '$3 > 80 { print $1, $2, $3, 80 }'
    lengths $core $tools | awk '$3 > 120 { print $1, $2, $3, 120 }'
} | sed 's|^\./||' | sort >"$over"

count=$(lengths $glue $core $tools | wc -l)
if [ "$count" -gt 200 ]; then ok "measured $count functions"
else notok "found only $count functions: the measure is broken"; fi

new=""
while read -r f fn len max; do
    grep -qx "$f $fn" "$allow" 2>/dev/null || new="$new $f:$fn($len>$max)"
done <"$over"
if [ -z "$new" ]; then ok "no function over its limit outside $allow"
else notok "functions over the limit (split them):$new"; fi

stale=""
while read -r f fn; do
    case "$f" in '#'* | '') continue ;; esac
    awk -v f="$f" -v fn="$fn" '$1 == f && $2 == fn { found = 1 } END { exit !found }' \
        "$over" || stale="$stale $f:$fn"
done <"$allow"
if [ -z "$stale" ]; then ok "every entry of $allow is still too long"
else notok "remove from $allow (no longer too long, or gone):$stale"; fi

echo "1..$n"
exit $fail
