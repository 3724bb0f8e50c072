/*
 * batch_openai.c - OpenAI's Files and Batch API on the test judge: a JSONL file of chat
 * completion requests is uploaded (multipart/form-data), a batch is created from it, polled
 * until it ends, and its output and error files are read back.
 *
 * Shapes follow OpenAI's published OpenAPI description (/work/shared/providers/openai-openapi.
 * yaml: OpenAIFile, CreateBatchRequest, Batch, BatchError, ListBatchesResponse) and its batch
 * guide (BatchRequestInput, BatchRequestOutput). A batch is validated when it is created; it
 * moves validating -> in_progress -> finalizing -> completed as it is read, one step per
 * status read (--batch-polls), and its requests are answered when it ends (batch_store.c).
 * Everything here runs with st->batch_lock held.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "batch.h"

#define MAX_ERRORS 1000 /* validation errors listed per batch */

static const char *status_name(enum sim_batch_status s)
{
    switch (s) {
    case SIM_B_VALIDATING:
        return "validating";
    case SIM_B_FAILED:
        return "failed";
    case SIM_B_IN_PROGRESS:
        return "in_progress";
    case SIM_B_FINALIZING:
        return "finalizing";
    case SIM_B_COMPLETED:
        return "completed";
    case SIM_B_EXPIRED:
        return "expired";
    case SIM_B_CANCELLING:
        return "cancelling";
    case SIM_B_CANCELLED:
        return "cancelled";
    }
    return "failed";
}

/* An OpenAI error naming the parameter at fault (param and code may be NULL). */
static void fail(struct sim_reply *r, int status, const char *msg, const char *param,
                 const char *code)
{
    cJSON *root = sim_error_json(SIM_PROTO_OPENAI, status, msg);
    cJSON *err = cJSON_GetObjectItemCaseSensitive(root, "error");

    if (err && param)
        cJSON_ReplaceItemInObjectCaseSensitive(err, "param", cJSON_CreateString(param));
    if (err && code)
        cJSON_ReplaceItemInObjectCaseSensitive(err, "code", cJSON_CreateString(code));
    sim_reply_text(r, status, root ? cJSON_PrintUnformatted(root) : NULL);
    cJSON_Delete(root);
}

static void send_json(struct sim_reply *r, cJSON *root)
{
    char *text = root ? cJSON_PrintUnformatted(root) : NULL;

    cJSON_Delete(root);
    if (text)
        sim_reply_text(r, 200, text);
    else
        sim_reply_error(r, SIM_PROTO_OPENAI, 500, "judge_sim: out of memory");
}

/* --- files --- */

static cJSON *file_json(const struct sim_file *f)
{
    cJSON *o = cJSON_CreateObject();
    bool ok = cJSON_AddStringToObject(o, "id", f->id) &&
              cJSON_AddStringToObject(o, "object", "file") &&
              cJSON_AddNumberToObject(o, "bytes", (double)f->len) &&
              cJSON_AddNumberToObject(o, "created_at", (double)(f->created_us / 1000000)) &&
              cJSON_AddStringToObject(o, "filename", f->filename) &&
              cJSON_AddStringToObject(o, "purpose", f->purpose) &&
              cJSON_AddStringToObject(o, "status", "processed") &&
              cJSON_AddNullToObject(o, "status_details");

    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* A new file of the store holding data[0..len); NULL when out of memory. */
static struct sim_file *new_file(struct sim_state *st, const char *name, const char *purpose,
                                 const char *data, size_t len)
{
    struct sim_file *f = calloc(1, sizeof(*f));

    if (!f)
        return NULL;
    f->filename = strdup(name);
    f->data = malloc(len + 1);
    if (!f->filename || !f->data) {
        sim_file_free(f);
        return NULL;
    }
    memcpy(f->data, data, len);
    f->data[len] = '\0';
    f->len = len;
    f->purpose = purpose;
    f->created_us = sim_now_us();
    sim_store_id(st, "file-sim", f->id, sizeof(f->id));
    return sim_store_add_file(st, f) ? f : NULL;
}

static void upload(struct sim_state *st, const struct sim_http *h, struct sim_reply *r,
                   char **log_body)
{
    struct sim_form form;
    const char *why;
    struct sim_file *f;

    if (!sim_form_parse(h, &form, &why)) {
        fail(r, 400, why, NULL, NULL);
        return;
    }
    if (form.has_file) {
        *log_body = malloc(form.file_len + 1);
        if (*log_body) {
            memcpy(*log_body, form.file, form.file_len);
            (*log_body)[form.file_len] = '\0';
        }
    }
    if (!form.purpose) {
        fail(r, 400, "Missing required parameter: 'purpose'.", "purpose", NULL);
    } else if (form.purpose_len != 5 || memcmp(form.purpose, "batch", 5) != 0) {
        fail(r, 400, "judge_sim serves purpose 'batch' only", "purpose", NULL);
    } else if (!form.has_file) {
        fail(r, 400, "Missing required parameter: 'file'.", "file", NULL);
    } else if (form.file_len > SIM_OPENAI_MAX_FILE) {
        fail(r, 400, "File is too large: a batch input file may be up to 200 MB.", "file", NULL);
    } else {
        f = new_file(st, form.filename[0] ? form.filename : "upload.jsonl", "batch", form.file,
                     form.file_len);
        if (f)
            send_json(r, file_json(f));
        else
            sim_reply_error(r, SIM_PROTO_OPENAI, 500, "judge_sim: out of memory");
    }
}

static void file_route(struct sim_state *st, const struct sim_http *h, const char *id,
                       const char *tail, struct sim_reply *r)
{
    struct sim_file *f = sim_store_file(st, id);
    char msg[160];
    cJSON *o;

    snprintf(msg, sizeof(msg), "No such File object: %.100s", id);
    if (!f) {
        fail(r, 404, msg, "id", NULL);
    } else if (!strcmp(h->method, "GET") && !*tail) {
        send_json(r, file_json(f));
    } else if (!strcmp(h->method, "GET") && !strcmp(tail, "/content")) {
        char *copy;

        if (strcmp(f->purpose, "batch") != 0 &&
            sim_results_outage(st, &f->outages, SIM_PROTO_OPENAI, r))
            return;
        copy = malloc(f->len + 1);
        if (copy)
            memcpy(copy, f->data, f->len + 1);
        sim_reply_text(r, 200, copy);
        r->len = copy ? f->len : 0;
        r->content_type = "application/octet-stream";
    } else if (!strcmp(h->method, "DELETE") && !*tail) {
        o = cJSON_CreateObject();
        if (!cJSON_AddStringToObject(o, "id", f->id) ||
            !cJSON_AddStringToObject(o, "object", "file") ||
            !cJSON_AddBoolToObject(o, "deleted", true)) {
            cJSON_Delete(o);
            o = NULL;
        }
        send_json(r, o);
        sim_store_drop_file(st, id);
    } else {
        sim_reply_error(r, SIM_PROTO_OPENAI, 404, "no such endpoint");
    }
}

/* --- validating a batch's input file --- */

static int add_error(cJSON *errors, const char *code, const char *msg, const char *param, long line)
{
    cJSON *e;

    if (cJSON_GetArraySize(errors) >= MAX_ERRORS)
        return 1;
    e = sim_attach(errors, NULL, cJSON_CreateObject());
    return e && cJSON_AddStringToObject(e, "code", code) &&
           cJSON_AddStringToObject(e, "message", msg) &&
           (param ? cJSON_AddStringToObject(e, "param", param) != NULL
                  : cJSON_AddNullToObject(e, "param") != NULL) &&
           (line > 0 ? cJSON_AddNumberToObject(e, "line", (double)line) != NULL
                     : cJSON_AddNullToObject(e, "line") != NULL);
}

/* One line's own faults (not duplicates), as BatchError entries; 0 when out of memory. */
static int check_line(cJSON *errors, const cJSON *item, long line, const char **model)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(item, "custom_id");
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(item, "method");
    const cJSON *url = cJSON_GetObjectItemCaseSensitive(item, "url");
    const cJSON *body = cJSON_GetObjectItemCaseSensitive(item, "body");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(body, "model");

    if (!cJSON_IsObject(item))
        return add_error(errors, "invalid_json_line", "This line is not parseable as valid JSON.",
                         NULL, line);
    if (!cJSON_IsString(id))
        return add_error(errors, "missing_required_parameter",
                         "Missing required parameter: 'custom_id'.", "custom_id", line);
    if (!cJSON_IsString(method) || strcmp(method->valuestring, "POST") != 0)
        return add_error(errors, "invalid_value", "The method of a batch request must be 'POST'.",
                         "method", line);
    if (!cJSON_IsString(url) || strcmp(url->valuestring, "/v1/chat/completions") != 0)
        return add_error(errors, "url_mismatch",
                         "The URL provided for this request does not match the batch endpoint.",
                         "url", line);
    if (!cJSON_IsObject(body))
        return add_error(errors, "missing_required_parameter",
                         "Missing required parameter: 'body'.", "body", line);
    if (cJSON_IsString(m)) {
        if (!*model)
            *model = m->valuestring;
        else if (strcmp(*model, m->valuestring) != 0)
            return add_error(errors, "model_mismatch",
                             "The model for this request does not match the model of the other "
                             "requests in the batch.",
                             "body.model", line);
    }
    return 1;
}

struct lines {
    cJSON **items; /* a parsed object per non-blank line, or NULL where it did not parse */
    long *at;      /* its 1-based line number */
    char **ids;    /* its custom_id, borrowed from items, or "" */
    size_t n;
};

static void lines_release(struct lines *ls)
{
    for (size_t i = 0; i < ls->n; i++)
        cJSON_Delete(ls->items[i]);
    free(ls->items);
    free(ls->at);
    free(ls->ids);
}

/* Splits data into non-blank lines and parses each; 0 when out of memory. */
static int parse_lines(const char *data, size_t len, struct lines *ls)
{
    size_t count = 0, line = 0;
    const char *p = data, *end = data + len;

    memset(ls, 0, sizeof(*ls));
    for (const char *q = p; q < end; q++)
        count += *q == '\n';
    count++;
    if (count > SIM_OPENAI_MAX_REQUESTS + 1)
        count = SIM_OPENAI_MAX_REQUESTS + 1; /* enough to tell there are too many */
    ls->items = calloc(count, sizeof(*ls->items));
    ls->at = calloc(count, sizeof(*ls->at));
    ls->ids = calloc(count, sizeof(*ls->ids));
    if (!ls->items || !ls->at || !ls->ids)
        return 0;
    while (p < end && ls->n < count) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;
        const cJSON *id;

        line++;
        if (e > p && e[-1] == '\r')
            e--;
        if (strspn(p, " \t\r") < (size_t)(e - p)) {
            ls->items[ls->n] = cJSON_ParseWithLength(p, (size_t)(e - p));
            id = cJSON_GetObjectItemCaseSensitive(ls->items[ls->n], "custom_id");
            ls->ids[ls->n] = cJSON_IsString(id) ? id->valuestring : "";
            ls->at[ls->n++] = (long)line;
        }
        p = nl ? nl + 1 : end;
    }
    return 1;
}

/* Fills b's requests from the input file, or b->errors with why it fails validation; 0 when
 * out of memory. */
static int load_requests(struct sim_state *st, struct sim_batch *b, const struct sim_file *f)
{
    struct lines ls = {0};
    cJSON *errors = cJSON_CreateArray();
    const char *model = NULL;
    bool *dup = NULL;
    int ok = errors && parse_lines(f->data, f->len, &ls);

    if (ok && ls.n == 0)
        ok = add_error(errors, "empty_file", "The input file is empty.", NULL, 0);
    else if (ok && ls.n > SIM_OPENAI_MAX_REQUESTS)
        ok = add_error(errors, "too_many_tasks", "The input file holds more than 50,000 requests.",
                       NULL, 0);
    else if (ok) {
        dup = malloc(ls.n * sizeof(*dup));
        ok = dup && sim_find_duplicates(ls.ids, ls.n, dup) >= 0;
        for (size_t i = 0; ok && i < ls.n; i++) {
            ok = check_line(errors, ls.items[i], ls.at[i], &model);
            if (ok && dup[i] && *ls.ids[i])
                ok = add_error(errors, "duplicate_custom_id",
                               "The custom_id for this request is a duplicate of another request. "
                               "The custom_id parameter must be unique for each request in a "
                               "batch.",
                               "custom_id", ls.at[i]);
        }
    }
    if (ok && st->cfg->batch_fail_validation)
        ok = add_error(errors, "invalid_request", "judge_sim: --batch-fail-validation", NULL, 0);
    if (ok && cJSON_GetArraySize(errors) == 0) {
        b->reqs = calloc(ls.n, sizeof(*b->reqs));
        ok = b->reqs != NULL;
        for (size_t i = 0; ok && i < ls.n; i++) {
            const cJSON *body = cJSON_GetObjectItemCaseSensitive(ls.items[i], "body");

            b->reqs[i].custom_id = strdup(ls.ids[i]);
            /* Compact, as Arbiter prints it: the bytes the synchronous route would get. */
            b->reqs[i].body = cJSON_PrintUnformatted(body);
            b->n = i + 1;
            ok = b->reqs[i].custom_id && b->reqs[i].body;
            if (ok)
                b->reqs[i].len = strlen(b->reqs[i].body);
        }
        if (ok && model) {
            b->model = strdup(model);
            ok = b->model != NULL;
        }
        cJSON_Delete(errors);
    } else if (ok) {
        b->errors = errors;
    } else {
        cJSON_Delete(errors);
    }
    lines_release(&ls);
    free(dup);
    return ok;
}

/* --- the batch object --- */

static bool add_time(cJSON *o, const char *key, long long us)
{
    return us ? cJSON_AddNumberToObject(o, key, (double)(us / 1000000)) != NULL
              : cJSON_AddNullToObject(o, key) != NULL;
}

static bool add_id(cJSON *o, const char *key, const char *id)
{
    return *id ? cJSON_AddStringToObject(o, key, id) != NULL
               : cJSON_AddNullToObject(o, key) != NULL;
}

static cJSON *batch_json(const struct sim_batch *b)
{
    cJSON *o = cJSON_CreateObject(), *errors = NULL, *counts;
    enum sim_batch_status s = b->status;
    bool ended = s == SIM_B_COMPLETED || s == SIM_B_EXPIRED || s == SIM_B_CANCELLED;
    bool ok = cJSON_AddStringToObject(o, "id", b->id) &&
              cJSON_AddStringToObject(o, "object", "batch") &&
              cJSON_AddStringToObject(o, "endpoint", "/v1/chat/completions") &&
              (!b->model || cJSON_AddStringToObject(o, "model", b->model));

    if (b->errors && s == SIM_B_FAILED) {
        errors = sim_attach(o, "errors", cJSON_CreateObject());
        ok = ok && cJSON_AddStringToObject(errors, "object", "list") &&
             sim_attach(errors, "data", cJSON_Duplicate(b->errors, true));
    } else {
        ok = ok && cJSON_AddNullToObject(o, "errors");
    }
    ok = ok && cJSON_AddStringToObject(o, "input_file_id", b->input_file_id) &&
         cJSON_AddStringToObject(o, "completion_window", "24h") &&
         cJSON_AddStringToObject(o, "status", status_name(s)) &&
         add_id(o, "output_file_id", b->output_file_id) &&
         add_id(o, "error_file_id", b->error_file_id) && add_time(o, "created_at", b->created_us) &&
         add_time(o, "in_progress_at", b->in_progress_us) &&
         add_time(o, "expires_at", b->created_us + 86400LL * 1000000) &&
         add_time(o, "finalizing_at", b->finalizing_us) &&
         add_time(o, "completed_at", s == SIM_B_COMPLETED ? b->ended_us : 0) &&
         add_time(o, "failed_at", s == SIM_B_FAILED ? b->ended_us : 0) &&
         add_time(o, "expired_at", s == SIM_B_EXPIRED ? b->ended_us : 0) &&
         add_time(o, "cancelling_at", b->cancelling_us) &&
         add_time(o, "cancelled_at", s == SIM_B_CANCELLED ? b->ended_us : 0);
    counts = sim_attach(o, "request_counts", cJSON_CreateObject());
    ok = ok &&
         cJSON_AddNumberToObject(counts, "total",
                                 s == SIM_B_VALIDATING || s == SIM_B_FAILED ? 0 : (double)b->n) &&
         cJSON_AddNumberToObject(counts, "completed", ended ? (double)b->n_ok : 0) &&
         cJSON_AddNumberToObject(counts, "failed", ended ? (double)(b->n - b->n_ok) : 0);
    ok = ok && (b->metadata ? sim_attach(o, "metadata", cJSON_Duplicate(b->metadata, true)) != NULL
                            : cJSON_AddNullToObject(o, "metadata") != NULL);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* --- ending a batch: its output and error files --- */

/* One line of an output or error file (BatchRequestOutput), onto buf. */
static void output_line(struct sim_buf *buf, const struct sim_batch *b,
                        const struct sim_batch_req *q)
{
    char id[64], request_id[64];
    const char *code = q->out == SIM_OUT_EXPIRED ? "batch_expired" : "batch_cancelled";
    const char *msg = q->out == SIM_OUT_EXPIRED
                          ? "This request could not be executed before the completion window "
                            "expired."
                          : "This request was not executed because the batch was cancelled.";

    sim_batch_req_id(b, q, "batch_req_sim", "id", id, sizeof(id));
    sim_batch_req_id(b, q, "", "request_id", request_id, sizeof(request_id));
    sim_buf_str(buf, "{\"id\":\"");
    sim_buf_str(buf, id);
    sim_buf_str(buf, "\",\"custom_id\":");
    sim_buf_json(buf, q->custom_id);
    if ((q->out == SIM_OUT_OK || q->out == SIM_OUT_ERRORED) && q->reply) {
        char status[16];

        snprintf(status, sizeof(status), "%d", q->status);
        sim_buf_str(buf, ",\"response\":{\"status_code\":");
        sim_buf_str(buf, status);
        sim_buf_str(buf, ",\"request_id\":\"");
        sim_buf_str(buf, request_id);
        /* The reply's own bytes, as the synchronous route sends them. */
        sim_buf_str(buf, "\",\"body\":");
        sim_buf_str(buf, q->reply);
        sim_buf_str(buf, "},\"error\":null}\n");
        return;
    }
    if (q->out == SIM_OUT_ERRORED) { /* out of memory while answering it */
        code = "server_error";
        msg = "judge_sim: out of memory";
    }
    sim_buf_str(buf, ",\"response\":null,\"error\":{\"code\":\"");
    sim_buf_str(buf, code);
    sim_buf_str(buf, "\",\"message\":");
    sim_buf_json(buf, msg);
    sim_buf_str(buf, "}}\n");
}

/* Writes the output file (the successes) and the error file (the rest), each only when it has
 * a line, in the batch's shuffled order; 0 when out of memory. */
static int write_files(struct sim_state *st, struct sim_batch *b)
{
    struct sim_buf out = {0}, err = {0};
    size_t *order = sim_batch_order(st, b), olen, elen;
    char name[96], *otext, *etext;
    struct sim_file *f;
    int ok = order != NULL;

    for (size_t i = 0; ok && i < b->n; i++) {
        const struct sim_batch_req *q = &b->reqs[order[i]];

        output_line(q->out == SIM_OUT_OK ? &out : &err, b, q);
    }
    free(order);
    otext = sim_buf_detach(&out, &olen);
    etext = sim_buf_detach(&err, &elen);
    ok = ok && otext && etext;
    if (ok && olen) {
        snprintf(name, sizeof(name), "%s_output.jsonl", b->id);
        f = new_file(st, name, "batch_output", otext, olen);
        ok = f != NULL;
        if (ok)
            snprintf(b->output_file_id, sizeof(b->output_file_id), "%s", f->id);
    }
    if (ok && elen) {
        snprintf(name, sizeof(name), "%s_error.jsonl", b->id);
        f = new_file(st, name, "batch_output", etext, elen);
        ok = f != NULL;
        if (ok)
            snprintf(b->error_file_id, sizeof(b->error_file_id), "%s", f->id);
    }
    free(otext);
    free(etext);
    return ok;
}

/* Answers the first done requests (the rest are cancelled) and ends the batch. */
static void finish(struct sim_state *st, struct sim_batch *b, size_t done, bool cancelled)
{
    long long now = sim_now_us();
    bool ok = sim_batch_run(st, b, done) && write_files(st, b);

    if (!b->in_progress_us)
        b->in_progress_us = now;
    if (!b->finalizing_us && !cancelled)
        b->finalizing_us = now;
    b->ended_us = now;
    if (!ok) {
        b->errors = cJSON_CreateArray();
        if (b->errors)
            add_error(b->errors, "server_error", "judge_sim: out of memory", NULL, 0);
        b->status = SIM_B_FAILED;
    } else {
        b->status = cancelled ? SIM_B_CANCELLED : b->n_expired ? SIM_B_EXPIRED : SIM_B_COMPLETED;
    }
}

/* Moves b to where its status reads so far put it (one read per step; see README). */
static void step(struct sim_state *st, struct sim_batch *b)
{
    unsigned long polls = (unsigned long)st->cfg->batch_polls;
    long long now = sim_now_us();

    if (b->status == SIM_B_CANCELLING) {
        finish(st, b, sim_batch_done_at_cancel(st->cfg, b), true);
    } else if (b->errors) {
        b->status = SIM_B_FAILED;
        b->ended_us = now;
    } else if (b->polls >= polls) {
        finish(st, b, b->n, false);
    } else {
        if (!b->in_progress_us)
            b->in_progress_us = now;
        b->status = polls >= 3 && b->polls == polls - 1 ? SIM_B_FINALIZING : SIM_B_IN_PROGRESS;
        if (b->status == SIM_B_FINALIZING)
            b->finalizing_us = now;
    }
}

static bool running(const struct sim_batch *b)
{
    return b->status == SIM_B_VALIDATING || b->status == SIM_B_IN_PROGRESS ||
           b->status == SIM_B_FINALIZING || b->status == SIM_B_CANCELLING;
}

/* --- the batch routes --- */

/* metadata: at most 16 pairs, keys up to 64 characters, string values up to 512. */
static bool metadata_ok(const cJSON *m)
{
    const cJSON *v;

    if (cJSON_IsNull(m))
        return true;
    if (!cJSON_IsObject(m) || cJSON_GetArraySize(m) > 16)
        return false;
    cJSON_ArrayForEach(v, m)
    {
        if (strlen(v->string) > 64 || !cJSON_IsString(v) || strlen(v->valuestring) > 512)
            return false;
    }
    return true;
}

static const char *string_of(const cJSON *req, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(req, key);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void create(struct sim_state *st, const struct sim_http *h, struct sim_reply *r)
{
    cJSON *req = cJSON_ParseWithLength(h->body, h->len);
    const char *file_id = string_of(req, "input_file_id"), *endpoint = string_of(req, "endpoint");
    const char *window = string_of(req, "completion_window");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(req, "metadata");
    struct sim_file *f = file_id ? sim_store_file(st, file_id) : NULL;
    struct sim_batch *b = NULL;

    if (!cJSON_IsObject(req))
        fail(r, 400, "We could not parse the JSON body of your request.", NULL, NULL);
    else if (!file_id)
        fail(r, 400, "Missing required parameter: 'input_file_id'.", "input_file_id", NULL);
    else if (!endpoint)
        fail(r, 400, "Missing required parameter: 'endpoint'.", "endpoint", NULL);
    else if (strcmp(endpoint, "/v1/chat/completions") != 0)
        fail(r, 400, "judge_sim serves the endpoint '/v1/chat/completions' only", "endpoint", NULL);
    else if (!window)
        fail(r, 400, "Missing required parameter: 'completion_window'.", "completion_window", NULL);
    else if (strcmp(window, "24h") != 0)
        fail(r, 400, "Invalid value for 'completion_window': only '24h' is supported.",
             "completion_window", NULL);
    else if (meta && !metadata_ok(meta))
        fail(r, 400, "Invalid 'metadata': at most 16 string values, keys up to 64 characters.",
             "metadata", NULL);
    else if (!f)
        fail(r, 404, "No such File object: the input_file_id names no uploaded file",
             "input_file_id", NULL);
    else if (strcmp(f->purpose, "batch") != 0)
        fail(r, 400, "The input file must be uploaded with purpose 'batch'.", "input_file_id",
             NULL);
    else
        b = calloc(1, sizeof(*b));
    if (b) {
        b->proto = SIM_PROTO_OPENAI;
        b->status = SIM_B_VALIDATING;
        b->created_us = sim_now_us();
        snprintf(b->input_file_id, sizeof(b->input_file_id), "%s", f->id);
        sim_store_id(st, "batch_sim", b->id, sizeof(b->id));
        if (cJSON_IsObject(meta))
            b->metadata = cJSON_Duplicate(meta, true);
        if ((cJSON_IsObject(meta) && !b->metadata) || !load_requests(st, b, f)) {
            sim_batch_free(b);
            b = NULL;
        } else if (sim_store_add_batch(st, b)) {
            if (st->cfg->batch_polls == 0)
                step(st, b); /* ended before anyone asked */
            send_json(r, batch_json(b));
        } else {
            b = NULL;
        }
        if (!b)
            sim_reply_error(r, SIM_PROTO_OPENAI, 500, "judge_sim: out of memory");
    } else if (!r->text && r->status == 0) {
        sim_reply_error(r, SIM_PROTO_OPENAI, 500, "judge_sim: out of memory");
    }
    cJSON_Delete(req);
}

static void list(struct sim_state *st, const struct sim_http *h, struct sim_reply *r)
{
    size_t limit = sim_query_limit(h->limit, 20, 100), n;
    struct sim_batch *page[100];
    cJSON *o, *data;
    bool more, ok;

    if (!limit) {
        fail(r, 400, "Invalid 'limit': it must be a whole number from 1 to 100.", "limit", NULL);
        return;
    }
    n = sim_store_page(st, SIM_PROTO_OPENAI, h->after, NULL, limit, page, &more);
    o = cJSON_CreateObject();
    ok = cJSON_AddStringToObject(o, "object", "list") != NULL;
    data = sim_attach(o, "data", cJSON_CreateArray());
    for (size_t i = 0; ok && i < n; i++)
        ok = sim_attach(data, NULL, batch_json(page[i])) != NULL;
    ok = ok &&
         (n ? cJSON_AddStringToObject(o, "first_id", page[0]->id) != NULL &&
                  cJSON_AddStringToObject(o, "last_id", page[n - 1]->id) != NULL
            : cJSON_AddNullToObject(o, "first_id") && cJSON_AddNullToObject(o, "last_id")) &&
         cJSON_AddBoolToObject(o, "has_more", more);
    if (!ok) {
        cJSON_Delete(o);
        o = NULL;
    }
    send_json(r, o);
}

static void batch_route(struct sim_state *st, const struct sim_http *h, const char *id,
                        const char *tail, struct sim_reply *r)
{
    struct sim_batch *b = sim_store_batch(st, SIM_PROTO_OPENAI, id);
    char msg[160];

    if (!b) {
        snprintf(msg, sizeof(msg), "No batch found with id '%.100s'.", id);
        fail(r, 404, msg, NULL, NULL);
    } else if (!strcmp(h->method, "GET") && !*tail) {
        if (running(b) && sim_batch_outage(st, b, r))
            return;
        if (running(b)) {
            b->polls++;
            step(st, b);
        }
        send_json(r, batch_json(b));
    } else if (!strcmp(h->method, "POST") && !strcmp(tail, "/cancel")) {
        if (b->status == SIM_B_CANCELLING) {
            send_json(r, batch_json(b));
        } else if (running(b)) {
            b->status = SIM_B_CANCELLING;
            b->cancelling_us = sim_now_us();
            b->polls_cancel = b->polls;
            send_json(r, batch_json(b));
        } else {
            snprintf(msg, sizeof(msg), "Cannot cancel a batch with status '%s'.",
                     status_name(b->status));
            fail(r, 400, msg, NULL, NULL);
        }
    } else {
        sim_reply_error(r, SIM_PROTO_OPENAI, 404, "no such endpoint");
    }
}

/* Splits url = prefix "/" id [tail]; returns false when url is not under prefix. */
static bool split(const char *url, const char *prefix, char *id, size_t cap, const char **tail)
{
    size_t n = strlen(prefix), k;

    if (strncmp(url, prefix, n) != 0 || url[n] != '/')
        return false;
    k = strcspn(url + n + 1, "/");
    if (k == 0 || k >= cap)
        return false;
    memcpy(id, url + n + 1, k);
    id[k] = '\0';
    *tail = url + n + 1 + k;
    return true;
}

void sim_openai_batch(struct sim_state *st, const struct sim_http *h, struct sim_reply *r,
                      char **log_body)
{
    const char *tail;
    char id[128];
    bool get = !strcmp(h->method, "GET"), post = !strcmp(h->method, "POST");

    pthread_mutex_lock(&st->batch_lock);
    if (post && !strcmp(h->url, "/v1/files"))
        upload(st, h, r, log_body);
    else if (post && !strcmp(h->url, "/v1/batches"))
        create(st, h, r);
    else if (get && !strcmp(h->url, "/v1/batches"))
        list(st, h, r);
    else if (split(h->url, "/v1/files", id, sizeof(id), &tail))
        file_route(st, h, id, tail, r);
    else if (split(h->url, "/v1/batches", id, sizeof(id), &tail))
        batch_route(st, h, id, tail, r);
    else
        sim_reply_error(r, SIM_PROTO_OPENAI, 404, "no such endpoint");
    pthread_mutex_unlock(&st->batch_lock);
}
