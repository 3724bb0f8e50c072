/*
 * store_judge.c - judge calls (the cache, shared by every run) and the
 * judgments a run made from them.
 */
#include <math.h>
#include <string.h>

#include "store_int.h"

enum arb_status arb_store_put_judge_call(struct arb_store *st, const struct arb_judge_call_row *c,
                                         struct arb_err *err)
{
    sqlite3_stmt *s = store_stmt(st, Q_PUT_JUDGE_CALL);
    enum arb_status ret = store_need_txn(st, "store a judge call", err);
    int rc = SQLITE_OK;

    if (ret != ARB_OK)
        return ret;
    if (!s)
        return store_fail(st, store_errcode(st), err, "prepare to store a judge call");
    rc = store_bind_text(rc, s, 1, c->key);
    rc = store_bind_text(rc, s, 2, c->provider);
    rc = store_bind_text(rc, s, 3, c->model);
    rc = store_bind_text(rc, s, 4, c->request_json);
    rc = store_bind_text(rc, s, 5, c->reply_json);
    rc = store_bind_text(rc, s, 6, c->status);
    rc = store_bind_int(rc, s, 7, c->http_status);
    rc = store_bind_int(rc, s, 8, c->attempts);
    rc = store_bind_real(rc, s, 9, c->latency_s);
    rc = store_bind_int(rc, s, 10, c->prompt_tokens);
    rc = store_bind_int(rc, s, 11, c->completion_tokens);
    rc = store_bind_text(rc, s, 12, c->error);
    rc = store_bind_int(rc, s, 13, c->cached_tokens);
    if (rc == SQLITE_OK)
        rc = c->valid < 0 ? sqlite3_bind_null(s, 14) : sqlite3_bind_int(s, 14, c->valid != 0);
    if (rc == SQLITE_OK) /* NAN: the judge had no price */
        rc = isnan(c->charged_usd) ? sqlite3_bind_null(s, 15)
                                   : sqlite3_bind_double(s, 15, c->charged_usd);
    rc = store_bind_text(rc, s, 16, c->response_format);
    rc = store_bind_text(rc, s, 17, c->stop_reason);
    rc = store_bind_text(rc, s, 18, c->normalization);
    rc = store_bind_text(rc, s, 19, c->error_type);
    rc = store_bind_text(rc, s, 20, c->error_code);
    rc = store_bind_text(rc, s, 21, c->error_message);
    ret = store_exec(st, store_stmt(st, Q_REJECT_JUDGE_CALL),
                     store_bind_text(SQLITE_OK, store_stmt(st, Q_REJECT_JUDGE_CALL), 1, c->key),
                     err, "keep a rejected judge reply");
    if (ret != ARB_OK) {
        sqlite3_reset(s);
        sqlite3_clear_bindings(s);
        return ret;
    }
    return store_exec(st, s, rc, err, "store a judge call");
}

void store_call_row(sqlite3_stmt *s, struct arb_judge_call_row *c)
{
    memset(c, 0, sizeof(*c));
    c->key = store_col_text(s, 0);
    c->provider = store_col_text(s, 1);
    c->model = store_col_text(s, 2);
    c->request_json = store_col_text(s, 3);
    c->reply_json = store_col_text(s, 4);
    c->status = store_col_text(s, 5);
    c->http_status = (long)sqlite3_column_int64(s, 6);
    c->attempts = sqlite3_column_int(s, 7);
    c->latency_s = store_col_real(s, 8);
    c->prompt_tokens = sqlite3_column_int64(s, 9);
    c->completion_tokens = sqlite3_column_int64(s, 10);
    c->error = store_col_text(s, 11);
    c->cached_tokens = sqlite3_column_int64(s, 12);
    c->valid = sqlite3_column_type(s, 13) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 13);
    c->response_format = store_col_text(s, 14);
    c->stop_reason = store_col_text(s, 15);
    c->normalization = store_col_text(s, 16);
    c->error_type = store_col_text(s, 17);
    c->error_code = store_col_text(s, 18);
    c->error_message = store_col_text(s, 19);
}

enum arb_status arb_store_get_judge_call(struct arb_store *st, const char *key,
                                         int (*fn)(void *ctx, const struct arb_judge_call_row *c),
                                         void *ctx, int *found, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum arb_status ret = store_acquire(st, Q_GET_JUDGE_CALL, &s, err);
    int rc;

    *found = 0;
    if (ret != ARB_OK)
        return ret;
    rc = store_bind_text(SQLITE_OK, s, 1, key);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        struct arb_judge_call_row c;

        store_call_row(s, &c);
        *found = 1;
        fn(ctx, &c);
        rc = SQLITE_DONE;
    }
    if (rc != SQLITE_DONE)
        ret = store_fail(st, rc, err, "read a judge call");
    store_release(st, Q_GET_JUDGE_CALL, s);
    return ret;
}

enum arb_status arb_store_put_judgment(struct arb_store *st, int64_t run,
                                       const struct arb_judgment_row *j, struct arb_err *err)
{
    sqlite3_stmt *s = store_stmt(st, Q_PUT_JUDGMENT);
    enum arb_status ret = store_need_txn(st, "store a judgment", err);
    int rc = SQLITE_OK;

    if (ret != ARB_OK)
        return ret;
    rc = store_bind_int(rc, s, 1, run);
    rc = store_bind_text(rc, s, 2, j->case_id);
    rc = store_bind_text(rc, s, 3, j->system_a);
    rc = store_bind_text(rc, s, 4, j->system_b);
    rc = store_bind_text(rc, s, 5, j->ord);
    rc = store_bind_int(rc, s, 6, j->sample);
    rc = store_bind_int(rc, s, 7, j->attempt);
    rc = store_bind_text(rc, s, 8, j->key);
    rc = store_bind_int(rc, s, 9, j->valid);
    rc = store_bind_int(rc, s, 10, j->cached);
    rc = store_bind_text(rc, s, 11, j->answer_json);
    rc = store_bind_text(rc, s, 12, j->error);
    rc = store_bind_text(rc, s, 13, j->fence);
    rc = store_bind_text(rc, s, 14, j->reply_sha256);
    return store_exec(st, s, rc, err, "store a judgment");
}

enum arb_status arb_store_judgments(struct arb_store *st, int64_t run, const char *case_id,
                                    int (*fn)(void *ctx, const struct arb_judgment_row *j),
                                    void *ctx, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum store_stmt q = case_id ? Q_JUDGMENTS_CASE : Q_JUDGMENTS_RUN;
    enum arb_status ret = store_acquire(st, q, &s, err);
    int rc;

    if (ret != ARB_OK)
        return ret;
    rc = store_bind_int(SQLITE_OK, s, 1, run);
    if (case_id)
        rc = store_bind_text(rc, s, 2, case_id);
    while (rc == SQLITE_OK || rc == SQLITE_ROW) {
        struct arb_judgment_row j;

        rc = sqlite3_step(s);
        if (rc != SQLITE_ROW)
            break;
        j.case_id = store_col_text(s, 0);
        j.system_a = store_col_text(s, 1);
        j.system_b = store_col_text(s, 2);
        j.ord = store_col_text(s, 3);
        j.sample = sqlite3_column_int(s, 4);
        j.attempt = sqlite3_column_int(s, 5);
        j.key = store_col_text(s, 6);
        j.valid = sqlite3_column_int(s, 7);
        j.cached = sqlite3_column_int(s, 8);
        j.answer_json = store_col_text(s, 9);
        j.error = store_col_text(s, 10);
        j.fence = store_col_text(s, 11);
        j.reply_sha256 = store_col_text(s, 12);
        if (fn(ctx, &j)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    if (rc != SQLITE_DONE)
        ret = store_fail(st, rc, err, "read judgments");
    store_release(st, q, s);
    return ret;
}

enum arb_status arb_store_judge_totals(struct arb_store *st, int64_t run,
                                       struct arb_judge_totals *t, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum arb_status ret = store_acquire(st, Q_JUDGE_TOTALS, &s, err);
    int rc;

    memset(t, 0, sizeof(*t));
    if (ret != ARB_OK)
        return ret;
    rc = store_bind_int(SQLITE_OK, s, 1, run);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        t->judgments = sqlite3_column_int64(s, 0);
        t->cached = sqlite3_column_int64(s, 1);
        t->prompt_tokens = sqlite3_column_int64(s, 2);
        t->completion_tokens = sqlite3_column_int64(s, 3);
        t->latency_s = sqlite3_column_double(s, 4);
        t->invalid = sqlite3_column_int64(s, 5);
        rc = SQLITE_DONE;
    }
    if (rc != SQLITE_DONE)
        ret = store_fail(st, rc, err, "sum the judge calls");
    store_release(st, Q_JUDGE_TOTALS, s);
    return ret;
}

enum arb_status arb_store_judge_costs(struct arb_store *st, int64_t run,
                                      int (*fn)(void *ctx, const struct arb_judge_cost_row *c),
                                      void *ctx, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum arb_status ret = store_acquire(st, Q_JUDGE_COSTS, &s, err);
    int rc;

    if (ret != ARB_OK)
        return ret;
    rc = store_bind_int(SQLITE_OK, s, 1, run);
    while (rc == SQLITE_OK || rc == SQLITE_ROW) {
        struct arb_judge_cost_row c;

        rc = sqlite3_step(s);
        if (rc != SQLITE_ROW)
            break;
        c.case_id = store_col_text(s, 0);
        c.calls = sqlite3_column_int64(s, 1);
        c.prompt_tokens = sqlite3_column_int64(s, 2);
        c.cached_tokens = sqlite3_column_int64(s, 3);
        c.completion_tokens = sqlite3_column_int64(s, 4);
        c.charged_usd = sqlite3_column_double(s, 5);
        c.uncharged_prompt = sqlite3_column_int64(s, 6);
        c.uncharged_cached = sqlite3_column_int64(s, 7);
        c.uncharged_completion = sqlite3_column_int64(s, 8);
        if (fn(ctx, &c)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    if (rc != SQLITE_DONE)
        ret = store_fail(st, rc, err, "sum the judge calls' tokens per case");
    store_release(st, Q_JUDGE_COSTS, s);
    return ret;
}
