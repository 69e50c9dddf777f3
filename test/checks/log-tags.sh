#!/bin/sh
# Log tags (httpd's APLOGNO rule, mod_hsc_log.h's HSCLOGNO): every log call site
# of the glue has its own HSCLOGNO(nnn); no number is used twice; every one
# has a row in docs/directives.md's "Log messages" table; and
# docs/dev/log-tags-next is above every number in use. Prints TAP.
cd "${top_srcdir:-.}" || exit 1
# The glue: mod_hsc.c and every file of its wings (glue/FLOORS).
glue=$(ls mod_hsc*.c; find glue -name 'mod_hsc*.c' | sort)
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=1; echo "not ok $n - $1"; }

tags=$(grep -ho 'HSCLOGNO([0-9]\{3\})' $glue | sed 's/[^0-9]//g' | sort)
if [ -n "$tags" ]; then ok "the glue tags its log lines with HSCLOGNO"
else notok "no HSCLOGNO tag found in the glue"; fi

dups=$(printf '%s\n' $tags | uniq -d | tr '\n' ' ')
if [ -z "$dups" ]; then ok "no tag is used at two places"
else notok "tags used at more than one place: $dups"; fi

# A tag written by hand ("HSC012: ...") escapes the checks above.
raw=$(grep -n '"HSC[0-9]\{3\}:' $glue)
if [ -z "$raw" ]; then ok "every tag goes through HSCLOGNO"
else notok "tags written without HSCLOGNO: $raw"; fi

table=$(sed -n '/^## Log messages/,/^## /p' docs/directives.md \
        | grep '^| HSC' | cut -d'|' -f2)
missing=""
for t in $tags; do
    case " $(echo $table | tr ',' ' ') " in
        *" HSC$t "*) ;;
        *) missing="$missing HSC$t" ;;
    esac
done
if [ -z "$missing" ]; then ok "docs/directives.md has a row for every tag"
else notok "tags missing from docs/directives.md's Log messages table:$missing"; fi

next=$(grep -v '^#' docs/dev/log-tags-next | head -n 1)
max=$(printf '%s\n' $tags | tail -n 1)
if [ -n "$next" ] && [ "$(expr "$next" + 0)" -gt "$(expr "$max" + 0)" ]; then
    ok "docs/dev/log-tags-next ($next) is above every tag in use ($max)"
else
    notok "docs/dev/log-tags-next ($next) must be above the highest tag ($max)"
fi

echo "1..$n"
exit $fail
