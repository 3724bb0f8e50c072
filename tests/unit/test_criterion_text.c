/*
 * What the judge is told of each item (issue 18): a criterion's description and its 1/3/5
 * anchors, an expectation's description, as the suite gives them (include/arbiter/suite.h)
 * and as the pairwise prompt renders them (src/judge/request.c).  An item without them
 * renders byte for byte as before, so stored cache keys keep answering.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/judge/judge_int.h"
#include "arbiter/suite.h"

#define FENCE "0123456789abcdef"

static struct arb_judge_question question(const struct arb_judge_item *items, size_t n)
{
    struct arb_judge_question q;

    memset(&q, 0, sizeof(q));
    q.case_id = "c1";
    q.system_a = "alpha";
    q.system_b = "beta";
    q.task = "Answer.";
    q.prompt = "What is the capital of France?";
    q.output_a = "Paris.";
    q.output_b = "It is Paris.";
    q.items = items;
    q.n_items = n;
    q.seed = 7;
    return q;
}

/* The prompt's "What to judge" part, from the items up to the closing instructions. */
static char *items_part(const struct arb_judge_item *items, size_t n)
{
    struct arb_judge_question q = question(items, n);
    struct arb_buf out;
    const char *from, *to;
    char *part;

    arb_buf_init(&out, 0);
    cr_assert_eq(judge_render(&q, FENCE, 0, &out), ARB_OK);
    from = strstr(out.ptr, "## What to judge\n\n");
    to = strstr(out.ptr, "\nWrite your reasoning first");
    cr_assert(from && to && to > from, "the template's layout changed: %s", out.ptr);
    from += strlen("## What to judge\n\n");
    part = strndup(from, (size_t)(to - from));
    cr_assert_not_null(part);
    arb_buf_release(&out);
    return part;
}

/* ---- rendering ------------------------------------------------------------------------- */

Test(criterion_text, should_render_items_without_text_exactly_as_before)
{
    static const struct arb_judge_item items[] = {
        {.kind = ARB_ITEM_CRITERION, .name = "correctness"},
        {.kind = ARB_ITEM_CRITERION, .name = "instruction_following"},
        {.kind = ARB_ITEM_EXPECTATION, .name = "polite", .text = "The answer is polite"},
    };
    struct arb_judge_question q = question(items, 3);
    struct arb_buf out;
    char hex[65], *part = items_part(items, 3);

    cr_assert_str_eq(part, "Criteria (score 1-5 for each response):\n"
                           "- correctness: 1 = major errors, 3 = minor errors, 5 = fully correct\n"
                           "- instruction_following: 1 = poor, 3 = acceptable, 5 = excellent\n"
                           "\n"
                           "Expectations (true or false for each response):\n"
                           "- polite: The answer is polite\n"
                           "\n");
    free(part);
    /* The whole prompt as the Arbiter before issue 18 rendered it (its SHA-256, taken from
     * that build): the cache keys of stored replies depend on these bytes. */
    arb_buf_init(&out, 0);
    cr_assert_eq(judge_render(&q, FENCE, 0, &out), ARB_OK);
    cr_assert_eq(judge_sha256_hex(out.ptr, hex), ARB_OK);
    cr_assert_str_eq(hex, "4e8a39350edaae15b3f355fabfde37398c1716308cd427fb588af5a95e7a855c");
    arb_buf_release(&out);
}

Test(criterion_text, should_render_a_description_and_every_anchor)
{
    static const struct arb_judge_item items[] = {
        {.kind = ARB_ITEM_CRITERION,
         .name = "instruction_following",
         .description = "Does the response follow every instruction in the prompt?",
         .anchor = {"ignores the instruction", "follows it partly", "follows every instruction"}},
    };
    char *part = items_part(items, 1);

    cr_assert_str_eq(part, "Criteria (score 1-5 for each response):\n"
                           "- instruction_following: Does the response follow every instruction "
                           "in the prompt?\n"
                           "  1 = ignores the instruction, 3 = follows it partly, "
                           "5 = follows every instruction\n"
                           "\n");
    free(part);
}

Test(criterion_text, should_fill_missing_anchors_from_the_built_in_ones)
{
    static const struct arb_judge_item items[] = {
        {.kind = ARB_ITEM_CRITERION, .name = "correctness", .anchor = {NULL, NULL, "exact"}},
        {.kind = ARB_ITEM_CRITERION, .name = "tone", .anchor = {"rude", NULL, NULL}},
        {.kind = ARB_ITEM_CRITERION,
         .name = "brevity",
         .description = "Is it short?",
         .anchor = {NULL, "a little long", NULL}},
    };
    char *part = items_part(items, 3);

    cr_assert_str_eq(part, "Criteria (score 1-5 for each response):\n"
                           "- correctness: 1 = major errors, 3 = minor errors, 5 = exact\n"
                           "- tone: 1 = rude, 3 = acceptable, 5 = excellent\n"
                           "- brevity: Is it short?\n"
                           "  1 = poor, 3 = a little long, 5 = excellent\n"
                           "\n");
    free(part);
}

Test(criterion_text, should_keep_the_old_line_for_a_description_alone_or_empty)
{
    static const struct arb_judge_item items[] = {
        {.kind = ARB_ITEM_CRITERION, .name = "usability", .description = "Can a clerk use it?"},
        {.kind = ARB_ITEM_CRITERION, .name = "clarity", .description = ""},
    };
    char *part = items_part(items, 2);

    cr_assert_str_eq(part, "Criteria (score 1-5 for each response):\n"
                           "- usability: Can a clerk use it?\n"
                           "  1 = difficult to use, 3 = usable with effort, 5 = easy to use\n"
                           "- clarity: 1 = poor, 3 = acceptable, 5 = excellent\n"
                           "\n");
    free(part);
}

Test(criterion_text, should_render_an_expectations_description_under_its_text)
{
    static const struct arb_judge_item items[] = {
        {.kind = ARB_ITEM_EXPECTATION,
         .name = "cites",
         .text = "The answer cites a source",
         .description = "A named document or a link counts; 'studies show' does not."},
        {.kind = ARB_ITEM_EXPECTATION, .name = "polite", .text = "The answer is polite"},
    };
    char *part = items_part(items, 2);

    cr_assert_str_eq(part, "\nExpectations (true or false for each response):\n"
                           "- cites: The answer cites a source\n"
                           "  A named document or a link counts; 'studies show' does not.\n"
                           "- polite: The answer is polite\n"
                           "\n");
    free(part);
}

Test(criterion_text, should_change_the_cache_key_with_the_text_the_judge_sees)
{
    static const struct arb_judge_item plain[] = {
        {.kind = ARB_ITEM_CRITERION, .name = "tone"},
    };
    static const struct arb_judge_item described[] = {
        {.kind = ARB_ITEM_CRITERION, .name = "tone", .description = "Is it kind?"},
    };
    struct arb_judge_config cfg;
    struct arb_err err = {{0}};
    char k1[65], k2[65], *body;
    const struct arb_judge_item *both[2] = {plain, described};
    char *keys[2] = {k1, k2};

    memset(&cfg, 0, sizeof(cfg));
    cfg.provider = ARB_JUDGE_OPENAI;
    cfg.model = "m";
    cfg.base_url = "http://127.0.0.1:1/v1";
    cfg.max_tokens = 1024;
    for (size_t i = 0; i < 2; i++) {
        struct arb_judge_question q = question(both[i], 1);
        cJSON *schema = judge_schema(&q);
        struct arb_buf msg;

        arb_buf_init(&msg, 0);
        cr_assert_eq(judge_render(&q, JUDGE_FENCE_PLACEHOLDER, 0, &msg), ARB_OK);
        cr_assert_eq(
            judge_build_request(&cfg, msg.ptr, schema, 0, NULL, NULL, &body, keys[i], &err), ARB_OK,
            "%s", err.msg);
        if (i == 1)
            cr_assert_not_null(strstr(body, "Is it kind?"), "the request holds the description");
        free(body);
        cJSON_Delete(schema);
        arb_buf_release(&msg);
    }
    cr_assert_str_neq(k1, k2);
}

/* ---- the suite ------------------------------------------------------------------------- */

static struct arb_suite *parse_ok(const char *text)
{
    struct arb_err err = {""};
    struct arb_suite *s = NULL;

    cr_assert_eq(arb_suite_parse(text, strlen(text), "s.json", ".", &s, &err), ARB_OK, "%s",
                 err.msg);
    return s;
}

static void expect_parse_error(const char *text, const char *msg)
{
    struct arb_err err = {""};
    struct arb_suite *s = NULL;

    cr_assert_eq(arb_suite_parse(text, strlen(text), "s.json", ".", &s, &err), ARB_ESCHEMA,
                 "accepted: %s", text);
    cr_assert_null(s);
    cr_assert_str_eq(err.msg, msg);
}

Test(criterion_text, should_load_descriptions_and_anchors)
{
    struct arb_suite *s = parse_ok(
        "{\"rubric\": {\"content\": [\n"
        "  {\"name\": \"instruction_following\", \"description\": \"Follows the prompt?\",\n"
        "   \"anchors\": {\"1\": \"ignores it\", \"3\": \"partly\", \"5\": \"fully\"}},\n"
        "  {\"name\": \"tone\", \"anchors\": {\"5\": \"warm\"}},\n"
        "  {\"name\": \"plain\"}],\n"
        " \"structure\": []},\n"
        " \"expectations\": [{\"id\": \"cites\", \"text\": \"Cites a source\",\n"
        "                   \"description\": \"A link counts\"},\n"
        "                  {\"id\": \"polite\", \"text\": \"Is polite\"}],\n"
        " \"cases\": [{\"id\": \"c1\", \"expectations\": [\n"
        "   {\"id\": \"short\", \"text\": \"Is short\", \"description\": \"Under 40 words\"}]}]}");
    struct arb_case_reader *r = NULL;
    struct arb_err err = {""};
    struct arb_case c;

    cr_assert_eq(s->n_criteria, 3);
    cr_assert_str_eq(s->criteria[0].description, "Follows the prompt?");
    cr_assert_str_eq(s->criteria[0].anchor[0], "ignores it");
    cr_assert_str_eq(s->criteria[0].anchor[1], "partly");
    cr_assert_str_eq(s->criteria[0].anchor[2], "fully");
    cr_assert_null(s->criteria[1].description);
    cr_assert_null(s->criteria[1].anchor[0]);
    cr_assert_null(s->criteria[1].anchor[1]);
    cr_assert_str_eq(s->criteria[1].anchor[2], "warm");
    cr_assert_null(s->criteria[2].description);
    for (size_t k = 0; k < 3; k++)
        cr_assert_null(s->criteria[2].anchor[k]);
    cr_assert_str_eq(s->expectations[0].description, "A link counts");
    cr_assert_null(s->expectations[1].description);

    cr_assert_eq(arb_case_reader_open(s, &r, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_case_reader_next(r, &c, &err), 1, "%s", err.msg);
    cr_assert_eq(c.n_expectations, 1);
    cr_assert_str_eq(c.expectations[0].description, "Under 40 words");
    arb_case_release(&c);
    arb_case_reader_free(r);
    arb_suite_free(s);
}

Test(criterion_text, should_give_default_criteria_no_text)
{
    struct arb_suite *s = parse_ok("{\"cases\": []}");

    cr_assert_eq(s->n_criteria, 6);
    for (size_t i = 0; i < s->n_criteria; i++) {
        cr_assert_null(s->criteria[i].description);
        for (size_t k = 0; k < 3; k++)
            cr_assert_null(s->criteria[i].anchor[k]);
    }
    arb_suite_free(s);
}

Test(criterion_text, should_refuse_an_anchor_for_another_score)
{
    expect_parse_error(
        "{\"rubric\": {\"content\": [\n"
        "  {\"name\": \"tone\", \"anchors\": {\"1\": \"rude\", \"2\": \"curt\"}}]},\n"
        " \"cases\": []}",
        "s.json:2:45: /rubric/content/0/anchors/2: unknown key '2' "
        "(valid: 1, 3, 5)");
}

Test(criterion_text, should_refuse_an_empty_anchor)
{
    expect_parse_error("{\"rubric\": {\"structure\": [\n"
                       "  {\"name\": \"tone\", \"anchors\": {\"3\": \"\"}}]},\n"
                       " \"cases\": []}",
                       "s.json:2:37: /rubric/structure/0/anchors/3: expected a non-empty string");
}

Test(criterion_text, should_refuse_anchors_that_are_not_an_object)
{
    expect_parse_error("{\"rubric\": {\"content\": [\n"
                       "  {\"name\": \"tone\", \"anchors\": [\"rude\", \"ok\", \"kind\"]}]},\n"
                       " \"cases\": []}",
                       "s.json:2:31: /rubric/content/0/anchors: expected an object, got an array");
}

Test(criterion_text, should_refuse_anchors_without_a_score)
{
    expect_parse_error("{\"rubric\": {\"content\": [\n"
                       "  {\"name\": \"tone\", \"anchors\": {}}]},\n"
                       " \"cases\": []}",
                       "s.json:2:31: /rubric/content/0/anchors: expected at least one key "
                       "(valid: 1, 3, 5)");
}

Test(criterion_text, should_refuse_a_description_that_is_not_a_string)
{
    expect_parse_error(
        "{\"expectations\": [{\"id\": \"e\", \"text\": \"t\", \"description\": 3}],\n"
        " \"cases\": []}",
        "s.json:1:59: /expectations/0/description: expected a string, got a number");
}
