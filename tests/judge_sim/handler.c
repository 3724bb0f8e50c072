/*
 * handler.c - the test judge's HTTP side: routes, auth and scripted faults. The reply bodies
 * are reply.c's; the batch routes (OpenAI's /v1/files and /v1/batches, Anthropic's
 * /v1/messages/batches) are batch_openai.c's and batch_anthropic.c's once auth has passed.
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
#include <time.h>

#include <microhttpd.h>

#include "batch.h"

/* One request's body, gathered over the access-handler calls. */
struct conn {
    char *body;
    size_t len;
    size_t cap;
    size_t max; /* the route's body limit: SIM_MAX_BODY, more for a batch upload */
    bool too_big;
    char *hashed;            /* body with Arbiter's fence code masked (fence.c), or NULL: body */
    struct timespec arrived; /* when the request's headers came (CLOCK_MONOTONIC) */
};

static int append(struct conn *c, const char *data, size_t n)
{
    if (c->too_big || c->len + n > c->max) {
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

/* What replies and faults are drawn from: the body with its fence code masked. */
static const char *drawn_from(const struct conn *c)
{
    if (c->hashed)
        return c->hashed;
    return c->body ? c->body : "";
}

/* The per-request randomness (gen.c's sim_draw). */
static int draw(unsigned char out[SIM_DIGEST_LEN], const struct conn *c, unsigned long long seed,
                const char *label, unsigned long attempt)
{
    return sim_draw(out, drawn_from(c), c->len, seed, label, attempt);
}

static bool fires(const struct conn *c, const struct sim_config *cfg, const char *label,
                  unsigned long attempt, double rate)
{
    unsigned char d[SIM_DIGEST_LEN];

    if (rate <= 0)
        return false;
    return draw(d, c, cfg->seed, label, attempt) && sim_digest_unit(d) < rate;
}

/* A 200 reply, possibly schema-invalid; malformed cuts the finished text in half. */
static void answer(struct sim_reply *r, const struct sim_config *cfg, enum sim_proto p,
                   const struct conn *c, const cJSON *req, unsigned long attempt)
{
    bool malformed = fires(c, cfg, "malformed", attempt, cfg->rate_malformed);
    bool invalid = !malformed && fires(c, cfg, "invalid", attempt, cfg->rate_invalid);
    char *text = sim_answer(cfg, p, req, drawn_from(c), c->len, invalid);

    if (!text) {
        sim_reply_error(r, p, 500, "judge_sim: out of memory");
        return;
    }
    sim_reply_text(r, 200, text);
    if (malformed) {
        r->len = r->len > 1 ? r->len / 2 : 1;
        r->fault = "malformed";
    } else if (invalid) {
        r->fault = "invalid";
    }
}

/* --fixture: the fixture's reply, or a 400 naming the check the request failed. */
static void scripted(struct sim_fixture *fx, unsigned long long seed, enum sim_proto p,
                     const struct conn *c, const cJSON *req, struct sim_reply *r)
{
    unsigned char seed_d[SIM_DIGEST_LEN];
    char why[300];

    /* The answer is drawn as answer() draws it: the same question, the same answer. */
    if (!draw(seed_d, c, seed, NULL, 0)) {
        sim_reply_error(r, p, 500, "judge_sim: digest failed");
        return;
    }
    switch (sim_fixture_answer(fx, p == SIM_PROTO_ANTHROPIC, req, seed_d, r, why, sizeof(why))) {
    case SIM_FIXTURE_REPLY:
        return;
    case SIM_FIXTURE_MISMATCH:
        snprintf(r->detail, sizeof(r->detail), "fixture: %s", why);
        sim_reply_error(r, p, 400, r->detail);
        r->fault = "fixture-mismatch";
        return;
    case SIM_FIXTURE_ENOMEM:
        r->content_type = NULL;
        sim_reply_error(r, p, 500, "judge_sim: out of memory");
        return;
    }
}

static const char *header(struct MHD_Connection *mc, const char *name)
{
    return MHD_lookup_connection_value(mc, MHD_HEADER_KIND, name);
}

/* The API key the request carries, NULL when it has none. */
static const char *api_key(struct MHD_Connection *mc, enum sim_proto p)
{
    const char *v;

    if (p == SIM_PROTO_ANTHROPIC) {
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

/* The checks every route makes once the arrival is counted: the outage flags, the size, the
 * credentials. Returns true when they answered the request. */
static bool refused(struct sim_state *st, struct MHD_Connection *mc, enum sim_proto p,
                    const struct conn *c, unsigned long long arrival, struct sim_reply *r)
{
    const struct sim_config *cfg = st->cfg;
    const char *key = api_key(mc, p);

    if (cfg->status_always) {
        sim_reply_error(r, p, cfg->status_always, "judge_sim: --status-always");
        r->fault = "status-always";
    } else if (cfg->fail_first > 0 && arrival <= (unsigned long long)cfg->fail_first) {
        sim_reply_error(r, p, 503, "judge_sim: service unavailable (--fail-first)");
        r->fault = "fail-first";
    } else if (c->too_big) {
        sim_reply_error(r, p, 413, "request body too large");
    } else if (!key || !strcmp(key, "bad-key")) {
        sim_reply_error(r, p, 401, key ? "invalid api key" : "missing api key");
    } else if (p == SIM_PROTO_ANTHROPIC && !header(mc, "anthropic-version")) {
        sim_reply_error(r, p, 400, "anthropic-version header is required");
    } else {
        return false;
    }
    return true;
}

/* Takes every decision for one request to a synchronous route; fills r and *attempt. */
static void decide(struct sim_state *st, struct MHD_Connection *mc, enum sim_proto p,
                   struct conn *c, unsigned long *attempt, struct sim_reply *r)
{
    const struct sim_config *cfg = st->cfg;
    unsigned char body_d[SIM_DIGEST_LEN];
    const void *parts[1];
    size_t lens[1] = {c->len};
    unsigned long long arrival = 0;
    cJSON *req;

    /* One question, one reply and one attempt count, whatever fence code it came with. */
    c->hashed = sim_mask_fence(c->body, c->len);
    parts[0] = c->hashed ? c->hashed : c->body ? c->body : "";
    if (!sim_digest(body_d, 1, parts, lens)) {
        sim_reply_error(r, p, 500, "judge_sim: digest failed");
        return;
    }
    *attempt = sim_attempt_next(st, body_d, &arrival);
    if (*attempt == 0) {
        sim_reply_error(r, p, 500, "judge_sim: out of memory");
        return;
    }
    r->hang = fires(c, cfg, "hang", *attempt, cfg->rate_hang);
    if (p == SIM_PROTO_NONE) {
        sim_reply_error(r, p, 404, "no such endpoint");
        return;
    }
    if (refused(st, mc, p, c, arrival, r))
        return;
    req = cJSON_ParseWithLength(c->body ? c->body : "", c->len);
    if (!cJSON_IsObject(req)) {
        cJSON_Delete(req);
        sim_reply_error(r, p, 400, "request body is not a JSON object");
        return;
    }
    if (st->fixture) {
        scripted(st->fixture, cfg->seed, p, c, req, r);
    } else if (fires(c, cfg, "429", *attempt, cfg->rate_429)) {
        sim_reply_error(r, p, 429, "judge_sim: rate limited");
        r->fault = "429";
    } else if (fires(c, cfg, "500", *attempt, cfg->rate_500)) {
        sim_reply_error(r, p, 500, "judge_sim: internal error");
        r->fault = "500";
    } else {
        answer(r, cfg, p, c, req, *attempt);
    }
    cJSON_Delete(req);
}

static const char *query(struct MHD_Connection *mc, const char *name)
{
    return MHD_lookup_connection_value(mc, MHD_GET_ARGUMENT_KIND, name);
}

/* A request to a batch route: counted as an arrival of (method, path, body), checked like any
 * other (no drawn faults: those are the synchronous routes'), then answered by its protocol's
 * batch code. *log_body, when set, is what to log instead of the body. */
static void decide_batch(struct sim_state *st, struct MHD_Connection *mc, enum sim_proto p,
                         const char *url, const char *method, struct conn *c,
                         unsigned long *attempt, struct sim_reply *r, char **log_body)
{
    const char *body = c->body ? c->body : "";
    const void *parts[5] = {method, "\n", url, "\n", body};
    size_t lens[5] = {strlen(method), 1, strlen(url), 1, c->len};
    unsigned char d[SIM_DIGEST_LEN];
    unsigned long long arrival = 0;
    struct sim_http h = {
        .method = method,
        .url = url,
        .body = body,
        .len = c->len,
        .content_type = header(mc, "Content-Type"),
        .host = header(mc, "Host"),
        .limit = query(mc, "limit"),
        .after = query(mc, "after"),
        .after_id = query(mc, "after_id"),
        .before_id = query(mc, "before_id"),
    };

    if (sim_digest(d, 5, parts, lens))
        *attempt = sim_attempt_next(st, d, &arrival);
    if (*attempt == 0) {
        sim_reply_error(r, p, 500, "judge_sim: out of memory");
        return;
    }
    if (refused(st, mc, p, c, arrival, r))
        return;
    if (p == SIM_PROTO_OPENAI)
        sim_openai_batch(st, &h, r, log_body);
    else
        sim_anthropic_batch(st, &h, r);
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
            k +=
                (size_t)snprintf(key + k, sizeof(key) - k, "%s\\u%04x", escape == 2 ? "\\" : "", c);
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

/* url is prefix or under it. */
static bool under(const char *url, const char *prefix)
{
    size_t n = strlen(prefix);

    return !strncmp(url, prefix, n) && (url[n] == '\0' || url[n] == '/');
}

/* The protocol of a route, and whether it is a batch route; NONE for an unknown one. */
static enum sim_proto route(const char *url, const char *method, bool *batch)
{
    bool post = !strcmp(method, "POST");

    *batch = false;
    if (post && !strcmp(url, "/v1/chat/completions"))
        return SIM_PROTO_OPENAI;
    if (post && !strcmp(url, "/v1/messages"))
        return SIM_PROTO_ANTHROPIC;
    *batch = true;
    if (under(url, "/v1/messages/batches"))
        return SIM_PROTO_ANTHROPIC;
    if (under(url, "/v1/files") || under(url, "/v1/batches"))
        return SIM_PROTO_OPENAI;
    *batch = false;
    return SIM_PROTO_NONE;
}

/* The largest body a route takes: a batch upload is far larger than any judge prompt. */
static size_t body_limit(const char *url, const char *method)
{
    if (strcmp(method, "POST") != 0)
        return SIM_MAX_BODY;
    if (!strcmp(url, "/v1/files"))
        return SIM_OPENAI_MAX_FILE + SIM_UPLOAD_SLACK;
    if (!strcmp(url, "/v1/messages/batches"))
        return SIM_ANTHROPIC_MAX_BODY;
    return SIM_MAX_BODY;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *mc, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
    struct sim_state *st = cls;
    struct conn *c = *con_cls;
    struct sim_reply r = {0};
    unsigned long attempt = 0;
    bool batch;
    enum sim_proto p = route(url, method, &batch);
    bool auth;
    char *log_body = NULL;
    char fault[48];
    enum MHD_Result ret;

    (void)version;
    if (!c) {
        c = calloc(1, sizeof(*c));
        if (!c)
            return MHD_NO;
        c->max = body_limit(url, method);
        clock_gettime(CLOCK_MONOTONIC, &c->arrived);
        *con_cls = c;
        return MHD_YES;
    }
    if (*upload_data_size) {
        if (!append(c, upload_data, *upload_data_size))
            return MHD_NO;
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (batch)
        decide_batch(st, mc, p, url, method, c, &attempt, &r, &log_body);
    else
        decide(st, mc, p, c, &attempt, &r);
    auth = header(mc, "Authorization") || header(mc, "x-api-key");
    if (st->cfg->echo_key && api_key(mc, p)) {
        int esc = st->cfg->echo_key == 2;

        r.echo = header(mc, p == SIM_PROTO_ANTHROPIC ? "x-api-key" : "Authorization");
        echo_into(&r, "\"message\":\"", api_key(mc, p), esc);             /* an error body */
        echo_into(&r, "reasoning\\\":\\\"", api_key(mc, p), esc ? 2 : 0); /* OpenAI content */
        echo_into(&r, "\"reasoning\":\"", api_key(mc, p), esc);           /* Anthropic tool input */
    }
    /* Log before sleeping, so a test that gave up on a hang still sees the request. */
    snprintf(fault, sizeof(fault), "%s%s%s", r.hang ? "hang" : "", r.hang && r.fault ? "+" : "",
             r.fault ? r.fault : "");
    sim_log_request(st, url, attempt, r.status, log_body ? log_body : c->body, auth,
                    fault[0] ? fault : NULL, r.detail[0] ? r.detail : NULL);
    free(log_body);
    /* The latency counts from the request's arrival, as a client sees a provider's: the
     * parsing and checking above are inside it, not added to it. */
    if (sim_sleep_from(st, &c->arrived, st->cfg->latency_ms) && r.hang)
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
