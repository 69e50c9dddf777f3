/*
 * test_pages.c: the pages' HTML and CSP (hsc_pages.h): escaping, the
 * stylesheet's hash, the wait wording, and what each page must carry for
 * people, phones and screen readers.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "apr_general.h"

#include "hsc_test.h"
#include "hsc_pages.h"

static apr_pool_t *pool;

static int has(const char *hay, const char *needle)
{
    return hay != NULL && strstr(hay, needle) != NULL;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;

    while (hay && (hay = strstr(hay, needle)) != NULL) {
        ++n;
        ++hay;
    }
    return n;
}

static void escaping_covers_every_html_special(void)
{
    CHECK_STR(hsc_page_escape(pool, "a&b<c>d\"e'f"),
              "a&amp;b&lt;c&gt;d&quot;e&#x27;f", "all five replaced");
    CHECK_STR(hsc_page_escape(pool, ""), "", "empty stays empty");
    CHECK_STR(hsc_page_escape(pool, NULL), "", "NULL gives empty");
    CHECK_STR(hsc_page_escape(pool, "\xc3\xa9t\xc3\xa9"), "\xc3\xa9t\xc3\xa9",
              "UTF-8 passes unchanged");
}

static void style_hash_is_the_sha256_of_the_style(void)
{
    const char *css = hsc_page_style(), *h = hsc_page_style_hash();
    unsigned char md[32], b64[45];
    unsigned int mdlen = 0;
    char want[64];

    EVP_Digest(css, strlen(css), md, &mdlen, EVP_sha256(), NULL);
    EVP_EncodeBlock(b64, md, 32);
    snprintf(want, sizeof(want), "sha256-%s", (char *)b64);
    CHECK_STR(h, want, "sha256-<base64 of the digest>");
    CHECK(h == hsc_page_style_hash(), "computed once, the same string");
    CHECK(!has(css, "</"), "the style cannot close its element");
    CHECK(has(css, "16px") && has(css, "min-height:44px"),
          "16 px text and 44 px controls");
}

static void csp_allows_the_hash_and_nothing_inline(void)
{
    const char *csp = hsc_page_csp(pool, NULL, NULL);
    char want[128];

    snprintf(want, sizeof(want), "style-src '%s';", hsc_page_style_hash());
    CHECK(has(csp, "default-src 'none'"), "default-src 'none'");
    CHECK(has(csp, want), "style-src is the hash alone");
    CHECK(has(csp, "frame-ancestors 'none'"), "frame-ancestors 'none'");
    CHECK(!has(csp, "unsafe"), "never unsafe-inline");
    csp = hsc_page_csp(pool, "/static/site.css", NULL);
    snprintf(want, sizeof(want), "style-src '%s' 'self';",
             hsc_page_style_hash());
    CHECK(has(csp, want), "a local stylesheet adds 'self'");
    csp = hsc_page_csp(pool, "https://cdn.example/site.css", NULL);
    snprintf(want, sizeof(want), "style-src '%s' https://cdn.example/site.css;",
             hsc_page_style_hash());
    CHECK(has(csp, want), "an absolute stylesheet adds its URL");
    csp = hsc_page_csp(pool, "https://x/a.css; script-src *", NULL);
    CHECK(!has(csp, "script-src"), "a URL with ';' never reaches the CSP");
}

/* Forms post here only, no <base>; a form's redirect to an
 * absolute HSCLoginSuccessURL (browsers check it) is allowed by origin. */
static void csp_limits_forms_and_base(void)
{
    const char *local[] = {"/wiki/", NULL, "/signin.html", NULL};
    const char *abs[] = {"https://app.example:8443/home?x=1", NULL,
                         "http://a.example", "https://x;y/", NULL};
    const char *csp = hsc_page_csp(pool, NULL, local);

    CHECK(has(csp, "; form-action 'self';"), "form-action 'self' alone");
    CHECK(has(csp, "; base-uri 'none'"), "base-uri 'none'");
    csp = hsc_page_csp(pool, NULL, NULL);
    CHECK(has(csp, "; form-action 'self';"), "no targets: 'self'");
    csp = hsc_page_csp(pool, NULL, abs);
    CHECK(has(csp, "; form-action 'self' https://app.example:8443;"),
          "an absolute target adds its origin only (no path, no query)");
    abs[1] = "http://a.example";
    abs[2] = "https://x;y/";
    csp = hsc_page_csp(pool, NULL, abs);
    CHECK(has(csp, "form-action 'self' https://app.example:8443 "
                   "http://a.example;"),
          "each absolute target adds its origin");
    CHECK(!has(csp, "x;y"), "an origin with ';' never reaches the CSP");
}

/* A login's return target on an HSCReturnHosts host (the app behind a
 * proxy): its exact origin, port included, is allowed to receive the
 * login form's redirect; only a host-source a CSP can carry gets in. */
static void csp_names_a_return_targets_origin(void)
{
    const char *t[] = {"http://127.0.0.1:51945/proxied/", NULL};
    const char *csp = hsc_page_csp(pool, NULL, t);
    static const char *const bad[] = {"http://[::1]:8080/x",
                                      "https://app.example:/x",
                                      "https://app.example:123456/x",
                                      "https://:80/x",
                                      "https://a.example:8443:1/x",
                                      "https://a b/x",
                                      "https://a,b/x",
                                      "https://a'b/x",
                                      "https://user@a.example/x",
                                      "https:///x",
                                      "ftp://a.example/x",
                                      "//a.example/x"};
    size_t i;

    CHECK(has(csp, "; form-action 'self' http://127.0.0.1:51945;"),
          "the return target's origin, scheme and port included");
    t[0] = "https://app.example.com/home?x=1#y";
    csp = hsc_page_csp(pool, NULL, t);
    CHECK(has(csp, "; form-action 'self' https://app.example.com;"),
          "no port: the origin without one (the scheme's default)");
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        t[0] = bad[i];
        csp = hsc_page_csp(pool, NULL, t);
        CHECK(has(csp, "; form-action 'self';"),
              "not a CSP host-source: left out");
    }
}

static void stylesheet_urls_are_checked(void)
{
    CHECK(hsc_page_stylesheet_valid("/s.css"), "local path");
    CHECK(hsc_page_stylesheet_valid("https://cdn.example/s.css"), "https");
    CHECK(hsc_page_stylesheet_valid("http://cdn.example/s.css"), "http");
    CHECK(!hsc_page_stylesheet_valid("//cdn.example/s.css"),
          "scheme-relative refused");
    CHECK(!hsc_page_stylesheet_valid("/\\cdn.example/s.css"), "/\\ refused");
    CHECK(!hsc_page_stylesheet_valid("s.css"), "relative refused");
    CHECK(!hsc_page_stylesheet_valid("data:text/css,a"), "data: refused");
    CHECK(!hsc_page_stylesheet_valid("/a b.css"), "space refused");
    CHECK(!hsc_page_stylesheet_valid("/a\".css"), "quote refused");
    CHECK(!hsc_page_stylesheet_valid("/a,b.css"), "comma refused");
    CHECK(!hsc_page_stylesheet_valid(""), "empty refused");
    CHECK(!hsc_page_stylesheet_valid(NULL), "NULL refused");
}

static const struct {
    int64_t s;
    const char *words;
} waits[] = {
    {0, "a moment"},
    {-3, "a moment"},
    {1, "less than a minute"},
    {44, "less than a minute"},
    {45, "about a minute"},
    {89, "about a minute"},
    {90, "about 2 minutes"},
    {287, "about 5 minutes"},
    {300, "about 5 minutes"},
    {3569, "about 59 minutes"},
    {3570, "about an hour"},
    {5399, "about an hour"},
    {5400, "about 2 hours"},
    {7200, "about 2 hours"},
    {172800, "about 2 days"},
    {86399999, "about 1000 days"},
    {86400000, "a long while"},
    {INT64_MAX, "a long while"},
};

static void waits_are_rounded_to_human_words(void)
{
    size_t i;
    char what[64];

    for (i = 0; i < sizeof(waits) / sizeof(waits[0]); ++i) {
        snprintf(what, sizeof(what), "%lld s", (long long)waits[i].s);
        CHECK_STR(hsc_page_wait_words(pool, waits[i].s), waits[i].words, what);
    }
}

static void login_page_for_people_and_screen_readers(void)
{
    hsc_page_conf_t c = {"Example <Corp>", NULL, 0, 0};
    const char *h = hsc_page_login(pool, &c, "/app/?a=1&b=2", NULL, NULL);
    char style[64];

    CHECK(!strncmp(h, "<!DOCTYPE html>\n<html lang=\"en\">", 32), "HTML5");
    CHECK(has(h, "<meta name=\"viewport\" content=\"width=device-width, "
                 "initial-scale=1\">"),
          "viewport meta");
    CHECK(has(h, "<title>Log in \xc2\xb7 Example &lt;Corp&gt;</title>"),
          "site name in the title, escaped");
    CHECK(has(h, "<p class=\"hsc-site\">Example &lt;Corp&gt;</p>\n<h1>Log in"),
          "site name above the heading");
    snprintf(style, sizeof(style), "<style>%.20s", hsc_page_style());
    CHECK(has(h, style) && count(h, "<style>") == 1, "the built-in style");
    CHECK(!has(h, "<link"), "no stylesheet link by default");
    CHECK(!has(h, "<script"), "no script");
    CHECK(has(h, "name=\"return\" value=\"/app/?a=1&amp;b=2\""),
          "return kept, escaped");
    CHECK(has(h, "autocapitalize=\"none\" spellcheck=\"false\""),
          "username: no capitalisation, no spell check");
    CHECK(has(h, "autocomplete=\"username\"")
              && has(h, "autocomplete=\"current-password\""),
          "autocomplete hints");
    CHECK(has(h, "value=\"\" autocomplete=\"username\" autocapitalize=\"none\" "
                 "spellcheck=\"false\" required autofocus>"),
          "first visit: focus on the username");
    CHECK(!has(h, "role=\"alert\"") && !has(h, "aria-invalid=\"true\""),
          "no error, nothing invalid");
    CHECK(!has(h, "name=\"remember\""), "no \"keep me signed in\" box");
    c.remember = 1;
    h = hsc_page_login(pool, &c, NULL, NULL, NULL);
    CHECK(has(h, "<label><input name=\"remember\" type=\"checkbox\" "
                 "value=\"1\"> Keep me signed in</label>\n<button"),
          "HSCRememberMe: the box, labelled, before the button");

    h = hsc_page_login(pool, NULL, NULL, "al\"ice<", "Login failed.");
    CHECK(has(h, "<title>Log in</title>") && !has(h, "<p class=\"hsc-site\""),
          "no site name: plain title");
    CHECK(has(h, "value=\"al&quot;ice&lt;\""), "username kept, escaped");
    CHECK(has(h, "<p id=\"hsc-error\" class=\"hsc-error\" role=\"alert\">"
                 "Login failed.</p>"),
          "the error is an alert");
    CHECK_EQ(count(h, "aria-invalid=\"true\" aria-describedby=\"hsc-error\""),
             2, "both fields point at the error");
    CHECK(has(h, "current-password\" required autofocus"),
          "after a failure: focus on the password");
    CHECK_EQ(count(h, "autofocus"), 1, "one autofocus");
    CHECK(has(h, "name=\"return\" value=\"\""), "no return: empty");
}

static void site_stylesheet_is_linked_after_ours(void)
{
    hsc_page_conf_t c = {NULL, "/static/site.css", 0, 0};
    const char *h = hsc_page_login(pool, &c, NULL, NULL, NULL);
    const char *st = strstr(h, "</style>"), *ln = strstr(h, "<link");

    CHECK(has(h, "<link rel=\"stylesheet\" href=\"/static/site.css\">"),
          "linked");
    CHECK(st && ln && st < ln, "after the built-in style (it wins)");
    c.stylesheet = "/x\"onload=\"y";
    CHECK(!has(hsc_page_login(pool, &c, NULL, NULL, NULL), "<link"),
          "an invalid URL is never linked");
}

static void logout_page_says_who_and_how_back(void)
{
    const char *h = hsc_page_logout(pool, NULL, "alice&bob", "/app/", "/login");

    CHECK(has(h, "Signed in as <strong>alice&amp;bob</strong>."),
          "signed in as, escaped");
    CHECK(has(h, "<a class=\"hsc-link\" href=\"/app/\">Cancel"),
          "a cancel link back");
    CHECK(has(h, "name=\"everywhere\" value=\"1\" "
                 "aria-describedby=\"hsc-everywhere-help\"")
              && has(h, "id=\"hsc-everywhere-help\"")
              && has(h, "every other browser and device"),
          "log out everywhere, explained and tied to its help");
    CHECK(has(h, "<form method=\"post\">"), "a POST form");
    h = hsc_page_logout(pool, NULL, NULL, "/app/", "/login");
    CHECK(has(h, "You are not signed in.") && !has(h, "<form"),
          "nobody signed in: no form");
    CHECK(has(h, "href=\"/login\">Log in</a>"), "and a login link");
}

static void logged_out_page_confirms(void)
{
    const char *h = hsc_page_logged_out(pool, NULL, 0, NULL, "/login");

    CHECK(has(h, "<h1>Logged out</h1>") && has(h, "You are logged out."),
          "the message");
    CHECK(has(h, "role=\"status\""), "announced");
    CHECK(has(h, "href=\"/login\">Log in again</a>"), "log in again");
    h = hsc_page_logged_out(pool, NULL, 1, NULL, NULL);
    CHECK(has(h, "logged out everywhere") && !has(h, "<a "),
          "everywhere; no link without a login URL");
    h = hsc_page_logged_out(pool, NULL, 1, "read-only <db>", NULL);
    CHECK(has(h, "role=\"alert\">read-only &lt;db&gt;</p>")
              && !has(h, "logged out everywhere"),
          "a problem replaces the everywhere message");
}

static void throttled_page_in_words_with_a_link(void)
{
    const char *h = hsc_page_throttled(pool, NULL, 287, "/login?return=%2F");

    CHECK(has(h, "Try again in about 5 minutes."), "287 s: about 5 minutes");
    CHECK(!has(h, "287"), "no raw seconds");
    CHECK(has(h, "<a class=\"hsc-link\" href=\"/login?return=%2F\">"),
          "a link back");
    h = hsc_page_busy(pool, NULL, "/login");
    CHECK(has(h, "Try again in a moment") && has(h, "href=\"/login\""),
          "busy: a moment, a link back");
}

/* The passkey button and script only with HSCPasskeys On; the
 * script is allowed by its own SHA-256, computed here again. */
static void passkeys_only_where_on(void)
{
    hsc_page_conf_t off = {NULL, NULL, 0, 0}, on = {NULL, NULL, 0, 1};
    const char *page = hsc_page_login(pool, &off, NULL, NULL, NULL);
    const char *js = hsc_page_script();
    unsigned char md[32];
    unsigned int n = 0;
    char b64[64], want[128];
    hsc_account_view_t v;

    CHECK(!has(page, "<script") && !has(page, "hsc-pk"),
          "off: no script, no passkey button");
    CHECK(has(page, "autocomplete=\"username\""), "off: plain autocomplete");
    page = hsc_page_login(pool, &on, NULL, NULL, NULL);
    CHECK(has(page, "autocomplete=\"username webauthn\""),
          "on: the username field offers passkeys (autofill)");
    CHECK(has(page, "data-mode=\"login\"")
              && has(page, "Sign in with a passkey")
              && has(page, "aria-live=\"polite\""),
          "on: the login button and its spoken status");
    CHECK(has(page, js) && has(page, "<script>"), "on: the script inlined");
    page = hsc_page_code(pool, &on, NULL, "ann", NULL);
    CHECK(has(page, "data-mode=\"second-factor\"")
              && has(page, "Use a passkey or security key"),
          "the second-factor page's button");
    EVP_Digest(js, strlen(js), md, &n, EVP_sha256(), NULL);
    EVP_EncodeBlock((unsigned char *)b64, md, 32);
    snprintf(want, sizeof(want), "script-src 'sha256-%s'", b64);
    CHECK(has(hsc_page_script_csp(), want), "the CSP allows the script's hash");
    CHECK(has(hsc_page_script_csp(), "connect-src 'self'"),
          "and fetch() to this site only");
    CHECK(!has(js, "</script"), "the script cannot close its element");
    memset(&v, 0, sizeof(v));
    v.user = "ann";
    page = hsc_page_account(pool, &on, &v);
    CHECK(!has(page, "Passkeys</h3>"), "account: no section unless listed");
    {
        hsc_page_passkey_t k = {"QUJD", "My <key>", 1700000000, 1, 0};
        v.passkeys = 1;
        v.passkey_list = &k;
        v.n_passkeys = 1;
        page = hsc_page_account(pool, &on, &v);
        CHECK(has(page, "My &lt;key&gt;") && has(page, "2023-11-14")
                  && has(page, ">sealed<"),
              "account: name (escaped), date, sealed");
        CHECK(has(page, "value=\"passkey-rename\"")
                  && has(page, "value=\"passkey-remove\"")
                  && has(page, "name=\"passkey_id\" value=\"QUJD\""),
              "account: rename and remove forms");
        CHECK(has(page, "name=\"password\" type=\"password\""),
              "account: removing asks the password after a while");
        CHECK(has(page, "data-mode=\"create\"") && has(page, "Add a passkey"),
              "account: the Add button");
        CHECK(has(page, "<td>-</td>")
                  && has(page, "placeholder=\"My &lt;key&gt;\""),
              "account: never used; the rename field shows the name");
        CHECK(has(page, "needs a passkey: off") && !has(page, "seal-on")
                  && has(page, "sign in with your passkey first"),
              "switch: off, not from an unsealed session");
        v.sealed_session = 1;
        page = hsc_page_account(pool, &on, &v);
        CHECK(has(page, "value=\"seal-on\"") && !has(page, "seal-off"),
              "switch: on offered from a sealed session");
        k.sealed = 0;
        k.last_used = 1700086400;
        page = hsc_page_account(pool, &on, &v);
        CHECK(!has(page, "seal-on") && has(page, "not sealed:")
                  && has(page, "2023-11-15"),
              "switch: not while a passkey is unsealed; last used");
        k.sealed = 1;
        v.seal_required = 1;
        page = hsc_page_account(pool, &on, &v);
        CHECK(has(page, "needs a passkey: on")
                  && has(page, "value=\"seal-off\""),
              "switch: on, off offered from a sealed session");
        v.sealed_session = 0;
        page = hsc_page_account(pool, &on, &v);
        CHECK(!has(page, "seal-off")
                  && has(page, "Sign in with your passkey to turn this off"),
              "switch: off needs a sealed session");
    }
}

/* The account page in sections (cards) in the order people look for
 * them, each button drawn for what it does: the form's main action
 * plain, another action beside it secondary, one that removes or ends
 * something destructive. */
static void account_sections_and_button_kinds(void)
{
    hsc_page_conf_t c = {NULL, NULL, 0, 1};
    hsc_page_passkey_t k = {"QUJD", "laptop", 1700000000, 1, 0};
    hsc_page_token_t t = {"t1", "git", "", 1700000000, 0, 0};
    hsc_account_view_t v;
    const char *page, *a, *b, *m, *tk, *se;

    memset(&v, 0, sizeof(v));
    v.user = "ann";
    v.recent = 1;
    v.factors = 1;
    v.totp = 1;
    v.tokens = 1;
    v.token_list = &t;
    v.n_tokens = 1;
    v.passkeys = 1;
    v.passkey_list = &k;
    v.n_passkeys = 1;
    page = hsc_page_account(pool, &c, &v);
    a = strstr(page, ">Account</h2>");
    b = strstr(page, ">Password</h2>");
    m = strstr(page, ">Sign-in methods</h2>");
    tk = strstr(page, ">App passwords</h2>");
    se = strstr(page, ">Sessions</h2>");
    CHECK(a && b && m && tk && se && a < b && b < m && m < tk && tk < se,
          "account, password, sign-in methods, app passwords, sessions");
    CHECK(count(page, "<section class=\"hsc-group\" aria-labelledby=") == 5
              && has(page, "<main class=\"hsc-wide\">"),
          "each a labelled section of a wider page");
    m = strstr(page, ">Sign-in methods</h2>");
    CHECK(m && strstr(m, "<h3>Authenticator app</h3>") < tk
              && strstr(m, "<h3>Recovery codes</h3>") < tk
              && strstr(m, "<h3>Passkeys</h3>") < tk,
          "the app, recovery codes and passkeys are sign-in methods");
    CHECK(has(page, "class=\"hsc-btn-danger\">Remove the authenticator app<")
              && has(page, "class=\"hsc-btn-danger\">Sign out everywhere<")
              && has(page, "class=\"hsc-btn-danger\">Revoke<")
              && has(page, "class=\"hsc-btn-danger\">Remove<"),
          "remove, revoke and sign out everywhere: destructive");
    CHECK(count(strstr(page, "</style>"), "hsc-btn-danger") == 4,
          "and nothing else");
    CHECK(has(page, "class=\"hsc-btn-secondary\">Make new recovery codes<")
              && has(page, "class=\"hsc-btn-secondary\">Rename<")
              && count(strstr(page, "</style>"), "hsc-btn-secondary") == 2,
          "new recovery codes and rename: secondary");
    CHECK(has(page, "<button type=\"submit\">Change password<")
              && has(page, "<button type=\"submit\">Create app password<"),
          "changing the password, a new app password: the main action");
    v.totp = 0;
    page = hsc_page_account(pool, &c, &v);
    CHECK(has(page, "<button type=\"submit\">Set up an authenticator app<"),
          "setting up the app: the main action");
    CHECK(has(hsc_page_style(), ".hsc-btn-danger{color:#b00020}")
              && has(hsc_page_style(), ".hsc-btn-secondary{color:#1f5fbf}"),
          "the stylesheet draws both kinds");
    v.factors = 0;
    v.passkeys = 0;
    v.tokens = 0;
    page = hsc_page_account(pool, &c, &v);
    CHECK(!has(page, "Sign-in methods") && !has(page, "App passwords")
              && count(page, "<section ") == 3,
          "a section only where it has something");
}

int main(void)
{
    apr_initialize();
    apr_pool_create(&pool, NULL);
    RUN(escaping_covers_every_html_special);
    RUN(style_hash_is_the_sha256_of_the_style);
    RUN(csp_allows_the_hash_and_nothing_inline);
    RUN(csp_limits_forms_and_base);
    RUN(csp_names_a_return_targets_origin);
    RUN(stylesheet_urls_are_checked);
    RUN(waits_are_rounded_to_human_words);
    RUN(login_page_for_people_and_screen_readers);
    RUN(site_stylesheet_is_linked_after_ours);
    RUN(logout_page_says_who_and_how_back);
    RUN(logged_out_page_confirms);
    RUN(throttled_page_in_words_with_a_link);
    RUN(passkeys_only_where_on);
    RUN(account_sections_and_button_kinds);
    apr_pool_destroy(pool);
    apr_terminate();
    return hsc_test_done();
}
