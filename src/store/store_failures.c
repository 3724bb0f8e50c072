/*
 * store_failures.c - why the judge failed a run: the judgments whose
 * question slot ended without a valid answer, with the reason each was
 * given (store.h, arb_store_judge_failures).  Grouping them by reason for
 * a summary or a report is the caller's; counting them is SQLite's, so a
 * reason's frequency is known before its first row.
 *
 * A slot (case, pair, order, sample) is asked at attempt 0, and at attempt
 * 1 when the first reply did not validate; --resume --retry-failed asks
 * attempt 0 again and replaces its row, leaving an earlier attempt 1 in
 * place.  So a slot failed when none of its attempts is good (valid, with
 * no error), and its reason is the error of its highest attempt: a schema
 * retry that then succeeded is no failure, and a slot re-asked successfully
 * is no failure either, whatever attempt it left behind.
 *
 * The statement reads judgments and cases by their unqualified names, so a
 * report scoped to some cases (store_scope.c's TEMP views) sees only theirs.
 * It is prepared per call rather than in store.c's table: it runs once per
 * command, and preparing it after the scope's views exist is what makes it
 * read them.
 */
#include <stdint.h>

#include "store_int.h"

/* A slot's judgments are "good" when valid with no error; the slot failed when none is. */
static const char sql_failures[] =
    "WITH last AS ("
    " SELECT j.case_id, j.system_a, j.system_b, j.ord, j.sample, j.attempt,"
    " coalesce(nullif(j.error, ''), 'the judge gave no valid reply') AS reason"
    " FROM judgments j WHERE j.run = ?1 AND (?2 IS NULL OR j.case_id = ?2)"
    " AND NOT (j.valid <> 0 AND coalesce(j.error, '') = '')"
    " AND NOT EXISTS (SELECT 1 FROM judgments k WHERE k.run = ?1 AND k.case_id = j.case_id"
    " AND k.system_a = j.system_a AND k.system_b = j.system_b AND k.ord = j.ord"
    " AND k.sample = j.sample"
    " AND (k.attempt > j.attempt OR (k.valid <> 0 AND coalesce(k.error, '') = '')))),"
    " f AS (SELECT l.*, coalesce(c.seq, -1) AS seq FROM last l"
    " LEFT JOIN cases c ON c.run = ?1 AND c.case_id = l.case_id)"
    " SELECT reason, count(*) OVER w AS n, min(seq) OVER w AS first, case_id, system_a,"
    " system_b, ord, sample, attempt FROM f WINDOW w AS (PARTITION BY reason)"
    " ORDER BY n DESC, first, reason, seq, case_id, system_a, system_b, ord, sample";

enum arb_status arb_store_judge_failures(struct arb_store *st, int64_t run, const char *case_id,
                                         int (*fn)(void *ctx,
                                                   const struct arb_judge_failure_row *f),
                                         void *ctx, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(st->db, sql_failures, -1, &s, NULL);
    enum arb_status ret = ARB_OK;

    if (rc != SQLITE_OK) {
        sqlite3_finalize(s);
        return store_fail(st, rc, err, "prepare the query of the judge's failures");
    }
    rc = store_bind_int(rc, s, 1, run);
    rc = store_bind_text(rc, s, 2, case_id);
    while (rc == SQLITE_OK || rc == SQLITE_ROW) {
        struct arb_judge_failure_row f;

        rc = sqlite3_step(s);
        if (rc != SQLITE_ROW)
            break;
        f.reason = store_col_text(s, 0);
        f.n = sqlite3_column_int64(s, 1);
        f.case_id = store_col_text(s, 3);
        f.system_a = store_col_text(s, 4);
        f.system_b = store_col_text(s, 5);
        f.ord = store_col_text(s, 6);
        f.sample = sqlite3_column_int(s, 7);
        f.attempt = sqlite3_column_int(s, 8);
        if (fn(ctx, &f)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    if (rc != SQLITE_DONE)
        ret = store_fail(st, rc, err, "read the judge's failures");
    sqlite3_finalize(s);
    return ret;
}
