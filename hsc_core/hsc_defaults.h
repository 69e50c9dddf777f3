/*
 * hsc_defaults.h: the one place every directive's default lives.
 *
 * The module's create functions use the values, its help strings the
 * _TEXT spellings (as an admin writes them), hsc-admin the same values
 * (inspect's --skew and --max-age), and test/unit/test_defaults.c checks
 * that conf/hsc.conf and docs/directives.md show the _TEXT spellings and
 * that each _TEXT parses to its value. A directive without a default (a
 * path, a URL) has no entry.
 */
#ifndef HSC_DEFAULTS_H
#define HSC_DEFAULTS_H

#include "hsc_kdf.h" /* HSC_KDF_DEFAULT_SPEC */

/* Per directory (mod_hsc_config.c, hsc_dir_conf_t). */
#define HSC_DEFAULT_COOKIE_NAME "hsc"
#define HSC_DEFAULT_COOKIE_PATH "/"
#define HSC_DEFAULT_COOKIE_SECURE 1
#define HSC_DEFAULT_COOKIE_SECURE_TEXT "On"
#define HSC_DEFAULT_SAMESITE_TEXT "Lax"
#define HSC_DEFAULT_IDLE_TIMEOUT (30 * 60)
#define HSC_DEFAULT_IDLE_TIMEOUT_TEXT "30m"
#define HSC_DEFAULT_MAX_AGE (8 * 3600)
#define HSC_DEFAULT_MAX_AGE_TEXT "8h"
#define HSC_DEFAULT_CLOCK_SKEW 60
#define HSC_DEFAULT_CLOCK_SKEW_TEXT "60s"
#define HSC_DEFAULT_REFRESH 1
#define HSC_DEFAULT_REFRESH_TEXT "On"
#define HSC_DEFAULT_SCOPE ""
#define HSC_DEFAULT_HEALTH_DETAILS 0
#define HSC_DEFAULT_HEALTH_DETAILS_TEXT "Off"
/* HSCCookieFormat1: format 1 cookies (before second factors) keep working
 * after an upgrade, so nobody is logged out; Off once they have expired. */
#define HSC_DEFAULT_COOKIE_FORMAT1 1
#define HSC_DEFAULT_COOKIE_FORMAT1_TEXT "On"
/* HSCRememberMe: no "keep me signed in" unless asked for. */
#define HSC_DEFAULT_REMEMBER 0
#define HSC_DEFAULT_REMEMBER_TEXT "Off"
/* HSCSecondFactor: off until a site asks; enabling it asks every user
 * who has a factor for it. */
#define HSC_DEFAULT_SECOND_FACTOR 0
#define HSC_DEFAULT_SECOND_FACTOR_TEXT "off"
/* HSCTOTPSkew: TOTP steps accepted either side of now (RFC 6238 5.2: one),
 * and its most: each step more is a code more a guesser may hit. */
#define HSC_DEFAULT_TOTP_SKEW 1
#define HSC_DEFAULT_TOTP_SKEW_TEXT "1"
#define HSC_TOTP_SKEW_MAX 2
/* HSCAccountRecentAuth: how recent a login must be for the account page's
 * factor changes without the password again. */
#define HSC_DEFAULT_ACCOUNT_RECENT_AUTH 300
#define HSC_DEFAULT_ACCOUNT_RECENT_AUTH_TEXT "5m"
/* HSCWebAuthnChallengeLifetime, seconds, and its bounds. */
#define HSC_DEFAULT_WA_CHALLENGE_LIFETIME 300
#define HSC_DEFAULT_WA_CHALLENGE_LIFETIME_TEXT "300"
#define HSC_WA_CHALLENGE_LIFETIME_MIN 30
#define HSC_WA_CHALLENGE_LIFETIME_MAX 3600
#define HSC_DEFAULT_BIND_ADDRESS 0
#define HSC_DEFAULT_BIND_ADDRESS_TEXT "Off"
#define HSC_DEFAULT_UNAUTHENTICATED_TEXT "auto"
#define HSC_DEFAULT_LOGIN_SUCCESS_URL "/"
/* NULL: a POST logout goes to the logout location's logged-out page
 * (GET ?done); "none" is how conf/hsc.conf and the docs spell it. */
#define HSC_DEFAULT_LOGOUT_URL NULL
#define HSC_DEFAULT_LOGIN_STYLESHEET_TEXT "none"
#define HSC_DEFAULT_LOGIN_FAILURE_URL_TEXT "none"

/* Per server (hsc_srv_conf_t; throttling: hsc_throttle_conf_t). */
#define HSC_DEFAULT_USERDB_CACHE 1
#define HSC_DEFAULT_USERDB_CACHE_TEXT "On"
/* HSCUserCacheSize: records (about 24.5 MiB; hsc_core/hsc_cache.h). */
#define HSC_DEFAULT_USER_CACHE_SIZE 131072
#define HSC_DEFAULT_USER_CACHE_SIZE_TEXT "131072"
/* PostgreSQL pool (mod_hsc_userdb.c; durations in milliseconds). */
#define HSC_DEFAULT_USERDB_POOL_SIZE 4
#define HSC_DEFAULT_USERDB_POOL_SIZE_TEXT "4"
#define HSC_DEFAULT_USERDB_POOL_WAIT_MS 500
#define HSC_DEFAULT_USERDB_POOL_WAIT_TEXT "500ms"
#define HSC_DEFAULT_USERDB_TIMEOUT_MS 2000
#define HSC_DEFAULT_USERDB_TIMEOUT_TEXT "2s"
#define HSC_DEFAULT_USERDB_MAX_STALE_MS 1000
#define HSC_DEFAULT_USERDB_MAX_STALE_TEXT "1s"
/* ... and the ranges their setters take (hsc_parse_size, hsc_parse_millis;
 * today literals in mod_hsc_userdb.c). */
#define HSC_USERDB_POOL_SIZE_MIN 1
#define HSC_USERDB_POOL_SIZE_MAX 64
#define HSC_USERDB_POOL_WAIT_MIN_MS 1
#define HSC_USERDB_POOL_WAIT_MAX_MS 60000
#define HSC_USERDB_TIMEOUT_MIN_MS 10
#define HSC_USERDB_TIMEOUT_MAX_MS 600000
#define HSC_USERDB_MAX_STALE_MIN_MS 0
#define HSC_USERDB_MAX_STALE_MAX_MS 60000
#define HSC_DEFAULT_THROTTLE_CACHE_TEXT "shmcb"
#define HSC_DEFAULT_THROTTLE_UNAVAILABLE_REFUSE 0
#define HSC_DEFAULT_THROTTLE_UNAVAILABLE_TEXT "allow"
#define HSC_DEFAULT_THROTTLE_ADDRESS 20
#define HSC_DEFAULT_THROTTLE_ADDRESS_TEXT "20"
#define HSC_DEFAULT_THROTTLE_USER 10
#define HSC_DEFAULT_THROTTLE_USER_TEXT "10"
#define HSC_DEFAULT_THROTTLE_WINDOW (5 * 60)
#define HSC_DEFAULT_THROTTLE_WINDOW_TEXT "5m"
#define HSC_DEFAULT_MAX_LOGIN_KDF 2
#define HSC_DEFAULT_MAX_LOGIN_KDF_TEXT "2"
/* HSCDummyKDF: what a failed login costs; the KDF new users get. */
#define HSC_DEFAULT_DUMMY_KDF_TEXT HSC_KDF_DEFAULT_SPEC

#endif /* HSC_DEFAULTS_H */
