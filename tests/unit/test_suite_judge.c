/*
 * A suite's inline judge takes every key a --judge file takes: the suite
 * schema (schemas/suite.schema.json, embedded in src/suite/suite_schema.c)
 * and the judge's own reader (arb_judge_config_parse) must agree, or a judge
 * object README documents is refused in one place and accepted in the other.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/judge.h"
#include "arbiter/suite.h"

/* An HTTP judge with every provider option README's judge section names. */
static const char http_suite[] =
    "{\"name\": \"keys\", \"systems\": {\"a\": \"a\", \"b\": \"b\"},\n"
    " \"cases\": [{\"id\": \"c1\", \"prompt\": \"p\"}],\n"
    " \"judge\": {\"provider\": \"openai\", \"base_url\": \"http://127.0.0.1:9/v1\",\n"
    "   \"model\": \"m\", \"api_key_env\": \"ARB_TEST_KEY\", \"swap\": true, \"samples\": 1,\n"
    "   \"temperature\": 0, \"max_tokens\": 512, \"seed\": 7, \"concurrency\": 2,\n"
    "   \"timeout_s\": 30, \"max_retries\": 1, \"feedback\": false,\n"
    "   \"response_format\": \"json_object\", \"max_tokens_field\": \"max_completion_tokens\",\n"
    "   \"max_tokens_cap\": 4096, \"extra_body\": {\"reasoning_effort\": \"low\"},\n"
    "   \"headers\": {\"X-Team\": \"evals\"},\n"
    "   \"price\": {\"input\": 1, \"output\": 2, \"cached_input\": 0.5}}}\n";

/* A command judge in its own folder. */
static const char command_suite[] =
    "{\"name\": \"keys\", \"systems\": {\"a\": \"a\", \"b\": \"b\"},\n"
    " \"cases\": [{\"id\": \"c1\", \"prompt\": \"p\"}],\n"
    " \"judge\": {\"provider\": \"command\", \"model\": \"m\", \"command\": [\"true\"],\n"
    "   \"cwd\": \"/tmp\"}}\n";

static void suite_and_judge_accept(const char *text)
{
    struct arb_suite *s = NULL;
    struct arb_judge_config cfg;
    struct arb_err err = {{0}};

    cr_assert_eq(arb_suite_parse(text, strlen(text), "keys.json", "/tmp", &s, &err), ARB_OK,
                 "the suite refused its judge: %s", err.msg);
    cr_assert_not_null(s->judge);
    memset(&cfg, 0, sizeof(cfg));
    cr_assert_eq(arb_judge_config_parse(s->judge, &cfg, &err), ARB_OK,
                 "the judge refused the suite's judge: %s", err.msg);
    arb_judge_config_release(&cfg);
    arb_suite_free(s);
}

Test(suite_judge, every_provider_option_is_accepted_inline)
{
    suite_and_judge_accept(http_suite);
}

Test(suite_judge, a_command_judge_may_name_its_folder)
{
    suite_and_judge_accept(command_suite);
}

Test(suite_judge, a_wrong_option_value_is_refused_at_its_path)
{
    static const char bad[] =
        "{\"name\": \"keys\", \"systems\": {\"a\": \"a\", \"b\": \"b\"},\n"
        " \"cases\": [{\"id\": \"c1\", \"prompt\": \"p\"}],\n"
        " \"judge\": {\"provider\": \"openai\", \"model\": \"m\", \"api_key_env\": \"K\",\n"
        "   \"response_format\": \"xml\"}}\n";
    struct arb_suite *s = NULL;
    struct arb_err err = {{0}};

    cr_assert_eq(arb_suite_parse(bad, strlen(bad), "keys.json", "/tmp", &s, &err), ARB_ESCHEMA);
    cr_assert(strstr(err.msg, "/judge/response_format") != NULL, "%s", err.msg);
}

/* The judge has no "prompt" key (its prompt is built in): the suite refuses it where it
 * stands, rather than loading and failing when a run reads its judge. */
Test(suite_judge, a_key_the_judge_does_not_know_is_refused_by_the_suite)
{
    static const char bad[] =
        "{\"name\": \"keys\", \"systems\": {\"a\": \"a\", \"b\": \"b\"},\n"
        " \"cases\": [{\"id\": \"c1\", \"prompt\": \"p\"}],\n"
        " \"judge\": {\"provider\": \"openai\", \"model\": \"m\", \"api_key_env\": \"K\",\n"
        "   \"prompt\": \"judge.md\"}}\n";
    struct arb_suite *s = NULL;
    struct arb_judge_config cfg;
    struct arb_err err = {{0}};
    cJSON *judge = cJSON_Parse("{\"provider\": \"openai\", \"model\": \"m\", "
                               "\"api_key_env\": \"K\", \"prompt\": \"judge.md\"}");

    cr_assert_eq(arb_suite_parse(bad, strlen(bad), "keys.json", "/tmp", &s, &err), ARB_ESCHEMA);
    cr_assert(strstr(err.msg, "/judge/prompt") != NULL, "%s", err.msg);
    memset(&cfg, 0, sizeof(cfg));
    cr_assert_eq(arb_judge_config_parse(judge, &cfg, &err), ARB_ESCHEMA);
    arb_judge_config_release(&cfg);
    cJSON_Delete(judge);
}
