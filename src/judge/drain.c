/*
 * drain.c - when the judge's questions are answered (include/arbiter/judge.h:
 * arb_judge_drain, arb_judge_drain_first, arb_judge_pending).  A drain
 * dispatches the first calls not sent when asked, runs the transport until
 * the questions it answers are complete, sends the calls the spending cap
 * held back when nothing is in flight, answers those questions in the order
 * asked and frees them with their calls.  A drain of the first n questions
 * returns as soon as they are complete: the later questions' requests stay
 * queued or in flight, and go on filling the slots while the first ones'
 * retries wait, so a caller that asks its next questions before draining the
 * last ones never leaves the slots idle.
 *
 * Sending, the cache and the transport's callback are judge.c's; what a reply
 * means, reply.c's; combining a question's judgments, combine.c's.
 */
#include <stdlib.h>

#include "arbiter/http.h"
#include "engine.h"

static int is_complete(const struct question *qn)
{
    return qn->n_done == qn->n_slots;
}

static int stopping(const struct arb_judge *j)
{
    return j->fatal || j->auth_failed || j->stopped;
}

/*
 * Answer the drain's questions that are complete, in the order asked, up to the first that
 * is not (so their callbacks run while later replies are awaited, not all at the end); none
 * once the judge stops.  1 when a partial drain has answered all it is to answer.
 */
static int answer_ready(struct arb_judge *j)
{
    while (j->n_answered < j->drain_target && !stopping(j) && is_complete(j->qs[j->n_answered])) {
        struct question *qn = j->qs[j->n_answered++];

        qn->answered = 1;
        judge_answer_question(j, qn);
    }
    return j->drain_partial && j->n_answered >= j->drain_target;
}

void judge_check_drained(struct arb_judge *j)
{
    /* A judge that stops lets the transport run on until every request has completed. */
    if (j->draining && answer_ready(j) && !stopping(j))
        arb_transport_yield(j->t);
}

/*
 * With nothing in flight, send the held calls that now fit, in order; the
 * number sent.  When the first does not fit even so, the cap is reached:
 * stop for good.
 */
static size_t send_held(struct arb_judge *j)
{
    size_t i, sent = 0;

    for (i = 0; i < j->n_calls && !j->budget.stopped && !j->fatal; i++) {
        struct call *c = j->calls[i];

        if (!c->held)
            continue;
        judge_send(j, c);
        if (c->held) {
            if (!sent)
                j->budget.stopped = 1;
            break;
        }
        sent++;
    }
    return sent;
}

/* The calls still held leave their questions unanswered (held), to be asked again later. */
static void hold_the_rest(struct arb_judge *j)
{
    size_t i;

    for (i = 0; i < j->n_calls; i++) {
        struct call *c = j->calls[i];

        if (!c->held)
            continue;
        c->held = 0;
        c->qn->held = 1;
        j->prog.held++;
        judge_finish_slot(j, c, NULL);
    }
    judge_notify(j);
}

/*
 * Have the cache hold what the callbacks put (on 1), or make it durable (on 0).  A batch
 * judge never holds: what it records must be durable before a batch goes out.  When making
 * it durable fails, the judge stops with that failure.
 */
static void hold(struct arb_judge *j, int on)
{
    enum arb_status st;

    if (!j->cache->hold || j->batcher || j->holding == on)
        return;
    st = j->cache->hold(j->cache->ctx, on, j->err);
    j->holding = on && !st;
    if (st)
        judge_fatal(j, st);
}

void judge_on_idle(void *ctx)
{
    struct arb_judge *j = ctx;

    if (!j->holding)
        return;
    hold(j, 0);
    if (!j->fatal)
        hold(j, 1);
}

/* Run the transport until the drain's questions are answered or nothing is left to send;
 * what the replies' callbacks store is committed in groups, each before the next wait. */
static enum arb_status run_until_done(struct arb_judge *j, struct arb_err *err)
{
    enum arb_status st = ARB_OK;

    if (answer_ready(j))
        return ARB_OK;
    hold(j, 1);
    do
        st = arb_transport_run(j->t, judge_on_done, j, err);
    while (!st && !stopping(j) && !answer_ready(j) && send_held(j));
    hold(j, 0);
    /* Idle with calls still held: the cap is reached (a drain that stops at its target
     * leaves the later questions' held calls for a later drain). */
    if (!answer_ready(j))
        hold_the_rest(j);
    return st;
}

/* The status of the drain: the transport's, else what stopped the judge. */
static enum arb_status drain_status(struct arb_judge *j, enum arb_status st, struct arb_err *err)
{
    if (!st && j->fatal)
        st = j->fatal;
    if (!st && j->auth_failed)
        st = arb_err_set(err, ARB_EREMOTE,
                         "judge authentication failed (HTTP %d): check the key in $%s",
                         j->auth_failed, j->cfg->api_key_env);
    if (!st && j->stopped)
        st = arb_err_set(err, ARB_EREMOTE, "%s", j->stop_msg);
    return st;
}

/* Free the answered questions and their calls, keeping the others in the order asked. */
static void forget_answered(struct arb_judge *j)
{
    size_t i, k = 0;

    for (i = 0; i < j->n_calls; i++) {
        if (j->calls[i]->qn->answered)
            judge_call_free(j->calls[i]);
        else
            j->calls[k++] = j->calls[i];
    }
    j->n_calls = k;
    for (i = 0, k = 0; i < j->n_qs; i++) {
        if (j->qs[i]->answered)
            judge_question_free(j->qs[i]);
        else
            j->qs[k++] = j->qs[i];
    }
    j->n_qs = k;
}

enum arb_status arb_judge_drain_first(struct arb_judge *j, size_t n, size_t *unreachable,
                                      struct arb_err *err)
{
    size_t i, n_calls = j->n_calls;
    enum arb_status st;

    j->err = err;
    if (n > j->n_qs)
        n = j->n_qs;
    j->draining = 1;
    j->drain_partial = n < j->n_qs;
    j->drain_target = n;
    j->n_answered = 0;
    /* The first calls of every question not sent when asked, the later questions' too, in
     * order; retries are dispatched as replies come in. */
    for (i = 0; i < n_calls && !j->fatal; i++) {
        struct call *c = j->calls[i];

        if (c->attempt == 0 && !c->dispatched) {
            c->dispatched = 1;
            judge_dispatch(j, c);
        }
    }
    st = drain_status(j, run_until_done(j, err), err);
    /* What is complete now (held questions included) is answered, unless the judge failed. */
    for (i = j->n_answered; !st && i < n; i++) {
        j->qs[i]->answered = 1;
        judge_answer_question(j, j->qs[i]);
    }
    j->draining = 0;
    if (!st && j->fatal)
        st = j->fatal;
    /* Freed: the drain's questions; after an error, every one (the run ends). */
    for (i = 0; i < (st ? j->n_qs : n); i++)
        j->qs[i]->answered = 1;
    forget_answered(j);
    if (unreachable)
        *unreachable = j->unreachable;
    j->unreachable = 0;
    j->no_early = 0;
    return st;
}

enum arb_status arb_judge_drain(struct arb_judge *j, size_t *unreachable, struct arb_err *err)
{
    return arb_judge_drain_first(j, j->n_qs, unreachable, err);
}

size_t arb_judge_pending(const struct arb_judge *j)
{
    return j->n_qs;
}

void arb_judge_wind_down(struct arb_judge *j)
{
    arb_transport_wind_down(j->t);
}
