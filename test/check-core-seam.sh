#!/bin/sh
# The seam between core and glue: nothing under hsc_core/ may include an
# httpd header, so the core stays testable, fuzzable and reusable by
# hsc-admin without httpd. Also: every directive in mod_hsc.c is documented
# in docs/directives.md. Prints TAP.
cd "${top_srcdir:-.}" || exit 1
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=1; echo "not ok $n - $1"; }

bad=$(grep -lE '#[[:space:]]*include[[:space:]]*[<"](httpd|http_[a-z_]+|ap_[a-z_]+|mod_[a-z_]+|util_[a-z_]+)\.h' \
      hsc_core/*.c hsc_core/*.h 2>/dev/null)
if [ -z "$bad" ]; then ok "hsc_core includes no httpd header"
else notok "hsc_core includes an httpd header: $bad"; fi

if grep -q 'include "config.h"\|include <config.h>' mod_hsc*.c 2>/dev/null; then
    notok "mod_hsc glue includes config.h (PACKAGE_* clashes with httpd)"
else ok "mod_hsc glue does not include config.h"; fi

directives=$(sed -n 's/.*AP_INIT_[A-Z0-9]*("\([A-Za-z]*\)".*/\1/p' mod_hsc*.c | sort -u)
if [ -z "$directives" ]; then
    notok "no directive found in mod_hsc*.c"
fi
for d in $directives; do
    if grep -q "^## $d\b" docs/directives.md 2>/dev/null; then
        ok "directive $d is documented in docs/directives.md"
    else
        notok "directive $d is missing from docs/directives.md (## $d)"
    fi
done
echo "1..$n"
exit $fail
