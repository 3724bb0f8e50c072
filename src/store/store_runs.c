/*
 * store_runs.c - the runs table: create a run with its systems, set its
 * status, resolve "latest" or an id, and list runs.
 *
 * A run's systems rows come from its systems_json (json_each, in the order
 * listed), so the position the outputs iterator sorts by is the suite's.
 * Unlike the puts, these two writes may be called outside a transaction:
 * they then run in one of their own; inside the caller's, in a savepoint, so
 * a failure undoes the call alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

/* Open a scope for one write: a transaction of its own, or a savepoint in the caller's. */
static enum arb_status scope_begin(struct arb_store *st, int *own, const char *what,
                                   struct arb_err *err)
{
    if (st->flags & ARB_STORE_READONLY)
        return arb_err_set(err, ARB_EUSAGE, "cannot %s in '%s': opened read-only", what, st->path);
    *own = sqlite3_get_autocommit(st->db);
    if (*own)
        return arb_store_begin(st, err);
    return store_exec(st, store_stmt(st, Q_SAVEPOINT), SQLITE_OK, err, "start a savepoint");
}

/* Close the scope of scope_begin: keep its writes when ret is ARB_OK, else undo them. */
static enum arb_status scope_end(struct arb_store *st, int own, enum arb_status ret,
                                 struct arb_err *err)
{
    enum arb_status released;

    if (own) {
        if (ret == ARB_OK)
            ret = arb_store_commit(st, err);
        if (ret != ARB_OK)
            arb_store_rollback(st);
        return ret;
    }
    if (ret != ARB_OK) {
        store_exec(st, store_stmt(st, Q_ROLLBACK_TO), SQLITE_OK, NULL, "roll back a savepoint");
        store_texts_forget(st); /* no rollback hook for a savepoint's */
    }
    released = store_exec(st, store_stmt(st, Q_RELEASE), SQLITE_OK, ret == ARB_OK ? err : NULL,
                          "release a savepoint");
    return ret == ARB_OK ? released : ret;
}

enum arb_status arb_store_run_create(struct arb_store *st, const struct arb_run_row *run,
                                     int64_t *id, struct arb_err *err)
{
    sqlite3_stmt *s = store_stmt(st, Q_RUN_CREATE);
    const char *systems;
    enum arb_status ret;
    int64_t new_id = 0;
    int own = 0, rc = SQLITE_OK;

    if (!run || !id)
        return arb_err_set(err, ARB_EUSAGE, "arb_store_run_create: no run or id");
    systems = run->systems_json ? run->systems_json : "[]";
    ret = scope_begin(st, &own, "create a run", err);
    if (ret != ARB_OK)
        return ret;
    rc = store_bind_text(rc, s, 1, run->created_at);
    rc = store_bind_text(rc, s, 2, run->suite_path);
    rc = store_bind_text(rc, s, 3, run->suite_name);
    rc = store_bind_text(rc, s, 4, run->suite_sha256);
    rc = store_bind_text(rc, s, 5, run->suite_json);
    rc = store_bind_text(rc, s, 6, systems);
    /* The seed is a uint64; SQLite keeps its bit pattern as a signed integer. */
    rc = store_bind_int(rc, s, 7, (int64_t)run->seed);
    rc = store_bind_text(rc, s, 8, run->version);
    rc = store_bind_text(rc, s, 9, run->judge_json);
    rc = store_bind_text(rc, s, 11, run->scope_json);
    rc = store_bind_text(rc, s, 12, run->inputs_json);
    rc = store_bind_text(rc, s, 13, run->kind);
    rc = store_bind_text(rc, s, 14, run->procedure_hash);
    if (run->id > 0)
        rc = store_bind_int(rc, s, 10, run->id);
    else
        rc = store_bind_text(rc, s, 10, NULL); /* NULL: SQLite picks the next id */
    ret = store_exec(st, s, rc, err, "create a run");
    if (ret == ARB_OK) {
        new_id = sqlite3_last_insert_rowid(st->db);
        s = store_stmt(st, Q_RUN_SYSTEMS);
        rc = store_bind_int(SQLITE_OK, s, 1, new_id);
        rc = store_bind_text(rc, s, 2, systems);
        ret = store_exec(st, s, rc, err, "record the systems of a run (systems_json)");
    }
    ret = scope_end(st, own, ret, err);
    if (ret == ARB_OK)
        *id = new_id;
    return ret;
}

enum arb_status arb_store_run_set_status(struct arb_store *st, int64_t id, const char *status,
                                         struct arb_err *err)
{
    sqlite3_stmt *s = store_stmt(st, Q_RUN_STATUS);
    enum arb_status ret;
    int own = 0, rc;

    ret = scope_begin(st, &own, "set the status of a run", err);
    if (ret != ARB_OK)
        return ret;
    rc = store_bind_int(SQLITE_OK, s, 1, id);
    rc = store_bind_text(rc, s, 2, status);
    ret = store_exec(st, s, rc, err, "set the status of a run");
    if (ret == ARB_OK && sqlite3_changes(st->db) == 0)
        ret = arb_err_set(err, ARB_EUSAGE, "no run %lld in '%s'", (long long)id, st->path);
    return scope_end(st, own, ret, err);
}

/* Run a one-row, one-integer query bound with id (0: none); *found is 0 when no row or NULL. */
static enum arb_status query_id(struct arb_store *st, enum store_stmt q, int64_t id, int64_t *v,
                                int *found, struct arb_err *err)
{
    sqlite3_stmt *s;
    enum arb_status ret = store_acquire(st, q, &s, err);
    int rc = SQLITE_OK;

    *found = 0;
    if (ret != ARB_OK)
        return ret;
    if (id)
        rc = store_bind_int(rc, s, 1, id);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *found = sqlite3_column_type(s, 0) != SQLITE_NULL;
        *v = sqlite3_column_int64(s, 0);
    } else if (rc != SQLITE_DONE) {
        ret = store_fail(st, rc, err, "look up a run");
    }
    store_release(st, q, s);
    return ret;
}

/* A run id as the user wrote it: decimal digits only, 1 to INT64_MAX. */
static int parse_id(const char *spec, int64_t *id)
{
    char *end = NULL;
    long long v;

    if (!spec[0] || spec[0] < '0' || spec[0] > '9')
        return -1;
    errno = 0;
    v = strtoll(spec, &end, 10);
    if (errno || *end || v <= 0)
        return -1;
    *id = v;
    return 0;
}

enum arb_status arb_store_run_resolve(struct arb_store *st, const char *spec, int64_t *id,
                                      struct arb_err *err)
{
    enum arb_status ret;
    int64_t v = 0, want = 0;
    int found = 0;

    if (!spec || !id)
        return arb_err_set(err, ARB_EUSAGE, "arb_store_run_resolve: no run given");
    if (strcmp(spec, "latest") == 0) {
        ret = query_id(st, Q_RUN_LATEST, 0, &v, &found, err);
        if (ret == ARB_OK && !found)
            ret = arb_err_set(err, ARB_EUSAGE, "no runs in '%s'", st->path);
    } else if (parse_id(spec, &want) == 0) {
        ret = query_id(st, Q_RUN_EXISTS, want, &v, &found, err);
        v = want;
        if (ret == ARB_OK && !found)
            ret = arb_err_set(err, ARB_EUSAGE, "no run %lld in '%s'", (long long)want, st->path);
    } else {
        ret = arb_err_set(err, ARB_EUSAGE, "invalid run '%s' (expected \"latest\" or a run id)",
                          spec);
    }
    if (ret == ARB_OK)
        *id = v;
    return ret;
}

enum arb_status arb_store_runs(struct arb_store *st, int64_t id,
                               int (*fn)(void *ctx, const struct arb_run_row *run), void *ctx,
                               struct arb_err *err)
{
    enum store_stmt q = id ? Q_RUNS_ONE : Q_RUNS_ALL;
    enum arb_status ret = ARB_OK;
    sqlite3_stmt *s;
    int rc = SQLITE_OK;

    if (!fn)
        return arb_err_set(err, ARB_EUSAGE, "arb_store_runs: no callback");
    ret = store_acquire(st, q, &s, err);
    if (ret != ARB_OK)
        return ret;
    if (id)
        rc = store_bind_int(rc, s, 1, id);
    while (rc == SQLITE_OK || rc == SQLITE_ROW) {
        struct arb_run_row r;

        rc = sqlite3_step(s);
        if (rc != SQLITE_ROW)
            break;
        r.id = sqlite3_column_int64(s, 0);
        r.created_at = store_col_text(s, 1);
        r.status = store_col_text(s, 2);
        r.suite_path = store_col_text(s, 3);
        r.suite_name = store_col_text(s, 4);
        r.suite_sha256 = store_col_text(s, 5);
        r.suite_json = store_col_text(s, 6);
        r.systems_json = store_col_text(s, 7);
        r.seed = (uint64_t)sqlite3_column_int64(s, 8);
        r.version = store_col_text(s, 9);
        r.judge_json = store_col_text(s, 10);
        r.n_cases = sqlite3_column_int64(s, 11);
        r.scope_json = store_col_text(s, 12);
        r.inputs_json = store_col_text(s, 13);
        r.kind = store_col_text(s, 14);
        r.procedure_hash = store_col_text(s, 15);
        if (fn(ctx, &r)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    if (rc != SQLITE_DONE)
        ret = store_fail(st, rc, err, "list runs");
    store_release(st, q, s);
    return ret;
}
