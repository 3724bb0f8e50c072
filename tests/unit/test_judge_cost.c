/*
 * What a judge's replies cost: token usage read from each provider's reply
 * shape (cached prompt tokens included) whether or not the answer is valid,
 * the price arithmetic, the price's parsing, and the spending cap's
 * admission rule.
 *
 * Reply shapes: OpenAI's chat.completion "usage" object with
 * "prompt_tokens_details": {"cached_tokens"} (shared/providers/openai-openapi.yaml,
 * CompletionUsage); Anthropic's Messages "usage" with "input_tokens",
 * "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"
 * (Anthropic Messages API reference, "Usage": input_tokens counts neither
 * cache field).
 */
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/judge/judge_int.h"
#include "arbiter/json.h"

static struct arb_judge_config config(enum arb_judge_provider p)
{
    struct arb_judge_config c;

    memset(&c, 0, sizeof(c));
    c.provider = p;
    c.max_tokens = 1000;
    return c;
}

Test(judge_cost, should_read_openai_usage_with_cached_tokens_even_when_the_answer_is_not_json)
{
    struct arb_judge_config c = config(ARB_JUDGE_OPENAI);
    struct judge_usage u;

    judge_reply_usage(&c,
                      "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[{\"index\""
                      ":0,\"message\":{\"role\":\"assistant\",\"content\":\"not json\"},"
                      "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":2006,"
                      "\"completion_tokens\":300,\"total_tokens\":2306,\"prompt_tokens_details\":"
                      "{\"cached_tokens\":1920,\"audio_tokens\":0}}}",
                      &u);
    cr_assert_eq(u.reported, 1);
    cr_assert_eq(u.prompt, 2006);
    cr_assert_eq(u.cached, 1920);
    cr_assert_eq(u.completion, 300);
}

Test(judge_cost, should_count_anthropic_cache_reads_as_prompt_tokens)
{
    struct arb_judge_config c = config(ARB_JUDGE_ANTHROPIC);
    struct judge_usage u;

    judge_reply_usage(&c,
                      "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],"
                      "\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":50,"
                      "\"cache_creation_input_tokens\":10,\"cache_read_input_tokens\":1000,"
                      "\"output_tokens\":20}}",
                      &u);
    cr_assert_eq(u.prompt, 1060);
    cr_assert_eq(u.cached, 1000);
    cr_assert_eq(u.completion, 20);
}

Test(judge_cost, should_report_nothing_for_an_error_body_or_a_command)
{
    struct arb_judge_config c = config(ARB_JUDGE_OPENAI);
    struct judge_usage u;

    judge_reply_usage(&c, "{\"error\":{\"message\":\"bad\",\"type\":\"invalid_request_error\"}}",
                      &u);
    cr_assert_eq(u.reported, 0);
    cr_assert_eq(u.prompt + u.cached + u.completion, 0);
    judge_reply_usage(&c, "<html>502</html>", &u);
    cr_assert_eq(u.reported, 0);
    c = config(ARB_JUDGE_COMMAND);
    judge_reply_usage(&c, "{\"usage\":{\"prompt_tokens\":5}}", &u);
    cr_assert_eq(u.reported, 0);
}

Test(judge_cost, should_price_cached_tokens_at_the_cached_price)
{
    struct arb_judge_price p = {1, 2.5, 10.0, 1.25};

    /* 1,000,000 prompt tokens of which 400,000 cached, 100,000 completion tokens. */
    cr_assert_float_eq(arb_judge_cost(&p, 1000000, 400000, 100000),
                       0.6 * 2.5 + 0.4 * 1.25 + 0.1 * 10.0, 1e-12);
    cr_assert_float_eq(arb_judge_cost(&p, 10, 50, 0), 10 * 1.25 / 1e6, 1e-15);
    p.set = 0;
    cr_assert_eq(arb_judge_cost(&p, 1000, 0, 1000), 0.0);
}

static enum arb_status parse(const char *text, struct arb_judge_config *c, struct arb_err *err)
{
    cJSON *doc = NULL;
    enum arb_status st = arb_json_parse(text, strlen(text), 0, &doc, err);

    if (!st)
        st = arb_judge_config_parse(doc, c, err);
    cJSON_Delete(doc);
    return st;
}

Test(judge_cost, should_parse_a_price_and_leave_the_hash_alone)
{
    struct arb_judge_config a, b;
    struct arb_err err = {{0}};

    cr_assert_eq(parse("{\"model\":\"m\",\"api_key_env\":\"K\"}", &a, &err), ARB_OK, "%s",
                 err.msg);
    cr_assert_eq(parse("{\"model\":\"m\",\"api_key_env\":\"K\",\"price\":{\"input\":0.15,"
                       "\"output\":0.6}}",
                       &b, &err),
                 ARB_OK, "%s", err.msg);
    cr_assert_eq(b.price.set, 1);
    cr_assert_float_eq(b.price.cached_input, 0.15, 1e-12, "cached_input defaults to input");
    cr_assert_str_eq(a.hash, b.hash, "a price changes no answer: not part of the identity");
    arb_judge_config_release(&a);
    arb_judge_config_release(&b);
    cr_assert_eq(parse("{\"model\":\"m\",\"api_key_env\":\"K\",\"price\":{\"input\":1,"
                       "\"output\":1,\"cache\":1}}",
                       &a, &err),
                 ARB_ESCHEMA);
    cr_assert(strstr(err.msg, "/judge/price/cache: unknown key"), "%s", err.msg);
    cr_assert_eq(parse("{\"model\":\"m\",\"api_key_env\":\"K\",\"price\":{\"input\":-1,"
                       "\"output\":1}}",
                       &a, &err),
                 ARB_ESCHEMA);
}

Test(judge_cost, should_admit_requests_until_the_cap_and_then_stop)
{
    struct judge_budget b;
    struct arb_judge_config c = config(ARB_JUDGE_OPENAI);
    double est;

    c.price.set = 1;
    c.price.input = 3.0;   /* USD per million */
    c.price.output = 10.0; /* max_tokens 1000: 0.01 USD of output at most */
    /* A 3,000-byte body is taken as 1,001 prompt tokens: deliberately more than 4 bytes a token. */
    est = judge_estimate(&c, 3000);
    cr_assert_float_eq(est, (1001 * 3.0 + 1000 * 10.0) / 1e6, 1e-15);
    memset(&b, 0, sizeof(b));
    b.on = 1;
    b.max = 2.5 * est;
    cr_assert_eq(judge_budget_admit(&b, est), 1);
    cr_assert_eq(judge_budget_admit(&b, est), 1);
    cr_assert_eq(judge_budget_admit(&b, est), 0, "a third in flight would pass the cap");
    judge_budget_settle(&b, est, est / 4); /* it cost less than feared */
    cr_assert_eq(judge_budget_admit(&b, est), 1);
    cr_assert_float_eq(b.spent, est / 4, 1e-15);
    memset(&b, 0, sizeof(b));
    cr_assert_eq(judge_budget_admit(&b, 1e9), 1, "no cap: everything is admitted");
}
