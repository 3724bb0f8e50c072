/*
 * wdiff.c - a word-level diff of two outputs for the case page: each text is cut into words
 * (runs of letters, digits and any non-ASCII bytes), runs of white space and single
 * punctuation marks; white space only separates (it is not compared, so a text laid out
 * again shows no change); Myers' O(ND) algorithm (Myers 1986, "An O(ND) Difference Algorithm and
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
    int space; /* a run of white space: a separator, never compared */
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
        out->t[out->n].space = spacey(c);
        out->n++;
        i = j;
    }
    return 1;
}

/* The tokens of t that are not white space, into w (its t borrowed from t's, n counted). */
static int words_of(const struct toks *t, struct toks *w, size_t **where)
{
    size_t k = 0;

    w->t = malloc((t->n + 1) * sizeof(*w->t));
    *where = malloc((t->n + 1) * sizeof(**where));
    if (!w->t || !*where)
        return 0;
    for (size_t i = 0; i < t->n; i++)
        if (!t->t[i].space) {
            w->t[k] = t->t[i];
            (*where)[k++] = i;
        }
    w->n = k;
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
    size_t used = 0, cap = 0;
    int found = 0;

    if (!v)
        return 0;
    for (d = 0; d <= MAX_EDITS && !found; d++) {
        /* Doubled, not grown by a row: a realloc per row copies the trace D times over. */
        if (used + (size_t)(2 * d + 1) > cap) {
            size_t want = cap ? 2 * cap : 4096;
            long *t;

            while (want < used + (size_t)(2 * d + 1))
                want *= 2;
            t = realloc(trace, want * sizeof(*t));
            if (!t)
                break;
            trace = t;
            cap = want;
        }
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

/*
 * Write t with the marked tokens wrapped in tag.  White space is never compared: a run of it
 * is inside a mark only when the words on both sides of it are marked, so a reformatted text
 * shows no change, and a changed phrase is one mark.
 */
static void emit(struct html *h, const struct toks *t, const char *mark, const char *tag)
{
    const char *open_tag = tag[0] == 'd' ? "<del>" : "<ins>";
    const char *close_tag = tag[0] == 'd' ? "</del>" : "</ins>";
    int open = 0;

    for (size_t i = 0; i < t->n; i++) {
        int m = mark[i];

        if (t->t[i].space) {
            size_t j = i + 1;

            while (j < t->n && t->t[j].space)
                j++;
            m = open && j < t->n && mark[j];
        }
        if (m != open) {
            html_raw(h, m ? open_tag : close_tag);
            open = m;
        }
        html_text_n(h, t->t[i].p, t->t[i].n);
    }
    if (open)
        html_raw(h, close_tag);
}

void view_word_diff(struct html *h_a, struct html *h_b, const char *a, const char *b, int *diffed)
{
    struct toks ta = {NULL, 0}, tb = {NULL, 0}, wa = {NULL, 0}, wb = {NULL, 0};
    size_t *at_a = NULL, *at_b = NULL;
    char *del = NULL, *ins = NULL, *wdel = NULL, *wins = NULL;
    size_t pre = 0, suf = 0;
    int ok;

    *diffed = 0;
    ok = tokenize(a, &ta) && tokenize(b, &tb) && words_of(&ta, &wa, &at_a) &&
         words_of(&tb, &wb, &at_b);
    if (ok) {
        del = calloc(ta.n + 1, 1);
        ins = calloc(tb.n + 1, 1);
        wdel = calloc(wa.n + 1, 1);
        wins = calloc(wb.n + 1, 1);
        ok = del && ins && wdel && wins;
    }
    if (ok) {
        while (pre < wa.n && pre < wb.n && same(&wa.t[pre], &wb.t[pre]))
            pre++;
        while (suf < wa.n - pre && suf < wb.n - pre &&
               same(&wa.t[wa.n - 1 - suf], &wb.t[wb.n - 1 - suf]))
            suf++;
        ok = myers(&wa, &wb, pre, wa.n - suf, pre, wb.n - suf, wdel, wins);
    }
    if (ok) {
        for (size_t i = 0; i < wa.n; i++)
            del[at_a[i]] = wdel[i];
        for (size_t i = 0; i < wb.n; i++)
            ins[at_b[i]] = wins[i];
        emit(h_a, &ta, del, "del");
        emit(h_b, &tb, ins, "ins");
        *diffed = 1;
    } else {
        html_text(h_a, a);
        html_text(h_b, b);
    }
    free(ta.t);
    free(tb.t);
    free(wa.t);
    free(wb.t);
    free(at_a);
    free(at_b);
    free(del);
    free(ins);
    free(wdel);
    free(wins);
}
