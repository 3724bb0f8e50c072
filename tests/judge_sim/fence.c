/*
 * fence.c - Arbiter's fence code, masked out of what a reply is drawn from.
 *
 * Arbiter wraps each output in fence lines carrying a code drawn at random for every request
 * ("<<<BEGIN RESPONSE A 0123456789abcdef>>>").  The code is a delimiter, not part of the
 * question, and Arbiter's cache key leaves it out; so that the same question gets the same
 * reply whatever code was drawn (as from a judge that reads fences as delimiters, and as
 * tests comparing two databases need), replies and faults are drawn from the body with the
 * code replaced by '#'s.  The log keeps the body as it came.
 */
#include <stdlib.h>
#include <string.h>

#include "judge_sim.h"

#define CODE_LEN 16

/* The first needle[0..n) in hay[0..len), or NULL (memmem is not POSIX). */
static const char *find(const char *hay, size_t len, const char *needle, size_t n)
{
    for (size_t i = 0; n <= len && i <= len - n; i++)
        if (hay[i] == needle[0] && memcmp(hay + i, needle, n) == 0)
            return hay + i;
    return NULL;
}

static bool is_hex(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
            return false;
    return true;
}

/* The code of the first fence line in body[0..len), or NULL. */
static const char *find_code(const char *body, size_t len)
{
    static const char begin[] = "<<<BEGIN RESPONSE";
    const char *end = body + len, *p = body;

    while (p < end && (p = find(p, (size_t)(end - p), begin, sizeof(begin) - 1)) != NULL) {
        const char *close;
        size_t room = (size_t)(end - p) < 64 ? (size_t)(end - p) : 64;

        close = find(p, room, ">>>", 3);
        if (close && close - p >= (ptrdiff_t)(sizeof(begin) - 1 + CODE_LEN) &&
            is_hex(close - CODE_LEN, CODE_LEN) && close[-CODE_LEN - 1] == ' ')
            return close - CODE_LEN;
        p += sizeof(begin) - 1;
    }
    return NULL;
}

char *sim_mask_fence(const char *body, size_t len)
{
    const char *code = body ? find_code(body, len) : NULL;
    char want[CODE_LEN], *copy, *p, *end;

    if (!code)
        return NULL;
    memcpy(want, code, CODE_LEN);
    copy = malloc(len + 1);
    if (!copy)
        return NULL;
    memcpy(copy, body, len);
    copy[len] = '\0';
    end = copy + len;
    for (p = copy; p < end && (p = (char *)find(p, (size_t)(end - p), want, CODE_LEN)) != NULL;
         p += CODE_LEN)
        memset(p, '#', CODE_LEN);
    return copy;
}
