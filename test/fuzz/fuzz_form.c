/*
 * fuzz_form.c: hsc_form_parse() on an untrusted login form body, parsed in
 * place in a copy of the input.
 *
 * Properties (each aborts when violated):
 *   - the status is HSC_OK, HSC_EMALFORMED or HSC_ETOOLONG;
 *   - on a refusal no field is reported present;
 *   - on HSC_OK every present field's value and its terminating NUL lie
 *     inside the len bytes of the body, and the value is within its limit
 *     (username 255, password 1024, return 2048, code 64, the flags 16
 *     bytes); an absent field has
 *     no value and length 0;
 *   - the decoded fields, percent-encoded again into a fresh body, parse to
 *     the same values (decoding is exact, including %00 and '+').
 */
#include <string.h>

#include "hsc_fuzz.h"
#include "hsc_http.h"

/* Limits fixed by hsc_http.h. */
#define LIM_USERNAME 255
#define LIM_PASSWORD 1024
#define LIM_RETURN 2048
#define LIM_FLAG 16
#define LIM_CODE 64

/* Bounds the work per input; longer inputs are cut. */
#define FUZZ_FORM_MAX 16384

static const char hexd[] = "0123456789ABCDEF";

/* Appends "name=<value percent-encoded>&" to out at *n. */
static void encode_field(char *out, size_t *n, const char *name,
                         const hsc_form_field_t *f)
{
    size_t i;

    if (!f->present) {
        return;
    }
    memcpy(out + *n, name, strlen(name));
    *n += strlen(name);
    out[(*n)++] = '=';
    for (i = 0; i < f->len; i++) {
        unsigned char ch = (unsigned char)f->value[i];

        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')
            || (ch >= '0' && ch <= '9')) {
            out[(*n)++] = (char)ch;
        }
        else if (ch == ' ') {
            out[(*n)++] = '+';
        }
        else {
            out[(*n)++] = '%';
            out[(*n)++] = hexd[ch >> 4];
            out[(*n)++] = hexd[ch & 15];
        }
    }
    out[(*n)++] = '&';
}

static void check_field(const hsc_form_field_t *f, const char *body, size_t len,
                        size_t limit)
{
    if (!f->present) {
        HSC_FUZZ_ASSERT(f->len == 0);
        return;
    }
    HSC_FUZZ_ASSERT(f->value != NULL);
    HSC_FUZZ_ASSERT(f->value >= body && f->value + f->len < body + len);
    HSC_FUZZ_ASSERT(f->value[f->len] == '\0');
    HSC_FUZZ_ASSERT(f->len <= limit);
}

static void same_field(const hsc_form_field_t *a, const hsc_form_field_t *b)
{
    HSC_FUZZ_ASSERT(a->present == b->present);
    if (a->present) {
        HSC_FUZZ_ASSERT(a->len == b->len);
        HSC_FUZZ_ASSERT(memcmp(a->value, b->value, a->len) == 0);
    }
}

static void assert_none_present(const hsc_login_form_t *f)
{
    HSC_FUZZ_ASSERT(!f->username.present && !f->password.present
                    && !f->ret.present && !f->everywhere.present
                    && !f->remember.present && !f->code.present
                    && !f->factor.present);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *body = NULL, *again = NULL;
    hsc_login_form_t form, form2;
    hsc_status_t st;
    size_t n = 0;

    if (size > FUZZ_FORM_MAX) {
        size = FUZZ_FORM_MAX;
    }
    /* Exactly size bytes, not NUL-terminated: every decoded value and its
     * terminator must stay inside them (ASan sees any write past). */
    body = malloc(size ? size : 1);
    if (body == NULL) {
        return 0;
    }
    if (size) {
        memcpy(body, data, size);
    }

    st = hsc_form_parse(body, size, &form);
    if (st != HSC_OK) {
        HSC_FUZZ_ASSERT(st == HSC_EMALFORMED || st == HSC_ETOOLONG);
        assert_none_present(&form);
        goto cleanup;
    }
    check_field(&form.username, body, size, LIM_USERNAME);
    check_field(&form.password, body, size, LIM_PASSWORD);
    check_field(&form.ret, body, size, LIM_RETURN);
    check_field(&form.everywhere, body, size, LIM_FLAG);
    check_field(&form.remember, body, size, LIM_FLAG);
    check_field(&form.code, body, size, LIM_CODE);
    check_field(&form.factor, body, size, LIM_FLAG);

    /* Re-encode what was decoded (3 bytes per byte at most) and parse it. */
    again = malloc(3 * size + 96);
    if (again == NULL) {
        goto cleanup;
    }
    encode_field(again, &n, "username", &form.username);
    encode_field(again, &n, "password", &form.password);
    encode_field(again, &n, "return", &form.ret);
    encode_field(again, &n, "everywhere", &form.everywhere);
    encode_field(again, &n, "remember", &form.remember);
    encode_field(again, &n, "code", &form.code);
    encode_field(again, &n, "factor", &form.factor);
    if (n > 0) {
        n--; /* the last '&' */
    }
    again[n] = '\0';
    st = hsc_form_parse(again, n, &form2);
    HSC_FUZZ_ASSERT(st == HSC_OK);
    same_field(&form.username, &form2.username);
    same_field(&form.password, &form2.password);
    same_field(&form.ret, &form2.ret);
    same_field(&form.everywhere, &form2.everywhere);
    same_field(&form.remember, &form2.remember);
    same_field(&form.code, &form2.code);
    same_field(&form.factor, &form2.factor);

cleanup:
    free(again);
    free(body);
    return 0;
}
