/*
 * wdiff.c - a word-level diff of two outputs for the case page: each text is cut into words
 * (runs of letters, digits and any non-ASCII bytes), runs of white space and single
 * punctuation marks; Myers' O(ND) algorithm (Myers 1986, "An O(ND) Difference Algorithm and
 * Its Variations") finds a shortest edit script over those tokens after the common prefix
 * and suffix are set aside; the words only in a are wrapped in <del>, those only in b in
 * <ins>.  The trace keeps one row per edit step, so memory grows with the square of the
 * edits: past MAX_EDITS (or MAX_TOKENS tokens a side) the texts are shown without a diff.
 */
#include <stdlib.h>
#include <string.h>

#include "../report/html_int.h"
#include "view_int.h"

#define MAX_TOKENS 60000
#define MAX_EDITS  1500

struct tok {
    const char *p;
    size_t n;
};

struct toks {
    struct tok *t;
    size_t n;
};

static int wordish(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c >= 0x80;
}

static int spacey(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* 1 on success; 0 when out of memory or past MAX_TOKENS. */
static int tokenize(const char *s, struct toks *out)
{
    size_t cap = 0, i = 0, len = strlen(s);

    out->t = NULL;
    out->n = 0;
    while (i < len) {
        size_t j = i + 1;
        unsigned char c = (unsigned char)s[i];

        if (wordish(c))
            while (j < len && wordish((unsigned char)s[j]))
                j++;
        else if (spacey(c))
            while (j < len && spacey((unsigned char)s[j]))
                j++;
        if (out->n == cap) {
            struct tok *t;

            if (cap >= MAX_TOKENS)
                return 0;
            cap = cap ? cap * 2 : 256;
            t = realloc(out->t, cap * sizeof(*t));
            if (!t)
                return 0;
            out->t = t;
        }
        out->t[out->n].p = s + i;
        out->t[out->n].n = j - i;
        out->n++;
        i = j;
    }
    return 1;
}

static int same(const struct tok *a, const struct tok *b)
{
    return a->n == b->n && memcmp(a->p, b->p, a->n) == 0;
}

/*
 * Mark in del (a's tokens) and ins (b's) what a shortest edit script removes and adds,
 * over a[lo_a, hi_a) and b[lo_b, hi_b).  0 when the edits pass MAX_EDITS or memory fails.
 */
static int myers(const struct toks *a, const struct toks *b, size_t lo_a, size_t hi_a, size_t lo_b,
                 size_t hi_b, char *del, char *ins)
{
    long n = (long)(hi_a - lo_a), m = (long)(hi_b - lo_b), off = MAX_EDITS + 1, d, k;
    long *v = calloc((size_t)(2 * off + 1), sizeof(*v));
    long *trace = NULL, *row;
    size_t used = 0;
    int found = 0;

    if (!v)
        return 0;
    for (d = 0; d <= MAX_EDITS && !found; d++) {
        long *t = realloc(trace, (used + (size_t)(2 * d + 1)) * sizeof(*t));

        if (!t)
            break;
        trace = t;
        for (k = -d; k <= d; k += 2) {
            long x, y;

            if (k == -d || (k != d && v[off + k - 1] < v[off + k + 1]))
                x = v[off + k + 1];
            else
                x = v[off + k - 1] + 1;
            y = x - k;
            while (x < n && y < m && same(&a->t[lo_a + (size_t)x], &b->t[lo_b + (size_t)y]))
                x++, y++;
            v[off + k] = x;
            if (x >= n && y >= m)
                found = 1;
        }
        memcpy(trace + used, v + off - d, (size_t)(2 * d + 1) * sizeof(*v));
        used += (size_t)(2 * d + 1);
    }
    free(v);
    if (!found) {
        free(trace);
        return 0;
    }
    /* Walk back from (n, m): row d of the trace holds k = -d..d at used - (2d + 1). */
    {
        long x = n, y = m;

        for (d = d - 1; d > 0; d--) {
            long prev_k, px, py;

            used -= (size_t)(2 * d + 1);
            row = trace + used - (2 * (d - 1) + 1); /* row d - 1, k from -(d - 1) */
            k = x - y;
            if (k == -d || (k != d && row[k - 1 + (d - 1)] < row[k + 1 + (d - 1)]))
                prev_k = k + 1;
            else
                prev_k = k - 1;
            px = row[prev_k + (d - 1)];
            py = px - prev_k;
            while (x > px && y > py)
                x--, y--;
            if (x == px)
                ins[lo_b + (size_t)py] = 1;
            else
                del[lo_a + (size_t)px] = 1;
            x = px;
            y = py;
        }
    }
    free(trace);
    return 1;
}

static void emit(struct html *h, const struct toks *t, const char *mark, const char *tag)
{
    int open = 0;

    for (size_t i = 0; i < t->n; i++) {
        if (mark[i] != open) {
            html_raw(h, mark[i] ? (tag[0] == 'd' ? "<del>" : "<ins>")
                                : (tag[0] == 'd' ? "</del>" : "</ins>"));
            open = mark[i];
        }
        html_text_n(h, t->t[i].p, t->t[i].n);
    }
    if (open)
        html_raw(h, tag[0] == 'd' ? "</del>" : "</ins>");
}

void view_word_diff(struct html *h_a, struct html *h_b, const char *a, const char *b, int *diffed)
{
    struct toks ta = {NULL, 0}, tb = {NULL, 0};
    char *del = NULL, *ins = NULL;
    size_t pre = 0, suf = 0;
    int ok;

    *diffed = 0;
    ok = tokenize(a, &ta) && tokenize(b, &tb);
    if (ok) {
        del = calloc(ta.n + 1, 1);
        ins = calloc(tb.n + 1, 1);
        ok = del && ins;
    }
    if (ok) {
        while (pre < ta.n && pre < tb.n && same(&ta.t[pre], &tb.t[pre]))
            pre++;
        while (suf < ta.n - pre && suf < tb.n - pre &&
               same(&ta.t[ta.n - 1 - suf], &tb.t[tb.n - 1 - suf]))
            suf++;
        ok = myers(&ta, &tb, pre, ta.n - suf, pre, tb.n - suf, del, ins);
    }
    if (ok) {
        emit(h_a, &ta, del, "del");
        emit(h_b, &tb, ins, "ins");
        *diffed = 1;
    } else {
        html_text(h_a, a);
        html_text(h_b, b);
    }
    free(ta.t);
    free(tb.t);
    free(del);
    free(ins);
}
