/*
 * blind.c - position assignment by HMAC-SHA256 and redaction of identifying
 * strings, in any spelling JSON allows (see include/arbiter/blind.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "arbiter/blind.h"
#include "arbiter/unicode.h"

/* The key is the seed as 8 big-endian bytes, so seed 7 means the same everywhere. */
static void seed_key(uint64_t seed, unsigned char key[8])
{
    for (int i = 0; i < 8; i++)
        key[i] = (unsigned char)(seed >> (56 - 8 * i));
}

/* The decision and the hex digest from a MAC (of block k / 256). */
static void decide(const unsigned char *mac, size_t k, int *first_is_a, char *hmac_hex)
{
    k %= 256;
    *first_is_a = (mac[k / 8] >> (k % 8)) & 1;
    if (hmac_hex)
        arb_hex(mac, 32, hmac_hex);
}

/*
 * What is MACed for pair k: the case id for the first 256 pairs (as always),
 * then the case id, a NUL (never in a case id) and the block number k / 256
 * as 8 big-endian bytes, so no two blocks or cases share a message.
 */
static size_t block_suffix(size_t k, unsigned char suffix[9])
{
    uint64_t block = (uint64_t)(k / 256);

    if (!block)
        return 0;
    suffix[0] = 0;
    seed_key(block, suffix + 1);
    return 9;
}

enum arb_status arb_blind_assign(uint64_t seed, const char *case_id, size_t k, int *first_is_a,
                                 char *hmac_hex)
{
    struct arb_blinder *b = NULL;
    enum arb_status st = arb_blinder_new(seed, &b);

    if (!st)
        st = arb_blinder_assign(b, case_id, k, first_is_a, hmac_hex);
    arb_blinder_free(b);
    return st;
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

/* The MAC of pair k's block for case_id (32 bytes into mac). */
static enum arb_status block_mac(struct arb_blinder *b, const char *case_id, size_t k,
                                 unsigned char mac[EVP_MAX_MD_SIZE])
{
    unsigned char suffix[9];
    size_t mac_len = 0, n_suffix = block_suffix(k, suffix);

    /* A NULL key restarts with the key already set. */
    if (!EVP_MAC_init(b->ctx, NULL, 0, NULL) ||
        !EVP_MAC_update(b->ctx, (const unsigned char *)case_id, strlen(case_id)) ||
        (n_suffix && !EVP_MAC_update(b->ctx, suffix, n_suffix)) ||
        !EVP_MAC_final(b->ctx, mac, &mac_len, EVP_MAX_MD_SIZE) || mac_len != 32)
        return ARB_EINTERNAL;
    return ARB_OK;
}

enum arb_status arb_blinder_assign(struct arb_blinder *b, const char *case_id, size_t k,
                                   int *first_is_a, char *hmac_hex)
{
    unsigned char mac[EVP_MAX_MD_SIZE];
    enum arb_status st = block_mac(b, case_id, k, mac);

    if (!st)
        decide(mac, k, first_is_a, hmac_hex);
    return st;
}

unsigned arb_shard_of_hmac(const unsigned char mac[32], unsigned n)
{
    uint64_t v = 0;

    /* Bytes 24 to 31: bits 192 to 255, which only pairs 192 to 255 of a block decide by. */
    for (int i = 24; i < 32; i++)
        v = v << 8 | mac[i];
    return n ? (unsigned)(v % n) + 1 : 0;
}

enum arb_status arb_blinder_shard(struct arb_blinder *b, const char *case_id, unsigned n,
                                  unsigned *k)
{
    unsigned char mac[EVP_MAX_MD_SIZE];
    enum arb_status st = block_mac(b, case_id, 0, mac);

    *k = st ? 0 : arb_shard_of_hmac(mac, n);
    return st;
}

static int word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           (unsigned char)c >= 0x80;
}

static int word_cp(uint32_t cp)
{
    return cp >= 0x80 ? 1 : word_char((char)cp);
}

static int hex4(const char *t, size_t len, size_t i, uint32_t *v)
{
    size_t k;

    *v = 0;
    if (len - i < 4)
        return 0;
    for (k = 0; k < 4; k++) {
        char c = t[i + k];
        uint32_t d = c >= '0' && c <= '9'   ? (uint32_t)(c - '0')
                     : c >= 'a' && c <= 'f' ? (uint32_t)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (uint32_t)(c - 'A' + 10)
                                            : 16;

        if (d == 16)
            return 0;
        *v = *v << 4 | d;
    }
    return 1;
}

/*
 * The character one JSON escape at t[i] stands for, and its length, or 0 when
 * none starts there.  Any run of backslashes counts as one escape, so a text
 * escaped twice (a JSON string inside a JSON output: "gpt\\u002d4o") spells
 * the same name; a \u escape of a high surrogate takes the low one after it.
 */
static size_t escape_at(const char *t, size_t len, size_t i, uint32_t *cp)
{
    static const char shorts[] = "\"\"//bbf\fn\nr\rt\t";
    size_t j = i, k;
    uint32_t lo;

    while (j < len && t[j] == '\\')
        j++;
    if (j == i || j >= len)
        return 0;
    if (t[j] != 'u') {
        for (k = 0; shorts[k]; k += 2)
            if (t[j] == shorts[k]) {
                *cp = (unsigned char)shorts[k + 1];
                return j + 1 - i;
            }
        return 0;
    }
    if (!hex4(t, len, j + 1, cp))
        return 0;
    j += 5;
    if (*cp >= 0xD800 && *cp < 0xDC00 && j < len && t[j] == '\\') {
        size_t m = escape_at(t, len, j, &lo);

        if (m && lo >= 0xDC00 && lo < 0xE000 && t[j + m - 5] == 'u') {
            *cp = 0x10000 + ((*cp - 0xD800) << 10) + (lo - 0xDC00);
            j += m;
        }
    }
    return j - i;
}

static int same_char(uint32_t a, uint32_t b)
{
    if (a < 0x80 && b < 0x80 && a >= 'A' && a <= 'Z')
        a += 'a' - 'A';
    if (a < 0x80 && b < 0x80 && b >= 'A' && b <= 'Z')
        b += 'a' - 'A';
    return a == b;
}

/*
 * Length of the spelling of w at text[i], or 0: each character of w as itself
 * (ASCII case ignored) or as a JSON escape of itself (\u002d, \/, ...).
 */
static size_t spelled_at(const char *text, size_t len, size_t i, const char *w, size_t wl)
{
    size_t j = i, p = 0;

    while (p < wl) {
        size_t q = p, k = 0;
        uint32_t c = arb_utf8_next(w, wl, &q), e = 0;

        if (j < len && text[j] == '\\')
            k = escape_at(text, len, j, &e);
        if (k && same_char(e, c)) {
            j += k;
        } else if (q - p <= len - j &&
                   (q - p == 1 ? same_char((unsigned char)text[j], (unsigned char)w[p])
                               : memcmp(text + j, w + p, q - p) == 0)) {
            j += q - p;
        } else {
            return 0;
        }
        p = q;
    }
    return j - i;
}

/* Whether the character before text[i] (perhaps an escape: "\n" or "\u0041") is a word's. */
static int word_before(const char *text, size_t i)
{
    uint32_t cp;

    if (i == 0)
        return 0;
    if (i >= 6 && text[i - 6] == '\\' && text[i - 5] == 'u' && hex4(text, i, i - 4, &cp))
        return word_cp(cp);
    if (i >= 2 && text[i - 2] == '\\' && text[i - 1] && strchr("\"/bfnrt", text[i - 1]))
        return 0;
    return word_char(text[i - 1]);
}

/* Whether the character at text[j] (perhaps an escape) continues a word. */
static int word_after(const char *text, size_t len, size_t j)
{
    uint32_t cp;

    if (j >= len)
        return 0;
    if (text[j] == '\\' && escape_at(text, len, j, &cp))
        return word_cp(cp);
    return word_char(text[j]);
}

/*
 * Length of the longest string matching at text[i] as a whole word, or 0: a
 * match may not continue a word on either side, so "baseline" is not found
 * inside "baselines" and a short name does not eat other words.
 */
static size_t match_at(const char *text, size_t len, size_t i, const char *const *strings, size_t n,
                       unsigned flags)
{
    size_t k, best = 0;

    for (k = 0; k < n; k++) {
        const char *w = strings[k];
        size_t wl = strlen(w), m;

        if (!wl || (text[i] != '\\' && !same_char((unsigned char)text[i], (unsigned char)w[0])))
            continue;
        m = spelled_at(text, len, i, w, wl);
        if (!m || m <= best)
            continue;
        if (!(flags & ARB_REDACT_ANYWHERE) && word_char(w[0]) && word_before(text, i))
            continue;
        if (!(flags & ARB_REDACT_ANYWHERE) && word_char(w[wl - 1]) &&
            word_after(text, len, i + m))
            continue;
        best = m;
    }
    return best;
}

enum arb_status arb_redact(const char *text, size_t len, const char *const *strings, size_t n,
                           struct arb_buf *out, size_t *count)
{
    return arb_redact_flags(text, len, strings, n, 0, out, count);
}

enum arb_status arb_redact_flags(const char *text, size_t len, const char *const *strings,
                                 size_t n, unsigned flags, struct arb_buf *out, size_t *count)
{
    size_t i = 0, start = 0, hits = 0; /* start: where the text not yet appended begins */
    enum arb_status st = arb_buf_add(out, "", 0);

    while (!st && i < len) {
        size_t m = match_at(text, len, i, strings, n, flags), end, j;

        if (!m) {
            i++;
            continue;
        }
        /* The covered span grows while a match starts inside it: one replacement for all. */
        end = i + m;
        for (j = i + 1; j < end; j++) {
            size_t k = match_at(text, len, j, strings, n, flags);

            if (j + k > end)
                end = j + k;
        }
        st = arb_buf_add(out, text + start, i - start);
        if (!st)
            st = arb_buf_adds(out, ARB_REDACTED);
        hits++;
        i = start = end;
    }
    if (!st && start < len)
        st = arb_buf_add(out, text + start, len - start);
    if (count)
        *count = hits;
    return st;
}
