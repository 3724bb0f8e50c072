/*
 * batch_submit.c - a batch-mode run's batches, from the outbox to their stored results
 * (include/arbiter/batch.h for the states; db/migrations/009-judge-batches.sql).
 *
 * Kill-safety is the order of writes around each request that has an effect at the
 * provider:
 *   1. the batch and its requests are recorded ('intent', a fresh token) before anything
 *      is sent;
 *   2. OpenAI: the input file is uploaded and its id stored ('uploaded'); a kill before that
 *      only leaves an unused file, and the upload is made again;
 *   3. 'submitting' is stored, then the create request is sent, then its reply stored
 *      ('submitted', remote_id).  A batch found 'submitting' on resume may or may not exist
 *      at the provider: it is looked for (OpenAI: metadata.arbiter_token; Anthropic: created
 *      since the intent, same request count, owned by no row) and created only when not found;
 *   4. polling stores each status; an ended batch's results are stored with its state
 *      'downloaded' in one transaction.
 * A request is therefore never in two batches at the provider unless a retry asked for it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch_int.h"

/* Requests' bodies per batch at most: under both providers' size limits (200 and 256 MB). */
#define BATCH_MAX_BYTES ((size_t)180 << 20)

/* How long a waiting run polls through a provider's failures before it gives up (resumable). */
#define BATCH_OUTAGE_S 3600

/* ---- recording the outbox --------------------------------------------------------------- */

static enum arb_status record_one(struct batch_outbox *o, int64_t run, size_t from, size_t n,
                                  struct arb_err *err)
{
    struct arb_batch_request_row *rows = calloc(n, sizeof(*rows));
    char(*ids)[40] = calloc(n, sizeof(*ids));
    char token[17];
    int64_t id = 0;
    size_t i;
    enum arb_status st = rows && ids ? arb_batch_token(token) : ARB_ENOMEM;

    if (st == ARB_EINTERNAL)
        arb_err_set(err, st, "cannot draw a batch token: the random source failed");
    for (i = 0; !st && i < n; i++) {
        const struct outbox_entry *e = &o->v[from + i];

        snprintf(ids[i], sizeof(ids[i]), "%s-%zu", token, i);
        rows[i].custom_id = ids[i];
        rows[i].key = e->key;
        rows[i].case_id = e->case_id;
        rows[i].system_a = e->system_a;
        rows[i].system_b = e->system_b;
        rows[i].ord = e->ord;
        rows[i].sample = e->sample;
        rows[i].attempt = e->attempt;
        rows[i].fence = e->fence;
        rows[i].request_json = e->body;
    }
    if (!st)
        st = arb_store_batch_create(
            o->st, run, o->cfg->provider == ARB_JUDGE_ANTHROPIC ? "anthropic" : "openai", token,
            rows, n, &id, err);
    if (!st)
        batch_notice(o->bo, "judge batch %lld recorded: %zu requests", (long long)id, n);
    free(rows);
    free(ids);
    return st;
}

enum arb_status outbox_record(struct batch_outbox *o, int64_t run, struct arb_err *err)
{
    size_t from = 0, i, bytes = 0;
    enum arb_status st = ARB_OK;

    for (i = 0; !st && i <= o->n; i++) {
        size_t len = i < o->n ? strlen(o->v[i].body) : 0;

        if (i > from && (i == o->n || i - from >= (size_t)o->cfg->batch_max_requests ||
                         bytes + len > BATCH_MAX_BYTES)) {
            st = record_one(o, run, from, i - from, err);
            from = i;
            bytes = 0;
        }
        bytes += len;
    }
    if (!st)
        outbox_clear(o);
    return st;
}

/* ---- one batch ------------------------------------------------------------------------ */

/* A batch row, copied (the row's texts live only during the read). */
struct bcopy {
    int64_t id;
    char token[17], state[16], provider[16];
    char remote_id[256], input_file_id[256], created_at[40], submitted_at[40];
    int64_t n_requests;
};

struct bcopies {
    struct bcopy *v;
    size_t n, cap;
    int oom;
};

static int on_batch(void *ctx, const struct arb_batch_row *b)
{
    struct bcopies *bs = ctx;
    struct bcopy *x;

    if (bs->n == bs->cap) {
        size_t cap = bs->cap ? bs->cap * 2 : 8;
        struct bcopy *v = realloc(bs->v, cap * sizeof(*v));

        if (!v) {
            bs->oom = 1;
            return 1;
        }
        bs->v = v;
        bs->cap = cap;
    }
    x = &bs->v[bs->n++];
    memset(x, 0, sizeof(*x));
    x->id = b->id;
    x->n_requests = b->n_requests;
    snprintf(x->token, sizeof(x->token), "%s", b->token ? b->token : "");
    snprintf(x->state, sizeof(x->state), "%s", b->state ? b->state : "");
    snprintf(x->provider, sizeof(x->provider), "%s", b->provider ? b->provider : "");
    snprintf(x->remote_id, sizeof(x->remote_id), "%s", b->remote_id ? b->remote_id : "");
    snprintf(x->input_file_id, sizeof(x->input_file_id), "%s",
             b->input_file_id ? b->input_file_id : "");
    snprintf(x->created_at, sizeof(x->created_at), "%s", b->created_at ? b->created_at : "");
    snprintf(x->submitted_at, sizeof(x->submitted_at), "%s",
             b->submitted_at ? b->submitted_at : "");
    return 0;
}

/* The requests of a batch as ids and bodies (owned), for the payload. */
struct payload_src {
    char **ids, **bodies;
    size_t n, cap;
    int oom;
};

static int on_request(void *ctx, const struct arb_batch_request_row *r)
{
    struct payload_src *p = ctx;

    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 64;
        char **a = realloc(p->ids, cap * sizeof(*a)), **b;

        if (a)
            p->ids = a;
        b = a ? realloc(p->bodies, cap * sizeof(*b)) : NULL;
        if (!b) {
            p->oom = 1;
            return 1;
        }
        p->bodies = b;
        p->cap = cap;
    }
    p->ids[p->n] = strdup(r->custom_id);
    p->bodies[p->n] = strdup(r->request_json);
    p->n++;
    if (!p->ids[p->n - 1] || !p->bodies[p->n - 1])
        p->oom = 1;
    return p->oom;
}

static void payload_src_release(struct payload_src *p)
{
    size_t i;

    for (i = 0; i < p->n; i++) {
        free(p->ids[i]);
        free(p->bodies[i]);
    }
    free(p->ids);
    free(p->bodies);
}

static enum arb_status payload(struct arb_store *st, struct arb_batch_client *c,
                               const struct bcopy *b, char **out, size_t *len, struct arb_err *err)
{
    struct payload_src p;
    enum arb_status rs;

    memset(&p, 0, sizeof(p));
    rs = arb_store_batch_requests(st, b->id, on_request, &p, err);
    if (!rs && p.oom)
        rs = ARB_ENOMEM;
    if (!rs)
        rs = arb_batch_payload(c, (const char *const *)p.ids, (const char *const *)p.bodies, p.n,
                               out, len, err);
    payload_src_release(&p);
    return rs;
}

/* Store b's state with what the provider said of it (r may be NULL). */
static enum arb_status save(struct arb_store *st, struct bcopy *b, const char *state,
                            const struct arb_batch_remote *r, struct arb_err *err)
{
    struct arb_batch_row row;
    char now[40];
    time_t t = time(NULL);
    struct tm tm;

    memset(&row, 0, sizeof(row));
    snprintf(b->state, sizeof(b->state), "%s", state);
    if (r && r->id[0] && !b->remote_id[0])
        snprintf(b->remote_id, sizeof(b->remote_id), "%s", r->id);
    now[0] = '\0';
    if (gmtime_r(&t, &tm))
        strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (r && r->id[0] && !b->submitted_at[0])
        snprintf(b->submitted_at, sizeof(b->submitted_at), "%s", now);
    row.id = b->id;
    row.state = b->state;
    row.remote_id = b->remote_id;
    row.input_file_id = b->input_file_id;
    row.submitted_at = b->submitted_at[0] ? b->submitted_at : NULL;
    if (r) {
        row.remote_status = r->status;
        row.output_file_id = r->output_file_id;
        row.error_file_id = r->error_file_id;
        row.results_url = r->results_url;
        row.counts_json = r->counts;
        row.error = r->error;
        row.ended_at = r->ended ? now : NULL;
    }
    return arb_store_batch_update(st, &row, err);
}

struct known_ctx {
    struct arb_store *st;
    const char *provider;
    enum arb_status rs;
    struct arb_err *err;
};

static int known(void *ctx, const char *id)
{
    struct known_ctx *k = ctx;
    int is = 1;

    if (!k->rs)
        k->rs = arb_store_batch_known(k->st, k->provider, id, &is, k->err);
    return is;
}

static void pause_s(double s);

/*
 * The create request, sent again after a failure another attempt may mend (up to the
 * config's max_retries) only once the batch is not found at the provider: a create that
 * timed out may have made it.
 */
static enum arb_status create(struct arb_store *st, struct arb_batch_client *c, int max,
                              const struct bcopy *b, const char *body, size_t len,
                              struct arb_batch_remote *r, struct arb_err *err)
{
    struct known_ctx k = {st, b->provider, ARB_OK, err};
    double backoff = 0.5;
    int tries, found = 0;
    enum arb_status rs = ARB_OK;

    for (tries = 0;; tries++) {
        rs = arb_batch_create(c, b->token, b->input_file_id, body, len, r, err);
        if (!rs || tries >= max || !arb_batch_client_retryable(c))
            return rs;
        pause_s(backoff);
        backoff = backoff * 2 > 30 ? 30 : backoff * 2;
        rs = arb_batch_find(c, b->token, b->created_at, b->n_requests, known, &k, r, &found, err);
        if (!rs)
            rs = k.rs;
        if (rs || found)
            return rs;
    }
}

/* From 'intent', 'uploaded' or 'submitting' to 'submitted' (or found submitted). */
static enum arb_status submit(struct arb_store *st, struct arb_batch_client *c, struct bcopy *b,
                              const struct arb_judge_config *cfg, const struct arb_batch_opts *bo,
                              struct arb_err *err)
{
    struct arb_batch_remote r;
    char *body = NULL;
    size_t len = 0;
    int openai = strcmp(b->provider, "openai") == 0, found = 0;
    enum arb_status rs = ARB_OK;

    if (strcmp(b->state, "submitting") == 0) {
        struct known_ctx k = {st, b->provider, ARB_OK, err};

        rs = arb_batch_find(c, b->token, b->created_at, b->n_requests, known, &k, &r, &found, err);
        if (!rs)
            rs = k.rs;
        if (!rs && found) {
            batch_notice(bo,
                         "judge batch %lld: found %s at the provider, submitted before the "
                         "interruption; not submitted again",
                         (long long)b->id, r.id);
            return save(st, b, r.ended ? "ended" : "submitted", &r, err);
        }
    }
    if (!rs && (!openai || !b->input_file_id[0]))
        rs = payload(st, c, b, &body, &len, err);
    if (!rs && openai && !b->input_file_id[0]) {
        rs = arb_batch_upload(c, b->token, body, len, b->input_file_id, err);
        if (!rs)
            rs = save(st, b, "uploaded", NULL, err);
    }
    if (!rs && strcmp(b->state, "submitting") != 0)
        rs = save(st, b, "submitting", NULL, err);
    if (!rs) {
        batch_checkpoint(bo, "submit");
        rs = create(st, c, cfg->max_retries, b, body, len, &r, err);
    }
    if (!rs) {
        batch_checkpoint(bo, "posted");
        rs = save(st, b, r.ended ? "ended" : "submitted", &r, err);
    }
    if (!rs)
        batch_notice(bo, "judge batch %lld submitted: %s, %lld requests", (long long)b->id,
                     b->remote_id, (long long)b->n_requests);
    free(body);
    return rs;
}

/* The results of an ended batch, stored in one transaction, begun at the first result: not
 * while the results are downloaded (the database's write lock is not held for minutes of
 * network; another writer of the file would wait or give up). */
struct dl {
    struct arb_store *st;
    int64_t batch;
    size_t lines, matched;
    int began;
    enum arb_status rs;
    struct arb_err *err;
};

static int on_result(void *ctx, const struct arb_batch_result_line *l)
{
    struct dl *d = ctx;
    struct arb_batch_request_row r;
    int matched = 0;

    memset(&r, 0, sizeof(r));
    r.custom_id = l->custom_id;
    r.state = l->state;
    r.http_status = l->http_status;
    r.result_json = l->body;
    r.error = l->error;
    d->lines++;
    if (!d->began) {
        d->rs = arb_store_begin(d->st, d->err);
        d->began = !d->rs;
    }
    if (!d->rs)
        d->rs = arb_store_batch_put_result(d->st, d->batch, &r, &matched, d->err);
    d->matched += (size_t)matched;
    return d->rs != ARB_OK;
}

/*
 * An Anthropic batch taken for b after an interruption (the lone running candidate: Anthropic
 * batches carry no metadata) whose results name none of b's requests was another client's:
 * b goes back to 'submitting' without it, to be looked for again and, when not found,
 * submitted.  It cannot be taken again: it has ended, and an ended candidate is taken only when
 * its results name the token.  (An OpenAI batch is found by its token, so there it stays an
 * error.)
 */
static enum arb_status let_go(struct arb_store *st, struct bcopy *b,
                              const struct arb_batch_opts *bo, struct arb_err *err)
{
    struct arb_batch_row row;
    char why[512];

    snprintf(why, sizeof(why),
             "batch %s, taken for this one after an interruption, is not this batch: its results "
             "name none of its requests (custom ids %s-N)",
             b->remote_id, b->token);
    batch_notice(bo, "judge batch %lld: %s; looking for it again", (long long)b->id, why);
    memset(&row, 0, sizeof(row));
    row.id = b->id;
    row.state = "submitting";
    row.input_file_id = b->input_file_id;
    row.error = why;
    snprintf(b->state, sizeof(b->state), "submitting");
    b->remote_id[0] = '\0';
    b->submitted_at[0] = '\0';
    return arb_store_batch_update(st, &row, err);
}

static enum arb_status download(struct arb_store *st, struct arb_batch_client *c, struct bcopy *b,
                                const struct arb_batch_opts *bo, struct arb_err *err)
{
    struct arb_batch_remote r;
    struct dl d = {st, b->id, 0, 0, 0, ARB_OK, err};
    enum arb_status rs = arb_batch_get(c, b->remote_id, &r, err);

    if (rs)
        return rs;
    rs = arb_batch_results(c, &r, on_result, &d, err);
    if (d.rs)
        rs = d.rs;
    if (!rs && !d.began) { /* no result at all: the requests go missing */
        rs = arb_store_begin(st, err);
        d.began = !rs;
    }
    if (!rs && d.lines && !d.matched && strcmp(b->provider, "anthropic") == 0) {
        arb_store_rollback(st);
        return let_go(st, b, bo, err);
    }
    if (!rs && d.lines && !d.matched)
        rs = arb_err_set(err, ARB_EREMOTE,
                         "the results of batch %s name none of judge batch %lld's requests "
                         "(custom ids %s-N): it is not this batch",
                         b->remote_id, (long long)b->id, b->token);
    if (!rs)
        rs = arb_store_batch_downloaded(st, b->id, err);
    if (!rs)
        rs = arb_store_commit(st, err);
    if (rs) {
        arb_store_rollback(st);
        return rs;
    }
    snprintf(b->state, sizeof(b->state), "downloaded");
    batch_notice(bo, "judge batch %lld (%s) ended %s: %zu results stored", (long long)b->id,
                 b->remote_id, r.status, d.matched);
    batch_checkpoint(bo, "download");
    return ARB_OK;
}

/* Take b as far as it goes without waiting; *running 1 when it has not ended (or its results
 * are not stored yet).  While the run waits (wait > 0), a poll or download that failed in a way
 * another attempt may mend (no reply, 408, 409, 429, 5xx, after the client's own retries) is
 * not the end of the wait: *failed 1, and the batch is tried again at the next poll. */
static enum arb_status step(struct arb_store *st, struct arb_batch_client *c, struct bcopy *b,
                            const struct arb_judge_config *cfg, const struct arb_batch_opts *bo,
                            int wait, int *running, int *failed, struct arb_err *err)
{
    enum arb_status rs = ARB_OK;
    int polled = 0;

    *running = 0;
    if (wait < 0 && (!strcmp(b->state, "intent") || !strcmp(b->state, "uploaded") ||
                     !strcmp(b->state, "submitting"))) {
        *running = 1; /* only polled: not submitted here */
        return ARB_OK;
    }
    if (!strcmp(b->state, "intent") || !strcmp(b->state, "uploaded") ||
        !strcmp(b->state, "submitting"))
        rs = submit(st, c, b, cfg, bo, err);
    else if (!strcmp(b->state, "submitted")) {
        struct arb_batch_remote r;

        polled = 1;
        rs = arb_batch_get(c, b->remote_id, &r, err);
        if (!rs)
            rs = save(st, b, r.ended ? "ended" : "submitted", &r, err);
        if (!rs)
            batch_checkpoint(bo, "poll");
    }
    if (!rs && !strcmp(b->state, "ended")) {
        polled = 1;
        rs = download(st, c, b, bo, err);
        /* Let go (another's batch): looked for again, or (wait < 0) left to the next run. */
        if (!rs && wait >= 0 && !strcmp(b->state, "submitting"))
            rs = submit(st, c, b, cfg, bo, err);
        if (!rs && !strcmp(b->state, "ended"))
            rs = download(st, c, b, bo, err);
    }
    if (rs == ARB_EREMOTE && polled && wait > 0 && arb_batch_client_retryable(c)) {
        batch_notice(bo, "judge batch %lld: %s; trying again at the next poll", (long long)b->id,
                     err->msg);
        *failed = 1;
        *running = 1;
        return ARB_OK;
    }
    *running = !rs && strcmp(b->state, "downloaded") != 0 && strcmp(b->state, "ingested") != 0;
    return rs;
}

static void pause_s(double s)
{
    struct timespec ts;

    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    nanosleep(&ts, NULL);
}

enum arb_status batches_advance(struct arb_store *st, int64_t run, struct arb_batch_client *c,
                                const struct arb_judge_config *cfg, const struct arb_batch_opts *bo,
                                int wait, size_t *running, struct arb_err *err)
{
    struct bcopies bs;
    size_t i, kept;
    time_t outage = 0; /* when the polls began to fail, 0 while they succeed */
    enum arb_status rs;

    memset(&bs, 0, sizeof(bs));
    rs = arb_store_batches(st, run, on_batch, &bs, err);
    if (!rs && bs.oom)
        rs = ARB_ENOMEM;
    /* A run resumed with a judge of the other provider (--resume --judge) cannot reach the
     * batches it made before: they are left as they are (their requests' keys, under the
     * other judge's identity, answer none of this judge's questions). */
    for (i = 0, kept = 0; !rs && i < bs.n; i++) {
        const struct bcopy *b = &bs.v[i];

        if (strcmp(b->provider, arb_batch_client_provider(c)) == 0)
            bs.v[kept++] = *b;
        else if (strcmp(b->state, "downloaded") != 0 && strcmp(b->state, "ingested") != 0)
            batch_notice(bo,
                         "judge batch %lld (%s, %s) is not this judge's provider's: left as "
                         "it is",
                         (long long)b->id, b->provider, b->state);
    }
    bs.n = rs ? bs.n : kept;
    for (;;) {
        int failed = 0;

        *running = 0;
        for (i = 0; !rs && i < bs.n; i++) {
            int r = 0;

            rs = step(st, c, &bs.v[i], cfg, bo, wait, &r, &failed, err);
            *running += (size_t)r;
        }
        if (!rs && failed && !outage)
            outage = time(NULL);
        else if (!rs && !failed)
            outage = 0;
        if (!rs && outage && difftime(time(NULL), outage) > BATCH_OUTAGE_S)
            rs = ARB_EREMOTE; /* err says what failed last */
        if (rs || !*running || wait <= 0)
            break;
        pause_s(cfg->batch_poll_s);
    }
    free(bs.v);
    return rs;
}
