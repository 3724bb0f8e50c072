/*
 * case_index_search.c - the cases of a run holding a text (case_index.h, the query's search):
 * their seqs are kept in memory with the run and text they answer (struct store_ci_search,
 * st->ci_search), and the query's filter reads them through the SQL function arb_ci_hit(seq),
 * so a search's other pages and stepping through its cases do not search again.
 *
 * The texts (case ids, prompts, text outputs) are read once per run and connection into
 * memory (case_index_corpus.c) and scanned there.  Measured on 100,000 cases with two
 * 600-byte outputs each (bench/bench_view_index.c; bench/README.md has the figures): reading
 * them costs about two LIKE scans, once, then a new text costs a scan of memory (5 to 30 ms)
 * instead of 100 to 290 ms of CPU for a LIKE scan of the rows (reading the rows through SQLite
 * was most of that; a Horspool search as an SQL function did no better).  An FTS5 trigram
 * index answered in a few ms but cost about 10 s of CPU and 400 MB of TEMP file to build at
 * 100,000 cases.  Keeping the hits in memory rather than in a TEMP table spares inserting
 * them (25 ms for 100,000), and a count over the run's rows reads them as fast.
 *
 * A run whose texts are too many to hold (case_index_corpus.c) is scanned with LIKE, the
 * text's \, % and _ escaped by \: the same matches, LIKE comparing ASCII letters without case
 * and every other character as it is, and stopping at a NUL as the corpus does (but for
 * invalid UTF-8, which LIKE reads as characters, each bad sequence U+FFFD, and the corpus
 * compares bytewise).
 */
#include <stdlib.h>
#include <string.h>

#include "case_index_int.h"

/* ?2 as a LIKE pattern matching any text that holds it. */
#define LIKE_TEXT                                                                                  \
    " LIKE '%' || replace(replace(replace(?2, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%'"      \
    " ESCAPE '\\'"

/* The seqs of run ?1's cases whose id, prompt or an output (any system's, any file) holds ?2,
 * ascending, each once: the scan of a run whose texts are not held. */
static const char sql_scan[] =
    "SELECT seq FROM cases WHERE run = ?1 AND (case_id" LIKE_TEXT " OR prompt" LIKE_TEXT ")"
    " UNION SELECT c.seq FROM outputs o JOIN cases c ON c.run = ?1 AND c.case_id = o.case_id"
    " WHERE o.run = ?1 AND o.content" LIKE_TEXT " ORDER BY 1";

/* Seqs being gathered. */
struct hits {
    int64_t *seq;
    size_t n, cap;
    struct arb_err *err;
};

static enum arb_status add_hit(void *ctx, int64_t seq)
{
    struct hits *h = ctx;

    if (h->n == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 256;
        int64_t *p = cap < SIZE_MAX / sizeof(*p) ? realloc(h->seq, cap * sizeof(*p)) : NULL;

        if (!p)
            return arb_err_set(h->err, ARB_ENOMEM, "out of memory searching the cases");
        h->seq = p;
        h->cap = cap;
    }
    h->seq[h->n++] = seq;
    return ARB_OK;
}

/* arb_ci_hit(seq): 1 when the last search found case seq (a binary search of its hits). */
static void hit_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    const struct store_ci_search *s = sqlite3_user_data(ctx);
    int64_t seq = sqlite3_value_int64(argv[0]);
    size_t lo = 0, hi = s->n_hits;

    (void)argc;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (s->hits[mid] < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    sqlite3_result_int(ctx, lo < s->n_hits && s->hits[lo] == seq);
}

enum arb_status store_ci_search_setup(struct arb_store *st, struct arb_err *err)
{
    struct store_ci_search *s;
    int rc;

    if (st->ci_search)
        return ARB_OK;
    s = calloc(1, sizeof(*s));
    if (!s)
        return arb_err_set(err, ARB_ENOMEM, "out of memory indexing the cases");
    /* Not deterministic: its answer changes with the search.  s outlives the connection's
     * statements: arb_store_close frees it after closing the connection. */
    rc = sqlite3_create_function_v2(st->db, "arb_ci_hit", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, s,
                                    hit_fn, NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        free(s);
        return store_fail(st, rc, err, "set up the case index's search");
    }
    st->ci_search = s;
    return ARB_OK;
}

void store_ci_search_free(struct store_ci_search *s)
{
    if (!s)
        return;
    store_ci_corpus_release(&s->corpus);
    free(s->text);
    free(s->hits);
    free(s);
}

/* The hits of the LIKE scan, when run's texts are not held. */
static enum arb_status scan_rows(struct arb_store *st, int64_t run, const char *text,
                                 struct hits *h, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum arb_status ret = store_ci_prepare(st, sql_scan, &s, "search the cases", err);
    int rc = SQLITE_OK;

    if (ret)
        return ret;
    rc = store_bind_int(rc, s, 1, run);
    rc = store_bind_text(rc, s, 2, text);
    while (!ret && rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        ret = add_hit(h, sqlite3_column_int64(s, 0));
        rc = SQLITE_OK;
    }
    if (!ret && rc != SQLITE_DONE)
        ret = store_fail(st, rc, err, "search the cases");
    sqlite3_finalize(s);
    return ret;
}

enum arb_status store_ci_search(struct arb_store *st, int64_t run, const char *text,
                                struct arb_err *err)
{
    struct store_ci_search *s = st->ci_search;
    struct hits h = {NULL, 0, 0, err};
    size_t len = strlen(text);
    char *copy;
    int held = 0;
    enum arb_status ret;

    if (s->text && s->run == run && strcmp(s->text, text) == 0)
        return ARB_OK;
    copy = malloc(len + 1);
    if (!copy)
        return arb_err_set(err, ARB_ENOMEM, "out of memory searching the cases");
    memcpy(copy, text, len + 1);
    ret = store_ci_corpus_load(st, &s->corpus, run, &held, err);
    if (!ret)
        ret = held ? store_ci_corpus_find(&s->corpus, text, add_hit, &h, err)
                   : scan_rows(st, run, text, &h, err);
    if (ret) {
        /* The previous search stays as it was. */
        free(copy);
        free(h.seq);
        return ret;
    }
    free(s->text);
    free(s->hits);
    s->run = run;
    s->text = copy;
    s->hits = h.seq;
    s->n_hits = h.n;
    return ARB_OK;
}

enum arb_status arb_case_index_load_search(struct arb_store *st, int64_t run, size_t *bytes,
                                           struct arb_err *err)
{
    int held = 0;
    enum arb_status ret;

    if (bytes)
        *bytes = 0;
    if (!st)
        return arb_err_set(err, ARB_EUSAGE, "arb_case_index_load_search: no store");
    ret = store_ci_search_setup(st, err);
    if (!ret)
        ret = store_ci_need_run(st, run, err);
    if (!ret)
        ret = store_ci_corpus_load(st, &st->ci_search->corpus, run, &held, err);
    if (!ret && bytes && held)
        *bytes = store_ci_corpus_bytes(&st->ci_search->corpus);
    return ret;
}
