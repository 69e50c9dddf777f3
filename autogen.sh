#!/bin/sh
# Regenerates the build system from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
autoreconf --install --force
# automake does not copy the TAP driver on its own.
cp "$(automake --print-libdir)/tap-driver.sh" build-aux/
