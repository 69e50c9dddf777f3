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

/* Fields of each format; the version field is first in both. */
#define NFIELDS_1 7
#define NFIELDS_2 11
#define F_VERSION 0
#define F_KID 1
#define F_USER 2
#define F_IAT 3
#define F_EXP 4
/* format 1 */
#define F1_AUTH 5
/* format 2 */
#define F2_GEN 5
#define F2_LID 6
#define F2_AMR 7
#define F2_MFA_AT 8
#define F2_AUTH 9
/* the last field of either */
#define F_MAC(n) ((n)-1)

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

/* base64url of exactly want bytes into out: 0, or -1. */
static int b64_exact(const char *f, size_t flen, unsigned char *out,
                     size_t want)
{
    size_t got;

    return flen == HSC_B64URL_LEN(want)
                   && hsc_b64url_decode(f, flen, out, want, &got) == HSC_OK
                   && got == want
               ? 0
               : -1;
}

/* The bytes auth must have for amr: x_n if pwd, z if seal. */
static size_t auth_len_of(unsigned amr)
{
    return ((amr & HSC_AMR_PWD) ? HSC_XN_LEN : 0)
           + ((amr & HSC_AMR_SEAL) ? HSC_SEAL_LEN : 0);
}

/* 1 when amr is a combination the spec allows (its syntax step). */
static int amr_valid(int64_t amr)
{
    return amr >= 0 && amr <= HSC_AMR_ALL
           && (amr & (HSC_AMR_PWD | HSC_AMR_SEAL)) != 0
           && (!(amr & HSC_AMR_SEAL) || (amr & HSC_AMR_HWK));
}

/* Split value at its dots into at most NFIELDS_2 fields; the count, or -1
 * for a twelfth. */
static int split(const char *value, size_t len, const char **f, size_t *flen)
{
    size_t i, start = 0;
    int n = 0;

    for (;;) {
        const char *dot = memchr(value + start, '.', len - start);

        i = dot != NULL ? (size_t)(dot - value) : len;
        if (n == NFIELDS_2) {
            return -1;
        }
        f[n] = value + start;
        flen[n] = i - start;
        n++;
        if (dot == NULL) {
            return n;
        }
        start = i + 1;
    }
}

/* The fields both formats share: kid, user, iat, exp, mac. */
static int parse_common(const char *const *f, const size_t *flen, int n,
                        hsc_cookie_t *out)
{
    size_t got;

    if (!hsc_kid_valid(f[F_KID], flen[F_KID])) {
        return -1;
    }
    memcpy(out->kid, f[F_KID], flen[F_KID]);
    out->kid[flen[F_KID]] = '\0';
    out->kid_len = flen[F_KID];
    if (hsc_b64url_decode(f[F_USER], flen[F_USER], (unsigned char *)out->user,
                          HSC_USER_MAX, &got)
            != HSC_OK
        || !hsc_username_valid(out->user, got)) {
        return -1;
    }
    out->user[got] = '\0';
    out->user_len = got;
    if (hsc_parse_time(f[F_IAT], flen[F_IAT], &out->iat) != HSC_OK
        || hsc_parse_time(f[F_EXP], flen[F_EXP], &out->exp) != HSC_OK
        || out->exp <= out->iat) {
        return -1;
    }
    return b64_exact(f[F_MAC(n)], flen[F_MAC(n)], out->mac, HSC_MAC_LEN);
}

/* Format 2's own fields: gen, lid, amr, mfa_at, and auth by amr. */
static int parse_v2(const char *const *f, const size_t *flen, hsc_cookie_t *out)
{
    int64_t amr;

    if (hsc_parse_time(f[F2_GEN], flen[F2_GEN], &out->gen) != HSC_OK
        || b64_exact(f[F2_LID], flen[F2_LID], out->lid, HSC_LID_LEN) != 0
        || hsc_parse_time(f[F2_AMR], flen[F2_AMR], &amr) != HSC_OK
        || !amr_valid(amr)
        || hsc_parse_time(f[F2_MFA_AT], flen[F2_MFA_AT], &out->mfa_at)
               != HSC_OK) {
        return -1;
    }
    out->amr = (unsigned)amr;
    out->auth_len = auth_len_of(out->amr);
    return b64_exact(f[F2_AUTH], flen[F2_AUTH], out->auth, out->auth_len);
}

hsc_status_t hsc_cookie_parse(const char *value, size_t len, hsc_cookie_t *out)
{
    const char *f[NFIELDS_2];
    size_t flen[NFIELDS_2];
    int n, bad;

    memset(out, 0, sizeof(*out));
    if (len > HSC_COOKIE_MAX) {
        return HSC_ETOOLONG; /* refused without further work */
    }
    if (value == NULL) {
        return HSC_EMALFORMED;
    }
    n = split(value, len, f, flen);
    if (n == NFIELDS_1 && flen[F_VERSION] == 1 && f[F_VERSION][0] == '1') {
        out->format = 1;
        out->gen = -1;
        out->amr = HSC_AMR_PWD;
        out->auth_len = HSC_XN_LEN;
        bad = b64_exact(f[F1_AUTH], flen[F1_AUTH], out->auth, HSC_XN_LEN);
    }
    else if (n == NFIELDS_2 && flen[F_VERSION] == 1 && f[F_VERSION][0] == '2') {
        out->format = 2;
        bad = parse_v2(f, flen, out);
    }
    else {
        return HSC_EMALFORMED;
    }
    if (bad || parse_common(f, flen, n, out) != 0) {
        hsc_wipe(out, sizeof(*out));
        return HSC_EMALFORMED;
    }
    out->signed_len = (size_t)(f[F_MAC(n)] - value) - 1;
    return HSC_OK;
}

/* Step 4 on a parsed cookie: HSC_OK or the refusal. */
static hsc_status_t check_time(const hsc_verify_params_t *vp,
                               const hsc_cookie_t *c)
{
    int64_t pending = vp->pending_timeout > 0 ? vp->pending_timeout
                                              : HSC_PENDING_TIMEOUT_DEFAULT;

    /* iat, exp >= 0 by syntax; the sums saturate. */
    if (!(c->exp > vp->now)) {
        return HSC_EEXPIRED;
    }
    if (!(c->iat <= sat_add(vp->now, vp->skew))) {
        return HSC_EFUTURE;
    }
    if (!(vp->now < sat_add(c->iat, hsc_cookie_max_age(vp, c)))) {
        return HSC_EMAXAGE;
    }
    if (c->format == 1) {
        return HSC_OK;
    }
    /* mfa_at is set exactly with a second factor, and not before the
     * login; a pending cookie lives minutes. */
    if ((c->mfa_at == 0) != ((c->amr & HSC_AMR_FACTOR) == 0)
        || (c->mfa_at != 0 && c->mfa_at < c->iat)) {
        return HSC_EMALFORMED;
    }
    if (c->mfa_at > sat_add(vp->now, vp->skew)) {
        return HSC_EFUTURE;
    }
    if ((c->amr & HSC_AMR_PENDING) && c->exp > sat_add(c->iat, pending)) {
        return HSC_EMAXAGE;
    }
    return HSC_OK;
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
    /* A genuine cookie of the old format, where HSCCookieFormat1 is off. */
    if (out->format == 1 && vp->refuse_format1) {
        rv = HSC_EOLDFORMAT;
        goto cleanup;
    }
    /* Step 4: time. */
    rv = check_time(vp, out);

cleanup:
    hsc_wipe(mac, sizeof(mac)); /* the expected MAC: never leak it */
    if (rv != HSC_OK) {
        hsc_wipe(out, sizeof(*out));
    }
    return rv;
}

/* Step 5 on a record: the user is enabled and was not revoked since. */
static hsc_status_t check_user_step(const hsc_cookie_t *c,
                                    const hsc_user_t *user)
{
    if (user->disabled) {
        return HSC_EDISABLED;
    }
    /* Format 1: by time; format 2: by generation, exact and clock-free
     * (a file without gen reads -1, which no format 2 cookie carries). */
    if (c->format == 1 ? c->iat < user->revoked_before : c->gen != user->gen) {
        return HSC_EREVOKED;
    }
    return HSC_OK;
}

/* SHA-256 of 32 bytes, as v = SHA-256(x_n) is made (hsc_authenticator). */
typedef char seal_len_check
    [HSC_SEAL_LEN == HSC_XN_LEN && HSC_SEAL_HASH_LEN == HSC_AUTH_LEN ? 1 : -1];

/* 1 when SHA-256(z) is one of the user's seal hashes. Every hash is
 * compared, in constant time, with no early exit: the time taken says
 * how many seals the user has, never which one (if any) matched. */
static int seal_matches(const unsigned char *z, const hsc_user_t *user)
{
    unsigned char h[HSC_SEAL_HASH_LEN];
    size_t i, n = hsc_user_seal_bytes(user); /* the switch's block is none */
    int found = 0;

    if (n < HSC_SEAL_HASH_LEN || hsc_authenticator(z, h) != HSC_OK) {
        hsc_wipe(h, sizeof(h));
        return 0;
    }
    for (i = 0; i + HSC_SEAL_HASH_LEN <= n; i += HSC_SEAL_HASH_LEN) {
        found |= hsc_ct_equal(h, user->seals + i, HSC_SEAL_HASH_LEN);
    }
    hsc_wipe(h, sizeof(h));
    return found;
}

/* Step 6 on a record: hardening. Only the holder of x_n (the password)
 * could have put an auth whose SHA-256 is v into a MAC'd cookie, and only
 * the authenticator of a registered passkey a z whose SHA-256 is one of
 * the user's seal hashes (a seal without any in the row: refused). auth is
 * x_n when pwd, then z when seal (hsc-v2.md). A user whose row requires
 * the seal (hsc_user_seal_required) has every cookie without one refused,
 * but a pending one: it is good only at the second-factor step (step 7),
 * which must then end with a sealed passkey. */
static hsc_status_t check_auth_step(const hsc_cookie_t *c,
                                    const hsc_user_t *user)
{
    unsigned char v[HSC_AUTH_LEN];
    hsc_status_t rv = HSC_OK;
    size_t zoff = (c->amr & HSC_AMR_PWD) ? HSC_XN_LEN : 0;

    if (!(c->amr & (HSC_AMR_SEAL | HSC_AMR_PENDING))
        && hsc_user_seal_required(user)) {
        return HSC_EAUTH;
    }
    if ((c->amr & HSC_AMR_SEAL)
        && (c->auth_len != zoff + HSC_SEAL_LEN
            || !seal_matches(c->auth + zoff, user))) {
        return HSC_EAUTH;
    }
    if (!(c->amr & HSC_AMR_PWD)) {
        return HSC_OK; /* a passwordless sealed cookie: z was the proof */
    }
    rv = hsc_authenticator(c->auth, v);
    if (rv == HSC_OK && !hsc_ct_equal(v, user->authenticator, sizeof(v))) {
        rv = HSC_EAUTH;
    }
    hsc_wipe(v, sizeof(v));
    return rv;
}

/* Steps 5 and 6 on a record: HSC_OK or the refusal. */
static hsc_status_t check_record(const hsc_cookie_t *c, const hsc_user_t *user)
{
    hsc_status_t rv = check_user_step(c, user);

    return rv != HSC_OK ? rv : check_auth_step(c, user);
}

hsc_status_t hsc_cookie_check_user(const hsc_verify_params_t *vp,
                                   const hsc_cookie_t *c, hsc_store_t *store,
                                   hsc_user_t *user)
{
    hsc_status_t rv;

    memset(user, 0, sizeof(*user));
    if (vp == NULL || c == NULL || store == NULL) {
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
    /* Step 7: a pending cookie is good at the second-factor step only. */
    if (rv == HSC_OK && (c->amr & HSC_AMR_PENDING) && !vp->allow_pending) {
        rv = HSC_EPENDING;
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
    rv = hsc_cookie_check_user(vp, out, store, user);
    if (rv != HSC_OK) {
        hsc_wipe(out->auth, sizeof(out->auth));
        hsc_wipe(out->mac, sizeof(out->mac));
    }
    return rv;
}

/* An empty result, before anything is checked. */
static void clear_out(char *out, size_t outcap, size_t *outlen)
{
    *outlen = 0;
    if (out != NULL && outcap > 0) {
        out[0] = '\0';
    }
}

/* "<version>.<kid>.<user b64>.<iat>.<exp>" at out; its length. */
static size_t put_head(char *out, char version, const char *kid, size_t kid_len,
                       const char *user, size_t user_len, int64_t iat,
                       int64_t exp)
{
    size_t o = 0;

    out[o++] = version;
    out[o++] = '.';
    memcpy(out + o, kid, kid_len);
    o += kid_len;
    out[o++] = '.';
    o += hsc_b64url_encode(user, user_len, out + o);
    out[o++] = '.';
    o += hsc_format_time(iat, out + o);
    out[o++] = '.';
    o += hsc_format_time(exp, out + o);
    return o;
}

/* Sign the o bytes at out (the value up to its last '.') and append
 * ".<mac>" and a NUL; on failure wipe them (they hold x_n). */
static hsc_status_t put_mac(const hsc_key_t *key, char *out, size_t o,
                            const char *scope, const char *address,
                            size_t *outlen)
{
    unsigned char mac[HSC_MAC_LEN];
    hsc_status_t rv;

    rv = hsc_key_mac3(key, out, o, scope, safe_len(scope), address,
                      safe_len(address), mac);
    if (rv != HSC_OK) {
        hsc_wipe(out, o);
        out[0] = '\0';
        return rv;
    }
    out[o++] = '.';
    o += hsc_b64url_encode(mac, sizeof(mac), out + o);
    out[o] = '\0';
    hsc_wipe(mac, sizeof(mac));
    *outlen = o;
    return HSC_OK;
}

hsc_status_t hsc_cookie_mint(const hsc_key_t *key, const char *user,
                             size_t user_len, int64_t iat, int64_t exp,
                             const unsigned char xn[HSC_XN_LEN],
                             const char *scope, const char *address, char *out,
                             size_t outcap, size_t *outlen)
{
    const char *kid;
    size_t kid_len, need, o;

    clear_out(out, outcap, outlen);
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
    o = put_head(out, '1', kid, kid_len, user, user_len, iat, exp);
    out[o++] = '.';
    o += hsc_b64url_encode(xn, HSC_XN_LEN, out + o);
    return put_mac(key, out, o, scope, address, outlen);
}

/* 1 when cl is what a verifier's syntax and time steps could accept. */
static int claims_valid(const hsc_claims_t *cl)
{
    return hsc_username_valid(cl->user, cl->user_len) && cl->iat >= 0
           && cl->exp > cl->iat && cl->gen >= 0 && cl->lid != NULL
           && amr_valid(cl->amr)
           && ((cl->amr & HSC_AMR_PWD) == 0 || cl->xn != NULL)
           && ((cl->amr & HSC_AMR_SEAL) == 0 || cl->z != NULL)
           && (cl->mfa_at == 0) == ((cl->amr & HSC_AMR_FACTOR) == 0)
           && (cl->mfa_at == 0 || cl->mfa_at >= cl->iat);
}

/* Append ".<decimal>" at out + o; the new length. */
static size_t put_num(char *out, size_t o, int64_t t)
{
    out[o++] = '.';
    return o + hsc_format_time(t, out + o);
}

/* Append "." and the auth field of cl (x_n when pwd, then z when seal). */
static size_t put_auth(char *out, size_t o, const hsc_claims_t *cl)
{
    unsigned char auth[HSC_XN_LEN + HSC_SEAL_LEN];
    size_t n = 0;

    if (cl->amr & HSC_AMR_PWD) {
        memcpy(auth, cl->xn, HSC_XN_LEN);
        n = HSC_XN_LEN;
    }
    if (cl->amr & HSC_AMR_SEAL) {
        memcpy(auth + n, cl->z, HSC_SEAL_LEN);
        n += HSC_SEAL_LEN;
    }
    out[o++] = '.';
    o += hsc_b64url_encode(auth, n, out + o);
    hsc_wipe(auth, sizeof(auth));
    return o;
}

hsc_status_t hsc_cookie_mint2(const hsc_key_t *key, const hsc_claims_t *cl,
                              const char *scope, const char *address, char *out,
                              size_t outcap, size_t *outlen)
{
    const char *kid;
    size_t kid_len, need, o;

    clear_out(out, outcap, outlen);
    if (out == NULL || key == NULL || cl == NULL || !claims_valid(cl)
        || !hsc_scope_valid(scope) || !no_linefeed(address)) {
        return HSC_EINVAL;
    }
    kid = hsc_key_id(key);
    kid_len = strlen(kid);
    /* "2." kid "." user, four numbers (19 digits at most), lid, amr,
     * auth, mac, their dots and the NUL. */
    need = 2 + kid_len + 1 + HSC_B64URL_LEN(cl->user_len) + 4 * 20
           + HSC_B64URL_LEN(HSC_LID_LEN) + 1 + 4
           + HSC_B64URL_LEN(HSC_XN_LEN + HSC_SEAL_LEN) + 1 + B64_32 + 1 + 1;
    if (outcap < need) {
        return HSC_ETOOLONG;
    }
    o = put_head(out, '2', kid, kid_len, cl->user, cl->user_len, cl->iat,
                 cl->exp);
    o = put_num(out, o, cl->gen);
    out[o++] = '.';
    o += hsc_b64url_encode(cl->lid, HSC_LID_LEN, out + o);
    o = put_num(out, o, (int64_t)cl->amr);
    o = put_num(out, o, cl->mfa_at);
    o = put_auth(out, o, cl);
    return put_mac(key, out, o, scope, address, outlen);
}

int64_t hsc_cookie_max_age(const hsc_verify_params_t *vp, const hsc_cookie_t *c)
{
    return (c->amr & HSC_AMR_REM) && vp->remember > 0 ? vp->remember
                                                      : vp->max_age;
}

void hsc_login_id_text(const hsc_cookie_t *c, char out[HSC_LOGIN_ID_SIZE])
{
    size_t n = 0;

    if (c->format == 2) {
        n = hsc_b64url_encode(c->lid, HSC_LID_LEN, out);
    }
    out[n] = '\0';
}

void hsc_cookie_claims(const hsc_cookie_t *c, hsc_claims_t *cl)
{
    memset(cl, 0, sizeof(*cl));
    cl->user = c->user;
    cl->user_len = c->user_len;
    cl->iat = c->iat;
    cl->exp = c->exp;
    cl->gen = c->gen;
    cl->lid = c->lid;
    cl->amr = c->amr;
    cl->mfa_at = c->mfa_at;
    cl->xn = (c->amr & HSC_AMR_PWD) ? c->auth : NULL;
    cl->z = (c->amr & HSC_AMR_SEAL)
                ? c->auth + ((c->amr & HSC_AMR_PWD) ? HSC_XN_LEN : 0)
                : NULL;
}

/* Append name to buf at *o, a space before all but the first. */
static void put_name(char *buf, size_t *o, const char *name, size_t len)
{
    if (*o > 0) {
        buf[(*o)++] = ' ';
    }
    memcpy(buf + *o, name, len);
    *o += len;
}

void hsc_amr_names(unsigned amr, char *buf)
{
    /* On every request (HSC_AMR): copies, no printf. */
    static const struct {
        unsigned bit;
        const char *name;
        size_t len;
    } names[] = {{HSC_AMR_PWD, "pwd", 3}, {HSC_AMR_OTP, "otp", 3},
                 {HSC_AMR_HWK, "hwk", 3}, {HSC_AMR_UV, "uv", 2},
                 {HSC_AMR_RC, "rc", 2},   {HSC_AMR_SEAL, "seal", 4}};
    size_t i, o = 0;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
        if (amr & names[i].bit) {
            put_name(buf, &o, names[i].name, names[i].len);
        }
    }
    if ((amr & HSC_AMR_FACTOR) && (amr & (HSC_AMR_PWD | HSC_AMR_UV))) {
        put_name(buf, &o, "mfa", 3);
    }
    buf[o] = '\0';
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
    if (c->amr & HSC_AMR_PENDING) {
        return HSC_EPENDING; /* minutes at one step: never extended */
    }
    key = hsc_keyring_signer(vp->keys);
    if (key == NULL) {
        return HSC_ENOKEY;
    }
    exp = hsc_cookie_expiry(c->iat, vp->now, idle, hsc_cookie_max_age(vp, c));
    if (exp <= vp->now) {
        return HSC_EMAXAGE; /* the login is over: no refresh past max age */
    }
    if (c->format == 1) {
        return hsc_cookie_mint(key, c->user, c->user_len, c->iat, exp, c->auth,
                               vp->scope, vp->address, out, outcap, outlen);
    }
    {
        hsc_claims_t cl;

        hsc_cookie_claims(c, &cl);
        cl.exp = exp;
        return hsc_cookie_mint2(key, &cl, vp->scope, vp->address, out, outcap,
                                outlen);
    }
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
    if (c->format == 1 && vp->refuse_format1) {
        step_done(ex, HSC_STEP_MAC, HSC_EOLDFORMAT); /* as hsc_cookie_check */
    }
    step_done(ex, HSC_STEP_TIME, check_time(vp, c));
}

/* Steps 5-7, each checked when the user could be read. */
static void explain_user(const hsc_verify_params_t *vp, hsc_store_t *store,
                         hsc_explain_t *ex)
{
    const hsc_cookie_t *c = &ex->cookie;
    hsc_status_t st;

    st = hsc_store_get(store, c->user, c->user_len, &ex->user);
    if (st != HSC_OK) {
        memset(&ex->user, 0, sizeof(ex->user));
        step_done(ex, HSC_STEP_USER, st);
        return; /* step 6 needs the user's v */
    }
    step_done(ex, HSC_STEP_USER, check_user_step(c, &ex->user));
    step_done(ex, HSC_STEP_AUTH, check_auth_step(c, &ex->user));
    step_done(ex, HSC_STEP_PENDING,
              (c->amr & HSC_AMR_PENDING) && (vp == NULL || !vp->allow_pending)
                  ? HSC_EPENDING
                  : HSC_OK);
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
        explain_user(vp, store, ex);
    }
    hsc_wipe(ex->cookie.auth, sizeof(ex->cookie.auth));
    hsc_wipe(ex->cookie.mac, sizeof(ex->cookie.mac));
    hsc_wipe(ex->user.authenticator, sizeof(ex->user.authenticator));
    return ex->status;
}
