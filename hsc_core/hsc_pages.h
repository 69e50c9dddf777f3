/*
 * hsc_pages.h: the HTML of the login, logout, logged-out, 429 and busy
 * pages, and the Content-Security-Policy that goes with them, as pure
 * functions of their inputs (no httpd): the glue only sends what these
 * return. Every string from a request or the configuration is
 * HTML-escaped here. Results live in the pool p.
 */
#ifndef HSC_PAGES_H
#define HSC_PAGES_H

#include <stddef.h>
#include <stdint.h>

#include "apr_pools.h"

/* What a site configures about its pages (all may be NULL). */
typedef struct {
    const char *site_name;  /* HSCSiteName: in the title and above h1 */
    const char *stylesheet; /* HSCLoginStylesheet: a link after ours */
    int remember;           /* HSCRememberMe: the login form's box */
    int passkeys; /* HSCPasskeys On: the passkey button and its script (on
                   * the second-factor page: and the user has a passkey) */
} hsc_page_conf_t;

/* The passkey script (hsc_core/passkey.js, compiled in) and the CSP
 * directives that allow it: its hash, and fetch() to this site. */
const char *hsc_page_script(void);
const char *hsc_page_script_csp(void);

/* The built-in stylesheet, exactly as it goes between <style> tags. */
const char *hsc_page_style(void);

/* "sha256-<base64>" of hsc_page_style(), computed once per process. */
const char *hsc_page_style_hash(void);

/*
 * The Content-Security-Policy of every page: nothing but the built-in
 * stylesheet (by its hash) and, when stylesheet is set, that stylesheet:
 * 'self' for a local path, the URL itself for an absolute http(s) URL.
 * No <base>; forms post to this site only ('self'), and the redirects that
 * follow a form (browsers check them against form-action too) may go to
 * the origin of each absolute http(s) URL in form_targets (NULL-terminated,
 * may be NULL: HSCLoginSuccessURL, HSCLogoutURL, HSCLoginFailureURL, the
 * return target of a login), scheme and port included, when its host is a
 * DNS name or IPv4 address (a CSP cannot name an IPv6 literal).
 */
const char *hsc_page_csp(apr_pool_t *p, const char *stylesheet,
                         const char *const *form_targets);

/*
 * 1 when url may be an HSCLoginStylesheet: a local path ("/...", not
 * "//") or an absolute http:// or https:// URL, printable ASCII without
 * space, quote, ';' or ',' (it goes into the CSP header as written).
 */
int hsc_page_stylesheet_valid(const char *url);

/* s with & < > " ' replaced by entities (NULL gives ""). */
const char *hsc_page_escape(apr_pool_t *p, const char *s);

/* Seconds as people say them: "about 5 minutes", "about an hour". */
const char *hsc_page_wait_words(apr_pool_t *p, int64_t seconds);

/*
 * The login page. ret: the safe return path carried in the form (or
 * NULL); username: what the user typed, kept after a failure (or NULL);
 * error: the message of a failed login (or NULL), tied to both fields.
 */
const char *hsc_page_login(apr_pool_t *p, const hsc_page_conf_t *c,
                           const char *ret, const char *username,
                           const char *error);

/*
 * The logout confirmation. user: who is signed in (NULL: nobody, the page
 * says so and links to login_url); cancel: where "Cancel" goes.
 */
const char *hsc_page_logout(apr_pool_t *p, const hsc_page_conf_t *c,
                            const char *user, const char *cancel,
                            const char *login_url);

/*
 * After a logout. everywhere: the other sessions were ended too; problem:
 * why they could not be (or NULL). login_url: "Log in again" (or NULL).
 */
const char *hsc_page_logged_out(apr_pool_t *p, const hsc_page_conf_t *c,
                                int everywhere, const char *problem,
                                const char *login_url);

/* 429: too many failed logins, retry_after seconds, a link back. */
const char *hsc_page_throttled(apr_pool_t *p, const hsc_page_conf_t *c,
                               int64_t retry_after, const char *back);

/*
 * The second-factor step: who is signing in, a form for the code of an
 * authenticator app (one-time-code, numeric keyboard) and one for a
 * recovery code, each carrying ret; error (or NULL) as on the login page.
 */
const char *hsc_page_code(apr_pool_t *p, const hsc_page_conf_t *c,
                          const char *ret, const char *user, const char *error);

/* A login this site cannot finish: a second factor is required and the
 * user has none (HSCSecondFactor required). A link back. */
const char *hsc_page_no_factor(apr_pool_t *p, const hsc_page_conf_t *c,
                               const char *back);

/* 503 of the KDF cap: try again in a moment, a link back. */
const char *hsc_page_busy(apr_pool_t *p, const hsc_page_conf_t *c,
                          const char *back);

/* One app password as the account page lists it (never its secret). */
typedef struct {
    const char *id, *name, *scopes;
    int64_t created, expires; /* Unix seconds; expires 0: never */
    int64_t last_used;        /* 0: never, or not kept (HSCActivityDB) */
} hsc_page_token_t;

/* One passkey as the account page lists it. */
typedef struct {
    const char *id; /* base64url */
    const char *name;
    int64_t created;   /* Unix seconds */
    int sealed;        /* it has a seal (PRF) */
    int64_t last_used; /* Unix seconds; 0: never, or not known (the
                        * store keeps it on SQLite only) */
} hsc_page_passkey_t;

/* What the account page shows. */
typedef struct {
    const char *user; /* who is signed in; NULL: nobody (the page says
                       * so and links to login_url, if not NULL) */
    const char *login_url;
    const char *groups; /* "g1,g2", "" or NULL */
    int totp;           /* 1 on, 0 off, -1 the factors cannot be read */
    int recovery_left;  /* recovery codes left; -1 cannot be read */
    int min_chars;      /* the new password's minimum, for the hint */
    int factors;        /* 1: the factor forms (TOTP, recovery codes) */
    int recent;         /* 1: a recent login, factor forms need no password */
    const char *notice; /* what the last action did (or NULL) */
    const char *error;  /* why the password form was refused (or NULL) */
    int tokens;         /* 1: the app-password section */
    const hsc_page_token_t *token_list; /* live ones, oldest first */
    size_t n_tokens;
    int64_t now;  /* for "expired" */
    int passkeys; /* 1: the passkey section (HSCPasskeys On) */
    const hsc_page_passkey_t *passkey_list; /* oldest first */
    size_t n_passkeys;
    int seal_required;  /* the user's seal switch is on */
    int sealed_session; /* this session's cookie has the seal */
    /* The user has a second factor this session has not used within
     * HSCAccountRecentAuth: the login page's step-up (NULL: none due). */
    const char *stepup_url;
} hsc_account_view_t;

/* The account page's passkeys (hsc_pages_passkeys.c): the list with a
 * Rename and a Remove form each, and the Add button (passkey.js). ""
 * when !v->passkeys. */
const char *hsc_page_passkeys_section(apr_pool_t *p,
                                      const hsc_account_view_t *v);

/* The account page's app-password section (hsc_pages_tokens.c): the
 * list, a Revoke button each, the form that makes one. "" when
 * !v->tokens. */
const char *hsc_page_tokens_section(apr_pool_t *p, const hsc_account_view_t *v);

/* A new app password, shown once: the text to copy, how to use it, a
 * link back. */
const char *hsc_page_token_made(apr_pool_t *p, const hsc_page_conf_t *c,
                                const char *user, const char *name,
                                const char *token, const char *back);

/*
 * The account page (SetHandler hsc-account): who is signed in, their
 * groups and second factors, a form to change the password (the current
 * one, the new one twice; action=password) and one to sign out everywhere
 * (action=signout). Both post to the page itself.
 */
const char *hsc_page_account(apr_pool_t *p, const hsc_page_conf_t *c,
                             const hsc_account_view_t *v);

/*
 * Setting up an authenticator app: the QR code of its otpauth:// URI
 * (qr_svg, from hsc_qr_svg; may be NULL), the key in base32 for typing,
 * and a form for the first code (action=totp-confirm, with the one-time
 * link it came by, or NULL); back: "Cancel".
 */
/* A login that waits for a first second factor: why, and the button
 * that sets up an authenticator app (its form posts to this URL). */
const char *hsc_page_factor_setup(apr_pool_t *p, const hsc_page_conf_t *c,
                                  const char *user);

const char *hsc_page_totp_setup(apr_pool_t *p, const hsc_page_conf_t *c,
                                const char *qr_svg, const char *key,
                                const char *link, const char *back,
                                const char *error);

/* New recovery codes, shown once; notice (or NULL) says what else was
 * done; back: "Done". */
const char *hsc_page_recovery_codes(apr_pool_t *p, const hsc_page_conf_t *c,
                                    const char *notice,
                                    const char *const *codes, size_t n,
                                    const char *back);

/* A one-time link's page: set a password (invite or reset) for user, the
 * new one twice (action=link-password, the link carried), min_chars for
 * the hint; error (or NULL) as on the account page. */
const char *hsc_page_link_password(apr_pool_t *p, const hsc_page_conf_t *c,
                                   const char *user, int invite,
                                   const char *link, int min_chars,
                                   const char *error);

/* A one-time enrolment link's page where HSCPasskeys is On and the user
 * has no passkey (hsc_pages_passkeys.c): the Add a passkey button
 * (passkey.js posts the link with the ceremony), a sign-in link it shows
 * once added (login_url may be NULL), and the authenticator app's Begin. */
const char *hsc_page_link_passkey(apr_pool_t *p, const hsc_page_conf_t *c,
                                  const char *user, const char *link,
                                  const char *login_url);

/* A one-time enrolment link's page: who, and a button that sets up an
 * authenticator app (action=link-enrol). */
const char *hsc_page_link_enrol(apr_pool_t *p, const hsc_page_conf_t *c,
                                const char *user, const char *link);

/* A short page: a heading, a sentence (a note, or an alert when alert is
 * 1) and a link (url and its words; url may be NULL). */
const char *hsc_page_message(apr_pool_t *p, const hsc_page_conf_t *c,
                             const char *heading, const char *text, int alert,
                             const char *url, const char *words);

#endif /* HSC_PAGES_H */
