/*
 * case_index_int.h - what the files of the case index share (case_index.h): case_index.c
 * builds it, case_index_search.c finds the cases holding a text, case_index_query.c pages
 * and steps through it.
 *
 * The index is TEMP state of the connection (never the database file):
 *   temp.arb_ci         one row per case and pair; its rowid rid, also the column n, numbers
 *                       the rows in reading order, a run's rows being rids lo to hi
 *   temp.arb_ci_runs    one row per run indexed: lo, hi, and its tally (rows, flags)
 *   temp.arb_ci_hits    the seqs of the cases the last search matched
 *   temp.arb_ci_search  which run and text arb_ci_hits answers
 * No name collides with the views store_scope.c makes (cases, outputs...).
 */
#ifndef ARBITER_CASE_INDEX_INT_H
#define ARBITER_CASE_INDEX_INT_H

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

/* Build run's index unless it is there: arb_case_index_build. */
enum arb_status store_ci_build(struct arb_store *st, int64_t run, struct arb_err *err);

/*
 * Make temp.arb_ci_hits hold the seqs of run's cases whose id, prompt or an output contains
 * text (ASCII letters without case), unless it holds them already.
 */
enum arb_status store_ci_search(struct arb_store *st, int64_t run, const char *text,
                                struct arb_err *err);

#endif
