/*
 * input.c: checks of hsc-admin's arguments that every command file shares
 * (users.c, links.c, factors.c), below them all, and the audit line's
 * reason that their failures set.
 */
#include <string.h>

#include "hsc_parse.h"
#include "hsc_util.h"

#include "hsc_admin.h"

/* Why the last store call failed, for the audit line. */
const char *audit_reason;

int check_user(const char *user)
{
    if (!hsc_username_valid(user, strlen(user))) {
        return fail(EX_INPUT, "invalid username (1-255 bytes of UTF-8, no "
                              "control characters)");
    }
    return EX_OK;
}

/* A duration as the directives take it ("60", "90s", "8h"; 0 allowed):
 * hsc_parse_duration. 1 when valid. */
int parse_seconds(const char *s, int64_t *out)
{
    return hsc_parse_duration(s, 1, out) == HSC_OK;
}
