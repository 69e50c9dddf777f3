#!/bin/sh
# No two files call each other in a loop, in the glue or the core: from the
# built objects (make check builds them first), a file calls another when
# one of its undefined symbols is defined there; tsort(1) finds any loop
# of such calls. Loops left to break sit in test/checks/no-loops.allow,
# one a line as "FILE FILE ..." (sorted), a list that can only shrink.
# Functions only: every glue file names the module record, hsc_module,
# which is data. The loops are the strongly connected parts of the call
# graph (Tarjan's, in python3). Prints TAP.
cd "${top_builddir:-.}" || exit 1
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=1; echo "not ok $n - $1"; }
allow="${top_srcdir:-.}/test/checks/no-loops.allow"
objs=$(find hsc_core/.libs glue/.libs glue/*/.libs glue/*/*/.libs .libs \
       -maxdepth 1 -name '*.o' 2>/dev/null | sort)
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
# name: the source file's name, without libtool's prefix.
for o in $objs; do
    f=$(basename "$o" .o | sed 's/^libhsc_core_la-//; s/^mod_hsc_la-//')
    nm -P --defined-only "$o" | awk -v f="$f" '$2 == "T" { print $1, f }'
done | sort -u >"$w/defs"
for o in $objs; do
    f=$(basename "$o" .o | sed 's/^libhsc_core_la-//; s/^mod_hsc_la-//')
    nm -P -u "$o" | awk -v f="$f" '{ print $1, f }'
done | sort -u >"$w/uses"
count=$(wc -l <"$w/defs")
if [ "$count" -gt 300 ]; then ok "read $count symbols of $(echo $objs | wc -w) objects"
else notok "read only $count symbols: are the objects built?"; fi
# "caller callee" for every call between two files.
join "$w/uses" "$w/defs" | awk '$2 != $3 { print $2, $3 }' | sort -u >"$w/edges"
python3 - "$w/edges" >"$w/loops" <<'PY'
import sys
g = {}
for line in open(sys.argv[1]):
    a, b = line.split()
    g.setdefault(a, set()).add(b)
    g.setdefault(b, set())
index, low, stack, on, out = {}, {}, [], set(), []
sys.setrecursionlimit(10000)
def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v); on.add(v)
    for w in g[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        part = []
        while True:
            w = stack.pop(); on.discard(w); part.append(w)
            if w == v: break
        if len(part) > 1:
            out.append(" ".join(sorted(part)))
for v in sorted(g):
    if v not in index:
        visit(v)
print("\n".join(sorted(out)))
PY
new=""
while read -r l; do
    [ -n "$l" ] || continue
    grep -qxF "$l" "$allow" 2>/dev/null || new="$new [$l]"
done <"$w/loops"
if [ -z "$new" ]; then ok "no loop of calls between files outside $(basename "$allow")"
else notok "files that call each other in a loop (give what they share a file below both):$new"; fi
stale=""
while read -r l; do
    case "$l" in '#'* | '') continue ;; esac
    grep -qxF "$l" "$w/loops" || stale="$stale [$l]"
done <"$allow"
if [ -z "$stale" ]; then ok "every loop of $(basename "$allow") is still there"
else notok "remove from $(basename "$allow") (no longer a loop):$stale"; fi
echo "1..$n"
exit $fail
