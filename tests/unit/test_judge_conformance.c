/*
 * The judge's requests against the providers' published shapes, not against
 * our simulator: every request shape Arbiter can send is built with the
 * judge's own builder and validated with Arbiter's JSON Schema validator, and
 * the reply schema inside it is held to OpenAI's strict subset.
 *
 * Sources of the published shapes:
 *   - OpenAI request: CreateChatCompletionRequest of OpenAI's OpenAPI description 2.3.0
 *     (openai/openai-openapi, commit f85dbe2, MIT), converted to one JSON Schema in
 *     tests/data/providers/openai/chat-completions-request.schema.json (SOURCE.md there).
 *   - OpenAI json_schema.name: "a-z, A-Z, 0-9, or contain underscores and dashes, with a
 *     maximum length of 64" (ResponseFormatJsonSchema's description, same file).
 *   - OpenAI JSON mode: the messages must contain the word "JSON" (structured outputs guide,
 *     https://platform.openai.com/docs/guides/structured-outputs, "JSON mode"; the API answers
 *     400 "'messages' must contain the word 'json' in some form").
 *   - OpenAI strict structured outputs: the guide above, "Supported schemas", narrowed by
 *     Arbiter's portable subset (strict_schema.h).
 *   - Anthropic request: the Messages API reference, https://docs.anthropic.com/en/api/messages,
 *     written as tests/data/providers/anthropic/messages-request.schema.json on 2026-11-25
 *     (SOURCE.md there); tool_choice {"type": "tool", "name"} forces that tool (same page).
 *
 * The command provider has no published shape and is not checked here.
 */
#include <ctype.h>
#include <stdio.h>
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

#define OPENAI                                                                                     \
    "\"provider\":\"openai\",\"model\":\"gpt-4o-mini\",\"api_key_env\":\"OPENAI_API_KEY\""
#define ANTHROPIC                                                                                  \
    "\"provider\":\"anthropic\",\"model\":\"claude-3-5-haiku-latest\","                            \
    "\"api_key_env\":\"ANTHROPIC_API_KEY\""

static const struct arb_judge_item both[] = {
    {.kind = ARB_ITEM_CRITERION, .name = "correctness"},
    {.kind = ARB_ITEM_CRITERION, .name = "clarity"},
    {.kind = ARB_ITEM_EXPECTATION, .name = "polite", .text = "The answer is polite"},
};
static const struct arb_judge_item criteria_only[] = {
    {.kind = ARB_ITEM_CRITERION, .name = "correctness"},
    {.kind = ARB_ITEM_CRITERION, .name = "usability"},
};
static const struct arb_judge_item expectations_only[] = {
    {.kind = ARB_ITEM_EXPECTATION, .name = "polite", .text = "The answer is polite"},
    {.kind = ARB_ITEM_EXPECTATION, .name = "names-paris", .text = "The answer names Paris"},
};
static const struct arb_judge_item odd[] = {
    {.kind = ARB_ITEM_CRITERION, .name = "a b"},
    {.kind = ARB_ITEM_CRITERION, .name = "\xc3\xbcn\xc3\xaf"}, /* "ünï" */
    {.kind = ARB_ITEM_CRITERION, .name = "x/y"},
    {.kind = ARB_ITEM_EXPECTATION, .name = "a b", .text = "Has a space"},
    {.kind = ARB_ITEM_EXPECTATION, .name = "\xc3\xbcn\xc3\xaf", .text = "Has accents"},
    {.kind = ARB_ITEM_EXPECTATION, .name = "x/y", .text = "Has a slash"},
};
static const struct arb_judge_item odd_expectations[] = {
    {.kind = ARB_ITEM_EXPECTATION, .name = "a b", .text = "Has a space"},
    {.kind = ARB_ITEM_EXPECTATION, .name = "\xc3\xbcn\xc3\xaf", .text = "Has accents"},
    {.kind = ARB_ITEM_EXPECTATION, .name = "x/y", .text = "Has a slash"},
};

#define ITEMS(a) a, sizeof(a) / sizeof(a[0])

/* One question Arbiter can ask, and the turn it is asked in. */
struct shape {
    const char *name;
    const struct arb_judge_item *items;
    size_t n_items;
    int single; /* output_b NULL */
    int sample;
    const char *retry_reply, *retry_error; /* the second turn, or NULL */
};

static const struct shape shapes[] = {
    {"pairwise, criteria and expectations", ITEMS(both), 0, 0, NULL, NULL},
    {"pairwise, criteria only", ITEMS(criteria_only), 0, 0, NULL, NULL},
    {"pairwise, expectations only", ITEMS(expectations_only), 0, 0, NULL, NULL},
    {"pairwise, no items", NULL, 0, 0, 0, NULL, NULL},
    {"pairwise, odd names", ITEMS(odd), 0, 0, NULL, NULL},
    {"pairwise, sample 3", ITEMS(both), 0, 3, NULL, NULL},
    {"pairwise, retry turn", ITEMS(both), 0, 0, "{\"reasoning\": \"x\", \"winner\": \"C\"}",
     "/winner: enum; /criteria: required"},
    {"single output", ITEMS(expectations_only), 1, 0, NULL, NULL},
    {"single output, odd names", ITEMS(odd_expectations), 1, 0, NULL, NULL},
    {"single output, retry turn", ITEMS(expectations_only), 1, 1, "not json",
     "the answer is not JSON"},
};

enum mode { MODE_DEFAULT, MODE_SCHEMA, MODE_LOOSE, MODE_OBJECT, MODE_PROMPT };

static const char *const mode_keys[] = {
    "", ",\"response_format\":\"json_schema\"", ",\"response_format\":\"json_schema_loose\"",
    ",\"response_format\":\"json_object\"", ",\"response_format\":\"prompt\""};

/* The providers' request schemas, compiled once per test. */
static struct arb_schema *openai_request, *anthropic_request;

static struct arb_schema *load(const char *path)
{
    struct arb_buf text;
    struct arb_err err = {{0}};
    struct arb_schema *s = NULL;
    cJSON *doc = NULL;

    arb_buf_init(&text, 0);
    cr_assert_eq(arb_file_read(path, &text, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_json_parse(text.ptr, text.len, 0, &doc, &err), ARB_OK, "%s: %s", path,
                 err.msg);
    cr_assert_eq(arb_schema_compile(doc, NULL, &s, &err), ARB_OK, "%s: %s", path, err.msg);
    cJSON_Delete(doc);
    arb_buf_release(&text);
    return s;
}

static void setup(void)
{
    openai_request = load(OPENAI_REQUEST);
    anthropic_request = load(ANTHROPIC_REQUEST);
}

static void teardown(void)
{
    arb_schema_free(openai_request);
    arb_schema_free(anthropic_request);
}

TestSuite(conformance, .init = setup, .fini = teardown);

static void config(const char *json, struct arb_judge_config *cfg)
{
    cJSON *obj = cJSON_Parse(json);
    struct arb_err err = {{0}};

    cr_assert_not_null(obj, "bad test config: %s", json);
    cr_assert_eq(arb_judge_config_parse(obj, cfg, &err), ARB_OK, "config %s: %s", json, err.msg);
    cJSON_Delete(obj);
}

static struct arb_judge_question question(const struct shape *sh)
{
    struct arb_judge_question q;

    memset(&q, 0, sizeof(q));
    q.case_id = "c1";
    q.system_a = "alpha";
    q.system_b = sh->single ? NULL : "beta";
    q.task = "Answer the question about France.";
    q.prompt = "What is the capital of France?";
    q.output_a = "Paris.";
    q.output_b = sh->single ? NULL : "It is Paris, of course.";
    q.items = sh->items;
    q.n_items = sh->n_items;
    q.seed = 7;
    return q;
}

/* The body the judge sends for sh under the config cfg_json, parsed; *schema (caller frees) is
 * the reply schema the judge made for the question. */
static cJSON *build(const char *cfg_json, const struct shape *sh, cJSON **schema)
{
    struct arb_judge_config cfg;
    struct arb_judge_question q = question(sh);
    struct arb_buf msg;
    struct arb_err err = {{0}};
    char key[65], *body = NULL;
    cJSON *doc;

    config(cfg_json, &cfg);
    *schema = judge_schema(&q);
    cr_assert_not_null(*schema);
    arb_buf_init(&msg, 0);
    cr_assert_eq(judge_render(&q, "0123456789abcdef", 0, &msg), ARB_OK);
    cr_assert_eq(judge_build_request_as(&cfg, judge_is_single(&q), msg.ptr, *schema, sh->sample,
                                        sh->retry_reply, sh->retry_error, &body, key, &err),
                 ARB_OK, "%s: %s", sh->name, err.msg);
    doc = cJSON_Parse(body);
    cr_assert_not_null(doc, "%s: the body is not JSON: %s", sh->name, body);
    free(body);
    arb_buf_release(&msg);
    arb_judge_config_release(&cfg);
    return doc;
}

/* 1 when body validates against s; else 0 with the violations in out. */
static int conforms(const struct arb_schema *s, const cJSON *body, struct arb_buf *out)
{
    struct arb_schema_errors errs;
    int r;

    arb_schema_errors_init(&errs);
    r = arb_schema_validate(s, body, &errs);
    if (r != 1)
        cr_assert_eq(arb_schema_errors_write(&errs, out), ARB_OK);
    if (r < 0)
        cr_assert_eq(arb_buf_adds(out, errs.err.msg), ARB_OK);
    return r == 1;
}

static void assert_conforms(const struct arb_schema *s, const cJSON *body, const char *what)
{
    struct arb_buf why;
    char *text = cJSON_PrintUnformatted(body);

    arb_buf_init(&why, 0);
    cr_assert(conforms(s, body, &why), "%s: the body does not validate: %s\nbody: %.3000s", what,
              why.ptr, text);
    free(text);
    arb_buf_release(&why);
}

static void assert_strict(const cJSON *schema, const char *what)
{
    char why[512];

    cr_assert(strict_schema_check(schema, why, sizeof(why)),
              "%s: the reply schema is outside the strict subset: %s", what, why);
}

static const cJSON *get(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* o's string member k, or "(none)": never NULL, for the string assertions. */
static const char *str(const cJSON *o, const char *k)
{
    const char *v = cJSON_GetStringValue(get(o, k));

    return v ? v : "(none)";
}

/* Every text the model reads: the messages' contents and Anthropic's system. */
static void conversation(const cJSON *body, struct arb_buf *out)
{
    const cJSON *m, *sys = get(body, "system");

    if (cJSON_IsString(sys))
        cr_assert_eq(arb_buf_adds(out, sys->valuestring), ARB_OK);
    cJSON_ArrayForEach(m, get(body, "messages"))
    {
        const cJSON *c = get(m, "content");

        if (cJSON_IsString(c))
            cr_assert_eq(arb_buf_printf(out, "\n%s", c->valuestring), ARB_OK);
    }
}

/* Without a response format or tool, the prompt itself must say what to answer: every member
 * the reply schema requires is named in it. */
static void assert_schema_described(const cJSON *body, const cJSON *schema, int say_json,
                                    const char *what)
{
    struct arb_buf text;
    const cJSON *r;
    size_t i;
    int json = 0;

    arb_buf_init(&text, 0);
    conversation(body, &text);
    cJSON_ArrayForEach(r, get(schema, "required"))
    {
        cr_assert(strstr(text.ptr, r->valuestring), "%s: the prompt does not name '%s'", what,
                  r->valuestring);
    }
    for (i = 0; i + 4 <= text.len && !json; i++)
        json = tolower((unsigned char)text.ptr[i]) == 'j' &&
               tolower((unsigned char)text.ptr[i + 1]) == 's' &&
               tolower((unsigned char)text.ptr[i + 2]) == 'o' &&
               tolower((unsigned char)text.ptr[i + 3]) == 'n';
    cr_assert(!say_json || json, "%s: JSON mode needs the word 'json' in the messages", what);
    arb_buf_release(&text);
}

/* ^[a-zA-Z0-9_-]{1,64}$ */
static int name_ok(const char *s)
{
    size_t n = strlen(s), i;

    for (i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
            return 0;
    return n >= 1 && n <= 64;
}

static void check_openai(const cJSON *body, const cJSON *schema, enum mode mode, const char *what)
{
    const cJSON *rf = get(body, "response_format"), *js = get(rf, "json_schema"), *name;

    assert_conforms(openai_request, body, what);
    cr_assert_null(get(body, "tools"), "%s: tools sent to OpenAI", what);
    switch (mode) {
    case MODE_DEFAULT:
    case MODE_SCHEMA:
    case MODE_LOOSE:
        cr_assert_str_eq(str(rf, "type"), "json_schema", "%s", what);
        name = get(js, "name");
        cr_assert(cJSON_IsString(name) && name_ok(name->valuestring),
                  "%s: json_schema.name is not 1-64 of a-z A-Z 0-9 _ -", what);
        cr_assert(mode == MODE_LOOSE ? cJSON_IsFalse(get(js, "strict"))
                                     : cJSON_IsTrue(get(js, "strict")),
                  "%s: json_schema.strict", what);
        cr_assert(cJSON_Compare(get(js, "schema"), schema, 1),
                  "%s: the schema sent is not the question's", what);
        assert_strict(get(js, "schema"), what);
        break;
    case MODE_OBJECT:
        cr_assert(cJSON_IsObject(rf) && cJSON_GetArraySize(rf) == 1 &&
                      strcmp(str(rf, "type"), "json_object") == 0,
                  "%s: response_format is not {\"type\": \"json_object\"}", what);
        assert_schema_described(body, schema, 1, what);
        assert_strict(schema, what);
        break;
    case MODE_PROMPT:
        cr_assert_null(rf, "%s: response_format sent in prompt mode", what);
        assert_schema_described(body, schema, 0, what);
        assert_strict(schema, what);
        break;
    }
}

static void check_anthropic(const cJSON *body, const cJSON *schema, enum mode mode,
                            const char *what)
{
    const cJSON *tools = get(body, "tools"), *tool = cJSON_GetArrayItem(tools, 0);
    const cJSON *choice = get(body, "tool_choice");

    assert_conforms(anthropic_request, body, what);
    switch (mode) {
    case MODE_DEFAULT:
    case MODE_SCHEMA:
    case MODE_LOOSE:
        cr_assert_eq(cJSON_GetArraySize(tools), 1, "%s: one tool", what);
        cr_assert_str_eq(str(choice, "type"), "tool", "%s: the tool is not forced", what);
        cr_assert_str_eq(str(choice, "name"), str(tool, "name"),
                         "%s: tool_choice names another tool", what);
        cr_assert(cJSON_Compare(get(tool, "input_schema"), schema, 1),
                  "%s: the input_schema sent is not the question's", what);
        assert_strict(get(tool, "input_schema"), what);
        break;
    case MODE_OBJECT:
    case MODE_PROMPT:
        cr_assert(!tools && !choice, "%s: a tool sent in a mode without one", what);
        assert_schema_described(body, schema, 0, what);
        assert_strict(schema, what);
        break;
    }
}

/* Build sh under {base + extra + the mode's key} and check it against the provider's shape. */
static cJSON *check(const char *base, const char *extra, enum mode mode, const struct shape *sh)
{
    char cfg[512], what[768];
    cJSON *schema, *body;

    snprintf(cfg, sizeof(cfg), "{%s%s%s}", base, extra, mode_keys[mode]);
    snprintf(what, sizeof(what), "%s under %s", sh->name, cfg);
    body = build(cfg, sh, &schema);
    if (strstr(base, "\"anthropic\""))
        check_anthropic(body, schema, mode, what);
    else
        check_openai(body, schema, mode, what);
    cJSON_Delete(schema);
    return body;
}

static void check_all_shapes(const char *base, const char *extra)
{
    size_t i;

    for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
        cJSON_Delete(check(base, extra, MODE_DEFAULT, &shapes[i]));
}

Test(conformance, should_send_openai_a_published_shape_for_every_question)
{
    check_all_shapes(OPENAI, "");
    check_all_shapes(OPENAI, ",\"seed\":42");
}

Test(conformance, should_send_anthropic_a_published_shape_for_every_question)
{
    check_all_shapes(ANTHROPIC, "");
    check_all_shapes(ANTHROPIC, ",\"seed\":42");
}

/* Each mode for a pairwise and a single-output question; the default is json_schema. */
static void check_modes(const char *base)
{
    enum mode m;
    size_t k;
    const struct shape *two[] = {&shapes[0], &shapes[7]};

    for (k = 0; k < 2; k++) {
        cJSON *dflt = check(base, "", MODE_DEFAULT, two[k]);
        cJSON *explicit = check(base, "", MODE_SCHEMA, two[k]);

        cr_assert(cJSON_Compare(dflt, explicit, 1),
                  "%s: the default response_format is not json_schema", two[k]->name);
        cJSON_Delete(dflt);
        cJSON_Delete(explicit);
        for (m = MODE_LOOSE; m <= MODE_PROMPT; m++)
            cJSON_Delete(check(base, "", m, two[k]));
    }
}

Test(conformance, should_send_openai_each_response_format_mode)
{
    check_modes(OPENAI);
}

Test(conformance, should_send_anthropic_each_response_format_mode)
{
    check_modes(ANTHROPIC);
}

Test(conformance, should_send_max_completion_tokens_in_place_of_max_tokens)
{
    cJSON *body =
        check(OPENAI, ",\"max_tokens\":2048,\"max_tokens_field\":\"max_completion_tokens\"",
              MODE_DEFAULT, &shapes[0]);

    cr_assert_eq(cJSON_GetNumberValue(get(body, "max_completion_tokens")), 2048);
    cr_assert_null(get(body, "max_tokens"), "both token limits sent");
    cJSON_Delete(body);
}

Test(conformance, should_leave_out_a_null_temperature)
{
    cJSON *o = check(OPENAI, ",\"temperature\":null", MODE_DEFAULT, &shapes[0]);
    cJSON *a = check(ANTHROPIC, ",\"temperature\":null", MODE_DEFAULT, &shapes[0]);

    cr_assert_null(get(o, "temperature"), "openai: temperature sent");
    cr_assert_null(get(a, "temperature"), "anthropic: temperature sent");
    cJSON_Delete(o);
    cJSON_Delete(a);
}

Test(conformance, should_merge_extra_body_into_the_request)
{
    cJSON *body =
        check(OPENAI, ",\"extra_body\":{\"reasoning_effort\":\"low\"}", MODE_DEFAULT, &shapes[0]);

    cr_assert_str_eq(str(body, "reasoning_effort"), "low");
    cJSON_Delete(body);
}

Test(conformance, should_keep_headers_out_of_the_body)
{
    const char *headers = ",\"headers\":{\"X-Title\":\"conf-title\","
                          "\"X-Conf-Secret\":{\"env\":\"ARB_CONF_SECRET\"}}";
    const char *bases[] = {OPENAI, ANTHROPIC};
    size_t i;

    cr_assert_eq(setenv("ARB_CONF_SECRET", "conf-secret-value", 1), 0);
    for (i = 0; i < 2; i++) {
        cJSON *body = check(bases[i], headers, MODE_DEFAULT, &shapes[0]);
        char *text = cJSON_PrintUnformatted(body);

        cr_assert(!strstr(text, "X-Title") && !strstr(text, "conf-title") &&
                      !strstr(text, "X-Conf-Secret") && !strstr(text, "conf-secret-value") &&
                      !strstr(text, "ARB_CONF_SECRET"),
                  "a header reached the body: %s", text);
        free(text);
        cJSON_Delete(body);
    }
}

/* The schemas are not vacuous: bodies the providers refuse do not validate. */
static void assert_refused(const struct arb_schema *s, const char *base, const char *member,
                           const char *value)
{
    cJSON *schema, *body;
    char cfg[256];
    struct arb_buf why;

    snprintf(cfg, sizeof(cfg), "{%s}", base);
    body = build(cfg, &shapes[0], &schema);
    cJSON_DeleteItemFromObjectCaseSensitive(body, member);
    if (value)
        cr_assert(cJSON_AddItemToObject(body, member, cJSON_Parse(value)));
    arb_buf_init(&why, 0);
    cr_assert(!conforms(s, body, &why), "%s set to %s validates", member,
              value ? value : "nothing");
    arb_buf_release(&why);
    cJSON_Delete(body);
    cJSON_Delete(schema);
}

Test(conformance, should_refuse_bodies_the_providers_refuse)
{
    assert_refused(openai_request, OPENAI, "model", NULL);
    assert_refused(openai_request, OPENAI, "messages", "[]");
    assert_refused(openai_request, OPENAI, "temperature", "3");
    assert_refused(openai_request, OPENAI, "reasoning_effort", "\"extreme\"");
    assert_refused(openai_request, OPENAI, "response_format", "{\"type\":\"json_schema\"}");
    assert_refused(openai_request, OPENAI, "messages", "[{\"role\":\"judge\",\"content\":\"x\"}]");
    assert_refused(anthropic_request, ANTHROPIC, "max_tokens", NULL);
    assert_refused(anthropic_request, ANTHROPIC, "temperature", "1.5");
    assert_refused(anthropic_request, ANTHROPIC, "seed", "42");
    assert_refused(anthropic_request, ANTHROPIC, "messages",
                   "[{\"role\":\"system\",\"content\":\"x\"}]");
    assert_refused(anthropic_request, ANTHROPIC, "tools",
                   "[{\"name\":\"record judgment\",\"input_schema\":{\"type\":\"object\"}}]");
    assert_refused(anthropic_request, ANTHROPIC, "tools",
                   "[{\"name\":\"r\",\"input_schema\":{\"type\":\"array\"}}]");
    assert_refused(anthropic_request, ANTHROPIC, "tool_choice", "{\"type\":\"tool\"}");
    assert_refused(anthropic_request, ANTHROPIC, "metadata", "{\"user\":\"x\"}");
}

/* ---- the reply schema ---- */

/* Without criteria no score comes first in document order, so the winner is checked alone. */
Test(conformance, should_type_the_winner_of_a_reply_schema_without_scores)
{
    size_t k;
    const struct shape *no_scores[] = {&shapes[2], &shapes[3]};

    for (k = 0; k < 2; k++) {
        struct arb_judge_question q = question(no_scores[k]);
        cJSON *schema = judge_schema(&q);

        assert_strict(schema, no_scores[k]->name);
        cJSON_Delete(schema);
    }
}

static int reply_valid(const struct shape *sh, const char *reply)
{
    struct arb_judge_question q = question(sh);
    cJSON *schema = judge_schema(&q), *doc = cJSON_Parse(reply);
    struct arb_schema *s = NULL;
    struct arb_err err = {{0}};
    int r;

    cr_assert_not_null(doc, "bad test reply: %s", reply);
    cr_assert_eq(arb_schema_compile(schema, NULL, &s, &err), ARB_OK, "%s", err.msg);
    r = arb_schema_validate(s, doc, NULL);
    cr_assert(r == 0 || r == 1);
    arb_schema_free(s);
    cJSON_Delete(doc);
    cJSON_Delete(schema);
    return r;
}

#define PAIRWISE(winner, score)                                                                    \
    "{\"reasoning\":\"A is right and polite.\",\"criteria\":{\"correctness\":{\"A\":" score        \
    ",\"B\":2},\"clarity\":{\"A\":3,\"B\":3}},\"expectations\":{\"polite\":{\"A\":true,\"B\":"     \
    "false}},\"winner\":" winner "}"

Test(conformance, should_accept_a_conforming_pairwise_reply_and_refuse_others)
{
    cr_assert(reply_valid(&shapes[0], PAIRWISE("\"A\"", "4")));
    cr_assert(reply_valid(&shapes[0], PAIRWISE("\"TIE\"", "5")));
    cr_assert(!reply_valid(&shapes[0], PAIRWISE("5", "4")), "a numeric winner validates");
    cr_assert(!reply_valid(&shapes[0], PAIRWISE("\"C\"", "4")), "winner C validates");
    cr_assert(!reply_valid(&shapes[0], PAIRWISE("\"A\"", "6")), "a score of 6 validates");
    cr_assert(!reply_valid(&shapes[0], PAIRWISE("\"A\"", "0")), "a score of 0 validates");
    cr_assert(!reply_valid(&shapes[0], PAIRWISE("\"A\"", "2.5")), "a score of 2.5 validates");
    cr_assert(reply_valid(&shapes[4],
                          "{\"reasoning\":\"r\",\"criteria\":{\"a b\":{\"A\":1,\"B\":5},"
                          "\"\xc3\xbcn\xc3\xaf\":{\"A\":2,\"B\":2},\"x/y\":{\"A\":3,\"B\":4}},"
                          "\"expectations\":{\"a b\":{\"A\":true,\"B\":true},"
                          "\"\xc3\xbcn\xc3\xaf\":{\"A\":false,\"B\":true},"
                          "\"x/y\":{\"A\":true,\"B\":false}},\"winner\":\"B\"}"));
    cr_assert(reply_valid(&shapes[7], "{\"reasoning\":\"r\",\"expectations\":{\"polite\":"
                                      "{\"pass\":true},\"names-paris\":{\"pass\":false}}}"));
}

/* ---- the strict subset checker itself ---- */

struct strict_case {
    const char *name;
    const char *schema;
    const char *why; /* the start of the first violation's message; NULL: inside the subset */
};

#define OBJ(props, req)                                                                            \
    "{\"type\":\"object\",\"properties\":{" props "},\"required\":[" req                           \
    "],\"additionalProperties\":false}"

static const struct strict_case strict_cases[] = {
    {"empty object", OBJ("", ""), NULL},
    {"every type",
     OBJ("\"s\":{\"type\":\"string\",\"pattern\":\"^a\",\"format\":\"date\"},"
         "\"n\":{\"type\":\"number\"},\"i\":{\"type\":\"integer\",\"enum\":[1,2]},"
         "\"b\":{\"type\":\"boolean\"},\"z\":{\"type\":\"null\"},"
         "\"a\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"minItems\":1,"
         "\"maxItems\":3},\"o\":" OBJ("\"x\":{\"type\":[\"string\",\"null\"]}", "\"x\""),
         "\"s\",\"n\",\"i\",\"b\",\"z\",\"a\",\"o\""),
     NULL},
    {"anyOf, $ref and $defs",
     "{\"type\":\"object\",\"properties\":{\"v\":{\"anyOf\":[{\"type\":\"string\"},"
     "{\"$ref\":\"#/$defs/n\"}]},\"self\":{\"anyOf\":[{\"$ref\":\"#\"},{\"type\":\"null\"}]}},"
     "\"required\":[\"v\",\"self\"],\"additionalProperties\":false,"
     "\"$defs\":{\"n\":{\"type\":\"integer\",\"description\":\"d\",\"title\":\"t\"}}}",
     NULL},
    {"const and enum of the type",
     OBJ("\"w\":{\"type\":\"string\",\"enum\":[\"A\",\"B\",\"TIE\"]},\"k\":{\"type\":\"string\","
         "\"const\":\"x\"},\"s\":{\"type\":\"integer\",\"enum\":[1,2,3,4,5]}",
         "\"w\",\"k\",\"s\""),
     NULL},
    {"root anyOf", "{\"anyOf\":[" OBJ("", "") "]}", "#: the root must be an object schema, not"},
    {"root string", "{\"type\":\"string\"}", "#: the root must be an object schema"},
    {"root not an object", "[]", "#: the root must be an object schema"},
    {"enum without type", OBJ("\"winner\":{\"enum\":[\"A\",\"B\",\"TIE\"]}", "\"winner\""),
     "#/properties/winner: no \"type\""},
    {"unknown type", OBJ("\"x\":{\"type\":\"text\"}", "\"x\""), "#/properties/x/type: unknown"},
    {"open object", "{\"type\":\"object\",\"properties\":{},\"required\":[]}",
     "#: an object needs \"additionalProperties\": false"},
    {"additionalProperties a schema",
     "{\"type\":\"object\",\"properties\":{},\"required\":[],\"additionalProperties\":{}}",
     "#: an object needs"},
    {"property not required",
     OBJ("\"a\":{\"type\":\"string\"},\"b\":{\"type\":\"string\"}", "\"a\""),
     "#/properties/b: property 'b' is not in \"required\""},
    {"required without property", OBJ("\"a\":{\"type\":\"string\"}", "\"a\",\"c\""),
     "#/required/1: 'c' is required but not a property"},
    {"required twice", OBJ("\"a\":{\"type\":\"string\"}", "\"a\",\"a\""),
     "#/required/1: 'a' is required twice"},
    {"no required",
     "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},"
     "\"additionalProperties\":false}",
     "#: an object needs \"required\""},
    {"minimum", OBJ("\"c\":" OBJ("\"A\":{\"type\":\"integer\",\"minimum\":1}", "\"A\""), "\"c\""),
     "#/properties/c/properties/A/minimum: 'minimum' is outside Arbiter's portable subset"},
    {"maximum", OBJ("\"A\":{\"type\":\"integer\",\"maximum\":5}", "\"A\""),
     "#/properties/A/maximum: 'maximum' is outside"},
    {"exclusiveMinimum", OBJ("\"A\":{\"type\":\"number\",\"exclusiveMinimum\":0}", "\"A\""),
     "#/properties/A/exclusiveMinimum: 'exclusiveMinimum' is outside"},
    {"exclusiveMaximum", OBJ("\"A\":{\"type\":\"number\",\"exclusiveMaximum\":9}", "\"A\""),
     "#/properties/A/exclusiveMaximum: 'exclusiveMaximum' is outside"},
    {"multipleOf", OBJ("\"A\":{\"type\":\"number\",\"multipleOf\":2}", "\"A\""),
     "#/properties/A/multipleOf: 'multipleOf' is outside"},
    {"oneOf", OBJ("\"A\":{\"oneOf\":[{\"type\":\"string\"}]}", "\"A\""),
     "#/properties/A/oneOf: keyword 'oneOf' is not supported"},
    {"minLength", OBJ("\"A\":{\"type\":\"string\",\"minLength\":1}", "\"A\""),
     "#/properties/A/minLength: keyword 'minLength' is not supported"},
    {"boolean schema", OBJ("\"A\":true", "\"A\""), "#/properties/A: a schema must be an object"},
    {"array without items", OBJ("\"A\":{\"type\":\"array\"}", "\"A\""),
     "#/properties/A: an array needs \"items\""},
    {"object in items",
     OBJ("\"A\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
         "\"properties\":{}}}",
         "\"A\""),
     "#/properties/A/items: an object needs \"additionalProperties\": false"},
    {"string enum on an integer", OBJ("\"s\":{\"type\":\"integer\",\"enum\":[1,\"2\"]}", "\"s\""),
     "#/properties/s/enum/1: enum value is not of the node's type"},
    {"fraction enum on an integer", OBJ("\"s\":{\"type\":\"integer\",\"enum\":[1.5]}", "\"s\""),
     "#/properties/s/enum/0: enum value is not"},
    {"empty enum", OBJ("\"s\":{\"type\":\"string\",\"enum\":[]}", "\"s\""),
     "#/properties/s/enum: \"enum\" must be a non-empty array"},
    {"const of another type", OBJ("\"k\":{\"type\":\"string\",\"const\":1}", "\"k\""),
     "#/properties/k/const: const value is not"},
    {"bad anyOf branch", OBJ("\"v\":{\"anyOf\":[{\"type\":\"string\"},{\"enum\":[1]}]}", "\"v\""),
     "#/properties/v/anyOf/1: no \"type\""},
    {"remote $ref", OBJ("\"v\":{\"$ref\":\"https://example.com/s.json\"}", "\"v\""),
     "#/properties/v/$ref: \"$ref\" must be"},
    {"dangling $ref", OBJ("\"v\":{\"$ref\":\"#/$defs/missing\"}", "\"v\""),
     "#/properties/v/$ref: \"$ref\" '#/$defs/missing' names no definition"},
    {"bad definition",
     "{\"type\":\"object\",\"properties\":{},\"required\":[],"
     "\"additionalProperties\":false,\"$defs\":{\"d\":{\"type\":\"object\"}}}",
     "#/$defs/d: an object needs"},
    {"unsupported format", OBJ("\"u\":{\"type\":\"string\",\"format\":\"uri\"}", "\"u\""),
     "#/properties/u/format: format 'uri' is not supported"},
    {"negative minItems",
     OBJ("\"a\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
         "\"minItems\":-1}",
         "\"a\""),
     "#/properties/a/minItems: \"minItems\" must be a non-negative integer"},
    {"escaped pointer", OBJ("\"x/y~z\":{\"type\":\"object\"}", "\"x/y~z\""),
     "#/properties/x~1y~0z: an object needs"},
};

Test(conformance, should_name_the_first_violation_of_each_strict_rule)
{
    size_t i;

    for (i = 0; i < sizeof(strict_cases) / sizeof(strict_cases[0]); i++) {
        const struct strict_case *c = &strict_cases[i];
        cJSON *s = cJSON_Parse(c->schema);
        char why[512];
        int ok;

        cr_assert_not_null(s, "%s: bad test schema", c->name);
        ok = strict_schema_check(s, why, sizeof(why));
        if (!c->why)
            cr_assert(ok, "%s: refused: %s", c->name, why);
        else
            cr_assert(!ok && strncmp(why, c->why, strlen(c->why)) == 0,
                      "%s: expected \"%s...\", got %s \"%s\"", c->name, c->why,
                      ok ? "accepted" : "refused with", why);
        cJSON_Delete(s);
    }
}

/* An object schema with n string properties p0...; each property's schema is made by leaf. */
static cJSON *wide(int n, cJSON *(*leaf)(int i))
{
    cJSON *o = cJSON_CreateObject(), *props, *req;
    char name[32];
    int i;

    cr_assert(o && cJSON_AddStringToObject(o, "type", "object") &&
              (props = cJSON_AddObjectToObject(o, "properties")) &&
              (req = cJSON_AddArrayToObject(o, "required")) &&
              cJSON_AddFalseToObject(o, "additionalProperties"));
    for (i = 0; i < n; i++) {
        snprintf(name, sizeof(name), "p%d", i);
        cr_assert(cJSON_AddItemToObject(props, name, leaf(i)) &&
                  cJSON_AddItemToArray(req, cJSON_CreateString(name)));
    }
    return o;
}

static cJSON *string_leaf(int i)
{
    cJSON *s = cJSON_CreateObject();

    cr_assert(s && cJSON_AddStringToObject(s, "type", "string"));
    return s;
}

/* 4 enum values, or one value of 1000 characters (strings of any other kind), per leaf. */
static cJSON *enum_leaf(int i)
{
    static const char *const v[] = {"a", "b", "c", "d"};
    cJSON *s = string_leaf(i);

    cr_assert(cJSON_AddItemToObject(s, "enum", cJSON_CreateStringArray(v, 4)));
    return s;
}

static cJSON *long_leaf(int i)
{
    static char v[1001];
    cJSON *s = string_leaf(i), *e;

    memset(v, 'v', 1000);
    cr_assert((e = cJSON_AddArrayToObject(s, "enum")) &&
              cJSON_AddItemToArray(e, cJSON_CreateString(v)));
    return s;
}

static void assert_limit(cJSON *ok, cJSON *over, const char *why_over)
{
    char why[512];

    cr_assert(strict_schema_check(ok, why, sizeof(why)), "at the limit: %s", why);
    cr_assert(!strict_schema_check(over, why, sizeof(why)) && strstr(why, why_over),
              "past the limit: expected \"%s\", got \"%s\"", why_over, why);
    cJSON_Delete(ok);
    cJSON_Delete(over);
}

Test(conformance, should_hold_the_strict_limits)
{
    cJSON *deep[2];
    int k, level;

    assert_limit(wide(5000, string_leaf), wide(5001, string_leaf),
                 "#/properties/p5000: more than 5000 object properties");
    assert_limit(wide(250, enum_leaf), wide(251, enum_leaf),
                 "#/properties/p250/enum/0: more than 1000 enum values");
    /* 119 values of 1000 characters and the names p0..p118 fit; the 120th does not. */
    assert_limit(wide(119, long_leaf), wide(120, long_leaf),
                 "#/properties/p119/enum/0: more than 120000 characters");
    /* 10 levels: the root and 9 objects nested in it (the string leaf is no level); then 11. */
    for (k = 0; k < 2; k++) {
        deep[k] = wide(1, string_leaf);
        for (level = 1; level < 10 + k; level++) {
            cJSON *outer = wide(0, string_leaf);

            cr_assert(cJSON_AddItemToObject(cJSON_GetObjectItemCaseSensitive(outer, "properties"),
                                            "n", deep[k]) &&
                      cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(outer, "required"),
                                           cJSON_CreateString("n")));
            deep[k] = outer;
        }
    }
    assert_limit(deep[0], deep[1], "more than 10 levels of nesting");
}
