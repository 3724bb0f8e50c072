/*
 * scrub.c - no secret leaves a judge's replies: whatever a judge server
 * sends back (an error body quoting the request's headers, a reply that
 * repeats the key, a proxy's page) is scrubbed of the API key and of any
 * credential in base_url's user-info before it is stored, printed or
 * reported.  Secrets shorter than SECRET_MIN bytes are not scrubbed: they
 * would match ordinary text ("x", "unused", as local servers take), and
 * they are not secrets worth the name.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "judge_int.h"

#define SECRET_MIN 8
#define REDACTED   "[REDACTED]"

static void add(struct judge_secrets *s, const char *v, size_t n)
{
    char *c;

    if (n < SECRET_MIN || s->n == JUDGE_SECRETS_MAX || !(c = malloc(n + 1)))
        return;
    memcpy(c, v, n);
    c[n] = '\0';
    s->v[s->n++] = c;
}

void judge_secrets_init(struct judge_secrets *s, const char *key, const char *base_url)
{
    const char *rest, *at, *slash, *colon;

    memset(s, 0, sizeof(*s));
    if (key)
        add(s, key, strlen(key));
    rest = base_url ? strstr(base_url, "://") : NULL;
    if (!rest)
        return;
    rest += 3;
    at = strchr(rest, '@');
    slash = strchr(rest, '/');
    if (!at || (slash && slash < at))
        return;
    /* user:password, the password alone, and both as an HTTP Basic header would carry them. */
    add(s, rest, (size_t)(at - rest));
    colon = memchr(rest, ':', (size_t)(at - rest));
    if (colon)
        add(s, colon + 1, (size_t)(at - colon - 1));
    if ((size_t)(at - rest) < 3 * 256) {
        unsigned char b64[1100];
        int n = EVP_EncodeBlock(b64, (const unsigned char *)rest, (int)(at - rest));

        if (n > 0)
            add(s, (const char *)b64, (size_t)n);
    }
}

void judge_secrets_release(struct judge_secrets *s)
{
    size_t i;

    for (i = 0; i < s->n; i++) {
        volatile char *p = s->v[i];

        while (*p)
            *p++ = 0;
        free(s->v[i]);
    }
    memset(s, 0, sizeof(*s));
}

/* The first secret in text[0..len) from pos: its offset, and which one in *which. */
static const char *find(const struct judge_secrets *s, const char *text, size_t len,
                        size_t *which)
{
    const char *best = NULL;
    size_t i;

    for (i = 0; i < s->n; i++) {
        size_t k = strlen(s->v[i]);
        const char *p = text, *end = text + len;

        while (p + k <= end && (p = memchr(p, s->v[i][0], (size_t)(end - p))) != NULL) {
            if ((size_t)(end - p) >= k && memcmp(p, s->v[i], k) == 0)
                break;
            p++;
        }
        if (p && p + k <= end && (!best || p < best)) {
            best = p;
            *which = i;
        }
    }
    return best;
}

enum arb_status judge_scrub(const struct judge_secrets *s, const char *text, size_t len,
                            char **res, size_t *out_len)
{
    size_t which = 0, cap, at = 0;
    const char *p = text, *end = text + len, *hit;
    char *out;

    *res = NULL;
    if (!s->n || !text || !find(s, text, len, &which))
        return ARB_OK;
    cap = len + 1 + 16 * s->n; /* grown below when needed */
    out = malloc(cap);
    if (!out)
        return ARB_ENOMEM;
    while ((hit = find(s, p, (size_t)(end - p), &which)) != NULL) {
        size_t before = (size_t)(hit - p), need = at + before + sizeof(REDACTED) + (size_t)(end - hit);

        if (need > cap) {
            char *grown = realloc(out, need);

            if (!grown) {
                free(out);
                return ARB_ENOMEM;
            }
            out = grown;
            cap = need;
        }
        memcpy(out + at, p, before);
        at += before;
        memcpy(out + at, REDACTED, sizeof(REDACTED) - 1);
        at += sizeof(REDACTED) - 1;
        p = hit + strlen(s->v[which]);
    }
    memcpy(out + at, p, (size_t)(end - p));
    at += (size_t)(end - p);
    out[at] = '\0';
    *out_len = at;
    *res = out;
    return ARB_OK;
}
