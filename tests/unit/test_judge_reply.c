/*
 * What the judge reads of a provider's reply (parse.c, clean.c, sse.c), the provider options
 * of its config (config.c, config_provider.c) and the request bodies they make (request.c).
 *
 * Every reply body is written from a published shape:
 *   - OpenAI: CreateChatCompletionResponse, CreateChatCompletionStreamResponse and
 *     ErrorResponse of openapi.yaml of github.com/openai/openai-openapi (openai/openai-openapi 2.3.0);
 *     the plain reply is that file's own example ("The chat completion object").
 *   - Anthropic: the Messages API reference (https://docs.anthropic.com/en/api/messages:
 *     content blocks text, tool_use, thinking, stop_reason, usage), its "Streaming messages"
 *     page (message_start, content_block_start/delta/stop, ping, message_delta, message_stop;
 *     text_delta, input_json_delta, thinking_delta, signature_delta) and its "Errors" page.
 *   - vLLM's OpenAI-compatible server before 0.9 (ErrorResponse: object "error", numeric
 *     code), Ollama's own API ({"error": "text"}), llama.cpp's server README (error with a
 *     numeric code), FastAPI's HTTPException ({"detail": ...}).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/judge/judge_int.h"
#include "arbiter/json.h"

/* A pairwise answer as a model writes it. */
#define ANSWER                                                                                     \
    "{\"reasoning\":\"A names Paris\",\"criteria\":{\"correctness\":{\"A\":5,\"B\":2}},"           \
    "\"expectations\":{},\"winner\":\"A\"}"
#define BOM "\xEF\xBB\xBF"

static struct arb_judge_config provider(enum arb_judge_provider p)
{
    struct arb_judge_config cfg;

    memset(&cfg, 0, sizeof(cfg));
    cfg.provider = p;
    cfg.model = "m";
    cfg.max_tokens = 1024;
    return cfg;
}

/*
 * OpenAI's example chat completion (CreateChatCompletionResponse) with message.content
 * content (NULL: null), finish_reason finish and, when key is given, the message member key
 * set to value (refusal, reasoning_content).  Caller frees.
 */
static char *openai_reply(const char *content, const char *finish, const char *key,
                          const char *value)
{
    cJSON *doc = cJSON_Parse(
        "{\"id\":\"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG\",\"object\":\"chat.completion\","
        "\"created\":1741570283,\"model\":\"gpt-4o-2024-08-06\",\"choices\":[{\"index\":0,"
        "\"message\":{\"role\":\"assistant\",\"refusal\":null,\"annotations\":[]},"
        "\"logprobs\":null}],\"usage\":{\"prompt_tokens\":1117,\"completion_tokens\":46,"
        "\"total_tokens\":1163,\"prompt_tokens_details\":{\"cached_tokens\":1024,"
        "\"audio_tokens\":0},\"completion_tokens_details\":{\"reasoning_tokens\":0,"
        "\"audio_tokens\":0,\"accepted_prediction_tokens\":0,\"rejected_prediction_tokens\":0}},"
        "\"service_tier\":\"default\",\"system_fingerprint\":\"fp_fc9f1d7035\"}");
    cJSON *choice = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "choices"), 0);
    cJSON *msg = cJSON_GetObjectItem(choice, "message");
    char *s;

    cr_assert_not_null(msg);
    cr_assert(content ? cJSON_AddStringToObject(msg, "content", content) != NULL
                      : cJSON_AddNullToObject(msg, "content") != NULL);
    if (key) {
        cJSON_DeleteItemFromObject(msg, key);
        cr_assert_not_null(cJSON_AddStringToObject(msg, key, value));
    }
    cr_assert_not_null(cJSON_AddStringToObject(choice, "finish_reason", finish));
    s = cJSON_PrintUnformatted(doc);
    cr_assert_not_null(s);
    cJSON_Delete(doc);
    return s;
}

/* An Anthropic message (Messages API) with the content blocks given as JSON, then a text block
 * holding text when it is not NULL, and stop_reason stop.  Caller frees. */
static char *anthropic_reply(const char *blocks, const char *text, const char *stop)
{
    cJSON *doc = cJSON_Parse("{\"id\":\"msg_013Zva2CMHLNnXjNJJKqJ2EF\",\"type\":\"message\","
                             "\"role\":\"assistant\",\"model\":\"claude-sonnet-4-20250514\","
                             "\"stop_sequence\":null,\"usage\":{\"input_tokens\":100,"
                             "\"cache_creation_input_tokens\":10,"
                             "\"cache_read_input_tokens\":50,\"output_tokens\":20}}");
    cJSON *content = cJSON_Parse(blocks), *b;
    char *s;

    cr_assert(doc && content, "bad test blocks: %s", blocks);
    if (text) {
        b = cJSON_CreateObject();
        cr_assert(b && cJSON_AddStringToObject(b, "type", "text") &&
                  cJSON_AddStringToObject(b, "text", text) && cJSON_AddItemToArray(content, b));
    }
    cr_assert(cJSON_AddItemToObject(doc, "content", content));
    cr_assert_not_null(cJSON_AddStringToObject(doc, "stop_reason", stop));
    s = cJSON_PrintUnformatted(doc);
    cr_assert_not_null(s);
    cJSON_Delete(doc);
    return s;
}

static enum arb_status parse(enum arb_judge_provider p, const char *body, struct judge_reply *r,
                             struct arb_err *err)
{
    struct arb_judge_config cfg = provider(p);

    return judge_parse_reply(&cfg, body, r, err);
}

/* Parse body (freed here), expecting ARB_OK, the answer's winner and the normalization. */
static void expect_answer(enum arb_judge_provider p, char *body, const char *winner,
                          const char *normalization, struct judge_reply *r)
{
    struct arb_err err = {{0}};
    enum arb_status st = parse(p, body, r, &err);
    const cJSON *w;

    cr_assert_eq(st, ARB_OK, "%s (body %s)", err.msg, body);
    w = cJSON_GetObjectItemCaseSensitive(r->answer, "winner");
    cr_assert(cJSON_IsString(w), "no winner in the answer of %s", body);
    cr_assert_str_eq(w->valuestring, winner);
    cr_assert_str_eq(r->normalization, normalization, "body %s", body);
    cr_assert_eq(r->refused, 0);
    cr_assert_eq(r->error_body, 0);
    free(body);
}

/* Parse body (freed here), expecting ARB_EPARSE with a message holding why. */
static void expect_failure(enum arb_judge_provider p, char *body, const char *why,
                           struct judge_reply *r)
{
    struct arb_err err = {{0}};
    enum arb_status st = parse(p, body, r, &err);

    cr_assert_eq(st, ARB_EPARSE, "body %s: status %d", body, st);
    cr_assert_null(r->answer, "body %s", body);
    cr_assert(strstr(err.msg, why), "'%s' does not say '%s'", err.msg, why);
    free(body);
}

Test(judge_reply, should_read_a_plain_openai_answer)
{
    struct judge_reply r;

    expect_answer(ARB_JUDGE_OPENAI, openai_reply(ANSWER, "stop", NULL, NULL), "A", "", &r);
    cr_assert_str_eq(r.text, ANSWER);
    cr_assert_str_eq(r.stop_reason, "stop");
    cr_assert_eq(r.truncated, 0);
    cr_assert_eq(r.usage.reported, 1);
    cr_assert_eq(r.usage.prompt, 1117);
    cr_assert_eq(r.usage.cached, 1024);
    cr_assert_eq(r.usage.completion, 46);
    judge_reply_release(&r);
}

Test(judge_reply, should_name_each_wrapping_it_takes_off)
{
    static const struct {
        const char *content, *normalization;
    } cases[] = {
        {"```json\n" ANSWER "\n```", "[\"fence\"]"},
        {"```\n" ANSWER "\n```\n", "[\"fence\"]"},
        /* The draft inside the block is not the answer. */
        {"<think>\nB? {\"winner\":\"B\"} No: A names Paris.\n</think>\n\n" ANSWER, "[\"think\"]"},
        {"<thinking>A is right</thinking>" ANSWER, "[\"think\"]"},
        {BOM ANSWER, "[\"bom\"]"},
        {"\n" BOM "  " ANSWER "\n", "[\"bom\"]"},
        {"Here is my judgment: " ANSWER " Hope this helps!", "[\"prose\"]"},
        {"Sure.\n```json\n" ANSWER "\n```\nAnything else?", "[\"fence\",\"prose\"]"},
        {BOM "<think>A names Paris</think>\nMy judgment:\n```json\n" ANSWER "\n```",
         "[\"bom\",\"think\",\"fence\",\"prose\"]"},
        {"<think>A names Paris</think>" BOM ANSWER, "[\"think\",\"bom\"]"},
        {"  " ANSWER "  \n", ""},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct judge_reply r;

        expect_answer(ARB_JUDGE_OPENAI, openai_reply(cases[i].content, "stop", NULL, NULL), "A",
                      cases[i].normalization, &r);
        cr_assert_str_eq(r.text, cases[i].content, "the text is kept as the model wrote it");
        judge_reply_release(&r);
    }
}

Test(judge_reply, should_clean_an_anthropic_text_answer_too)
{
    struct judge_reply r;

    /* json_object mode: no tool, the answer is the text block. */
    expect_answer(ARB_JUDGE_ANTHROPIC,
                  anthropic_reply("[]", "```json\n" ANSWER "\n```", "end_turn"), "A", "[\"fence\"]",
                  &r);
    cr_assert_str_eq(r.stop_reason, "end_turn");
    judge_reply_release(&r);
}

Test(judge_reply, should_ignore_the_reasoning_a_server_returns_beside_the_answer)
{
    struct judge_reply r;

    /* vLLM and DeepSeek: message.reasoning_content; other servers: message.reasoning. */
    expect_answer(ARB_JUDGE_OPENAI,
                  openai_reply(ANSWER, "stop", "reasoning_content", "Maybe {\"winner\":\"B\"}"),
                  "A", "", &r);
    cr_assert_str_eq(r.text, ANSWER);
    judge_reply_release(&r);
    expect_answer(ARB_JUDGE_OPENAI, openai_reply(ANSWER, "stop", "reasoning", "{\"winner\":\"B\"}"),
                  "A", "", &r);
    judge_reply_release(&r);
    expect_failure(ARB_JUDGE_OPENAI,
                   openai_reply(NULL, "length", "reasoning_content", "{\"winner\":\"B\"} or"),
                   "cut at the output limit before any answer", &r);
    cr_assert_eq(r.truncated, 1);
    judge_reply_release(&r);
}

Test(judge_reply, should_mark_a_reply_cut_at_the_limit)
{
    struct judge_reply r;

    expect_failure(ARB_JUDGE_OPENAI,
                   openai_reply("{\"reasoning\":\"A names Par", "length", NULL, NULL),
                   "the answer is not JSON", &r);
    cr_assert_eq(r.truncated, 1);
    cr_assert_str_eq(r.stop_reason, "length");
    cr_assert_eq(r.refused, 0);
    judge_reply_release(&r);
    /* Cut just after its last member: complete, so it is read (the caller decides). */
    expect_answer(ARB_JUDGE_OPENAI, openai_reply(ANSWER, "length", NULL, NULL), "A", "", &r);
    cr_assert_eq(r.truncated, 1);
    judge_reply_release(&r);
}

Test(judge_reply, should_read_an_openai_refusal_and_content_filter)
{
    struct judge_reply r;

    expect_failure(ARB_JUDGE_OPENAI,
                   openai_reply(NULL, "stop", "refusal", "I'm sorry, I can't help with that."),
                   "the judge refused: I'm sorry, I can't help with that.", &r);
    cr_assert_eq(r.refused, 1);
    cr_assert_str_eq(r.error.type, "refusal");
    cr_assert_str_eq(r.error.message, "I'm sorry, I can't help with that.");
    cr_assert_eq(r.error.found, 1);
    cr_assert_eq(r.error_body, 0);
    judge_reply_release(&r);
    expect_failure(ARB_JUDGE_OPENAI, openai_reply(NULL, "content_filter", NULL, NULL),
                   "content filter", &r);
    cr_assert_eq(r.refused, 1);
    cr_assert_str_eq(r.error.type, "content_filter");
    cr_assert_str_eq(r.stop_reason, "content_filter");
    judge_reply_release(&r);
}

Test(judge_reply, should_read_an_anthropic_tool_use_beside_thinking)
{
    struct judge_reply r;

    expect_answer(ARB_JUDGE_ANTHROPIC,
                  anthropic_reply("[{\"type\":\"thinking\",\"thinking\":\"B? {\\\"winner\\\":"
                                  "\\\"B\\\"}\",\"signature\":\"WaUjzkypQ2mUEVM36O2TxuC06KN8xy\"},"
                                  "{\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgBEgy3va3p\"},"
                                  "{\"type\":\"text\",\"text\":\"Recording it.\"},"
                                  "{\"type\":\"tool_use\",\"id\":\"toolu_01A09q90qw90lq917835lq9\","
                                  "\"name\":\"record_judgment\",\"input\":" ANSWER "}]",
                                  NULL, "tool_use"),
                  "A", "", &r);
    cr_assert_str_eq(r.stop_reason, "tool_use");
    cr_assert_str_eq(r.text, ANSWER, "the tool input as compact JSON");
    cr_assert_eq(r.truncated, 0);
    /* input_tokens counts neither cache: prompt = 100 + 50 read + 10 written. */
    cr_assert_eq(r.usage.prompt, 160);
    cr_assert_eq(r.usage.cached, 50);
    cr_assert_eq(r.usage.completion, 20);
    judge_reply_release(&r);
}

Test(judge_reply, should_read_anthropic_max_tokens_and_refusal)
{
    struct judge_reply r;

    expect_failure(ARB_JUDGE_ANTHROPIC,
                   anthropic_reply("[]", "{\"reasoning\":\"A names", "max_tokens"),
                   "the answer is not JSON", &r);
    cr_assert_eq(r.truncated, 1);
    cr_assert_str_eq(r.stop_reason, "max_tokens");
    judge_reply_release(&r);
    expect_failure(ARB_JUDGE_ANTHROPIC, anthropic_reply("[]", NULL, "max_tokens"),
                   "before any answer", &r);
    cr_assert_eq(r.truncated, 1);
    judge_reply_release(&r);
    expect_failure(ARB_JUDGE_ANTHROPIC, anthropic_reply("[]", "I can't judge this.", "refusal"),
                   "the judge refused: I can't judge this.", &r);
    cr_assert_eq(r.refused, 1);
    cr_assert_str_eq(r.error.type, "refusal");
    cr_assert_str_eq(r.error.message, "I can't judge this.");
    judge_reply_release(&r);
    expect_failure(ARB_JUDGE_ANTHROPIC, anthropic_reply("[]", NULL, "refusal"), "refused", &r);
    cr_assert_str_eq(r.error.message, "the model refused to answer");
    judge_reply_release(&r);
}

Test(judge_reply, should_read_an_error_sent_with_http_200)
{
    struct judge_reply r;

    /* A gateway relaying an upstream failure: OpenAI's ErrorResponse. */
    expect_failure(ARB_JUDGE_OPENAI,
                   strdup("{\"error\":{\"message\":\"The server had an error while processing "
                          "your request. Sorry about that!\",\"type\":\"server_error\","
                          "\"param\":null,\"code\":\"server_error\"}}"),
                   "the reply is an error, not an answer: The server had an error", &r);
    cr_assert_eq(r.error_body, 1);
    cr_assert_eq(r.refused, 0);
    cr_assert_str_eq(r.error.type, "server_error");
    cr_assert_str_eq(r.error.code, "server_error");
    cr_assert_str_eq(r.error.message,
                     "The server had an error while processing your request. Sorry about that!");
    judge_reply_release(&r);
    expect_failure(ARB_JUDGE_ANTHROPIC,
                   strdup("{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
                          "\"message\":\"Overloaded\"}}"),
                   "Overloaded", &r);
    cr_assert_eq(r.error_body, 1);
    cr_assert_str_eq(r.error.type, "overloaded_error");
    judge_reply_release(&r);
}

/* clang-format off */
/* OpenAI chat.completion.chunk events (CreateChatCompletionStreamResponse), stream_options
 * include_usage: usage null until a last chunk with no choices. */
#define CHUNK "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\"," \
              "\"created\":1741570283,\"model\":\"gpt-4o-2024-08-06\","

static const char openai_stream[] =
    CHUNK "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\","
          "\"refusal\":null},\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}\n\n"
    CHUNK "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"{\\\"reasoning\\\":\\\"A names "
          "Paris\\\",\"},\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}\n\n"
    CHUNK "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\\\"winner\\\":\\\"A\\\"}\"},"
          "\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}\n\n"
    CHUNK "\"choices\":[{\"index\":0,\"delta\":{},\"logprobs\":null,\"finish_reason\":\"stop\"}],"
          "\"usage\":null}\n\n"
    CHUNK "\"choices\":[],\"usage\":{\"prompt_tokens\":19,\"completion_tokens\":10,"
          "\"total_tokens\":29,\"prompt_tokens_details\":{\"cached_tokens\":4}}}\n\n"
    "data: [DONE]\n\n";
/* clang-format on */

Test(judge_reply, should_assemble_an_openai_event_stream)
{
    struct arb_judge_config cfg = provider(ARB_JUDGE_OPENAI);
    struct judge_reply r;
    struct judge_usage u;

    expect_answer(ARB_JUDGE_OPENAI, strdup(openai_stream), "A", "[\"sse\"]", &r);
    cr_assert_str_eq(r.text, "{\"reasoning\":\"A names Paris\",\"winner\":\"A\"}");
    cr_assert_str_eq(r.stop_reason, "stop");
    cr_assert_eq(r.usage.reported, 1);
    cr_assert_eq(r.usage.prompt, 19);
    cr_assert_eq(r.usage.cached, 4);
    cr_assert_eq(r.usage.completion, 10);
    judge_reply_release(&r);
    judge_reply_usage(&cfg, openai_stream, &u);
    cr_assert(u.reported && u.prompt == 19 && u.cached == 4 && u.completion == 10);
}

Test(judge_reply, should_assemble_a_refusal_from_an_openai_event_stream)
{
    /* clang-format off */
    static const char body[] =
        CHUNK "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null,"
              "\"refusal\":\"\"},\"finish_reason\":null}]}\r\n\r\n"
        CHUNK "\"choices\":[{\"index\":0,\"delta\":{\"refusal\":\"I'm sorry, \"},"
              "\"finish_reason\":null}]}\r\n\r\n"
        CHUNK "\"choices\":[{\"index\":0,\"delta\":{\"refusal\":\"I can't help with that.\"},"
              "\"finish_reason\":null}]}\r\n\r\n"
        CHUNK "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\r\n\r\n"
        "data: [DONE]\r\n\r\n";
    /* clang-format on */
    struct judge_reply r;

    expect_failure(ARB_JUDGE_OPENAI, strdup(body), "refused", &r);
    cr_assert_eq(r.refused, 1);
    cr_assert_str_eq(r.error.message, "I'm sorry, I can't help with that.");
    cr_assert_str_eq(r.normalization, "[\"sse\"]");
    judge_reply_release(&r);
}

/* clang-format off */
#define EVENT(name, data) "event: " name "\ndata: " data "\n\n"
#define MESSAGE_START                                                                              \
    EVENT("message_start",                                                                         \
          "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_014p7gG3wDgGV9EUtLvnow3U\","      \
          "\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-20250514\","    \
          "\"stop_sequence\":null,\"usage\":{\"input_tokens\":472,"                                \
          "\"cache_read_input_tokens\":0,\"output_tokens\":2},\"content\":[],"                     \
          "\"stop_reason\":null}}")

/* Anthropic's "Streaming messages" example of a tool use, the tool record_judgment. */
static const char anthropic_stream[] =
    MESSAGE_START
    EVENT("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,"
                                 "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}")
    EVENT("ping", "{\"type\": \"ping\"}")
    EVENT("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
                                 "{\"type\":\"text_delta\",\"text\":\"Recording it.\"}}")
    EVENT("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}")
    EVENT("content_block_start", "{\"type\":\"content_block_start\",\"index\":1,"
                                 "\"content_block\":{\"type\":\"tool_use\",\"id\":"
                                 "\"toolu_01T1x1fJ34qAmk2tNTrN7Up6\",\"name\":\"record_judgment\","
                                 "\"input\":{}}}")
    EVENT("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":"
                                 "{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}")
    EVENT("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":"
                                 "{\"type\":\"input_json_delta\",\"partial_json\":"
                                 "\"{\\\"reasoning\\\": \\\"A names\"}}")
    EVENT("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":"
                                 "{\"type\":\"input_json_delta\",\"partial_json\":"
                                 "\" Paris\\\", \\\"winner\\\": \\\"A\\\"}\"}}")
    EVENT("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":1}")
    EVENT("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\","
                           "\"stop_sequence\":null},\"usage\":{\"output_tokens\":89}}")
    EVENT("message_stop", "{\"type\":\"message_stop\"}");
/* clang-format on */

Test(judge_reply, should_assemble_an_anthropic_event_stream)
{
    struct arb_judge_config cfg = provider(ARB_JUDGE_ANTHROPIC);
    struct judge_reply r;
    struct judge_usage u;

    expect_answer(ARB_JUDGE_ANTHROPIC, strdup(anthropic_stream), "A", "[\"sse\"]", &r);
    cr_assert_str_eq(r.text, "{\"reasoning\":\"A names Paris\",\"winner\":\"A\"}");
    cr_assert_str_eq(r.stop_reason, "tool_use");
    cr_assert_eq(r.usage.prompt, 472);
    cr_assert_eq(r.usage.completion, 89);
    judge_reply_release(&r);
    judge_reply_usage(&cfg, anthropic_stream, &u);
    cr_assert(u.reported && u.prompt == 472 && u.completion == 89);
}

Test(judge_reply, should_refuse_an_answer_that_is_not_an_object)
{
    struct judge_reply r;

    expect_failure(ARB_JUDGE_OPENAI, openai_reply("[1, 2]", "stop", NULL, NULL),
                   "the answer is not a JSON object", &r);
    judge_reply_release(&r);
    expect_failure(ARB_JUDGE_OPENAI, openai_reply("\"A\"", "stop", NULL, NULL),
                   "the answer is not a JSON object", &r);
    judge_reply_release(&r);
    expect_failure(ARB_JUDGE_OPENAI, openai_reply("A is better.", "stop", NULL, NULL),
                   "the answer is not JSON", &r);
    judge_reply_release(&r);
    expect_failure(ARB_JUDGE_OPENAI, openai_reply("", "stop", NULL, NULL),
                   "reply has no answer (no choices[0].message.content)", &r);
    judge_reply_release(&r);
}

Test(judge_reply, should_refuse_garbage)
{
    static const char *const bodies[] = {"<html><body><h1>502 Bad Gateway</h1></body></html>",
                                         "",
                                         "{\"choices\": [",
                                         "[]",
                                         "data: [DONE]\n\n",
                                         "null"};
    size_t i;

    for (i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
        struct judge_reply r;

        expect_failure(i % 2 ? ARB_JUDGE_ANTHROPIC : ARB_JUDGE_OPENAI, strdup(bodies[i]), "reply",
                       &r);
        cr_assert_eq(r.error_body, 0);
        judge_reply_release(&r);
    }
}

Test(judge_reply, should_read_each_provider_error_shape)
{
    static const struct {
        const char *body, *type, *code, *message;
    } cases[] = {
        /* OpenAI ErrorResponse */
        {"{\"error\":{\"message\":\"Incorrect API key provided: sk-abc.\",\"type\":"
         "\"invalid_request_error\",\"param\":null,\"code\":\"invalid_api_key\"}}",
         "invalid_request_error", "invalid_api_key", "Incorrect API key provided: sk-abc."},
        /* Anthropic */
        {"{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":"
         "\"Overloaded\"},\"request_id\":\"req_011CSHoEeqs5C35K2UUqR7Fy\"}",
         "overloaded_error", "", "Overloaded"},
        /* vLLM before 0.9 */
        {"{\"object\":\"error\",\"message\":\"This model's maximum context length is 4096 "
         "tokens.\",\"type\":\"BadRequestError\",\"param\":null,\"code\":400}",
         "BadRequestError", "400", "This model's maximum context length is 4096 tokens."},
        /* Ollama's own API */
        {"{\"error\":\"model 'x' not found\"}", "", "", "model 'x' not found"},
        /* llama.cpp server */
        {"{\"error\":{\"code\":400,\"message\":\"the request exceeds the available context "
         "size\",\"type\":\"invalid_request_error\"}}",
         "invalid_request_error", "400", "the request exceeds the available context size"},
        /* FastAPI */
        {"{\"detail\":\"Not Found\"}", "", "", "Not Found"},
        {"{\"detail\":[{\"type\":\"missing\",\"loc\":[\"body\",\"model\"],\"msg\":"
         "\"Field required\"}]}",
         "", "",
         "[{\"type\":\"missing\",\"loc\":[\"body\",\"model\"],\"msg\":\"Field required\"}]"},
        /* A byte order mark before an error is still read. */
        {BOM "{\"error\":\"busy\"}", "", "", "busy"},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct judge_provider_error e;

        cr_assert_eq(judge_provider_error(cases[i].body, &e), 1, "%s", cases[i].body);
        cr_assert_eq(e.found, 1);
        cr_assert_str_eq(e.type, cases[i].type, "%s", cases[i].body);
        cr_assert_str_eq(e.code, cases[i].code, "%s", cases[i].body);
        cr_assert_str_eq(e.message, cases[i].message, "%s", cases[i].body);
    }
}

Test(judge_reply, should_find_no_error_where_there_is_none)
{
    static const char *const bodies[] = {
        "<html>upstream connect error</html>",
        "{}",
        "[]",
        "",
        "{\"error\":null}",
        "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[]}"};
    struct judge_provider_error e;
    size_t i;

    for (i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
        memset(&e, 'x', sizeof(e));
        cr_assert_eq(judge_provider_error(bodies[i], &e), 0, "%s", bodies[i]);
        cr_assert(e.found == 0 && !e.type[0] && !e.code[0] && !e.message[0], "%s", bodies[i]);
    }
    cr_assert_eq(judge_provider_error(NULL, &e), 0);
}

/* ---- the config ---- */

#define KEYS "\"model\":\"sim-1\",\"api_key_env\":\"ARB_TEST_JUDGE_KEY\""
#define PIN  "72b93815a5dc26ba56ba0d05da35fb932297f90a9b89c52827ebbce58c79f9b4"

static enum arb_status config(const char *json, struct arb_judge_config *cfg, struct arb_err *err)
{
    cJSON *doc = cJSON_Parse(json);
    enum arb_status st;

    cr_assert_not_null(doc, "bad test config: %s", json);
    st = arb_judge_config_parse(doc, cfg, err);
    cJSON_Delete(doc);
    return st;
}

Test(judge_reply, should_accept_every_provider_option)
{
    struct arb_judge_config cfg;
    struct arb_err err = {{0}};

    cr_assert_eq(config("{\"model\":\"o3-mini\",\"api_key_env\":\"K\",\"temperature\":null,"
                        "\"response_format\":\"json_object\",\"max_tokens_field\":"
                        "\"max_completion_tokens\",\"max_tokens\":2000,\"max_tokens_cap\":8000,"
                        "\"extra_body\":{\"reasoning_effort\":\"low\"},\"headers\":{"
                        "\"HTTP-Referer\":\"https://example.org\",\"X-Gateway-Token\":"
                        "{\"env\":\"GW_TOKEN\"}}}",
                        &cfg, &err),
                 ARB_OK, "%s", err.msg);
    cr_assert_eq(cfg.no_temperature, 1);
    cr_assert_eq(cfg.response_format, ARB_RF_JSON_OBJECT);
    cr_assert_eq(cfg.max_completion_tokens, 1);
    cr_assert_eq(cfg.max_tokens_cap, 8000);
    cr_assert_str_eq(cJSON_GetObjectItem(cfg.extra_body, "reasoning_effort")->valuestring, "low");
    cr_assert_eq(cfg.n_headers, 2);
    cr_assert_str_eq(cfg.headers[0].name, "HTTP-Referer");
    cr_assert_str_eq(cfg.headers[0].value, "https://example.org");
    cr_assert_null(cfg.headers[0].value_env);
    cr_assert_str_eq(cfg.headers[1].name, "X-Gateway-Token");
    cr_assert_null(cfg.headers[1].value);
    cr_assert_str_eq(cfg.headers[1].value_env, "GW_TOKEN");
    arb_judge_config_release(&cfg);
}

Test(judge_reply, should_read_each_response_format_and_the_defaults)
{
    static const char *const names[] = {"json_schema", "json_schema_loose", "json_object",
                                        "prompt"};
    struct arb_judge_config cfg;
    struct arb_err err = {{0}};
    char json[256];
    int i;

    for (i = 0; i < 4; i++) {
        snprintf(json, sizeof(json),
                 "{" KEYS ",\"provider\":\"anthropic\",\"response_format\":\"%s\"}", names[i]);
        cr_assert_eq(config(json, &cfg, &err), ARB_OK, "%s", err.msg);
        cr_assert_eq((int)cfg.response_format, i);
        cr_assert_str_eq(arb_judge_response_format_name(cfg.response_format), names[i]);
        arb_judge_config_release(&cfg);
    }
    cr_assert_eq(config("{" KEYS ",\"max_tokens\":300}", &cfg, &err), ARB_OK, "%s", err.msg);
    cr_assert(cfg.response_format == ARB_RF_JSON_SCHEMA && !cfg.max_completion_tokens &&
              !cfg.no_temperature && !cfg.extra_body && !cfg.n_headers);
    cr_assert_eq(cfg.max_tokens_cap, 1200, "four times max_tokens");
    arb_judge_config_release(&cfg);
    cr_assert_eq(config("{" KEYS ",\"max_tokens\":300000}", &cfg, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(cfg.max_tokens_cap, 1000000);
    arb_judge_config_release(&cfg);
}

Test(judge_reply, should_refuse_bad_provider_options_naming_their_path)
{
#define COMMAND "\"provider\":\"command\",\"command\":[\"true\"]"
#define ANTH    "\"provider\":\"anthropic\"," KEYS
    static const struct {
        const char *json, *msg;
    } cases[] = {
        {"{" KEYS ",\"response_format\":\"json\"}",
         "/judge/response_format: expected \"json_schema\", \"json_schema_loose\", "
         "\"json_object\" or \"prompt\""},
        {"{" KEYS ",\"response_format\":2}", "/judge/response_format: expected \"json_schema\""},
        {"{" COMMAND ",\"response_format\":\"prompt\"}",
         "/judge/response_format: only for the openai and anthropic providers"},
        {"{" KEYS ",\"max_tokens_field\":\"max_output_tokens\"}",
         "/judge/max_tokens_field: expected \"max_tokens\" or \"max_completion_tokens\""},
        {"{" ANTH ",\"max_tokens_field\":\"max_completion_tokens\"}",
         "/judge/max_tokens_field: only for the openai provider"},
        {"{" KEYS ",\"max_tokens_cap\":1000}",
         "/judge/max_tokens_cap: expected a whole number from max_tokens (1024) to 1000000"},
        {"{" KEYS ",\"max_tokens_cap\":2048.5}", "/judge/max_tokens_cap: expected a whole number"},
        {"{" KEYS ",\"max_tokens_cap\":1000001}", "/judge/max_tokens_cap: expected a whole number"},
        {"{" KEYS ",\"temperature\":\"0\"}", "/judge/temperature: expected a number from 0 to 2"},
        {"{" ANTH ",\"temperature\":1.5}",
         "/judge/temperature: Anthropic accepts a temperature from 0 to 1"},
        {"{" KEYS ",\"extra_body\":[]}", "/judge/extra_body: expected an object"},
        {"{" KEYS ",\"extra_body\":{\"model\":\"gpt-4o\"}}",
         "/judge/extra_body/model: Arbiter sets this member itself"},
        {"{" ANTH ",\"extra_body\":{\"tool_choice\":{\"type\":\"auto\"}}}",
         "/judge/extra_body/tool_choice: Arbiter sets this member itself"},
        {"{" COMMAND ",\"extra_body\":{}}",
         "/judge/extra_body: only for the openai and anthropic providers"},
        {"{" KEYS ",\"headers\":[\"X-Title: a\"]}", "/judge/headers: expected an object"},
        {"{" KEYS ",\"headers\":{\"Authorization\":\"Bearer sk-1\"}}",
         "/judge/headers/Authorization: Arbiter sends this header itself"},
        {"{" ANTH ",\"headers\":{\"x-api-key\":{\"env\":\"K2\"}}}",
         "/judge/headers/x-api-key: Arbiter sends this header itself"},
        {"{" KEYS ",\"headers\":{\"X-Gateway-Token\":\"tok-123\"}}",
         "/judge/headers/X-Gateway-Token: a credential is never written in the config"},
        {"{" KEYS ",\"headers\":{\"Helicone-Auth\":\"Bearer h\"}}",
         "/judge/headers/Helicone-Auth: a credential"},
        {"{" KEYS ",\"headers\":{\"api-key\":\"azure\"}}", "/judge/headers/api-key: a credential"},
        {"{" KEYS ",\"headers\":{\"X Gateway\":\"v\"}}",
         "/judge/headers/X Gateway: not a valid header name"},
        {"{" KEYS ",\"headers\":{\"\":\"v\"}}", "/judge/headers/: not a valid header name"},
        {"{" KEYS ",\"headers\":{\"X-Title\":\"a\\r\\nX-Injected: 1\"}}",
         "/judge/headers/X-Title: a header value cannot hold a line break"},
        {"{" KEYS ",\"headers\":{\"X-Title\":3}}",
         "/judge/headers/X-Title: expected a string, or {\"env\": \"NAME\"}"},
        {"{" KEYS ",\"headers\":{\"X-Gateway-Token\":{\"env\":\"\"}}}",
         "/judge/headers/X-Gateway-Token: expected a string, or {\"env\""},
        {"{" KEYS ",\"headers\":{\"X-Gateway-Token\":{\"env\":\"K\",\"default\":\"t\"}}}",
         "/judge/headers/X-Gateway-Token: expected a string, or {\"env\""},
        {"{" COMMAND ",\"headers\":{\"X-Title\":\"a\"}}",
         "/judge/headers: only for the openai and anthropic providers"},
        {"{" KEYS ",\"max_completion_tokens\":100}", "/judge/max_completion_tokens: unknown key"},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct arb_judge_config cfg;
        struct arb_err err = {{0}};

        cr_assert_eq(config(cases[i].json, &cfg, &err), ARB_ESCHEMA, "accepted %s", cases[i].json);
        cr_assert(strncmp(err.msg, cases[i].msg, strlen(cases[i].msg)) == 0,
                  "%s: said '%s', not '%s'", cases[i].json, err.msg, cases[i].msg);
    }
#undef COMMAND
#undef ANTH
}

/* The config parsed from json, its hash into hash (65 bytes). */
static void hash_of(const char *json, char *hash)
{
    struct arb_judge_config cfg;
    struct arb_err err = {{0}};

    cr_assert_eq(config(json, &cfg, &err), ARB_OK, "%s: %s", json, err.msg);
    memcpy(hash, cfg.hash, 65);
    arb_judge_config_release(&cfg);
}

Test(judge_reply, should_keep_the_hash_of_a_config_without_the_new_options)
{
    static const char *const same[] = {
        "{" KEYS "}",
        "{" KEYS ",\"response_format\":\"json_schema\",\"max_tokens_field\":\"max_tokens\","
        "\"max_tokens_cap\":4096,\"temperature\":0}",
        "{" KEYS ",\"headers\":{\"X-Title\":\"Arbiter\",\"X-Gateway-Token\":{\"env\":\"T\"}}}",
    };
    static const char *const other[] = {
        "{" KEYS ",\"response_format\":\"prompt\"}",
        "{" KEYS ",\"response_format\":\"json_object\"}",
        "{" KEYS ",\"response_format\":\"json_schema_loose\"}",
        "{" KEYS ",\"extra_body\":{\"reasoning_effort\":\"low\"}}",
        "{" KEYS ",\"extra_body\":{\"reasoning_effort\":\"high\"}}",
        "{" KEYS ",\"max_tokens_field\":\"max_completion_tokens\"}",
        "{" KEYS ",\"temperature\":null}",
        "{" KEYS ",\"max_tokens_cap\":5000}",
    };
    char h[sizeof(other) / sizeof(other[0])][65], pin[65];
    size_t i, k;

    for (i = 0; i < sizeof(same) / sizeof(same[0]); i++) {
        hash_of(same[i], pin);
        cr_assert_str_eq(pin, PIN, "%s: the hash of stored calibrations would change", same[i]);
    }
    for (i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
        hash_of(other[i], h[i]);
        cr_assert_str_neq(h[i], PIN, "%s does not change the judge's identity", other[i]);
        for (k = 0; k < i; k++)
            cr_assert_str_neq(h[i], h[k], "%s and %s share a hash", other[i], other[k]);
    }
}

/* Config json, stored and read back: the same hash and the same stored JSON. */
static void round_trip(const char *json)
{
    struct arb_judge_config a, b;
    struct arb_err err = {{0}};
    cJSON *ja, *jb;
    char *ta, *tb;

    cr_assert_eq(config(json, &a, &err), ARB_OK, "%s: %s", json, err.msg);
    ja = arb_judge_config_json(&a);
    cr_assert_not_null(ja);
    cr_assert_eq(arb_judge_config_parse(ja, &b, &err), ARB_OK, "%s read back: %s", json, err.msg);
    cr_assert_str_eq(b.hash, a.hash, "%s", json);
    jb = arb_judge_config_json(&b);
    ta = cJSON_PrintUnformatted(ja);
    tb = cJSON_PrintUnformatted(jb);
    cr_assert_str_eq(tb, ta);
    free(ta);
    free(tb);
    cJSON_Delete(ja);
    cJSON_Delete(jb);
    arb_judge_config_release(&a);
    arb_judge_config_release(&b);
}

Test(judge_reply, should_read_back_the_config_it_stores)
{
    round_trip("{\"model\":\"o3-mini\",\"api_key_env\":\"K\",\"temperature\":null,"
               "\"response_format\":\"prompt\",\"max_tokens_field\":\"max_completion_tokens\","
               "\"max_tokens_cap\":5000,\"extra_body\":{\"reasoning_effort\":\"low\","
               "\"temperature\":1},\"headers\":{\"HTTP-Referer\":\"https://example.org\","
               "\"X-Gateway-Token\":{\"env\":\"GW_TOKEN\"}}}");
    round_trip("{\"provider\":\"anthropic\",\"model\":\"claude\",\"api_key_env\":\"K\","
               "\"temperature\":0.5,\"response_format\":\"json_object\",\"extra_body\":{"
               "\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":1024}}}");
    round_trip("{" KEYS "}");
    round_trip("{\"provider\":\"command\",\"command\":[\"true\"],\"max_tokens_cap\":4097}");
}

Test(judge_reply, should_store_a_header_from_the_environment_by_name_only)
{
    struct arb_judge_config cfg;
    struct arb_err err = {{0}};
    cJSON *j, *h;
    char *text;

    cr_assert_eq(setenv("ARB_TEST_GW_TOKEN", "s3cr3t-gw-value", 1), 0);
    cr_assert_eq(config("{" KEYS ",\"headers\":{\"X-Gateway-Token\":{\"env\":"
                        "\"ARB_TEST_GW_TOKEN\"},\"X-Title\":\"Arbiter\"}}",
                        &cfg, &err),
                 ARB_OK, "%s", err.msg);
    j = arb_judge_config_json(&cfg);
    text = cJSON_PrintUnformatted(j);
    cr_assert_null(strstr(text, "s3cr3t-gw-value"), "stored: %s", text);
    h = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "headers"), "X-Gateway-Token");
    cr_assert(cJSON_IsObject(h) && cJSON_GetArraySize(h) == 1, "stored: %s", text);
    cr_assert_str_eq(cJSON_GetObjectItem(h, "env")->valuestring, "ARB_TEST_GW_TOKEN");
    cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "headers"), "X-Title")->valuestring,
                     "Arbiter");
    free(text);
    cJSON_Delete(j);
    arb_judge_config_release(&cfg);
}

/* ---- the request bodies ---- */

static const struct arb_judge_item items[] = {
    {.kind = ARB_ITEM_CRITERION, .name = "correctness"},
    {.kind = ARB_ITEM_EXPECTATION, .name = "polite", .text = "The answer is polite"},
};

static cJSON *reply_schema(void)
{
    struct arb_judge_question q;
    cJSON *s;

    memset(&q, 0, sizeof(q));
    q.case_id = "c1";
    q.system_a = "alpha";
    q.system_b = "beta";
    q.task = "Answer.";
    q.output_a = "Paris.";
    q.output_b = "Lyon.";
    q.items = items;
    q.n_items = 2;
    s = judge_schema(&q);
    cr_assert_not_null(s);
    return s;
}

/* The body sent for config json, with the reply schema (*schema, caller frees). */
static cJSON *request(const char *json, cJSON **schema)
{
    struct arb_judge_config cfg;
    struct arb_err err = {{0}};
    char *body = NULL, key[65];
    cJSON *doc;

    *schema = reply_schema();
    cr_assert_eq(config(json, &cfg, &err), ARB_OK, "%s: %s", json, err.msg);
    cr_assert_eq(
        judge_build_request(&cfg, "Judge A and B.", *schema, 0, NULL, NULL, &body, key, &err),
        ARB_OK, "%s", err.msg);
    doc = cJSON_Parse(body);
    cr_assert_not_null(doc, "%s", body);
    free(body);
    arb_judge_config_release(&cfg);
    return doc;
}

static const char *user_message(const cJSON *body)
{
    const cJSON *m;

    cJSON_ArrayForEach(m, cJSON_GetObjectItem(body, "messages"))
    {
        if (strcmp(cJSON_GetObjectItem(m, "role")->valuestring, "user") == 0)
            return cJSON_GetObjectItem(m, "content")->valuestring;
    }
    cr_assert_fail("no user message");
    return NULL;
}

/* The user message ends with the marker, a line break and the schema itself. */
static void expect_schema_in_prompt(const cJSON *body, const cJSON *schema)
{
    const char *text = user_message(body), *at = strstr(text, JUDGE_SCHEMA_MARKER);
    cJSON *shown;

    cr_assert_not_null(at, "no schema in the prompt: %s", text);
    at += strlen(JUDGE_SCHEMA_MARKER);
    cr_assert_eq(*at, '\n');
    shown = cJSON_Parse(at + 1);
    cr_assert(shown && cJSON_Compare(shown, schema, 1), "not the schema after the marker: %s", at);
    cJSON_Delete(shown);
}

static int members(const cJSON *o, const char *name)
{
    const cJSON *m;
    int n = 0;

    cJSON_ArrayForEach(m, o)
    {
        n += strcmp(m->string, name) == 0;
    }
    return n;
}

Test(judge_reply, should_send_the_output_limit_and_temperature_as_configured)
{
    cJSON *schema, *b = request("{" KEYS ",\"max_tokens_field\":\"max_completion_tokens\","
                                "\"temperature\":null,\"max_tokens\":700}",
                                &schema);

    cr_assert_eq(cJSON_GetObjectItem(b, "max_completion_tokens")->valuedouble, 700);
    cr_assert_null(cJSON_GetObjectItem(b, "max_tokens"));
    cr_assert_null(cJSON_GetObjectItem(b, "temperature"));
    cJSON_Delete(b);
    cJSON_Delete(schema);
    b = request("{" KEYS ",\"max_tokens\":700}", &schema);
    cr_assert_eq(cJSON_GetObjectItem(b, "max_tokens")->valuedouble, 700);
    cr_assert_null(cJSON_GetObjectItem(b, "max_completion_tokens"));
    cr_assert_eq(cJSON_GetObjectItem(b, "temperature")->valuedouble, 0);
    cJSON_Delete(b);
    cJSON_Delete(schema);
}

Test(judge_reply, should_merge_extra_body_over_arbiters_own_members)
{
    cJSON *schema, *b = request("{" KEYS ",\"temperature\":0.2,\"extra_body\":{"
                                "\"reasoning_effort\":\"low\",\"temperature\":0.7}}",
                                &schema);

    cr_assert_str_eq(cJSON_GetObjectItem(b, "reasoning_effort")->valuestring, "low");
    cr_assert_eq(members(b, "temperature"), 1);
    cr_assert_float_eq(cJSON_GetObjectItem(b, "temperature")->valuedouble, 0.7, 1e-9);
    cr_assert_str_eq(cJSON_GetObjectItem(b, "model")->valuestring, "sim-1");
    cJSON_Delete(b);
    cJSON_Delete(schema);
}

Test(judge_reply, should_ask_openai_for_json_the_way_the_mode_says)
{
    cJSON *schema, *b, *rf, *want = cJSON_Parse("{\"type\":\"json_object\"}");

    b = request("{" KEYS ",\"response_format\":\"json_object\"}", &schema);
    rf = cJSON_GetObjectItem(b, "response_format");
    cr_assert(cJSON_Compare(rf, want, 1), "response_format %s", cJSON_PrintUnformatted(rf));
    expect_schema_in_prompt(b, schema);
    cJSON_Delete(b);
    cJSON_Delete(schema);
    b = request("{" KEYS ",\"response_format\":\"prompt\"}", &schema);
    cr_assert_null(cJSON_GetObjectItem(b, "response_format"));
    expect_schema_in_prompt(b, schema);
    cJSON_Delete(b);
    cJSON_Delete(schema);
    b = request("{" KEYS ",\"response_format\":\"json_schema_loose\"}", &schema);
    rf = cJSON_GetObjectItem(cJSON_GetObjectItem(b, "response_format"), "json_schema");
    cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(rf, "strict")));
    cr_assert(cJSON_Compare(cJSON_GetObjectItem(rf, "schema"), schema, 1));
    cr_assert_null(strstr(user_message(b), JUDGE_SCHEMA_MARKER));
    cJSON_Delete(b);
    cJSON_Delete(schema);
    b = request("{" KEYS "}", &schema);
    rf = cJSON_GetObjectItem(cJSON_GetObjectItem(b, "response_format"), "json_schema");
    cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(rf, "strict")));
    cr_assert_null(strstr(user_message(b), JUDGE_SCHEMA_MARKER));
    cJSON_Delete(b);
    cJSON_Delete(schema);
    cJSON_Delete(want);
}

Test(judge_reply, should_ask_anthropic_for_json_without_a_tool_in_json_object_mode)
{
    cJSON *schema, *b, *tools;

    b = request("{\"provider\":\"anthropic\"," KEYS ",\"response_format\":\"json_object\"}",
                &schema);
    cr_assert_null(cJSON_GetObjectItem(b, "tools"));
    cr_assert_null(cJSON_GetObjectItem(b, "tool_choice"));
    cr_assert_null(cJSON_GetObjectItem(b, "response_format"));
    cr_assert(cJSON_IsString(cJSON_GetObjectItem(b, "system")));
    expect_schema_in_prompt(b, schema);
    cJSON_Delete(b);
    cJSON_Delete(schema);
    b = request("{\"provider\":\"anthropic\"," KEYS "}", &schema);
    tools = cJSON_GetObjectItem(b, "tools");
    cr_assert(cJSON_Compare(cJSON_GetObjectItem(cJSON_GetArrayItem(tools, 0), "input_schema"),
                            schema, 1));
    cr_assert_str_eq(
        cJSON_GetObjectItem(cJSON_GetObjectItem(b, "tool_choice"), "name")->valuestring,
        "record_judgment");
    cr_assert_null(strstr(user_message(b), JUDGE_SCHEMA_MARKER));
    cJSON_Delete(b);
    cJSON_Delete(schema);
}

Test(judge_reply, should_type_every_node_of_the_reply_schema)
{
    cJSON *s = reply_schema(), *props = cJSON_GetObjectItem(s, "properties");
    cJSON *winner = cJSON_Parse("{\"type\":\"string\",\"enum\":[\"A\",\"B\",\"TIE\"]}");
    cJSON *score = cJSON_Parse("{\"type\":\"integer\",\"enum\":[1,2,3,4,5]}");
    cJSON *pass = cJSON_Parse("{\"type\":\"boolean\"}");
    cJSON *pair;
    char *text = cJSON_PrintUnformatted(s);

    cr_assert(cJSON_Compare(cJSON_GetObjectItem(props, "winner"), winner, 1), "%s", text);
    pair = cJSON_GetObjectItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(props, "criteria"), "properties"), "correctness");
    cr_assert(
        cJSON_Compare(cJSON_GetObjectItem(cJSON_GetObjectItem(pair, "properties"), "A"), score, 1),
        "%s", text);
    cr_assert(
        cJSON_Compare(cJSON_GetObjectItem(cJSON_GetObjectItem(pair, "properties"), "B"), score, 1),
        "%s", text);
    pair = cJSON_GetObjectItem(
        cJSON_GetObjectItem(cJSON_GetObjectItem(props, "expectations"), "properties"), "polite");
    cr_assert(
        cJSON_Compare(cJSON_GetObjectItem(cJSON_GetObjectItem(pair, "properties"), "A"), pass, 1),
        "%s", text);
    cr_assert_null(strstr(text, "minimum"), "%s", text);
    cr_assert_null(strstr(text, "maximum"), "%s", text);
    free(text);
    cJSON_Delete(s);
    cJSON_Delete(winner);
    cJSON_Delete(score);
    cJSON_Delete(pass);
}

/* Found by review: an object inside a cut or wrapped answer is not the answer; a streamed
 * thinking block is not the text; a \u0000 never shortens an answer. */
Test(judge_reply, should_not_take_an_object_inside_a_cut_answer_for_the_answer)
{
    struct judge_reply r;

    /* Cut after a complete member object: that object is a fragment, not the answer. */
    expect_failure(ARB_JUDGE_OPENAI,
                   openai_reply("{\"reasoning\":\"A names Paris\",\"criteria\":{\"correctness\":"
                                "{\"A\":5,\"B\":2}},\"expectations\":{\"pol",
                                "length", NULL, NULL),
                   "not JSON", &r);
    cr_assert_eq(r.truncated, 1);
    judge_reply_release(&r);
}

Test(judge_reply, should_not_take_a_draft_in_an_unclosed_think_block_for_the_answer)
{
    struct judge_reply r;

    /* clean.c: a <think> never closed is "a reply cut short, left to fail as it is". */
    expect_failure(ARB_JUDGE_OPENAI,
                   openai_reply("<think>A draft: {\"reasoning\":\"B is shorter\",\"winner\":\"B\"}"
                                " but wait, A names Paris, so",
                                "length", NULL, NULL),
                   "not JSON", &r);
    cr_assert_eq(r.truncated, 1);
    judge_reply_release(&r);
}

Test(judge_reply, should_skip_a_streamed_thinking_block_before_the_text_answer)
{
    /* Extended thinking in json_object mode (no tool): a thinking block, then the answer. */
    /* clang-format off */
    static const char body[] =
        MESSAGE_START
        EVENT("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,"
                                     "\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}")
        EVENT("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
                                     "{\"type\":\"thinking_delta\",\"thinking\":"
                                     "\"A names Paris.\"}}")
        EVENT("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":"
                                     "{\"type\":\"signature_delta\",\"signature\":"
                                     "\"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds\"}}")
        EVENT("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}")
        EVENT("content_block_start", "{\"type\":\"content_block_start\",\"index\":1,"
                                     "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}")
        EVENT("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":"
                                     "{\"type\":\"text_delta\",\"text\":\"{\\\"winner\\\":"
                                     "\\\"A\\\"}\"}}")
        EVENT("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":1}")
        EVENT("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
                               "\"end_turn\",\"stop_sequence\":null},\"usage\":"
                               "{\"output_tokens\":120}}")
        EVENT("message_stop", "{\"type\":\"message_stop\"}");
    /* clang-format on */
    struct judge_reply r;

    expect_answer(ARB_JUDGE_ANTHROPIC, strdup(body), "A", "[\"sse\"]", &r);
    cr_assert_str_eq(r.stop_reason, "end_turn");
    judge_reply_release(&r);
}

Test(judge_reply, should_refuse_an_array_holding_the_answer)
{
    struct judge_reply r;

    /* Valid JSON, and not an object: nothing in it is "found" as prose. */
    expect_failure(ARB_JUDGE_OPENAI, openai_reply("[" ANSWER "]", "stop", NULL, NULL),
                   "the answer is not a JSON object", &r);
    judge_reply_release(&r);
}

Test(judge_reply, should_refuse_an_answer_a_nul_escape_would_shorten)
{
    struct judge_reply r;

    /* json.h: arb_json_parse refuses "\u0000" rather than read a silently shortened string
     * ("A\u0000B" read as "A"); the answer was parsed so before the reply cleaning. */
    expect_failure(
        ARB_JUDGE_OPENAI,
        openai_reply("{\"reasoning\":\"x\",\"winner\":\"B\\u0000A\"}", "stop", NULL, NULL),
        "\\u0000", &r);
    judge_reply_release(&r);
}
