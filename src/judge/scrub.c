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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "arbiter/blind.h"
#include "judge_int.h"

#define SECRET_MIN 8

/* Add v[0..n) (a copy); ARB_ENOMEM when memory ran out. */
static enum arb_status add(struct judge_secrets *s, const char *v, size_t n)
{
    char *c;

    if (n < SECRET_MIN)
        return ARB_OK;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        char **grown = realloc(s->v, cap * sizeof(*grown));

        if (!grown)
            return ARB_ENOMEM;
        s->v = grown;
        s->cap = cap;
    }
    if (!(c = malloc(n + 1)))
        return ARB_ENOMEM;
    memcpy(c, v, n);
    c[n] = '\0';
    s->v[s->n++] = c;
    return ARB_OK;
}

void judge_wipe_free(char *s)
{
    if (s) {
        volatile char *p = s;

        while (*p)
            *p++ = 0;
        free(s);
    }
}

enum arb_status judge_header_lines(const struct arb_judge_config *cfg, struct judge_secrets *s,
                                   char ***out, struct arb_err *err)
{
    char **lines = calloc(cfg->n_headers + 1, sizeof(*lines));

    *out = lines;
    if (!lines)
        return ARB_ENOMEM;
    for (size_t i = 0; i < cfg->n_headers; i++) {
        const struct arb_judge_header *h = &cfg->headers[i];
        const char *v = h->value ? h->value : getenv(h->value_env);
        size_t n;

        if (!v || !v[0])
            return arb_err_set(err, ARB_EUSAGE,
                               "/judge/headers/%s: the environment variable %s is not set",
                               h->name, h->value_env);
        if (strpbrk(v, "\r\n"))
            return arb_err_set(err, ARB_EUSAGE,
                               "/judge/headers/%s: the value holds a line break", h->name);
        if (h->value_env && judge_secrets_add(s, v) != ARB_OK)
            return ARB_ENOMEM;
        n = strlen(h->name) + strlen(v) + 3;
        if (!(lines[i] = malloc(n)))
            return ARB_ENOMEM;
        snprintf(lines[i], n, "%s: %s", h->name, v);
    }
    return ARB_OK;
}

void judge_header_lines_free(char **lines, size_t n)
{
    for (size_t i = 0; lines && i < n; i++)
        judge_wipe_free(lines[i]);
    free(lines);
}

enum arb_status judge_secrets_add(struct judge_secrets *s, const char *v)
{
    return v ? add(s, v, strlen(v)) : ARB_OK;
}

enum arb_status judge_secrets_init(struct judge_secrets *s, const char *key,
                                   const char *base_url)
{
    const char *ui, *colon;
    size_t n, i, w;
    char *dec = NULL;
    enum arb_status st = ARB_OK;

    memset(s, 0, sizeof(*s));
    if (key)
        st = add(s, key, strlen(key));
    if (st || !judge_url_userinfo(base_url, &ui, &n))
        return st;
    colon = memchr(ui, ':', n);
    w = colon ? n - (size_t)(colon + 1 - ui) : 0; /* the password's length */
    /* libcurl sends the user and the password percent-decoded (p%40ss is p@ss on the wire):
     * both spellings are secrets.  dec: the decoded pair, then the decoded password. */
    if (memchr(ui, '%', n) && !(dec = malloc(2 * n + 2)))
        return ARB_ENOMEM;
    /* user:password, the password alone, and the pair as an HTTP Basic header carries it. */
    for (i = 0; !st && i < (dec ? 2u : 1u); i++) {
        const char *pair = i ? dec : ui, *pw = colon ? colon + 1 : NULL;
        size_t len = n, pw_len = w;

        if (i) {
            len = judge_percent_decode(ui, n, dec);
            pw_len = colon ? judge_percent_decode(colon + 1, w, dec + n + 1) : 0;
            pw = colon ? dec + n + 1 : NULL;
        }
        st = add(s, pair, len);
        if (!st && pw)
            st = add(s, pw, pw_len);
        if (!st && len && len < 3 * 256) {
            unsigned char b64[1100];
            int k = EVP_EncodeBlock(b64, (const unsigned char *)pair, (int)len);

            if (k > 0)
                st = add(s, (const char *)b64, (size_t)k);
        }
    }
    if (dec) {
        volatile char *p = dec;

        for (i = 0; i < 2 * n + 2; i++)
            p[i] = 0;
        free(dec);
    }
    return st;
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
    free(s->v);
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
