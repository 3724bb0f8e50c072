/*
 * case_index_corpus.c - the texts of one run held in memory for the case index's search
 * (case_index_int.h; case_index_search.c asks it): every case's id, prompt and text outputs
 * (any system's, any file, any trial; a binary output has no text), read once per run and
 * connection and scanned for a needle.
 *
 * The texts are copied with ASCII letters folded to lower case and the needle is folded the
 * same way, so a match is SQL LIKE's without case: ASCII letters without case, every other
 * byte as it is (no Unicode folding: "É" does not find "é").  As with LIKE, a text ends at
 * its first NUL byte.  Each text is followed by a NUL, which a needle (a C string) cannot
 * hold, so no match spans two texts; a case's texts are one record, and a scan goes on from
 * the next record after a hit, so each case is found once.
 *
 * The scan looks for two bytes of the needle at once, its two rarest in a sample of the
 * texts, 16 positions a step (GCC's vector extension: SSE2 on x86-64, NEON on arm64), and
 * compares the needle where both are found; elsewhere it is memmem.  Measured on 100,000
 * cases (bench/bench_view_index.c, 149 MB of texts): 5 ms for a needle with no match, 20 to
 * 30 ms for a common word found in every case, where glibc's memmem took 14 to 30 ms, and
 * 70 ms for any two letters.
 *
 * Past CORPUS_MAX bytes (or the corpus's own cap) a run's texts are not kept: the search scans
 * the rows with LIKE instead.
 */
#define _GNU_SOURCE /* memmem */
#include <stdlib.h>
#include <string.h>

#include "arbiter/buf.h"
#include "case_index_int.h"

/* About 350,000 cases of the bench's (1.5 KB of text a case). */
#define CORPUS_MAX ((size_t)512 << 20)

/* The histogram samples a byte in this many (a prime, so no period of the texts aligns). */
#define SAMPLE_STRIDE 509

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HAVE_VECTORS 1
typedef unsigned char v16 __attribute__((vector_size(16)));

static v16 splat(unsigned char c)
{
    v16 v;

    memset(&v, c, sizeof(v));
    return v;
}
#endif

/* Every case of run ?1 in reading order with each of its text outputs (NULL: none). */
static const char sql_texts[] =
    "SELECT c.seq, c.case_id, c.prompt, o.content FROM cases c"
    " LEFT JOIN outputs o ON o.run = ?1 AND o.case_id = c.case_id AND o.binary = 0"
    " WHERE c.run = ?1 ORDER BY c.seq";

/* The corpus being read. */
struct load {
    struct arb_buf b;
    struct store_ci_rec *recs;
    size_t n, cap;
};

/* A needle, folded, with the positions of the two bytes the scan looks for (p1 <= p2). */
struct needle {
    char *s;
    size_t len, p1, p2;
};

/* ASCII letters to lower case; every other byte as it is. */
static void fold(char *p, size_t n)
{
    size_t i = 0;

#ifdef HAVE_VECTORS
    const v16 a = splat('A'), letters = splat(26), up = splat('a' - 'A');

    for (; i + 16 <= n; i += 16) {
        v16 x;

        memcpy(&x, p + i, sizeof(x));
        x += (v16)(x - a < letters) & up;
        memcpy(p + i, &x, sizeof(x));
    }
#endif
    for (; i < n; i++) {
        unsigned char c = (unsigned char)p[i];

        p[i] = (char)((unsigned)(c - 'A') < 26u ? c + ('a' - 'A') : c);
    }
}

/* Append text t (up to its first NUL, as LIKE reads it) folded, then a NUL; none for NULL. */
static enum arb_status add_text(struct arb_buf *b, const unsigned char *t)
{
    size_t from = b->len, len = t ? strlen((const char *)t) : 0;
    enum arb_status ret;

    if (!len)
        return ARB_OK;
    ret = arb_buf_add(b, t, len);
    if (ret)
        return ret;
    fold(b->ptr + from, len);
    return arb_buf_addc(b, '\0');
}

/* Start the record of case seq. */
static enum arb_status new_rec(struct load *l, int64_t seq)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 1024;
        struct store_ci_rec *r =
            cap < SIZE_MAX / sizeof(*r) ? realloc(l->recs, cap * sizeof(*r)) : NULL;

        if (!r)
            return ARB_ENOMEM;
        l->recs = r;
        l->cap = cap;
    }
    l->recs[l->n].seq = seq;
    l->recs[l->n].end = l->b.len;
    l->n++;
    return ARB_OK;
}

/* One row of sql_texts: a new case's record with its id and prompt, then the output's text. */
static enum arb_status add_row(struct load *l, sqlite3_stmt *s)
{
    int64_t seq = sqlite3_column_int64(s, 0);
    enum arb_status ret = ARB_OK;

    if (l->n == 0 || l->recs[l->n - 1].seq != seq) {
        ret = new_rec(l, seq);
        if (!ret)
            ret = add_text(&l->b, sqlite3_column_text(s, 1));
        if (!ret)
            ret = add_text(&l->b, sqlite3_column_text(s, 2));
    }
    if (!ret)
        ret = add_text(&l->b, sqlite3_column_text(s, 3));
    if (!ret)
        l->recs[l->n - 1].end = l->b.len;
    return ret;
}

/* Read run's texts into l: ARB_ETOOBIG (err untouched) when they pass CORPUS_MAX. */
static enum arb_status read_texts(struct arb_store *st, int64_t run, struct load *l,
                                  struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum arb_status ret = store_ci_prepare(st, sql_texts, &s, "read the texts to search", err);
    int rc = SQLITE_OK;

    if (ret)
        return ret;
    rc = store_bind_int(rc, s, 1, run);
    while (!ret && rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        ret = add_row(l, s);
        rc = SQLITE_OK;
    }
    if (ret == ARB_ENOMEM)
        arb_err_set(err, ret, "out of memory reading the texts of run %lld to search",
                    (long long)run);
    else if (!ret && rc != SQLITE_DONE)
        ret = store_fail(st, rc, err, "read the texts to search");
    sqlite3_finalize(s);
    return ret;
}

void store_ci_corpus_release(struct store_ci_corpus *c)
{
    size_t max = c->max;

    free(c->text);
    free(c->recs);
    memset(c, 0, sizeof(*c));
    c->max = max;
}

/* The storage of l, cut to its size, handed to c, and the sampled histogram of its bytes. */
static void keep(struct store_ci_corpus *c, struct load *l)
{
    char *text = realloc(l->b.ptr, l->b.len + 1);
    struct store_ci_rec *recs = l->n ? realloc(l->recs, l->n * sizeof(*recs)) : NULL;

    /* A failed shrink keeps the larger block, which is as good. */
    c->text = text ? text : l->b.ptr;
    c->len = l->b.len;
    c->recs = recs ? recs : l->recs;
    c->n = l->n;
    for (size_t i = 0; i < c->len; i += SAMPLE_STRIDE)
        c->hist[(unsigned char)c->text[i]]++;
}

enum arb_status store_ci_corpus_load(struct arb_store *st, struct store_ci_corpus *c, int64_t run,
                                     int *held, struct arb_err *err)
{
    struct load l = {{NULL, 0, 0, 0}, NULL, 0, 0};
    enum arb_status ret;

    *held = 0;
    if (c->run == run) {
        *held = !c->too_big;
        return ARB_OK;
    }
    store_ci_corpus_release(c);
    arb_buf_init(&l.b, c->max ? c->max : CORPUS_MAX);
    ret = read_texts(st, run, &l, err);
    if (ret == ARB_OK) {
        keep(c, &l);
        *held = 1;
    } else {
        arb_buf_release(&l.b);
        free(l.recs);
    }
    if (ret == ARB_ETOOBIG) {
        c->too_big = 1;
        ret = ARB_OK;
    }
    if (ret == ARB_OK)
        c->run = run;
    return ret;
}

size_t store_ci_corpus_bytes(const struct store_ci_corpus *c)
{
    return (c->text ? c->len + 1 : 0) + c->n * sizeof(*c->recs);
}

/* ---- the scan ------------------------------------------------------------------------------ */

/* The rarest byte's position in nd by c's sample, other than skip (SIZE_MAX: any). */
static size_t rarest(const struct store_ci_corpus *c, const char *nd, size_t len, size_t skip)
{
    size_t best = skip == 0 ? 1 : 0;

    for (size_t i = best + 1; i < len; i++)
        if (i != skip && c->hist[(unsigned char)nd[i]] < c->hist[(unsigned char)nd[best]])
            best = i;
    return best;
}

/* needle folded, with its two rarest bytes (one byte: the same twice).  ARB_ENOMEM. */
static enum arb_status needle_of(const struct store_ci_corpus *c, const char *needle,
                                 struct needle *nd)
{
    size_t a, b;

    nd->len = strlen(needle);
    nd->s = malloc(nd->len + 1);
    if (!nd->s)
        return ARB_ENOMEM;
    memcpy(nd->s, needle, nd->len + 1);
    fold(nd->s, nd->len);
    a = nd->len > 1 ? rarest(c, nd->s, nd->len, SIZE_MAX) : 0;
    b = nd->len > 1 ? rarest(c, nd->s, nd->len, a) : 0;
    nd->p1 = a < b ? a : b;
    nd->p2 = a < b ? b : a;
    return ARB_OK;
}

/* The first match of nd in the n bytes at h, or NULL. */
static const char *scan(const char *h, size_t n, const struct needle *nd)
{
#ifdef HAVE_VECTORS
    const v16 b1 = splat((unsigned char)nd->s[nd->p1]), b2 = splat((unsigned char)nd->s[nd->p2]);
    size_t i = 0, last;

    if (n < nd->len || nd->len == 0)
        return nd->len == 0 ? h : NULL;
    last = n - nd->len; /* where the last match could start */
    /* The loads reach h + i + p2 + 15 <= h + last + len - 1: inside the n bytes. */
    for (; i + 15 <= last; i += 16) {
        v16 x, y;
        uint64_t m[2];

        memcpy(&x, h + i + nd->p1, sizeof(x));
        memcpy(&y, h + i + nd->p2, sizeof(y));
        x = (v16)(x == b1) & (v16)(y == b2);
        memcpy(m, &x, sizeof(m));
        if (!(m[0] | m[1]))
            continue;
        for (int w = 0; w < 2; w++) {
            /* A candidate's byte is 0xff: its top bit, at 8 * its place, stands for it. */
            for (uint64_t bits = m[w] & 0x8080808080808080u; bits; bits &= bits - 1) {
                const char *at = h + i + 8 * (size_t)w + (size_t)(__builtin_ctzll(bits) >> 3);

                if (memcmp(at, nd->s, nd->len) == 0)
                    return at;
            }
        }
    }
    for (; i <= last; i++)
        if (memcmp(h + i, nd->s, nd->len) == 0)
            return h + i;
    return NULL;
#else
    return memmem(h, n, nd->s, nd->len);
#endif
}

/* The first record from lo on that ends after offset at (there is one: at < len). */
static size_t rec_of(const struct store_ci_corpus *c, size_t lo, size_t at)
{
    size_t hi = c->n - 1;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (c->recs[mid].end > at)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

enum arb_status store_ci_corpus_find(const struct store_ci_corpus *c, const char *needle,
                                     enum arb_status (*fn)(void *ctx, int64_t seq), void *ctx,
                                     struct arb_err *err)
{
    struct needle nd;
    size_t at = 0, r = 0;
    enum arb_status ret = needle_of(c, needle, &nd);

    if (ret)
        return arb_err_set(err, ret, "out of memory searching the cases");
    while (!ret && at < c->len) {
        const char *hit = scan(c->text + at, c->len - at, &nd);

        if (!hit)
            break;
        r = rec_of(c, r, (size_t)(hit - c->text));
        ret = fn(ctx, c->recs[r].seq);
        /* The rest of this case's texts cannot add anything. */
        at = c->recs[r++].end;
    }
    free(nd.s);
    return ret;
}
