/*
 * The judge engine against a store and a command judge (a shell one-liner):
 * a question whose outputs hold every fence code fails alone; an invalid
 * stored reply never answers again (a resumed run takes it as it was); a
 * reply of unknown validity is validated again; what is stored of a failed
 * or invalid reply is capped; a judge that exits unread is a failure, not
 * a SIGPIPE; a run's recorded judgments answer its resume and replay with
 * the replies they used (under an older key, or replaced since), a recorded
 * failure replays as one; an answer from the cache records no fence.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/judge/engine.h"
#include "arbiter/judge.h"
#include "store_fixture.h"

static const struct arb_judge_item expectation[] = {
    {.kind = ARB_ITEM_EXPECTATION, .name = "e", .text = "The answer is polite"},
};

static const char valid_reply[] = "{\"reasoning\": \"r\", \"expectations\": {\"e\": {\"pass\": true}}}";
static const char invalid_reply[] = "{\"reasoning\": \"r\"}";

/* Where the command judge reads its reply and counts its requests. */
static char reply_path[256], count_path[256];
static char *argv_judge[] = {"/bin/sh", "-c",
                             "cat >/dev/null; echo x >>\"$1\"; cat \"$0\"", reply_path,
                             count_path, NULL};

struct fixture {
    struct arb_store *st;
    int64_t run;
    struct arb_store_judge_cache cache;
    struct arb_judge_config cfg;
};

static struct fixture fx;

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

static int64_t requests(void)
{
    size_t len = 0;
    char *t = fx_read_file(count_path, &len);
    int64_t n = 0;

    for (size_t i = 0; t && i < len; i++)
        n += t[i] == '\n';
    free(t);
    return n;
}

static void setup(void)
{
    struct arb_run_row r = {.suite_path = "s", .suite_name = "s", .suite_sha256 = "00",
                            .suite_json = "{}", .version = "0"};
    struct arb_err err = {{0}};
    char path[128], *dir;

    fx_setup();
    snprintf(path, sizeof(path), "%s", fx_db_path);
    dir = dirname(path);
    snprintf(reply_path, sizeof(reply_path), "%s/reply.json", dir);
    snprintf(count_path, sizeof(count_path), "%s/count", dir);
    write_file(count_path, "");
    write_file(reply_path, valid_reply);
    fx.st = fx_open_store(0);
    cr_assert_eq(arb_store_run_create(fx.st, &r, &fx.run, &err), ARB_OK, "%s", err.msg);
    arb_store_judge_cache_init(&fx.cache, fx.st, fx.run);
    memset(&fx.cfg, 0, sizeof(fx.cfg));
    fx.cfg.provider = ARB_JUDGE_COMMAND;
    fx.cfg.command = argv_judge;
    fx.cfg.model = "command";
    fx.cfg.swap = 1;
    fx.cfg.samples = 1;
    fx.cfg.max_tokens = 100;
    fx.cfg.concurrency = 1;
    fx.cfg.timeout_s = 20;
}

static void teardown(void)
{
    arb_store_close(fx.st);
    fx_teardown();
}

static struct arb_judge_question question(const char *case_id, const char *output)
{
    struct arb_judge_question q;

    memset(&q, 0, sizeof(q));
    q.case_id = case_id;
    q.system_a = "sys";
    q.task = "Answer politely.";
    q.output_a = output;
    q.items = expectation;
    q.n_items = 1;
    return q;
}

/* What a question's answer said. */
struct seen {
    int answered, failed, cached;
    char error[256];
};

static void on_answer(void *ctx, const struct arb_judge_question *q, const struct arb_judge_answer *a)
{
    struct seen *s = ctx;

    (void)q;
    s->answered = 1;
    s->failed = a->failed;
    s->cached = a->n_cached;
    snprintf(s->error, sizeof(s->error), "%s", a->error ? a->error : "");
}

/* Ask one question of a new judge (random: its fence source, or NULL), drain, return what
 * was answered. */
static struct seen ask(const char *case_id, const char *output, int reuse_invalid,
                       judge_random_fn random, void *rctx)
{
    struct arb_judge *j = NULL;
    struct arb_judge_question q = question(case_id, output);
    struct arb_err err = {{0}};
    struct seen s;

    memset(&s, 0, sizeof(s));
    cr_assert_eq(arb_judge_new(&fx.cfg, NULL, &fx.cache.cache, 1, &j, &err), ARB_OK, "%s",
                 err.msg);
    if (random)
        judge_set_random(j, random, rctx);
    arb_judge_reuse_invalid(j, reuse_invalid);
    cr_assert_eq(arb_judge_ask(j, &q, on_answer, &s, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_judge_drain(j, NULL, &err), ARB_OK, "%s", err.msg);
    arb_judge_free(j);
    cr_assert(s.answered);
    return s;
}

static int constant(void *ctx, unsigned char *buf, size_t n)
{
    (void)ctx;
    memset(buf, 0x11, n);
    return 1;
}

Test(judge_engine, should_fail_alone_a_question_whose_output_holds_every_fence_code,
     .init = setup, .fini = teardown)
{
    struct arb_judge *j = NULL;
    struct arb_judge_question q1 = question("hostile", "1111111111111111 and more"),
                              q2 = question("plain", "a polite answer");
    struct arb_err err = {{0}};
    struct seen s1, s2;

    memset(&s1, 0, sizeof(s1));
    memset(&s2, 0, sizeof(s2));
    cr_assert_eq(arb_judge_new(&fx.cfg, NULL, &fx.cache.cache, 1, &j, &err), ARB_OK);
    judge_set_random(j, constant, NULL);
    cr_assert_eq(arb_judge_ask(j, &q1, on_answer, &s1, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_judge_ask(j, &q2, on_answer, &s2, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_judge_drain(j, NULL, &err), ARB_OK, "the run goes on: %s", err.msg);
    arb_judge_free(j);
    cr_assert(s1.answered && s1.failed, "the question that cannot be fenced fails");
    cr_assert_not_null(strstr(s1.error, "fence"), "%s", s1.error);
    cr_assert(s2.answered && !s2.failed, "the other question is answered: %s", s2.error);
    cr_assert_eq(requests(), 1, "only the fenced question was sent");
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM judgments WHERE case_id = 'plain' AND "
                            "fence = '1111111111111111'"),
                 1, "the fence is recorded with the judgment");
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM judgments WHERE case_id = 'hostile' AND "
                            "fence IS NULL AND error LIKE '%fence%'"),
                 1);
}

Test(judge_engine, should_never_answer_again_from_an_invalid_stored_reply, .init = setup,
     .fini = teardown)
{
    struct seen s;

    write_file(reply_path, invalid_reply);
    s = ask("c1", "a polite answer", 0, NULL, NULL);
    cr_assert(s.failed, "two invalid replies: judge_failed");
    cr_assert_eq(requests(), 2, "attempt 0 and its retry");
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM judge_calls WHERE valid = 0"), 2);
    /* Resumed: the run's invalid replies lead where they led, and nothing is sent. */
    write_file(reply_path, valid_reply);
    s = ask("c1", "a polite answer", 1, NULL, NULL);
    cr_assert(s.failed, "a resumed run takes its invalid replies as they were");
    cr_assert_eq(requests(), 2, "nothing sent");
    /* A new run (or --retry-failed): the judge is asked afresh, and answers. */
    s = ask("c1", "a polite answer", 0, NULL, NULL);
    cr_assert(!s.failed, "an invalid stored reply answered again: %s", s.error);
    cr_assert_eq(s.cached, 0);
    cr_assert_eq(requests(), 3, "exactly the failed request, sent once more");
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM judge_calls WHERE valid = 1"), 1);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM judge_calls_rejected WHERE valid = 0 AND "
                            "reply_json LIKE '%reasoning%'"),
                 1, "the invalid reply it replaced is kept for audit");
    /* And the valid reply now answers from the cache. */
    s = ask("c1", "a polite answer", 0, NULL, NULL);
    cr_assert(!s.failed && s.cached == 1);
    cr_assert_eq(requests(), 3);
}

Test(judge_engine, should_validate_again_a_reply_of_unknown_validity, .init = setup,
     .fini = teardown)
{
    struct seen s = ask("c1", "a polite answer", 0, NULL, NULL);

    cr_assert(!s.failed);
    /* As an older Arbiter stored it: valid NULL.  Still valid when read: it answers. */
    fx_raw_exec("UPDATE judge_calls SET valid = NULL");
    s = ask("c1", "a polite answer", 0, NULL, NULL);
    cr_assert(!s.failed && s.cached == 1, "%s", s.error);
    cr_assert_eq(requests(), 1);
    /* Invalid when read (as if the schema had been another): asked afresh. */
    fx_raw_exec("UPDATE judge_calls SET valid = NULL, reply_json = '{\"reasoning\": 1}'");
    s = ask("c1", "a polite answer", 0, NULL, NULL);
    cr_assert(!s.failed, "%s", s.error);
    cr_assert_eq(s.cached, 0);
    cr_assert_eq(requests(), 2, "the request whose stored reply failed validation is sent");
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM judge_calls WHERE valid = 1 AND "
                            "reply_json LIKE '%pass%'"),
                 1);
}

Test(judge_engine, should_store_only_the_head_of_a_failed_or_invalid_reply, .init = setup,
     .fini = teardown)
{
    static char *big_fail[] = {"/bin/sh", "-c",
                               "cat >/dev/null; head -c 300000 /dev/zero | tr '\\0' x; exit 1",
                               NULL};
    static char *big_invalid[] = {"/bin/sh", "-c",
                                  "cat >/dev/null; printf '{\"reasoning\": \"'; "
                                  "head -c 300000 /dev/zero | tr '\\0' y; printf '\"}'",
                                  NULL};
    struct seen s;

    fx.cfg.command = big_fail;
    s = ask("c1", "a polite answer", 0, NULL, NULL);
    cr_assert(s.failed);
    cr_assert_eq(fx_raw_int("SELECT max(length(reply_json)) FROM judge_calls"), 65536);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM judge_calls WHERE status = 'failed' AND "
                            "error LIKE '%cut: the first 65536 of 300000 bytes stored%'"),
                 1);
    fx.cfg.command = big_invalid;
    s = ask("c2", "a polite answer", 0, NULL, NULL);
    cr_assert(s.failed);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM judge_calls WHERE valid = 0 AND "
                            "length(reply_json) <= 65536 AND error LIKE '%cut: the first%'"),
                 2, "both attempts' invalid replies are cut");
    cr_assert_eq(fx_raw_int("SELECT max(length(answer_json)) FROM judgments WHERE case_id = 'c2'"),
                 65536);
    cr_assert_lt(fx_raw_int("SELECT max(length(request_json)) FROM judge_calls"), 70000,
                 "the retry sends back only the head of the rejected reply");
}

Test(judge_engine, should_fail_a_command_that_exits_without_reading, .init = setup,
     .fini = teardown)
{
    /* It reads a little and quits: the next write meets a closed pipe (EPIPE, SIGPIPE). */
    static char *quitter[] = {"/bin/sh", "-c",
                              "head -c 1000 >/dev/null; echo 'bad flag --frobnicate' >&2; exit 3",
                              NULL};
    char *big = malloc(4u << 20);
    struct seen s;

    cr_assert_not_null(big);
    memset(big, 'p', (4u << 20) - 1);
    big[(4u << 20) - 1] = '\0';
    fx.cfg.command = quitter;
    s = ask("c1", big, 0, NULL, NULL);
    cr_assert(s.failed, "a judge that quits is judge_failed, and the caller lives");
    cr_assert_not_null(strstr(s.error, "exit 3"), "%s", s.error);
    cr_assert_not_null(strstr(s.error, "before reading its whole request"), "%s", s.error);
    cr_assert_not_null(strstr(s.error, "bad flag --frobnicate"), "stderr tail: %s", s.error);
    free(big);
}

/* Another run in the fixture's database: its id. */
static int64_t new_run(void)
{
    struct arb_run_row r = {.suite_path = "s", .suite_name = "s", .suite_sha256 = "00",
                            .suite_json = "{}", .version = "0"};
    struct arb_err err = {{0}};
    int64_t run = 0;

    cr_assert_eq(arb_store_run_create(fx.st, &r, &run, &err), ARB_OK, "%s", err.msg);
    return run;
}

Test(judge_engine, should_answer_a_recorded_slot_from_its_reply_under_an_older_key,
     .init = setup, .fini = teardown)
{
    struct seen s = ask("c1", "a polite answer", 0, NULL, NULL);

    cr_assert(!s.failed, "%s", s.error);
    /* As an older Arbiter left them: keys no request of this one computes, no reply hash. */
    fx_raw_exec("UPDATE judge_calls SET key = 'old-' || substr(key, 5), valid = NULL; "
                "UPDATE judgments SET key = 'old-' || substr(key, 5), reply_sha256 = NULL");
    /* A resume of the run (or its replay): the slot it judged takes the reply it used. */
    fx.cache.recorded = fx.run;
    s = ask("c1", "a polite answer", 1, NULL, NULL);
    cr_assert(!s.failed && s.cached == 1, "%s", s.error);
    cr_assert_eq(requests(), 1, "nothing sent");
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM judgments WHERE key LIKE 'old-%' AND "
                            "cached = 0 AND reply_sha256 IS NOT NULL"),
                 1, "the judgment still names the call it used, now with its hash");
    /* A slot the run never judged is looked up by its key, and asked. */
    s = ask("c2", "another polite answer", 1, NULL, NULL);
    cr_assert(!s.failed && s.cached == 0, "%s", s.error);
    cr_assert_eq(requests(), 2);
    /* A new run has no recorded judgments: the old reply answers nothing. */
    fx.cache.recorded = 0;
    fx.cache.run = new_run();
    s = ask("c1", "a polite answer", 0, NULL, NULL);
    cr_assert_eq(s.cached, 0);
    cr_assert_eq(requests(), 3);
}

Test(judge_engine, should_answer_a_recorded_slot_from_the_reply_a_later_one_replaced,
     .init = setup, .fini = teardown)
{
    struct seen s;

    write_file(reply_path, invalid_reply);
    s = ask("c1", "a polite answer", 0, NULL, NULL);
    cr_assert(s.failed, "two invalid replies: judge_failed");
    /* A later run asks afresh and gets a valid reply: it replaces the first under its key. */
    write_file(reply_path, valid_reply);
    fx.cache.run = new_run();
    s = ask("c1", "a polite answer", 0, NULL, NULL);
    cr_assert(!s.failed, "%s", s.error);
    cr_assert_eq(requests(), 3);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM judge_calls_rejected"), 1);
    /* The first run, resumed or replayed, reads the replies its judgments used: the same
     * retry, the same failure, nothing sent. */
    fx.cache.run = fx.run;
    fx.cache.recorded = fx.run;
    s = ask("c1", "a polite answer", 1, NULL, NULL);
    cr_assert(s.failed, "the first run's slot was answered by the reply that replaced its own");
    cr_assert_eq(requests(), 3, "nothing sent");
}

Test(judge_engine, should_replay_a_recorded_failure_as_a_failure, .init = setup,
     .fini = teardown)
{
    static char *refuse[] = {"/bin/sh", "-c", "cat >/dev/null; echo refused >&2; exit 1", NULL};
    struct arb_judge_config offline;
    struct arb_judge *j = NULL;
    struct arb_judge_question q = question("c1", "a polite answer");
    struct arb_err err = {{0}};
    struct seen s, first;

    fx.cfg.command = refuse;
    first = ask("c1", "a polite answer", 0, NULL, NULL);
    cr_assert(first.failed);
    /* A later run gets a reply for the same request (the failed call is replaced). */
    fx.cfg.command = argv_judge;
    fx.cache.run = new_run();
    s = ask("c1", "a polite answer", 0, NULL, NULL);
    cr_assert(!s.failed, "%s", s.error);
    /* A replay of the first run (offline, into the same store here) fails as it failed. */
    fx.cache.run = new_run();
    fx.cache.recorded = fx.run;
    offline = fx.cfg;
    offline.offline = 1;
    memset(&s, 0, sizeof(s));
    cr_assert_eq(arb_judge_new(&offline, NULL, &fx.cache.cache, 1, &j, &err), ARB_OK);
    cr_assert_eq(arb_judge_ask(j, &q, on_answer, &s, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_judge_drain(j, NULL, &err), ARB_OK, "%s", err.msg);
    arb_judge_free(j);
    cr_assert(s.answered && s.failed, "the recorded failure was answered by a later reply");
    cr_assert_str_eq(s.error, first.error);
}

Test(judge_engine, should_record_no_fence_for_an_answer_from_the_cache, .init = setup,
     .fini = teardown)
{
    struct seen s = ask("c1", "a polite answer", 0, NULL, NULL);

    cr_assert(!s.failed, "%s", s.error);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM judgments WHERE fence IS NOT NULL"), 1);
    /* Judged again from the cache by the same run (a resume): the code it sent stays. */
    s = ask("c1", "a polite answer", 1, NULL, NULL);
    cr_assert_eq(s.cached, 1);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM judgments WHERE fence IS NOT NULL"), 1);
    /* Another run answered from the cache sent nothing: no code. */
    fx.cache.run = new_run();
    s = ask("c1", "a polite answer", 0, NULL, NULL);
    cr_assert_eq(s.cached, 1);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM judgments WHERE run = 2 AND fence IS NULL"), 1);
}
