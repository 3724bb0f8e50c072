/*
 * store_put.c - the idempotent writes: cases, outputs, blinding and problems
 * (checks: store_checks.c; verdicts: store_verdicts.c).
 *
 * Each put binds its values to a statement prepared at open and runs
 * INSERT ... ON CONFLICT DO NOTHING on the table's natural key, so putting a
 * record twice leaves the first alone (what a resumed run relies on).  Puts
 * only write inside the caller's transaction (arb_store_begin): batching is
 * what makes them cheap, and committing is what makes them durable.
 */
#include <string.h>

#include "store_int.h"

enum arb_status arb_store_put_case(struct arb_store *st, int64_t run, const char *case_id,
                                   int64_t seq, const char *prompt, const char *expected_json,
                                   const char *case_json, struct arb_err *err)
{
    sqlite3_stmt *s = store_stmt(st, Q_PUT_CASE);
    enum arb_status ret = store_need_txn(st, "put a case", err);
    int rc = SQLITE_OK;

    if (ret != ARB_OK)
        return ret;
    rc = store_bind_int(rc, s, 1, run);
    rc = store_bind_text(rc, s, 2, case_id);
    rc = store_bind_int(rc, s, 3, seq);
    rc = store_bind_text(rc, s, 4, prompt);
    rc = store_bind_text(rc, s, 5, expected_json);
    rc = store_bind_text(rc, s, 6, case_json);
    return store_exec_bound(st, s, rc, err, "put a case");
}

enum arb_status arb_store_put_output(struct arb_store *st, int64_t run,
                                     const struct arb_output_row *o, struct arb_err *err)
{
    sqlite3_stmt *s = store_stmt(st, Q_PUT_OUTPUT);
    enum arb_status ret = store_need_txn(st, "put an output", err);
    int rc = SQLITE_OK;

    if (ret != ARB_OK)
        return ret;
    if (!o)
        return arb_err_set(err, ARB_EUSAGE, "arb_store_put_output: no output");
    rc = store_bind_int(rc, s, 1, run);
    rc = store_bind_text(rc, s, 2, o->case_id);
    rc = store_bind_text(rc, s, 3, o->system);
    rc = store_bind_text(rc, s, 4, o->file ? o->file : "");
    /* Text keeps its exact bytes (NULs included); a binary file keeps only size and hash. */
    if (o->binary)
        rc = store_bind_text(rc, s, 5, NULL);
    else
        rc = store_bind_blob_text(rc, s, 5, o->content ? o->content : "", o->content ? o->len : 0);
    rc = store_bind_int(rc, s, 6, (int64_t)o->len);
    rc = store_bind_int(rc, s, 7, o->binary ? 1 : 0);
    rc = store_bind_text(rc, s, 8, o->sha256);
    rc = store_bind_text(rc, s, 9, o->meta_json);
    rc = store_bind_int(rc, s, 10, o->trial);
    return store_exec_bound(st, s, rc, err, "put an output");
}

enum arb_status arb_store_put_trial(struct arb_store *st, int64_t run,
                                    const struct arb_trial_row *t, struct arb_err *err)
{
    sqlite3_stmt *s = store_stmt(st, Q_PUT_TRIAL);
    enum arb_status ret = store_need_txn(st, "put a trial", err);
    int rc = SQLITE_OK;

    if (ret != ARB_OK)
        return ret;
    if (!t)
        return arb_err_set(err, ARB_EUSAGE, "arb_store_put_trial: no trial");
    rc = store_bind_int(rc, s, 1, run);
    rc = store_bind_text(rc, s, 2, t->case_id);
    rc = store_bind_text(rc, s, 3, t->system);
    rc = store_bind_int(rc, s, 4, t->trial);
    if (t->passed < 0)
        rc = store_bind_text(rc, s, 5, NULL);
    else
        rc = store_bind_int(rc, s, 5, t->passed);
    rc = store_bind_int(rc, s, 6, t->n_pass);
    rc = store_bind_int(rc, s, 7, t->n_fail);
    rc = store_bind_int(rc, s, 8, t->n_unresolved);
    rc = store_bind_text(rc, s, 9, t->records_json ? t->records_json : "[]");
    return store_exec(st, s, rc, err, "put a trial");
}

enum arb_status arb_store_put_blinding(struct arb_store *st, int64_t run, const char *case_id,
                                       const char *system_a, const char *system_b,
                                       const char *hmac_hex, struct arb_err *err)
{
    sqlite3_stmt *s = store_stmt(st, Q_PUT_BLINDING);
    enum arb_status ret = store_need_txn(st, "put a blinding", err);
    int rc = SQLITE_OK;

    if (ret != ARB_OK)
        return ret;
    rc = store_bind_int(rc, s, 1, run);
    rc = store_bind_text(rc, s, 2, case_id);
    rc = store_bind_text(rc, s, 3, system_a);
    rc = store_bind_text(rc, s, 4, system_b);
    rc = store_bind_text(rc, s, 5, hmac_hex);
    return store_exec_bound(st, s, rc, err, "put a blinding");
}

enum arb_status arb_store_put_problem(struct arb_store *st, int64_t run, const char *kind,
                                      const char *case_id, const char *system, const char *message,
                                      struct arb_err *err)
{
    sqlite3_stmt *s = store_stmt(st, Q_PUT_PROBLEM);
    enum arb_status ret = store_need_txn(st, "put a problem", err);
    int rc = SQLITE_OK;

    if (ret != ARB_OK)
        return ret;
    /* '' stands for "none" in the key: NULLs would make every such row distinct. */
    rc = store_bind_int(rc, s, 1, run);
    rc = store_bind_text(rc, s, 2, kind);
    rc = store_bind_text(rc, s, 3, case_id ? case_id : "");
    rc = store_bind_text(rc, s, 4, system ? system : "");
    rc = store_bind_text(rc, s, 5, message ? message : "");
    return store_exec(st, s, rc, err, "put a problem");
}
