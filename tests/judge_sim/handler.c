/*
 * handler.c - the test judge's HTTP side: routes, auth, scripted faults, and the OpenAI and
 * Anthropic reply bodies.
 *
 * libmicrohttpd runs one thread per connection, so the latency and hang sleeps here delay only
 * the request that drew them. Every decision is taken from the request body's hash, the --seed,
 * and how many times this exact body arrived before (the attempt), then logged, then slept on,
 * then sent. Building values from a schema is gen.c's; the attempt table and log are state.c's.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "judge_sim.h"

enum proto { PROTO_NONE, PROTO_OPENAI, PROTO_ANTHROPIC };

/* One request's body, gathered over the access-handler calls. */
struct conn {
    char *body;
    size_t len;
    size_t cap;
    bool too_big;
    char *hashed; /* body with Arbiter's fence code masked (fence.c), or NULL: body */
};

static int append(struct conn *c, const char *data, size_t n)
{
    if (c->too_big || c->len + n > SIM_MAX_BODY) {
        c->too_big = true;
        return 1;
    }
    if (c->len + n + 1 > c->cap) {
        size_t cap = c->cap ? c->cap : 4096;
        char *p;

        while (cap < c->len + n + 1)
            cap *= 2;
        p = realloc(c->body, cap);
        if (!p)
            return 0;
        c->body = p;
        c->cap = cap;
    }
    memcpy(c->body + c->len, data, n);
    c->len += n;
    c->body[c->len] = '\0';
    return 1;
}

/* A digest of (body, seed, label, attempt): the per-request randomness. label NULL and attempt 0
 * give the reply seed; the other labels name one decision each, so they are independent. */
static int draw(unsigned char out[SIM_DIGEST_LEN], const struct conn *c, unsigned long long seed,
                const char *label, unsigned long attempt)
{
    char tail[96];
    int n = snprintf(tail, sizeof(tail), "\n%llu\n%s\n%lu", seed, label ? label : "", attempt);
    const void *parts[2] = {c->hashed ? c->hashed : c->body ? c->body : "", tail};
    size_t lens[2] = {c->len, (size_t)n};

    return n > 0 && (size_t)n < sizeof(tail) && sim_digest(out, 2, parts, lens);
}

static bool fires(const struct conn *c, const struct sim_config *cfg, const char *label,
                  unsigned long attempt, double rate)
{
    unsigned char d[SIM_DIGEST_LEN];

    if (rate <= 0)
        return false;
    return draw(d, c, cfg->seed, label, attempt) && sim_digest_unit(d) < rate;
}

static void set_text(struct sim_reply *r, int status, char *text)
{
    free(r->text);
    r->status = status;
    r->text = text;
    r->len = text ? strlen(text) : 0;
}

static const char *anthropic_type(int status)
{
    switch (status) {
    case 400:
        return "invalid_request_error";
    case 401:
        return "authentication_error";
    case 404:
        return "not_found_error";
    case 413:
        return "request_too_large";
    case 429:
        return "rate_limit_error";
    case 503:
    case 529:
        return "overloaded_error";
    default:
        return "api_error";
    }
}

static const char *openai_type(int status)
{
    if (status == 429)
        return "rate_limit_exceeded";
    if (status >= 500)
        return "server_error";
    return "invalid_request_error";
}

/* Adds item under key (or to the array when key is NULL) and returns it; on any failure,
 * including a NULL parent, frees item and returns NULL so the failure carries down a chain. */
static cJSON *attach(cJSON *parent, const char *key, cJSON *item)
{
    bool ok;

    if (!parent || !item) {
        cJSON_Delete(item);
        return NULL;
    }
    ok = key ? cJSON_AddItemToObject(parent, key, item) : cJSON_AddItemToArray(parent, item);
    if (!ok) {
        cJSON_Delete(item);
        return NULL;
    }
    return item;
}

/* An error in the protocol's own shape; text NULL when out of memory. */
static void set_error(struct sim_reply *r, enum proto p, int status, const char *msg)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *err;
    bool ok;

    if (p == PROTO_ANTHROPIC) {
        ok = cJSON_AddStringToObject(root, "type", "error") != NULL;
        err = attach(root, "error", cJSON_CreateObject());
        ok = ok && cJSON_AddStringToObject(err, "type", anthropic_type(status)) &&
             cJSON_AddStringToObject(err, "message", msg);
    } else {
        err = attach(root, "error", cJSON_CreateObject());
        ok = cJSON_AddStringToObject(err, "message", msg) &&
             cJSON_AddStringToObject(err, "type", openai_type(status)) &&
             cJSON_AddNullToObject(err, "param") &&
             (status == 401 ? cJSON_AddStringToObject(err, "code", "invalid_api_key") != NULL
                            : cJSON_AddNullToObject(err, "code") != NULL);
    }
    set_text(r, status, ok ? cJSON_PrintUnformatted(root) : NULL);
    cJSON_Delete(root);
}

static const cJSON *member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

static void hex_id(char *out, size_t cap, const char *prefix, const unsigned char *d)
{
    size_t n = (size_t)snprintf(out, cap, "%s", prefix);

    for (int i = 0; i < 12 && n + 3 <= cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%02x", d[i]);
}

static const char *model_of(const cJSON *req)
{
    const cJSON *m = member(req, "model");

    return cJSON_IsString(m) ? m->valuestring : "judge-sim";
}

/* The reply value for schema, broken on purpose when invalid is set. */
static cJSON *make_value(struct sim_gen *g, const cJSON *schema, bool invalid)
{
    cJSON *v;

    g->root = schema;
    v = sim_gen_value(g, schema);
    if (v && invalid)
        v = sim_gen_break(g, schema, v);
    return v;
}

/* fixed, when not NULL, replaces the request's schema (--reply-format). */
static char *openai_body(struct sim_gen *g, const cJSON *req, const cJSON *fixed, size_t body_len,
                         bool invalid, const unsigned char *d)
{
    const cJSON *rf = member(req, "response_format");
    const cJSON *schema = fixed;
    cJSON *root, *value, *choices, *choice, *msg, *usage;
    char *content, *text = NULL;
    char id[64];
    bool ok;

    if (!fixed && cJSON_IsString(member(rf, "type")) &&
        !strcmp(member(rf, "type")->valuestring, "json_schema"))
        schema = member(member(rf, "json_schema"), "schema");
    value = make_value(g, cJSON_IsObject(schema) ? schema : NULL, invalid);
    content = value ? cJSON_PrintUnformatted(value) : NULL;
    cJSON_Delete(value);
    if (!content)
        return NULL;
    hex_id(id, sizeof(id), "chatcmpl-sim", d);
    root = cJSON_CreateObject();
    ok = cJSON_AddStringToObject(root, "id", id) &&
         cJSON_AddStringToObject(root, "object", "chat.completion") &&
         cJSON_AddStringToObject(root, "model", model_of(req));
    choices = attach(root, "choices", cJSON_CreateArray());
    choice = attach(choices, NULL, cJSON_CreateObject());
    ok = ok && cJSON_AddNumberToObject(choice, "index", 0);
    msg = attach(choice, "message", cJSON_CreateObject());
    ok = ok && cJSON_AddStringToObject(msg, "role", "assistant") &&
         cJSON_AddStringToObject(msg, "content", content) &&
         cJSON_AddStringToObject(choice, "finish_reason", "stop");
    usage = attach(root, "usage", cJSON_CreateObject());
    ok = ok && cJSON_AddNumberToObject(usage, "prompt_tokens", (double)(body_len / 4)) &&
         cJSON_AddNumberToObject(usage, "completion_tokens", (double)(strlen(content) / 4)) &&
         cJSON_AddNumberToObject(usage, "total_tokens",
                                 (double)(body_len / 4 + strlen(content) / 4));
    if (ok)
        text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    free(content);
    return text;
}

/* The tool the request forces with tool_choice, else its first tool; NULL without tools. */
static const cJSON *pick_tool(const cJSON *req)
{
    const cJSON *tools = member(req, "tools"), *choice = member(req, "tool_choice");
    const cJSON *want = member(choice, "name"), *t;

    if (!cJSON_IsArray(tools) || cJSON_GetArraySize(tools) == 0)
        return NULL;
    if (cJSON_IsString(want)) {
        cJSON_ArrayForEach(t, tools)
        {
            const cJSON *name = member(t, "name");

            if (cJSON_IsString(name) && !strcmp(name->valuestring, want->valuestring))
                return t;
        }
    }
    return cJSON_GetArrayItem(tools, 0);
}

static char *anthropic_body(struct sim_gen *g, const cJSON *req, const cJSON *fixed,
                            size_t body_len, bool invalid, const unsigned char *d)
{
    const cJSON *tool = pick_tool(req), *schema = NULL, *name = member(tool, "name");
    cJSON *root, *value, *content, *block, *usage;
    char *out_text = NULL, *text = NULL;
    char id[64], tool_id[64];
    bool ok;

    if (tool)
        schema = member(tool, "input_schema");
    else /* structured outputs: the schema rides in output_format */
        schema = member(member(req, "output_format"), "schema");
    if (fixed)
        schema = fixed;
    value = make_value(g, cJSON_IsObject(schema) ? schema : NULL, invalid);
    out_text = value ? cJSON_PrintUnformatted(value) : NULL;
    if (!out_text) {
        cJSON_Delete(value);
        return NULL;
    }
    hex_id(id, sizeof(id), "msg_sim", d);
    hex_id(tool_id, sizeof(tool_id), "toolu_sim", d + 12);
    root = cJSON_CreateObject();
    ok = cJSON_AddStringToObject(root, "id", id) &&
         cJSON_AddStringToObject(root, "type", "message") &&
         cJSON_AddStringToObject(root, "role", "assistant") &&
         cJSON_AddStringToObject(root, "model", model_of(req));
    content = attach(root, "content", cJSON_CreateArray());
    block = attach(content, NULL, cJSON_CreateObject());
    ok = ok && block;
    if (ok && tool) {
        ok = cJSON_AddStringToObject(block, "type", "tool_use") &&
             cJSON_AddStringToObject(block, "id", tool_id) &&
             cJSON_AddStringToObject(block, "name",
                                     cJSON_IsString(name) ? name->valuestring : "tool");
        ok = attach(block, "input", value) && ok;
        value = NULL; /* block owns it now, or attach freed it */
    } else if (ok) {
        ok = cJSON_AddStringToObject(block, "type", "text") &&
             cJSON_AddStringToObject(block, "text", out_text);
    }
    ok = ok && cJSON_AddStringToObject(root, "stop_reason", tool ? "tool_use" : "end_turn") &&
         cJSON_AddNullToObject(root, "stop_sequence");
    usage = attach(root, "usage", cJSON_CreateObject());
    ok = ok && cJSON_AddNumberToObject(usage, "input_tokens", (double)(body_len / 4)) &&
         cJSON_AddNumberToObject(usage, "output_tokens", (double)(strlen(out_text) / 4));
    if (ok)
        text = cJSON_PrintUnformatted(root);
    cJSON_Delete(value);
    cJSON_Delete(root);
    free(out_text);
    return text;
}

/* --usage off: the reply without its "usage" member (frees text); NULL when out of memory. */
static char *without_usage(char *text)
{
    cJSON *root = cJSON_Parse(text);
    char *out = NULL;

    free(text);
    if (root) {
        cJSON_DeleteItemFromObjectCaseSensitive(root, "usage");
        out = cJSON_PrintUnformatted(root);
    }
    cJSON_Delete(root);
    return out;
}

/* A 200 reply, possibly schema-invalid; malformed cuts the finished text in half. */
static void answer(struct sim_reply *r, const struct sim_config *cfg, enum proto p,
                   const struct conn *c, const cJSON *req, unsigned long attempt)
{
    unsigned char seed_d[SIM_DIGEST_LEN], bias_d[SIM_DIGEST_LEN];
    struct sim_gen g = {0};
    bool malformed = fires(c, cfg, "malformed", attempt, cfg->rate_malformed);
    bool invalid = !malformed && fires(c, cfg, "invalid", attempt, cfg->rate_invalid);
    char *text;

    /* The reply and the bias draw ignore the attempt: a retry gets the reply the failed
     * attempt would have got. */
    if (!draw(seed_d, c, cfg->seed, NULL, 0) || !draw(bias_d, c, cfg->seed, "prefer-a", 0)) {
        set_error(r, p, 500, "judge_sim: digest failed");
        return;
    }
    sim_rng_seed(&g.rng, seed_d);
    g.force_a = cfg->prefer_a > 0 && sim_digest_unit(bias_d) < cfg->prefer_a;
    if (p == PROTO_OPENAI)
        text = openai_body(&g, req, cfg->reply_schema, c->len, invalid, seed_d);
    else
        text = anthropic_body(&g, req, cfg->reply_schema, c->len, invalid, seed_d);
    if (text && cfg->no_usage)
        text = without_usage(text);
    if (!text) {
        set_error(r, p, 500, "judge_sim: out of memory");
        return;
    }
    set_text(r, 200, text);
    if (malformed) {
        r->len = r->len > 1 ? r->len / 2 : 1;
        r->fault = "malformed";
    } else if (invalid) {
        r->fault = "invalid";
    }
}

/* --fixture: the fixture's reply, or a 400 naming the check the request failed. */
static void scripted(struct sim_fixture *fx, unsigned long long seed, enum proto p,
                     const struct conn *c, const cJSON *req, struct sim_reply *r)
{
    unsigned char seed_d[SIM_DIGEST_LEN];
    char why[300];

    /* The answer is drawn as answer() draws it: the same question, the same answer. */
    if (!draw(seed_d, c, seed, NULL, 0)) {
        set_error(r, p, 500, "judge_sim: digest failed");
        return;
    }
    switch (sim_fixture_answer(fx, p == PROTO_ANTHROPIC, req, seed_d, r, why, sizeof(why))) {
    case SIM_FIXTURE_REPLY:
        return;
    case SIM_FIXTURE_MISMATCH:
        snprintf(r->detail, sizeof(r->detail), "fixture: %s", why);
        set_error(r, p, 400, r->detail);
        r->fault = "fixture-mismatch";
        return;
    case SIM_FIXTURE_ENOMEM:
        r->content_type = NULL;
        set_error(r, p, 500, "judge_sim: out of memory");
        return;
    }
}

static const char *header(struct MHD_Connection *mc, const char *name)
{
    return MHD_lookup_connection_value(mc, MHD_HEADER_KIND, name);
}

/* The API key the request carries, NULL when it has none. */
static const char *api_key(struct MHD_Connection *mc, enum proto p)
{
    const char *v;

    if (p == PROTO_ANTHROPIC) {
        v = header(mc, "x-api-key");
        return v && *v ? v : NULL;
    }
    v = header(mc, "Authorization");
    if (!v || strncasecmp(v, "Bearer ", 7) != 0)
        return NULL;
    v += 7;
    while (*v == ' ')
        v++;
    return *v ? v : NULL;
}

/* Takes every decision for one request; fills r and *attempt. */
static void decide(struct sim_state *st, struct MHD_Connection *mc, enum proto p,
                   struct conn *c, unsigned long *attempt, struct sim_reply *r)
{
    const struct sim_config *cfg = st->cfg;
    unsigned char body_d[SIM_DIGEST_LEN];
    const void *parts[1];
    size_t lens[1] = {c->len};
    unsigned long long arrival = 0;
    const char *key = api_key(mc, p);
    cJSON *req;

    /* One question, one reply and one attempt count, whatever fence code it came with. */
    c->hashed = sim_mask_fence(c->body, c->len);
    parts[0] = c->hashed ? c->hashed : c->body ? c->body : "";
    if (!sim_digest(body_d, 1, parts, lens)) {
        set_error(r, p, 500, "judge_sim: digest failed");
        return;
    }
    *attempt = sim_attempt_next(st, body_d, &arrival);
    if (*attempt == 0) {
        set_error(r, p, 500, "judge_sim: out of memory");
        return;
    }
    r->hang = fires(c, cfg, "hang", *attempt, cfg->rate_hang);
    if (p == PROTO_NONE) {
        set_error(r, p, 404, "no such endpoint");
        return;
    }
    if (cfg->status_always) {
        set_error(r, p, cfg->status_always, "judge_sim: --status-always");
        r->fault = "status-always";
        return;
    }
    if (cfg->fail_first > 0 && arrival <= (unsigned long long)cfg->fail_first) {
        set_error(r, p, 503, "judge_sim: service unavailable (--fail-first)");
        r->fault = "fail-first";
        return;
    }
    if (c->too_big) {
        set_error(r, p, 413, "request body too large");
        return;
    }
    if (!key || !strcmp(key, "bad-key")) {
        set_error(r, p, 401, key ? "invalid api key" : "missing api key");
        return;
    }
    if (p == PROTO_ANTHROPIC && !header(mc, "anthropic-version")) {
        set_error(r, p, 400, "anthropic-version header is required");
        return;
    }
    req = cJSON_ParseWithLength(c->body ? c->body : "", c->len);
    if (!cJSON_IsObject(req)) {
        cJSON_Delete(req);
        set_error(r, p, 400, "request body is not a JSON object");
        return;
    }
    if (st->fixture) {
        scripted(st->fixture, cfg->seed, p, c, req, r);
    } else if (fires(c, cfg, "429", *attempt, cfg->rate_429)) {
        set_error(r, p, 429, "judge_sim: rate limited");
        r->fault = "429";
    } else if (fires(c, cfg, "500", *attempt, cfg->rate_500)) {
        set_error(r, p, 500, "judge_sim: internal error");
        r->fault = "500";
    } else {
        answer(r, cfg, p, c, req, *attempt);
    }
    cJSON_Delete(req);
}

/*
 * --echo-key: put what the client authenticated with right after the first marker in the
 * body (an error's "message", the judgment's "reasoning"), as a hostile or careless server
 * might.  The key is inserted as is: keys are printable ASCII without quotes.
 */
static void echo_into(struct sim_reply *r, const char *marker, const char *plain, int escape)
{
    char *at = r->text ? strstr(r->text, marker) : NULL, *t, key[1024];
    size_t k = 0, head, i;

    if (!at || strpbrk(plain, "\"\\") || strlen(plain) > 100)
        return;
    /* escape 1: every non-alphanumeric character as \u00XX (a server's JSON escapes); 2: the
     * same inside a JSON string inside JSON (a model that wrote the escapes itself). */
    for (i = 0; plain[i]; i++) {
        unsigned char c = (unsigned char)plain[i];

        if (escape && !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
            k += (size_t)snprintf(key + k, sizeof(key) - k, "%s\\u%04x", escape == 2 ? "\\" : "",
                                  c);
        else
            key[k++] = (char)c;
    }
    key[k] = '\0';
    head = (size_t)(at - r->text) + strlen(marker);
    t = malloc(r->len + k + 2);
    if (!t)
        return;
    memcpy(t, r->text, head);
    memcpy(t + head, key, k);
    t[head + k] = ' ';
    memcpy(t + head + k + 1, r->text + head, r->len - head);
    t[r->len + k + 1] = '\0';
    free(r->text);
    r->text = t;
    r->len += k + 1;
}

/* A fixture's headers: strings as they are, numbers as integers or decimals. */
static bool add_headers(struct MHD_Response *resp, const cJSON *headers)
{
    const cJSON *h;
    char num[64];

    cJSON_ArrayForEach(h, headers)
    {
        const char *v = h->valuestring;

        if (cJSON_IsNumber(h)) {
            snprintf(num, sizeof(num), "%.15g", h->valuedouble);
            v = num;
        }
        if (!v || MHD_add_response_header(resp, h->string, v) != MHD_YES)
            return false;
    }
    return true;
}

static enum MHD_Result send_reply(struct sim_state *st, struct MHD_Connection *mc,
                                  struct sim_reply *r, unsigned long attempt)
{
    struct MHD_Response *resp;
    enum MHD_Result ret;
    char buf[32];
    bool ok;

    if (!r->text) /* out of memory: let MHD drop the connection */
        return MHD_NO;
    resp = MHD_create_response_from_buffer_with_free_callback(r->len, r->text, free);
    if (!resp)
        return MHD_NO;
    r->text = NULL; /* the response owns it now */
    ok = MHD_add_response_header(resp, "Content-Type",
                                 r->content_type ? r->content_type : "application/json") == MHD_YES;
    snprintf(buf, sizeof(buf), "%lu", attempt);
    ok = ok && MHD_add_response_header(resp, "x-judge-sim-attempt", buf) == MHD_YES;
    ok = ok && add_headers(resp, r->headers);
    if (r->status == 429 && !r->scripted) {
        snprintf(buf, sizeof(buf), "%ld", st->cfg->retry_after);
        ok = ok && MHD_add_response_header(resp, "Retry-After", buf) == MHD_YES;
    }
    if (r->echo)
        ok = ok && MHD_add_response_header(resp, "x-echo-authorization", r->echo) == MHD_YES;
    ret = ok ? MHD_queue_response(mc, (unsigned)r->status, resp) : MHD_NO;
    MHD_destroy_response(resp);
    return ret;
}

static enum proto route(const char *url, const char *method)
{
    if (strcmp(method, "POST") != 0)
        return PROTO_NONE;
    if (!strcmp(url, "/v1/chat/completions"))
        return PROTO_OPENAI;
    if (!strcmp(url, "/v1/messages"))
        return PROTO_ANTHROPIC;
    return PROTO_NONE;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *mc, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    struct sim_state *st = cls;
    struct conn *c = *con_cls;
    struct sim_reply r = {0};
    unsigned long attempt = 0;
    enum proto p = route(url, method);
    bool auth;
    char fault[48];
    enum MHD_Result ret;

    (void)version;
    if (!c) {
        c = calloc(1, sizeof(*c));
        if (!c)
            return MHD_NO;
        *con_cls = c;
        return MHD_YES;
    }
    if (*upload_data_size) {
        if (!append(c, upload_data, *upload_data_size))
            return MHD_NO;
        *upload_data_size = 0;
        return MHD_YES;
    }
    decide(st, mc, p, c, &attempt, &r);
    auth = header(mc, "Authorization") || header(mc, "x-api-key");
    if (st->cfg->echo_key && api_key(mc, p)) {
        int esc = st->cfg->echo_key == 2;

        r.echo = header(mc, p == PROTO_ANTHROPIC ? "x-api-key" : "Authorization");
        echo_into(&r, "\"message\":\"", api_key(mc, p), esc);            /* an error body */
        echo_into(&r, "reasoning\\\":\\\"", api_key(mc, p), esc ? 2 : 0); /* OpenAI content */
        echo_into(&r, "\"reasoning\":\"", api_key(mc, p), esc);          /* Anthropic tool input */
    }
    /* Log before sleeping, so a test that gave up on a hang still sees the request. */
    snprintf(fault, sizeof(fault), "%s%s%s", r.hang ? "hang" : "", r.hang && r.fault ? "+" : "",
             r.fault ? r.fault : "");
    sim_log_request(st, url, attempt, r.status, c->body, auth, fault[0] ? fault : NULL,
                    r.detail[0] ? r.detail : NULL);
    if (sim_sleep_ms(st, st->cfg->latency_ms) && r.hang)
        sim_sleep_ms(st, st->cfg->hang_ms);
    ret = send_reply(st, mc, &r, attempt);
    free(r.text);
    cJSON_Delete(r.headers);
    return ret;
}

static void on_completed(void *cls, struct MHD_Connection *mc, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    struct conn *c = *con_cls;

    (void)cls;
    (void)mc;
    (void)toe;
    if (c) {
        free(c->body);
        free(c->hashed);
        free(c);
    }
    *con_cls = NULL;
}

struct MHD_Daemon *sim_server_start(struct sim_state *st, unsigned port)
{
    struct sockaddr_in addr;
    struct MHD_Daemon *d;

    memset(&addr, 0, sizeof(addr));
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    /* Thread per connection: a sleeping request holds only its own thread. */
    d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
                             MHD_USE_AUTO | MHD_USE_ERROR_LOG,
                         (uint16_t)port, NULL, NULL, on_request, st, MHD_OPTION_SOCK_ADDR,
                         (const struct sockaddr *)&addr, MHD_OPTION_NOTIFY_COMPLETED, on_completed,
                         st, MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)512, MHD_OPTION_END);
    if (!d)
        fprintf(stderr, "judge_sim: cannot listen on 127.0.0.1:%u\n", port);
    return d;
}
