/*
 * test_kdf.c: KDF specs (parse/format) and x_n derivation (hsc_kdf.h).
 * The shared vectors are checked in test_vectors.c; here the derivations
 * are compared with straightforward EVP computations.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>

#include "hsc_test.h"
#include "hsc_kdf.h"

static const unsigned char salt[HSC_SALT_LEN] = {0, 1, 2,  3,  4,  5,  6,  7,
                                                 8, 9, 10, 11, 12, 13, 14, 15};

/* --- parse and format ---------------------------------------------------- */

/* Specs that parse, and what they parse to; each formats back to itself. */
static const struct {
    const char *spec;    /* input and expected canonical output */
    hsc_kdf_alg_t alg;   /* expected algorithm */
    uint32_t iterations; /* sha256-chain n */
    uint64_t N;          /* scrypt N */
    uint32_t r, p;       /* scrypt r, p */
} good_specs[] = {
    {"sha256-chain:1", HSC_KDF_SHA256_CHAIN, 1, 0, 0, 0},
    {"sha256-chain:256", HSC_KDF_SHA256_CHAIN, 256, 0, 0, 0},
    {"sha256-chain:100000000", HSC_KDF_SHA256_CHAIN, 100000000, 0, 0, 0},
    {"scrypt:2:1:1", HSC_KDF_SCRYPT, 0, 2, 1, 1},
    {"scrypt:1024:8:1", HSC_KDF_SCRYPT, 0, 1024, 8, 1},
    {"scrypt:16384:8:1", HSC_KDF_SCRYPT, 0, 16384, 8, 1},
    {"scrypt:65536:8:2", HSC_KDF_SCRYPT, 0, 65536, 8, 2},
    {"scrypt:131072:8:1", HSC_KDF_SCRYPT, 0, 131072, 8, 1},
    {"scrypt:1048576:8:1", HSC_KDF_SCRYPT, 0, 1048576, 8, 1}, /* 1 GiB */
    {"scrypt:1024:1:1", HSC_KDF_SCRYPT, 0, 1024, 1, 1},
    {"scrypt:32768:1:1", HSC_KDF_SCRYPT, 0, 32768, 1, 1}, /* N < 2^16 */
    {"scrypt:2:8:65536", HSC_KDF_SCRYPT, 0, 2, 8, 65536},
};

static void kdf_parse_and_format_round_trip(void)
{
    size_t i;
    char what[120], buf[HSC_KDF_SPEC_MAX];

    for (i = 0; i < sizeof(good_specs) / sizeof(good_specs[0]); i++) {
        hsc_kdf_t k;
        hsc_status_t st = hsc_kdf_parse(good_specs[i].spec, &k);

        snprintf(what, sizeof(what), "%s parses", good_specs[i].spec);
        CHECK_EQ(st, HSC_OK, what);
        snprintf(what, sizeof(what), "%s fields", good_specs[i].spec);
        if (good_specs[i].alg == HSC_KDF_SHA256_CHAIN) {
            CHECK(k.alg == HSC_KDF_SHA256_CHAIN
                      && k.iterations == good_specs[i].iterations,
                  what);
        }
        else {
            CHECK(k.alg == HSC_KDF_SCRYPT && k.N == good_specs[i].N
                      && k.r == good_specs[i].r && k.p == good_specs[i].p,
                  what);
        }
        hsc_kdf_format(&k, buf, sizeof(buf));
        snprintf(what, sizeof(what), "%s formats back", good_specs[i].spec);
        CHECK_STR(buf, good_specs[i].spec, what);
    }
}

static void kdf_default_spec_parses(void)
{
    hsc_kdf_t k;
    char buf[HSC_KDF_SPEC_MAX];

    CHECK_EQ(hsc_kdf_parse(HSC_KDF_DEFAULT_SPEC, &k), HSC_OK,
             "HSC_KDF_DEFAULT_SPEC is valid");
    hsc_kdf_format(&k, buf, sizeof(buf));
    CHECK_STR(buf, HSC_KDF_DEFAULT_SPEC, "and canonical");
}

/* Specs that are refused, each with its reason. */
static const struct {
    const char *spec; /* input */
    const char *why;  /* what the case shows */
} bad_specs[] = {
    {"", "empty"},
    {"sha256-chain", "no parameter"},
    {"sha256-chain:", "empty parameter"},
    {"sha256-chain:0", "zero iterations"},
    {"sha256-chain:100000001", "above 100000000"},
    {"sha256-chain:4294967297", "overflows 32 bits"},
    {"sha256-chain:99999999999999999999", "20 digits"},
    {"sha256-chain:0256", "leading zero"},
    {"sha256-chain:+256", "sign"},
    {"sha256-chain:-1", "negative"},
    {"sha256-chain: 256", "space before"},
    {"sha256-chain:256 ", "space after"},
    {"sha256-chain:256:1", "extra field"},
    {"sha256-chain:1e3", "exponent"},
    {"SHA256-chain:256", "case of the name"},
    {"sha1-chain:256", "unknown algorithm"},
    {"pbkdf2:600000", "unknown algorithm"},
    {"scrypt:1024:8", "scrypt with two parameters"},
    {"scrypt:1024:8:1:1", "scrypt with four parameters"},
    {"scrypt:1000:8:1", "N not a power of two"},
    {"scrypt:1:8:1", "N = 1"},
    {"scrypt:0:8:1", "N = 0"},
    {"scrypt:2147483648:1:1", "N = 2^31"},
    {"scrypt:1024:0:1", "r = 0"},
    {"scrypt:1024:8:0", "p = 0"},
    {"scrypt:01024:8:1", "leading zero in N"},
    {"scrypt:1024:08:1", "leading zero in r"},
    {"scrypt:1024:8:+1", "sign in p"},
    {"scrypt:2:32768:32768", "r * p = 2^30"},
    {"scrypt:2097152:8:1", "memory 2 GiB"},
    {"scrypt:1048576:8:2", "memory 128*N*r*p = 2 GiB"},
    {"scrypt:65536:1:1", "N >= 2^(16 r) (RFC 7914)"},
    {"scrypt::8:1", "empty N"},
    {"scrypt:1024::1", "empty r"},
    {"scrypt:1024:8:", "empty p"},
};

static void kdf_parse_refuses_bad_specs(void)
{
    size_t i;
    char what[120];

    for (i = 0; i < sizeof(bad_specs) / sizeof(bad_specs[0]); i++) {
        hsc_kdf_t k;
        hsc_status_t st;

        memset(&k, 0xAA, sizeof(k));
        st = hsc_kdf_parse(bad_specs[i].spec, &k);
        snprintf(what, sizeof(what), "%s: \"%s\"", bad_specs[i].why,
                 bad_specs[i].spec);
        CHECK(st == HSC_EINVAL && k.alg == 0 && k.iterations == 0 && k.N == 0
                  && k.r == 0 && k.p == 0,
              what);
    }
    CHECK_EQ(hsc_kdf_parse(NULL, &(hsc_kdf_t){0}), HSC_EINVAL, "NULL");
}

/* --- derivation ---------------------------------------------------------- */

/* x_n by the spec's definition, with plain EVP calls. */
static void chain_reference(const void *pw, size_t pwlen, unsigned n,
                            unsigned char out[32])
{
    unsigned char x[32];
    unsigned i;
    EVP_MD_CTX *c = EVP_MD_CTX_new();

    EVP_DigestInit_ex(c, EVP_sha256(), NULL);
    EVP_DigestUpdate(c, pw, pwlen);
    EVP_DigestUpdate(c, salt, sizeof(salt));
    EVP_DigestFinal_ex(c, x, NULL);
    for (i = 1; i < n; i++) {
        EVP_DigestInit_ex(c, EVP_sha256(), NULL);
        EVP_DigestUpdate(c, x, sizeof(x));
        EVP_DigestUpdate(c, salt, sizeof(salt));
        EVP_DigestFinal_ex(c, x, NULL);
    }
    EVP_MD_CTX_free(c);
    memcpy(out, x, 32);
}

static void chain_matches_the_definition(void)
{
    static const unsigned ns[] = {1, 2, 3, 17, 1000};
    static const char *pws[] = {"", "p", "correct horse battery staple"};
    size_t i, j;
    char what[80];

    for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
        for (j = 0; j < sizeof(pws) / sizeof(pws[0]); j++) {
            hsc_kdf_t k = {HSC_KDF_SHA256_CHAIN, ns[i], 0, 0, 0};
            unsigned char xn[32], ref[32];

            chain_reference(pws[j], strlen(pws[j]), ns[i], ref);
            snprintf(what, sizeof(what), "n = %u, password length %zu", ns[i],
                     strlen(pws[j]));
            CHECK(hsc_kdf_derive(&k, pws[j], strlen(pws[j]), salt, xn) == HSC_OK
                      && memcmp(xn, ref, 32) == 0,
                  what);
        }
    }
}

static void scrypt_matches_openssl_and_depends_on_every_input(void)
{
    hsc_kdf_t k;
    unsigned char xn[32], ref[32], other[32], salt2[HSC_SALT_LEN];
    const char *pw = "correct horse battery staple";

    hsc_kdf_parse("scrypt:1024:8:1", &k);
    CHECK_EQ(hsc_kdf_derive(&k, pw, strlen(pw), salt, xn), HSC_OK,
             "derive N=1024");
    CHECK(EVP_PBE_scrypt(pw, strlen(pw), salt, sizeof(salt), 1024, 8, 1, 0, ref,
                         sizeof(ref))
                  == 1
              && memcmp(xn, ref, 32) == 0,
          "equals EVP_PBE_scrypt");
    memcpy(salt2, salt, sizeof(salt2));
    salt2[15] ^= 1;
    hsc_kdf_derive(&k, pw, strlen(pw), salt2, other);
    CHECK(memcmp(xn, other, 32) != 0, "another salt, another x_n");
    hsc_kdf_derive(&k, "correct horse battery stapl", 27, salt, other);
    CHECK(memcmp(xn, other, 32) != 0, "another password, another x_n");
    hsc_kdf_parse("scrypt:1024:8:2", &k);
    hsc_kdf_derive(&k, pw, strlen(pw), salt, other);
    CHECK(memcmp(xn, other, 32) != 0, "another p, another x_n");
}

static void scrypt_raises_openssl_memory_limit(void)
{
    /* 128 * r * N = 32 MiB plus the B buffer: over OpenSSL's default
     * 32 MiB limit, so this fails unless maxmem is raised. */
    hsc_kdf_t k;
    unsigned char xn[32], ref[32];
    const char *pw = "pw";

    CHECK(EVP_PBE_scrypt(pw, 2, salt, sizeof(salt), 32768, 8, 1, 0, ref,
                         sizeof(ref))
              != 1,
          "OpenSSL's default limit refuses N=32768, r=8");
    hsc_kdf_parse("scrypt:32768:8:1", &k);
    CHECK_EQ(hsc_kdf_derive(&k, pw, 2, salt, xn), HSC_OK,
             "hsc_kdf_derive accepts it");
    CHECK(EVP_PBE_scrypt(pw, 2, salt, sizeof(salt), 32768, 8, 1,
                         (uint64_t)64 << 20, ref, sizeof(ref))
                  == 1
              && memcmp(xn, ref, 32) == 0,
          "and matches OpenSSL with a raised limit");
}

static void derive_refuses_passwords_over_1024_bytes(void)
{
    char pw[1100];
    unsigned char xn[32], zero[32];
    hsc_kdf_t chain = {HSC_KDF_SHA256_CHAIN, 10, 0, 0, 0};
    hsc_kdf_t scrypt = {HSC_KDF_SCRYPT, 0, 1024, 8, 1};

    memset(pw, 'x', sizeof(pw));
    memset(zero, 0, sizeof(zero));
    CHECK_EQ(hsc_kdf_derive(&chain, pw, 1024, salt, xn), HSC_OK,
             "1024 bytes accepted (chain)");
    CHECK_EQ(hsc_kdf_derive(&scrypt, pw, 1024, salt, xn), HSC_OK,
             "1024 bytes accepted (scrypt)");
    memset(xn, 0xAA, sizeof(xn));
    CHECK_EQ(hsc_kdf_derive(&chain, pw, 1025, salt, xn), HSC_ETOOLONG,
             "1025 bytes refused (chain)");
    CHECK(memcmp(xn, zero, 32) == 0, "xn wiped");
    memset(xn, 0xAA, sizeof(xn));
    CHECK_EQ(hsc_kdf_derive(&scrypt, pw, sizeof(pw), salt, xn), HSC_ETOOLONG,
             "1100 bytes refused (scrypt)");
    CHECK(memcmp(xn, zero, 32) == 0, "xn wiped");
    /* Refused before hashing: even with parameters too big to run. */
    chain.iterations = 100000000;
    CHECK_EQ(hsc_kdf_derive(&chain, pw, 1025, salt, xn), HSC_ETOOLONG,
             "refused before 10^8 iterations would start");
}

static void derive_refuses_invalid_parameters(void)
{
    static const hsc_kdf_t bad[] = {
        {HSC_KDF_SHA256_CHAIN, 0, 0, 0, 0},         /* n = 0 */
        {HSC_KDF_SHA256_CHAIN, 100000001, 0, 0, 0}, /* n too big */
        {HSC_KDF_SCRYPT, 0, 1000, 8, 1},            /* N not 2^k */
        {HSC_KDF_SCRYPT, 0, 1024, 0, 1},            /* r = 0 */
        {HSC_KDF_SCRYPT, 0, 1u << 21, 8, 1},        /* 2 GiB */
        {(hsc_kdf_alg_t)0, 10, 1024, 8, 1},         /* no algorithm */
        {(hsc_kdf_alg_t)3, 10, 1024, 8, 1},         /* unknown */
    };
    size_t i;
    char what[40];
    unsigned char xn[32], zero[32];

    memset(zero, 0, sizeof(zero));
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        memset(xn, 0xAA, sizeof(xn));
        snprintf(what, sizeof(what), "case %zu", i);
        CHECK(hsc_kdf_derive(&bad[i], "pw", 2, salt, xn) == HSC_EINVAL
                  && memcmp(xn, zero, 32) == 0,
              what);
    }
}

static void authenticator_is_sha256_of_xn(void)
{
    unsigned char xn[32], v[32], ref[32];
    unsigned int n = 0;
    size_t i;

    for (i = 0; i < sizeof(xn); i++) {
        xn[i] = (unsigned char)(i * 7 + 3);
    }
    CHECK_EQ(hsc_authenticator(xn, v), HSC_OK, "status");
    EVP_Digest(xn, sizeof(xn), ref, &n, EVP_sha256(), NULL);
    CHECK(n == 32 && memcmp(v, ref, 32) == 0, "equals EVP SHA-256");
}

/* The ceilings hsc-admin and the module hold stored KDFs to. */
static const struct {
    const char *spec;
    int within; /* expected hsc_kdf_within_ceiling */
} ceiling_cases[] = {
    {"sha256-chain:20000000", 1}, /* the chain ceiling itself */
    {"sha256-chain:20000001", 0},
    {"sha256-chain:100000000", 0}, /* 8 s a login */
    {"scrypt:65536:8:2", 1},       /* the default: 64 MiB */
    {"scrypt:262144:8:1", 1},      /* 256 MiB, the memory ceiling */
    {"scrypt:262144:8:2", 1},      /* 512 MiB of work, the work ceiling */
    {"scrypt:262144:8:3", 0},
    {"scrypt:524288:8:1", 0},  /* 512 MiB of memory */
    {"scrypt:1048576:8:1", 0}, /* 1 GiB, 12 s a login */
    {"scrypt:65536:8:8", 1},   /* 512 MiB of work */
    {"scrypt:65536:8:9", 0},
};

static void kdf_ceilings_bound_memory_and_work(void)
{
    size_t i;
    hsc_kdf_t k;

    for (i = 0; i < sizeof(ceiling_cases) / sizeof(ceiling_cases[0]); i++) {
        CHECK_EQ(hsc_kdf_parse(ceiling_cases[i].spec, &k), HSC_OK,
                 ceiling_cases[i].spec);
        CHECK_EQ(hsc_kdf_within_ceiling(&k), ceiling_cases[i].within,
                 ceiling_cases[i].spec);
    }
    memset(&k, 0, sizeof(k));
    CHECK_EQ(hsc_kdf_within_ceiling(&k), 0, "an invalid setting is not");
}

int main(void)
{
    RUN(kdf_ceilings_bound_memory_and_work);
    RUN(kdf_parse_and_format_round_trip);
    RUN(kdf_default_spec_parses);
    RUN(kdf_parse_refuses_bad_specs);
    RUN(chain_matches_the_definition);
    RUN(scrypt_matches_openssl_and_depends_on_every_input);
    RUN(scrypt_raises_openssl_memory_limit);
    RUN(derive_refuses_passwords_over_1024_bytes);
    RUN(derive_refuses_invalid_parameters);
    RUN(authenticator_is_sha256_of_xn);
    return hsc_test_done();
}
