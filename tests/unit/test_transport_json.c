/*
 * transport_is_json (src/judge/transport_fail.c) says whether a 2xx body is one JSON value, as
 * cJSON reads it, with only white space after it: a reply cut short or a proxy's HTML page is
 * retried, anything cJSON reads is not.  It answers strict JSON without building a tree and
 * leaves the rest to cJSON; here both answers are held to cJSON's alone over whole replies, every
 * prefix of them (replies cut short), and the texts where the two readings part (a byte order
 * mark, "\u0000", invalid UTF-8, control bytes before the value, trailing garbage).
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <criterion/criterion.h>

#include "../../src/judge/transport_int.h"

/* What transport_is_json answered before it had a fast path: cJSON's reading alone. */
static int cjson_is_json(const char *body, size_t len)
{
    const char *end = NULL;
    cJSON *v;
    int ok;

    if (!body || len == 0)
        return 0;
    v = cJSON_ParseWithLengthOpts(body, len, &end, 0);
    ok = v != NULL;
    cJSON_Delete(v);
    while (ok && end < body + len && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
        end++;
    return ok && end == body + len;
}

static void same(const char *body, size_t len)
{
    cr_assert_eq(transport_is_json(body, len), cjson_is_json(body, len), "'%.*s' (%zu bytes)",
                 (int)(len > 80 ? 80 : len), body, len);
}

/* An OpenAI chat completion (the shape of openai-openapi.yaml's CreateChatCompletionResponse)
 * and an Anthropic message, as the test judge answers them. */
static const char *const replies[] = {
    "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1795600805,\"model\":"
    "\"judge-sim\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
    "\"{\\\"reasoning\\\":\\\"B is clearer.\\\",\\\"winner\\\":\\\"B\\\"}\",\"refusal\":null},"
    "\"finish_reason\":\"stop\",\"logprobs\":null}],\"usage\":{\"prompt_tokens\":612,"
    "\"completion_tokens\":41,\"total_tokens\":653}}\n",
    "{\"id\":\"msg_01\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"judge-sim\","
    "\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_01\",\"name\":\"record_judgment\","
    "\"input\":{\"reasoning\":\"caf\xc3\xa9 \\u00e9 \\ud83d\\ude00\",\"winner\":\"TIE\"}}],"
    "\"stop_reason\":\"tool_use\",\"usage\":{\"input_tokens\":700,\"output_tokens\":52}}",
    "  [1, -2.5e+3, true, false, null, \"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]\r\n",
};

Test(transport_json, whole_replies_and_every_cut_agree_with_cjson)
{
    size_t i, n;

    for (i = 0; i < sizeof(replies) / sizeof(replies[0]); i++) {
        size_t len = strlen(replies[i]);

        cr_assert_eq(transport_is_json(replies[i], len), 1);
        for (n = 0; n <= len; n++)
            same(replies[i], n);
    }
}

Test(transport_json, where_strict_json_and_cjson_part_cjson_decides)
{
    static const char *const texts[] = {
        "\xef\xbb\xbf{\"a\":1}", /* a byte order mark: cJSON skips it */
        "{\"a\":\"x\\u0000y\"}", /* "\u0000": cJSON reads it, strict JSON refuses */
        "{\"a\":\"\xff\xfe\"}",  /* invalid UTF-8 inside a string */
        "\x01\x02{\"a\":1}",     /* control bytes before the value */
        "{\"a\":1} x",           /* something after it */
        "{\"a\":1}\x0b",         /* a vertical tab after it */
        "<html><body>502 Bad Gateway</body></html>",
        "{\"a\":01}", /* a leading zero */
        "{\"a\":1,}", /* a trailing comma */
        "[\"\t\"]",   /* a raw tab inside a string */
        "nul",
        "\"just a string\"",
        "1e999",
    };
    size_t i;

    for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
        same(texts[i], strlen(texts[i]));
}

Test(transport_json, nesting_at_and_past_cjsons_limit)
{
    size_t depth[] = {CJSON_NESTING_LIMIT - 1, CJSON_NESTING_LIMIT, CJSON_NESTING_LIMIT + 1};
    size_t k, i;

    for (k = 0; k < 3; k++) {
        char *s = malloc(2 * depth[k] + 1);

        cr_assert_not_null(s);
        for (i = 0; i < depth[k]; i++) {
            s[i] = '[';
            s[2 * depth[k] - 1 - i] = ']';
        }
        s[2 * depth[k]] = '\0';
        same(s, 2 * depth[k]);
        free(s);
    }
}
