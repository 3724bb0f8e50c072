/*
 * Unit tests for how the judge transport gives out its slots
 * (src/judge/transport.c), against the tests' HTTP server (http_fixture.h):
 * a request waiting for its retry holds no slot, a slot freed by a success is
 * refilled before the success's callback runs (not before a failure's, which
 * may abort), arb_transport_step starts requests without calling back, and a
 * callback can end a run early with the rest handed over by the next run.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>
#include <curl/curl.h>

#include "arbiter/http.h"
#include "http_fixture.h"

#define MAX_DONE 64

/* What the callbacks saw, and what they should do. */
struct sched {
    struct arb_transport *t;
    struct hs_server *server;
    int n;
    void *user[MAX_DONE];
    enum arb_status st[MAX_DONE];
    double latency[MAX_DONE];
    size_t requests_seen[MAX_DONE]; /* requests the server had seen when the callback ran */
    int wait_for_requests;          /* the first callback waits up to 0.5 s for this many */
    int abort_on_first;
    int yield_on_first;
};

static void on_done(void *ctx, const struct arb_http_result *r)
{
    struct sched *s = ctx;
    int i = s->n++;

    cr_assert_lt(i, MAX_DONE);
    s->user[i] = r->user;
    s->st[i] = r->st;
    s->latency[i] = r->latency_s;
    if (i == 0 && s->wait_for_requests) {
        double until = hs_now() + 0.5;

        while (hs_requests(s->server) < (size_t)s->wait_for_requests && hs_now() < until) {
            struct timespec ts = {0, 2 * 1000000L};

            nanosleep(&ts, NULL);
        }
    }
    s->requests_seen[i] = hs_requests(s->server);
    if (i == 0 && s->abort_on_first)
        arb_transport_abort(s->t);
    if (i == 0 && s->yield_on_first)
        arb_transport_yield(s->t);
}

static struct arb_transport_opts opts(size_t concurrency)
{
    struct arb_transport_opts o = {0};

    o.concurrency = concurrency;
    o.timeout_ms = 5000;
    o.max_retries = 3;
    o.backoff_base_s = 0.01;
    o.backoff_max_s = 0.05;
    o.jitter_seed = 42;
    return o;
}

/* A transport for the server with n requests queued (user = 1..n). */
static struct arb_transport *queued(const struct arb_transport_opts *o, struct hs_server *server,
                                    int n)
{
    struct arb_transport *t;
    struct arb_err err = {{0}};
    char url[128];
    int i;

    hs_url(server, url, sizeof(url));
    cr_assert_eq(arb_transport_new(o, &t, &err), ARB_OK, "%s", err.msg);
    for (i = 0; i < n; i++) {
        struct arb_http_request req = {url, NULL, 0, "{}", 2, (void *)(long)(i + 1), 0};

        cr_assert_eq(arb_transport_submit(t, &req, &err), ARB_OK, "%s", err.msg);
    }
    return t;
}

static void global_init(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void global_fini(void)
{
    curl_global_cleanup();
}

TestSuite(transport_sched, .init = global_init, .fini = global_fini, .timeout = 30);

/* 16 requests of 100 ms at concurrency 2, the first answered 429 with Retry-After: 1.  Its
 * wait overlaps the others' work: about 1.2 s (the other 15 are done by 0.85 s, the retry
 * goes at 1.1 s).  A slot held through the wait would make it 1.6 s. */
Test(transport_sched, should_not_hold_a_slot_while_a_retry_waits)
{
    struct hs_reply script[] = {{429, "Retry-After: 1\r\n", "slow down", 0, 100, 0},
                                {200, "", "{}", 0, 100, 0}};
    struct arb_transport_opts o = opts(2);
    struct sched s = {0};
    struct hs_server server;
    struct arb_err err = {{0}};
    double t0, took;
    int i;

    hs_start(&server, script, 2);
    s.server = &server;
    s.t = queued(&o, &server, 16);
    t0 = hs_now();
    cr_assert_eq(arb_transport_run(s.t, on_done, &s, &err), ARB_OK, "%s", err.msg);
    took = hs_now() - t0;
    arb_transport_free(s.t);
    hs_stop(&server);
    cr_assert_eq(s.n, 16);
    for (i = 0; i < 15; i++) {
        cr_assert_eq(s.st[i], ARB_OK);
        cr_assert_lt(s.latency[i], 1.0, "request %d waited", i);
    }
    /* Requests 1 and 2 leave together: either may arrive first and get the 429. */
    cr_assert(s.user[15] == (void *)1 || s.user[15] == (void *)2, "the retried one ends last");
    cr_assert_eq(s.st[15], ARB_OK);
    cr_assert_geq(s.latency[15], 1.0, "Retry-After: 1 was not honoured");
    cr_assert_lt(took, 1.45, "16 x 100 ms at concurrency 2 with one 1 s wait took %.3f s", took);
}

/* The first reply's slot goes to request 3, on the wire before request 1's callback ends. */
Test(transport_sched, should_refill_a_slot_before_the_success_callback)
{
    struct hs_reply script[] = {{200, "", "{}", 0, 50, 0}};
    struct arb_transport_opts o = opts(2);
    struct sched s = {0};
    struct hs_server server;
    struct arb_err err = {{0}};

    hs_start(&server, script, 1);
    s.server = &server;
    s.wait_for_requests = 3;
    s.t = queued(&o, &server, 4);
    cr_assert_eq(arb_transport_run(s.t, on_done, &s, &err), ARB_OK, "%s", err.msg);
    arb_transport_free(s.t);
    hs_stop(&server);
    cr_assert_eq(s.n, 4);
    cr_assert_geq(s.requests_seen[0], 3, "the freed slot waited for the callback (%zu seen)",
                  s.requests_seen[0]);
    cr_assert_leq(server.max_in_flight, 2);
}

/* A failure's callback may abort (a 401): it runs before its slot is refilled, so nothing
 * more is sent. */
Test(transport_sched, should_run_a_failure_callback_before_refilling_its_slot)
{
    struct hs_reply script[] = {{401, "", "bad key", 0, 0, 0}, {200, "", "{}", 0, 300, 0}};
    struct arb_transport_opts o = opts(2);
    struct sched s = {0};
    struct hs_server server;
    struct arb_err err = {{0}};
    int i;

    hs_start(&server, script, 2);
    s.server = &server;
    s.abort_on_first = 1;
    s.wait_for_requests = 3; /* a refill would reach the server while the callback waits */
    s.t = queued(&o, &server, 5);
    cr_assert_eq(arb_transport_run(s.t, on_done, &s, &err), ARB_OK, "%s", err.msg);
    arb_transport_free(s.t);
    hs_stop(&server);
    cr_assert_eq(s.n, 5);
    cr_assert_eq(s.st[0], ARB_EIO);
    for (i = 1; i < 5; i++)
        cr_assert_eq(s.st[i], ARB_EUSAGE);
    cr_assert_eq(s.requests_seen[0], 2,
                 "%zu requests reached the server before the 401's "
                 "callback ended",
                 s.requests_seen[0]);
}

/* Replies that come back at once finish during the very calls that refill the slots: they
 * must be read then, not left holding their slots until some later socket event. */
Test(transport_sched, should_not_leave_slots_idle_after_instant_replies)
{
    struct hs_reply script[] = {{200, "", "{}", 0, 0, 0}};
    struct arb_transport_opts o = opts(4);
    struct sched s = {0};
    struct hs_server server;
    struct arb_err err = {{0}};
    double t0, took;

    hs_start(&server, script, 1);
    s.server = &server;
    s.t = queued(&o, &server, MAX_DONE);
    t0 = hs_now();
    cr_assert_eq(arb_transport_run(s.t, on_done, &s, &err), ARB_OK, "%s", err.msg);
    took = hs_now() - t0;
    arb_transport_free(s.t);
    hs_stop(&server);
    cr_assert_eq(s.n, MAX_DONE);
    cr_assert_lt(took, 0.5, "%d instant replies took %.3f s", MAX_DONE, took);
}

/* A step starts what the slots allow and calls nothing back, even once replies are in; the
 * run then hands every completion over. */
Test(transport_sched, should_start_requests_on_a_step_without_calling_back)
{
    struct hs_reply script[] = {{200, "", "{}", 0, 0, 0}};
    struct arb_transport_opts o = opts(2);
    struct sched s = {0};
    struct hs_server server;
    struct arb_err err = {{0}};
    struct timespec pause = {0, 20 * 1000000L};
    double until;
    int i;

    hs_start(&server, script, 1);
    s.server = &server;
    s.t = queued(&o, &server, 3);
    until = hs_now() + 2.0;
    while (hs_requests(&server) < 2 && hs_now() < until) {
        cr_assert_eq(arb_transport_step(s.t, &err), ARB_OK, "%s", err.msg);
        nanosleep(&pause, NULL);
    }
    cr_assert_eq(hs_requests(&server), 2, "the step did not put two requests on the wire");
    for (i = 0; i < 5; i++) {
        nanosleep(&pause, NULL);
        cr_assert_eq(arb_transport_step(s.t, &err), ARB_OK, "%s", err.msg);
    }
    cr_assert_eq(s.n, 0, "a step called back");
    cr_assert_eq(hs_requests(&server), 2, "a finished transfer gave up its slot before the run");
    cr_assert_eq(arb_transport_run(s.t, on_done, &s, &err), ARB_OK, "%s", err.msg);
    arb_transport_free(s.t);
    hs_stop(&server);
    cr_assert_eq(s.n, 3);
    for (i = 0; i < 3; i++)
        cr_assert_eq(s.st[i], ARB_OK);
    cr_assert_eq(s.user[2], (void *)3);
}

/* A callback that yields ends the run; the next run hands the rest over. */
Test(transport_sched, should_yield_and_hand_the_rest_over_in_the_next_run)
{
    struct hs_reply script[] = {{200, "", "{}", 0, 0, 0}};
    struct arb_transport_opts o = opts(4);
    struct sched s = {0};
    struct hs_server server;
    struct arb_err err = {{0}};

    hs_start(&server, script, 1);
    s.server = &server;
    s.yield_on_first = 1;
    s.t = queued(&o, &server, 6);
    cr_assert_eq(arb_transport_run(s.t, on_done, &s, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(s.n, 1, "%d callbacks before the yield took effect", s.n);
    cr_assert_eq(arb_transport_run(s.t, on_done, &s, &err), ARB_OK, "%s", err.msg);
    arb_transport_free(s.t);
    hs_stop(&server);
    cr_assert_eq(s.n, 6);
    cr_assert_eq(hs_requests(&server), 6);
}

static void step_from_callback(void *ctx, const struct arb_http_result *r)
{
    struct sched *s = ctx;
    struct arb_err err = {{0}};

    (void)r;
    s->st[s->n++] = arb_transport_step(s->t, &err);
}

Test(transport_sched, should_refuse_a_step_from_a_callback)
{
    struct hs_reply script[] = {{200, "", "{}", 0, 0, 0}};
    struct arb_transport_opts o = opts(1);
    struct sched s = {0};
    struct hs_server server;
    struct arb_err err = {{0}};

    hs_start(&server, script, 1);
    s.server = &server;
    s.t = queued(&o, &server, 1);
    cr_assert_eq(arb_transport_run(s.t, step_from_callback, &s, &err), ARB_OK, "%s", err.msg);
    arb_transport_free(s.t);
    hs_stop(&server);
    cr_assert_eq(s.n, 1);
    cr_assert_eq(s.st[0], ARB_EUSAGE);
}

/* At concurrency 1, requests start in the order they complete: those queued ahead go
 * before every fresh one not started, in the order they were queued ahead, and a fresh
 * request queued after them still goes last. */
Test(transport_sched, should_start_requests_queued_ahead_before_fresh_ones)
{
    struct hs_reply script[] = {{200, "", "{}", 0, 0, 0}};
    struct arb_transport_opts o = opts(1);
    struct sched s = {0};
    struct hs_server server;
    struct arb_err err = {{0}};
    char url[128];
    const long want[] = {4, 5, 1, 2, 3, 6};
    int i;

    hs_start(&server, script, 1);
    s.server = &server;
    s.t = queued(&o, &server, 3);
    hs_url(&server, url, sizeof(url));
    for (i = 4; i <= 6; i++) {
        struct arb_http_request req = {url, NULL, 0, "{}", 2, (void *)(long)i, i < 6};

        cr_assert_eq(arb_transport_submit(s.t, &req, &err), ARB_OK, "%s", err.msg);
    }
    cr_assert_eq(arb_transport_run(s.t, on_done, &s, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(s.n, 6);
    for (i = 0; i < 6; i++)
        cr_assert_eq((long)s.user[i], want[i], "request %d started as number %d", (int)want[i],
                     i + 1);
    /* Queued ahead into an empty queue: it is the queue's tail too. */
    {
        struct arb_http_request req = {url, NULL, 0, "{}", 2, (void *)7L, 1};
        struct arb_http_request fresh = {url, NULL, 0, "{}", 2, (void *)8L, 0};

        cr_assert_eq(arb_transport_submit(s.t, &req, &err), ARB_OK, "%s", err.msg);
        cr_assert_eq(arb_transport_submit(s.t, &fresh, &err), ARB_OK, "%s", err.msg);
        cr_assert_eq(arb_transport_run(s.t, on_done, &s, &err), ARB_OK, "%s", err.msg);
        cr_assert_eq(s.n, 8);
        cr_assert_eq((long)s.user[6], 7);
        cr_assert_eq((long)s.user[7], 8);
    }
    arb_transport_free(s.t);
    hs_stop(&server);
}

/* Four requests answered 60 ms apart on four connections: how many connections the client
 * had closed once the run returned (waiting up to 1 s for the server to see 3 closes). */
static size_t ended_after_run(int wind_down)
{
    struct hs_reply script[] = {{200, "", "{}", 0, 0, 0},
                                {200, "", "{}", 0, 60, 0},
                                {200, "", "{}", 0, 120, 0},
                                {200, "", "{}", 0, 180, 0}};
    struct arb_transport_opts o = opts(4);
    struct sched s = {0};
    struct hs_server server;
    struct arb_err err = {{0}};
    double until;
    size_t n;

    hs_start(&server, script, 4);
    s.server = &server;
    s.t = queued(&o, &server, 4);
    if (wind_down)
        arb_transport_wind_down(s.t);
    cr_assert_eq(arb_transport_run(s.t, on_done, &s, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(s.n, 4);
    until = hs_now() + (wind_down ? 1.0 : 0.1);
    while ((!wind_down || hs_ended(&server) < 3) && hs_now() < until) {
        struct timespec ts = {0, 5 * 1000000L};

        nanosleep(&ts, NULL);
    }
    n = hs_ended(&server);
    arb_transport_free(s.t);
    hs_stop(&server);
    return n;
}

/* Winding down (the caller has nothing more to send), a connection that falls idle is closed
 * as the next transfer finishes, while the last replies are awaited; otherwise all stay open
 * for reuse until the transport is freed. */
Test(transport_sched, should_close_idle_connections_while_winding_down)
{
    size_t n = ended_after_run(0);

    cr_assert_eq(n, 0, "%zu connections closed without winding down", n);
    n = ended_after_run(1);
    cr_assert_geq(n, 3, "%zu of 4 connections closed before the free", n);
}
