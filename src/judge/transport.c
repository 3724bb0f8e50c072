/*
 * transport.c - the judge's HTTP transport on one curl multi handle (see
 * include/arbiter/http.h).
 *
 * A request lives in exactly one place at a time: the FIFO of requests ready
 * to start, the list of requests waiting for a retry (ordered by due time),
 * or the table of running transfers (at most `concurrency`, each on an easy
 * handle from a small pool, so connections are reused).  arb_transport_run
 * turns the crank: it starts ready requests, drives curl, classifies every
 * finished attempt (success, retry later, final failure) and sleeps in
 * curl_multi_poll no longer than the next due retry, so waiting never blocks
 * other transfers.  Each attempt's reply headers are read as they arrive
 * (transport_retry.c) for the wait the server asks for and x-should-retry;
 * what a curl code or a status means is transport_fail.c's.
 *
 * Error texts are built from fixed words, the HTTP status and
 * curl_easy_strerror(), never from curl's error buffer, the request or the
 * reply, so a header value (the API key) cannot reach them.  What a request
 * or a reply body means (provider, JSON, tokens) is the caller's business,
 * told through the classify hook; curl_global_init is the command line's.
 *
 * Choices the header leaves open: a negative max_retries or backoff_base_s
 * means none (zero means the default); final failures are ARB_EIO (HTTP
 * status or network), ARB_ETOOBIG (reply past max_body, partial body handed
 * over) or ARB_EUSAGE "aborted".  Abort is sticky: later submits fail with
 * ARB_EUSAGE and no callback.  arb_transport_abort may be called from any
 * thread; everything else belongs to the thread that runs.  arb_transport_free
 * (never from a callback) drops requests that have not completed, silently.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "arbiter/buf.h"
#include "arbiter/http.h"
#include "transport_int.h"

#define DEFAULT_CONCURRENCY     8
#define DEFAULT_CONNECT_MS      10000L
#define DEFAULT_TIMEOUT_MS      60000L
#define DEFAULT_MAX_RETRIES     4
#define DEFAULT_BACKOFF_BASE_S  0.5
#define DEFAULT_BACKOFF_MAX_S   30.0
#define DEFAULT_RETRY_AFTER_MAX 60.0
#define DEFAULT_MAX_BODY        ((size_t)8 << 20)
#define IDLE_POLL_MS            1000 /* curl shortens this to its own timers */

/* One submitted request, from arb_transport_submit to its completion. */
struct req {
    struct req *next; /* in the ready FIFO or the waiting list */
    char *url;
    char *body; /* never NULL, so POSTFIELDS always points somewhere */
    size_t body_len;
    struct curl_slist *headers; /* owned copy, plus "Expect:" */
    void *user;
    CURL *easy; /* while running */
    int attempts;
    double first_start; /* monotonic seconds */
    double attempt_start;
    double due;                   /* when waiting: monotonic time of the next attempt */
    long status;                  /* last HTTP status seen */
    double server_wait;           /* seconds the last reply asked to wait, uncapped */
    struct transport_hints hints; /* from the last reply's headers */
    struct arb_buf reply;
    int too_big; /* the write callback refused a chunk past the cap */
    int no_mem;  /* the write callback ran out of memory */
};

struct arb_transport {
    struct arb_transport_opts o;
    CURLM *multi;
    uint64_t rng; /* splitmix64 state for the jitter */
    struct req *ready, *ready_tail;
    struct req *waiting; /* ordered by due, earliest first */
    struct req **active; /* o.concurrency slots; n_active in use */
    size_t n_active;
    CURL **idle; /* easy handles not in use; n_idle of them */
    size_t n_idle;
    atomic_int aborted;
    int in_run;
    void (*on_done)(void *ctx, const struct arb_http_result *r);
    void *ctx;
    enum arb_status run_st; /* first infrastructure failure of this run */
};

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Wall clock, seconds since the epoch: for the dates in Retry-After and the reset headers. */
static double wall_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* splitmix64: a uniform double in [0, 1). */
static double rng_unit(struct arb_transport *t)
{
    uint64_t z;

    t->rng += 0x9e3779b97f4a7c15ULL;
    z = t->rng;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

static void fill_defaults(struct arb_transport_opts *o, const struct arb_transport_opts *in)
{
    if (in)
        *o = *in;
    else
        memset(o, 0, sizeof(*o));
    if (!o->concurrency)
        o->concurrency = DEFAULT_CONCURRENCY;
    if (o->connect_timeout_ms <= 0)
        o->connect_timeout_ms = DEFAULT_CONNECT_MS;
    if (o->timeout_ms <= 0)
        o->timeout_ms = DEFAULT_TIMEOUT_MS;
    /* Zero means the default, so "no retries" is spelled with a negative number. */
    if (!o->max_retries)
        o->max_retries = DEFAULT_MAX_RETRIES;
    else if (o->max_retries < 0)
        o->max_retries = 0;
    if (o->backoff_base_s == 0)
        o->backoff_base_s = DEFAULT_BACKOFF_BASE_S;
    else if (o->backoff_base_s < 0)
        o->backoff_base_s = 0;
    if (o->backoff_max_s <= 0)
        o->backoff_max_s = DEFAULT_BACKOFF_MAX_S;
    if (o->retry_after_max_s <= 0)
        o->retry_after_max_s = DEFAULT_RETRY_AFTER_MAX;
    if (!o->max_body)
        o->max_body = DEFAULT_MAX_BODY;
}

enum arb_status arb_transport_new(const struct arb_transport_opts *opts, struct arb_transport **out,
                                  struct arb_err *err)
{
    struct arb_transport *t = calloc(1, sizeof(*t));
    CURLMcode mc;

    *out = NULL;
    if (!t)
        return arb_err_set(err, ARB_ENOMEM, "out of memory creating the transport");
    fill_defaults(&t->o, opts);
    t->rng = t->o.jitter_seed;
    atomic_init(&t->aborted, 0);
    t->active = calloc(t->o.concurrency, sizeof(*t->active));
    t->idle = calloc(t->o.concurrency, sizeof(*t->idle));
    if (!t->active || !t->idle) {
        arb_transport_free(t);
        return arb_err_set(err, ARB_ENOMEM, "out of memory creating the transport");
    }
    t->multi = curl_multi_init();
    if (!t->multi) {
        arb_transport_free(t);
        return arb_err_set(err, ARB_EINTERNAL, "cannot create a curl multi handle");
    }
    mc = curl_multi_setopt(t->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)t->o.concurrency);
    if (!mc)
        mc = curl_multi_setopt(t->multi, CURLMOPT_MAXCONNECTS, (long)t->o.concurrency);
    if (mc) {
        arb_transport_free(t);
        return arb_err_set(err, ARB_EINTERNAL, "curl multi: %s", curl_multi_strerror(mc));
    }
    *out = t;
    return ARB_OK;
}

static void req_free(struct req *r)
{
    if (!r)
        return;
    free(r->url);
    free(r->body);
    curl_slist_free_all(r->headers);
    arb_buf_release(&r->reply);
    free(r);
}

static void free_list(struct req *r)
{
    while (r) {
        struct req *next = r->next;

        req_free(r);
        r = next;
    }
}

void arb_transport_free(struct arb_transport *t)
{
    size_t i;

    if (!t)
        return;
    for (i = 0; i < t->n_active; i++) {
        if (t->multi)
            curl_multi_remove_handle(t->multi, t->active[i]->easy);
        curl_easy_cleanup(t->active[i]->easy);
        req_free(t->active[i]);
    }
    if (t->multi)
        curl_multi_cleanup(t->multi);
    for (i = 0; i < t->n_idle; i++)
        curl_easy_cleanup(t->idle[i]);
    free_list(t->ready);
    free_list(t->waiting);
    free(t->active);
    free(t->idle);
    free(t);
}

/* Append a copy of one header; a line break in it would smuggle another header in. */
static enum arb_status add_header(struct curl_slist **list, const char *h, size_t i,
                                  struct arb_err *err)
{
    struct curl_slist *n;

    if (!h)
        return arb_err_set(err, ARB_EUSAGE, "request header %zu is NULL", i);
    if (strpbrk(h, "\r\n"))
        return arb_err_set(err, ARB_EUSAGE, "request header %zu contains a line break", i);
    n = curl_slist_append(*list, h);
    if (!n)
        return arb_err_set(err, ARB_ENOMEM, "out of memory copying request headers");
    *list = n;
    return ARB_OK;
}

static int is_expect_header(const char *h)
{
    return h && strncasecmp(h, "Expect:", 7) == 0;
}

static enum arb_status copy_request(struct req *r, const struct arb_http_request *in,
                                    struct arb_err *err)
{
    enum arb_status st;
    int has_expect = 0;
    size_t i;

    r->url = strdup(in->url);
    r->body = malloc(in->body_len + 1);
    if (!r->url || !r->body)
        return arb_err_set(err, ARB_ENOMEM, "out of memory copying a request");
    if (in->body_len)
        memcpy(r->body, in->body, in->body_len);
    r->body[in->body_len] = '\0';
    r->body_len = in->body_len;
    for (i = 0; i < in->n_headers; i++) {
        st = add_header(&r->headers, in->headers[i], i, err);
        if (st)
            return st;
        has_expect |= is_expect_header(in->headers[i]);
    }
    /* curl would wait up to a second for "100 Continue" before sending a large body. */
    if (!has_expect)
        return add_header(&r->headers, "Expect:", in->n_headers, err);
    return ARB_OK;
}

enum arb_status arb_transport_submit(struct arb_transport *t, const struct arb_http_request *req,
                                     struct arb_err *err)
{
    struct req *r;
    enum arb_status st;

    if (!req || !req->url || (req->body_len && !req->body) || (req->n_headers && !req->headers))
        return arb_err_set(err, ARB_EUSAGE, "incomplete HTTP request");
    if (atomic_load(&t->aborted))
        return arb_err_set(err, ARB_EUSAGE, "transport aborted");
    r = calloc(1, sizeof(*r));
    if (!r)
        return arb_err_set(err, ARB_ENOMEM, "out of memory queueing a request");
    /* The buffer refuses to reach toobig, so a body of exactly max_body bytes still fits. */
    arb_buf_init(&r->reply, t->o.max_body + 1);
    r->user = req->user;
    st = copy_request(r, req, err);
    if (st) {
        req_free(r);
        return st;
    }
    if (t->ready_tail)
        t->ready_tail->next = r;
    else
        t->ready = r;
    t->ready_tail = r;
    return ARB_OK;
}

void arb_transport_abort(struct arb_transport *t)
{
    atomic_store(&t->aborted, 1);
    /* Safe from any thread; gets a sleeping curl_multi_poll to look at the flag. */
    if (t->multi)
        curl_multi_wakeup(t->multi);
}

/*
 * Hand a finished request to on_done and free it.  why is the reason (NULL on
 * success); when the request took more than one attempt the count is
 * appended, except to "aborted".
 */
static void complete(struct arb_transport *t, struct req *r, enum arb_status st, const char *why)
{
    struct arb_http_result res;

    memset(&res, 0, sizeof(res));
    res.user = r->user;
    res.st = st;
    res.status = r->status;
    snprintf(res.content_type, sizeof(res.content_type), "%s", r->hints.content_type);
    res.server_wait_s = r->server_wait;
    res.body = r->reply.ptr ? r->reply.ptr : "";
    res.body_len = r->reply.len;
    res.attempts = r->attempts;
    res.latency_s = r->attempts ? now_s() - r->first_start : 0.0;
    if (!why)
        res.error[0] = '\0';
    else if (r->attempts <= 1 || st == ARB_EUSAGE)
        snprintf(res.error, sizeof(res.error), "%s", why);
    else if (strstr(why, " after "))
        snprintf(res.error, sizeof(res.error), "%s; %d attempts", why, r->attempts);
    else
        snprintf(res.error, sizeof(res.error), "%s after %d attempts", why, r->attempts);
    if (st == ARB_ENOMEM || st == ARB_EINTERNAL) {
        if (!t->run_st)
            t->run_st = st;
    }
    if (t->on_done)
        t->on_done(t->ctx, &res);
    req_free(r);
}

/* Take the running request in slot i off curl and put its easy handle back in the pool. */
static struct req *detach_active(struct arb_transport *t, size_t i)
{
    struct req *r = t->active[i];

    curl_multi_remove_handle(t->multi, r->easy);
    t->idle[t->n_idle++] = r->easy;
    r->easy = NULL;
    t->active[i] = t->active[--t->n_active];
    return r;
}

/* Complete everything queued, waiting or running with the same failure. */
static void fail_all(struct arb_transport *t, enum arb_status st, const char *why)
{
    struct req *r;

    while (t->n_active) {
        r = detach_active(t, t->n_active - 1);
        complete(t, r, st, why);
    }
    while (t->waiting) {
        r = t->waiting;
        t->waiting = r->next;
        complete(t, r, st, why);
    }
    while (t->ready) {
        r = t->ready;
        t->ready = r->next;
        if (!t->ready)
            t->ready_tail = NULL;
        complete(t, r, st, why);
    }
}

static size_t on_write(char *data, size_t size, size_t nmemb, void *user)
{
    struct req *r = user;
    enum arb_status st = arb_buf_add(&r->reply, data, size * nmemb);

    if (st == ARB_ETOOBIG)
        r->too_big = 1;
    else if (st)
        r->no_mem = 1;
    /* Anything short of the full count makes curl abort with CURLE_WRITE_ERROR. */
    return st ? 0 : size * nmemb;
}

/* Every header line of every response curl reads (100-continue and redirects too). */
static size_t on_header(char *data, size_t size, size_t nmemb, void *user)
{
    struct req *r = user;

    transport_hints_header(&r->hints, data, size * nmemb, wall_s());
    return size * nmemb;
}

static CURLcode set_options(struct arb_transport *t, CURL *e, struct req *r)
{
    CURLcode rc = curl_easy_setopt(e, CURLOPT_URL, r->url);

    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    /* A proxy from the environment is fine for the world, never for loopback. */
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_NOPROXY, "127.0.0.1,localhost,::1");
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, t->o.connect_timeout_ms);
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, t->o.timeout_ms);
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_USERAGENT, "arbiter");
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_POST, 1L);
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->body);
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_len);
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->headers);
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_HEADERDATA, r);
    if (!rc)
        rc = curl_easy_setopt(e, CURLOPT_PRIVATE, r);
    return rc;
}

/* Put one attempt of r on the wire; on failure r is completed here. */
static void start_one(struct arb_transport *t, struct req *r)
{
    CURL *e;
    CURLcode rc;
    CURLMcode mc;

    if (t->n_idle) {
        e = t->idle[--t->n_idle];
        /* Forget the last request's options; connections stay in the multi's cache. */
        curl_easy_reset(e);
    } else {
        e = curl_easy_init();
    }
    if (!e) {
        complete(t, r, ARB_ENOMEM, "out of memory creating a curl handle");
        return;
    }
    rc = set_options(t, e, r);
    if (rc) {
        t->idle[t->n_idle++] = e;
        complete(t, r, rc == CURLE_OUT_OF_MEMORY ? ARB_ENOMEM : ARB_EINTERNAL,
                 curl_easy_strerror(rc));
        return;
    }
    arb_buf_reset(&r->reply);
    transport_hints_clear(&r->hints);
    r->too_big = 0;
    r->no_mem = 0;
    r->attempt_start = now_s();
    if (!r->attempts)
        r->first_start = r->attempt_start;
    r->attempts++;
    r->easy = e;
    mc = curl_multi_add_handle(t->multi, e);
    if (mc) {
        r->easy = NULL;
        t->idle[t->n_idle++] = e;
        complete(t, r, mc == CURLM_OUT_OF_MEMORY ? ARB_ENOMEM : ARB_EINTERNAL,
                 curl_multi_strerror(mc));
        return;
    }
    t->active[t->n_active++] = r;
}

/* Move every due retry to the front of the ready queue, keeping their order. */
static void promote_due(struct arb_transport *t, double now)
{
    struct req *head = NULL, *tail = NULL;

    while (t->waiting && t->waiting->due <= now) {
        struct req *r = t->waiting;

        t->waiting = r->next;
        r->next = NULL;
        if (tail)
            tail->next = r;
        else
            head = r;
        tail = r;
    }
    if (!head)
        return;
    tail->next = t->ready;
    if (!t->ready)
        t->ready_tail = tail;
    t->ready = head;
}

static void start_ready(struct arb_transport *t)
{
    while (t->ready && t->n_active < t->o.concurrency && !atomic_load(&t->aborted)) {
        struct req *r = t->ready;

        t->ready = r->next;
        if (!t->ready)
            t->ready_tail = NULL;
        r->next = NULL;
        start_one(t, r);
    }
}

/* Wait before attempt number r->attempts + 1: full jitter, or the server's wait when longer. */
static void schedule_retry(struct arb_transport *t, struct req *r, double retry_after)
{
    double backoff = t->o.backoff_base_s;
    double delay;
    struct req **p;
    int k;

    for (k = 1; k < r->attempts && backoff < t->o.backoff_max_s; k++)
        backoff *= 2;
    if (backoff > t->o.backoff_max_s)
        backoff = t->o.backoff_max_s;
    delay = backoff * rng_unit(t);
    if (retry_after > t->o.retry_after_max_s)
        retry_after = t->o.retry_after_max_s;
    if (retry_after > delay)
        delay = retry_after;
    r->due = now_s() + delay;
    /* After any equal due time, so retries due together keep their order. */
    p = &t->waiting;
    while (*p && (*p)->due <= r->due)
        p = &(*p)->next;
    r->next = *p;
    *p = r;
}

/* The caller's verdict on a complete reply; ACCEPT of a non-2xx, or a value out of range, is
 * AS_USUAL. */
static enum arb_http_verdict classify(struct arb_transport *t, const struct req *r)
{
    enum arb_http_verdict v;

    if (!t->o.classify)
        return ARB_HTTP_AS_USUAL;
    v = t->o.classify(t->o.classify_ctx, r->status, r->hints.content_type,
                      r->reply.ptr ? r->reply.ptr : "", r->reply.len);
    switch (v) {
    case ARB_HTTP_ACCEPT:
        return r->status >= 200 && r->status < 300 ? v : ARB_HTTP_AS_USUAL;
    case ARB_HTTP_RETRY:
    case ARB_HTTP_FINAL:
        return v;
    case ARB_HTTP_AS_USUAL:
        break;
    }
    return ARB_HTTP_AS_USUAL;
}

/*
 * What a complete reply means: 1 for a success; else 0 with why and *retry
 * set.  The caller's RETRY or FINAL decides; otherwise the status does, and
 * x-should-retry overrides it (except that 401 and 403 stay final).
 */
static int reply_outcome(struct arb_transport *t, struct req *r, int *retry, char *why, size_t n)
{
    long status = r->status;
    int is_2xx = status >= 200 && status < 300;
    enum arb_http_verdict v = classify(t, r);

    if (v == ARB_HTTP_ACCEPT ||
        (is_2xx && v == ARB_HTTP_AS_USUAL &&
         (!t->o.json_replies || transport_is_json(r->reply.ptr, r->reply.len))))
        return 1;
    if (is_2xx && v == ARB_HTTP_AS_USUAL)
        /* Cut short, or an HTML page from a proxy: the same request may well succeed. */
        snprintf(why, n, "HTTP %ld with a body that is not JSON", status);
    else if (is_2xx)
        snprintf(why, n, "HTTP %ld with an error body", status);
    else
        snprintf(why, n, "HTTP %ld", status);
    if (v != ARB_HTTP_AS_USUAL) {
        *retry = v == ARB_HTTP_RETRY;
        return 0;
    }
    *retry = is_2xx || transport_status_retryable(status);
    if (r->hints.should_retry == 0)
        *retry = 0;
    else if (r->hints.should_retry == 1 && status >= 400 && status != 401 && status != 403)
        *retry = 1;
    return 0;
}

/* Decide what a finished attempt means: success, a later retry, or a final failure. */
static void finish_attempt(struct arb_transport *t, size_t slot, CURLcode rc)
{
    struct req *r = t->active[slot];
    long status = 0;
    char why[200];
    enum arb_status st = ARB_EIO;
    int retry = 0;

    curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
    detach_active(t, slot);
    r->status = status;
    r->server_wait = status ? transport_hints_wait(&r->hints, status) : 0.0;
    if (r->no_mem) {
        st = ARB_ENOMEM;
        snprintf(why, sizeof(why), "out of memory reading the reply");
    } else if (r->too_big) {
        st = ARB_ETOOBIG;
        snprintf(why, sizeof(why), "reply larger than %zu bytes", t->o.max_body);
    } else if (rc != CURLE_OK) {
        transport_describe_curl(rc, t->o.connect_timeout_ms, t->o.timeout_ms,
                                (now_s() - r->attempt_start) * 1000.0, why, sizeof(why));
        retry = transport_curl_retryable(rc);
    } else if (reply_outcome(t, r, &retry, why, sizeof(why))) {
        complete(t, r, ARB_OK, NULL);
        return;
    }
    if (retry && r->attempts <= t->o.max_retries) {
        schedule_retry(t, r, r->server_wait);
        return;
    }
    complete(t, r, st, why);
}

static size_t find_active(struct arb_transport *t, CURL *e)
{
    size_t i;

    for (i = 0; i < t->n_active; i++) {
        if (t->active[i]->easy == e)
            break;
    }
    return i;
}

/* Read curl's finished transfers; stops early when a callback aborts. */
static void drain_messages(struct arb_transport *t)
{
    CURLMsg *m;
    int left;

    while (!atomic_load(&t->aborted)) {
        size_t slot;

        m = curl_multi_info_read(t->multi, &left);
        if (!m)
            break;
        if (m->msg != CURLMSG_DONE)
            continue;
        slot = find_active(t, m->easy_handle);
        if (slot < t->n_active)
            finish_attempt(t, slot, m->data.result);
    }
}

/* Milliseconds curl_multi_poll may sleep: until the next due retry at the latest. */
static int poll_timeout_ms(struct arb_transport *t)
{
    double ms;

    if (!t->waiting)
        return IDLE_POLL_MS;
    ms = (t->waiting->due - now_s()) * 1000.0 + 1.0;
    if (ms <= 0)
        return 0;
    return ms > IDLE_POLL_MS ? IDLE_POLL_MS : (int)ms;
}

static int has_work(const struct arb_transport *t)
{
    return t->ready || t->waiting || t->n_active;
}

/* A failure of the multi handle itself: nothing can run, so everything fails. */
static enum arb_status multi_failed(struct arb_transport *t, CURLMcode mc, struct arb_err *err)
{
    enum arb_status st = mc == CURLM_OUT_OF_MEMORY ? ARB_ENOMEM : ARB_EINTERNAL;
    char why[200];

    snprintf(why, sizeof(why), "curl multi: %s", curl_multi_strerror(mc));
    /* The multi handle is unusable; also keeps callbacks from queueing more forever. */
    atomic_store(&t->aborted, 1);
    fail_all(t, st, why);
    return arb_err_set(err, st, "%s", why);
}

enum arb_status arb_transport_run(struct arb_transport *t,
                                  void (*on_done)(void *ctx, const struct arb_http_result *r),
                                  void *ctx, struct arb_err *err)
{
    enum arb_status st = ARB_OK;
    CURLMcode mc;
    int running;

    if (t->in_run)
        return arb_err_set(err, ARB_EUSAGE, "arb_transport_run called from its own callback");
    t->in_run = 1;
    t->on_done = on_done;
    t->ctx = ctx;
    t->run_st = ARB_OK;
    while (has_work(t)) {
        if (atomic_load(&t->aborted)) {
            fail_all(t, ARB_EUSAGE, "aborted");
            continue;
        }
        promote_due(t, now_s());
        start_ready(t);
        mc = curl_multi_perform(t->multi, &running);
        if (mc) {
            st = multi_failed(t, mc, err);
            break;
        }
        drain_messages(t);
        /* A callback may have submitted, aborted, or made a slot free for a queued request. */
        if (atomic_load(&t->aborted) || (t->ready && t->n_active < t->o.concurrency))
            continue;
        if (!has_work(t))
            break;
        mc = curl_multi_poll(t->multi, NULL, 0, poll_timeout_ms(t), NULL);
        if (mc) {
            st = multi_failed(t, mc, err);
            break;
        }
    }
    if (!st && t->run_st)
        st = arb_err_set(err, t->run_st, "a request failed inside curl: %s",
                         arb_strerror(t->run_st));
    t->in_run = 0;
    t->on_done = NULL;
    t->ctx = NULL;
    return st;
}
