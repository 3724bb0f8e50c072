/*
 * batch_openai.c - OpenAI's Batch API, as /work/shared/providers/openai-openapi.yaml
 * publishes it: POST /files (multipart, purpose "batch"; batch_client.c), POST /batches
 * {"input_file_id", "endpoint": "/v1/chat/completions", "completion_window": "24h",
 * "metadata": {"arbiter_token"}}, GET /batches/{id}, GET /batches?limit=&after= (to find a
 * batch by its token after a kill), and GET /files/{id}/content for the output file (one
 * {"custom_id", "response": {"status_code", "body"}, "error"} a line) and the error file
 * (requests that failed, expired or were cancelled).  base_url ends in /v1, as for the
 * synchronous API.
 */
#include <stdio.h>
#include <string.h>

#include "batch_int.h"

static int ended(const char *status)
{
    return strcmp(status, "completed") == 0 || strcmp(status, "failed") == 0 ||
           strcmp(status, "expired") == 0 || strcmp(status, "cancelled") == 0;
}

/* A Batch object into *out. */
static void remote(const cJSON *b, struct arb_batch_remote *out)
{
    const cJSON *counts = cJSON_GetObjectItemCaseSensitive(b, "request_counts");
    const cJSON *errs = cJSON_GetObjectItemCaseSensitive(b, "errors");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(b, "created_at");
    const cJSON *data = errs ? cJSON_GetObjectItemCaseSensitive(errs, "data") : NULL;
    const cJSON *total = counts ? cJSON_GetObjectItemCaseSensitive(counts, "total") : NULL;
    char *text = counts ? cJSON_PrintUnformatted(counts) : NULL;

    batch_copy(out->id, sizeof(out->id), batch_str(b, "id"));
    batch_copy(out->status, sizeof(out->status), batch_str(b, "status"));
    out->ended = ended(out->status);
    batch_copy(out->input_file_id, sizeof(out->input_file_id), batch_str(b, "input_file_id"));
    batch_copy(out->output_file_id, sizeof(out->output_file_id), batch_str(b, "output_file_id"));
    batch_copy(out->error_file_id, sizeof(out->error_file_id), batch_str(b, "error_file_id"));
    batch_copy(out->counts, sizeof(out->counts), text);
    cJSON_free(text);
    out->total = cJSON_IsNumber(total) ? (long long)total->valuedouble : 0;
    if (cJSON_IsNumber(t))
        batch_iso((long long)t->valuedouble, out->created_at);
    if (cJSON_IsArray(data) && cJSON_GetArraySize(data) > 0) {
        const cJSON *e = cJSON_GetArrayItem(data, 0);

        snprintf(out->error, sizeof(out->error), "%s: %s", batch_str(e, "code"),
                 batch_str(e, "message"));
    }
}

/* A request whose reply is one Batch object. */
static enum arb_status batch_call(struct arb_batch_client *c, const char *what, const char *method,
                                  const char *url, const char *body, struct arb_batch_remote *out,
                                  struct arb_err *err)
{
    struct batch_reply r;
    cJSON *doc;
    enum arb_status st =
        batch_http(c, what, method, url, body, body ? strlen(body) : 0, NULL, &r, err);

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

enum arb_status batch_openai_create(struct arb_batch_client *c, const char *token,
                                    const char *input_file_id, struct arb_batch_remote *out,
                                    struct arb_err *err)
{
    cJSON *o = cJSON_CreateObject(), *meta;
    char url[1100], *body = NULL;
    enum arb_status st = ARB_ENOMEM;

    if (o && cJSON_AddStringToObject(o, "input_file_id", input_file_id) &&
        cJSON_AddStringToObject(o, "endpoint", "/v1/chat/completions") &&
        cJSON_AddStringToObject(o, "completion_window", "24h") &&
        (meta = cJSON_AddObjectToObject(o, "metadata")) &&
        cJSON_AddStringToObject(meta, "arbiter_token", token))
        body = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!body)
        return st;
    snprintf(url, sizeof(url), "%s/batches", c->base);
    st = batch_call(c, "create the batch", "POST", url, body, out, err);
    cJSON_free(body);
    return st;
}

enum arb_status batch_openai_get(struct arb_batch_client *c, const char *id,
                                 struct arb_batch_remote *out, struct arb_err *err)
{
    char url[1400];

    snprintf(url, sizeof(url), "%s/batches/%s", c->base, id);
    return batch_call(c, "read the batch's status", "GET", url, NULL, out, err);
}

/*
 * The list is newest first: the pages are read until the token is found, the list ends, or a
 * batch created a day before since shows the rest are older than the intent.
 * A search stopped by BATCH_FIND_PAGES first is an error: "not found" would submit again.
 */
enum arb_status batch_openai_find(struct arb_batch_client *c, const char *token, const char *since,
                                  struct arb_batch_remote *out, int *found, struct arb_err *err)
{
    char url[1400], after[256] = "";
    long long from = batch_time(since);
    int page, done = 0;
    enum arb_status st = ARB_OK;

    if (from >= 0)
        from -= BATCH_OPENAI_CLOCK_SKEW_S;
    for (page = 0; !st && !*found && !done; page++) {
        struct batch_reply r;
        cJSON *doc;
        const cJSON *b, *data, *more;

        if (page == BATCH_FIND_PAGES) {
            st = arb_err_set(err, ARB_EREMOTE,
                             "cannot tell whether batch %s was created before the interruption: "
                             "%d pages of batches created since %s hold no batch with its token; "
                             "resume again (nothing was submitted)",
                             token, page, since ? since : "?");
            break;
        }
        if (after[0])
            snprintf(url, sizeof(url), "%s/batches?limit=100&after=%s", c->base, after);
        else
            snprintf(url, sizeof(url), "%s/batches?limit=100", c->base);
        st = batch_http(c, "list the batches", "GET", url, NULL, 0, NULL, &r, err);
        doc = st ? NULL : batch_json(&r, "list the batches", err);
        if (!st && !doc)
            st = ARB_EREMOTE;
        data = doc ? cJSON_GetObjectItemCaseSensitive(doc, "data") : NULL;
        cJSON_ArrayForEach(b, data)
        {
            const cJSON *meta = cJSON_GetObjectItemCaseSensitive(b, "metadata");
            const cJSON *t = cJSON_GetObjectItemCaseSensitive(b, "created_at");

            if (from >= 0 && cJSON_IsNumber(t) && t->valuedouble < (double)from)
                done = 1; /* this one and the rest are older than the intent */
            else if (!*found && strcmp(batch_str(meta, "arbiter_token"), token) == 0) {
                remote(b, out);
                *found = 1;
            }
            batch_copy(after, sizeof(after), batch_str(b, "id"));
        }
        more = doc ? cJSON_GetObjectItemCaseSensitive(doc, "has_more") : NULL;
        if (!cJSON_IsTrue(more) || !cJSON_GetArraySize(data))
            done = 1;
        cJSON_Delete(doc);
        batch_reply_release(&r);
    }
    return st;
}

/* One line of the output or error file as a result. */
struct lines {
    int (*fn)(void *ctx, const struct arb_batch_result_line *r);
    void *ctx;
};

static int on_line(void *ctx, const cJSON *line)
{
    struct lines *l = ctx;
    struct arb_batch_result_line r;
    const cJSON *resp = cJSON_GetObjectItemCaseSensitive(line, "response");
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(line, "error");
    const cJSON *code =
        cJSON_IsObject(resp) ? cJSON_GetObjectItemCaseSensitive(resp, "status_code") : NULL;
    const cJSON *body =
        cJSON_IsObject(resp) ? cJSON_GetObjectItemCaseSensitive(resp, "body") : NULL;
    char *text = body ? cJSON_PrintUnformatted(body) : NULL;
    char why[600];
    int stop;

    memset(&r, 0, sizeof(r));
    r.custom_id = batch_str(line, "custom_id");
    r.http_status = cJSON_IsNumber(code) ? (long)code->valuedouble : 0;
    r.body = text;
    if (r.http_status >= 200 && r.http_status < 300 && !cJSON_IsObject(e)) {
        r.state = "succeeded";
    } else if (cJSON_IsObject(e)) {
        const char *ec = batch_str(e, "code");

        r.state = strcmp(ec, "batch_expired") == 0     ? "expired"
                  : strcmp(ec, "batch_cancelled") == 0 ? "canceled"
                                                       : "errored";
        snprintf(why, sizeof(why), "%s in the batch: %s", ec[0] ? ec : "error",
                 batch_str(e, "message"));
        r.error = why;
    } else {
        r.state = "errored";
        snprintf(why, sizeof(why), "HTTP %ld in the batch", r.http_status);
        r.error = why;
    }
    stop = r.custom_id[0] ? l->fn(l->ctx, &r) : 0;
    cJSON_free(text);
    return stop;
}

static enum arb_status file_lines(struct arb_batch_client *c, const char *file_id, struct lines *l,
                                  struct arb_err *err)
{
    struct batch_reply r;
    char url[1400];
    enum arb_status st;

    if (!file_id[0])
        return ARB_OK;
    snprintf(url, sizeof(url), "%s/files/%s/content", c->base, file_id);
    st = batch_http(c, "download the batch's results", "GET", url, NULL, 0, NULL, &r, err);
    if (!st)
        st = batch_lines(r.body.ptr, on_line, l, err);
    batch_reply_release(&r);
    return st;
}

enum arb_status batch_openai_results(struct arb_batch_client *c, const struct arb_batch_remote *b,
                                     int (*fn)(void *ctx, const struct arb_batch_result_line *r),
                                     void *ctx, struct arb_err *err)
{
    struct lines l = {fn, ctx};
    enum arb_status st = file_lines(c, b->output_file_id, &l, err);

    return st ? st : file_lines(c, b->error_file_id, &l, err);
}
