/*
 * unicode.c - strict UTF-8 validation, decoding, encoding and lowercasing.
 *
 * Validation follows Unicode's Table 3-7 (well-formed byte sequences): no
 * overlong forms, no surrogates (U+D800..U+DFFF), nothing above U+10FFFF and
 * no truncated sequences.  Decoding never fails: an ill-formed sequence yields
 * U+FFFD and consumes exactly one byte, so counting, decoding and lowercasing
 * agree on where each code point starts.
 *
 * Most text is ASCII, so every loop skips ASCII eight or sixteen bytes at a
 * time.  The case and property tables, and arb_uc_*(), are generated into
 * unicode_tables.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/unicode.h"

#define HIGH_BITS   UINT64_C(0x8080808080808080)
#define REPLACEMENT 0xFFFDu

static uint64_t load8(const unsigned char *p)
{
    uint64_t w;

    memcpy(&w, p, sizeof(w));
    return w;
}

/* Index of the first non-ASCII byte in p[i..len), or len. */
static size_t skip_ascii(const unsigned char *p, size_t i, size_t len)
{
    while (len - i >= 16 && !((load8(p + i) | load8(p + i + 8)) & HIGH_BITS))
        i += 16;
    while (len - i >= 8 && !(load8(p + i) & HIGH_BITS))
        i += 8;
    while (i < len && p[i] < 0x80)
        i++;
    return i;
}

/*
 * Length (2..4) of the well-formed multi-byte sequence at p[i], storing its
 * code point in *cp, or 0 when the bytes there are ill-formed or truncated.
 * The caller has handled ASCII.  The second-byte bounds are Table 3-7's: they
 * exclude overlongs (E0, F0), surrogates (ED) and code points past U+10FFFF (F4).
 */
static size_t decode_multi(const unsigned char *p, size_t i, size_t len, uint32_t *cp)
{
    unsigned c = p[i];
    size_t avail = len - i;
    unsigned lo = 0x80, hi = 0xBF;

    if (c < 0xC2 || c > 0xF4)
        return 0;
    if (c < 0xE0) {
        if (avail < 2 || (p[i + 1] & 0xC0) != 0x80)
            return 0;
        *cp = ((uint32_t)(c & 0x1F) << 6) | (p[i + 1] & 0x3F);
        return 2;
    }
    if (c == 0xE0 || c == 0xF0)
        lo = c == 0xE0 ? 0xA0 : 0x90;
    else if (c == 0xED)
        hi = 0x9F;
    else if (c == 0xF4)
        hi = 0x8F;
    if (avail < 2 || p[i + 1] < lo || p[i + 1] > hi)
        return 0;
    if (c < 0xF0) {
        if (avail < 3 || (p[i + 2] & 0xC0) != 0x80)
            return 0;
        *cp = ((uint32_t)(c & 0x0F) << 12) | ((uint32_t)(p[i + 1] & 0x3F) << 6) | (p[i + 2] & 0x3F);
        return 3;
    }
    if (avail < 4 || (p[i + 2] & 0xC0) != 0x80 || (p[i + 3] & 0xC0) != 0x80)
        return 0;
    *cp = ((uint32_t)(c & 0x07) << 18) | ((uint32_t)(p[i + 1] & 0x3F) << 12) |
          ((uint32_t)(p[i + 2] & 0x3F) << 6) | (p[i + 3] & 0x3F);
    return 4;
}

size_t arb_utf8_seq(const char *s, size_t avail)
{
    uint32_t cp;

    return avail ? decode_multi((const unsigned char *)s, 0, avail, &cp) : 0;
}

int arb_utf8_valid(const char *s, size_t len, size_t *bad_at)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    uint32_t cp;

    while (i < len) {
        size_t k;

        if (p[i] < 0x80) {
            i = skip_ascii(p, i, len);
            continue;
        }
        k = decode_multi(p, i, len, &cp);
        if (!k) {
            if (bad_at)
                *bad_at = i;
            return 0;
        }
        i += k;
    }
    return 1;
}

/* Precondition: *i < len.  Past the end it returns U+FFFD without advancing. */
uint32_t arb_utf8_next(const char *s, size_t len, size_t *i)
{
    const unsigned char *p = (const unsigned char *)s;
    uint32_t cp;
    size_t k;

    if (*i >= len)
        return REPLACEMENT;
    if (p[*i] < 0x80)
        return p[(*i)++];
    k = decode_multi(p, *i, len, &cp);
    if (!k) {
        (*i)++;
        return REPLACEMENT;
    }
    *i += k;
    return cp;
}

/* Surrogates and values past U+10FFFF are encoded as U+FFFD (3 bytes). */
size_t arb_utf8_encode(uint32_t cp, char *out)
{
    unsigned char *o = (unsigned char *)out;

    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | (cp >> 6));
        o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        cp = REPLACEMENT;
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | (cp >> 12));
        o[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | (cp >> 18));
    o[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t arb_utf8_count(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, n = 0;
    uint32_t cp;

    while (i < len) {
        size_t k;

        if (p[i] < 0x80) {
            size_t end = skip_ascii(p, i, len);

            n += end - i;
            i = end;
            continue;
        }
        k = decode_multi(p, i, len, &cp);
        i += k ? k : 1;
        n++;
    }
    return n;
}

/* Decodes in two passes (count, then fill) so the array is exactly sized. */
enum arb_status arb_utf8_to_cps(const char *s, size_t len, uint32_t **out, size_t *n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t count = arb_utf8_count(s, len);
    size_t i = 0, k = 0;
    uint32_t *cps;

    if (count > SIZE_MAX / sizeof(*cps) - 1)
        return ARB_ENOMEM;
    /* One spare element so an empty input still gets a non-NULL array. */
    cps = malloc((count + 1) * sizeof(*cps));
    if (!cps)
        return ARB_ENOMEM;
    while (i < len) {
        uint32_t cp;
        size_t step;

        if (p[i] < 0x80) {
            cps[k++] = p[i++];
            continue;
        }
        step = decode_multi(p, i, len, &cp);
        if (step) {
            cps[k++] = cp;
            i += step;
        } else {
            cps[k++] = REPLACEMENT;
            i++;
        }
    }
    *out = cps;
    *n = k;
    return ARB_OK;
}

/*
 * Lowercase eight ASCII bytes at once: a byte gets 0x20 added when it lies in
 * 'A'..'Z'.  Each byte is below 0x80, so the additions never carry into the
 * next byte and the result does not depend on byte order.
 */
static uint64_t ascii_lower8(uint64_t w)
{
    const uint64_t ones = UINT64_C(0x0101010101010101);
    uint64_t ge_a = w + ones * (0x80 - 'A');
    uint64_t gt_z = w + ones * (0x7F - 'Z');

    return w | ((ge_a & ~gt_z & HIGH_BITS) >> 2);
}

/* Staging buffer flushed into the arb_buf; one step writes at most 8 bytes. */
struct stage {
    char bytes[1024];
    size_t used;
};

static enum arb_status stage_flush(struct stage *st, struct arb_buf *out)
{
    enum arb_status rc = arb_buf_add(out, st->bytes, st->used);

    st->used = 0;
    return rc;
}

/*
 * On failure (ARB_ENOMEM, or ARB_ETOOBIG past the buffer's cap) out is left
 * as it was before the call.  The output may be longer than the input: a few
 * two-byte capitals have three-byte lowercase forms (U+023A -> U+2C65).
 */
enum arb_status arb_utf8_lower(const char *s, size_t len, struct arb_buf *out)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t old_len = out->len;
    size_t i = 0;
    struct stage st;
    enum arb_status rc = ARB_OK;

    st.used = 0;
    while (i < len) {
        uint32_t cp, low;
        size_t k;

        if (st.used > sizeof(st.bytes) - 8) {
            rc = stage_flush(&st, out);
            if (rc)
                goto fail;
        }
        if (p[i] < 0x80) {
            if (len - i >= 8) {
                uint64_t w = load8(p + i);

                if (!(w & HIGH_BITS)) {
                    w = ascii_lower8(w);
                    memcpy(st.bytes + st.used, &w, sizeof(w));
                    st.used += 8;
                    i += 8;
                    continue;
                }
            }
            st.bytes[st.used++] = (char)(p[i] >= 'A' && p[i] <= 'Z' ? p[i] + 0x20 : p[i]);
            i++;
            continue;
        }
        k = decode_multi(p, i, len, &cp);
        if (!k) {
            st.bytes[st.used++] = (char)p[i++];
            continue;
        }
        low = arb_uc_tolower(cp);
        if (low == cp) {
            memcpy(st.bytes + st.used, p + i, k);
            st.used += k;
        } else {
            st.used += arb_utf8_encode(low, st.bytes + st.used);
        }
        i += k;
    }
    rc = stage_flush(&st, out);
    if (rc)
        goto fail;
    return ARB_OK;

fail:
    out->len = old_len;
    if (out->ptr)
        out->ptr[old_len] = '\0';
    return rc;
}
