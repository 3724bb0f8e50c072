/*
 * store_admin.c - whole-run operations: listing a run's cases with their
 * stored JSON (replay compares case by case), deleting a run (a new run
 * whose input failed to load).
 */
#include <string.h>

#include "store_int.h"

enum arb_status arb_store_cases(struct arb_store *st, int64_t run,
                                int (*fn)(void *ctx, const char *case_id, int64_t seq,
                                          const char *case_json),
                                void *ctx, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum arb_status ret = store_acquire(st, Q_CASES_ALL, &s, err);
    int rc;

    if (ret != ARB_OK)
        return ret;
    rc = store_bind_int(SQLITE_OK, s, 1, run);
    while (rc == SQLITE_OK || rc == SQLITE_ROW) {
        rc = sqlite3_step(s);
        if (rc != SQLITE_ROW)
            break;
        if (fn(ctx, store_col_text(s, 0), sqlite3_column_int64(s, 1), store_col_text(s, 2))) {
            rc = SQLITE_DONE;
            break;
        }
    }
    if (rc != SQLITE_DONE)
        ret = store_fail(st, rc, err, "read the cases");
    store_release(st, Q_CASES_ALL, s);
    return ret;
}

enum arb_status arb_store_run_delete(struct arb_store *st, int64_t id, struct arb_err *err)
{
    sqlite3_stmt *s = store_stmt(st, Q_RUN_DELETE);
    enum arb_status ret = store_need_txn(st, "delete a run", err);

    if (ret != ARB_OK)
        return ret;
    return store_exec(st, s, store_bind_int(SQLITE_OK, s, 1, id), err, "delete a run");
}
