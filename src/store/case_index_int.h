/*
 * case_index_int.h - what the two files of the case index share (case_index.h): case_index.c
 * builds the index and its search hits, case_index_query.c pages and steps through it.
 *
 * The index is TEMP state of the connection (never the database file):
 *   temp.arb_ci        one row per case and pair, keyed (run, n), n the row's reading order
 *   temp.arb_ci_runs   one row per run indexed, with its rows and flag counts
 *   temp.arb_ci_hits   the seqs of the cases the last search matched (arb_ci_search says
 *                      which run and text)
 *   temp.arb_ci_text   the FTS5 trigram index of ids, prompts and outputs, made by the
 *                      first search of a run (rowid: run << 32 | seq)
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

/* Build run's index unless it is there: arb_case_index_build. */
enum arb_status store_ci_build(struct arb_store *st, int64_t run, struct arb_err *err);

/*
 * Make temp.arb_ci_hits hold the seqs of run's cases whose id, prompt or an output contains
 * text (ASCII letters without case), unless it holds them already.
 */
enum arb_status store_ci_search(struct arb_store *st, int64_t run, const char *text,
                                struct arb_err *err);

#endif
