/*
 * hsc_pages_account.c: the HTML of the account page (SetHandler
 * hsc-account) and of its two steps that show a secret once: setting up
 * an authenticator app (its QR code and key) and new recovery codes. As
 * in hsc_pages.c, every string from a request or the configuration is
 * HTML-escaped here.
 */
#include <string.h>

#include "apr_strings.h"

#include "hsc_pages.h"
#include "hsc_pages_doc.h"

/* The account page's list of facts: a row of term and description. */
static const char *fact(apr_pool_t *p, const char *term, const char *desc)
{
    return apr_pstrcat(p, "<dt>", term, "</dt><dd>", desc, "</dd>\n", NULL);
}

/* The new password twice, with the minimum as a hint; aria marks them
 * after a refusal, extra (" autofocus" or "") goes on the first. */
static const char *new_password_fields(apr_pool_t *p, int min_chars,
                                       const char *aria, const char *extra)
{
    const char *min = apr_itoa(p, min_chars);

    return apr_pstrcat(
        p,
        "<label for=\"hsc-new\">New password</label>\n"
        "<input id=\"hsc-new\" name=\"new_password\" type=\"password\" "
        "autocomplete=\"new-password\" aria-describedby=\"hsc-new-help\" "
        "minlength=\"",
        min, "\" required", extra, aria,
        ">\n<p id=\"hsc-new-help\" class=\"hsc-help\">At least ", min,
        " characters. Any characters, spaces too; a few unrelated words "
        "make a good one.</p>\n"
        "<label for=\"hsc-new2\">New password again</label>\n"
        "<input id=\"hsc-new2\" name=\"new_password2\" type=\"password\" "
        "autocomplete=\"new-password\" required",
        aria, ">\n", NULL);
}

/* A form posting action to the page; without a recent login it asks for
 * the password first (id names its field uniquely). cls: the button's
 * class ("" for the section's main action, else " class=\"...\""). */
static const char *action_form(apr_pool_t *p, const hsc_account_view_t *v,
                               const char *action, const char *id,
                               const char *cls, const char *button)
{
    return apr_pstrcat(
        p, "<form method=\"post\">\n<input type=\"hidden\" name=\"action\" ",
        "value=\"", action, "\">\n",
        v->recent ? ""
                  : apr_pstrcat(p, "<label for=\"hsc-", id,
                                "\">Your password, to confirm</label>\n"
                                "<input id=\"hsc-",
                                id,
                                "\" name=\"password\" type=\"password\" "
                                "autocomplete=\"current-password\" required>\n",
                                NULL),
        "<button type=\"submit\"", cls, ">", button, "</button>\n</form>\n",
        NULL);
}

/* A section of the account page: a card with its heading (id names it
 * for aria-labelledby). */
static const char *group(apr_pool_t *p, const char *id, const char *heading,
                         const char *body)
{
    return apr_pstrcat(p, "<section class=\"hsc-group\" aria-labelledby=\"", id,
                       "\">\n<h2 id=\"", id, "\">", heading, "</h2>\n", body,
                       "</section>\n", NULL);
}

/* The second factors: the authenticator app's state and what can be
 * done, recovery codes. */
static const char *factor_forms(apr_pool_t *p, const hsc_account_view_t *v)
{
    if (!v->factors) {
        return "";
    }
    return apr_pstrcat(
        p, "<h3>Authenticator app</h3>\n",
        v->totp > 0
            ? apr_pstrcat(p,
                          "<p>On. Removing it ends your other sessions.</p>\n",
                          action_form(p, v, "totp-remove", "confirm-remove",
                                      BTN_DANGER,
                                      "Remove the authenticator app"),
                          NULL)
            : apr_pstrcat(p,
                          "<p>Off. With one, signing in also asks for a "
                          "code from your phone.</p>\n",
                          action_form(p, v, "totp-setup", "confirm-setup", "",
                                      "Set up an authenticator app"),
                          NULL),
        "<h3>Recovery codes</h3>\n"
        "<p>For when your phone is not at hand: each code works once. New "
        "codes replace the old ones.</p>\n",
        action_form(p, v, "recovery-new", "confirm-codes", BTN_SECONDARY,
                    "Make new recovery codes"),
        v->recent ? ""
                  : "<p class=\"hsc-help\">These ask for your password "
                    "because you signed in a while ago.</p>\n",
        NULL);
}

/* A user with a second factor changes how they sign in only with it,
 * used lately: where this session has not, the way to use it now. */
static const char *stepup_note(apr_pool_t *p, const hsc_account_view_t *v)
{
    if (v->stepup_url == NULL) {
        return "";
    }
    return apr_pstrcat(p,
                       "<p class=\"hsc-note\" id=\"hsc-stepup\">Changing your "
                       "password, second factors, passkeys or app passwords "
                       "needs your second factor, used in this session "
                       "lately. <a class=\"hsc-link\" href=\"",
                       hsc_page_escape(p, v->stepup_url),
                       "\">Confirm with your second factor</a></p>\n", NULL);
}

/* The password section: the change form. */
static const char *password_form(apr_pool_t *p, const hsc_account_view_t *v,
                                 const char *aria)
{
    return apr_pstrcat(
        p,
        "<form method=\"post\">\n"
        "<input type=\"hidden\" name=\"action\" value=\"password\">\n"
        /* For password managers: whose password this is. */
        "<input type=\"hidden\" name=\"username\" "
        "autocomplete=\"username\" value=\"",
        hsc_page_escape(p, v->user),
        "\">\n"
        "<label for=\"hsc-current\">Current password</label>\n"
        "<input id=\"hsc-current\" name=\"password\" type=\"password\" "
        "autocomplete=\"current-password\" required",
        aria, ">\n", new_password_fields(p, v->min_chars, aria, ""),
        "<button type=\"submit\">Change password</button>\n</form>\n", NULL);
}

/* Who is signed in, and how: the facts at the top of the page. */
static const char *facts(apr_pool_t *p, const hsc_account_view_t *v)
{
    const char *groups = v->groups && *v->groups ? hsc_page_escape(p, v->groups)
                                                 : "none";
    const char *totp = v->totp < 0   ? "cannot be read now"
                       : v->totp > 0 ? "on"
                                     : "off";
    const char *codes = v->recovery_left < 0
                            ? "cannot be read now"
                            : apr_psprintf(p, "%d left", v->recovery_left);

    return apr_pstrcat(p, "<dl class=\"hsc-facts\">\n",
                       fact(p, "Signed in as",
                            apr_pstrcat(p, "<strong>",
                                        hsc_page_escape(p, v->user),
                                        "</strong>", NULL)),
                       fact(p, "Groups", groups),
                       fact(p, "Authenticator app", totp),
                       fact(p, "Recovery codes", codes), "</dl>\n", NULL);
}

const char *hsc_page_account(apr_pool_t *p, const hsc_page_conf_t *c,
                             const hsc_account_view_t *v)
{
    const char *err = hsc_page_error_block(p, v->error),
               *aria = v->error ? ERROR_ARIA : "";
    const char *note = v->notice ? apr_pstrcat(p,
                                               "<p class=\"hsc-note\" "
                                               "role=\"status\">",
                                               hsc_page_escape(p, v->notice),
                                               "</p>\n", NULL)
                                 : "";
    const char *methods, *tokens;

    if (v->user == NULL) {
        return hsc_page_doc(
            p, c, "Your account",
            apr_pstrcat(p,
                        "<p class=\"hsc-note\" role=\"status\">"
                        "You are not signed in.</p>\n",
                        v->login_url
                            ? apr_pstrcat(p, "<p><a class=\"hsc-link\" href=\"",
                                          hsc_page_escape(p, v->login_url),
                                          "\">Log in</a></p>\n", NULL)
                            : "",
                        NULL));
    }
    methods = apr_pstrcat(p, factor_forms(p, v),
                          hsc_page_passkeys_section(p, v), NULL);
    tokens = hsc_page_tokens_section(p, v);
    /* The sections in the order a person looks for them: the password,
     * the other ways to sign in, programs' passwords, the sessions. */
    return hsc_page_doc_wide(
        p, c, "Your account",
        apr_pstrcat(p, note, err, stepup_note(p, v),
                    group(p, "hsc-s-account", "Account", facts(p, v)),
                    group(p, "hsc-s-password", "Password",
                          password_form(p, v, aria)),
                    *methods
                        ? group(p, "hsc-s-methods", "Sign-in methods", methods)
                        : "",
                    *tokens ? group(p, "hsc-s-tokens", "App passwords", tokens)
                            : "",
                    group(p, "hsc-s-sessions", "Sessions",
                          "<p>Sign out everywhere: ends every session of your "
                          "account, on every device, this one included.</p>\n"
                          "<form method=\"post\">\n"
                          "<input type=\"hidden\" name=\"action\" "
                          "value=\"signout\">\n"
                          "<button type=\"submit\"" BTN_DANGER
                          ">Sign out everywhere</button>\n</form>\n"),
                    NULL));
}

/* "ABCD EFGH ...": a base32 key in groups of four, easier to type. */
static const char *grouped(apr_pool_t *p, const char *key)
{
    size_t n = strlen(key), i, o = 0;
    char *out = apr_palloc(p, n + n / 4 + 1);

    for (i = 0; i < n; i++) {
        if (i > 0 && i % 4 == 0) {
            out[o++] = ' ';
        }
        out[o++] = key[i];
    }
    out[o] = '\0';
    return out;
}

/* The hidden field that carries a one-time link through a form. */
static const char *link_field(apr_pool_t *p, const char *link)
{
    if (link == NULL) {
        return "";
    }
    return apr_pstrcat(p, "<input type=\"hidden\" name=\"link\" value=\"",
                       hsc_page_escape(p, link), "\">\n", NULL);
}

const char *hsc_page_totp_setup(apr_pool_t *p, const hsc_page_conf_t *c,
                                const char *qr_svg, const char *key,
                                const char *link, const char *back,
                                const char *error)
{
    const char *err = hsc_page_error_block(p, error),
               *aria = error ? ERROR_ARIA : "";

    return hsc_page_doc(
        p, c, "Set up an authenticator app",
        apr_pstrcat(
            p, err,
            "<p>1. Scan this code with your authenticator app (Google "
            "Authenticator, Aegis, 1Password, ...).</p>\n",
            qr_svg ? qr_svg : "",
            "\n<p>Or type this key into it:</p>\n"
            "<p class=\"hsc-secret\"><code>",
            hsc_page_escape(p, grouped(p, key)),
            "</code></p>\n"
            "<form method=\"post\">\n"
            "<input type=\"hidden\" name=\"action\" value=\"totp-confirm\">\n",
            link_field(p, link),
            "<label for=\"hsc-code\">2. Enter the code the app shows</label>\n"
            "<input id=\"hsc-code\" name=\"code\" type=\"text\" "
            "autocomplete=\"one-time-code\" inputmode=\"numeric\" "
            "maxlength=\"12\" spellcheck=\"false\" required autofocus",
            aria,
            ">\n<button type=\"submit\">Turn it on</button>\n</form>\n"
            "<p><a class=\"hsc-link\" href=\"",
            hsc_page_escape(p, back), "\">Cancel</a></p>\n", NULL));
}

const char *hsc_page_recovery_codes(apr_pool_t *p, const hsc_page_conf_t *c,
                                    const char *notice,
                                    const char *const *codes, size_t n,
                                    const char *back)
{
    const char *list = "";
    size_t i;

    for (i = 0; i < n; i++) {
        list = apr_pstrcat(p, list, "<li><code>", hsc_page_escape(p, codes[i]),
                           "</code></li>\n", NULL);
    }
    return hsc_page_doc(
        p, c, "Your recovery codes",
        apr_pstrcat(
            p,
            notice ? apr_pstrcat(p, "<p class=\"hsc-note\" role=\"status\">",
                                 hsc_page_escape(p, notice), "</p>\n", NULL)
                   : "",
            "<p>Keep these somewhere safe, away from your phone: each signs "
            "you in once when the app cannot. They are shown only now; any "
            "earlier codes no longer work.</p>\n"
            "<ul class=\"hsc-codes\">\n",
            list, "</ul>\n<p><a class=\"hsc-link\" href=\"",
            hsc_page_escape(p, back), "\">Done</a></p>\n", NULL));
}

const char *hsc_page_link_password(apr_pool_t *p, const hsc_page_conf_t *c,
                                   const char *user, int invite,
                                   const char *link, int min_chars,
                                   const char *error)
{
    const char *err = hsc_page_error_block(p, error),
               *aria = error ? ERROR_ARIA : "";

    return hsc_page_doc(
        p, c, invite ? "Welcome: choose a password" : "Choose a new password",
        apr_pstrcat(
            p, err, "<p>For <strong>", hsc_page_escape(p, user),
            "</strong>. This link works once.</p>\n"
            "<form method=\"post\">\n"
            "<input type=\"hidden\" name=\"action\" value=\"link-password\">\n",
            link_field(p, link),
            "<input type=\"hidden\" name=\"username\" "
            "autocomplete=\"username\" value=\"",
            hsc_page_escape(p, user), "\">\n",
            new_password_fields(p, min_chars, aria, " autofocus"),
            "<button type=\"submit\">Set the password</button>\n</form>\n",
            NULL));
}

const char *hsc_page_link_enrol(apr_pool_t *p, const hsc_page_conf_t *c,
                                const char *user, const char *link)
{
    return hsc_page_doc(
        p, c, "Set up an authenticator app",
        apr_pstrcat(p, "<p>For <strong>", hsc_page_escape(p, user),
                    "</strong>. This link works once: keep your phone at "
                    "hand.</p>\n"
                    "<form method=\"post\">\n"
                    "<input type=\"hidden\" name=\"action\" "
                    "value=\"link-enrol\">\n",
                    link_field(p, link),
                    "<button type=\"submit\">Begin</button>\n</form>\n", NULL));
}

const char *hsc_page_message(apr_pool_t *p, const hsc_page_conf_t *c,
                             const char *heading, const char *text, int alert,
                             const char *url, const char *words)
{
    return hsc_page_doc(
        p, c, heading,
        apr_pstrcat(p,
                    alert ? "<p class=\"hsc-error\" role=\"alert\">"
                          : "<p class=\"hsc-note\" role=\"status\">",
                    hsc_page_escape(p, text), "</p>\n",
                    url ? apr_pstrcat(p, "<p><a class=\"hsc-link\" href=\"",
                                      hsc_page_escape(p, url), "\">",
                                      hsc_page_escape(p, words), "</a></p>\n",
                                      NULL)
                        : "",
                    NULL));
}

const char *hsc_page_factor_setup(apr_pool_t *p, const hsc_page_conf_t *c,
                                  const char *user)
{
    return hsc_page_doc(
        p, c, "Set up a second factor",
        apr_pstrcat(p,
                    "<p class=\"hsc-note\" role=\"status\">Signing in as "
                    "<strong>",
                    hsc_page_escape(p, user),
                    "</strong>. This site requires a second factor, and your "
                    "account has none yet: set up an authenticator app to "
                    "finish signing in.</p>\n"
                    "<form method=\"post\">\n"
                    "<input type=\"hidden\" name=\"action\" "
                    "value=\"totp-setup\">\n"
                    "<button type=\"submit\">Set up an authenticator "
                    "app</button>\n</form>\n",
                    NULL));
}
