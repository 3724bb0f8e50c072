/*
 * engine.h - the judge engine's state, shared by judge.c (asking, sending,
 * storing, the cap) and combine.c (turning a question's judgments into one
 * answer).  Internal to src/judge/.
 */
#ifndef ARBITER_JUDGE_ENGINE_H
#define ARBITER_JUDGE_ENGINE_H

#include "arbiter/http.h"
#include "judge_int.h"

struct question;
struct arb_schema;

/* One request: an order and sample of a question (attempt 1 is the retry that carries the
 * validation error of attempt 0). */
struct call {
    struct question *qn;
    int swapped, sample, attempt;
    int held;        /* not sent (yet): over the spending cap */
    int sent;        /* handed to the transport or the command */
    double estimate; /* its reserved cost while in flight */
    char key[65];
    char *body;
    char *user_msg;
};

/* One question (a case and pair, or one output) and its judgments, one slot per order and
 * sample. */
struct question {
    struct arb_judge_question q;
    void (*done)(void *ctx, const struct arb_judge_question *q, const struct arb_judge_answer *a);
    void *ctx;
    cJSON *schema;
    struct arb_schema *compiled;
    cJSON **slots; /* per (order, sample): the valid answer, or NULL */
    int *slot_done;
    int n_slots, n_done, n_cached;
    int held; /* a request of it stayed under the spending cap: not answered */
    char error[256];
};

/* The judge bound to a run: its config, key header, transport, and every call made. */
struct arb_judge {
    const struct arb_judge_config *cfg;
    char *key_header; /* holds the API key: wiped and freed, never logged */
    const char *headers[3];
    char url[1024];
    struct arb_store *st;
    int64_t run;
    int use_cache;
    struct arb_transport *t;
    struct question **qs;
    size_t n_qs, cap_qs;
    struct call **calls; /* every call made, freed at the end */
    size_t n_calls, cap_calls;
    size_t unreachable;
    struct judge_budget budget;
    struct judge_secrets secrets; /* scrubbed from every reply before it is used (scrub.c) */
    struct arb_judge_progress prog;
    void (*progress)(void *ctx, const struct arb_judge_progress *p);
    void *progress_ctx;
    int auth_failed;
    enum arb_status fatal;
    struct arb_err *err;
};

/* Record the first fatal status and stop the transport. */
void judge_fatal(struct arb_judge *j, enum arb_status st);

/* How many orders a question is asked in: 2 with swap, 1 for a single output. */
int judge_orders(const struct arb_judge *j, const struct arb_judge_question *q);

/*
 * Combine the judgments of a question whose slots are all done into one
 * answer, and hand it to the question's callback (combine.c).
 */
void judge_answer_question(struct arb_judge *j, struct question *qn);

#endif
