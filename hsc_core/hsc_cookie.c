/*
 * hsc_cookie.c: format 1 cookies (hsc-v1.md, "The cookie value" and
 * "Verifying a cookie, in this order").
 *
 * Verification is on the hot path of every request: it allocates nothing,
 * scans the value once for its separators, and costs one HMAC (from
 * precomputed states, see hsc_keys.c) plus one SHA-256 of 32 bytes.
 */
#include <string.h>

#include "hsc_cookie.h"
#include "hsc_b64.h"
#include "hsc_kdf.h"
#include "hsc_parse.h" /* hsc_scope_valid */

#define NFIELDS 7
#define F_VERSION 0
#define F_KID 1
#define F_USER 2
#define F_IAT 3
#define F_EXP 4
#define F_AUTH 5
#define F_MAC 6

/* Characters of base64url for 32 bytes: auth and mac fields. */
#define B64_32 HSC_B64URL_LEN(32)

/* 1 when s is NULL/empty or has no line feed: an address must not contain
 * one, or M = value \n scope \n address would parse two ways. The scope
 * obeys hsc_scope_valid (hsc_parse.h), HSCScope's one rule, which implies
 * this. */
static int no_linefeed(const char *s)
{
    return s == NULL || strchr(s, '\n') == NULL;
}

static size_t safe_len(const char *s)
{
    return s != NULL ? strlen(s) : 0;
}

/* a + b, saturating at INT64_MAX/INT64_MIN instead of overflowing. */
static int64_t sat_add(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b) {
        return INT64_MAX;
    }
    if (b < 0 && a < INT64_MIN - b) {
        return INT64_MIN;
    }
    return a + b;
}

hsc_status_t hsc_cookie_parse(const char *value, size_t len, hsc_cookie_t *out)
{
    const char *f[NFIELDS];
    size_t flen[NFIELDS];
    size_t i, start = 0, n = 0, got;
    hsc_status_t rv;

    memset(out, 0, sizeof(*out));
    if (len > HSC_COOKIE_MAX) {
        return HSC_ETOOLONG; /* refused without further work */
    }
    if (value == NULL) {
        return HSC_EMALFORMED;
    }
    /* The separators (memchr); an eighth field is refused at once. */
    for (;;) {
        const char *dot = memchr(value + start, '.', len - start);

        i = dot != NULL ? (size_t)(dot - value) : len;
        if (n == NFIELDS) {
            return HSC_EMALFORMED;
        }
        f[n] = value + start;
        flen[n] = i - start;
        n++;
        if (dot == NULL) {
            break;
        }
        start = i + 1;
    }
    if (n != NFIELDS) {
        return HSC_EMALFORMED;
    }
    if (flen[F_VERSION] != 1 || f[F_VERSION][0] != '1') {
        return HSC_EMALFORMED;
    }
    if (!hsc_kid_valid(f[F_KID], flen[F_KID])) {
        return HSC_EMALFORMED;
    }
    if (flen[F_AUTH] != B64_32 || flen[F_MAC] != B64_32) {
        return HSC_EMALFORMED;
    }
    memcpy(out->kid, f[F_KID], flen[F_KID]);
    out->kid[flen[F_KID]] = '\0';
    out->kid_len = flen[F_KID];

    rv = hsc_b64url_decode(f[F_USER], flen[F_USER], (unsigned char *)out->user,
                           HSC_USER_MAX, &got);
    if (rv != HSC_OK || !hsc_username_valid(out->user, got)) {
        goto malformed;
    }
    out->user[got] = '\0';
    out->user_len = got;

    if (hsc_parse_time(f[F_IAT], flen[F_IAT], &out->iat) != HSC_OK
        || hsc_parse_time(f[F_EXP], flen[F_EXP], &out->exp) != HSC_OK
        || out->exp <= out->iat) {
        goto malformed;
    }
    if (hsc_b64url_decode(f[F_AUTH], flen[F_AUTH], out->auth, sizeof(out->auth),
                          &got)
            != HSC_OK
        || got != sizeof(out->auth)) {
        goto malformed;
    }
    if (hsc_b64url_decode(f[F_MAC], flen[F_MAC], out->mac, sizeof(out->mac),
                          &got)
            != HSC_OK
        || got != sizeof(out->mac)) {
        goto malformed;
    }
    out->signed_len = (size_t)(f[F_MAC] - value) - 1;
    return HSC_OK;

malformed:
    hsc_wipe(out, sizeof(*out));
    return HSC_EMALFORMED;
}

hsc_status_t hsc_cookie_check(const hsc_verify_params_t *vp, const char *value,
                              size_t len, hsc_cookie_t *out)
{
    const hsc_key_t *key;
    unsigned char mac[HSC_MAC_LEN];
    hsc_status_t rv;

    /* Step 1: syntax. */
    rv = hsc_cookie_parse(value, len, out);
    if (rv != HSC_OK) {
        return rv;
    }
    if (vp == NULL || !hsc_scope_valid(vp->scope)
        || !no_linefeed(vp->address)) {
        rv = HSC_EINVAL;
        goto cleanup;
    }
    /* Step 2: key. */
    key = hsc_keyring_find(vp->keys, out->kid, out->kid_len);
    if (key == NULL) {
        rv = HSC_ENOKEY;
        goto cleanup;
    }
    /* Step 3: MAC over "<value up to its last '.'>\n<scope>\n<address>". */
    rv = hsc_key_mac3(key, value, out->signed_len, vp->scope,
                      safe_len(vp->scope), vp->address, safe_len(vp->address),
                      mac);
    if (rv != HSC_OK) {
        goto cleanup;
    }
    if (!hsc_ct_equal(mac, out->mac, sizeof(mac))) {
        rv = HSC_EBADMAC;
        goto cleanup;
    }
    /* Step 4: time. iat, exp >= 0 by syntax; the sums saturate. */
    if (!(out->exp > vp->now)) {
        rv = HSC_EEXPIRED;
    }
    else if (!(out->iat <= sat_add(vp->now, vp->skew))) {
        rv = HSC_EFUTURE;
    }
    else if (!(vp->now < sat_add(out->iat, vp->max_age))) {
        rv = HSC_EMAXAGE;
    }

cleanup:
    hsc_wipe(mac, sizeof(mac)); /* the expected MAC: never leak it */
    if (rv != HSC_OK) {
        hsc_wipe(out, sizeof(*out));
    }
    return rv;
}

/* Steps 5 and 6 on a record: HSC_OK or the refusal. */
static hsc_status_t check_record(const hsc_cookie_t *c, const hsc_user_t *user)
{
    unsigned char v[HSC_AUTH_LEN];
    hsc_status_t rv;

    /* Step 5: the user exists, is enabled, and was not revoked since. */
    if (user->disabled) {
        return HSC_EDISABLED;
    }
    if (c->iat < user->revoked_before) {
        return HSC_EREVOKED;
    }
    /* Step 6: hardening. Only the holder of x_n (the password) could have
     * put an auth whose SHA-256 is v into a MAC'd cookie. */
    rv = hsc_authenticator(c->auth, v);
    if (rv == HSC_OK && !hsc_ct_equal(v, user->authenticator, sizeof(v))) {
        rv = HSC_EAUTH;
    }
    hsc_wipe(v, sizeof(v));
    return rv;
}

hsc_status_t hsc_cookie_check_user(const hsc_cookie_t *c, hsc_store_t *store,
                                   hsc_user_t *user)
{
    hsc_status_t rv;

    memset(user, 0, sizeof(*user));
    if (c == NULL || store == NULL) {
        return HSC_EINVAL;
    }
    rv = hsc_store_get(store, c->user, c->user_len, user);
    if (rv == HSC_OK) {
        rv = check_record(c, user);
    }
    /* A record from a cache that may lag (within its bound) is trusted to
     * accept, not to refuse: a cookie minted after a password change, on
     * another node, would otherwise fail until the cache caught up. The
     * database has the last word on a refusal. */
    if ((rv == HSC_EDISABLED || rv == HSC_EREVOKED || rv == HSC_EAUTH)
        && hsc_store_lagging(store)) {
        rv = hsc_store_get_fresh(store, c->user, c->user_len, user);
        if (rv == HSC_OK) {
            rv = check_record(c, user);
        }
    }
    if (rv != HSC_OK) {
        memset(user, 0, sizeof(*user));
    }
    return rv;
}

hsc_status_t hsc_cookie_verify(const hsc_verify_params_t *vp,
                               hsc_store_t *store, const char *value,
                               size_t len, hsc_cookie_t *out, hsc_user_t *user)
{
    hsc_status_t rv;

    memset(user, 0, sizeof(*user));
    rv = hsc_cookie_check(vp, value, len, out);
    if (rv != HSC_OK) {
        return rv;
    }
    rv = hsc_cookie_check_user(out, store, user);
    if (rv != HSC_OK) {
        hsc_wipe(out->auth, sizeof(out->auth));
        hsc_wipe(out->mac, sizeof(out->mac));
    }
    return rv;
}

hsc_status_t hsc_cookie_mint(const hsc_key_t *key, const char *user,
                             size_t user_len, int64_t iat, int64_t exp,
                             const unsigned char xn[HSC_XN_LEN],
                             const char *scope, const char *address, char *out,
                             size_t outcap, size_t *outlen)
{
    const char *kid;
    size_t kid_len, need, o = 0;
    unsigned char mac[HSC_MAC_LEN];
    hsc_status_t rv;

    *outlen = 0;
    if (out != NULL && outcap > 0) {
        out[0] = '\0';
    }
    if (out == NULL || key == NULL || xn == NULL
        || !hsc_username_valid(user, user_len) || iat < 0 || exp <= iat
        || !hsc_scope_valid(scope) || !no_linefeed(address)) {
        return HSC_EINVAL;
    }
    kid = hsc_key_id(key);
    kid_len = strlen(kid);
    /* "1." kid "." user "." iat "." exp "." auth "." mac NUL; 19 digits
     * is the longest int64_t. */
    need = 2 + kid_len + 1 + HSC_B64URL_LEN(user_len) + 1 + 19 + 1 + 19 + 1
           + B64_32 + 1 + B64_32 + 1;
    if (outcap < need) {
        return HSC_ETOOLONG;
    }
    out[o++] = '1';
    out[o++] = '.';
    memcpy(out + o, kid, kid_len);
    o += kid_len;
    out[o++] = '.';
    o += hsc_b64url_encode(user, user_len, out + o);
    out[o++] = '.';
    o += hsc_format_time(iat, out + o);
    out[o++] = '.';
    o += hsc_format_time(exp, out + o);
    out[o++] = '.';
    o += hsc_b64url_encode(xn, HSC_XN_LEN, out + o);
    rv = hsc_key_mac3(key, out, o, scope, safe_len(scope), address,
                      safe_len(address), mac);
    if (rv != HSC_OK) {
        hsc_wipe(out, o); /* holds x_n in base64url */
        out[0] = '\0';
        return rv;
    }
    out[o++] = '.';
    o += hsc_b64url_encode(mac, sizeof(mac), out + o);
    hsc_wipe(mac, sizeof(mac));
    *outlen = o;
    return HSC_OK;
}

int64_t hsc_login_iat(int64_t now, int64_t revoked_before)
{
    return revoked_before > now ? revoked_before : now;
}

int64_t hsc_cookie_expiry(int64_t iat, int64_t now, int64_t idle,
                          int64_t max_age)
{
    int64_t a = sat_add(now, idle);
    int64_t b = sat_add(iat, max_age);

    return a < b ? a : b;
}

int hsc_cookie_needs_refresh(const hsc_cookie_t *c, int64_t now, int64_t idle,
                             int64_t max_age)
{
    int64_t remaining;

    if (c == NULL || idle <= 0 || c->exp <= now) {
        return 0;
    }
    remaining = c->exp - now; /* > 0, and exp, now are sane Unix times */
    /* "Less than half the idle timeout remains": 2 * remaining < idle,
     * written so that it cannot overflow. */
    if (remaining >= idle / 2 + (idle % 2)) {
        return 0;
    }
    return hsc_cookie_expiry(c->iat, now, idle, max_age) > c->exp;
}

hsc_status_t hsc_cookie_refresh(const hsc_verify_params_t *vp,
                                const hsc_cookie_t *c, int64_t idle, char *out,
                                size_t outcap, size_t *outlen)
{
    const hsc_key_t *key;
    int64_t exp;

    *outlen = 0;
    if (out != NULL && outcap > 0) {
        out[0] = '\0';
    }
    if (vp == NULL || c == NULL) {
        return HSC_EINVAL;
    }
    key = hsc_keyring_signer(vp->keys);
    if (key == NULL) {
        return HSC_ENOKEY;
    }
    exp = hsc_cookie_expiry(c->iat, vp->now, idle, vp->max_age);
    if (exp <= vp->now) {
        return HSC_EMAXAGE; /* the login is over: no refresh past max age */
    }
    return hsc_cookie_mint(key, c->user, c->user_len, c->iat, exp, c->auth,
                           vp->scope, vp->address, out, outcap, outlen);
}

/* --- the explaining form -------------------------------------------------- */

/* Record a step's verdict; the first failure becomes the verdict. */
static void step_done(hsc_explain_t *ex, hsc_step_t step, hsc_status_t st)
{
    ex->verdict[step] = st == HSC_OK ? HSC_STEP_PASS : HSC_STEP_FAIL;
    ex->why[step] = st;
    if (st != HSC_OK && ex->status == HSC_OK) {
        ex->status = st;
    }
}

/* Steps 2-4 on a parsed cookie, each checked whatever the others say. */
static void explain_check(const hsc_verify_params_t *vp, const char *value,
                          hsc_explain_t *ex)
{
    const hsc_cookie_t *c = &ex->cookie;
    const hsc_key_t *key = hsc_keyring_find(vp->keys, c->kid, c->kid_len);
    unsigned char mac[HSC_MAC_LEN];
    hsc_status_t st;

    step_done(ex, HSC_STEP_KEY, key != NULL ? HSC_OK : HSC_ENOKEY);
    if (key != NULL) {
        st = hsc_key_mac3(key, value, c->signed_len, vp->scope,
                          safe_len(vp->scope), vp->address,
                          safe_len(vp->address), mac);
        if (st == HSC_OK && !hsc_ct_equal(mac, c->mac, sizeof(mac))) {
            st = HSC_EBADMAC;
        }
        hsc_wipe(mac, sizeof(mac));
        step_done(ex, HSC_STEP_MAC, st);
    }
    if (!(c->exp > vp->now)) {
        st = HSC_EEXPIRED;
    }
    else if (!(c->iat <= sat_add(vp->now, vp->skew))) {
        st = HSC_EFUTURE;
    }
    else if (!(vp->now < sat_add(c->iat, vp->max_age))) {
        st = HSC_EMAXAGE;
    }
    else {
        st = HSC_OK;
    }
    step_done(ex, HSC_STEP_TIME, st);
}

/* Steps 5-6, each checked when the user could be read. */
static void explain_user(hsc_store_t *store, hsc_explain_t *ex)
{
    const hsc_cookie_t *c = &ex->cookie;
    unsigned char v[HSC_AUTH_LEN];
    hsc_status_t st;

    st = hsc_store_get(store, c->user, c->user_len, &ex->user);
    if (st != HSC_OK) {
        memset(&ex->user, 0, sizeof(ex->user));
        step_done(ex, HSC_STEP_USER, st);
        return; /* step 6 needs the user's v */
    }
    step_done(ex, HSC_STEP_USER,
              ex->user.disabled                  ? HSC_EDISABLED
              : c->iat < ex->user.revoked_before ? HSC_EREVOKED
                                                 : HSC_OK);
    st = hsc_authenticator(c->auth, v);
    if (st == HSC_OK && !hsc_ct_equal(v, ex->user.authenticator, sizeof(v))) {
        st = HSC_EAUTH;
    }
    hsc_wipe(v, sizeof(v));
    step_done(ex, HSC_STEP_AUTH, st);
}

hsc_status_t hsc_cookie_explain(const hsc_verify_params_t *vp,
                                hsc_store_t *store, const char *value,
                                size_t len, hsc_explain_t *ex)
{
    size_t i;
    hsc_status_t st;

    memset(ex, 0, sizeof(*ex));
    ex->status = HSC_OK;
    ex->fields = 1;
    for (i = 0; value != NULL && i < len; i++) {
        ex->fields += value[i] == '.';
    }
    st = hsc_cookie_parse(value, len, &ex->cookie);
    step_done(ex, HSC_STEP_SYNTAX, st);
    if (st != HSC_OK) {
        return ex->status;
    }
    if (vp == NULL || !hsc_scope_valid(vp->scope)
        || !no_linefeed(vp->address)) {
        step_done(ex, HSC_STEP_MAC, HSC_EINVAL); /* as hsc_cookie_check */
    }
    else {
        explain_check(vp, value, ex);
    }
    if (store != NULL) {
        explain_user(store, ex);
    }
    hsc_wipe(ex->cookie.auth, sizeof(ex->cookie.auth));
    hsc_wipe(ex->cookie.mac, sizeof(ex->cookie.mac));
    hsc_wipe(ex->user.authenticator, sizeof(ex->user.authenticator));
    return ex->status;
}
