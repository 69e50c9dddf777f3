/*
 * hsc_version.h: the one place the release number lives. configure.ac reads
 * it (AC_INIT), the module logs it at startup, hsc-admin --version prints it
 * and the Debian changelog must agree (a test checks).
 */
#ifndef HSC_VERSION_H
#define HSC_VERSION_H

#define HSC_VERSION "0.2.0"

#endif
