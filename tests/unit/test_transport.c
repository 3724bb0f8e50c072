/*
 * Unit tests for the judge transport (src/judge/transport.c) against a real
 * HTTP/1.1 server on 127.0.0.1 that each test starts in a thread
 * (http_fixture.h: a script of replies consumed in arrival order).
 *
 * The header parsers themselves are tested in test_transport_retry.c; how
 * the transport gives out its slots, in test_transport_sched.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <curl/curl.h>

#include "arbiter/http.h"
#include "http_fixture.h"

#define CANARY "CANARY-7f3a9c"

/* What the completion callback saw, plus what it should do. */
struct seen {
    struct arb_transport *t;
    int n;
    struct {
        enum arb_status st;
        long status;
        char body[256];
        size_t body_len;
        int attempts;
        double latency_s;
        char content_type[96];
        double server_wait_s;
        char error[256];
        void *user;
    } r[32];
    int abort_on_first;
    const char *followup_url;
};

static void on_done(void *ctx, const struct arb_http_result *res)
{
    struct seen *s = ctx;
    int i = s->n++;

    cr_assert_lt(i, 32);
    s->r[i].st = res->st;
    s->r[i].status = res->status;
    snprintf(s->r[i].body, sizeof(s->r[i].body), "%s", res->body);
    s->r[i].body_len = res->body_len;
    s->r[i].attempts = res->attempts;
    s->r[i].latency_s = res->latency_s;
    snprintf(s->r[i].content_type, sizeof(s->r[i].content_type), "%s", res->content_type);
    s->r[i].server_wait_s = res->server_wait_s;
    snprintf(s->r[i].error, sizeof(s->r[i].error), "%s", res->error);
    s->r[i].user = res->user;
    if (i == 0 && s->abort_on_first)
        arb_transport_abort(s->t);
    if (i == 0 && s->followup_url) {
        struct arb_http_request req = {s->followup_url, NULL, 0, "next", 4, (void *)2, 0};
        struct arb_err err;

        cr_assert_eq(arb_transport_submit(s->t, &req, &err), ARB_OK);
    }
}

/* Submit n identical requests (user = 1..n), run them all, return the wall time. */
static double run_n(const struct arb_transport_opts *o, const char *url, const char *const *hdrs,
                    size_t n_hdrs, int n, struct seen *seen)
{
    struct arb_err err;
    double t0;
    int i;

    cr_assert_eq(arb_transport_new(o, &seen->t, &err), ARB_OK, "%s", err.msg);
    for (i = 0; i < n; i++) {
        struct arb_http_request req = {url, hdrs, n_hdrs, "{\"q\":1}", 7, (void *)(long)(i + 1), 0};

        cr_assert_eq(arb_transport_submit(seen->t, &req, &err), ARB_OK, "%s", err.msg);
    }
    t0 = hs_now();
    cr_assert_eq(arb_transport_run(seen->t, on_done, seen, &err), ARB_OK, "%s", err.msg);
    t0 = hs_now() - t0;
    arb_transport_free(seen->t);
    seen->t = NULL;
    return t0;
}

/* Serve the script, run n requests against it, stop the server; returns the run's wall time. */
static double serve_and_run(struct hs_server *s, const struct hs_reply *script, size_t n_script,
                            const struct arb_transport_opts *o, const char *const *hdrs,
                            size_t n_hdrs, int n, struct seen *seen)
{
    char url[128];
    double took;

    hs_start(s, script, n_script);
    hs_url(s, url, sizeof(url));
    took = run_n(o, url, hdrs, n_hdrs, n, seen);
    hs_stop(s);
    return took;
}

/* Fast retries unless a test says otherwise. */
static struct arb_transport_opts quick_opts(void)
{
    struct arb_transport_opts o = {0};

    o.concurrency = 4;
    o.timeout_ms = 5000;
    o.max_retries = 3;
    o.backoff_base_s = 0.01;
    o.backoff_max_s = 0.05;
    o.jitter_seed = 42;
    return o;
}

static void global_init(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void global_fini(void)
{
    curl_global_cleanup();
}

TestSuite(transport, .init = global_init, .fini = global_fini, .timeout = 30);

Test(transport, should_post_and_return_the_reply_body)
{
    struct hs_reply script[] = {{200, "", "{\"answer\":42}", 0, 0, 0}};
    const char *hdrs[] = {"Content-Type: application/json"};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;

    serve_and_run(&s, script, 1, &o, hdrs, 1, 1, &seen);
    cr_assert_eq(seen.n, 1);
    cr_assert_eq(seen.r[0].st, ARB_OK);
    cr_assert_eq(seen.r[0].status, 200);
    cr_assert_str_eq(seen.r[0].body, "{\"answer\":42}");
    cr_assert_eq(seen.r[0].body_len, 13);
    cr_assert_eq(seen.r[0].attempts, 1);
    cr_assert_str_eq(seen.r[0].error, "");
    cr_assert_eq(seen.r[0].user, (void *)1);
    cr_assert_gt(seen.r[0].latency_s, 0.0);
    cr_assert(strstr(s.seen, "POST /v1/chat/completions HTTP/1.1\r\n"));
    cr_assert(strstr(s.seen, "Content-Type: application/json\r\n"));
    cr_assert_str_eq(s.last_body, "{\"q\":1}");
}

Test(transport, should_run_transfers_concurrently)
{
    struct hs_reply script[] = {{200, "", "slow", 0, 200, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;
    double took;
    int i;

    o.concurrency = 10;
    took = serve_and_run(&s, script, 1, &o, NULL, 0, 10, &seen);
    cr_assert_eq(seen.n, 10);
    for (i = 0; i < 10; i++)
        cr_assert_eq(seen.r[i].st, ARB_OK);
    cr_assert_lt(took, 1.0, "10 requests of 200 ms at concurrency 10 took %.3f s", took);
    cr_assert_geq(took, 0.19);
}

Test(transport, should_bound_concurrency_and_reuse_connections)
{
    struct hs_reply script[] = {{200, "", "slow", 0, 200, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;
    double took;
    int i;

    o.concurrency = 2;
    took = serve_and_run(&s, script, 1, &o, NULL, 0, 10, &seen);
    cr_assert_eq(seen.n, 10);
    for (i = 0; i < 10; i++)
        cr_assert_eq(seen.r[i].st, ARB_OK);
    cr_assert_geq(took, 0.9, "10 requests of 200 ms at concurrency 2 took %.3f s", took);
    cr_assert_leq(s.max_in_flight, 2);
    cr_assert_leq(s.n_conns, 2, "%zu connections for 10 requests", s.n_conns);
}

Test(transport, should_retry_after_a_server_error)
{
    struct hs_reply script[] = {{500, "", "oops", 0, 0, 0}, {200, "", "fine", 0, 0, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;

    serve_and_run(&s, script, 2, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].st, ARB_OK);
    cr_assert_eq(seen.r[0].attempts, 2);
    cr_assert_str_eq(seen.r[0].body, "fine");
    cr_assert_eq(s.n_requests, 2);
}

Test(transport, should_retry_a_reply_cut_short_when_replies_are_json)
{
    struct hs_reply script[] = {{200, "", "{\"choices\": [{\"mess", 0, 0, 0},
                                {200, "", "{\"ok\": 1} <html>", 0, 0, 0},
                                {200, "", "{\"ok\": true}", 0, 0, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;

    o.json_replies = 1;
    serve_and_run(&s, script, 3, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].st, ARB_OK, "%s", seen.r[0].error);
    cr_assert_eq(seen.r[0].attempts, 3, "a value followed by junk is not a JSON reply either");
    cr_assert_str_eq(seen.r[0].body, "{\"ok\": true}");
}

Test(transport, should_fail_a_reply_never_json_after_every_retry)
{
    struct hs_reply script[] = {{200, "", "<html>gateway</html>", 0, 0, 0},
                                {200, "", "<html>gateway</html>", 0, 0, 0},
                                {200, "", "<html>gateway</html>", 0, 0, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;

    o.json_replies = 1;
    o.max_retries = 2;
    serve_and_run(&s, script, 3, &o, NULL, 0, 1, &seen);
    cr_assert_neq(seen.r[0].st, ARB_OK);
    cr_assert_eq(seen.r[0].attempts, 3);
    cr_assert(strstr(seen.r[0].error, "not JSON") != NULL, "%s", seen.r[0].error);
}

Test(transport, should_retry_when_the_server_hangs_up)
{
    struct hs_reply script[] = {{0, "", "", 0, 0, 1}, {200, "", "fine", 0, 0, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;

    serve_and_run(&s, script, 2, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].st, ARB_OK, "%s", seen.r[0].error);
    cr_assert_eq(seen.r[0].attempts, 2);
    cr_assert_str_eq(seen.r[0].body, "fine");
}

Test(transport, should_wait_for_retry_after)
{
    struct hs_reply script[] = {{429, "Retry-After: 1\r\n", "slow down", 0, 0, 0},
                                {200, "", "fine", 0, 0, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;
    double gap;

    serve_and_run(&s, script, 2, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].st, ARB_OK);
    cr_assert_eq(seen.r[0].attempts, 2);
    cr_assert_eq(s.n_requests, 2);
    gap = s.arrival[1] - s.arrival[0];
    cr_assert_geq(gap, 0.9, "retried %.3f s after a Retry-After of 1 s", gap);
    cr_assert_lt(gap, 2.5);
}

Test(transport, should_forget_retry_after_on_the_next_attempt)
{
    struct hs_reply script[] = {{429, "Retry-After: 1\r\n", "slow down", 0, 0, 0},
                                {503, "", "busy", 0, 0, 0},
                                {200, "", "fine", 0, 0, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;
    double gap;

    o.concurrency = 1;
    serve_and_run(&s, script, 3, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].st, ARB_OK);
    cr_assert_eq(seen.r[0].attempts, 3);
    gap = s.arrival[2] - s.arrival[1];
    cr_assert_lt(gap, 0.5, "the 503 without Retry-After still waited %.3f s", gap);
}

Test(transport, should_let_other_transfers_run_while_one_waits)
{
    struct hs_reply script[] = {{429, "Retry-After: 1\r\n", "slow down", 0, 0, 0},
                                {200, "", "fine", 0, 0, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;

    o.concurrency = 1;
    serve_and_run(&s, script, 2, &o, NULL, 0, 3, &seen);
    cr_assert_eq(seen.n, 3);
    /* Requests 2 and 3 finish during request 1's wait, so it completes last. */
    cr_assert_eq(seen.r[0].user, (void *)2);
    cr_assert_eq(seen.r[1].user, (void *)3);
    cr_assert_eq(seen.r[2].user, (void *)1);
    cr_assert_lt(seen.r[0].latency_s, 0.5);
    cr_assert_geq(seen.r[2].latency_s, 0.9);
}

Test(transport, should_give_up_after_max_retries)
{
    struct hs_reply script[] = {{503, "", "busy", 0, 0, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;

    o.max_retries = 2;
    serve_and_run(&s, script, 1, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].st, ARB_EIO);
    cr_assert_eq(seen.r[0].status, 503);
    cr_assert_eq(seen.r[0].attempts, 3);
    cr_assert_str_eq(seen.r[0].error, "HTTP 503 after 3 attempts");
    cr_assert_str_eq(seen.r[0].body, "busy");
    cr_assert_eq(s.n_requests, 3);
}

Test(transport, should_not_retry_when_negative_retries)
{
    struct hs_reply script[] = {{500, "", "oops", 0, 0, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;

    o.max_retries = -1;
    serve_and_run(&s, script, 1, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].attempts, 1);
    cr_assert_str_eq(seen.r[0].error, "HTTP 500");
    cr_assert_eq(s.n_requests, 1);
}

Test(transport, should_not_retry_unauthorized)
{
    struct hs_reply script[] = {{401, "", "bad key", 0, 0, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;

    serve_and_run(&s, script, 1, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].st, ARB_EIO);
    cr_assert_eq(seen.r[0].status, 401);
    cr_assert_eq(seen.r[0].attempts, 1);
    cr_assert_str_eq(seen.r[0].error, "HTTP 401");
    cr_assert_eq(s.n_requests, 1);
}

Test(transport, should_retry_refused_connections)
{
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    char url[128];

    o.max_retries = 2;
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/", hs_closed_port());
    run_n(&o, url, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].st, ARB_EIO);
    cr_assert_eq(seen.r[0].status, 0);
    cr_assert_eq(seen.r[0].attempts, 3);
    cr_assert_str_eq(seen.r[0].error,
                     "connection refused (curl: Couldn't connect to server) after 3 attempts");
}

Test(transport, should_time_out_a_slow_reply)
{
    struct hs_reply script[] = {{200, "", "late", 0, 1500, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;
    double took;

    o.timeout_ms = 300;
    o.max_retries = -1;
    took = serve_and_run(&s, script, 1, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].st, ARB_EIO);
    cr_assert_str_eq(seen.r[0].error, "timed out after 300 ms");
    cr_assert_lt(took, 1.2);
}

Test(transport, should_refuse_a_reply_past_max_body)
{
    static char big[100000];
    struct hs_reply script[] = {{200, "", big, sizeof(big), 0, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;

    memset(big, 'x', sizeof(big));
    o.max_body = 1000;
    serve_and_run(&s, script, 1, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].st, ARB_ETOOBIG);
    cr_assert_eq(seen.r[0].attempts, 1);
    cr_assert_str_eq(seen.r[0].error, "reply larger than 1000 bytes");
    cr_assert_leq(seen.r[0].body_len, 1000);
}

Test(transport, should_accept_a_reply_of_exactly_max_body)
{
    static char exact[1000];
    struct hs_reply script[] = {{200, "", exact, sizeof(exact), 0, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;

    memset(exact, 'y', sizeof(exact));
    o.max_body = sizeof(exact);
    serve_and_run(&s, script, 1, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].st, ARB_OK, "%s", seen.r[0].error);
    cr_assert_eq(seen.r[0].body_len, 1000);
}

Test(transport, should_abort_the_rest_from_the_callback)
{
    struct hs_reply script[] = {{200, "", "first", 0, 0, 0}, {200, "", "never", 0, 3000, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;
    double took;
    int i;

    o.concurrency = 2;
    seen.abort_on_first = 1;
    took = serve_and_run(&s, script, 2, &o, NULL, 0, 5, &seen);
    cr_assert_eq(seen.n, 5);
    cr_assert_eq(seen.r[0].st, ARB_OK);
    for (i = 1; i < 5; i++) {
        cr_assert_eq(seen.r[i].st, ARB_EUSAGE);
        cr_assert_str_eq(seen.r[i].error, "aborted");
    }
    cr_assert_lt(took, 1.5, "abort took %.3f s", took);
}

Test(transport, should_refuse_submissions_after_abort)
{
    struct arb_transport *t;
    struct arb_http_request req = {"http://127.0.0.1:1/", NULL, 0, NULL, 0, NULL, 0};
    struct arb_err err;

    cr_assert_eq(arb_transport_new(NULL, &t, &err), ARB_OK);
    arb_transport_abort(t);
    cr_assert_eq(arb_transport_submit(t, &req, &err), ARB_EUSAGE);
    cr_assert_str_eq(err.msg, "transport aborted");
    arb_transport_free(t);
}

Test(transport, should_send_headers_but_keep_them_out_of_errors)
{
    struct hs_reply script[] = {{500, "", "oops", 0, 0, 0}};
    const char *hdrs[] = {"Authorization: Bearer " CANARY, "Content-Type: application/json"};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;
    char url[128];
    int i;

    o.max_retries = 1;
    o.connect_timeout_ms = 1000; /* the .invalid name below must not wait on a slow resolver */
    serve_and_run(&s, script, 1, &o, hdrs, 2, 1, &seen);
    cr_assert(strstr(s.seen, "Authorization: Bearer " CANARY "\r\n"));
    cr_assert_str_eq(seen.r[0].error, "HTTP 500 after 2 attempts");

    snprintf(url, sizeof(url), "http://127.0.0.1:%d/", hs_closed_port());
    run_n(&o, url, hdrs, 2, 1, &seen);
    snprintf(url, sizeof(url), "http://" CANARY ".invalid/");
    run_n(&o, url, hdrs, 2, 1, &seen);
    cr_assert_eq(seen.n, 3);
    for (i = 0; i < seen.n; i++) {
        cr_assert_neq(seen.r[i].st, ARB_OK);
        cr_assert_null(strstr(seen.r[i].error, CANARY), "error leaks: %s", seen.r[i].error);
        cr_assert_null(strstr(seen.r[i].error, "Bearer"), "error leaks: %s", seen.r[i].error);
    }
}

Test(transport, should_refuse_a_header_with_a_line_break)
{
    const char *hdrs[] = {"X-Ok: 1", "X-Evil: a\r\nX-Injected: " CANARY};
    struct arb_http_request req = {"http://127.0.0.1:1/", hdrs, 2, "", 0, NULL, 0};
    struct arb_transport *t;
    struct arb_err err;

    cr_assert_eq(arb_transport_new(NULL, &t, &err), ARB_OK);
    cr_assert_eq(arb_transport_submit(t, &req, &err), ARB_EUSAGE);
    cr_assert_null(strstr(err.msg, CANARY));
    arb_transport_free(t);
}

Test(transport, should_complete_a_request_submitted_from_the_callback)
{
    struct hs_reply script[] = {{200, "", "ok", 0, 0, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;
    char url[128];

    hs_start(&s, script, 1);
    hs_url(&s, url, sizeof(url));
    seen.followup_url = url;
    run_n(&o, url, NULL, 0, 1, &seen);
    hs_stop(&s);
    cr_assert_eq(seen.n, 2);
    cr_assert_eq(seen.r[0].user, (void *)1);
    cr_assert_eq(seen.r[1].user, (void *)2);
    cr_assert_eq(seen.r[1].st, ARB_OK);
    cr_assert_str_eq(s.last_body, "next");
}

Test(transport, should_run_again_after_a_run)
{
    struct hs_reply script[] = {{200, "", "ok", 0, 0, 0}};
    struct arb_http_request req = {NULL, NULL, 0, "x", 1, NULL, 0};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;
    struct arb_err err;
    char url[128];

    hs_start(&s, script, 1);
    hs_url(&s, url, sizeof(url));
    req.url = url;
    cr_assert_eq(arb_transport_new(&o, &seen.t, &err), ARB_OK);
    cr_assert_eq(arb_transport_run(seen.t, on_done, &seen, &err), ARB_OK);
    cr_assert_eq(seen.n, 0);
    cr_assert_eq(arb_transport_submit(seen.t, &req, &err), ARB_OK);
    cr_assert_eq(arb_transport_run(seen.t, on_done, &seen, &err), ARB_OK);
    cr_assert_eq(arb_transport_submit(seen.t, &req, &err), ARB_OK);
    cr_assert_eq(arb_transport_run(seen.t, on_done, &seen, &err), ARB_OK);
    arb_transport_free(seen.t);
    hs_stop(&s);
    cr_assert_eq(seen.n, 2);
    cr_assert_eq(s.n_conns, 1, "the second run opened a new connection");
}

/* ---- what the server asks: waits, x-should-retry, 409 ---- */

/* Backoff so short that only the server's wait can explain a long gap. */
static struct arb_transport_opts tiny_backoff_opts(void)
{
    struct arb_transport_opts o = quick_opts();

    o.concurrency = 1;
    o.backoff_base_s = 0.001;
    o.backoff_max_s = 0.002;
    return o;
}

/* The gap between the first two requests the server saw, after a run that took 2 attempts. */
static double retry_gap(const struct hs_server *s, const struct seen *seen)
{
    cr_assert_eq(seen->r[0].st, ARB_OK, "%s", seen->r[0].error);
    cr_assert_eq(seen->r[0].attempts, 2);
    cr_assert_geq(s->n_requests, 2);
    return s->arrival[1] - s->arrival[0];
}

Test(transport, should_wait_for_retry_after_ms)
{
    struct hs_reply script[] = {{429, "retry-after-ms: 300\r\n", "slow down", 0, 0, 0},
                                {200, "", "fine", 0, 0, 0}};
    struct arb_transport_opts o = tiny_backoff_opts();
    struct seen seen = {0};
    struct hs_server s;
    double gap;

    serve_and_run(&s, script, 2, &o, NULL, 0, 1, &seen);
    gap = retry_gap(&s, &seen);
    cr_assert_geq(gap, 0.28, "retried %.3f s after retry-after-ms: 300", gap);
}

Test(transport, should_prefer_retry_after_ms_to_retry_after)
{
    struct hs_reply script[] = {
        {503, "Retry-After: 20\r\nRetry-After-Ms: 150\r\n", "busy", 0, 0, 0},
        {200, "", "fine", 0, 0, 0}};
    struct arb_transport_opts o = tiny_backoff_opts();
    struct seen seen = {0};
    struct hs_server s;
    double took;

    took = serve_and_run(&s, script, 2, &o, NULL, 0, 1, &seen);
    cr_assert_geq(retry_gap(&s, &seen), 0.13);
    cr_assert_lt(took, 10.0, "waited for Retry-After (20 s) instead of retry-after-ms");
}

Test(transport, should_wait_for_an_openai_reset_on_a_429)
{
    struct hs_reply script[] = {
        {429, "x-ratelimit-reset-requests: 0.4s\r\nx-ratelimit-reset-tokens: 20ms\r\n", "limit", 0,
         0, 0},
        {200, "", "fine", 0, 0, 0}};
    struct arb_transport_opts o = tiny_backoff_opts();
    struct seen seen = {0};
    struct hs_server s;
    double gap;

    serve_and_run(&s, script, 2, &o, NULL, 0, 1, &seen);
    gap = retry_gap(&s, &seen);
    cr_assert_geq(gap, 0.38, "retried %.3f s after a reset of 0.4 s", gap);
}

Test(transport, should_wait_for_an_anthropic_reset_time_on_a_429)
{
    char headers[128];
    struct hs_reply script[] = {{429, headers, "limit", 0, 0, 0}, {200, "", "fine", 0, 0, 0}};
    struct arb_transport_opts o = tiny_backoff_opts();
    struct seen seen = {0};
    struct hs_server s;
    time_t at = time(NULL) + 2; /* whole seconds: between 1 and 2 s from now */
    struct tm tm;
    double gap;

    gmtime_r(&at, &tm);
    strftime(headers, sizeof(headers),
             "anthropic-ratelimit-tokens-reset: %Y-%m-%dT%H:%M:%SZ\r\n"
             "anthropic-ratelimit-requests-reset: 2020-01-01T00:00:00Z\r\n",
             &tm);
    serve_and_run(&s, script, 2, &o, NULL, 0, 1, &seen);
    gap = retry_gap(&s, &seen);
    cr_assert_geq(gap, 0.9, "retried %.3f s before the reset time", gap);
}

Test(transport, should_not_wait_for_a_reset_unless_rate_limited)
{
    struct hs_reply script[] = {{503, "x-ratelimit-reset-requests: 20s\r\n", "busy", 0, 0, 0},
                                {200, "", "fine", 0, 0, 0}};
    struct arb_transport_opts o = tiny_backoff_opts();
    struct seen seen = {0};
    struct hs_server s;
    double took;

    took = serve_and_run(&s, script, 2, &o, NULL, 0, 1, &seen);
    retry_gap(&s, &seen);
    cr_assert_lt(took, 10.0, "a 503 waited for a rate-limit reset");
}

Test(transport, should_cap_the_server_wait)
{
    struct hs_reply script[] = {{429, "retry-after-ms: 30000\r\n", "slow down", 0, 0, 0},
                                {200, "", "fine", 0, 0, 0}};
    struct arb_transport_opts o = tiny_backoff_opts();
    struct seen seen = {0};
    struct hs_server s;
    double took, gap;

    o.retry_after_max_s = 0.2;
    took = serve_and_run(&s, script, 2, &o, NULL, 0, 1, &seen);
    gap = retry_gap(&s, &seen);
    cr_assert_geq(gap, 0.18);
    cr_assert_lt(took, 15.0, "waited past retry_after_max_s");
}

Test(transport, should_report_the_server_wait_and_content_type)
{
    struct hs_reply script[] = {
        {429, "retry-after-ms: 50\r\nContent-Type: application/json\r\n", "{}", 0, 0, 0}};
    struct arb_transport_opts o = tiny_backoff_opts();
    struct seen seen = {0};
    struct hs_server s;

    o.max_retries = 2;
    serve_and_run(&s, script, 1, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].st, ARB_EIO);
    cr_assert_str_eq(seen.r[0].error, "HTTP 429 after 3 attempts");
    cr_assert_float_eq(seen.r[0].server_wait_s, 0.05, 1e-9);
    cr_assert_str_eq(seen.r[0].content_type, "application/json");
}

Test(transport, should_report_no_wait_and_the_type_of_a_plain_reply)
{
    struct hs_reply script[] = {{200, "", "ok", 0, 0, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;

    serve_and_run(&s, script, 1, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].st, ARB_OK);
    cr_assert_eq(seen.r[0].server_wait_s, 0.0);
    cr_assert_str_eq(seen.r[0].content_type, "text/plain");
}

Test(transport, should_report_no_content_type_after_a_network_failure)
{
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    char url[128];

    o.max_retries = -1;
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/", hs_closed_port());
    run_n(&o, url, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].status, 0);
    cr_assert_str_eq(seen.r[0].content_type, "");
    cr_assert_eq(seen.r[0].server_wait_s, 0.0);
}

Test(transport, should_not_retry_when_the_server_says_not_to)
{
    struct hs_reply script[] = {{500, "x-should-retry: false\r\n", "oops", 0, 0, 0},
                                {200, "", "fine", 0, 0, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;

    serve_and_run(&s, script, 2, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].st, ARB_EIO);
    cr_assert_eq(seen.r[0].attempts, 1);
    cr_assert_str_eq(seen.r[0].error, "HTTP 500");
    cr_assert_eq(s.n_requests, 1);
}

Test(transport, should_retry_a_client_error_when_the_server_says_to)
{
    struct hs_reply script[] = {{400, "X-Should-Retry: true\r\n", "try again", 0, 0, 0},
                                {200, "", "fine", 0, 0, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;

    serve_and_run(&s, script, 2, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].st, ARB_OK, "%s", seen.r[0].error);
    cr_assert_eq(seen.r[0].attempts, 2);
    cr_assert_str_eq(seen.r[0].body, "fine");
}

Test(transport, should_retry_what_the_server_says_only_within_max_retries)
{
    struct hs_reply script[] = {{404, "x-should-retry: true\r\n", "gone", 0, 0, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;

    o.max_retries = 2;
    serve_and_run(&s, script, 1, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].attempts, 3);
    cr_assert_str_eq(seen.r[0].error, "HTTP 404 after 3 attempts");
}

Test(transport, should_never_retry_unauthorized_even_when_the_server_says_to)
{
    struct hs_reply script[] = {{401, "x-should-retry: true\r\n", "bad key", 0, 0, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;

    serve_and_run(&s, script, 1, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].attempts, 1);
    cr_assert_eq(s.n_requests, 1);
}

Test(transport, should_retry_a_conflict)
{
    struct hs_reply script[] = {{409, "", "conflict", 0, 0, 0}, {200, "", "fine", 0, 0, 0}};
    struct arb_transport_opts o = quick_opts();
    struct seen seen = {0};
    struct hs_server s;

    serve_and_run(&s, script, 2, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].st, ARB_OK, "%s", seen.r[0].error);
    cr_assert_eq(seen.r[0].attempts, 2);
}

/* ---- the classify hook ---- */

/* A classify hook: answers `verdict` for a body containing `when` (else AS_USUAL), and notes
 * what it was shown. */
struct hook {
    enum arb_http_verdict verdict;
    const char *when;
    int calls;
    long status;
    char content_type[96];
    char body[64];
    size_t len;
};

static enum arb_http_verdict classify_hook(void *ctx, long status, const char *content_type,
                                           const char *body, size_t len)
{
    struct hook *h = ctx;

    h->calls++;
    h->status = status;
    snprintf(h->content_type, sizeof(h->content_type), "%s", content_type);
    snprintf(h->body, sizeof(h->body), "%s", body);
    h->len = len;
    return strstr(body, h->when) ? h->verdict : ARB_HTTP_AS_USUAL;
}

static struct arb_transport_opts hooked_opts(struct hook *h)
{
    struct arb_transport_opts o = quick_opts();

    o.classify = classify_hook;
    o.classify_ctx = h;
    return o;
}

Test(transport, should_stop_at_once_on_a_final_verdict)
{
    struct hs_reply script[] = {{429, "x-should-retry: true\r\nretry-after-ms: 5000\r\n",
                                 "{\"error\": {\"code\": \"insufficient_quota\"}}", 0, 0, 0},
                                {200, "", "fine", 0, 0, 0}};
    struct hook h = {ARB_HTTP_FINAL, "insufficient_quota", 0, 0, "", "", 0};
    struct arb_transport_opts o = hooked_opts(&h);
    struct seen seen = {0};
    struct hs_server s;
    double took;

    took = serve_and_run(&s, script, 2, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].st, ARB_EIO);
    cr_assert_eq(seen.r[0].attempts, 1);
    cr_assert_eq(s.n_requests, 1);
    cr_assert_str_eq(seen.r[0].error, "HTTP 429");
    cr_assert(strstr(seen.r[0].body, "insufficient_quota"), "the body is handed over");
    cr_assert_float_eq(seen.r[0].server_wait_s, 5.0, 1e-9);
    cr_assert_lt(took, 3.0);
    cr_assert_eq(h.calls, 1);
    cr_assert_eq(h.status, 429);
    cr_assert_str_eq(h.content_type, "text/plain");
    cr_assert_eq(h.len, strlen(script[0].body));
}

Test(transport, should_retry_a_2xx_the_hook_calls_a_failure)
{
    struct hs_reply script[] = {{200, "", "{\"error\": {\"type\": \"overloaded\"}}", 0, 0, 0},
                                {200, "", "{\"ok\": 1}", 0, 0, 0}};
    struct hook h = {ARB_HTTP_RETRY, "\"error\"", 0, 0, "", "", 0};
    struct arb_transport_opts o = hooked_opts(&h);
    struct seen seen = {0};
    struct hs_server s;

    o.json_replies = 1;
    serve_and_run(&s, script, 2, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].st, ARB_OK, "%s", seen.r[0].error);
    cr_assert_eq(seen.r[0].attempts, 2);
    cr_assert_str_eq(seen.r[0].body, "{\"ok\": 1}");
    cr_assert_eq(h.calls, 2);
}

Test(transport, should_fail_a_2xx_error_body_after_every_retry_without_quoting_it)
{
    struct hs_reply script[] = {
        {200, "x-should-retry: false\r\n", "{\"error\": \"" CANARY "\"}", 0, 0, 0}};
    struct hook h = {ARB_HTTP_RETRY, "\"error\"", 0, 0, "", "", 0};
    struct arb_transport_opts o = hooked_opts(&h);
    struct seen seen = {0};
    struct hs_server s;

    o.max_retries = 2;
    serve_and_run(&s, script, 1, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].st, ARB_EIO);
    cr_assert_eq(seen.r[0].status, 200);
    cr_assert_eq(seen.r[0].attempts, 3, "RETRY wins over x-should-retry: false");
    cr_assert_str_eq(seen.r[0].error, "HTTP 200 with an error body after 3 attempts");
    cr_assert_str_eq(seen.r[0].body, "{\"error\": \"" CANARY "\"}");
}

Test(transport, should_accept_a_2xx_the_hook_can_read)
{
    struct hs_reply script[] = {{200, "Content-Type: text/event-stream\r\n",
                                 "data: {\"x\": 1}\n\ndata: [DONE]\n\n", 0, 0, 0}};
    struct hook h = {ARB_HTTP_ACCEPT, "data:", 0, 0, "", "", 0};
    struct arb_transport_opts o = hooked_opts(&h);
    struct seen seen = {0};
    struct hs_server s;

    o.json_replies = 1;
    serve_and_run(&s, script, 1, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].st, ARB_OK, "%s", seen.r[0].error);
    cr_assert_eq(seen.r[0].attempts, 1);
    cr_assert_str_eq(seen.r[0].content_type, "text/event-stream");
    cr_assert_str_eq(h.content_type, "text/event-stream");
}

Test(transport, should_treat_an_accepted_error_status_as_usual)
{
    struct hs_reply script[] = {{503, "", "data: busy", 0, 0, 0}, {200, "", "fine", 0, 0, 0}};
    struct hook h = {ARB_HTTP_ACCEPT, "data:", 0, 0, "", "", 0};
    struct arb_transport_opts o = hooked_opts(&h);
    struct seen seen = {0};
    struct hs_server s;

    serve_and_run(&s, script, 2, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].st, ARB_OK, "%s", seen.r[0].error);
    cr_assert_eq(seen.r[0].attempts, 2);
    cr_assert_eq(h.calls, 2);
}

Test(transport, should_follow_its_own_rules_when_the_hook_has_no_opinion)
{
    struct hs_reply script[] = {{200, "", "<html>gateway</html>", 0, 0, 0},
                                {200, "", "{\"ok\": true}", 0, 0, 0}};
    struct hook h = {ARB_HTTP_FINAL, "never in a body", 0, 0, "", "", 0};
    struct arb_transport_opts o = hooked_opts(&h);
    struct seen seen = {0};
    struct hs_server s;

    o.json_replies = 1;
    serve_and_run(&s, script, 2, &o, NULL, 0, 1, &seen);
    cr_assert_eq(seen.r[0].st, ARB_OK, "%s", seen.r[0].error);
    cr_assert_eq(seen.r[0].attempts, 2);
}
