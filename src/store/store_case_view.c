/*
 * store_case_view.c - what a case asked, for showing one case whole (`arbiter
 * show`, the HTML report's case view): the suite's task as the run stored it
 * and the case's prompt.  The judge's answers are read by arb_store_judgments;
 * putting them together is the reader's (src/report/case_judge.c).
 *
 * The statements are prepared per call, like store_failures.c's: each runs
 * once per case shown, and preparing them after arb_store_scope's TEMP views
 * exist makes them read through the selection.
 */
#include <stdint.h>

#include "store_int.h"

/* The suite's "task" from the suite the run stored (RFC 8785 text), NULL when it had none. */
static const char sql_task[] =
    "SELECT CASE WHEN json_valid(suite_json) AND json_type(suite_json, '$.task') = 'text'"
    " THEN json_extract(suite_json, '$.task') END FROM runs WHERE id = ?1";

static const char sql_prompt[] = "SELECT prompt FROM cases WHERE run = ?1 AND case_id = ?2";

/* Step a statement of one text column once: fn with the row's text, when there is a row. */
static enum arb_status one_text(struct arb_store *st, const char *sql, int64_t run,
                                const char *case_id, int (*fn)(void *ctx, const char *text),
                                void *ctx, struct arb_err *err, const char *what)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
    enum arb_status ret = ARB_OK;

    if (rc != SQLITE_OK) {
        sqlite3_finalize(s);
        return store_fail(st, rc, err, "prepare the query of %s", what);
    }
    rc = store_bind_int(rc, s, 1, run);
    if (case_id)
        rc = store_bind_text(rc, s, 2, case_id);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        fn(ctx, store_col_text(s, 0));
        rc = SQLITE_DONE;
    }
    if (rc != SQLITE_DONE)
        ret = store_fail(st, rc, err, "read %s", what);
    sqlite3_finalize(s);
    return ret;
}

enum arb_status arb_store_run_task(struct arb_store *st, int64_t run,
                                   int (*fn)(void *ctx, const char *task), void *ctx,
                                   struct arb_err *err)
{
    return one_text(st, sql_task, run, NULL, fn, ctx, err, "the suite's task");
}

enum arb_status arb_store_case_prompt(struct arb_store *st, int64_t run, const char *case_id,
                                      int (*fn)(void *ctx, const char *prompt), void *ctx,
                                      struct arb_err *err)
{
    return one_text(st, sql_prompt, run, case_id ? case_id : "", fn, ctx, err, "the case's prompt");
}
