/*
 * store_batch.c - the record of the judge's provider batches (include/arbiter/batch.h,
 * db/migrations/009-judge-batches.sql): judge_batches and judge_batch_requests.
 *
 * Unlike the run's hot statements (store.c's table, prepared at open), these are prepared
 * when used and finalized after: a batch's bookkeeping is a few statements per batch and per
 * poll, and one lookup per request a pass handles; keeping them out of the table keeps this
 * feature in one file.  Every value is bound.
 */
#include <stdlib.h>
#include <string.h>

#include "arbiter/batch.h"
#include "store_int.h"

#define NOW "strftime('%Y-%m-%dT%H:%M:%SZ', 'now')"

#define BATCH_COLUMNS                                                                              \
    "b.id, b.run, b.provider, b.token, b.state, b.remote_id, b.remote_status, b.input_file_id, "   \
    "b.output_file_id, b.error_file_id, b.results_url, b.counts_json, b.error, b.created_at, "     \
    "b.submitted_at, b.ended_at, b.updated_at, b.n_requests "

#define REQUEST_COLUMNS                                                                            \
    "r.custom_id, r.key, r.case_id, r.system_a, r.system_b, r.ord, r.sample, r.attempt, "          \
    "r.fence, r.request_json, r.state, r.http_status, r.result_json, r.error "

static enum arb_status prepare(struct arb_store *st, const char *sql, sqlite3_stmt **s,
                               struct arb_err *err)
{
    int rc = sqlite3_prepare_v2(st->db, sql, -1, s, NULL);

    return rc == SQLITE_OK ? ARB_OK : store_fail(st, rc, err, "prepare a batch statement");
}

/* Run a write statement once and finalize it. */
static enum arb_status run_once(struct arb_store *st, sqlite3_stmt *s, int rc, struct arb_err *err,
                                const char *what)
{
    enum arb_status ret = store_exec(st, s, rc, err, what);

    sqlite3_finalize(s);
    return ret;
}

static void batch_row(sqlite3_stmt *s, struct arb_batch_row *b)
{
    b->id = sqlite3_column_int64(s, 0);
    b->run = sqlite3_column_int64(s, 1);
    b->provider = store_col_text(s, 2);
    b->token = store_col_text(s, 3);
    b->state = store_col_text(s, 4);
    b->remote_id = store_col_text(s, 5);
    b->remote_status = store_col_text(s, 6);
    b->input_file_id = store_col_text(s, 7);
    b->output_file_id = store_col_text(s, 8);
    b->error_file_id = store_col_text(s, 9);
    b->results_url = store_col_text(s, 10);
    b->counts_json = store_col_text(s, 11);
    b->error = store_col_text(s, 12);
    b->created_at = store_col_text(s, 13);
    b->submitted_at = store_col_text(s, 14);
    b->ended_at = store_col_text(s, 15);
    b->updated_at = store_col_text(s, 16);
    b->n_requests = sqlite3_column_int64(s, 17);
}

static void request_row(sqlite3_stmt *s, int from, struct arb_batch_request_row *r)
{
    r->custom_id = store_col_text(s, from);
    r->key = store_col_text(s, from + 1);
    r->case_id = store_col_text(s, from + 2);
    r->system_a = store_col_text(s, from + 3);
    r->system_b = store_col_text(s, from + 4);
    r->ord = store_col_text(s, from + 5);
    r->sample = sqlite3_column_int(s, from + 6);
    r->attempt = sqlite3_column_int(s, from + 7);
    r->fence = store_col_text(s, from + 8);
    r->request_json = store_col_text(s, from + 9);
    r->state = store_col_text(s, from + 10);
    r->http_status = (long)sqlite3_column_int64(s, from + 11);
    r->result_json = store_col_text(s, from + 12);
    r->error = store_col_text(s, from + 13);
}

static enum arb_status put_request(struct arb_store *st, sqlite3_stmt *s, int64_t batch,
                                   const struct arb_batch_request_row *r, struct arb_err *err)
{
    int rc = sqlite3_bind_int64(s, 1, batch);

    rc = store_bind_text(rc, s, 2, r->custom_id);
    rc = store_bind_text(rc, s, 3, r->key);
    rc = store_bind_text(rc, s, 4, r->case_id);
    rc = store_bind_text(rc, s, 5, r->system_a);
    rc = store_bind_text(rc, s, 6, r->system_b ? r->system_b : "");
    rc = store_bind_text(rc, s, 7, r->ord);
    rc = store_bind_int(rc, s, 8, r->sample);
    rc = store_bind_int(rc, s, 9, r->attempt);
    rc = store_bind_text(rc, s, 10, r->fence && r->fence[0] ? r->fence : NULL);
    rc = store_bind_text(rc, s, 11, r->request_json);
    return store_exec(st, s, rc, err, "record a batch request");
}

enum arb_status arb_store_batch_create(struct arb_store *st, int64_t run, const char *provider,
                                       const char *token, const struct arb_batch_request_row *reqs,
                                       size_t n, int64_t *id, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    size_t i;
    int rc;
    enum arb_status ret = arb_store_begin(st, err);

    if (ret)
        return ret;
    ret = prepare(st,
                  "INSERT INTO judge_batches (run, provider, token, state, n_requests, "
                  "created_at, updated_at) VALUES (?1, ?2, ?3, 'intent', ?4, " NOW ", " NOW ")",
                  &s, err);
    if (!ret) {
        rc = sqlite3_bind_int64(s, 1, run);
        rc = store_bind_text(rc, s, 2, provider);
        rc = store_bind_text(rc, s, 3, token);
        rc = store_bind_int(rc, s, 4, (int64_t)n);
        ret = run_once(st, s, rc, err, "record a judge batch");
        s = NULL;
        *id = sqlite3_last_insert_rowid(st->db);
    }
    if (!ret)
        ret = prepare(st,
                      "INSERT INTO judge_batch_requests (batch, custom_id, key, case_id, "
                      "system_a, system_b, ord, sample, attempt, fence, request_json) "
                      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                      &s, err);
    for (i = 0; !ret && i < n; i++)
        ret = put_request(st, s, *id, &reqs[i], err);
    sqlite3_finalize(s);
    if (!ret)
        ret = arb_store_commit(st, err);
    if (ret)
        arb_store_rollback(st);
    return ret;
}

enum arb_status arb_store_batch_update(struct arb_store *st, const struct arb_batch_row *b,
                                       struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc;
    enum arb_status ret =
        prepare(st,
                "UPDATE judge_batches SET state = ?2, remote_id = ?3, remote_status = ?4, "
                "input_file_id = ?5, output_file_id = ?6, error_file_id = ?7, results_url = ?8, "
                "counts_json = ?9, error = ?10, submitted_at = ?11, ended_at = ?12, "
                "updated_at = " NOW " WHERE id = ?1",
                &s, err);

    if (ret)
        return ret;
    rc = sqlite3_bind_int64(s, 1, b->id);
    rc = store_bind_text(rc, s, 2, b->state);
    rc = store_bind_text(rc, s, 3, b->remote_id && b->remote_id[0] ? b->remote_id : NULL);
    rc = store_bind_text(rc, s, 4,
                         b->remote_status && b->remote_status[0] ? b->remote_status : NULL);
    rc = store_bind_text(rc, s, 5,
                         b->input_file_id && b->input_file_id[0] ? b->input_file_id : NULL);
    rc = store_bind_text(rc, s, 6,
                         b->output_file_id && b->output_file_id[0] ? b->output_file_id : NULL);
    rc = store_bind_text(rc, s, 7,
                         b->error_file_id && b->error_file_id[0] ? b->error_file_id : NULL);
    rc = store_bind_text(rc, s, 8, b->results_url && b->results_url[0] ? b->results_url : NULL);
    rc = store_bind_text(rc, s, 9, b->counts_json && b->counts_json[0] ? b->counts_json : NULL);
    rc = store_bind_text(rc, s, 10, b->error && b->error[0] ? b->error : NULL);
    rc = store_bind_text(rc, s, 11, b->submitted_at);
    rc = store_bind_text(rc, s, 12, b->ended_at);
    return run_once(st, s, rc, err, "update a judge batch");
}

enum arb_status arb_store_batches(struct arb_store *st, int64_t run,
                                  int (*fn)(void *ctx, const struct arb_batch_row *b), void *ctx,
                                  struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    struct arb_batch_row b;
    int rc;
    enum arb_status ret = prepare(st,
                                  "SELECT " BATCH_COLUMNS "FROM judge_batches b "
                                  "WHERE ?1 = 0 OR b.run = ?1 ORDER BY b.id",
                                  &s, err);

    if (ret)
        return ret;
    rc = sqlite3_bind_int64(s, 1, run);
    while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        batch_row(s, &b);
        if (fn(ctx, &b)) {
            rc = SQLITE_DONE;
            break;
        }
        rc = SQLITE_OK;
    }
    if (rc != SQLITE_DONE && rc != SQLITE_OK)
        ret = store_fail(st, rc, err, "read the judge batches");
    sqlite3_finalize(s);
    return ret;
}

enum arb_status arb_store_batch_requests(struct arb_store *st, int64_t batch,
                                         int (*fn)(void *ctx,
                                                   const struct arb_batch_request_row *r),
                                         void *ctx, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    struct arb_batch_request_row r;
    int rc;
    enum arb_status ret = prepare(st,
                                  "SELECT " REQUEST_COLUMNS "FROM judge_batch_requests r "
                                  "WHERE r.batch = ?1 ORDER BY r.rowid",
                                  &s, err);

    if (ret)
        return ret;
    rc = sqlite3_bind_int64(s, 1, batch);
    while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        request_row(s, 0, &r);
        if (fn(ctx, &r)) {
            rc = SQLITE_DONE;
            break;
        }
        rc = SQLITE_OK;
    }
    if (rc != SQLITE_DONE && rc != SQLITE_OK)
        ret = store_fail(st, rc, err, "read a judge batch's requests");
    sqlite3_finalize(s);
    return ret;
}

enum arb_status arb_store_batch_put_result(struct arb_store *st, int64_t batch,
                                           const struct arb_batch_request_row *r, int *matched,
                                           struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc;
    enum arb_status ret = store_need_txn(st, "store a batch result", err);

    *matched = 0;
    if (!ret)
        ret = prepare(st,
                      "UPDATE judge_batch_requests SET state = ?3, http_status = ?4, "
                      "result_json = ?5, error = ?6 "
                      "WHERE batch = ?1 AND custom_id = ?2 AND state = 'pending'",
                      &s, err);
    if (ret)
        return ret;
    rc = sqlite3_bind_int64(s, 1, batch);
    rc = store_bind_text(rc, s, 2, r->custom_id);
    rc = store_bind_text(rc, s, 3, r->state);
    rc = r->http_status ? store_bind_int(rc, s, 4, r->http_status) : rc;
    rc = store_bind_text(rc, s, 5, r->result_json);
    rc = store_bind_text(rc, s, 6, r->error);
    ret = store_exec(st, s, rc, err, "store a batch result");
    *matched = !ret && sqlite3_changes(st->db) > 0;
    sqlite3_finalize(s);
    return ret;
}

enum arb_status arb_store_batch_downloaded(struct arb_store *st, int64_t batch, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum arb_status ret = store_need_txn(st, "mark a batch downloaded", err);

    if (!ret)
        ret = prepare(st,
                      "UPDATE judge_batch_requests SET state = 'missing', "
                      "error = 'the ended batch had no result for the request' "
                      "WHERE batch = ?1 AND state = 'pending'",
                      &s, err);
    if (!ret)
        ret = run_once(st, s, sqlite3_bind_int64(s, 1, batch), err, "mark missing results");
    s = NULL;
    if (!ret)
        ret = prepare(
            st, "UPDATE judge_batches SET state = 'downloaded', updated_at = " NOW " WHERE id = ?1",
            &s, err);
    if (!ret)
        ret = run_once(st, s, sqlite3_bind_int64(s, 1, batch), err, "mark a batch downloaded");
    return ret;
}

enum arb_status arb_store_batch_lookup(struct arb_store *st, int64_t run, const char *key,
                                       int (*fn)(void *ctx, const struct arb_batch_request_row *r,
                                                 const char *batch_state),
                                       void *ctx, int *submits, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    struct arb_batch_request_row r;
    int rc;
    enum arb_status ret =
        prepare(st,
                "SELECT " REQUEST_COLUMNS ", b.state, "
                "(SELECT count(*) FROM judge_batch_requests r2 JOIN judge_batches b2 "
                "ON b2.id = r2.batch WHERE r2.key = ?2 AND b2.run = ?1) "
                "FROM judge_batch_requests r JOIN judge_batches b ON b.id = r.batch "
                "WHERE r.key = ?2 AND b.run = ?1 ORDER BY b.id DESC LIMIT 1",
                &s, err);

    *submits = 0;
    if (ret)
        return ret;
    rc = sqlite3_bind_int64(s, 1, run);
    rc = store_bind_text(rc, s, 2, key);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        request_row(s, 0, &r);
        *submits = sqlite3_column_int(s, 15);
        fn(ctx, &r, store_col_text(s, 14));
        rc = SQLITE_DONE;
    }
    if (rc != SQLITE_DONE)
        ret = store_fail(st, rc, err, "look up a batch request");
    sqlite3_finalize(s);
    return ret;
}

enum arb_status arb_store_batch_known(struct arb_store *st, const char *provider,
                                      const char *remote_id, int *known, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc;
    enum arb_status ret = prepare(st,
                                  "SELECT 1 FROM judge_batches WHERE provider = ?1 AND "
                                  "remote_id = ?2",
                                  &s, err);

    *known = 0;
    if (ret)
        return ret;
    rc = store_bind_text(SQLITE_OK, s, 1, provider);
    rc = store_bind_text(rc, s, 2, remote_id);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    *known = rc == SQLITE_ROW;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        ret = store_fail(st, rc, err, "look up a batch id");
    sqlite3_finalize(s);
    return ret;
}

enum arb_status arb_store_batches_ingested(struct arb_store *st, int64_t run, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum arb_status ret = prepare(st,
                                  "UPDATE judge_batches SET state = 'ingested', updated_at = " NOW
                                  " WHERE run = ?1 AND state = 'downloaded'",
                                  &s, err);

    if (!ret)
        ret = run_once(st, s, sqlite3_bind_int64(s, 1, run), err, "mark batches ingested");
    return ret;
}
