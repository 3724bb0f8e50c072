/*
 * store_report_read.c - a report's look-ups of one case at a time
 * (store_report.h): the compared output of a case and system, so that the
 * statistics read each case's duration as they count it instead of sorting
 * a system's every output by case order.  The statement is prepared here,
 * a fixed string with its values bound, rather than in store.c's table:
 * only reports use it.
 */
#include <stdlib.h>

#include "arbiter/store_report.h"
#include "store_int.h"

/* The outputs' key (run, case_id, system, trial, file) gives the first row without a sort. */
static const char sql_first_output[] =
    "SELECT meta_json FROM outputs WHERE run = ?1 AND case_id = ?2 AND system = ?3 "
    "ORDER BY trial, file LIMIT 1";

struct arb_store_first_output {
    struct arb_store *st;
    sqlite3_stmt *s;
    int64_t run;
};

enum arb_status arb_store_first_output_open(struct arb_store *st, int64_t run,
                                            struct arb_store_first_output **out,
                                            struct arb_err *err)
{
    struct arb_store_first_output *q = calloc(1, sizeof(*q));
    int rc;

    *out = NULL;
    if (!q)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    rc = sqlite3_prepare_v3(st->db, sql_first_output, -1, SQLITE_PREPARE_PERSISTENT, &q->s, NULL);
    if (rc != SQLITE_OK) {
        enum arb_status ret = store_fail(st, rc, err, "read a stored run");

        sqlite3_finalize(q->s);
        free(q);
        return ret;
    }
    q->st = st;
    q->run = run;
    *out = q;
    return ARB_OK;
}

int arb_store_first_output_meta(struct arb_store_first_output *q, const char *case_id,
                                const char *system, const char **meta_json, struct arb_err *err)
{
    int rc;

    sqlite3_reset(q->s);
    rc = store_bind_int(SQLITE_OK, q->s, 1, q->run);
    rc = store_bind_text(rc, q->s, 2, case_id);
    rc = store_bind_text(rc, q->s, 3, system);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(q->s);
    *meta_json = NULL;
    if (rc == SQLITE_ROW) {
        *meta_json = store_col_text(q->s, 0);
        return 1;
    }
    if (rc == SQLITE_DONE)
        return 0;
    return -(int)store_fail(q->st, rc, err, "read a stored run");
}

void arb_store_first_output_close(struct arb_store_first_output *q)
{
    if (!q)
        return;
    sqlite3_finalize(q->s);
    free(q);
}
