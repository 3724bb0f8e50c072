/*
 * The llm_judge operator (issue 19, seeds/evaluator-factories.txt): its config is validated
 * with located errors; alone it is unresolved with the note needs_judge; its template is
 * filled by template.h's rules ({output}, {expected_output}, {{ and }} literal, other braces
 * kept); {expected_output} reads the case's expected value as evalwire's expected_items[0];
 * the judge's question renders the template with the output fenced and asks for reasoning
 * then result_key; a judged score becomes a verdict by the check's threshold and "not".
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/judge/judge_int.h"
#include "arbiter/compare.h"
#include "arbiter/json.h"
#include "arbiter/suite.h"
#include "arbiter/template.h"

/* Compile text as a check: the status, and err's message in msg. */
static enum arb_status compile(const char *text, struct arb_check **out, char *msg, size_t len)
{
    cJSON *cfg = cJSON_Parse(text);
    struct arb_err err = {{0}};
    enum arb_status st;

    cr_assert_not_null(cfg, "test config is not JSON: %s", text);
    *out = NULL;
    st = arb_check_compile(cfg, NULL, out, &err);
    cJSON_Delete(cfg);
    snprintf(msg, len, "%.1000s", err.msg);
    return st;
}

static void refused(const char *text, const char *want)
{
    struct arb_check *c;
    char msg[1100];

    cr_assert_eq(compile(text, &c, msg, sizeof(msg)), ARB_ESCHEMA, "accepted: %s", text);
    cr_assert_null(c);
    cr_assert(strstr(msg, want) != NULL, "message '%s' lacks '%s'", msg, want);
}

Test(llm_judge, should_refuse_a_check_without_a_template)
{
    refused("{\"op\":\"llm_judge\"}", "/: missing 'template'");
    refused("{\"op\":\"llm_judge\",\"template\":7}", "/template: expected a string");
}

Test(llm_judge, should_refuse_a_template_without_the_output_placeholder)
{
    refused("{\"op\":\"llm_judge\",\"template\":\"Is {expected_output} right?\"}",
            "/template: expected the placeholder {output}");
    /* doubled braces are a literal brace, not a placeholder */
    refused("{\"op\":\"llm_judge\",\"template\":\"Is {{output}} right?\"}",
            "/template: expected the placeholder {output}");
}

Test(llm_judge, should_refuse_bad_words_naming_their_member)
{
    refused("{\"op\":\"llm_judge\",\"template\":\"{output}\",\"on_error\":\"silent\"}",
            "/on_error: expected \"unresolved\" (the default) or \"fail\", got 'silent'");
    refused("{\"op\":\"llm_judge\",\"template\":\"{output}\",\"on_error\":false}",
            "/on_error: expected a string");
    refused("{\"op\":\"llm_judge\",\"template\":\"{output}\",\"result_type\":\"float\"}",
            "/result_type: expected \"bool\"");
    refused("{\"op\":\"llm_judge\",\"template\":\"{output}\",\"result_key\":\"reasoning\"}",
            "/result_key: expected a non-empty member name other than 'reasoning'");
    refused("{\"op\":\"llm_judge\",\"template\":\"{output}\",\"result_key\":\"\"}", "/result_key:");
    refused("{\"op\":\"llm_judge\",\"template\":\"{output}\",\"prompt_template\":\"x\"}",
            "/prompt_template: unknown parameter 'prompt_template' for operator 'llm_judge' "
            "(valid: template, result_key, result_type, on_error;");
    refused("{\"op\":\"llm_judge\",\"template\":\"{output}\",\"threshold\":2}", "/threshold:");
}

Test(llm_judge, should_refuse_an_llm_judge_inside_an_aggregate)
{
    refused("{\"op\":\"all\",\"checks\":[{\"op\":\"exact\",\"expected\":\"a\"},"
            "{\"op\":\"llm_judge\",\"template\":\"{output}\"}]}",
            "/checks/1/op: 'llm_judge' must be the whole check of an expectation or criterion");
    refused(
        "{\"op\":\"fields\",\"fields\":{\"a\":{\"op\":\"llm_judge\",\"template\":\"{output}\"}}}",
        "'llm_judge' must be the whole check");
}

Test(llm_judge, should_locate_a_bad_check_in_a_suite)
{
    static const char suite[] =
        "{\"name\": \"s\", \"systems\": {\"a\": \"a.jsonl\", \"b\": \"b.jsonl\"},\n"
        " \"expectations\": [{\"id\": \"e\", \"text\": \"t\",\n"
        "   \"check\": {\"op\": \"llm_judge\", \"template\": \"{output}\", \"on_error\": "
        "\"x\"}}],\n"
        " \"cases\": [{\"id\": \"c1\"}]}\n";
    struct arb_suite *s = NULL;
    struct arb_err err = {{0}};

    cr_assert_eq(arb_suite_parse(suite, strlen(suite), "suite.json", ".", &s, &err), ARB_ESCHEMA);
    cr_assert(strstr(err.msg, "suite.json:3:") != NULL, "not located: %s", err.msg);
    cr_assert(strstr(err.msg, "/expectations/0/check/on_error: expected \"unresolved\"") != NULL,
              "%s", err.msg);
}

Test(llm_judge, should_be_unresolved_alone_with_a_note)
{
    struct arb_check *c;
    struct arb_result res;
    struct arb_err err = {{0}};
    char msg[1100];
    const struct arb_llm_judge *q;

    cr_assert_eq(compile("{\"op\":\"llm_judge\",\"template\":\"Is {output} right?\","
                         "\"result_type\":\"score\",\"threshold\":0.6,\"on_error\":\"fail\"}",
                         &c, msg, sizeof(msg)),
                 ARB_OK, "%s", msg);
    q = arb_check_llm_judge(c);
    cr_assert_not_null(q);
    cr_assert_str_eq(q->template_text, "Is {output} right?");
    cr_assert_str_eq(q->result_key, "score");
    cr_assert_eq(q->result_bool, 0);
    cr_assert_eq(q->on_error_fail, 1);
    arb_result_init(&res);
    cr_assert_eq(arb_check_run(c, "Paris", 5, NULL, &res, &err), ARB_OK);
    cr_assert_eq(res.verdict, ARB_UNRESOLVED);
    cr_assert_eq(res.n_notes, 1);
    cr_assert(strncmp(res.notes[0], "needs_judge: ", 13) == 0, "%s", res.notes[0]);
    arb_result_release(&res);
    arb_check_free(c);
    /* the defaults: result_key score, bool, unresolved on error; other checks have no question */
    cr_assert_eq(compile("{\"op\":\"llm_judge\",\"template\":\"{output}\"}", &c, msg, sizeof(msg)),
                 ARB_OK);
    q = arb_check_llm_judge(c);
    cr_assert(q->result_bool && !q->on_error_fail && strcmp(q->result_key, "score") == 0);
    arb_check_free(c);
    cr_assert_eq(compile("{\"op\":\"exact\",\"expected\":\"a\"}", &c, msg, sizeof(msg)), ARB_OK);
    cr_assert_null(arb_check_llm_judge(c));
    arb_check_free(c);
}

/* Fill tmpl with out and exp as {output} and {expected_output}. */
static void filled(const char *tmpl, const char *out, const char *exp, const char *want,
                   unsigned want_found)
{
    static const char *const names[] = {"output", "expected_output"};
    const char *values[2] = {out, exp};
    struct arb_buf b;
    unsigned found = 99;

    arb_buf_init(&b, 0);
    cr_assert_eq(arb_template_fill(tmpl, names, values, 2, &b, &found), ARB_OK);
    cr_assert_str_eq(b.ptr, want);
    cr_assert_eq(found, want_found, "found %u for '%s'", found, tmpl);
    arb_buf_release(&b);
}

Test(llm_judge, should_fill_placeholders_and_keep_other_braces)
{
    filled("Answer: {output}\nExpected: {expected_output}", "Paris", "paris",
           "Answer: Paris\nExpected: paris", 3);
    filled("{output}{output}", "x", "", "xx", 1);
    /* doubled braces are literal braces, as in Python's str.format */
    filled("Reply {{\"score\": true}} for {output}", "x", "", "Reply {\"score\": true} for x", 1);
    filled("{{output}} {{{output}}}", "x", "", "{output} {x}", 1);
    /* any other brace stays as written (Python would raise) */
    filled("{\"a\": 1} {unknown} {output", "x", "", "{\"a\": 1} {unknown} {output", 0);
    filled("a } b { c", "x", "", "a } b { c", 0);
    /* values are never scanned again */
    filled("{output} / {expected_output}", "{expected_output}", "{{output}}",
           "{expected_output} / {{output}}", 3);
    filled("", "x", "y", "", 0);
}

static void expected_reads(const char *json, const char *want)
{
    cJSON *e = json ? cJSON_Parse(json) : NULL;
    struct arb_buf b;

    arb_buf_init(&b, 0);
    cr_assert_eq(arb_llm_judge_expected(e, &b), ARB_OK);
    cr_assert_str_eq(b.ptr ? b.ptr : "", want, "expected %s", json ? json : "NULL");
    arb_buf_release(&b);
    cJSON_Delete(e);
}

Test(llm_judge, should_read_the_expected_output_as_evalwire_does)
{
    expected_reads("\"Paris\"", "Paris");
    expected_reads("[\"Lyon\", \"Nice\"]", "Lyon"); /* expected_items[0] */
    expected_reads("[]", "");                       /* no items: "" */
    expected_reads(NULL, "");
    expected_reads("{\"b\": 2, \"a\": [1.0, \"x\"]}", "{\"a\":[1,\"x\"],\"b\":2}");
    expected_reads("[{\"k\": true}]", "{\"k\":true}");
    expected_reads("42", "42");
}

Test(llm_judge, should_hold_a_judged_score_against_the_threshold)
{
    struct arb_check *c;
    char msg[1100];
    double shown;

    /* the judge's score is final: no grey band (fail_below is refused, located) */
    cr_assert_eq(
        compile("{\"op\":\"llm_judge\",\"template\":\"{output}\",\"result_type\":\"score\","
                "\"threshold\":0.7,\"fail_below\":0.4}",
                &c, msg, sizeof(msg)),
        ARB_ESCHEMA);
    cr_assert(strstr(msg, "/fail_below") != NULL, "%s", msg);
    cr_assert_eq(compile("{\"op\":\"llm_judge\",\"template\":\"{output}\","
                         "\"result_type\":\"score\",\"threshold\":0.7}",
                         &c, msg, sizeof(msg)),
                 ARB_OK, "%s", msg);
    cr_assert_eq(arb_check_judged(c, 0.7, &shown), ARB_PASS);
    cr_assert_eq(arb_check_judged(c, 0.5, &shown), ARB_FAIL);
    cr_assert_eq(arb_check_judged(c, 0.39, &shown), ARB_FAIL);
    cr_assert_float_eq(shown, 0.39, 1e-12);
    arb_check_free(c);
    cr_assert_eq(compile("{\"op\":\"llm_judge\",\"template\":\"{output}\",\"not\":true}", &c, msg,
                         sizeof(msg)),
                 ARB_OK);
    cr_assert_eq(arb_check_judged(c, 1.0, &shown), ARB_FAIL); /* "not": true is the inverse */
    cr_assert_float_eq(shown, 0.0, 1e-12);
    cr_assert_eq(arb_check_judged(c, 0.0, &shown), ARB_PASS);
    arb_check_free(c);
}

static struct arb_judge_question question(const struct arb_judge_item *item, int result_bool)
{
    struct arb_judge_question q;

    memset(&q, 0, sizeof(q));
    q.case_id = "c1";
    q.system_a = "sys";
    q.system_b = "llm_judge:expectation:right";
    q.output_a = "It is {expected_output}, Paris";
    q.items = item;
    q.n_items = 1;
    q.template_text = "Answer: {output}\nReference: {expected_output}\nSay {{\"ok\": true}}.";
    q.expected = "Paris";
    q.result_key = "ok";
    q.result_bool = result_bool;
    return q;
}

Test(llm_judge, should_ask_the_filled_template_with_the_output_fenced)
{
    static const struct arb_judge_item item = {.kind = ARB_ITEM_EXPECTATION, .name = "ok"};
    struct arb_judge_question q = question(&item, 1);
    struct arb_buf b;

    arb_buf_init(&b, 0);
    cr_assert_eq(judge_render(&q, "0123456789abcdef", 0, &b), ARB_OK);
    cr_assert_str_eq(b.ptr, "Answer: <<<BEGIN RESPONSE 0123456789abcdef>>>\n"
                            "It is {expected_output}, Paris\n"
                            "<<<END RESPONSE 0123456789abcdef>>>\n"
                            "Reference: Paris\nSay {\"ok\": true}.");
    arb_buf_release(&b);
}

Test(llm_judge, should_ask_for_reasoning_then_the_result)
{
    static const struct arb_judge_item item = {.kind = ARB_ITEM_EXPECTATION, .name = "ok"};
    struct arb_judge_question q = question(&item, 1);
    cJSON *s = judge_schema(&q);
    char *text;

    cr_assert_not_null(s);
    text = cJSON_PrintUnformatted(s);
    cr_assert_str_eq(text,
                     "{\"type\":\"object\",\"properties\":{\"reasoning\":{\"type\":\"string\"},"
                     "\"ok\":{\"type\":\"boolean\"}},\"required\":[\"reasoning\",\"ok\"],"
                     "\"additionalProperties\":false}");
    cJSON_free(text);
    cJSON_Delete(s);
    q = question(&item, 0);
    s = judge_schema(&q);
    text = cJSON_PrintUnformatted(s);
    cr_assert(strstr(text, "\"ok\":{\"type\":\"number\",\"minimum\":0,\"maximum\":1}") != NULL,
              "%s", text);
    cJSON_free(text);
    cJSON_Delete(s);
}

Test(llm_judge, should_combine_samples_by_majority_or_mean)
{
    static const struct arb_judge_item item = {.kind = ARB_ITEM_EXPECTATION, .name = "ok"};
    struct arb_judge_question q = question(&item, 1);
    cJSON *slots[3];
    double score = NAN;
    int pass = -1;
    struct arb_judge_answer a;

    slots[0] = cJSON_Parse("{\"reasoning\":\"first\",\"ok\":true}");
    slots[1] = cJSON_Parse("{\"reasoning\":\"second\",\"ok\":false}");
    slots[2] = cJSON_Parse("{\"reasoning\":\"third\",\"ok\":true}");
    memset(&a, 0, sizeof(a));
    a.pass_a = &pass;
    a.score_a = &score;
    judge_single_combine(&q, slots, 3, &a);
    cr_assert_eq(pass, 1);
    cr_assert_str_eq(a.reasoning, "first");
    judge_single_combine(&q, slots, 2, &a); /* a tie of votes fails */
    cr_assert_eq(pass, 0);
    for (int k = 0; k < 3; k++)
        cJSON_Delete(slots[k]);
    q = question(&item, 0);
    slots[0] = cJSON_Parse("{\"reasoning\":\"r\",\"ok\":0.25}");
    slots[1] = cJSON_Parse("{\"reasoning\":\"r\",\"ok\":0.75}");
    judge_single_combine(&q, slots, 2, &a);
    cr_assert_float_eq(score, 0.5, 1e-12);
    cJSON_Delete(slots[0]);
    cJSON_Delete(slots[1]);
}
