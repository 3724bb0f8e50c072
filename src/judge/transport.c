/*
 * transport.c - the judge's HTTP transport on one curl multi handle (see
 * include/arbiter/http.h): the scheduler.
 *
 * A request lives in exactly one place at a time: the FIFO of requests ready
 * to start, the list of requests waiting for a retry (ordered by due time),
 * the table of running transfers (at most `concurrency`, each on an easy
 * handle from a small pool, so connections are reused), or the FIFO of
 * completions whose callback is yet to run.  arb_transport_run turns the
 * crank: it starts ready requests, drives curl, classifies every finished
 * attempt (success, retry later, final failure) and sleeps on curl's
 * sockets no longer than the next due retry (curl is driven by its socket
 * events, transport_drive.c, so a call costs the transfers with news, not all).
 *
 * Slots go to work that can use them.  A request waiting for its retry holds
 * none: it is off the multi handle until due, and a due retry goes before the
 * queue.  The slots that successes free go to the next requests, put on the
 * wire before the successes' callbacks run (a callback stores its reply:
 * replies that arrive together would otherwise keep their slots idle while
 * each other's are stored); when a failure is among them, the callbacks run
 * first, in order, since one may abort.  arb_transport_step starts requests
 * between runs without calling back, and a callback may end a run early
 * (arb_transport_yield), so a caller can keep the slots busy while it does
 * other work.
 *
 * One request's copy, curl options and reply reading are transport_req.c's;
 * each attempt's reply headers are read for the wait the server asks for and
 * x-should-retry (transport_retry.c); what a curl code or a status means is
 * transport_fail.c's.  Error texts are built from fixed words, the HTTP
 * status and curl_easy_strerror(), never from curl's error buffer, the
 * request or the reply, so a header value (the API key) cannot reach them.
 * What a request or a reply body means (provider, JSON, tokens) is the
 * caller's business, told through the classify hook; curl_global_init is the
 * command line's.
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
#define IDLE_POLL_MS            1000  /* curl shortens this to its own timers */
#define STEP_PERFORM_S          0.002 /* between steps that start nothing, curl runs this often */

double transport_now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
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
    t->wake[0] = t->wake[1] = -1;
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
    t->max_conns = (long)t->o.concurrency;
    if (!mc)
        mc = curl_multi_setopt(t->multi, CURLMOPT_MAXCONNECTS, t->max_conns);
    if (!mc)
        mc = transport_drive_init(t);
    if (mc) {
        arb_transport_free(t);
        return arb_err_set(err, ARB_EINTERNAL, "curl multi: %s", curl_multi_strerror(mc));
    }
    *out = t;
    return ARB_OK;
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
        transport_req_free(t->active[i]);
    }
    if (t->multi)
        curl_multi_cleanup(t->multi);
    transport_drive_free(t);
    for (i = 0; i < t->n_idle; i++)
        curl_easy_cleanup(t->idle[i]);
    transport_req_free_list(t->ready);
    transport_req_free_list(t->waiting);
    transport_req_free_list(t->done);
    free(t->active);
    free(t->idle);
    free(t);
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
    st = transport_req_copy(r, req, err);
    if (st) {
        transport_req_free(r);
        return st;
    }
    if (req->ahead) {
        struct req **at = t->ahead_tail ? &t->ahead_tail->next : &t->ready;

        r->next = *at;
        *at = r;
        if (!r->next)
            t->ready_tail = r;
        t->ahead_tail = r;
        return ARB_OK;
    }
    if (t->ready_tail)
        t->ready_tail->next = r;
    else
        t->ready = r;
    t->ready_tail = r;
    return ARB_OK;
}

void arb_transport_yield(struct arb_transport *t)
{
    if (t->in_run)
        t->yield = 1;
}

void arb_transport_abort(struct arb_transport *t)
{
    atomic_store(&t->aborted, 1);
    /* Safe from any thread; gets a sleeping wait to look at the flag. */
    transport_drive_wake(t);
}

/*
 * Hand a finished request to on_done and free it.  why is the reason (NULL on
 * success); when the request took more than one attempt the count is
 * appended, except to "aborted".  Only ever from arb_transport_run.
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
    res.latency_s = r->attempts ? transport_now_s() - r->first_start : 0.0;
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
    transport_req_free(r);
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

/*
 * r has completed (st ARB_OK, or a failure and why): its callback runs when the run hands
 * the completions over, in the order they were made.  Never calls back, so it is safe while
 * no run is going (arb_transport_step).
 */
static void complete_later(struct arb_transport *t, struct req *r, enum arb_status st,
                           const char *why)
{
    r->outcome = st;
    snprintf(r->why, sizeof(r->why), "%s", st ? why : "");
    if (st)
        t->done_failed = 1;
    r->next = NULL;
    if (t->done_tail)
        t->done_tail->next = r;
    else
        t->done = r;
    t->done_tail = r;
}

static struct req *take_done(struct arb_transport *t)
{
    struct req *r = t->done;

    t->done = r->next;
    if (!t->done) {
        t->done_tail = NULL;
        t->done_failed = 0;
    }
    r->next = NULL;
    return r;
}

/*
 * Complete everything queued, waiting or running with the same failure.  A success whose
 * callback is not made yet counts as still running; a failure keeps its own reason.
 */
static void fail_all(struct arb_transport *t, enum arb_status st, const char *why)
{
    struct req *r;

    while (t->done) {
        r = take_done(t);
        if (r->outcome)
            complete(t, r, r->outcome, r->why);
        else
            complete(t, r, st, why);
    }
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
        if (r == t->ahead_tail)
            t->ahead_tail = NULL;
        complete(t, r, st, why);
    }
}

/* Put one attempt of r on the wire; on failure r is completed (complete_later). */
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
        complete_later(t, r, ARB_ENOMEM, "out of memory creating a curl handle");
        return;
    }
    rc = transport_req_options(t, e, r);
    if (rc) {
        t->idle[t->n_idle++] = e;
        complete_later(t, r, rc == CURLE_OUT_OF_MEMORY ? ARB_ENOMEM : ARB_EINTERNAL,
                       curl_easy_strerror(rc));
        return;
    }
    arb_buf_reset(&r->reply);
    transport_hints_clear(&r->hints);
    r->too_big = 0;
    r->no_mem = 0;
    r->attempt_start = transport_now_s();
    if (!r->attempts)
        r->first_start = r->attempt_start;
    r->attempts++;
    r->easy = e;
    mc = curl_multi_add_handle(t->multi, e);
    if (mc) {
        r->easy = NULL;
        t->idle[t->n_idle++] = e;
        complete_later(t, r, mc == CURLM_OUT_OF_MEMORY ? ARB_ENOMEM : ARB_EINTERNAL,
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
        if (r == t->ahead_tail)
            t->ahead_tail = NULL;
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
    r->due = transport_now_s() + delay;
    /* After any equal due time, so retries due together keep their order. */
    p = &t->waiting;
    while (*p && (*p)->due <= r->due)
        p = &(*p)->next;
    r->next = *p;
    *p = r;
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
                                (transport_now_s() - r->attempt_start) * 1000.0, why, sizeof(why));
        retry = transport_curl_retryable(rc);
    } else if (transport_req_outcome(t, r, &retry, why, sizeof(why))) {
        complete_later(t, r, ARB_OK, NULL);
        return;
    }
    if (retry && r->attempts <= t->o.max_retries) {
        schedule_retry(t, r, r->server_wait);
        return;
    }
    complete_later(t, r, st, why);
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

/*
 * Winding down: curl's connection cache shrinks to what the running transfers use while no
 * request is ready or waiting, so it closes a connection that fell idle when the next one
 * does, during the wait for the last replies (64 of them took 2.3-3.4 ms to close at once).
 */
static void keep_needed(struct arb_transport *t)
{
    long want = t->ready || t->waiting ? (long)t->o.concurrency : (long)t->n_active;

    if (want < 1)
        want = 1;
    if (want != t->max_conns && curl_multi_setopt(t->multi, CURLMOPT_MAXCONNECTS, want) == CURLM_OK)
        t->max_conns = want;
}

void arb_transport_wind_down(struct arb_transport *t)
{
    t->winding = 1;
}

/* Read curl's finished transfers into the completions and the retries; stops at an abort. */
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
    if (t->winding)
        keep_needed(t);
}

/* Milliseconds a wait may last: until the next due retry at the latest (curl's own timer
 * shortens it). */
static int poll_timeout_ms(struct arb_transport *t)
{
    double ms;

    if (!t->waiting)
        return IDLE_POLL_MS;
    ms = (t->waiting->due - transport_now_s()) * 1000.0 + 1.0;
    if (ms <= 0)
        return 0;
    return ms > IDLE_POLL_MS ? IDLE_POLL_MS : (int)ms;
}

static int has_work(const struct arb_transport *t)
{
    return t->ready || t->waiting || t->n_active || t->done;
}

/*
 * Give the slots that finished transfers freed to the next requests and put those on the
 * wire, unless a failure's callback (which may abort) is pending.  A failure of the multi
 * handle is left for the run loop's next call, which meets it again.
 */
static void refill(struct arb_transport *t)
{
    if (t->done_failed || atomic_load(&t->aborted))
        return;
    promote_due(t, transport_now_s());
    start_ready(t);
    transport_drive(t, 0, NULL);
}

/* Between two callbacks: when a socket has news, read what finished and refill its slot, so
 * that a reply arriving while others are stored does not wait for all of them. */
static void catch_up(struct arb_transport *t)
{
    int ready = 0;

    if (transport_drive(t, 0, &ready) || !ready)
        return;
    drain_messages(t);
    refill(t);
}

/* Make the callbacks of the completions, in order; stops when one aborts (see fail_all) or
 * yields (the rest are handed over first in the next run). */
static void deliver(struct arb_transport *t)
{
    while (t->done && !atomic_load(&t->aborted) && !t->yield) {
        struct req *r = take_done(t);

        complete(t, r, r->outcome, r->outcome ? r->why : NULL);
        if (t->done)
            catch_up(t);
    }
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

enum arb_status arb_transport_step(struct arb_transport *t, struct arb_err *err)
{
    CURLMcode mc;
    size_t was_active;
    double now;

    if (t->in_run)
        return arb_err_set(err, ARB_EUSAGE, "arb_transport_step called from a callback");
    if (atomic_load(&t->aborted))
        return ARB_OK; /* the next run fails what is queued */
    now = transport_now_s();
    was_active = t->n_active;
    promote_due(t, now);
    start_ready(t);
    /* A transfer just started needs curl now; the others (a connection being set up, a
     * request being written) now and then, since each call visits every transfer. */
    if (!t->n_active || (t->n_active == was_active && now - t->stepped < STEP_PERFORM_S))
        return ARB_OK;
    t->stepped = now;
    /* Finished transfers stay in curl's queue, holding their slots, until the next run; a
     * failure of the multi handle is left for the run to meet again and fail everything.  A
     * new connection is set up on the first call and used on the next, when ready at once
     * (loopback, a connection reused): a glance at the sockets, no wait, in between. */
    mc = transport_drive(t, 0, NULL);
    if (!mc && t->n_active > was_active)
        mc = transport_drive(t, 0, NULL);
    if (mc)
        return arb_err_set(err, mc == CURLM_OUT_OF_MEMORY ? ARB_ENOMEM : ARB_EINTERNAL,
                           "curl multi: %s", curl_multi_strerror(mc));
    return ARB_OK;
}

void arb_transport_on_idle(struct arb_transport *t, void (*on_idle)(void *ctx))
{
    t->on_idle = on_idle;
}

enum arb_status arb_transport_run(struct arb_transport *t,
                                  void (*on_done)(void *ctx, const struct arb_http_result *r),
                                  void *ctx, struct arb_err *err)
{
    enum arb_status st = ARB_OK;
    CURLMcode mc;

    if (t->in_run)
        return arb_err_set(err, ARB_EUSAGE, "arb_transport_run called from its own callback");
    t->in_run = 1;
    t->yield = 0;
    t->on_done = on_done;
    t->ctx = ctx;
    t->run_st = ARB_OK;
    while (has_work(t) && !t->yield) {
        if (atomic_load(&t->aborted)) {
            fail_all(t, ARB_EUSAGE, "aborted");
            continue;
        }
        promote_due(t, transport_now_s());
        start_ready(t);
        mc = transport_drive(t, 0, NULL);
        if (mc) {
            st = multi_failed(t, mc, err);
            break;
        }
        drain_messages(t);
        /* The slots the successes freed first: the next requests go on the wire while the
         * callbacks store the replies. */
        if (t->done)
            refill(t);
        deliver(t);
        /* Transfers that finished during the refills: read now, or their slots would wait
         * for the next socket event. */
        drain_messages(t);
        /* A callback may have submitted, aborted, yielded, or made a slot free. */
        if (atomic_load(&t->aborted) || t->yield || t->done ||
            (t->ready && t->n_active < t->o.concurrency))
            continue;
        if (!has_work(t))
            break;
        if (t->on_idle) {
            t->on_idle(ctx);
            if (atomic_load(&t->aborted))
                continue;
        }
        mc = transport_drive(t, poll_timeout_ms(t), NULL);
        if (mc) {
            st = multi_failed(t, mc, err);
            break;
        }
    }
    if (!st && t->run_st)
        st = arb_err_set(err, t->run_st, "a request failed inside curl: %s",
                         arb_strerror(t->run_st));
    t->in_run = 0;
    t->yield = 0;
    t->on_done = NULL;
    t->ctx = NULL;
    return st;
}
