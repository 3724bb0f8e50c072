/*
 * judge.c - the judge engine (see include/arbiter/judge.h): questions become
 * one request per order and sample; cached replies answer at once; the rest
 * go through the transport; each reply is stored as it arrives, checked
 * against the request's schema, asked again once when it does not conform,
 * and the judgments of a question are combined when all are in.  A
 * single-output question (judge.h) goes the same way in one order; single.c
 * combines its answers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arbiter/http.h"
#include "arbiter/json.h"
#include "arbiter/schema.h"
#include "engine.h"

/* No cache: nothing is found, and what is recorded goes nowhere. */
static enum arb_status none_get(void *ctx, const char *key, const struct arb_judge_slot *slot,
                                int (*fn)(void *arg, const struct arb_judge_call_row *c),
                                void *arg, int *found, struct arb_err *err)
{
    (void)ctx, (void)key, (void)slot, (void)fn, (void)arg, (void)err;
    *found = 0;
    return ARB_OK;
}

static enum arb_status none_put_call(void *ctx, const struct arb_judge_call_row *c,
                                     struct arb_err *err)
{
    (void)ctx, (void)c, (void)err;
    return ARB_OK;
}

static enum arb_status none_put_judgment(void *ctx, const struct arb_judgment_row *j,
                                         struct arb_err *err)
{
    (void)ctx, (void)j, (void)err;
    return ARB_OK;
}

static const struct arb_judge_cache no_cache = {NULL, none_get, none_put_call, none_put_judgment,
                                                NULL};

/* The config's extra headers as "Name: value" lines, values from the environment read now. */
static enum arb_status extra_headers(struct arb_judge *j, struct arb_err *err)
{
    const struct arb_judge_config *cfg = j->cfg;
    enum arb_status rc;

    j->headers = calloc(cfg->n_headers + 3, sizeof(*j->headers));
    if (!j->headers)
        return ARB_ENOMEM;
    rc = judge_header_lines(cfg, &j->secrets, &j->extra_headers, err);
    if (rc)
        return rc;
    for (size_t i = 0; i < cfg->n_headers; i++)
        j->headers[3 + i] = j->extra_headers[i];
    j->n_headers = 3 + cfg->n_headers;
    return ARB_OK;
}

enum arb_status arb_judge_new(const struct arb_judge_config *cfg, const char *api_key,
                              const struct arb_judge_cache *cache, int use_cache,
                              struct arb_judge **out, struct arb_err *err)
{
    struct arb_judge *j = calloc(1, sizeof(*j));
    struct arb_transport_opts to;
    char head[17];
    size_t n;
    enum arb_status rc;

    *out = NULL;
    if (!j)
        return ARB_ENOMEM;
    j->cfg = cfg;
    j->cache = cache ? cache : &no_cache;
    j->use_cache = use_cache;
    j->reuse_invalid = cfg->offline;
    j->random = judge_random_bytes;
    j->mode = cfg->response_format;
    n = strlen(api_key ? api_key : "") + 32;
    j->key_header = calloc(1, n); /* wiped on free: NUL until written */
    rc = judge_secrets_init(&j->secrets, api_key, cfg->base_url);
    if (!rc)
        rc = j->key_header ? extra_headers(j, err) : ARB_ENOMEM;
    if (rc) {
        arb_judge_free(j);
        return rc;
    }
    if (cfg->provider == ARB_JUDGE_ANTHROPIC) {
        snprintf(j->key_header, n, "x-api-key: %s", api_key ? api_key : "");
        j->headers[1] = "anthropic-version: 2023-06-01";
    } else {
        snprintf(j->key_header, n, "Authorization: Bearer %s", api_key ? api_key : "");
        j->headers[1] = "Accept: application/json";
    }
    judge_request_url(cfg, j->url, sizeof(j->url));
    j->headers[0] = j->key_header;
    j->headers[2] = "Content-Type: application/json";
    memset(&to, 0, sizeof(to));
    to.concurrency = cfg->concurrency;
    to.timeout_ms = (long)(cfg->timeout_s * 1000.0);
    to.max_retries = cfg->max_retries ? cfg->max_retries : -1; /* 0 means none here */
    /* Reproducible backoff jitter for one judge config: the head of its hash. */
    memcpy(head, cfg->hash, 16);
    head[16] = '\0';
    to.jitter_seed = strtoull(head, NULL, 16) | 1;
    to.json_replies = 1; /* a reply cut short is asked again, not stored */
    to.classify = judge_classify;
    to.classify_ctx = j;
    rc = arb_transport_new(&to, &j->t, err);
    if (rc) {
        arb_judge_free(j);
        return rc;
    }
    arb_transport_on_idle(j->t, judge_on_idle);
    *out = j;
    return ARB_OK;
}

void judge_question_free(struct question *qn)
{
    int i;

    if (!qn)
        return;
    for (i = 0; i < qn->n_slots; i++)
        cJSON_Delete(qn->slots[i]);
    free(qn->slots);
    free(qn->slot_done);
    judge_schema_put(qn->shared);
    free(qn);
}

void arb_judge_free(struct arb_judge *j)
{
    size_t i;

    if (!j)
        return;
    for (i = 0; i < j->n_qs; i++)
        judge_question_free(j->qs[i]);
    free(j->qs);
    judge_schemas_release(&j->schemas);
    for (i = 0; i < j->n_calls; i++)
        judge_call_free(j->calls[i]);
    free(j->calls);
    arb_transport_free(j->t);
    judge_wipe_free(j->key_header);
    judge_header_lines_free(j->extra_headers, j->cfg->n_headers);
    free(j->headers);
    judge_secrets_release(&j->secrets);
    free(j);
}

void arb_judge_reuse_invalid(struct arb_judge *j, int on)
{
    j->reuse_invalid = on || j->cfg->offline;
}

void judge_set_random(struct arb_judge *j, judge_random_fn fn, void *ctx)
{
    j->random = fn;
    j->random_ctx = ctx;
}

void arb_judge_set_budget(struct arb_judge *j, double max_usd, double spent_usd)
{
    j->budget.on = max_usd > 0;
    j->budget.max = max_usd;
    j->budget.spent = spent_usd;
    j->prog.cost_usd = spent_usd;
}

void arb_judge_set_progress(struct arb_judge *j,
                            void (*fn)(void *ctx, const struct arb_judge_progress *p), void *ctx)
{
    j->progress = fn;
    j->progress_ctx = ctx;
}

const struct arb_judge_progress *arb_judge_get_progress(const struct arb_judge *j)
{
    return &j->prog;
}

void judge_notify(struct arb_judge *j)
{
    if (j->progress)
        j->progress(j->progress_ctx, &j->prog);
}

/* ---- building calls ------------------------------------------------------------------ */

/* A single-output question has one order, whatever swap says. */
int judge_orders(const struct arb_judge *j, const struct arb_judge_question *q)
{
    return j->cfg->swap && !judge_is_single(q) ? 2 : 1;
}

struct call *judge_new_call(struct arb_judge *j, struct question *qn, int swapped, int sample,
                            int attempt)
{
    struct call *c;

    if (j->n_calls == j->cap_calls) {
        size_t cap = j->cap_calls ? j->cap_calls * 2 : 64;
        struct call **v = realloc(j->calls, cap * sizeof(*v));

        if (!v)
            return NULL;
        j->calls = v;
        j->cap_calls = cap;
    }
    c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->qn = qn;
    c->swapped = swapped;
    c->sample = sample;
    c->attempt = attempt;
    j->calls[j->n_calls++] = c;
    return c;
}

void judge_call_free(struct call *c)
{
    free(c->body);
    free(c->user_msg);
    free(c->key_msg);
    free(c);
}

/* A prompt for the call's question and order, its fences carrying fence; *out caller frees. */
static enum arb_status render(const struct call *c, const char *fence, char **out)
{
    struct arb_buf msg;
    enum arb_status st;

    arb_buf_init(&msg, 0);
    st = judge_render(&c->qn->q, fence, c->swapped, &msg);
    /* Copied at its length: a call keeps its prompts until it is answered, and a buffer
     * grown by doubling holds up to twice its text (500 questions' held 4 MB for 2.5 MB). */
    *out = st ? NULL : arb_memdup0(msg.ptr ? msg.ptr : "", msg.len);
    if (!st && !*out)
        st = ARB_ENOMEM;
    arb_buf_release(&msg);
    return st;
}

int judge_refence(struct call *c, const char *fence)
{
    char *msg = NULL;

    if (!fence || strlen(fence) != 16 || strcmp(fence, c->fence) == 0)
        return 1;
    if (c->attempt == 0 && c->user_msg) {
        if (render(c, fence, &msg) != ARB_OK)
            return 0;
        free(c->user_msg);
        c->user_msg = msg;
    }
    memcpy(c->fence, fence, sizeof(c->fence));
    return 1;
}

void judge_call_request(const struct call *first, struct judge_request *rq,
                        const char *retry_reply, const char *retry_error)
{
    const struct arb_judge_question *q = &first->qn->q;

    memset(rq, 0, sizeof(*rq));
    rq->single = judge_is_single(q);
    rq->user_msg = first->user_msg;
    rq->key_msg = first->key_msg;
    rq->fenced[0] = first->swapped && !rq->single ? q->output_b : q->output_a;
    rq->fenced[1] = rq->single ? NULL : first->swapped ? q->output_a : q->output_b;
    rq->schema = first->qn->schema;
    rq->sample = first->sample;
    rq->retry_reply = retry_reply;
    rq->retry_error = retry_error;
    rq->mode = first->mode;
    rq->max_tokens = first->max_tokens;
}

int judge_rebuild(struct arb_judge *j, struct call *c)
{
    struct judge_request rq;
    struct call *first = c;
    size_t i;

    /* A retry's prompts are its first call's: the attempt-0 call of the same slot. */
    for (i = 0; c->attempt && i < j->n_calls; i++)
        if (j->calls[i]->qn == c->qn && j->calls[i]->swapped == c->swapped &&
            j->calls[i]->sample == c->sample && j->calls[i]->attempt == 0)
            first = j->calls[i];
    free(c->body);
    c->body = NULL;
    c->mode = j->mode;
    judge_call_request(first, &rq, NULL, NULL);
    rq.mode = c->mode;
    rq.max_tokens = c->max_tokens;
    if (judge_build(j->cfg, &rq, &c->body, c->key, j->err) != ARB_OK) {
        judge_fatal(j, ARB_ENOMEM);
        return 0;
    }
    return 1;
}

static enum arb_status first_call(struct arb_judge *j, struct question *qn, int swapped, int sample,
                                  struct arb_err *err)
{
    struct call *c = judge_new_call(j, qn, swapped, sample, 0);
    struct judge_request rq;
    enum arb_status st;

    if (!c)
        return ARB_ENOMEM;
    st = judge_fence(&qn->q, j->random, j->random_ctx, c->fence);
    if (st == ARB_ESCHEMA) {
        /* Only this question fails: the others of the run go on. */
        c->no_fence = 1;
        c->fence[0] = '\0';
        snprintf(qn->error, sizeof(qn->error),
                 "cannot fence the outputs: each of %d random fence codes occurred in an output",
                 JUDGE_FENCE_DRAWS);
        return ARB_OK;
    }
    if (st)
        return arb_err_set(err, st, "cannot draw a fence code: the random source failed");
    c->mode = j->mode;
    st = render(c, c->fence, &c->user_msg);
    if (!st)
        st = render(c, JUDGE_FENCE_PLACEHOLDER, &c->key_msg);
    if (st)
        return st;
    judge_call_request(c, &rq, NULL, NULL);
    return judge_build(j->cfg, &rq, &c->body, c->key, err);
}

static enum arb_status send_early(struct arb_judge *j, struct question *qn, struct arb_err *err);

enum arb_status arb_judge_ask(struct arb_judge *j, const struct arb_judge_question *q,
                              void (*done)(void *ctx, const struct arb_judge_question *q,
                                           const struct arb_judge_answer *a),
                              void *ctx, struct arb_err *err)
{
    struct question *qn;
    int orders = judge_orders(j, q), o, s;
    enum arb_status st = ARB_OK;

    if (judge_is_single(q)) {
        size_t i;

        for (i = 0; i < q->n_items && q->items[i].kind == ARB_ITEM_EXPECTATION; i++)
            ;
        if (!q->n_items || i < q->n_items)
            return arb_err_set(err, ARB_EUSAGE,
                               "case '%s': a single-output question asks expectations only, "
                               "and at least one",
                               q->case_id);
    }
    qn = calloc(1, sizeof(*qn));
    if (!qn)
        return ARB_ENOMEM;
    qn->q = *q;
    /* The config's "feedback" asks every pairwise question for strengths and weaknesses. */
    qn->q.feedback = !judge_is_single(q) && (q->feedback || j->cfg->feedback);
    qn->done = done;
    qn->ctx = ctx;
    qn->n_slots = orders * j->cfg->samples;
    qn->slots = calloc((size_t)qn->n_slots, sizeof(*qn->slots));
    qn->slot_done = calloc((size_t)qn->n_slots, sizeof(*qn->slot_done));
    if (!qn->slots || !qn->slot_done) {
        judge_question_free(qn);
        return ARB_ENOMEM;
    }
    st = judge_schema_get(&j->schemas, &qn->q, &qn->shared, err);
    if (st) {
        judge_question_free(qn);
        return st;
    }
    qn->schema = qn->shared->tree;
    qn->compiled = qn->shared->compiled;
    if (j->n_qs == j->cap_qs) {
        size_t cap = j->cap_qs ? j->cap_qs * 2 : 64;
        struct question **v = realloc(j->qs, cap * sizeof(*v));

        if (!v) {
            judge_question_free(qn);
            return ARB_ENOMEM;
        }
        j->qs = v;
        j->cap_qs = cap;
    }
    j->qs[j->n_qs++] = qn;
    j->prog.planned += (size_t)qn->n_slots;
    for (o = 0; !st && o < orders; o++)
        for (s = 0; !st && s < j->cfg->samples; s++)
            st = first_call(j, qn, o, s, err);
    if (!st)
        st = send_early(j, qn, err);
    return st;
}

/* ---- replies ------------------------------------------------------------------------- */

void judge_fatal(struct arb_judge *j, enum arb_status st)
{
    if (!j->fatal)
        j->fatal = st;
    arb_transport_abort(j->t);
}

static void on_done(void *ctx, const struct arb_http_result *r);

/* The command provider: run the program now and treat its output like an HTTP reply. */
static void run_command(struct arb_judge *j, struct call *c)
{
    struct arb_http_result r;
    struct arb_buf out;
    struct timespec t0, t1;
    enum arb_status st;

    memset(&r, 0, sizeof(r));
    arb_buf_init(&out, 8u << 20);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    st = judge_run_command(j->cfg->command, j->cfg->cwd, c->body, j->cfg->timeout_s, &out,
                           r.error, sizeof(r.error));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    r.user = c;
    r.st = st ? ARB_EIO : ARB_OK;
    r.status = st ? 0 : 200;
    r.body = out.ptr ? out.ptr : "";
    r.body_len = out.len;
    r.attempts = 1;
    r.latency_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    judge_on_done(j, &r); /* a command inherits the environment: it may hold the key */
    arb_buf_release(&out);
}

/* Send a call that the cache could not answer, unless the spending cap holds it back. */
static void send_call(struct arb_judge *j, struct call *c)
{
    struct arb_http_request req;

    if (c->mode != j->mode && j->cfg->provider != ARB_JUDGE_COMMAND) {
        /* Built before the server refused its mode: ask in the one that works. */
        if (judge_rebuild(j, c))
            judge_dispatch(j, c);
        return;
    }
    if (!judge_budget_admit(&j->budget, c->estimate)) {
        c->held = 1;
        return;
    }
    c->held = 0;
    c->sent = 1;
    j->prog.sent++;
    j->prog.in_flight++;
    judge_notify(j);
    if (j->cfg->provider == ARB_JUDGE_COMMAND) {
        run_command(j, c);
        return;
    }
    req.url = j->url;
    req.headers = j->headers;
    req.n_headers = j->n_headers;
    req.body = c->body;
    req.body_len = strlen(c->body);
    req.user = c;
    req.ahead = c->attempt > 0; /* the question's other slots may be answered already */
    if (arb_transport_submit(j->t, &req, j->err))
        judge_fatal(j, ARB_ENOMEM);
}

void judge_send(struct arb_judge *j, struct call *c)
{
    c->estimate = judge_estimate(j->cfg, strlen(c->body));
    send_call(j, c);
}

/* Replace *text (malloc'd) by its scrubbed copy when it holds a secret; NULL when out of memory. */
static void scrub_text(struct arb_judge *j, char **text)
{
    char *clean = NULL;
    size_t len;

    if (judge_scrub(&j->secrets, *text, strlen(*text), &clean, &len) != ARB_OK) {
        judge_fatal(j, ARB_ENOMEM);
        free(*text);
        *text = NULL;
    } else if (clean) {
        free(*text);
        *text = clean;
    }
}

/* Whether a stored reply answers: a valid one, or any while the judge reuses invalid ones. */
static int answers(const struct arb_judge *j, const struct judge_cached *cc)
{
    return cc->ok && (cc->valid != 0 || j->reuse_invalid);
}

/*
 * What the cache holds for c: first the reply (or the failure) that the cache's recorded run
 * used for c's slot (a replay, a resume), whatever key it is stored under and whatever
 * replaced it since; then, when it recorded none, or none that may answer, the call stored
 * under c's key.  A recorded failure stands only for an offline judge (a replay fails the
 * slot as its run did); a resumed run asks again.
 */
static enum arb_status lookup(struct arb_judge *j, struct call *c, struct judge_cached *cc,
                              int *found)
{
    struct arb_judge_slot slot;
    enum arb_status st;

    judge_call_slot(c, &slot);
    st = j->cache->get(j->cache->ctx, c->key, &slot, judge_read_cached, cc, found, j->err);
    if (st || (*found && (answers(j, cc) || (!cc->ok && j->cfg->offline)))) {
        cc->recorded = *found;
        return st;
    }
    free(cc->reply);
    free(cc->error);
    memset(cc, 0, sizeof(*cc));
    cc->valid = -1;
    return j->cache->get(j->cache->ctx, c->key, NULL, judge_read_cached, cc, found, j->err);
}

/*
 * Answer from the cache, or send.  A stored reply that did not validate is
 * kept for audit and the request sent afresh, unless the judge reuses
 * invalid replies (a resumed run, a replay: they continue or re-derive their
 * run, and take the same retry again).
 */
void judge_dispatch(struct arb_judge *j, struct call *c)
{
    struct judge_cached cc = {.valid = -1};
    int found = 0;

    if (j->fatal || j->auth_failed || j->stopped) {
        judge_finish_slot(j, c, NULL);
        return;
    }
    if (c->no_fence) {
        judge_fail_unfenced(j, c);
        return;
    }
    if (j->use_cache && lookup(j, c, &cc, &found) != ARB_OK) {
        judge_fatal(j, ARB_EDB);
        return;
    }
    if (found && cc.recorded && !cc.ok) {
        memcpy(c->used_key, cc.key, sizeof(c->used_key));
        judge_fail_recorded(j, c, cc.error);
        free(cc.error);
        return;
    }
    if (found && answers(j, &cc)) {
        /* Named as stored (before any scrubbing), so the judgment points at this reply. */
        if (!cc.reply || judge_sha256_hex(cc.reply, c->reply_sha256)) {
            judge_fatal(j, cc.reply ? ARB_EINTERNAL : ARB_ENOMEM);
            free(cc.reply);
            return;
        }
        memcpy(c->used_key, cc.key, sizeof(c->used_key));
        c->qn->n_cached++;
        j->prog.cached++;
        judge_notify(j);
        scrub_text(j, &cc.reply); /* stored before scrubbing existed, or by another judge */
        if (cc.reply)
            judge_handle_reply(j, c, cc.reply, 1, NULL);
        free(cc.reply);
        return;
    }
    free(cc.reply);
    free(cc.error);
    if (j->cfg->offline) {
        arb_err_set(j->err, ARB_EUSAGE,
                    "case '%s': the judge request is not in the cache (replay never calls the "
                    "judge)",
                    c->qn->q.case_id);
        judge_fatal(j, ARB_EUSAGE);
        return;
    }
    if (j->batcher) {
        judge_batch_dispatch(j, c);
        return;
    }
    judge_send(j, c);
}

/*
 * Put a new question's requests on the wire now, while the caller goes on asking (it may
 * hold a transaction open: nothing is stored and no callback runs until the drain).  Only
 * calls bound for the network go; one the cache answers or that needs any other handling
 * (unfenced, a command judge, an offline judge) waits for arb_judge_drain, and so does
 * every call asked after it, so the requests go out in the order asked either way.
 */
static enum arb_status send_early(struct arb_judge *j, struct question *qn, struct arb_err *err)
{
    size_t i;
    int sent = 0;

    j->err = err;
    for (i = j->n_calls - (size_t)qn->n_slots; i < j->n_calls && !j->no_early; i++) {
        struct call *c = j->calls[i];
        struct judge_cached cc = {.valid = -1};
        int found = 0;

        if (j->fatal || j->auth_failed || j->stopped || c->no_fence || j->cfg->offline ||
            j->cfg->provider == ARB_JUDGE_COMMAND || c->mode != j->mode || j->batcher) {
            j->no_early = 1;
            break;
        }
        if (j->use_cache && lookup(j, c, &cc, &found) != ARB_OK) {
            judge_fatal(j, ARB_EDB);
            return ARB_EDB;
        }
        free(cc.reply);
        free(cc.error);
        if (found && ((cc.recorded && !cc.ok) || answers(j, &cc))) {
            j->no_early = 1; /* the drain answers it from the cache */
            break;
        }
        c->dispatched = 1;
        judge_send(j, c);
        sent = 1;
    }
    return sent && !j->fatal ? arb_transport_step(j->t, err) : ARB_OK;
}

/*
 * What a finished call cost, for the cap and the progress line; returned to be stored with
 * the call, so that a resumed run counts it again (a reply without usage: its estimate).
 */
static double settle(struct arb_judge *j, struct call *c, const struct arb_http_result *r,
                     const struct judge_usage *u)
{
    double cost = 0.0;

    if (u->reported)
        cost = arb_judge_cost(&j->cfg->price, u->prompt, u->cached, u->completion);
    else if (r->st == ARB_OK)
        cost = c->estimate; /* a reply that does not say what it cost: assume the most */
    judge_budget_settle(&j->budget, c->estimate, cost);
    j->prog.cost_usd += cost;
    if (j->prog.in_flight)
        j->prog.in_flight--;
    if (r->st == ARB_OK)
        j->prog.answered++;
    else if (strcmp(r->error, "aborted") != 0)
        j->prog.failed++;
    judge_notify(j);
    return cost;
}

/*
 * What the transport hands over, scrubbed first: no byte a server sends back
 * (an error body quoting the key, a reply repeating it) reaches the store,
 * the answer or a message with a secret in it.
 */
void judge_on_done(void *ctx, const struct arb_http_result *r)
{
    struct arb_judge *j = ctx;
    struct arb_http_result clean = *r;
    char *body = NULL, *why = NULL;
    size_t len = 0, wlen = 0;

    if (judge_scrub(&j->secrets, r->body, r->body_len, &body, &len) != ARB_OK ||
        judge_scrub(&j->secrets, r->error, strlen(r->error), &why, &wlen) != ARB_OK) {
        judge_fatal(j, ARB_ENOMEM);
        clean.body = "";
        clean.body_len = 0;
    } else if (body) {
        clean.body = body;
        clean.body_len = len;
    }
    /* The error: the stderr tail of a command judge, or the transport's fixed words. */
    if (why)
        snprintf(clean.error, sizeof(clean.error), "%s", why);
    on_done(ctx, &clean);
    free(body);
    free(why);
    judge_check_drained(j);
}

static void on_done(void *ctx, const struct arb_http_result *r)
{
    struct arb_judge *j = ctx;
    struct call *c = r->user;
    struct arb_judge_call_row row;
    struct judge_parsed p;
    struct judge_usage u;

    /* A reply is read once: for its usage (what it cost) and then for its answer. */
    if (r->st == ARB_OK) {
        judge_parse(j->cfg, r->body ? r->body : "", &p);
        u = p.rp.usage;
    } else {
        judge_reply_usage(j->cfg, r->body_len ? r->body : NULL, &u);
    }
    memset(&row, 0, sizeof(row));
    row.charged_usd = settle(j, c, r, &u);
    if (!j->cfg->price.set)
        row.charged_usd = NAN;
    row.key = c->key;
    row.provider = j->cfg->provider == ARB_JUDGE_ANTHROPIC ? "anthropic"
                   : j->cfg->provider == ARB_JUDGE_COMMAND ? "command"
                                                           : "openai";
    row.model = j->cfg->model;
    row.request_json = c->body;
    row.reply_json = r->body_len || r->st == ARB_OK ? r->body : NULL;
    row.status = r->st == ARB_OK ? "ok" : "failed";
    row.http_status = r->status;
    row.attempts = r->attempts;
    row.latency_s = r->latency_s;
    row.error = r->st == ARB_OK ? NULL : r->error;
    row.prompt_tokens = u.prompt;
    row.completion_tokens = u.completion;
    row.cached_tokens = u.cached;
    row.valid = -1;
    if (j->cfg->provider != ARB_JUDGE_COMMAND)
        row.response_format = arb_judge_response_format_name(c->mode);
    if (j->fatal) {
        if (r->st == ARB_OK)
            judge_reply_release(&p.rp);
        return;
    }
    /* Stored the moment it arrives, with the judgment it makes: a reply is never requested
     * twice, even after a crash. */
    if (r->st == ARB_OK) {
        judge_handle_parsed(j, c, r->body ? r->body : "", &p, 0, &row);
        return;
    }
    {
        struct judge_provider_error pe;
        char msg[900];

        if (judge_on_failure(j, c, r, &row, &pe, msg, sizeof(msg)))
            return; /* sent again in the next response format */
        row.error = msg;
        if (r->status == 401 || r->status == 403) {
            j->auth_failed = (int)r->status;
            arb_transport_abort(j->t);
        } else if (strcmp(r->error, "aborted") != 0) {
            j->unreachable++;
        }
        judge_handle_failure(j, c, &row);
    }
}
