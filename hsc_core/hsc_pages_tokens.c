/*
 * hsc_pages_tokens.c: the account page's app passwords (hsc_pages.h):
 * the list with a Revoke button each, the form that makes one, and the
 * page that shows a new one once. Every string from the store or a
 * request is HTML-escaped here.
 */
#include <string.h>
#include <time.h>

#include "apr_strings.h"

#include "hsc_pages.h"
#include "hsc_pages_doc.h"

/* "2026-12-06" (UTC), or what to say for 0. */
static const char *day(apr_pool_t *p, int64_t t, const char *zero)
{
    struct tm tm;
    time_t tt = (time_t)t;
    char buf[16];

    if (t <= 0 || gmtime_r(&tt, &tm) == NULL
        || strftime(buf, sizeof(buf), "%Y-%m-%d", &tm) == 0) {
        return zero;
    }
    return apr_pstrdup(p, buf);
}

static const char *row(apr_pool_t *p, const hsc_account_view_t *v,
                       const hsc_page_token_t *t)
{
    const char *name = hsc_page_escape(p, t->name);
    const char *expires = t->expires != 0 && t->expires <= v->now
                              ? apr_pstrcat(p, "expired ",
                                            day(p, t->expires, ""), NULL)
                              : day(p, t->expires, "never");

    return apr_pstrcat(
        p, "<tr><td>", name, "</td><td>",
        *t->scopes ? hsc_page_escape(p, t->scopes) : "any", "</td><td>",
        day(p, t->created, "?"), "</td><td>", expires, "</td><td>",
        day(p, t->last_used, "not yet"),
        "</td><td><form method=\"post\">"
        "<input type=\"hidden\" name=\"action\" value=\"token-revoke\">"
        "<input type=\"hidden\" name=\"token_id\" value=\"",
        hsc_page_escape(p, t->id), "\"><button type=\"submit\" aria-label=\"",
        "Revoke ", name, "\"" BTN_DANGER ">Revoke</button></form></td></tr>\n",
        NULL);
}

const char *hsc_page_tokens_section(apr_pool_t *p, const hsc_account_view_t *v)
{
    const char *list = "";
    size_t i;

    if (!v->tokens) {
        return "";
    }
    for (i = 0; i < v->n_tokens; i++) {
        list = apr_pstrcat(p, list, row(p, v, &v->token_list[i]), NULL);
    }
    list = v->n_tokens == 0
               ? "<p>You have no app passwords.</p>\n"
               : apr_pstrcat(p,
                             "<div class=\"hsc-scroll\"><table "
                             "class=\"hsc-tokens hsc-apps\">\n<thead><tr>"
                             "<th scope=\"col\">Name</th>"
                             "<th scope=\"col\">Scopes</th>"
                             "<th scope=\"col\">Made</th>"
                             "<th scope=\"col\">Expires</th>"
                             "<th scope=\"col\">Last used</th>"
                             "<th scope=\"col\"><span class=\"hsc-sr\">"
                             "Revoke</span></th></tr></thead>\n<tbody>\n",
                             list, "</tbody>\n</table></div>\n", NULL);
    /* Its heading is the account page's (hsc_page_account). */
    return apr_pstrcat(
        p,
        "<p>For programs that cannot use this page: calendar and file "
        "apps, git, scripts. Each opens only what accepts app passwords, "
        "and you can revoke each alone.</p>\n",
        list,
        "<h3>New app password</h3>\n"
        "<form method=\"post\">\n"
        "<input type=\"hidden\" name=\"action\" value=\"token-new\">\n"
        "<label for=\"hsc-token-name\">Name, to tell it apart</label>\n"
        "<input id=\"hsc-token-name\" name=\"token_name\" type=\"text\" "
        "maxlength=\"64\" placeholder=\"calendar on my laptop\" required>\n"
        "<label for=\"hsc-token-scopes\">Scopes (optional)</label>\n"
        "<input id=\"hsc-token-scopes\" name=\"token_scopes\" type=\"text\" "
        "maxlength=\"255\" spellcheck=\"false\" "
        "aria-describedby=\"hsc-token-scopes-help\">\n"
        "<p id=\"hsc-token-scopes-help\" class=\"hsc-help\">Names your site "
        "uses, separated by commas, such as dav or git. Some places only "
        "open to an app password with their scope.</p>\n"
        "<label for=\"hsc-token-expires\">Expires</label>\n"
        "<select id=\"hsc-token-expires\" name=\"token_expires\">"
        "<option value=\"30d\">in 30 days</option>"
        "<option value=\"90d\" selected>in 90 days</option>"
        "<option value=\"365d\">in a year</option>"
        "<option value=\"never\">never</option></select>\n",
        v->recent ? ""
                  : "<label for=\"hsc-token-pw\">Your password, to "
                    "confirm</label>\n<input id=\"hsc-token-pw\" "
                    "name=\"password\" type=\"password\" "
                    "autocomplete=\"current-password\" required>\n",
        "<button type=\"submit\">Create app password</button>\n</form>\n",
        NULL);
}

const char *hsc_page_token_made(apr_pool_t *p, const hsc_page_conf_t *c,
                                const char *user, const char *name,
                                const char *token, const char *back)
{
    return hsc_page_doc(
        p, c, "Your new app password",
        apr_pstrcat(
            p, "<p role=\"status\">The app password <strong>",
            hsc_page_escape(p, name),
            "</strong> is made. Copy it now: it is not shown again.</p>\n"
            "<p class=\"hsc-secret\"><code id=\"hsc-token\">",
            hsc_page_escape(p, token),
            "</code></p>\n<p>Give it to the program as the password, with "
            "your username <strong>",
            hsc_page_escape(p, user),
            "</strong>, or send it as <code>Authorization: Bearer "
            "&hellip;</code>.</p>\n<p><a class=\"hsc-link\" href=\"",
            hsc_page_escape(p, back), "\">Back to your account</a></p>\n",
            NULL));
}
