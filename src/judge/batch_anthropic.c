/*
 * batch_anthropic.c - Anthropic's Message Batches: POST /v1/messages/batches
 * {"requests": [{"custom_id", "params"}]}, GET /v1/messages/batches/{id}
 * (processing_status in_progress, canceling, ended; request_counts processing, succeeded,
 * errored, canceled, expired; results_url once ended), GET /v1/messages/batches?limit=&
 * after_id= (newest first), and the results: one {"custom_id", "result": {"type":
 * "succeeded", "message"} | {"type": "errored", "error"} | {"type": "canceled"} | {"type":
 * "expired"}} a line.
 *
 * A batch has no metadata, so the one a kill left unrecorded is found by what Arbiter knows
 * of it: created at or after the intent was recorded (less BATCH_CLOCK_SKEW_S), with exactly as
 * many requests, and no row of the database owning its id; of those, an ended one is read
 * (its results name its custom ids, which start with the token) and a running one is taken
 * only when it is the only one left (see pick).  Two running candidates are an error naming
 * both, never a guess; a wrong adoption shows as results naming none of the batch's custom
 * ids, and the batch is let go and looked for again (batch_submit.c).  The key is sent only
 * to base_url's origin: a results_url elsewhere is read from the batch's own path instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_int.h"

/* request_counts as one total, and the object as text. */
static void remote(const cJSON *b, struct arb_batch_remote *out)
{
    static const char *const names[] = {"processing", "succeeded", "errored", "canceled",
                                        "expired"};
    const cJSON *counts = cJSON_GetObjectItemCaseSensitive(b, "request_counts");
    char *text = counts ? cJSON_PrintUnformatted(counts) : NULL;
    size_t i;

    batch_copy(out->id, sizeof(out->id), batch_str(b, "id"));
    batch_copy(out->status, sizeof(out->status), batch_str(b, "processing_status"));
    out->ended = strcmp(out->status, "ended") == 0;
    batch_copy(out->results_url, sizeof(out->results_url), batch_str(b, "results_url"));
    batch_copy(out->counts, sizeof(out->counts), text);
    batch_copy(out->created_at, sizeof(out->created_at), batch_str(b, "created_at"));
    cJSON_free(text);
    out->total = 0;
    for (i = 0; counts && i < 5; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(counts, names[i]);

        if (cJSON_IsNumber(v))
            out->total += (long long)v->valuedouble;
    }
}

static enum arb_status batch_call(struct arb_batch_client *c, const char *what, const char *method,
                                  const char *url, const char *body, size_t len,
                                  struct arb_batch_remote *out, struct arb_err *err)
{
    struct batch_reply r;
    cJSON *doc;
    enum arb_status st = batch_http(c, what, method, url, body, len, NULL, &r, err);

    doc = st ? NULL : batch_json(&r, what, err);
    if (!st && !doc)
        st = ARB_EREMOTE;
    if (!st && !batch_str(doc, "id")[0])
        st = arb_err_set(err, ARB_EREMOTE, "cannot %s: the reply names no batch id", what);
    if (!st)
        remote(doc, out);
    cJSON_Delete(doc);
    batch_reply_release(&r);
    return st;
}

enum arb_status batch_anthropic_create(struct arb_batch_client *c, const char *payload, size_t len,
                                       struct arb_batch_remote *out, struct arb_err *err)
{
    char url[1100];

    snprintf(url, sizeof(url), "%s/v1/messages/batches", c->base);
    return batch_call(c, "create the batch", "POST", url, payload, len, out, err);
}

enum arb_status batch_anthropic_get(struct arb_batch_client *c, const char *id,
                                    struct arb_batch_remote *out, struct arb_err *err)
{
    char url[1400];

    snprintf(url, sizeof(url), "%s/v1/messages/batches/%s", c->base, id);
    return batch_call(c, "read the batch's status", "GET", url, NULL, 0, out, err);
}

enum arb_status batch_anthropic_results(struct arb_batch_client *c,
                                        const struct arb_batch_remote *b,
                                        int (*fn)(void *ctx, const struct arb_batch_result_line *r),
                                        void *ctx, struct arb_err *err);

/* The batches that may be the one sought (at most MAX_CANDIDATES). */
#define MAX_CANDIDATES 32
struct candidates {
    struct arb_batch_remote v[MAX_CANDIDATES];
    int n;
    int older;    /* the list reached batches created before the intent (or its end) */
    int overflow; /* more candidates than MAX_CANDIDATES */
};

/* Look through one page of the list (newest first). */
static void find_in(const cJSON *data, long long since, long long n,
                    int (*known)(void *ctx, const char *id), void *ctx, struct candidates *cs)
{
    const cJSON *b;

    cJSON_ArrayForEach(b, data)
    {
        struct arb_batch_remote x;
        long long t;

        memset(&x, 0, sizeof(x));
        remote(b, &x);
        t = batch_time(x.created_at);
        if (t >= 0 && t < since) {
            cs->older = 1;
            continue;
        }
        if (x.total != n || known(ctx, x.id))
            continue;
        if (cs->n == MAX_CANDIDATES)
            cs->overflow = 1;
        else
            cs->v[cs->n++] = x;
    }
}

/* Whether an ended batch's results carry custom ids of token ("<token>-<n>"). */
struct carries {
    const char *token;
    int yes, lines;
};

static int on_carry(void *ctx, const struct arb_batch_result_line *r)
{
    struct carries *c = ctx;
    size_t n = strlen(c->token);

    c->lines++;
    if (strncmp(r->custom_id, c->token, n) == 0 && r->custom_id[n] == '-')
        c->yes = 1;
    return 1; /* one line tells */
}

/*
 * Of the candidates, the one that is this batch: an ended one whose results carry the
 * token's custom ids settles it; the ended ones whose results carry other ids are another
 * client's; of those still running (whose results cannot be read yet) one is taken when it
 * is the only one left, as its results are checked against the token when they are stored
 * (batch_submit.c); two or more are an error.
 */
static enum arb_status pick(struct arb_batch_client *c, const char *token, struct candidates *cs,
                            const char *since, long long n, struct arb_batch_remote *out,
                            int *found, struct arb_err *err)
{
    char names[600] = "";
    size_t len = 0;
    int i, running = 0, pick_i = -1;
    enum arb_status st = ARB_OK;

    for (i = 0; !st && i < cs->n; i++) {
        struct carries cr = {token, 0, 0};
        struct arb_err ignored = {{0}};

        if (!cs->v[i].ended) {
            running++;
            pick_i = running == 1 ? i : pick_i;
            /* The ids that fit, whole: one cut short would name no batch. */
            if (len + strlen(cs->v[i].id) + 3 < sizeof(names))
                len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
                                        len ? ", " : "", cs->v[i].id);
            continue;
        }
        /* A results read that stops at its first line reports a stop: not an error here. */
        st = batch_anthropic_results(c, &cs->v[i], on_carry, &cr, &ignored);
        if (st == ARB_EINTERNAL && cr.lines)
            st = ARB_OK;
        if (st) {
            arb_err_set(err, st, "%s", ignored.msg);
            break;
        }
        if (cr.yes) {
            *out = cs->v[i];
            *found = 1;
            return ARB_OK;
        }
    }
    if (st || !running)
        return st;
    if (running > 1)
        return arb_err_set(err, ARB_EREMOTE,
                           "cannot tell which of %d running Anthropic batches (%s), each created "
                           "since %s with %lld requests, this run submitted before it was "
                           "interrupted (Anthropic batches carry no metadata); once they end, "
                           "resume again: their results name their requests",
                           running, names, since, n);
    *out = cs->v[pick_i];
    *found = 1;
    return ARB_OK;
}

enum arb_status batch_anthropic_find(struct arb_batch_client *c, const char *token,
                                     const char *since, long long n,
                                     int (*known)(void *ctx, const char *id), void *ctx,
                                     struct arb_batch_remote *out, int *found, struct arb_err *err)
{
    char url[1400], after[256] = "";
    long long from = batch_time(since) - BATCH_CLOCK_SKEW_S;
    int page;
    struct candidates *cs = calloc(1, sizeof(*cs));
    enum arb_status st = cs ? ARB_OK : ARB_ENOMEM;

    for (page = 0; !st && !cs->older && page < BATCH_FIND_PAGES; page++) {
        struct batch_reply r;
        cJSON *doc;
        const cJSON *data, *b;

        if (after[0])
            snprintf(url, sizeof(url), "%s/v1/messages/batches?limit=100&after_id=%s", c->base,
                     after);
        else
            snprintf(url, sizeof(url), "%s/v1/messages/batches?limit=100", c->base);
        st = batch_http(c, "list the batches", "GET", url, NULL, 0, NULL, &r, err);
        doc = st ? NULL : batch_json(&r, "list the batches", err);
        if (!st && !doc)
            st = ARB_EREMOTE;
        data = doc ? cJSON_GetObjectItemCaseSensitive(doc, "data") : NULL;
        find_in(data, from, n, known, ctx, cs);
        cJSON_ArrayForEach(b, data) batch_copy(after, sizeof(after), batch_str(b, "id"));
        if (!cJSON_IsTrue(doc ? cJSON_GetObjectItemCaseSensitive(doc, "has_more") : NULL) ||
            !cJSON_GetArraySize(data))
            cs->older = 1;
        cJSON_Delete(doc);
        batch_reply_release(&r);
    }
    /* Candidates left out (the search cut short, or too many) could be the one: not found
     * would then submit it again. */
    if (!st && (!cs->older || cs->overflow))
        st = arb_err_set(err, ARB_EREMOTE,
                         "cannot tell whether batch %s was created before the interruption: "
                         "%s Anthropic batches created since %s with %lld requests; resume again "
                         "(nothing was submitted)",
                         token, cs->overflow ? "more than 32" : "could not look through every",
                         since ? since : "?", n);
    if (!st)
        st = pick(c, token, cs, since, n, out, found, err);
    free(cs);
    return st;
}

/* The HTTP status an Anthropic error type stands for (its API's errors page). */
static long error_status(const char *type)
{
    static const struct {
        const char *type;
        long status;
    } map[] = {{"invalid_request_error", 400}, {"authentication_error", 401},
               {"billing_error", 402},         {"permission_error", 403},
               {"not_found_error", 404},       {"request_too_large", 413},
               {"rate_limit_error", 429},      {"api_error", 500},
               {"overloaded_error", 529}};
    size_t i;

    for (i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (strcmp(map[i].type, type) == 0)
            return map[i].status;
    return 500;
}

struct lines {
    int (*fn)(void *ctx, const struct arb_batch_result_line *r);
    void *ctx;
};

static int on_line(void *ctx, const cJSON *line)
{
    struct lines *l = ctx;
    struct arb_batch_result_line r;
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(line, "result");
    const char *type = batch_str(res, "type");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(res, "message");
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(res, "error");
    const cJSON *inner = e ? cJSON_GetObjectItemCaseSensitive(e, "error") : NULL;
    char *text = NULL, why[600];
    int stop;

    memset(&r, 0, sizeof(r));
    r.custom_id = batch_str(line, "custom_id");
    if (strcmp(type, "succeeded") == 0 && cJSON_IsObject(msg)) {
        r.state = "succeeded";
        r.http_status = 200;
        text = cJSON_PrintUnformatted(msg);
    } else if (strcmp(type, "expired") == 0 || strcmp(type, "canceled") == 0) {
        r.state = type;
        snprintf(why, sizeof(why), "%s in the batch", type);
        r.error = why;
    } else {
        const char *et = batch_str(inner ? inner : e, "type");

        r.state = "errored";
        r.http_status = error_status(et);
        text = e ? cJSON_PrintUnformatted(e) : NULL;
        snprintf(why, sizeof(why), "%s in the batch: %s", et[0] ? et : "error",
                 batch_str(inner ? inner : e, "message"));
        r.error = why;
    }
    r.body = text;
    stop = r.custom_id[0] ? l->fn(l->ctx, &r) : 0;
    cJSON_free(text);
    return stop;
}

/* Whether url is at the origin (scheme, host and port) of base. */
static int same_origin(const char *base, const char *url)
{
    const char *s = strstr(base, "://");
    size_t n;

    if (!s)
        return 0;
    s += 3;
    n = (size_t)(s - base) + strcspn(s, "/?#");
    return strncmp(base, url, n) == 0 && (url[n] == '/' || url[n] == '\0');
}

enum arb_status batch_anthropic_results(struct arb_batch_client *c,
                                        const struct arb_batch_remote *b,
                                        int (*fn)(void *ctx, const struct arb_batch_result_line *r),
                                        void *ctx, struct arb_err *err)
{
    struct lines l = {fn, ctx};
    struct batch_reply r;
    char url[1400];
    enum arb_status st;

    if (b->results_url[0] && same_origin(c->base, b->results_url))
        batch_copy(url, sizeof(url), b->results_url);
    else
        snprintf(url, sizeof(url), "%s/v1/messages/batches/%s/results", c->base, b->id);
    st = batch_http(c, "download the batch's results", "GET", url, NULL, 0, NULL, &r, err);
    if (!st)
        st = batch_lines(r.body.ptr, on_line, &l, err);
    batch_reply_release(&r);
    return st;
}
