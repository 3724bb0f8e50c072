/*
 * buf.h - a growable byte buffer with a hard cap (after curl's dynbuf).
 *
 * Used for HTTP bodies, prompts, canonical JSON and reports, so that a runaway
 * input cannot eat the machine.  The buffer is always NUL-terminated once
 * anything has been added.  The struct is caller-owned; arb_buf_release()
 * frees the storage, arb_buf_detach() hands it over.
 */
#ifndef ARBITER_BUF_H
#define ARBITER_BUF_H

#include <stddef.h>
#include <string.h>

#include "arbiter/status.h"

struct arb_buf {
    char *ptr;     /* NULL until the first append */
    size_t len;    /* bytes in use, not counting the terminating NUL */
    size_t cap;    /* bytes allocated */
    size_t toobig; /* len may never reach this; 0 means SIZE_MAX */
};

/* Set up an empty buffer that refuses to grow to toobig bytes or more. */
void arb_buf_init(struct arb_buf *b, size_t toobig);

/* Free the storage; the buffer is empty and reusable afterwards. */
void arb_buf_release(struct arb_buf *b);

/* Forget the contents but keep the storage. */
void arb_buf_reset(struct arb_buf *b);

/* Write n bytes as 2n lowercase hex digits and a NUL into out (2n + 1 chars). */
void arb_hex(const unsigned char *in, size_t n, char *out);

/* The value of one hex digit (0-9, a-f, A-F), or -1 for any other byte. */
int arb_hex_value(int c);

/* arb_buf_add when the bytes do not fit in the storage it has: grows it, then appends. */
enum arb_status arb_buf_add_grow(struct arb_buf *b, const void *data, size_t len);

/* 1 when len more bytes (len > 0) and the NUL fit in the storage b has, under its cap. */
static inline int arb_buf_fits(const struct arb_buf *b, size_t len)
{
    return len && len < b->cap - b->len && b->len + len < b->toobig;
}

/*
 * Append bytes.  ARB_ENOMEM on allocation failure, ARB_ETOOBIG past the cap.  Inline (as git's
 * strbuf_addch is) because writers of records and canonical JSON append a few bytes at a time:
 * when they fit, it is a copy and no call.
 */
static inline enum arb_status arb_buf_add(struct arb_buf *b, const void *data, size_t len)
{
    /* room for len bytes and the NUL (cap > len once storage exists), under the cap; len 0 and
     * a NULL data go the long way (memcpy must not see NULL) */
    if (arb_buf_fits(b, len)) {
        memcpy(b->ptr + b->len, data, len);
        b->len += len;
        b->ptr[b->len] = '\0';
        return ARB_OK;
    }
    return arb_buf_add_grow(b, data, len);
}

static inline enum arb_status arb_buf_adds(struct arb_buf *b, const char *s)
{
    return arb_buf_add(b, s, strlen(s));
}

static inline enum arb_status arb_buf_addc(struct arb_buf *b, char c)
{
    return arb_buf_add(b, &c, 1);
}

enum arb_status arb_buf_printf(struct arb_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/*
 * Hand the storage to the caller (who frees it with free()) and leave the
 * buffer empty.  Returns an allocated "" for a buffer that never grew; NULL
 * only when that allocation fails.  *len_out, when given, receives the length.
 */
char *arb_buf_detach(struct arb_buf *b, size_t *len_out);

/* A malloc'd copy of the n bytes at s with a NUL after them (s may hold NULs); NULL when out of
 * memory. */
char *arb_memdup0(const char *s, size_t n);

#endif
