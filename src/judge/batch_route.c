/*
 * batch_route.c - a batch-mode judge (judge.h: arb_judge_set_batcher): a call
 * that no stored reply answers is not sent; the run's batcher says where it
 * goes.  Deferred to a batch, or waiting in one, its slot is done without an
 * answer and its question answered held, so the pair stays pending_judge for
 * the run's next pass.  Answered by a batch's result, the result goes through
 * judge_on_done exactly as the synchronous transport's reply would: scrubbed,
 * parsed, validated, stored with its judgment, asked again once when invalid
 * (that retry routed in turn).  The call takes the body and fence code that
 * were sent in the batch, so the stored call and judgment say what was asked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/http.h"
#include "engine.h"

void arb_judge_set_batcher(struct arb_judge *j, const struct arb_judge_batcher *b)
{
    j->batcher = b;
}

/* The batch's result as the transport would have handed it over. */
static void answer(struct arb_judge *j, struct call *c, const struct arb_judge_batch_result *res)
{
    struct arb_http_result r;
    char *body = NULL;

    if (res->request_json && strcmp(res->request_json, c->body) != 0) {
        body = strdup(res->request_json);
        if (!body) {
            judge_fatal(j, ARB_ENOMEM);
            return;
        }
        free(c->body);
        c->body = body;
    }
    if (!judge_refence(c, res->fence)) {
        judge_fatal(j, ARB_ENOMEM);
        return;
    }
    memset(&r, 0, sizeof(r));
    r.user = c;
    r.st = res->ok ? ARB_OK : ARB_EIO;
    r.status = res->http_status;
    r.body = res->body ? res->body : "";
    r.body_len = strlen(r.body);
    r.attempts = 1;
    r.latency_s = res->latency_s;
    if (!res->ok)
        snprintf(r.error, sizeof(r.error), "%s", res->error ? res->error : "no reply in the batch");
    c->sent = 1;
    c->estimate = 0.0; /* nothing was reserved: the batch was never under the cap */
    j->prog.sent++;
    j->prog.in_flight++;
    judge_on_done(j, &r);
}

void judge_batch_dispatch(struct arb_judge *j, struct call *c)
{
    struct arb_judge_slot slot;
    struct arb_judge_batch_request rq;
    struct arb_judge_batch_result res;
    enum arb_judge_batch_route route = ARB_BATCH_DEFER;
    enum arb_status st;

    judge_call_slot(c, &slot);
    rq.key = c->key;
    rq.body = c->body;
    rq.fence = c->fence;
    rq.slot = &slot;
    memset(&res, 0, sizeof(res));
    st = j->batcher->route(j->batcher->ctx, &rq, &route, &res, j->err);
    if (st) {
        judge_fatal(j, st);
        return;
    }
    switch (route) {
    case ARB_BATCH_SEND:
        judge_send(j, c);
        return;
    case ARB_BATCH_ANSWER:
        answer(j, c, &res);
        return;
    case ARB_BATCH_DEFER:
    case ARB_BATCH_WAIT:
        break;
    }
    c->qn->held = 1;
    j->prog.batched++;
    judge_notify(j);
    judge_finish_slot(j, c, NULL);
}
