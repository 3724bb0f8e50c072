/*
 * batch_anthropic.c - Anthropic's Message Batches on the test judge: a batch of messages
 * requests is created in one call, polled until its processing_status is "ended", and its
 * results read as JSONL from its results_url.
 *
 * Shapes follow Anthropic's API reference, "Message Batches" (docs.anthropic.com/en/api/
 * creating-message-batches and its siblings) and the types of anthropic-sdk-python
 * (src/anthropic/types/messages/message_batch*.py, types/shared/error_response.py). A batch
 * is in_progress until its --batch-polls-th status read, which ends it and answers its
 * requests (batch_store.c). Everything here runs with st->batch_lock held.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch.h"

static const char *status_name(enum sim_batch_status s)
{
    switch (s) {
    case SIM_B_VALIDATING:
    case SIM_B_IN_PROGRESS:
    case SIM_B_FINALIZING:
        return "in_progress";
    case SIM_B_CANCELLING:
        return "canceling";
    case SIM_B_FAILED:
    case SIM_B_COMPLETED:
    case SIM_B_EXPIRED:
    case SIM_B_CANCELLED:
        return "ended";
    }
    return "ended";
}

static bool ended(const struct sim_batch *b)
{
    return !strcmp(status_name(b->status), "ended");
}

static void fail(struct sim_reply *r, int status, const char *msg)
{
    sim_reply_error(r, SIM_PROTO_ANTHROPIC, status, msg);
}

static void send_json(struct sim_reply *r, cJSON *root)
{
    char *text = root ? cJSON_PrintUnformatted(root) : NULL;

    cJSON_Delete(root);
    if (text)
        sim_reply_text(r, 200, text);
    else
        fail(r, 500, "judge_sim: out of memory");
}

/* An RFC 3339 time with microseconds, or null when us is 0. */
static bool add_time(cJSON *o, const char *key, long long us)
{
    time_t secs = (time_t)(us / 1000000);
    struct tm tm;
    char text[48];

    if (!us)
        return cJSON_AddNullToObject(o, key) != NULL;
    if (!gmtime_r(&secs, &tm))
        return false;
    snprintf(text, sizeof(text), "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, us % 1000000);
    return cJSON_AddStringToObject(o, key, text) != NULL;
}

static cJSON *batch_json(const struct sim_batch *b, const char *host)
{
    cJSON *o = cJSON_CreateObject(), *counts;
    bool done = ended(b);
    char url[256];
    bool ok = cJSON_AddStringToObject(o, "id", b->id) &&
              cJSON_AddStringToObject(o, "type", "message_batch") &&
              cJSON_AddStringToObject(o, "processing_status", status_name(b->status));

    counts = sim_attach(o, "request_counts", cJSON_CreateObject());
    ok = ok && cJSON_AddNumberToObject(counts, "processing", done ? 0 : (double)b->n) &&
         cJSON_AddNumberToObject(counts, "succeeded", done ? (double)b->n_ok : 0) &&
         cJSON_AddNumberToObject(counts, "errored", done ? (double)b->n_errored : 0) &&
         cJSON_AddNumberToObject(counts, "canceled", done ? (double)b->n_canceled : 0) &&
         cJSON_AddNumberToObject(counts, "expired", done ? (double)b->n_expired : 0);
    ok = ok && add_time(o, "ended_at", done ? b->ended_us : 0) &&
         add_time(o, "created_at", b->created_us) &&
         add_time(o, "expires_at", b->created_us + 86400LL * 1000000) &&
         add_time(o, "cancel_initiated_at", b->cancelling_us) &&
         cJSON_AddNullToObject(o, "archived_at");
    /* Where this server was reached, so a client can follow the URL as given. */
    snprintf(url, sizeof(url), "http://%.150s/v1/messages/batches/%s/results",
             host ? host : "127.0.0.1", b->id);
    ok = ok && (done ? cJSON_AddStringToObject(o, "results_url", url) != NULL
                     : cJSON_AddNullToObject(o, "results_url") != NULL);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* One line of the results (MessageBatchIndividualResponse), onto buf. */
static void result_line(struct sim_buf *buf, const struct sim_batch_req *q)
{
    sim_buf_str(buf, "{\"custom_id\":");
    sim_buf_json(buf, q->custom_id);
    switch (q->out) {
    case SIM_OUT_OK:
        /* The message's own bytes, as the synchronous route sends them. */
        sim_buf_str(buf, ",\"result\":{\"type\":\"succeeded\",\"message\":");
        sim_buf_str(buf, q->reply);
        break;
    case SIM_OUT_ERRORED:
        sim_buf_str(buf, ",\"result\":{\"type\":\"errored\",\"error\":");
        sim_buf_str(buf, q->reply ? q->reply
                                  : "{\"type\":\"error\",\"error\":{\"type\":\"api_error\","
                                    "\"message\":\"judge_sim: out of memory\"}}");
        break;
    case SIM_OUT_EXPIRED:
        sim_buf_str(buf, ",\"result\":{\"type\":\"expired\"");
        break;
    case SIM_OUT_PENDING:
    case SIM_OUT_CANCELED:
        sim_buf_str(buf, ",\"result\":{\"type\":\"canceled\"");
        break;
    }
    sim_buf_str(buf, "}}\n");
}

/* Answers the first done requests (the rest are canceled), ends the batch and writes its
 * results in the batch's shuffled order. */
static void finish(struct sim_state *st, struct sim_batch *b, size_t done)
{
    struct sim_buf buf = {0};
    size_t *order;

    sim_batch_run(st, b, done); /* a request it could not answer comes back errored */
    order = sim_batch_order(st, b);
    for (size_t i = 0; order && i < b->n; i++)
        result_line(&buf, &b->reqs[order[i]]);
    if (!order)
        buf.failed = true;
    free(order);
    b->results = sim_buf_detach(&buf, &b->results_len);
    b->ended_us = sim_now_us();
    b->status = b->status == SIM_B_CANCELLING ? SIM_B_CANCELLED : SIM_B_COMPLETED;
}

/* Moves b on by one status read. */
static void step(struct sim_state *st, struct sim_batch *b)
{
    if (b->status == SIM_B_CANCELLING)
        finish(st, b, sim_batch_done_at_cancel(st->cfg, b));
    else if (b->polls >= (unsigned long)st->cfg->batch_polls)
        finish(st, b, b->n);
}

/* custom_id: 1 to 64 of [a-zA-Z0-9_-]. */
static bool id_ok(const char *s)
{
    size_t n = strlen(s);

    return n >= 1 && n <= 64 &&
           strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == n;
}

/* Why the create request cannot be used (into why), or "" when it can. */
static void check_create(const cJSON *req, char *why, size_t cap)
{
    const cJSON *reqs = cJSON_GetObjectItemCaseSensitive(req, "requests"), *q;
    int n = cJSON_GetArraySize(reqs), i = 0;

    why[0] = '\0';
    if (!cJSON_IsObject(req)) {
        snprintf(why, cap, "the request body is not a JSON object");
    } else if (!cJSON_IsArray(reqs)) {
        snprintf(why, cap, "requests: Field required");
    } else if (n == 0) {
        snprintf(why, cap, "requests: List should have at least 1 item after validation, not 0");
    } else if (n > SIM_ANTHROPIC_MAX_REQUESTS) {
        snprintf(why, cap,
                 "requests: List should have at most 100000 items after validation, not %d", n);
    } else {
        cJSON_ArrayForEach(q, reqs)
        {
            const cJSON *id = cJSON_GetObjectItemCaseSensitive(q, "custom_id");

            if (!cJSON_IsString(id)) {
                snprintf(why, cap, "requests.%d.custom_id: Field required", i);
                return;
            }
            if (!id_ok(id->valuestring)) {
                snprintf(why, cap,
                         "requests.%d.custom_id: String should match pattern "
                         "'^[a-zA-Z0-9_-]{1,64}$'",
                         i);
                return;
            }
            if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(q, "params"))) {
                snprintf(why, cap, "requests.%d.params: Field required", i);
                return;
            }
            i++;
        }
    }
}

/* b's requests from a checked create request; 0 when out of memory, or with why set when two
 * share a custom_id. */
static int load_requests(struct sim_batch *b, const cJSON *req, char *why, size_t cap)
{
    const cJSON *reqs = cJSON_GetObjectItemCaseSensitive(req, "requests"), *q;
    size_t n = (size_t)cJSON_GetArraySize(reqs), i = 0;
    char **ids = malloc(n * sizeof(*ids));
    bool *dup = malloc(n * sizeof(*dup));
    int ok;

    b->reqs = calloc(n, sizeof(*b->reqs));
    ok = ids && dup && b->reqs;

    cJSON_ArrayForEach(q, reqs)
    {
        if (!ok)
            break;
        ids[i++] = cJSON_GetObjectItemCaseSensitive(q, "custom_id")->valuestring;
    }
    ok = ok && sim_find_duplicates(ids, n, dup) >= 0;
    for (i = 0; ok && i < n; i++) {
        if (dup[i]) {
            snprintf(why, cap,
                     "requests.%zu.custom_id: '%s' is a duplicate: every custom_id "
                     "must be unique within the batch",
                     i, ids[i]);
            break;
        }
    }
    i = 0;
    cJSON_ArrayForEach(q, reqs)
    {
        struct sim_batch_req *r = &b->reqs[i];

        if (!ok || why[0])
            break;
        r->custom_id = strdup(ids[i]);
        /* Compact, as Arbiter prints it: the bytes the synchronous route would get. */
        r->body = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(q, "params"));
        b->n = ++i;
        ok = r->custom_id && r->body;
        if (ok)
            r->len = strlen(r->body);
    }
    free(ids);
    free(dup);
    return ok;
}

static void create(struct sim_state *st, const struct sim_http *h, struct sim_reply *r)
{
    cJSON *req = cJSON_ParseWithLength(h->body, h->len);
    struct sim_batch *b = NULL;
    char why[256] = "";

    check_create(req, why, sizeof(why));
    if (!why[0])
        b = calloc(1, sizeof(*b));
    if (b && !load_requests(b, req, why, sizeof(why))) {
        sim_batch_free(b);
        b = NULL;
    } else if (b && why[0]) {
        sim_batch_free(b);
        b = NULL;
    }
    if (why[0]) {
        fail(r, 400, why);
    } else if (!b) {
        fail(r, 500, "judge_sim: out of memory");
    } else {
        b->proto = SIM_PROTO_ANTHROPIC;
        b->status = SIM_B_IN_PROGRESS;
        b->created_us = b->in_progress_us = sim_now_us();
        sim_store_id(st, "msgbatch_sim", b->id, sizeof(b->id));
        if (sim_store_add_batch(st, b)) {
            if (st->cfg->batch_polls == 0)
                step(st, b); /* ended before anyone asked */
            send_json(r, batch_json(b, h->host));
        } else {
            fail(r, 500, "judge_sim: out of memory");
        }
    }
    cJSON_Delete(req);
}

static void list(struct sim_state *st, const struct sim_http *h, struct sim_reply *r)
{
    size_t limit = sim_query_limit(h->limit, 20, 1000), n;
    struct sim_batch **page;
    cJSON *o, *data;
    bool more, ok;

    if (!limit) {
        fail(r, 400, "limit: Input should be a whole number from 1 to 1000");
        return;
    }
    page = malloc(limit * sizeof(*page));
    if (!page) {
        fail(r, 500, "judge_sim: out of memory");
        return;
    }
    n = sim_store_page(st, SIM_PROTO_ANTHROPIC, h->after_id, h->before_id, limit, page, &more);
    o = cJSON_CreateObject();
    data = sim_attach(o, "data", cJSON_CreateArray());
    ok = data != NULL;
    for (size_t i = 0; ok && i < n; i++)
        ok = sim_attach(data, NULL, batch_json(page[i], h->host)) != NULL;
    ok = ok && cJSON_AddBoolToObject(o, "has_more", more) &&
         (n ? cJSON_AddStringToObject(o, "first_id", page[0]->id) != NULL &&
                  cJSON_AddStringToObject(o, "last_id", page[n - 1]->id) != NULL
            : cJSON_AddNullToObject(o, "first_id") && cJSON_AddNullToObject(o, "last_id"));
    free(page);
    if (!ok) {
        cJSON_Delete(o);
        o = NULL;
    }
    send_json(r, o);
}

static void results(struct sim_state *st, struct sim_batch *b, struct sim_reply *r)
{
    char msg[160], *copy;

    if (!ended(b)) {
        snprintf(msg, sizeof(msg),
                 "Message Batch %s has not ended yet: its results are not "
                 "available until processing_status is \"ended\"",
                 b->id);
        fail(r, 400, msg);
        return;
    }
    if (!b->results) {
        fail(r, 500, "judge_sim: out of memory");
        return;
    }
    if (sim_results_outage(st, &b->res_outages, SIM_PROTO_ANTHROPIC, r))
        return;
    copy = malloc(b->results_len + 1);
    if (copy)
        memcpy(copy, b->results, b->results_len + 1);
    sim_reply_text(r, 200, copy);
    r->content_type = "application/x-jsonl";
}

static void batch_route(struct sim_state *st, const struct sim_http *h, const char *id,
                        const char *tail, struct sim_reply *r)
{
    struct sim_batch *b = sim_store_batch(st, SIM_PROTO_ANTHROPIC, id);
    bool get = !strcmp(h->method, "GET");
    char msg[192];
    cJSON *o;

    if (!b) {
        snprintf(msg, sizeof(msg), "No Message Batch found with id '%.100s'", id);
        fail(r, 404, msg);
    } else if (get && !*tail) {
        if (!ended(b) && sim_batch_outage(st, b, r))
            return;
        if (!ended(b)) {
            b->polls++;
            step(st, b);
        }
        send_json(r, batch_json(b, h->host));
    } else if (get && !strcmp(tail, "/results")) {
        results(st, b, r);
    } else if (!strcmp(h->method, "POST") && !strcmp(tail, "/cancel")) {
        if (b->status == SIM_B_IN_PROGRESS) {
            b->status = SIM_B_CANCELLING;
            b->cancelling_us = sim_now_us();
            b->polls_cancel = b->polls;
        }
        if (ended(b)) {
            snprintf(msg, sizeof(msg), "Message Batch %s has already ended", b->id);
            fail(r, 400, msg);
        } else {
            send_json(r, batch_json(b, h->host));
        }
    } else if (!strcmp(h->method, "DELETE") && !*tail) {
        if (!ended(b)) {
            snprintf(msg, sizeof(msg),
                     "Message Batch %s is still processing: cancel it and "
                     "wait for it to end before deleting it",
                     b->id);
            fail(r, 400, msg);
            return;
        }
        o = cJSON_CreateObject();
        if (!cJSON_AddStringToObject(o, "id", b->id) ||
            !cJSON_AddStringToObject(o, "type", "message_batch_deleted")) {
            cJSON_Delete(o);
            o = NULL;
        }
        send_json(r, o);
        sim_store_drop_batch(st, SIM_PROTO_ANTHROPIC, id);
    } else {
        fail(r, 404, "no such endpoint");
    }
}

void sim_anthropic_batch(struct sim_state *st, const struct sim_http *h, struct sim_reply *r)
{
    const char *prefix = "/v1/messages/batches", *rest = h->url + strlen(prefix);
    size_t k = *rest == '/' ? strcspn(rest + 1, "/") : 0;
    char id[128];

    pthread_mutex_lock(&st->batch_lock);
    if (!*rest && !strcmp(h->method, "POST")) {
        create(st, h, r);
    } else if (!*rest && !strcmp(h->method, "GET")) {
        list(st, h, r);
    } else if (k > 0 && k < sizeof(id)) {
        memcpy(id, rest + 1, k);
        id[k] = '\0';
        batch_route(st, h, id, rest + 1 + k, r);
    } else {
        fail(r, 404, "no such endpoint");
    }
    pthread_mutex_unlock(&st->batch_lock);
}
