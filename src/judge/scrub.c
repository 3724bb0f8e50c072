/*
 * scrub.c - no secret leaves a judge's replies: whatever a judge server
 * sends back (an error body quoting the request's headers, a reply that
 * repeats the key, a proxy's page) is scrubbed of the API key and of any
 * credential in base_url's user-info before it is stored, printed or
 * reported.  Secrets shorter than SECRET_MIN bytes are not scrubbed: they
 * would match ordinary text ("x", "unused", as local servers take), and
 * they are not secrets worth the name.  The matching is arb_redact's
 * (blind.c), anywhere in the text: JSON-escaped spellings of a secret, in a
 * raw body or in a model's answer, are found as well as plain ones, in one
 * pass.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "arbiter/blind.h"
#include "judge_int.h"

#define SECRET_MIN 8

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

enum arb_status judge_scrub(const struct judge_secrets *s, const char *text, size_t len,
                            char **res, size_t *out_len)
{
    struct arb_buf b;
    size_t hits = 0;
    enum arb_status st;

    *res = NULL;
    if (!s->n || !text || !len)
        return ARB_OK;
    /* Plain, or spelled with JSON escapes (sk\u002d..., a\/b: a reply's string as the wire
     * carries it, or a model's answer escaped once more), glued to anything, overlapping
     * secrets replaced as one: arb_redact's matching, anywhere. */
    arb_buf_init(&b, 0);
    st = arb_redact_flags(text, len, (const char *const *)s->v, s->n, ARB_REDACT_ANYWHERE, &b,
                          &hits);
    if (!st && hits)
        *res = arb_buf_detach(&b, out_len);
    if (!st && hits && !*res)
        st = ARB_ENOMEM;
    arb_buf_release(&b);
    return st;
}
