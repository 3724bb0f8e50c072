/*
 * blind.c - position assignment by HMAC-SHA256 and redaction of identifying
 * strings (see include/arbiter/blind.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "arbiter/blind.h"

/* The key is the seed as 8 big-endian bytes, so seed 7 means the same everywhere. */
static void seed_key(uint64_t seed, unsigned char key[8])
{
    for (int i = 0; i < 8; i++)
        key[i] = (unsigned char)(seed >> (56 - 8 * i));
}

/* The decision and the hex digest from a MAC. */
static void decide(const unsigned char *mac, size_t k, int *first_is_a, char *hmac_hex)
{
    *first_is_a = (mac[k / 8] >> (k % 8)) & 1;
    if (hmac_hex)
        arb_hex(mac, 32, hmac_hex);
}

enum arb_status arb_blind_assign(uint64_t seed, const char *case_id, size_t k, int *first_is_a,
                                 char *hmac_hex)
{
    unsigned char key[8], mac[EVP_MAX_MD_SIZE];
    unsigned int mac_len = 0;

    if (k >= 256)
        return ARB_EUSAGE;
    seed_key(seed, key);
    if (!HMAC(EVP_sha256(), key, sizeof(key), (const unsigned char *)case_id, strlen(case_id), mac,
              &mac_len) ||
        mac_len != 32)
        return ARB_EINTERNAL;
    decide(mac, k, first_is_a, hmac_hex);
    return ARB_OK;
}

/* The same with the HMAC fetched and keyed once (a run blinds every pair of every case). */
struct arb_blinder {
    EVP_MAC *mac;
    EVP_MAC_CTX *ctx;
};

void arb_blinder_free(struct arb_blinder *b)
{
    if (b) {
        EVP_MAC_CTX_free(b->ctx);
        EVP_MAC_free(b->mac);
        free(b);
    }
}

enum arb_status arb_blinder_new(uint64_t seed, struct arb_blinder **out)
{
    struct arb_blinder *b = calloc(1, sizeof(*b));
    unsigned char key[8];
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, "SHA256", 0),
                           OSSL_PARAM_construct_end()};

    *out = NULL;
    if (!b)
        return ARB_ENOMEM;
    seed_key(seed, key);
    b->mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    b->ctx = b->mac ? EVP_MAC_CTX_new(b->mac) : NULL;
    if (!b->ctx || !EVP_MAC_init(b->ctx, key, sizeof(key), params)) {
        arb_blinder_free(b);
        return ARB_EINTERNAL;
    }
    *out = b;
    return ARB_OK;
}

enum arb_status arb_blinder_assign(struct arb_blinder *b, const char *case_id, size_t k,
                                   int *first_is_a, char *hmac_hex)
{
    unsigned char mac[EVP_MAX_MD_SIZE];
    size_t mac_len = 0;

    if (k >= 256)
        return ARB_EUSAGE;
    /* A NULL key restarts with the key already set. */
    if (!EVP_MAC_init(b->ctx, NULL, 0, NULL) ||
        !EVP_MAC_update(b->ctx, (const unsigned char *)case_id, strlen(case_id)) ||
        !EVP_MAC_final(b->ctx, mac, &mac_len, sizeof(mac)) || mac_len != 32)
        return ARB_EINTERNAL;
    decide(mac, k, first_is_a, hmac_hex);
    return ARB_OK;
}

static int word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           (unsigned char)c >= 0x80;
}

/*
 * Length of the longest string matching at text[i] as a whole word, or 0: a
 * match may not continue a word on either side, so "baseline" is not found
 * inside "baselines" and a short name does not eat other words.
 */
static size_t match_at(const char *text, size_t len, size_t i, const char *const *strings, size_t n)
{
    size_t k, best = 0;

    for (k = 0; k < n; k++) {
        const char *w = strings[k];
        size_t m = strlen(w);

        if (!m || m > len - i || m <= best || strncasecmp(text + i, w, m) != 0)
            continue;
        if (word_char(w[0]) && i > 0 && word_char(text[i - 1]))
            continue;
        if (word_char(w[m - 1]) && i + m < len && word_char(text[i + m]))
            continue;
        best = m;
    }
    return best;
}

enum arb_status arb_redact(const char *text, size_t len, const char *const *strings, size_t n,
                           struct arb_buf *out, size_t *count)
{
    size_t i = 0, run = 0, hits = 0;
    enum arb_status st = arb_buf_add(out, "", 0);

    while (!st && i < len) {
        size_t m = match_at(text, len, i, strings, n);

        if (!m) {
            i++;
            run++;
            continue;
        }
        st = arb_buf_add(out, text + i - run, run);
        if (!st)
            st = arb_buf_adds(out, ARB_REDACTED);
        run = 0;
        i += m;
        hits++;
    }
    if (!st && run)
        st = arb_buf_add(out, text + i - run, run);
    if (count)
        *count = hits;
    return st;
}
