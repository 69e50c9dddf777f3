#!/bin/sh
# The floors of the glue (glue/FLOORS): a glue file includes only the
# headers of units listed below its own (or its own header), and those of
# hsc_core/; hsc_core/ includes no glue header. Every glue file is listed,
# and every unit listed exists. Known violations sit in
# test/checks/floors.allow ("FILE HEADER"), a list that can only shrink: an
# entry that no longer happens fails too, so that it is removed.
# Prints TAP.
cd "${top_srcdir:-.}" || exit 1
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=1; echo "not ok $n - $1"; }
allow=test/checks/floors.allow
units=$(grep -v '^#' glue/FLOORS | grep -v '^[[:space:]]*$')

# The rank of a header's unit (its line in FLOORS), by the header's name.
rank_of()
{
    printf '%s\n' $units | awk -v h="$1" '
        { b = $0; sub(/.*\//, "", b); if (b ".h" == h) { print NR; exit } }'
}

missing=""
for u in $units; do
    [ -f "$u.c" ] || [ -f "$u.h" ] || missing="$missing $u"
done
if [ -z "$missing" ]; then ok "every unit of glue/FLOORS exists"
else notok "units of glue/FLOORS with no file:$missing"; fi

files=$(find glue -name '*.[ch]' | sort; ls mod_hsc*.c mod_hsc*.h)
unlisted=""
for f in $files; do
    printf '%s\n' $units | grep -qx "${f%.[ch]}" || unlisted="$unlisted $f"
done
if [ -z "$unlisted" ]; then ok "every glue file is in glue/FLOORS"
else notok "glue files missing from glue/FLOORS:$unlisted"; fi

seen=$(mktemp)
trap 'rm -f "$seen"' EXIT
up=""
for f in $files; do
    me=$(printf '%s\n' $units | grep -nx "${f%.[ch]}" | cut -d: -f1)
    [ -n "$me" ] || continue
    for h in $(sed -n 's/^#[[:space:]]*include[[:space:]]*"\(mod_hsc[a-z_]*\.h\)".*/\1/p' "$f"); do
        r=$(rank_of "$h")
        if [ -z "$r" ]; then up="$up $f:$h(unknown)"; continue; fi
        [ "$r" -ge "$me" ] && continue
        echo "$f $h" >>"$seen"
        grep -qx "$f $h" "$allow" 2>/dev/null || up="$up $f:$h"
    done
done
if [ -z "$up" ]; then ok "no glue file includes a header above it"
else notok "headers included from below (move what they share down):$up"; fi

stale=""
while read -r f h; do
    case "$f" in '#'* | '') continue ;; esac
    grep -qx "$f $h" "$seen" || stale="$stale $f:$h"
done <"$allow"
if [ -z "$stale" ]; then ok "every entry of $allow still happens"
else notok "remove from $allow (no longer included from below):$stale"; fi

bad=$(grep -l '#[[:space:]]*include[[:space:]]*"mod_hsc' hsc_core/*.[ch] 2>/dev/null)
if [ -z "$bad" ]; then ok "hsc_core includes no glue header"
else notok "hsc_core includes a glue header: $bad"; fi

echo "1..$n"
exit $fail
