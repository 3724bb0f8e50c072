/*
 * case_index_int.h - what the files of the case index share (case_index.h): case_index.c
 * builds it, case_index_search.c finds the cases holding a text in the texts
 * case_index_corpus.c holds, case_index_query.c pages and steps through it.
 *
 * The index is TEMP state of the connection (never the database file):
 *   temp.arb_ci         one row per case and pair; its rowid rid, also the column n, numbers
 *                       the rows in reading order, a run's rows being rids lo to hi
 *   temp.arb_ci_runs    one row per run indexed: lo, hi, and its tally (rows, flags)
 * No name collides with the views store_scope.c makes (cases, outputs...).  The search keeps
 * its state in memory (struct store_ci_search, st->ci_search): one run's texts, and the seqs
 * of the cases the last search matched, which the query reads through arb_ci_hit(seq).
 */
#ifndef ARBITER_CASE_INDEX_INT_H
#define ARBITER_CASE_INDEX_INT_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/case_index.h"
#include "store_int.h"

/* Prepare sql on st (NULL *s and a message naming what on failure). */
enum arb_status store_ci_prepare(struct arb_store *st, const char *sql, sqlite3_stmt **s,
                                 const char *what, struct arb_err *err);

/* What store_ci_exec binds: ?1 run, ?2 text or, when text is NULL, num. */
struct store_ci_args {
    int64_t run;
    const char *text;
    int64_t num;
};

/*
 * Prepare sql, bind a (as far as sql has parameters), step it to its end or its first row
 * and finalize it; *row (when not NULL) receives the first column of a row, 0 without one.
 * what names the step in a failure's message.
 */
enum arb_status store_ci_exec(struct arb_store *st, const char *sql, const struct store_ci_args *a,
                              int64_t *row, const char *what, struct arb_err *err);

/* ARB_EUSAGE (err set) when run does not exist, or a database failure. */
enum arb_status store_ci_need_run(struct arb_store *st, int64_t run, struct arb_err *err);

/* Build run's index unless it is there: arb_case_index_build but for the search's texts. */
enum arb_status store_ci_build(struct arb_store *st, int64_t run, struct arb_err *err);

/* ---- the search (case_index_search.c, case_index_corpus.c) ---------------------------- */

/* One case's texts in a corpus: from the previous record's end (or 0) to end. */
struct store_ci_rec {
    size_t end;
    int64_t seq;
};

/* The texts of one run that a search looks through (case_index_corpus.c). */
struct store_ci_corpus {
    int64_t run;               /* whose texts are held (or known too many); 0 for none */
    int too_big;               /* run's texts passed the cap and are not held */
    char *text;                /* owned: the texts, ASCII folded, each followed by a NUL */
    size_t len;                /* bytes of text */
    struct store_ci_rec *recs; /* owned: one per case, in reading order */
    size_t n;
    unsigned hist[256]; /* how often each byte is seen in a sample of text */
    size_t max;         /* the cap on text, 0 for the default (512 MB); tests lower it */
};

/*
 * What st's connection keeps for searching (st->ci_search): the corpus, and the hits of the
 * last search, which the SQL function arb_ci_hit(seq) of the query's filter reads.
 */
struct store_ci_search {
    struct store_ci_corpus corpus;
    int64_t run;   /* the run and text that hits answer; text NULL: none yet */
    char *text;    /* owned */
    int64_t *hits; /* owned: the seqs of the cases holding text, ascending */
    size_t n_hits;
};

/*
 * Make st->ci_search (once per connection) and register arb_ci_hit on st's connection.
 * ARB_ENOMEM or a database failure with err set.
 */
enum arb_status store_ci_search_setup(struct arb_store *st, struct arb_err *err);

/*
 * Make st->ci_search's hits those of run's cases whose id, prompt or an output contains text
 * (ASCII letters without case), unless they are.  After store_ci_search_setup.
 */
enum arb_status store_ci_search(struct arb_store *st, int64_t run, const char *text,
                                struct arb_err *err);

/*
 * Make c hold run's texts unless it holds them, replacing another run's.  *held is 1 when
 * they are held, 0 when they are too many to hold (then the caller scans with LIKE).
 * ARB_ENOMEM or a database failure with err set; c is empty then.
 */
enum arb_status store_ci_corpus_load(struct arb_store *st, struct store_ci_corpus *c, int64_t run,
                                     int *held, struct arb_err *err);

/* Free what c holds; c is empty (run 0, its cap kept) and reusable. */
void store_ci_corpus_release(struct store_ci_corpus *c);

/* The bytes c holds (its texts and records). */
size_t store_ci_corpus_bytes(const struct store_ci_corpus *c);

/*
 * Call fn with the seq of each case of c whose texts hold needle (ASCII letters without
 * case), in reading order, once per case, until fn returns non-zero, which is returned (fn
 * sets err).  ARB_ENOMEM with err set.
 */
enum arb_status store_ci_corpus_find(const struct store_ci_corpus *c, const char *needle,
                                     enum arb_status (*fn)(void *ctx, int64_t seq), void *ctx,
                                     struct arb_err *err);

#endif
