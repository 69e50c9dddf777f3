/*
 * hsc_pages_passkeys.c: the account page's passkeys (hsc_pages.h): the
 * list (name, added, last used, sealed or not) with ordinary Rename and
 * Remove forms (action=passkey-rename, passkey-remove), the seal switch
 * (action=seal-on, seal-off), and the Add button that passkey.js drives.
 * Every string from the store is HTML-escaped here.
 */
#include <string.h>
#include <time.h>

#include "apr_strings.h"

#include "hsc_pages.h"
#include "hsc_pages_doc.h"

static const char *added(apr_pool_t *p, int64_t t)
{
    struct tm tm;
    time_t tt = (time_t)t;
    char buf[16];

    if (t <= 0 || gmtime_r(&tt, &tm) == NULL
        || strftime(buf, sizeof(buf), "%Y-%m-%d", &tm) == 0) {
        return "?";
    }
    return apr_pstrdup(p, buf);
}

/* "Last used": a date, or "-" (never, or not known: a read-only handle,
 * a store fault). */
static const char *used(apr_pool_t *p, int64_t t)
{
    return t > 0 ? added(p, t) : "-";
}

static const char *row(apr_pool_t *p, const hsc_account_view_t *v,
                       const hsc_page_passkey_t *k, size_t i)
{
    const char *name = hsc_page_escape(p, k->name);
    const char *id = hsc_page_escape(p, k->id);
    const char *n = apr_psprintf(p, "%u", (unsigned)i);

    return apr_pstrcat(
        p, "<tr class=\"hsc-key-row\"><td>", name, "</td><td>",
        added(p, k->created), "</td><td>", used(p, k->last_used), "</td><td>",
        k->sealed ? "sealed" : "not sealed",
        /* The forms on a row of their own: five columns do not fit a
         * phone's width. */
        "</td></tr>\n<tr><td colspan=\"4\" class=\"hsc-key-act\">",
        "<form method=\"post\" class=\"hsc-inline\">"
        "<input type=\"hidden\" name=\"action\" value=\"passkey-rename\">"
        "<input type=\"hidden\" name=\"passkey_id\" value=\"",
        id, "\"><label class=\"hsc-sr\" for=\"hsc-pk-rename-", n,
        "\">New name for ", name, "</label><input id=\"hsc-pk-rename-", n,
        "\" name=\"passkey_name\" type=\"text\" maxlength=\"64\" "
        /* Visible: the label is for screen readers only (the row says
         * whose), so the field shows the current name as its hint. */
        "placeholder=\"",
        name,
        "\" required>"
        "<button type=\"submit\"" BTN_SECONDARY ">Rename</button></form>"
        "<form method=\"post\" class=\"hsc-inline\">"
        "<input type=\"hidden\" name=\"action\" value=\"passkey-remove\">"
        "<input type=\"hidden\" name=\"passkey_id\" value=\"",
        id, "\">",
        v->recent
            ? ""
            : apr_pstrcat(p, "<label class=\"hsc-sr\" for=\"hsc-pk-pw-", n,
                          "\">Your password, to confirm</label>"
                          "<input id=\"hsc-pk-pw-",
                          n,
                          "\" name=\"password\" type=\"password\" "
                          "autocomplete=\"current-password\" "
                          "placeholder=\"password\" required>",
                          NULL),
        "<button type=\"submit\" aria-label=\"Remove ", name,
        "\"" BTN_DANGER ">Remove</button></form></td></tr>\n", NULL);
}

/* A form posting action (seal-on, seal-off), with the password first
 * when the login is not recent. */
static const char *switch_form(apr_pool_t *p, const hsc_account_view_t *v,
                               const char *action, const char *button)
{
    return apr_pstrcat(
        p, "<form method=\"post\">\n<input type=\"hidden\" name=\"action\" ",
        "value=\"", action, "\">\n",
        v->recent ? ""
                  : apr_pstrcat(p, "<label for=\"hsc-", action,
                                "\">Your password, to confirm</label>\n"
                                "<input id=\"hsc-",
                                action,
                                "\" name=\"password\" type=\"password\" "
                                "autocomplete=\"current-password\" required>\n",
                                NULL),
        "<button type=\"submit\">", button, "</button>\n</form>\n", NULL);
}

/* The seal switch (docs/passkeys.md): its state, and what can be done
 * from this session. Only for a user with passkeys. */
static const char *seal_switch(apr_pool_t *p, const hsc_account_view_t *v)
{
    size_t i, unsealed = 0;
    const char *what;

    if (v->n_passkeys == 0) {
        return "";
    }
    for (i = 0; i < v->n_passkeys; i++) {
        unsealed += !v->passkey_list[i].sealed;
    }
    if (v->seal_required) {
        what = apr_pstrcat(
            p,
            "<p class=\"hsc-help\">While it is on, a passkey can be added "
            "only if it is sealed: a browser or authenticator without PRF "
            "is refused.</p>\n",
            v->sealed_session
                ? switch_form(p, v, "seal-off", "Turn it off")
                : "<p class=\"hsc-help\">Sign in with your passkey to "
                  "turn this off.</p>\n",
            NULL);
    }
    else if (unsealed > 0) {
        what = "<p class=\"hsc-help\">It cannot be turned on while a "
               "passkey is not sealed: remove that one, or add it again "
               "with a browser and authenticator that can seal.</p>\n";
    }
    else if (!v->sealed_session) {
        what = "<p class=\"hsc-help\">To turn it on, sign in with your "
               "passkey first: this session was not sealed by one, and "
               "would end.</p>\n";
    }
    else {
        what = switch_form(p, v, "seal-on", "Turn it on");
    }
    return apr_pstrcat(
        p, "<p id=\"hsc-pk-switch\"><strong>Every sign-in needs a passkey: ",
        v->seal_required ? "on" : "off",
        "</strong></p>\n<p>When on, a password alone (or with a code) no longer "
        "signs you in, anywhere: only your sealed passkeys do.</p>\n",
        what, NULL);
}

const char *hsc_page_passkeys_section(apr_pool_t *p,
                                      const hsc_account_view_t *v)
{
    const char *list = "";
    size_t i;

    if (!v->passkeys) {
        return "";
    }
    for (i = 0; i < v->n_passkeys; i++) {
        list = apr_pstrcat(p, list, row(p, v, &v->passkey_list[i], i), NULL);
    }
    list = v->n_passkeys == 0
               ? "<p>You have no passkeys.</p>\n"
               : apr_pstrcat(p,
                             "<div id=\"hsc-pk-list\" class=\"hsc-scroll\">"
                             "<table "
                             "class=\"hsc-tokens hsc-keys\">\n<thead><tr>"
                             "<th scope=\"col\">Name</th>"
                             "<th scope=\"col\">Added</th>"
                             "<th scope=\"col\">Last used</th>"
                             "<th scope=\"col\">Seal</th></tr></thead>\n"
                             "<tbody>\n",
                             list, "</tbody>\n</table></div>\n", NULL);
    return apr_pstrcat(
        p, "<h3>Passkeys</h3>\n",
        "<p>A passkey or security key signs you in without a code, and "
        "cannot be phished. A sealed one can sign you in without your "
        "password.</p>\n",
        list, seal_switch(p, v),
        hsc_page_passkey_block(
            p, "create", "Add a passkey",
            "<label for=\"hsc-pk-name\">Name, to tell it apart</label>\n"
            "<input id=\"hsc-pk-name\" type=\"text\" maxlength=\"64\" "
            "placeholder=\"phone, laptop, security key\">\n"),
        "<noscript><p class=\"hsc-help\">Adding a passkey needs "
        "JavaScript.</p></noscript>\n",
        NULL);
}

const char *hsc_page_link_passkey(apr_pool_t *p, const hsc_page_conf_t *c,
                                  const char *user, const char *link,
                                  const char *login_url)
{
    const char *esc = hsc_page_escape(p, link);

    return hsc_page_doc(
        p, c, "Add a passkey",
        apr_pstrcat(
            p, "<p>For <strong>", hsc_page_escape(p, user),
            "</strong>. This link works once: it adds your first passkey, "
            "or sets up an authenticator app.</p>\n"
            "<input type=\"hidden\" name=\"link\" value=\"",
            esc, "\">\n",
            hsc_page_passkey_block(
                p, "create", "Add a passkey",
                "<label for=\"hsc-pk-name\">Name, to tell it apart</label>\n"
                "<input id=\"hsc-pk-name\" type=\"text\" maxlength=\"64\" "
                "placeholder=\"phone, laptop, security key\">\n"),
            "<noscript><p class=\"hsc-help\">Adding a passkey needs "
            "JavaScript.</p></noscript>\n",
            login_url ? apr_pstrcat(
                p,
                "<p id=\"hsc-pk-signin\" hidden><a "
                "class=\"hsc-link\" href=\"",
                hsc_page_escape(p, login_url),
                "\">Sign in: your password, then this passkey</a></p>\n", NULL)
                      : "",
            /* Hidden by passkey.js once the link is used by a passkey. */
            "<div id=\"hsc-link-app\">\n"
            "<h2>Or an authenticator app</h2>\n"
            "<form method=\"post\">\n"
            "<input type=\"hidden\" name=\"action\" value=\"link-enrol\">\n"
            "<input type=\"hidden\" name=\"link\" value=\"",
            esc,
            "\">\n<button type=\"submit\">Begin</button>\n</form>\n</div>\n",
            NULL));
}
