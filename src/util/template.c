/*
 * template.c - filling a prompt template (include/arbiter/template.h): the
 * placeholders, the doubled braces, and nothing else.  What the values are
 * (a fenced output, the case's expected text) is the caller's business.
 */
#include <string.h>

#include "arbiter/template.h"

/* The index of the name that "{...}" at p spells, or n when none does; *len its length. */
static size_t placeholder(const char *p, const char *const *names, size_t n, size_t *len)
{
    size_t i;

    for (i = 0; i < n; i++) {
        size_t k = strlen(names[i]);

        if (strncmp(p + 1, names[i], k) == 0 && p[1 + k] == '}') {
            *len = k + 2;
            return i;
        }
    }
    return n;
}

enum arb_status arb_template_fill(const char *tmpl, const char *const *names,
                                  const char *const *values, size_t n, struct arb_buf *out,
                                  unsigned *found)
{
    const char *p = tmpl, *run = tmpl;
    enum arb_status st = ARB_OK;
    unsigned seen = 0;

    while (!st && *p) {
        size_t len = 0, i;
        const char *put = NULL;
        size_t put_len = 0;

        if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
            put = p; /* one brace of the two */
            put_len = 1;
            len = 2;
        } else if (p[0] == '{' && (i = placeholder(p, names, n, &len)) < n) {
            seen |= 1u << i;
            put = values ? values[i] : "";
            put_len = put ? strlen(put) : 0;
        } else {
            p++;
            continue;
        }
        if (out) {
            st = arb_buf_add(out, run, (size_t)(p - run));
            if (!st && put_len)
                st = arb_buf_add(out, put, put_len);
        }
        p += len;
        run = p;
    }
    if (!st && out)
        st = arb_buf_add(out, run, (size_t)(p - run));
    if (!st && out && !out->ptr)
        st = arb_buf_add(out, "", 0);
    if (found)
        *found = seen;
    return st;
}
