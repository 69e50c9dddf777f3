/*
 * hsc_pages.c: the HTML of the module's pages (see hsc_pages.h). No
 * JavaScript and no external resource unless the site configures its own
 * stylesheet; the built-in one is allowed by its hash, never by
 * 'unsafe-inline'.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>

#include "apr_strings.h"

#include "hsc_pages.h"
#include "hsc_pages_doc.h"

#include "apr_lib.h"

/*
 * Readable on a phone: 16 px text (inputs too, so iOS does not zoom), 44 px
 * tall controls, one column no wider than the screen, visible focus.
 */
static const char style[] =
    "*{box-sizing:border-box}"
    "html{-webkit-text-size-adjust:100%;text-size-adjust:100%}"
    "body{margin:0;padding:1rem;font:16px/1.5 system-ui,-apple-system,"
    "'Segoe UI',Roboto,sans-serif;color:#1a1a1a;background:#f4f5f7}"
    "main{max-width:24rem;margin:2rem auto;padding:1.5rem;background:#fff;"
    "border:1px solid #d8dbe0;border-radius:8px}"
    ".hsc-site{margin:0;color:#555;font-weight:600}"
    "h1{margin:.25rem 0 1rem;font-size:1.5rem;line-height:1.25}"
    "label{display:block;margin:1rem 0 .25rem;font-weight:600}"
    "input{font:inherit}"
    "input[type=text],input[type=password],input:not([type]){display:block;"
    "width:100%;min-height:44px;padding:.5rem .75rem;border:1px solid #767676;"
    "border-radius:6px;background:#fff;color:inherit}"
    "input[aria-invalid=true]{border-color:#b00020}"
    /* hidden wins over the display rules below (passkey.js hides). */
    "[hidden]{display:none!important}"
    "button{display:block;width:100%;min-height:44px;margin-top:1.5rem;"
    "padding:.5rem 1rem;font:inherit;font-weight:600;color:#fff;"
    "background:#1f5fbf;border:0;border-radius:6px;cursor:pointer}"
    "button:hover{background:#174a96}"
    /* Secondary actions outlined, destructive ones red: neither looks
     * like the form's main action, and neither spans the column. */
    ".hsc-btn-secondary,.hsc-btn-danger{display:inline-block;width:auto;"
    "background:#fff;border:2px solid currentColor}"
    ".hsc-btn-secondary{color:#1f5fbf}"
    ".hsc-btn-secondary:hover{background:#eaf1fb}"
    ".hsc-btn-danger{color:#b00020}"
    ".hsc-btn-danger:hover{background:#fdecee}"
    ":focus-visible{outline:3px solid #f0a500;outline-offset:2px}"
    "a{color:#1f5fbf}"
    ".hsc-link{display:inline-flex;align-items:center;min-height:44px}"
    ".hsc-check{display:flex;align-items:center;gap:.5rem;min-height:44px;"
    "margin:1rem 0 0;font-weight:400}"
    ".hsc-check input{width:24px;height:24px;margin:0}"
    ".hsc-help{margin:.25rem 0 0;color:#555;font-size:.9375rem}"
    ".hsc-error{margin:0 0 1rem;padding:.75rem;border-left:4px solid #b00020;"
    "background:#fdecee;color:#8a0018}"
    ".hsc-note{margin:0 0 1rem;padding:.75rem;border-left:4px solid #1f5fbf;"
    "background:#eaf1fb}"
    /* An empty live region (passkey.js fills it) takes no room; it stays
     * displayed so that screen readers still announce what it gets. */
    ".hsc-note:empty{margin:0;padding:0;border:0}"
    "h2{margin:2rem 0 .5rem;font-size:1.125rem}"
    ".hsc-facts{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;"
    "margin:0}"
    ".hsc-facts dt{color:#555}.hsc-facts dd{margin:0}"
    ".hsc-qr{display:block;width:100%;max-width:16rem;height:auto;"
    "margin:1rem auto}"
    "code{font:1rem/1.5 ui-monospace,SFMono-Regular,Menlo,monospace}"
    ".hsc-secret code{word-spacing:.25rem;overflow-wrap:anywhere}"
    ".hsc-codes{columns:2;padding-left:1.25rem}"
    "select{display:block;width:100%;min-height:44px;padding:.5rem .75rem;"
    "font:inherit;border:1px solid #767676;border-radius:6px;background:#fff}"
    ".hsc-scroll{overflow-x:auto}"
    ".hsc-tokens{width:100%;border-collapse:collapse;font-size:.9375rem}"
    ".hsc-tokens th,.hsc-tokens td{padding:.25rem .5rem .25rem 0;"
    "text-align:left;vertical-align:middle;border-bottom:1px solid #d8dbe0}"
    ".hsc-tokens button{width:auto;margin:0}"
    /* A passkey: its facts on one row, its forms on the next (not
     * "hsc-pk": pages without passkeys are tested to name none). */
    ".hsc-key-row td{white-space:nowrap;border-bottom:0}"
    ".hsc-key-act form{display:flex;gap:.5rem;align-items:center;"
    "margin:0 0 .5rem}"
    ".hsc-key-act input{flex:1;min-width:0}"
    ".hsc-key-act button{flex:none}"
    /* The account page: wider, its sections as cards on the grey. */
    "main.hsc-wide{max-width:40rem;margin:1rem auto;padding:0;"
    "background:none;border:0}"
    ".hsc-wide>h1,.hsc-wide>.hsc-site{margin-left:.25rem}"
    ".hsc-group{margin:1rem 0 0;padding:1.25rem;background:#fff;"
    "border:1px solid #d8dbe0;border-radius:8px}"
    ".hsc-group h2{margin:0 0 .5rem;font-size:1.25rem}"
    ".hsc-group h3{margin:1.5rem 0 .25rem;padding-top:1rem;"
    "border-top:1px solid #e6e8eb;font-size:1.0625rem}"
    ".hsc-group h2+h3,.hsc-scroll+h3{margin-top:.5rem;padding-top:0;"
    "border-top:0}"
    ".hsc-group>form>input[type=hidden]+button{margin-top:0}"
    ".hsc-group>form>button,.hsc-group>.hsc-passkey>button{width:auto;"
    "min-width:12rem}"
    /* On a phone a row of a list is a block of lines, each fact named:
     * five columns do not fit, and a button must not scroll out of view. */
    "@media (max-width:30rem){.hsc-group{padding:1rem}"
    ".hsc-group>form>button,.hsc-group>.hsc-passkey>button{width:100%}"
    ".hsc-tokens thead{position:absolute;width:1px;height:1px;"
    "overflow:hidden;clip:rect(0 0 0 0)}"
    ".hsc-tokens tr{display:block;padding:.5rem 0;"
    "border-bottom:1px solid #d8dbe0}"
    ".hsc-tokens tr.hsc-key-row{padding-bottom:0;border-bottom:0}"
    ".hsc-tokens td{display:block;padding:0;border:0}"
    ".hsc-tokens td:first-child:not(.hsc-key-act){font-weight:600}"
    ".hsc-apps td:last-child button{margin-top:.25rem}"
    ".hsc-apps td:nth-child(2)::before{content:'Scopes: '}"
    ".hsc-apps td:nth-child(3)::before{content:'Made: '}"
    ".hsc-apps td:nth-child(4)::before{content:'Expires: '}"
    ".hsc-apps td:nth-child(5)::before{content:'Last used: '}"
    ".hsc-keys .hsc-key-row td:nth-child(2)::before{content:'Added: '}"
    ".hsc-keys .hsc-key-row td:nth-child(3)::before{content:'Last used: '}"
    ".hsc-tokens td::before{color:#555}"
    ".hsc-key-act{padding-top:.5rem}}"
    ".hsc-sr{position:absolute;width:1px;height:1px;overflow:hidden;"
    "clip:rect(0 0 0 0);white-space:nowrap}";

static char style_hash[7 + 44 + 1]; /* "sha256-" + base64 of 32 bytes */
static pthread_once_t style_once = PTHREAD_ONCE_INIT;

static void style_hash_init(void)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;

    memcpy(style_hash, "sha256-", 7);
    if (EVP_Digest(style, sizeof(style) - 1, md, &mdlen, EVP_sha256(), NULL)
            != 1
        || mdlen != 32) {
        /* No hash: the CSP then allows no inline style (fails closed to an
         * unstyled page, never to 'unsafe-inline'). */
        memcpy(style_hash + 7, "unavailable", 12);
        return;
    }
    EVP_EncodeBlock((unsigned char *)style_hash + 7, md, 32);
}

/* hsc_core/passkey.js, as build-aux/sql2c.sh writes it. */
extern const char *const hsc_passkey_js[];

static char script_csp[64 + 7 + 44 + 1];
static pthread_once_t script_once = PTHREAD_ONCE_INIT;

static void script_csp_init(void)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    char b64[45];
    const char *js = hsc_passkey_js[0];

    if (EVP_Digest(js, strlen(js), md, &mdlen, EVP_sha256(), NULL) != 1
        || mdlen != 32) {
        /* No hash: no script runs (the pages work without it). */
        memcpy(script_csp, "; script-src 'none'", 20);
        return;
    }
    EVP_EncodeBlock((unsigned char *)b64, md, 32);
    snprintf(script_csp, sizeof(script_csp),
             "; script-src 'sha256-%s'; connect-src 'self'", b64);
}

const char *hsc_page_script(void)
{
    return hsc_passkey_js[0];
}

const char *hsc_page_script_csp(void)
{
    pthread_once(&script_once, script_csp_init);
    return script_csp;
}

const char *hsc_page_style(void)
{
    return style;
}

const char *hsc_page_style_hash(void)
{
    pthread_once(&style_once, style_hash_init);
    return style_hash;
}

int hsc_page_stylesheet_valid(const char *url)
{
    const unsigned char *s = (const unsigned char *)url;

    if (url == NULL || *url == '\0') {
        return 0;
    }
    if (!(url[0] == '/' && url[1] != '/' && url[1] != '\\')
        && strncmp(url, "https://", 8) != 0
        && strncmp(url, "http://", 7) != 0) {
        return 0;
    }
    for (; *s; ++s) {
        if (*s <= 0x20 || *s >= 0x7f || strchr("\"'<>;,\\`", *s)) {
            return 0;
        }
    }
    return 1;
}

/*
 * "scheme://host[:port]" of an absolute http(s) URL when that is a CSP
 * host-source: a host of letters, digits, '-' and '.', a port of 1 to 5
 * digits. Else NULL: a local path is covered by 'self', and anything else
 * (an IPv6 literal, which a CSP cannot name, or bytes that could end the
 * directive) never reaches the header.
 */
static const char *url_origin(apr_pool_t *p, const char *url)
{
    const char *host, *port = NULL, *q;

    if (url == NULL) {
        return NULL;
    }
    if (!strncasecmp(url, "https://", 8)) {
        host = url + 8;
    }
    else if (!strncasecmp(url, "http://", 7)) {
        host = url + 7;
    }
    else {
        return NULL;
    }
    for (q = host; *q && *q != '/' && *q != '?' && *q != '#'; ++q) {
        if (*q == ':' && port == NULL && q > host) {
            port = q + 1;
        }
        else if (port != NULL ? !apr_isdigit(*q)
                              : !apr_isalnum(*q) && *q != '.' && *q != '-') {
            return NULL;
        }
    }
    if (q == host || (port != NULL && (q == port || q - port > 5))) {
        return NULL;
    }
    return apr_pstrndup(p, url, (apr_size_t)(q - url));
}

const char *hsc_page_csp(apr_pool_t *p, const char *stylesheet,
                         const char *const *form_targets)
{
    const char *extra = "", *forms = "'self'";

    if (stylesheet != NULL && hsc_page_stylesheet_valid(stylesheet)) {
        extra = apr_pstrcat(p, " ",
                            stylesheet[0] == '/' ? "'self'" : stylesheet, NULL);
    }
    for (; form_targets != NULL && *form_targets != NULL; ++form_targets) {
        const char *o = url_origin(p, *form_targets);

        if (o != NULL) {
            forms = apr_pstrcat(p, forms, " ", o, NULL);
        }
    }
    return apr_pstrcat(p, "default-src 'none'; style-src '",
                       hsc_page_style_hash(), "'", extra,
                       "; frame-ancestors 'none'; form-action ", forms,
                       "; base-uri 'none'", NULL);
}

const char *hsc_page_escape(apr_pool_t *p, const char *s)
{
    size_t n = 0;
    const char *q;
    char *out, *o;

    if (s == NULL) {
        return "";
    }
    for (q = s; *q; ++q) {
        n += *q == '&'                 ? 5
             : *q == '<' || *q == '>'  ? 4
             : *q == '"' || *q == '\'' ? 6
                                       : 1;
    }
    o = out = apr_palloc(p, n + 1);
    for (q = s; *q; ++q) {
        switch (*q) {
        case '&':
            memcpy(o, "&amp;", 5);
            o += 5;
            break;
        case '<':
            memcpy(o, "&lt;", 4);
            o += 4;
            break;
        case '>':
            memcpy(o, "&gt;", 4);
            o += 4;
            break;
        case '"':
            memcpy(o, "&quot;", 6);
            o += 6;
            break;
        case '\'':
            memcpy(o, "&#x27;", 6);
            o += 6;
            break;
        default: *o++ = *q;
        }
    }
    *o = '\0';
    return out;
}

const char *hsc_page_wait_words(apr_pool_t *p, int64_t s)
{
    int64_t m, h;

    if (s <= 0) {
        return "a moment";
    }
    if (s < 45) {
        return "less than a minute";
    }
    if (s >= (int64_t)1000 * 86400) { /* no window is this long */
        return "a long while";
    }
    m = (s + 30) / 60; /* to the nearest minute */
    if (m <= 1) {
        return "about a minute";
    }
    if (m < 60) {
        return apr_psprintf(p, "about %d minutes", (int)m);
    }
    h = (s + 1800) / 3600;
    if (h <= 1) {
        return "about an hour";
    }
    if (h < 48) {
        return apr_psprintf(p, "about %d hours", (int)h);
    }
    return apr_psprintf(p, "about %d days", (int)((s + 43200) / 86400));
}

/* The document; main_attr goes into the <main> tag ("" or a class). */
static const char *doc(apr_pool_t *p, const hsc_page_conf_t *c,
                       const char *heading, const char *body,
                       const char *main_attr)
{
    const char *site = c && c->site_name && *c->site_name
                           ? hsc_page_escape(p, c->site_name)
                           : NULL;
    const char *link = "";

    if (c && c->stylesheet && hsc_page_stylesheet_valid(c->stylesheet)) {
        link = apr_pstrcat(p, "<link rel=\"stylesheet\" href=\"",
                           hsc_page_escape(p, c->stylesheet), "\">\n", NULL);
    }
    return apr_pstrcat(p,
                       "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
                       "<meta charset=\"utf-8\">\n"
                       "<meta name=\"viewport\" content=\"width=device-width, "
                       "initial-scale=1\">\n<title>",
                       heading, site ? " \xc2\xb7 " : "", site ? site : "",
                       "</title>\n<style>", style, "</style>\n", link,
                       "</head>\n<body>\n<main", main_attr, ">\n",
                       site ? "<p class=\"hsc-site\">" : "", site ? site : "",
                       site ? "</p>\n" : "", "<h1>", heading, "</h1>\n", body,
                       "</main>\n", c && c->passkeys ? "<script>" : "",
                       c && c->passkeys ? hsc_page_script() : "",
                       c && c->passkeys ? "</script>\n" : "",
                       "</body>\n</html>\n", NULL);
}

const char *hsc_page_doc(apr_pool_t *p, const hsc_page_conf_t *c,
                         const char *heading, const char *body)
{
    return doc(p, c, heading, body, "");
}

const char *hsc_page_doc_wide(apr_pool_t *p, const hsc_page_conf_t *c,
                              const char *heading, const char *body)
{
    return doc(p, c, heading, body, " class=\"hsc-wide\"");
}

const char *hsc_page_error_block(apr_pool_t *p, const char *error)
{
    if (error == NULL) {
        return "";
    }
    return apr_pstrcat(p,
                       "<p id=\"hsc-error\" class=\"hsc-error\" "
                       "role=\"alert\">",
                       hsc_page_escape(p, error), "</p>\n", NULL);
}

const char *hsc_page_login(apr_pool_t *p, const hsc_page_conf_t *c,
                           const char *ret, const char *username,
                           const char *error)
{
    const char *err = hsc_page_error_block(p, error),
               *aria = error ? ERROR_ARIA : "";
    /* Focus where the user types next: the password once a name is kept. */
    int keep = username != NULL && *username != '\0';

    return hsc_page_doc(
        p, c, "Log in",
        apr_pstrcat(
            p, err,
            "<form method=\"post\">\n"
            "<input type=\"hidden\" name=\"return\" value=\"",
            hsc_page_escape(p, ret), "\">\n",
            "<label for=\"hsc-username\">Username</label>\n"
            "<input id=\"hsc-username\" name=\"username\" type=\"text\" "
            "value=\"",
            hsc_page_escape(p, keep ? username : NULL), "\" autocomplete=\"",
            c != NULL && c->passkeys ? "username webauthn" : "username",
            "\" autocapitalize=\"none\" "
            "spellcheck=\"false\" required",
            keep ? "" : " autofocus", aria, ">\n",
            "<label for=\"hsc-password\">Password</label>\n"
            "<input id=\"hsc-password\" name=\"password\" type=\"password\" "
            "autocomplete=\"current-password\" required",
            keep ? " autofocus" : "", aria, ">\n",
            c != NULL && c->remember
                ? "<label><input name=\"remember\" type=\"checkbox\" "
                  "value=\"1\"> Keep me signed in</label>\n"
                : "",
            "<button type=\"submit\">Log in</button>\n"
            "</form>\n",
            c != NULL && c->passkeys
                ? hsc_page_passkey_block(p, "login", "Sign in with a passkey",
                                         NULL)
                : "",
            NULL));
}

const char *hsc_page_passkey_block(apr_pool_t *p, const char *mode,
                                   const char *label, const char *extra)
{
    return apr_pstrcat(p,
                       "<div id=\"hsc-pk\" class=\"hsc-passkey\" data-mode=\"",
                       mode, "\" hidden>\n", extra ? extra : "",
                       "<button type=\"button\" id=\"hsc-pk-go\">", label,
                       "</button>\n"
                       "<p id=\"hsc-pk-status\" class=\"hsc-note\" "
                       "role=\"status\" aria-live=\"polite\"></p>\n</div>\n",
                       NULL);
}

/* The link back to the login page under a refusal. */
static const char *back_link(apr_pool_t *p, const char *back)
{
    return apr_pstrcat(p, "<p><a class=\"hsc-link\" href=\"",
                       hsc_page_escape(p, back),
                       "\">Back to the login page</a></p>\n", NULL);
}

const char *hsc_page_code(apr_pool_t *p, const hsc_page_conf_t *c,
                          const char *ret, const char *user, const char *error)
{
    const char *err = hsc_page_error_block(p, error),
               *aria = error ? ERROR_ARIA : "";
    const char
        *hidden = apr_pstrcat(p,
                              "<input type=\"hidden\" name=\"return\" value=\"",
                              hsc_page_escape(p, ret), "\">\n", NULL);

    return hsc_page_doc(
        p, c, "Second factor",
        apr_pstrcat(
            p, "<p class=\"hsc-note\">Signing in as <strong>",
            hsc_page_escape(p, user), "</strong>.</p>\n", err,
            "<form method=\"post\">\n", hidden,
            "<label for=\"hsc-code\">Code from your authenticator app"
            "</label>\n"
            "<input id=\"hsc-code\" name=\"code\" type=\"text\" "
            "autocomplete=\"one-time-code\" inputmode=\"numeric\" "
            "maxlength=\"12\" spellcheck=\"false\" required autofocus",
            aria,
            ">\n<button type=\"submit\">Continue</button>\n</form>\n"
            "<form method=\"post\">\n",
            hidden,
            "<label for=\"hsc-recovery\">Or a recovery code</label>\n"
            "<input id=\"hsc-recovery\" name=\"code\" type=\"text\" "
            "autocomplete=\"off\" autocapitalize=\"none\" "
            "spellcheck=\"false\" maxlength=\"20\" required>\n"
            "<button type=\"submit\">Use recovery code</button>\n</form>\n",
            c != NULL && c->passkeys
                ? hsc_page_passkey_block(p, "second-factor",
                                         "Use a passkey or security key", NULL)
                : "",
            NULL));
}

const char *hsc_page_no_factor(apr_pool_t *p, const hsc_page_conf_t *c,
                               const char *back)
{
    return hsc_page_doc(
        p, c, "Second factor required",
        apr_pstrcat(p,
                    "<p class=\"hsc-error\" role=\"alert\">This "
                    "site requires a second factor, and your account "
                    "has none yet. Ask an administrator for an "
                    "enrolment link.</p>\n",
                    back_link(p, back), NULL));
}

const char *hsc_page_logout(apr_pool_t *p, const hsc_page_conf_t *c,
                            const char *user, const char *cancel,
                            const char *login_url)
{
    if (user == NULL) {
        return hsc_page_doc(
            p, c, "Log out",
            apr_pstrcat(p,
                        "<p class=\"hsc-note\" role=\"status\">"
                        "You are not signed in.</p>\n",
                        login_url ? apr_pstrcat(p,
                                                "<p><a class=\"hsc-link\" "
                                                "href=\"",
                                                hsc_page_escape(p, login_url),
                                                "\">Log in</a></p>\n", NULL)
                                  : "",
                        NULL));
    }
    return hsc_page_doc(
        p, c, "Log out",
        apr_pstrcat(
            p, "<p>Signed in as <strong>", hsc_page_escape(p, user),
            "</strong>.</p>\n"
            "<form method=\"post\">\n"
            "<label class=\"hsc-check\"><input type=\"checkbox\" "
            "name=\"everywhere\" value=\"1\" "
            "aria-describedby=\"hsc-everywhere-help\"> "
            "Log out everywhere</label>\n"
            "<p id=\"hsc-everywhere-help\" class=\"hsc-help\">Also ends "
            "your sessions in every other browser and device, for example "
            "a shared or lost computer or phone. Each of them will ask for "
            "your password again.</p>\n"
            "<button type=\"submit\">Log out</button>\n"
            "</form>\n"
            "<p><a class=\"hsc-link\" href=\"",
            hsc_page_escape(p, cancel), "\">Cancel, stay signed in</a></p>\n",
            NULL));
}

const char *hsc_page_logged_out(apr_pool_t *p, const hsc_page_conf_t *c,
                                int everywhere, const char *problem,
                                const char *login_url)
{
    const char *msg;

    if (problem != NULL) {
        msg = apr_pstrcat(p, "<p class=\"hsc-error\" role=\"alert\">",
                          hsc_page_escape(p, problem), "</p>\n", NULL);
    }
    else {
        msg = everywhere
                  ? "<p class=\"hsc-note\" role=\"status\">You are logged out "
                    "everywhere: your sessions in every browser and device "
                    "have ended.</p>\n"
                  : "<p class=\"hsc-note\" role=\"status\">You are logged "
                    "out.</p>\n";
    }
    return hsc_page_doc(
        p, c, "Logged out",
        apr_pstrcat(p, msg,
                    login_url ? apr_pstrcat(p,
                                            "<p><a class=\"hsc-link\" "
                                            "href=\"",
                                            hsc_page_escape(p, login_url),
                                            "\">Log in again</a></p>\n", NULL)
                              : "",
                    NULL));
}

const char *hsc_page_throttled(apr_pool_t *p, const hsc_page_conf_t *c,
                               int64_t retry_after, const char *back)
{
    return hsc_page_doc(
        p, c, "Too many login attempts",
        apr_pstrcat(p,
                    "<p class=\"hsc-error\" role=\"alert\">Too many "
                    "failed logins. Try again in ",
                    hsc_page_wait_words(p, retry_after), ".</p>\n",
                    back_link(p, back), NULL));
}

const char *hsc_page_busy(apr_pool_t *p, const hsc_page_conf_t *c,
                          const char *back)
{
    return hsc_page_doc(p, c, "Server busy",
                        apr_pstrcat(p,
                                    "<p class=\"hsc-error\" role=\"alert\">The "
                                    "server is busy checking other logins. Try "
                                    "again in a moment.</p>\n",
                                    back_link(p, back), NULL));
}
