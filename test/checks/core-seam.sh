#!/bin/sh
# The seam between core and glue: nothing under hsc_core/ may include an
# httpd header, so the core stays testable, fuzzable and reusable by
# hsc-admin without httpd. (t/11 checks that docs/directives.md lists every
# directive httpd -L reports.) Prints TAP.
cd "${top_srcdir:-.}" || exit 1
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=1; echo "not ok $n - $1"; }

bad=$(grep -lE '#[[:space:]]*include[[:space:]]*[<"](httpd|http_[a-z_]+|ap_[a-z_]+|mod_[a-z_]+|util_[a-z_]+)\.h' \
      hsc_core/*.c hsc_core/*.h 2>/dev/null)
if [ -z "$bad" ]; then ok "hsc_core includes no httpd header"
else notok "hsc_core includes an httpd header: $bad"; fi

if grep -q 'include "config.h"\|include <config.h>' mod_hsc*.c \
    $(find glue -name '*.c') 2>/dev/null; then
    notok "mod_hsc glue includes config.h (PACKAGE_* clashes with httpd)"
else ok "mod_hsc glue does not include config.h"; fi

echo "1..$n"
exit $fail
