/*
 * batch_client.c - the client of a provider's batch API (include/arbiter/batch.h): its
 * headers and key, one HTTP request at a time on a curl easy handle (batch traffic is a few
 * requests per batch and poll, so the judge's multi transport is not needed), tried again on
 * network errors, 408, 429 and 5xx, every reply scrubbed of the key before anything reads it.
 * What the requests and replies look like is batch_openai.c's and batch_anthropic.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "batch_int.h"

#define BATCH_REPLY_MAX ((size_t)1 << 30) /* an output file of tens of thousands of replies */

enum arb_status arb_batch_client_new(const struct arb_judge_config *cfg, const char *api_key,
                                     struct arb_batch_client **out, struct arb_err *err)
{
    struct arb_batch_client *c;
    const char *base = cfg->base_url ? cfg->base_url : "";
    size_t len = strlen(base), n;
    enum arb_status rc;

    *out = NULL;
    if (cfg->provider == ARB_JUDGE_COMMAND)
        return arb_err_set(err, ARB_EUSAGE, "a command judge has no batch API");
    c = calloc(1, sizeof(*c));
    if (!c)
        return ARB_ENOMEM;
    while (len > 0 && base[len - 1] == '/')
        len--;
    snprintf(c->base, sizeof(c->base), "%.*s", (int)len, base);
    c->cfg = cfg;
    n = strlen(api_key ? api_key : "") + 32;
    c->key_header = calloc(1, n); /* wiped on free: NUL until written */
    if (!c->key_header) {
        free(c);
        return ARB_ENOMEM;
    }
    rc = judge_secrets_init(&c->secrets, api_key, cfg->base_url);
    if (!rc) /* the config's extra headers go on every call, as on the synchronous path */
        rc = judge_header_lines(cfg, &c->secrets, &c->extra, err);
    if (rc) {
        arb_batch_client_free(c);
        return rc;
    }
    if (cfg->provider == ARB_JUDGE_ANTHROPIC) {
        snprintf(c->key_header, n, "x-api-key: %s", api_key ? api_key : "");
        c->headers[1] = "anthropic-version: 2023-06-01";
    } else {
        snprintf(c->key_header, n, "Authorization: Bearer %s", api_key ? api_key : "");
        c->headers[1] = "Accept: application/json";
    }
    c->headers[0] = c->key_header;
    *out = c;
    return ARB_OK;
}

void arb_batch_client_free(struct arb_batch_client *c)
{
    if (!c)
        return;
    judge_wipe_free(c->key_header);
    judge_header_lines_free(c->extra, c->cfg->n_headers);
    judge_secrets_release(&c->secrets);
    free(c);
}

enum arb_status arb_batch_token(char out[17])
{
    unsigned char b[8];

    if (!judge_random_bytes(NULL, b, sizeof(b)))
        return ARB_EINTERNAL;
    arb_hex(b, sizeof(b), out);
    return ARB_OK;
}

int arb_batch_client_retryable(const struct arb_batch_client *c)
{
    long s = c->last_status;

    return s == 0 || s == 408 || s == 409 || s == 429 || s >= 500;
}

const char *arb_batch_client_provider(const struct arb_batch_client *c)
{
    return c->cfg->provider == ARB_JUDGE_ANTHROPIC ? "anthropic" : "openai";
}

void batch_reply_release(struct batch_reply *r)
{
    arb_buf_release(&r->body);
}

static size_t on_data(char *p, size_t size, size_t n, void *ctx)
{
    struct arb_buf *b = ctx;

    return arb_buf_add(b, p, size * n) == ARB_OK ? size * n : 0;
}

/* One attempt: *code curl's result, r->status and r->body the reply. */
static enum arb_status attempt(struct arb_batch_client *c, const char *method, const char *url,
                               const char *body, size_t len, const char *upload_name,
                               struct batch_reply *r, CURLcode *code)
{
    CURL *h = curl_easy_init();
    struct curl_slist *hs = NULL, *x;
    curl_mime *mime = NULL;
    size_t i, n = 2 + c->cfg->n_headers + !upload_name;

    if (!h)
        return ARB_ENOMEM;
    /* The key and the provider's header, the config's, and the body's type (a multipart
     * upload sets its own). */
    for (i = 0; i < n; i++) {
        const char *line = i < 2                        ? c->headers[i]
                           : i < 2 + c->cfg->n_headers ? c->extra[i - 2]
                                                        : "Content-Type: application/json";

        if (!(x = curl_slist_append(hs, line))) {
            curl_slist_free_all(hs);
            curl_easy_cleanup(h);
            return ARB_ENOMEM;
        }
        hs = x;
    }
    arb_buf_reset(&r->body);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hs);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &r->body);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    /* A results file may be large: the config's timeout per attempt, at least five minutes. */
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS,
                     (long)(c->cfg->timeout_s > 300 ? c->cfg->timeout_s * 1000 : 300000));
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    if (upload_name) {
        curl_mimepart *part;

        mime = curl_mime_init(h);
        part = mime ? curl_mime_addpart(mime) : NULL;
        if (part) {
            curl_mime_name(part, "purpose");
            curl_mime_data(part, "batch", CURL_ZERO_TERMINATED);
            part = curl_mime_addpart(mime);
        }
        if (part) {
            curl_mime_name(part, "file");
            curl_mime_filename(part, upload_name);
            curl_mime_type(part, "application/jsonl");
            curl_mime_data(part, body, len);
        }
        curl_easy_setopt(h, CURLOPT_MIMEPOST, mime);
    } else if (strcmp(method, "POST") == 0) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    }
    *code = curl_easy_perform(h);
    r->status = 0;
    if (*code == CURLE_OK)
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &r->status);
    curl_mime_free(mime);
    curl_slist_free_all(hs);
    curl_easy_cleanup(h);
    return ARB_OK;
}

/* The reply's text with every secret replaced (in place). */
static enum arb_status scrub(struct arb_batch_client *c, struct batch_reply *r)
{
    char *clean = NULL;
    size_t len = 0;

    if (!r->body.len)
        return ARB_OK;
    if (judge_scrub(&c->secrets, r->body.ptr, r->body.len, &clean, &len) != ARB_OK)
        return ARB_ENOMEM;
    if (clean) {
        arb_buf_reset(&r->body);
        if (arb_buf_add(&r->body, clean, len) != ARB_OK) {
            free(clean);
            return ARB_ENOMEM;
        }
        free(clean);
    }
    return ARB_OK;
}

static void pause_s(double s)
{
    struct timespec ts;

    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    nanosleep(&ts, NULL);
}

enum arb_status batch_http(struct arb_batch_client *c, const char *what, const char *method,
                           const char *url, const char *body, size_t len, const char *upload_name,
                           struct batch_reply *r, struct arb_err *err)
{
    int tries = 0, max = c->cfg->max_retries;
    double backoff = 0.5;
    CURLcode code = CURLE_OK;
    struct judge_provider_error pe;
    enum arb_status st;

    arb_buf_init(&r->body, BATCH_REPLY_MAX);
    if (c->once)
        max = 0;
    c->once = 0;
    for (;;) {
        st = attempt(c, method, url, body, len, upload_name, r, &code);
        if (!st)
            st = scrub(c, r);
        if (st)
            return st;
        c->last_status = code == CURLE_OK ? r->status : 0;
        if (code == CURLE_OK && r->status >= 200 && r->status < 300)
            return ARB_OK;
        if (code == CURLE_WRITE_ERROR) {
            /* The reply outgrew BATCH_REPLY_MAX (or memory): the same again would too. */
            c->last_status = -1;
            return arb_err_set(err, ARB_EREMOTE, "cannot %s: the reply is over %zu MiB", what,
                               BATCH_REPLY_MAX >> 20);
        }
        if (tries >= max ||
            (code == CURLE_OK && r->status != 408 && r->status != 429 && r->status < 500))
            break;
        pause_s(backoff);
        backoff = backoff * 2 > 30 ? 30 : backoff * 2;
        tries++;
    }
    if (code != CURLE_OK)
        return arb_err_set(err, ARB_EREMOTE, "cannot %s: %s (after %d attempts)", what,
                           curl_easy_strerror(code), tries + 1);
    memset(&pe, 0, sizeof(pe));
    judge_provider_error(r->body.ptr ? r->body.ptr : "", &pe);
    if (r->status == 401 || r->status == 403)
        return arb_err_set(err, ARB_EREMOTE,
                           "judge authentication failed (HTTP %ld) when trying to %s: check "
                           "the key in $%s",
                           r->status, what, c->cfg->api_key_env ? c->cfg->api_key_env : "");
    return arb_err_set(err, ARB_EREMOTE, "cannot %s: HTTP %ld%s%s", what, r->status,
                       pe.message[0] ? ": " : "", pe.message);
}

cJSON *batch_json(const struct batch_reply *r, const char *what, struct arb_err *err)
{
    cJSON *doc = r->body.ptr ? cJSON_ParseWithLength(r->body.ptr, r->body.len) : NULL;

    if (!cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        arb_err_set(err, ARB_EREMOTE, "cannot %s: the reply is not a JSON object", what);
        return NULL;
    }
    return doc;
}

const char *batch_str(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);

    return cJSON_IsString(v) ? v->valuestring : "";
}

void batch_copy(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

void batch_iso(long long t, char *out)
{
    time_t tt = (time_t)t;
    struct tm tm;

    if (!gmtime_r(&tt, &tm) || !strftime(out, 40, "%Y-%m-%dT%H:%M:%SZ", &tm))
        out[0] = '\0';
}

long long batch_time(const char *iso)
{
    int y, mo, d, h, mi, s;
    long long era, yoe, doy, doe;

    if (!iso || sscanf(iso, "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &s) != 6 || mo < 1 ||
        mo > 12)
        return -1;
    /* Days since 1970-01-01 (Howard Hinnant's days_from_civil); offsets other than Z are not
     * used by either provider. */
    y -= mo <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return (era * 146097 + doe - 719468) * 86400 + h * 3600 + mi * 60 + s;
}

enum arb_status batch_lines(const char *text, int (*fn)(void *ctx, const cJSON *line), void *ctx,
                            struct arb_err *err)
{
    const char *p = text ? text : "";

    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        cJSON *line = n ? cJSON_ParseWithLength(p, n) : NULL;
        int stop = 0;

        if (cJSON_IsObject(line))
            stop = fn(ctx, line);
        cJSON_Delete(line);
        if (stop)
            return arb_err_set(err, ARB_EINTERNAL, "stopped while reading batch results");
        p += n + (nl ? 1 : 0);
    }
    return ARB_OK;
}

/* One request of the payload: OpenAI {"custom_id", "method", "url", "body"}; Anthropic
 * {"custom_id", "params"}.  The body is the synchronous request, as it would be sent. */
static cJSON *payload_item(const struct arb_batch_client *c, const char *id, const char *body)
{
    cJSON *o = cJSON_CreateObject(), *b = cJSON_Parse(body);
    int anthropic = c->cfg->provider == ARB_JUDGE_ANTHROPIC;

    if (!o || !b || !cJSON_AddStringToObject(o, "custom_id", id) ||
        (!anthropic && (!cJSON_AddStringToObject(o, "method", "POST") ||
                        !cJSON_AddStringToObject(o, "url", "/v1/chat/completions"))) ||
        !cJSON_AddItemToObject(o, anthropic ? "params" : "body", b)) {
        cJSON_Delete(b);
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

enum arb_status arb_batch_payload(const struct arb_batch_client *c, const char *const *ids,
                                  const char *const *bodies, size_t n, char **out, size_t *len,
                                  struct arb_err *err)
{
    struct arb_buf b;
    size_t i;
    enum arb_status st = ARB_OK;
    int anthropic = c->cfg->provider == ARB_JUDGE_ANTHROPIC;

    (void)err;
    *out = NULL;
    arb_buf_init(&b, 0);
    if (anthropic)
        st = arb_buf_adds(&b, "{\"requests\":[");
    for (i = 0; !st && i < n; i++) {
        cJSON *item = payload_item(c, ids[i], bodies[i]);
        char *text = item ? cJSON_PrintUnformatted(item) : NULL;

        if (!text)
            st = ARB_ENOMEM;
        if (!st && anthropic && i)
            st = arb_buf_addc(&b, ',');
        if (!st)
            st = arb_buf_adds(&b, text);
        if (!st && !anthropic)
            st = arb_buf_addc(&b, '\n');
        cJSON_free(text);
        cJSON_Delete(item);
    }
    if (!st && anthropic)
        st = arb_buf_adds(&b, "]}");
    if (!st && !(*out = arb_buf_detach(&b, len)))
        st = ARB_ENOMEM;
    arb_buf_release(&b);
    return st;
}

enum arb_status arb_batch_upload(struct arb_batch_client *c, const char *token, const char *payload,
                                 size_t len, char *file_id, struct arb_err *err)
{
    struct batch_reply r;
    char url[1100], name[64];
    cJSON *doc;
    enum arb_status st;

    if (c->cfg->provider == ARB_JUDGE_ANTHROPIC)
        return arb_err_set(err, ARB_EUSAGE, "Anthropic's batches take no input file");
    snprintf(url, sizeof(url), "%s/files", c->base);
    snprintf(name, sizeof(name), "arbiter-%s.jsonl", token);
    st = batch_http(c, "upload the batch's input file", "POST", url, payload, len, name, &r, err);
    doc = st ? NULL : batch_json(&r, "upload the batch's input file", err);
    if (!st && !doc)
        st = ARB_EREMOTE;
    if (!st && !batch_str(doc, "id")[0])
        st = arb_err_set(err, ARB_EREMOTE, "the uploaded file's reply has no id");
    if (!st)
        batch_copy(file_id, 256, batch_str(doc, "id"));
    cJSON_Delete(doc);
    batch_reply_release(&r);
    return st;
}

enum arb_status arb_batch_create(struct arb_batch_client *c, const char *token,
                                 const char *input_file_id, const char *payload, size_t len,
                                 struct arb_batch_remote *out, struct arb_err *err)
{
    memset(out, 0, sizeof(*out));
    /* Never sent twice blindly: a create that timed out may have made the batch, so the
     * caller looks for it (arb_batch_find) before it sends the create again. */
    c->once = 1;
    if (c->cfg->provider == ARB_JUDGE_ANTHROPIC)
        return batch_anthropic_create(c, payload, len, out, err);
    return batch_openai_create(c, token, input_file_id, out, err);
}

enum arb_status arb_batch_get(struct arb_batch_client *c, const char *id,
                              struct arb_batch_remote *out, struct arb_err *err)
{
    memset(out, 0, sizeof(*out));
    if (c->cfg->provider == ARB_JUDGE_ANTHROPIC)
        return batch_anthropic_get(c, id, out, err);
    return batch_openai_get(c, id, out, err);
}

enum arb_status arb_batch_find(struct arb_batch_client *c, const char *token, const char *since,
                               long long n, int (*known)(void *ctx, const char *id), void *ctx,
                               struct arb_batch_remote *out, int *found, struct arb_err *err)
{
    memset(out, 0, sizeof(*out));
    *found = 0;
    if (c->cfg->provider == ARB_JUDGE_ANTHROPIC)
        return batch_anthropic_find(c, token, since, n, known, ctx, out, found, err);
    return batch_openai_find(c, token, since, out, found, err);
}

enum arb_status arb_batch_results(struct arb_batch_client *c, const struct arb_batch_remote *b,
                                  int (*fn)(void *ctx, const struct arb_batch_result_line *r),
                                  void *ctx, struct arb_err *err)
{
    if (c->cfg->provider == ARB_JUDGE_ANTHROPIC)
        return batch_anthropic_results(c, b, fn, ctx, err);
    return batch_openai_results(c, b, fn, ctx, err);
}
