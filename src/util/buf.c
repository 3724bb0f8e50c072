/*
 * buf.c - the capped growable buffer (see include/arbiter/buf.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/buf.h"

void arb_buf_init(struct arb_buf *b, size_t toobig)
{
    b->ptr = NULL;
    b->len = 0;
    b->cap = 0;
    b->toobig = toobig ? toobig : SIZE_MAX;
}

void arb_buf_release(struct arb_buf *b)
{
    free(b->ptr);
    b->ptr = NULL;
    b->len = 0;
    b->cap = 0;
}

void arb_buf_reset(struct arb_buf *b)
{
    b->len = 0;
    if (b->ptr)
        b->ptr[0] = '\0';
}

/* Make room for extra more bytes plus the terminating NUL. */
static enum arb_status grow(struct arb_buf *b, size_t extra)
{
    size_t need, cap;
    char *p;

    if (extra >= b->toobig || b->len >= b->toobig - extra)
        return ARB_ETOOBIG;
    need = b->len + extra + 1;
    if (need <= b->cap)
        return ARB_OK;
    cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    p = realloc(b->ptr, cap);
    if (!p)
        return ARB_ENOMEM;
    b->ptr = p;
    b->cap = cap;
    return ARB_OK;
}

enum arb_status arb_buf_add_grow(struct arb_buf *b, const void *data, size_t len)
{
    enum arb_status st = grow(b, len);

    if (st)
        return st;
    if (len)
        memcpy(b->ptr + b->len, data, len);
    b->len += len;
    b->ptr[b->len] = '\0';
    return ARB_OK;
}

enum arb_status arb_buf_printf(struct arb_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    int n;
    enum arb_status st;

    va_start(ap, fmt);
    n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        return ARB_EINTERNAL;
    if ((size_t)n < sizeof(small))
        return arb_buf_add(b, small, (size_t)n);
    st = grow(b, (size_t)n);
    if (st)
        return st;
    va_start(ap, fmt);
    vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return ARB_OK;
}

char *arb_buf_detach(struct arb_buf *b, size_t *len_out)
{
    char *p = b->ptr;
    size_t len = b->len;

    if (!p) {
        p = malloc(1);
        if (!p)
            return NULL;
        p[0] = '\0';
    }
    b->ptr = NULL;
    b->len = 0;
    b->cap = 0;
    if (len_out)
        *len_out = len;
    return p;
}

void arb_hex(const unsigned char *in, size_t n, char *out)
{
    static const char digit[] = "0123456789abcdef";

    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digit[in[i] >> 4];
        out[2 * i + 1] = digit[in[i] & 15];
    }
    out[2 * n] = '\0';
}

char *arb_memdup0(const char *s, size_t n)
{
    char *p = malloc(n + 1);

    if (p) {
        if (n)
            memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

int arb_hex_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}
