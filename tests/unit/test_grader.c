/*
 * test_grader.c - the custom strategy's grader (src/report/custom.c, grader_run.c): reading
 * an answer (every member the seed's ComparisonGraderResult requires, each wrong shape named
 * by its JSON path), running a program (exit status, timeout, a large input while it writes
 * first) and the hybrid score put together from the weighted and custom parts.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <criterion/criterion.h>

#include "arbiter/report.h"
#include "../../src/report/strategy_int.h"

static cJSON *two_runs(void)
{
    cJSON *runs = cJSON_Parse("{\"a\": {\"output\": \"x\"}, \"b\": {\"output\": \"y\"}}");

    cr_assert(runs);
    return runs;
}

/* grader_read_answer on text: the status, and the message holding want when it fails. */
static void answer_fails(const char *text, enum arb_status want_st, const char *want)
{
    cJSON *runs = two_runs(), *out = NULL;
    struct arb_err err = {{0}};
    enum arb_status st = grader_read_answer(text, strlen(text), runs, &out, &err);

    cr_assert_eq(st, want_st, "%s: status %d, want %d (%s)", text, st, want_st, err.msg);
    cr_assert(strstr(err.msg, want), "%s: message '%s' lacks '%s'", text, err.msg, want);
    cr_assert_null(out);
    cJSON_Delete(runs);
}

Test(grader, should_read_a_good_answer)
{
    const char *text = "\n{\"rankings\": [{\"run\": \"b\", \"rank\": 1, \"score\": 1, \"x\": 2},"
                       " {\"run\": \"a\", \"rank\": 2, \"score\": 0}], \"reasoning\": \"b\"}\n";
    cJSON *runs = two_runs(), *out = NULL;
    struct arb_err err = {{0}};
    char *s;

    cr_assert_eq(grader_read_answer(text, strlen(text), runs, &out, &err), ARB_OK, "%s", err.msg);
    s = cJSON_PrintUnformatted(out);
    cr_assert_str_eq(s, "{\"rankings\":[{\"run\":\"b\",\"rank\":1,\"score\":1},{\"run\":\"a\","
                        "\"rank\":2,\"score\":0}],\"reasoning\":\"b\"}");
    cJSON_free(s);
    cJSON_Delete(out);
    cJSON_Delete(runs);
}

Test(grader, should_take_an_answer_without_reasoning_or_with_fewer_runs)
{
    const char *text = "{\"rankings\": [{\"run\": \"a\", \"rank\": 1, \"score\": 0.5}]}";
    cJSON *runs = two_runs(), *out = NULL;
    struct arb_err err = {{0}};

    cr_assert_eq(grader_read_answer(text, strlen(text), runs, &out, &err), ARB_OK, "%s", err.msg);
    cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(out, "reasoning")));
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(out, "rankings")), 1);
    cJSON_Delete(out);
    cJSON_Delete(runs);
}

Test(grader, should_name_what_is_wrong_by_its_path)
{
    static const struct {
        const char *text, *want;
        enum arb_status st;
    } cases[] = {
        {"", "the answer is empty", ARB_EPARSE},
        {" \n\t", "the answer is empty", ARB_EPARSE},
        {"{\"rankings\": [", "the answer is not JSON: line 1", ARB_EPARSE},
        {"ranked a first", "the answer is not JSON", ARB_EPARSE},
        {"[1]", "answer /: expected an object", ARB_ESCHEMA},
        {"{}", "answer /rankings: missing", ARB_ESCHEMA},
        {"{\"rankings\": {}}", "answer /rankings: expected an array", ARB_ESCHEMA},
        {"{\"rankings\": []}", "answer /rankings: empty", ARB_ESCHEMA},
        {"{\"rankings\": [1]}", "answer /rankings/0: expected an object", ARB_ESCHEMA},
        {"{\"rankings\": [{\"rank\": 1, \"score\": 1}]}", "answer /rankings/0/run: missing",
         ARB_ESCHEMA},
        {"{\"rankings\": [{\"run\": 1, \"rank\": 1, \"score\": 1}]}",
         "answer /rankings/0/run: expected a string", ARB_ESCHEMA},
        {"{\"rankings\": [{\"run\": \"c\", \"rank\": 1, \"score\": 1}]}",
         "answer /rankings/0/run: 'c' is not one of the case's runs", ARB_ESCHEMA},
        {"{\"rankings\": [{\"run\": \"a\", \"rank\": 1, \"score\": 1}, {\"run\": \"a\", "
         "\"rank\": 2, \"score\": 0}]}",
         "answer /rankings/1/run: 'a' is ranked twice", ARB_ESCHEMA},
        {"{\"rankings\": [{\"run\": \"a\", \"score\": 1}]}", "answer /rankings/0/rank: missing",
         ARB_ESCHEMA},
        {"{\"rankings\": [{\"run\": \"a\", \"rank\": 0, \"score\": 1}]}",
         "answer /rankings/0/rank: expected a whole number from 1", ARB_ESCHEMA},
        {"{\"rankings\": [{\"run\": \"a\", \"rank\": 1.5, \"score\": 1}]}",
         "answer /rankings/0/rank: expected a whole number from 1", ARB_ESCHEMA},
        {"{\"rankings\": [{\"run\": \"a\", \"rank\": \"1\", \"score\": 1}]}",
         "answer /rankings/0/rank: expected a whole number from 1", ARB_ESCHEMA},
        {"{\"rankings\": [{\"run\": \"a\", \"rank\": 1}]}", "answer /rankings/0/score: missing",
         ARB_ESCHEMA},
        {"{\"rankings\": [{\"run\": \"b\", \"rank\": 1, \"score\": 1.01}]}",
         "answer /rankings/0/score: expected a number from 0 to 1", ARB_ESCHEMA},
        {"{\"rankings\": [{\"run\": \"b\", \"rank\": 1, \"score\": -0.1}]}",
         "answer /rankings/0/score: expected a number from 0 to 1", ARB_ESCHEMA},
        {"{\"rankings\": [{\"run\": \"b\", \"rank\": 1, \"score\": null}]}",
         "answer /rankings/0/score: expected a number from 0 to 1", ARB_ESCHEMA},
        {"{\"rankings\": [{\"run\": \"b\", \"rank\": 1, \"score\": 1}], \"reasoning\": 3}",
         "answer /reasoning: expected a string", ARB_ESCHEMA},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        answer_fails(cases[i].text, cases[i].st, cases[i].want);
}

static enum arb_status sh(const char *script, const char *input, size_t len, double timeout_s,
                          struct arb_buf *out, struct arb_err *err)
{
    char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};

    return grader_exec(argv, input, len, timeout_s, out, err);
}

Test(grader, should_run_a_program_and_read_its_answer)
{
    struct arb_buf out;
    struct arb_err err = {{0}};

    arb_buf_init(&out, 1000);
    cr_assert_eq(sh("tr a-z A-Z", "ranked", 6, 10, &out, &err), ARB_OK, "%s", err.msg);
    cr_assert_str_eq(out.ptr, "RANKED");
    arb_buf_release(&out);
}

Test(grader, should_say_how_a_program_failed)
{
    struct arb_buf out;
    struct arb_err err = {{0}};

    arb_buf_init(&out, 1000);
    cr_assert_eq(sh("cat >/dev/null; exit 7", "x", 1, 10, &out, &err), ARB_EREMOTE);
    cr_assert_str_eq(err.msg, "exited with status 7");
    cr_assert_eq(sh("kill -9 $$", "", 0, 10, &out, &err), ARB_EREMOTE);
    cr_assert_str_eq(err.msg, "killed by signal 9");
    cr_assert_eq(sh("yes", "", 0, 10, &out, &err), ARB_ETOOBIG);
    cr_assert(strstr(err.msg, "wrote more than 1000 bytes (killed)"), "%s", err.msg);
    {
        char *argv[] = {"/nonexistent/grader", NULL};

        cr_assert_eq(grader_exec(argv, "", 0, 10, &out, &err), ARB_EREMOTE);
        cr_assert(strstr(err.msg, "cannot run it: No such file"), "%s", err.msg);
    }
    arb_buf_release(&out);
}

Test(grader, should_kill_a_program_at_its_timeout)
{
    struct arb_buf out;
    struct arb_err err = {{0}};
    time_t start = time(NULL);

    arb_buf_init(&out, 1000);
    /* The background sleep keeps the output open: the whole group is killed. */
    cr_assert_eq(sh("sleep 30 & echo '{}'; sleep 30", "", 0, 0.3, &out, &err), ARB_EREMOTE);
    cr_assert_str_eq(err.msg, "timed out after 0.3 s (killed)");
    cr_assert_lt(time(NULL) - start, 10);
    arb_buf_release(&out);
}

/* A program that answers and exits while a child it left holds its output open: its answer
 * stands, at once, and the leftover child is killed with the group. */
Test(grader, should_stop_when_the_program_exits_though_a_child_holds_its_output)
{
    struct arb_buf out;
    struct arb_err err = {{0}};
    char path[64], script[160];
    time_t start = time(NULL);
    FILE *f;
    int pid = 0, i;

    snprintf(path, sizeof(path), "/tmp/arbiter-grader-bg-%d", (int)getpid());
    snprintf(script, sizeof(script), "(sleep 20) & echo $! >%s; echo '{\"ok\": 1}'", path);
    arb_buf_init(&out, 1000);
    cr_assert_eq(sh(script, "", 0, 5, &out, &err), ARB_OK, "%s", err.msg);
    cr_assert_str_eq(out.ptr, "{\"ok\": 1}\n");
    cr_assert_lt(time(NULL) - start, 4);
    f = fopen(path, "r");
    cr_assert(f && fscanf(f, "%d", &pid) == 1 && pid > 0);
    fclose(f);
    remove(path);
    for (i = 0; i < 200 && kill(pid, 0) == 0; i++)
        nanosleep(&(struct timespec){0, 10000000L}, NULL);
    cr_assert_neq(kill(pid, 0), 0, "the leftover child %d still runs", pid);
    arb_buf_release(&out);
}

/* A program that writes more than a pipe holds before it reads a byte of a large input. */
Test(grader, should_feed_a_large_input_while_reading_the_output)
{
    size_t n = 4u << 20;
    char *input = malloc(n);
    struct arb_buf out;
    struct arb_err err = {{0}};

    cr_assert(input);
    memset(input, 'x', n);
    arb_buf_init(&out, 1u << 22);
    cr_assert_eq(sh("head -c 500000 /dev/zero; wc -c", input, n, 30, &out, &err), ARB_OK, "%s",
                 err.msg);
    cr_assert_eq(out.len, 500000 + strlen("4194304\n"));
    cr_assert_str_eq(out.ptr + 500000, "4194304\n");
    arb_buf_release(&out);
    free(input);
}

Test(grader, should_put_hybrid_scores_together)
{
    cJSON *r = cJSON_Parse(
        "{\"weighted\": [{\"system\": \"a\", \"score\": 0.6}, {\"system\": \"b\", \"score\": 0.2}],"
        " \"custom\": {\"systems\": [{\"system\": \"a\", \"mean_score\": 1},"
        " {\"system\": \"b\", \"mean_score\": null}]}}");
    struct arb_err err = {{0}};
    const cJSON *s;

    cr_assert(r);
    cr_assert_eq(arb_report_add_hybrid(r, 0.25, &err), ARB_OK);
    s = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "hybrid"), "systems");
    cr_assert_float_eq(cJSON_GetObjectItemCaseSensitive(s->child, "score")->valuedouble,
                       0.6 * 0.75 + 1 * 0.25, 1e-12);
    cr_assert_float_eq(cJSON_GetObjectItemCaseSensitive(s->child, "weighted")->valuedouble, 0.6,
                       1e-12);
    /* never ranked by the grader: no hybrid score rather than the weighted one alone */
    cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(s->child->next, "custom")));
    cr_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(s->child->next, "score")));
    cr_assert_float_eq(cJSON_GetObjectItemCaseSensitive(
                           cJSON_GetObjectItemCaseSensitive(r, "hybrid"), "weighted_weight")
                           ->valuedouble,
                       0.75, 1e-12);
    cJSON_Delete(r);
}
