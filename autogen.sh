#!/bin/sh
# Regenerates the build system from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
autoreconf --install --force
# automake does not copy the test drivers on its own.
cp "$(automake --print-libdir)/tap-driver.sh" "$(automake --print-libdir)/test-driver" build-aux/
