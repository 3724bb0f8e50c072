/*
 * The judge engine's schedule over HTTP (src/judge/drain.c, arb_judge_ask's
 * early sending), against the tests' HTTP server (http_fixture.h) speaking
 * OpenAI's chat completions: a question's request leaves when it is asked,
 * before any drain; a drain of the first questions returns once they are
 * answered while the later ones' requests keep the slots busy (a 429 with
 * Retry-After: 1 on the first question does not hold up the others); later
 * drains answer the rest in the order asked.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>
#include <curl/curl.h>

#include "arbiter/judge.h"
#include "http_fixture.h"

#define N_QUESTIONS 7

static const struct arb_judge_item expectation[] = {
    {.kind = ARB_ITEM_EXPECTATION, .name = "e", .text = "The answer is polite"},
};

static const char reply_body[] =
    "{\"id\": \"x\", \"object\": \"chat.completion\", \"model\": \"m\", \"choices\": [{\"index\": "
    "0, \"message\": {\"role\": \"assistant\", \"content\": \"{\\\"reasoning\\\": \\\"r\\\", "
    "\\\"expectations\\\": {\\\"e\\\": {\\\"pass\\\": true}}}\"}, \"finish_reason\": "
    "\"stop\"}], \"usage\": {\"prompt_tokens\": 10, \"completion_tokens\": 5, "
    "\"total_tokens\": 15}}";

#define JSON_TYPE "Content-Type: application/json\r\n"

/* The order the answers came in, when, and how. */
struct answers {
    int n;
    int order[N_QUESTIONS];
    int failed[N_QUESTIONS];
    double at[N_QUESTIONS];
};

struct asked {
    struct answers *log;
    int index;
};

static void on_answer(void *ctx, const struct arb_judge_question *q,
                      const struct arb_judge_answer *a)
{
    struct asked *x = ctx;

    (void)q;
    cr_assert_lt(x->log->n, N_QUESTIONS);
    x->log->failed[x->log->n] = a->failed;
    x->log->at[x->log->n] = hs_now();
    x->log->order[x->log->n++] = x->index;
}

static char case_ids[N_QUESTIONS][16]; /* "c" and any int: the sanitizer build checks the bound */

static struct arb_judge_question question(int i)
{
    struct arb_judge_question q;

    memset(&q, 0, sizeof(q));
    snprintf(case_ids[i], sizeof(case_ids[i]), "c%d", i);
    q.case_id = case_ids[i];
    q.system_a = "sys";
    q.task = "Answer politely.";
    q.output_a = "a polite answer";
    q.items = expectation;
    q.n_items = 1;
    return q;
}

static void config_at(struct hs_server *s, struct arb_judge_config *cfg, char *url, size_t n)
{
    snprintf(url, n, "http://127.0.0.1:%d/v1", s->port);
    memset(cfg, 0, sizeof(*cfg));
    cfg->provider = ARB_JUDGE_OPENAI;
    cfg->base_url = url;
    cfg->model = "m";
    cfg->api_key_env = "KEY";
    cfg->swap = 1;
    cfg->samples = 1;
    cfg->max_tokens = 100;
    cfg->max_tokens_cap = 400;
    cfg->concurrency = 2;
    cfg->timeout_s = 10;
    cfg->max_retries = 4;
}

static struct arb_judge *judge_at(struct hs_server *s, struct arb_judge_config *cfg, char *url,
                                  size_t n)
{
    struct arb_judge *j = NULL;
    struct arb_err err = {{0}};

    config_at(s, cfg, url, n);
    cr_assert_eq(arb_judge_new(cfg, "test-key", NULL, 0, &j, &err), ARB_OK, "%s", err.msg);
    return j;
}

static void ask(struct arb_judge *j, struct asked *x, int i)
{
    struct arb_judge_question q = question(i);
    struct arb_err err = {{0}};

    cr_assert_eq(arb_judge_ask(j, &q, on_answer, x, &err), ARB_OK, "%s", err.msg);
}

/* Wait up to 2 s for the server to have seen n requests. */
static size_t wait_requests(struct hs_server *s, size_t n)
{
    double until = hs_now() + 2.0;
    struct timespec pause = {0, 5 * 1000000L};

    while (hs_requests(s) < n && hs_now() < until)
        nanosleep(&pause, NULL);
    return hs_requests(s);
}

static void global_init(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void global_fini(void)
{
    curl_global_cleanup();
}

TestSuite(judge_drain, .init = global_init, .fini = global_fini, .timeout = 30);

Test(judge_drain, should_send_a_question_when_it_is_asked)
{
    struct hs_reply script[] = {{200, JSON_TYPE, reply_body, 0, 0, 0}};
    struct arb_judge_config cfg;
    struct hs_server server;
    struct answers log = {0};
    struct asked x = {&log, 0};
    struct arb_err err = {{0}};
    struct arb_judge *j;
    char url[128];

    hs_start(&server, script, 1);
    j = judge_at(&server, &cfg, url, sizeof(url));
    ask(j, &x, 0);
    cr_assert_eq(wait_requests(&server, 1), 1, "nothing left before the drain");
    cr_assert_eq(log.n, 0, "answered before the drain");
    cr_assert_eq(arb_judge_pending(j), 1);
    cr_assert_eq(arb_judge_drain(j, NULL, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(log.n, 1);
    cr_assert_eq(log.failed[0], 0);
    cr_assert_eq(arb_judge_pending(j), 0);
    arb_judge_free(j);
    hs_stop(&server);
    cr_assert_eq(hs_requests(&server), 1, "the drain sent it again");
}

/* Question 0 gets a 429 with Retry-After: 1.  Draining it alone takes its wait, during which
 * the other six questions' requests (100 ms each, two slots) go out and come back; their
 * answers wait for the next drain, which has nothing left to wait for. */
Test(judge_drain, should_answer_the_first_questions_while_the_later_ones_fill_the_slots)
{
    struct hs_reply script[] = {{429, JSON_TYPE "Retry-After: 1\r\n", "{}", 0, 0, 0},
                                {200, JSON_TYPE, reply_body, 0, 100, 0}};
    struct arb_judge_config cfg;
    struct hs_server server;
    struct answers log = {0};
    struct asked x[N_QUESTIONS];
    struct arb_err err = {{0}};
    struct arb_judge *j;
    size_t unreachable = 9;
    double t0, took;
    char url[128];
    int i;

    hs_start(&server, script, 2);
    j = judge_at(&server, &cfg, url, sizeof(url));
    for (i = 0; i < N_QUESTIONS; i++)
        x[i] = (struct asked){&log, i};
    ask(j, &x[0], 0);
    cr_assert_eq(wait_requests(&server, 1), 1); /* question 0's request arrives first */
    for (i = 1; i < N_QUESTIONS; i++)
        ask(j, &x[i], i);
    t0 = hs_now();
    cr_assert_eq(arb_judge_drain_first(j, 1, &unreachable, &err), ARB_OK, "%s", err.msg);
    took = hs_now() - t0;
    cr_assert_geq(took, 0.9, "question 0 did not wait for its retry (%.3f s)", took);
    cr_assert_eq(log.n, 1, "%d answered", log.n);
    cr_assert_eq(log.order[0], 0);
    cr_assert_eq(log.failed[0], 0);
    cr_assert_eq(unreachable, 0);
    cr_assert_eq(arb_judge_pending(j), N_QUESTIONS - 1);
    cr_assert_eq(hs_requests(&server), N_QUESTIONS + 1,
                 "the later questions did not use the slots during the wait");
    t0 = hs_now();
    cr_assert_eq(arb_judge_drain(j, NULL, &err), ARB_OK, "%s", err.msg);
    took = hs_now() - t0;
    cr_assert_lt(took, 0.5, "their replies were in: the drain took %.3f s", took);
    cr_assert_eq(log.n, N_QUESTIONS);
    for (i = 0; i < N_QUESTIONS; i++) {
        cr_assert_eq(log.order[i], i, "answers out of the order asked");
        cr_assert_eq(log.failed[i], 0);
    }
    cr_assert_eq(arb_judge_pending(j), 0);
    arb_judge_free(j);
    hs_stop(&server);
    cr_assert_eq(hs_requests(&server), N_QUESTIONS + 1);
}

/* A drain of none answers nothing and does not wait; the requests stay in flight. */
Test(judge_drain, should_not_wait_when_asked_to_drain_none)
{
    struct hs_reply script[] = {{200, JSON_TYPE, reply_body, 0, 300, 0}};
    struct arb_judge_config cfg;
    struct hs_server server;
    struct answers log = {0};
    struct asked x = {&log, 0};
    struct arb_err err = {{0}};
    struct arb_judge *j;
    double t0;
    char url[128];

    hs_start(&server, script, 1);
    j = judge_at(&server, &cfg, url, sizeof(url));
    ask(j, &x, 0);
    t0 = hs_now();
    cr_assert_eq(arb_judge_drain_first(j, 0, NULL, &err), ARB_OK, "%s", err.msg);
    cr_assert_lt(hs_now() - t0, 0.2);
    cr_assert_eq(log.n, 0);
    cr_assert_eq(arb_judge_pending(j), 1);
    cr_assert_eq(arb_judge_drain(j, NULL, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(log.n, 1);
    arb_judge_free(j);
    hs_stop(&server);
    cr_assert_eq(hs_requests(&server), 1);
}

/* A question is answered as soon as it and those asked before it are complete, during the
 * drain, not when the last reply is in; never before an earlier one. */
static void answered_in_order_as_they_complete(int slow_first)
{
    struct hs_reply fast = {200, JSON_TYPE, reply_body, 0, 0, 0},
                    slow = {200, JSON_TYPE, reply_body, 0, 500, 0};
    struct hs_reply script[3];
    struct arb_judge_config cfg;
    struct hs_server server;
    struct answers log = {0};
    struct asked x[3] = {{&log, 0}, {&log, 1}, {&log, 2}};
    struct arb_err err = {{0}};
    struct arb_judge *j;
    double t0;
    char url[128];
    int i;

    script[0] = slow_first ? slow : fast;
    script[1] = slow_first ? fast : slow;
    script[2] = fast;
    hs_start(&server, script, 3);
    j = judge_at(&server, &cfg, url, sizeof(url));
    t0 = hs_now();
    for (i = 0; i < 2; i++) {
        ask(j, &x[i], i);
        cr_assert_eq(wait_requests(&server, (size_t)i + 1), (size_t)i + 1); /* in turn */
    }
    cr_assert_eq(arb_judge_drain(j, NULL, &err), ARB_OK, "%s", err.msg);
    arb_judge_free(j);
    hs_stop(&server);
    cr_assert_eq(log.n, 2);
    cr_assert_eq(log.order[0], 0);
    cr_assert_eq(log.order[1], 1);
    if (slow_first) {
        cr_assert_geq(log.at[0] - t0, 0.45, "question 0 answered before its reply");
    } else {
        cr_assert_lt(log.at[0] - t0, 0.4, "question 0 waited for question 1's reply");
        cr_assert_geq(log.at[1] - t0, 0.45);
    }
}

Test(judge_drain, should_answer_a_question_once_it_and_the_earlier_ones_are_complete)
{
    answered_in_order_as_they_complete(0);
}

Test(judge_drain, should_never_answer_a_question_before_an_earlier_one)
{
    answered_in_order_as_they_complete(1);
}

/* A cache that holds question 0's replies (both orders) and records nothing. */
static enum arb_status cache_get(void *ctx, const char *key, const struct arb_judge_slot *slot,
                                 int (*fn)(void *arg, const struct arb_judge_call_row *c),
                                 void *arg, int *found, struct arb_err *err)
{
    struct arb_judge_call_row row;

    (void)ctx;
    (void)err;
    *found = 0;
    if (!slot || strcmp(slot->case_id, "c0") != 0)
        return ARB_OK;
    memset(&row, 0, sizeof(row));
    row.key = key;
    row.status = "ok";
    row.reply_json = reply_body;
    row.valid = 1;
    row.http_status = 200;
    *found = 1;
    fn(arg, &row);
    return ARB_OK;
}

static enum arb_status cache_put_call(void *ctx, const struct arb_judge_call_row *c,
                                      struct arb_err *err)
{
    (void)ctx, (void)c, (void)err;
    return ARB_OK;
}

static enum arb_status cache_put_judgment(void *ctx, const struct arb_judgment_row *jr,
                                          struct arb_err *err)
{
    (void)ctx, (void)jr, (void)err;
    return ARB_OK;
}

/*
 * Question 0 is answered from the cache, so it and the questions asked after it wait for
 * the drain (requests go out in the order asked).  A drain of question 0 alone sends the
 * later questions' requests too; the next drain must not send them again (it did: a
 * request sent twice, and the first reply freed the question the second still pointed at).
 */
Test(judge_drain, should_send_each_request_once_across_partial_drains)
{
    struct hs_reply script[] = {{200, JSON_TYPE, reply_body, 0, 100, 0}};
    const struct arb_judge_cache cache = {NULL, cache_get, cache_put_call, cache_put_judgment,
                                          NULL};
    struct arb_judge_config cfg;
    struct hs_server server;
    struct answers log = {0};
    struct asked x[4];
    struct arb_err err = {{0}};
    struct arb_judge *j = NULL;
    char url[128];
    int i;

    hs_start(&server, script, 1);
    config_at(&server, &cfg, url, sizeof(url));
    cr_assert_eq(arb_judge_new(&cfg, "test-key", &cache, 1, &j, &err), ARB_OK, "%s", err.msg);
    for (i = 0; i < 4; i++)
        x[i] = (struct asked){&log, i};
    for (i = 0; i < 3; i++)
        ask(j, &x[i], i);
    cr_assert_eq(hs_requests(&server), 0,
                 "a question after a cached one went out before the drain");
    cr_assert_eq(arb_judge_drain_first(j, 1, NULL, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(log.n, 1);
    ask(j, &x[3], 3);
    cr_assert_eq(arb_judge_drain_first(j, 2, NULL, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(log.n, 3);
    cr_assert_eq(arb_judge_drain(j, NULL, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(log.n, 4);
    for (i = 0; i < 4; i++) {
        cr_assert_eq(log.order[i], i, "answers out of the order asked");
        cr_assert_eq(log.failed[i], 0);
    }
    arb_judge_free(j);
    hs_stop(&server);
    cr_assert_eq(hs_requests(&server), 3, "%zu requests for 3 single-output questions",
                 hs_requests(&server));
}

/* A cache that records when the judge holds its puts (hold) and whether each put came while
 * it held them; fail_at: the hold(0) call (1, 2, ...) that fails, 0 none. */
struct holding {
    int on;
    int n_on, n_off;
    int puts, puts_held;
    int first_on_before_puts;
    int fail_at;
};

static enum arb_status hold_put_call(void *ctx, const struct arb_judge_call_row *c,
                                     struct arb_err *err)
{
    struct holding *h = ctx;

    (void)c, (void)err;
    h->puts++;
    h->puts_held += h->on;
    return ARB_OK;
}

static enum arb_status hold_put_judgment(void *ctx, const struct arb_judgment_row *jr,
                                         struct arb_err *err)
{
    (void)jr;
    return hold_put_call(ctx, NULL, err);
}

static enum arb_status hold_get(void *ctx, const char *key, const struct arb_judge_slot *slot,
                                int (*fn)(void *arg, const struct arb_judge_call_row *c), void *arg,
                                int *found, struct arb_err *err)
{
    (void)ctx, (void)key, (void)slot, (void)fn, (void)arg, (void)err;
    *found = 0;
    return ARB_OK;
}

static enum arb_status hold_hold(void *ctx, int on, struct arb_err *err)
{
    struct holding *h = ctx;

    cr_assert_neq(h->on, on, "hold(%d) twice in a row", on);
    if (on && !h->n_on)
        h->first_on_before_puts = h->puts == 0;
    h->on = on;
    if (on) {
        h->n_on++;
        return ARB_OK;
    }
    h->n_off++;
    if (h->n_off == h->fail_at)
        return arb_err_set(err, ARB_EDB, "disk I/O error (test)");
    return ARB_OK;
}

/* Six requests of 100 ms on two slots: three rounds, the judge idle between them. */
static enum arb_status drain_holding(struct holding *h)
{
    struct hs_reply script[] = {{200, JSON_TYPE, reply_body, 0, 100, 0}};
    const struct arb_judge_cache cache = {h, hold_get, hold_put_call, hold_put_judgment, hold_hold};
    struct arb_judge_config cfg;
    struct hs_server server;
    struct answers log = {0};
    struct asked x[3];
    struct arb_err err = {{0}};
    struct arb_judge *j = NULL;
    enum arb_status st;
    char url[128];

    hs_start(&server, script, 1);
    config_at(&server, &cfg, url, sizeof(url));
    cr_assert_eq(arb_judge_new(&cfg, "test-key", &cache, 1, &j, &err), ARB_OK, "%s", err.msg);
    for (int i = 0; i < 3; i++) {
        x[i] = (struct asked){&log, i};
        ask(j, &x[i], i);
    }
    st = arb_judge_drain(j, NULL, &err);
    if (st)
        cr_assert_not_null(strstr(err.msg, "disk I/O error (test)"), "%s", err.msg);
    else
        cr_assert_eq(log.n, 3);
    arb_judge_free(j);
    hs_stop(&server);
    return st;
}

/* The replies' records are held (one transaction for many, store_txn.c) while the judge is
 * busy, and made durable each time it goes idle and when the drain returns. */
Test(judge_drain, should_hold_the_puts_while_busy_and_make_them_durable_when_idle)
{
    struct holding h = {0};

    cr_assert_eq(drain_holding(&h), ARB_OK);
    cr_assert(h.first_on_before_puts, "a put before the first hold");
    cr_assert_geq(h.puts, 6, "%d puts for 6 replies", h.puts);
    cr_assert_eq(h.puts_held, h.puts, "%d of %d puts not held", h.puts - h.puts_held, h.puts);
    cr_assert_eq(h.on, 0, "still held after the drain");
    cr_assert_eq(h.n_on, h.n_off);
    cr_assert_geq(h.n_off, 3, "made durable %d times over three rounds", h.n_off);
}

/* Making the held records durable fails (the disk): the drain stops with that failure. */
Test(judge_drain, should_stop_when_what_it_holds_cannot_be_made_durable)
{
    struct holding h = {.fail_at = 1};

    cr_assert_eq(drain_holding(&h), ARB_EDB);
    cr_assert_eq(h.on, 0);
    cr_assert_eq(h.n_off, 1, "held again after the failure");
}
