/*
 * The pairwise judge asked for each response's strengths and weaknesses (the judge config's
 * "feedback"; src/judge/request.c, config.c): the reply schema gains "feedback": {"A": {...},
 * "B": {...}}, every member required and nothing else allowed, inside the strict subset and
 * the providers' published request shapes; the prompt asks for it after the template; and
 * without it nothing changes: the schema, the prompt and the config's hash are those of
 * before, so every stored cache key keeps answering.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/judge/judge_int.h"
#include "arbiter/file.h"
#include "arbiter/json.h"
#include "arbiter/schema.h"
#include "strict_schema.h"

#define OPENAI_REQUEST    "tests/data/providers/openai/chat-completions-request.schema.json"
#define ANTHROPIC_REQUEST "tests/data/providers/anthropic/messages-request.schema.json"

static const struct arb_judge_item items[] = {
    {.kind = ARB_ITEM_CRITERION, .name = "correctness"},
    {.kind = ARB_ITEM_EXPECTATION, .name = "polite", .text = "The answer is polite"},
};

static struct arb_judge_question question(int feedback)
{
    struct arb_judge_question q;

    memset(&q, 0, sizeof(q));
    q.case_id = "c1";
    q.system_a = "alpha";
    q.system_b = "beta";
    q.task = "Answer the question about France.";
    q.output_a = "Paris.";
    q.output_b = "It is Paris, of course.";
    q.items = items;
    q.n_items = 2;
    q.seed = 7;
    q.feedback = feedback;
    return q;
}

static char *render(const struct arb_judge_question *q)
{
    struct arb_buf out;

    arb_buf_init(&out, 0);
    cr_assert_eq(judge_render(q, "0123456789abcdef", 0, &out), ARB_OK);
    return arb_buf_detach(&out, NULL);
}

static cJSON *parse(const char *text)
{
    cJSON *doc = cJSON_Parse(text);

    cr_assert_not_null(doc, "bad test JSON: %s", text);
    return doc;
}

Test(judge_feedback, should_ask_for_feedback_only_when_told)
{
    struct arb_judge_question off = question(0), on = question(1);
    cJSON *s_off = judge_schema(&off), *s_on = judge_schema(&on);
    cJSON *req_off = cJSON_GetObjectItemCaseSensitive(s_off, "required");
    cJSON *want_off = parse("[\"reasoning\", \"criteria\", \"expectations\", \"winner\"]");
    cJSON *want_on =
        parse("[\"reasoning\", \"criteria\", \"expectations\", \"feedback\", \"winner\"]");
    char *p_off = render(&off), *p_on = render(&on);
    size_t n_off = strlen(p_off);

    cr_assert(cJSON_Compare(req_off, want_off, 1), "without feedback: the required of before");
    cr_assert_null(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(s_off, "properties"), "feedback"));
    cr_assert(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(s_on, "required"), want_on, 1));
    /* The prompt with feedback is the prompt without it, then the request for it. */
    cr_assert_null(strstr(p_off, "strengths"));
    cr_assert(strncmp(p_on, p_off, n_off) == 0, "the template part changed");
    cr_assert_not_null(strstr(p_on + n_off, "strengths and its weaknesses"));
    cr_assert_not_null(strstr(p_on + n_off, "\"feedback\""));
    free(p_off);
    free(p_on);
    cJSON_Delete(want_off);
    cJSON_Delete(want_on);
    cJSON_Delete(s_off);
    cJSON_Delete(s_on);
}

static int valid(const cJSON *schema, const char *reply)
{
    struct arb_schema *s = NULL;
    struct arb_err err = {{0}};
    struct arb_schema_errors errs;
    cJSON *doc = parse(reply);
    int r;

    cr_assert_eq(arb_schema_compile(schema, NULL, &s, &err), ARB_OK, "%s", err.msg);
    arb_schema_errors_init(&errs);
    r = arb_schema_validate(s, doc, &errs);
    arb_schema_free(s);
    cJSON_Delete(doc);
    return r == 1;
}

#define HEAD                                                                                       \
    "{\"reasoning\": \"r\", \"criteria\": {\"correctness\": {\"A\": 4, \"B\": 2}},"                \
    " \"expectations\": {\"polite\": {\"A\": true, \"B\": false}},"

Test(judge_feedback, should_require_the_whole_feedback_and_nothing_else)
{
    struct arb_judge_question on = question(1), off = question(0);
    cJSON *schema = judge_schema(&on), *old = judge_schema(&off);

    cr_assert(valid(schema, HEAD " \"feedback\": {\"A\": {\"strengths\": [\"Names Paris.\"],"
                                 " \"weaknesses\": []}, \"B\": {\"strengths\": [],"
                                 " \"weaknesses\": [\"Rambles.\"]}}, \"winner\": \"A\"}"));
    cr_assert(!valid(schema, HEAD " \"winner\": \"A\"}"), "feedback missing");
    cr_assert(!valid(schema, HEAD " \"feedback\": {\"A\": {\"strengths\": []}, \"B\":"
                                  " {\"strengths\": [], \"weaknesses\": []}}, \"winner\": \"A\"}"),
              "weaknesses missing");
    cr_assert(!valid(schema, HEAD " \"feedback\": {\"A\": {\"strengths\": [1], \"weaknesses\":"
                                  " []}, \"B\": {\"strengths\": [], \"weaknesses\": []}},"
                                  " \"winner\": \"A\"}"),
              "a sentence that is not a string");
    cr_assert(!valid(schema, HEAD " \"feedback\": {\"A\": {\"strengths\": [], \"weaknesses\":"
                                  " [], \"score\": 3}, \"B\": {\"strengths\": [], \"weaknesses\":"
                                  " []}}, \"winner\": \"A\"}"),
              "a member the schema does not name");
    /* A judge not asked for it may not answer it. */
    cr_assert(!valid(old, HEAD " \"feedback\": {\"A\": {\"strengths\": [], \"weaknesses\": []},"
                               " \"B\": {\"strengths\": [], \"weaknesses\": []}},"
                               " \"winner\": \"A\"}"));
    cJSON_Delete(schema);
    cJSON_Delete(old);
}

static struct arb_schema *load(const char *path)
{
    struct arb_buf text;
    struct arb_err err = {{0}};
    struct arb_schema *s = NULL;
    cJSON *doc = NULL;

    arb_buf_init(&text, 0);
    cr_assert_eq(arb_file_read(path, &text, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_json_parse(text.ptr, text.len, 0, &doc, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_schema_compile(doc, NULL, &s, &err), ARB_OK, "%s", err.msg);
    cJSON_Delete(doc);
    arb_buf_release(&text);
    return s;
}

static void config(const char *json, struct arb_judge_config *cfg)
{
    cJSON *obj = parse(json);
    struct arb_err err = {{0}};

    cr_assert_eq(arb_judge_config_parse(obj, cfg, &err), ARB_OK, "%s: %s", json, err.msg);
    cJSON_Delete(obj);
}

Test(judge_feedback, should_stay_strict_and_in_the_providers_shapes)
{
    static const char *const cfgs[] = {
        "{\"provider\": \"openai\", \"model\": \"gpt-4o-mini\", \"api_key_env\": \"K\","
        " \"feedback\": true}",
        "{\"provider\": \"openai\", \"model\": \"gpt-4o-mini\", \"api_key_env\": \"K\","
        " \"feedback\": true, \"response_format\": \"json_object\"}",
        "{\"provider\": \"anthropic\", \"model\": \"claude-3-5-haiku-latest\","
        " \"api_key_env\": \"K\", \"feedback\": true}",
        "{\"provider\": \"anthropic\", \"model\": \"claude-3-5-haiku-latest\","
        " \"api_key_env\": \"K\", \"feedback\": true, \"response_format\": \"prompt\"}",
    };
    struct arb_schema *openai = load(OPENAI_REQUEST), *anthropic = load(ANTHROPIC_REQUEST);
    struct arb_judge_question q = question(1);
    cJSON *schema = judge_schema(&q);
    char why[512], *prompt = render(&q);
    size_t i;

    cr_assert(strict_schema_check(schema, why, sizeof(why)), "outside the strict subset: %s", why);
    for (i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++) {
        struct arb_judge_config cfg;
        struct arb_err err = {{0}};
        struct arb_schema_errors errs;
        char *body = NULL, key[65];
        cJSON *doc;

        config(cfgs[i], &cfg);
        cr_assert_eq(
            judge_build_request_as(&cfg, 0, prompt, schema, 0, NULL, NULL, &body, key, &err),
            ARB_OK, "%s", err.msg);
        doc = parse(body);
        arb_schema_errors_init(&errs);
        cr_assert_eq(arb_schema_validate(cfg.provider == ARB_JUDGE_ANTHROPIC ? anthropic : openai,
                                         doc, &errs),
                     1, "%s: the body is outside the provider's published shape", cfgs[i]);
        cr_assert_not_null(strstr(body, "feedback"), "%s", cfgs[i]);
        cJSON_Delete(doc);
        free(body);
        arb_judge_config_release(&cfg);
    }
    free(prompt);
    cJSON_Delete(schema);
    arb_schema_free(openai);
    arb_schema_free(anthropic);
}

Test(judge_feedback, should_keep_the_hash_of_a_config_without_feedback)
{
    struct arb_judge_config none, off, on;
    cJSON *j_none, *j_off, *j_on;

    config("{\"model\": \"m\", \"api_key_env\": \"K\"}", &none);
    config("{\"model\": \"m\", \"api_key_env\": \"K\", \"feedback\": false}", &off);
    config("{\"model\": \"m\", \"api_key_env\": \"K\", \"feedback\": true}", &on);
    cr_assert(!none.feedback && !none.feedback_set && !off.feedback && off.feedback_set &&
              on.feedback && on.feedback_set);
    cr_assert_str_eq(none.hash, off.hash);
    cr_assert_str_neq(none.hash, on.hash);
    /* The stored config says it when it was said (replay and --resume ask alike). */
    j_none = arb_judge_config_json(&none);
    j_off = arb_judge_config_json(&off);
    j_on = arb_judge_config_json(&on);
    cr_assert_null(cJSON_GetObjectItemCaseSensitive(j_none, "feedback"));
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(j_off, "feedback")));
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j_on, "feedback")));
    cJSON_Delete(j_none);
    cJSON_Delete(j_off);
    cJSON_Delete(j_on);
    arb_judge_config_release(&none);
    arb_judge_config_release(&off);
    arb_judge_config_release(&on);
}

Test(judge_feedback, should_refuse_a_feedback_that_is_not_a_boolean)
{
    struct arb_judge_config cfg;
    struct arb_err err = {{0}};
    cJSON *obj = parse("{\"model\": \"m\", \"api_key_env\": \"K\", \"feedback\": \"yes\"}");

    cr_assert_eq(arb_judge_config_parse(obj, &cfg, &err), ARB_ESCHEMA);
    cr_assert_str_eq(err.msg, "/judge/feedback: expected true or false");
    cJSON_Delete(obj);
}

/* schemas/judge-reply.schema.json, the general shape, takes a reply with feedback. */
Test(judge_feedback, should_fit_the_general_reply_shape_in_schemas)
{
    struct arb_schema *general = load("schemas/judge-reply.schema.json");
    cJSON *with = parse(HEAD " \"feedback\": {\"A\": {\"strengths\": [\"Names Paris.\"],"
                             " \"weaknesses\": []}, \"B\": {\"strengths\": [], \"weaknesses\":"
                             " [\"Rambles.\"]}}, \"winner\": \"A\"}");
    cJSON *half = parse(HEAD " \"feedback\": {\"A\": {\"strengths\": []}}, \"winner\": \"A\"}");

    cr_assert_eq(arb_schema_validate(general, with, NULL), 1);
    cr_assert_eq(arb_schema_validate(general, half, NULL), 0);
    cJSON_Delete(with);
    cJSON_Delete(half);
    arb_schema_free(general);
}

/*
 * Without feedback, a pairwise request is byte for byte the one Arbiter sent before feedback
 * existed: its cache key and the config's hash, pinned from the build before this change
 * (the same question, rendered with the fence placeholder as the key is computed), so every
 * stored reply keeps answering and every calibration keeps its judge.
 */
Test(judge_feedback, should_send_the_requests_of_before_without_feedback)
{
    struct arb_judge_question q = question(0);
    struct arb_judge_config cfg;
    struct arb_err err = {{0}};
    struct arb_buf msg;
    char key[65], *body = NULL;
    cJSON *schema = judge_schema(&q);

    config("{\"provider\": \"openai\", \"model\": \"gpt-4o-mini\", \"api_key_env\": \"K\"}", &cfg);
    arb_buf_init(&msg, 0);
    cr_assert_eq(judge_render(&q, JUDGE_FENCE_PLACEHOLDER, 0, &msg), ARB_OK);
    cr_assert_eq(judge_build_request_as(&cfg, 0, msg.ptr, schema, 0, NULL, NULL, &body, key, &err),
                 ARB_OK, "%s", err.msg);
    cr_assert_str_eq(key, "b475364bd38fd904a6cc7106f29e8c07144c1fdb7369d6e24a248abcff308c08");
    cr_assert_str_eq(cfg.hash, "7aae00ca8fd40f43fe1cd7b0d2308d3d0c7d4b753c889127f1d5b94e87f39156");
    free(body);
    arb_buf_release(&msg);
    cJSON_Delete(schema);
    arb_judge_config_release(&cfg);
}
