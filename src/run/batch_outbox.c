/*
 * batch_outbox.c - the batcher a pass of a batch-mode run gives its judge
 * (judge.h: arb_judge_set_batcher).  For each request no stored reply answers
 * it looks for the request (by cache key) in the run's batches:
 *   - none: it goes to the outbox (once per key), the next batch;
 *   - in a batch not yet downloaded: it waits;
 *   - answered there (succeeded, or a provider's refusal such as a 400): the result is
 *     handed back and the judge handles it as the synchronous reply;
 *   - expired, cancelled, missing, or failed in a way worth another try (429, 5xx): as the
 *     config's batch_retry says: sent at once (sync), put in the next batch (batch, at most
 *     ARB_BATCH_MAX_SUBMITS batches a request), or recorded failed (none).
 * The outbox becomes batches in batch_submit.c once the pass has ended.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_int.h"

static enum arb_status route(void *ctx, const struct arb_judge_batch_request *rq,
                             enum arb_judge_batch_route *out, struct arb_judge_batch_result *res,
                             struct arb_err *err);

void outbox_init(struct batch_outbox *o, struct arb_store *st, const struct arb_judge_config *cfg,
                 const struct arb_batch_opts *bo)
{
    memset(o, 0, sizeof(*o));
    o->st = st;
    o->cfg = cfg;
    o->bo = bo;
    o->batcher.ctx = o;
    o->batcher.route = route;
    arb_strset_init(&o->keys);
}

static void entry_release(struct outbox_entry *e)
{
    free(e->body);
    free(e->case_id);
    free(e->system_a);
    free(e->system_b);
}

static void result_release(struct outbox_result *r)
{
    free(r->body);
    free(r->request);
    free(r->error);
    r->body = r->request = r->error = NULL;
}

void outbox_clear(struct batch_outbox *o)
{
    size_t i;

    for (i = 0; i < o->n; i++)
        entry_release(&o->v[i]);
    o->n = 0;
    arb_strset_release(&o->keys);
    arb_strset_init(&o->keys);
    o->answered = o->waiting = 0;
}

void outbox_release(struct batch_outbox *o)
{
    size_t i;

    outbox_clear(o);
    free(o->v);
    o->v = NULL;
    o->cap = 0;
    arb_strset_release(&o->keys);
    for (i = 0; i < RESULT_RING; i++)
        result_release(&o->ring[i]);
}

void batch_checkpoint(const struct arb_batch_opts *bo, const char *point)
{
    if (bo && bo->checkpoint)
        bo->checkpoint(bo->checkpoint_ctx, point);
}

void batch_notice(const struct arb_batch_opts *bo, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    if (!bo || !bo->notice)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    bo->notice(bo->notice_ctx, msg);
}

static char *dup_or_null(const char *s, int *oom)
{
    char *d = s ? strdup(s) : NULL;

    if (s && !d)
        *oom = 1;
    return d;
}

/* Put rq in the outbox (a key already there waits with it). */
static enum arb_status defer(struct batch_outbox *o, const struct arb_judge_batch_request *rq)
{
    struct outbox_entry *e;
    int added = 0, oom = 0;
    enum arb_status st = arb_strset_add(&o->keys, rq->key, o->n, &added, NULL);

    if (st || !added)
        return st;
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 64;
        struct outbox_entry *v = realloc(o->v, cap * sizeof(*v));

        if (!v)
            return ARB_ENOMEM;
        o->v = v;
        o->cap = cap;
    }
    e = &o->v[o->n];
    memset(e, 0, sizeof(*e));
    snprintf(e->key, sizeof(e->key), "%s", rq->key);
    snprintf(e->fence, sizeof(e->fence), "%s", rq->fence ? rq->fence : "");
    snprintf(e->ord, sizeof(e->ord), "%s", rq->slot->ord);
    e->sample = rq->slot->sample;
    e->attempt = rq->slot->attempt;
    e->body = dup_or_null(rq->body, &oom);
    e->case_id = dup_or_null(rq->slot->case_id, &oom);
    e->system_a = dup_or_null(rq->slot->system_a, &oom);
    e->system_b = dup_or_null(rq->slot->system_b ? rq->slot->system_b : "", &oom);
    if (oom) {
        entry_release(e);
        return ARB_ENOMEM;
    }
    o->n++;
    return ARB_OK;
}

/* What the lookup found: the latest request under the key, and its batch's state. */
struct found {
    struct batch_outbox *o;
    struct outbox_result *r; /* the ring's slot it filled */
    char state[16];       /* the request's */
    char batch_state[16]; /* its batch's */
    long http_status;
    int oom;
};

static int on_found(void *ctx, const struct arb_batch_request_row *r, const char *batch_state)
{
    struct found *f = ctx;
    struct batch_outbox *o = f->o;

    snprintf(f->state, sizeof(f->state), "%s", r->state ? r->state : "");
    snprintf(f->batch_state, sizeof(f->batch_state), "%s", batch_state ? batch_state : "");
    f->http_status = r->http_status;
    f->r = &o->ring[o->ring_at++ % RESULT_RING];
    result_release(f->r);
    f->r->body = dup_or_null(r->result_json, &f->oom);
    f->r->request = dup_or_null(r->request_json, &f->oom);
    f->r->error = dup_or_null(r->error, &f->oom);
    snprintf(f->r->fence, sizeof(f->r->fence), "%s", r->fence ? r->fence : "");
    return 0;
}

/* A failure no new attempt would mend: the provider refused the request itself (a 4xx other
 * than 408, 409 and 429), as the synchronous transport takes it. */
static int final_failure(const struct found *f)
{
    return strcmp(f->state, "errored") == 0 && f->http_status >= 400 && f->http_status < 500 &&
           f->http_status != 408 && f->http_status != 409 && f->http_status != 429;
}

static void answer(struct batch_outbox *o, const struct found *f, const char *why,
                   struct arb_judge_batch_result *res)
{
    res->ok = strcmp(f->state, "succeeded") == 0;
    res->http_status = f->http_status;
    res->body = f->r->body;
    res->error = why ? why : f->r->error;
    res->request_json = f->r->request;
    res->fence = f->r->fence;
    o->answered++;
}

static enum arb_status route(void *ctx, const struct arb_judge_batch_request *rq,
                             enum arb_judge_batch_route *out, struct arb_judge_batch_result *res,
                             struct arb_err *err)
{
    struct batch_outbox *o = ctx;
    struct found f;
    int submits = 0;
    enum arb_status st = ARB_OK;
    static const char *const done_states[] = {"downloaded", "ingested"};

    memset(&f, 0, sizeof(f));
    f.o = o;
    if (o->run)
        st = arb_store_batch_lookup(o->st, o->run, rq->key, on_found, &f, &submits, err);
    if (!st && f.oom)
        st = ARB_ENOMEM;
    if (st)
        return st;
    if (!submits) {
        *out = ARB_BATCH_DEFER;
        return defer(o, rq);
    }
    if (strcmp(f.batch_state, done_states[0]) != 0 && strcmp(f.batch_state, done_states[1]) != 0) {
        *out = ARB_BATCH_WAIT;
        o->waiting++;
        return ARB_OK;
    }
    if (strcmp(f.state, "succeeded") == 0 || final_failure(&f)) {
        batch_checkpoint(o->bo, "ingest");
        *out = ARB_BATCH_ANSWER;
        answer(o, &f, NULL, res);
        return ARB_OK;
    }
    /* Expired, cancelled, missing, or a failure worth another try. */
    switch (o->cfg->batch_retry) {
    case ARB_BATCH_RETRY_SYNC:
        *out = ARB_BATCH_SEND;
        return ARB_OK;
    case ARB_BATCH_RETRY_BATCH:
        if (submits < ARB_BATCH_MAX_SUBMITS) {
            *out = ARB_BATCH_DEFER;
            return defer(o, rq);
        }
        break;
    case ARB_BATCH_RETRY_NONE:
        break;
    }
    *out = ARB_BATCH_ANSWER;
    f.http_status = 0;
    snprintf(f.state, sizeof(f.state), "%s", "failed");
    answer(o, &f, NULL, res);
    if (!res->error)
        res->error = "no reply in the batch";
    return ARB_OK;
}
