/*
 * parse.c - what a provider's reply says: the answer, why the model stopped (cut at the
 * output limit, a refusal, a content filter), the tokens it used, and, for a reply that is an
 * error, the provider's own words.  The shapes read, and where they are published:
 *
 *   OpenAI chat completion: choices[0].message.{content, refusal}, choices[0].finish_reason
 *     (stop, length, content_filter, tool_calls), usage (the OpenAPI description's
 *     CreateChatCompletionResponse); vLLM and DeepSeek add message.reasoning_content, some
 *     servers message.reasoning: never part of the answer.
 *   Anthropic message: content blocks (text, tool_use, thinking, redacted_thinking),
 *     stop_reason (end_turn, max_tokens, stop_sequence, tool_use, refusal), usage (Messages
 *     API reference).
 *   Errors: {"error": {"message", "type", "param", "code"}} (OpenAI, Ollama's and llama.cpp's
 *     OpenAI-compatible servers, vLLM since 0.9), {"type": "error", "error": {"type",
 *     "message"}} (Anthropic), {"object": "error", "message", "type", "code"} (vLLM before),
 *     {"error": "text"} (Ollama's own API, gateways), {"detail": ...} (FastAPI servers).
 *   A body that is an event stream (a server that streams although "stream" was not asked)
 *   is assembled first (sse.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "judge_int.h"

static const cJSON *get(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* A token count from the reply; 0 when absent or too large for a long long (the cast is UB). */
static long long token_count(const cJSON *c)
{
    if (!cJSON_IsNumber(c) || !(c->valuedouble > -9.2e18 && c->valuedouble < 9.2e18))
        return 0;
    return (long long)c->valuedouble;
}

/* A string or a number as text into out ("" for anything else). */
static void scalar(const cJSON *v, char *out, size_t n)
{
    out[0] = '\0';
    if (cJSON_IsString(v))
        snprintf(out, n, "%s", v->valuestring);
    else if (cJSON_IsNumber(v) && v->valuedouble == (double)(long long)v->valuedouble)
        snprintf(out, n, "%lld", (long long)v->valuedouble);
}

int judge_error_from_doc(const cJSON *doc, struct judge_provider_error *e)
{
    const cJSON *err = get(doc, "error"), *src = NULL;

    memset(e, 0, sizeof(*e));
    if (cJSON_IsObject(err))
        src = err; /* OpenAI, Anthropic, Ollama, llama.cpp, vLLM >= 0.9 */
    else if (cJSON_IsString(get(doc, "object")) &&
             strcmp(get(doc, "object")->valuestring, "error") == 0)
        src = doc; /* vLLM before 0.9 */
    if (src) {
        scalar(get(src, "type"), e->type, sizeof(e->type));
        scalar(get(src, "code"), e->code, sizeof(e->code));
        scalar(get(src, "message"), e->message, sizeof(e->message));
    } else if (cJSON_IsString(err)) {
        snprintf(e->message, sizeof(e->message), "%s", err->valuestring);
    } else if (cJSON_IsString(get(doc, "detail"))) {
        snprintf(e->message, sizeof(e->message), "%s", get(doc, "detail")->valuestring);
    } else if (get(doc, "detail")) {
        char *t = cJSON_PrintUnformatted(get(doc, "detail"));

        snprintf(e->message, sizeof(e->message), "%s", t ? t : "");
        cJSON_free(t);
    }
    e->found = e->type[0] || e->code[0] || e->message[0];
    return e->found;
}

int judge_provider_error(const char *body, struct judge_provider_error *e)
{
    cJSON *doc = NULL;
    int found;

    memset(e, 0, sizeof(*e));
    if (!body || arb_json_parse(body, strlen(body), ARB_JSON_ALLOW_BOM, &doc, NULL))
        return 0;
    found = cJSON_IsObject(doc) && judge_error_from_doc(doc, e);
    cJSON_Delete(doc);
    return found;
}

/* The body as one document: parsed, or assembled from an event stream (NULL: neither). */
static cJSON *reply_doc(const struct arb_judge_config *cfg, const char *body, int *streamed)
{
    cJSON *doc = NULL;

    *streamed = 0;
    if (!arb_json_parse(body, strlen(body), ARB_JSON_ALLOW_BOM, &doc, NULL))
        return doc;
    doc = judge_sse_assemble(cfg, body);
    *streamed = doc != NULL;
    return doc;
}

static void usage_of(const struct arb_judge_config *cfg, const cJSON *doc, struct judge_usage *u)
{
    const cJSON *usage = get(doc, "usage");

    memset(u, 0, sizeof(*u));
    u->reported = cJSON_IsObject(usage);
    if (cfg->provider == ARB_JUDGE_ANTHROPIC) {
        u->cached = token_count(get(usage, "cache_read_input_tokens"));
        u->prompt = token_count(get(usage, "input_tokens")) + u->cached +
                    token_count(get(usage, "cache_creation_input_tokens"));
        u->completion = token_count(get(usage, "output_tokens"));
    } else {
        u->prompt = token_count(get(usage, "prompt_tokens"));
        u->cached = token_count(get(get(usage, "prompt_tokens_details"), "cached_tokens"));
        u->completion = token_count(get(usage, "completion_tokens"));
    }
}

void judge_reply_usage(const struct arb_judge_config *cfg, const char *body,
                       struct judge_usage *u)
{
    cJSON *doc;
    int streamed;

    memset(u, 0, sizeof(*u));
    if (cfg->provider == ARB_JUDGE_COMMAND || !body)
        return;
    doc = reply_doc(cfg, body, &streamed);
    if (cJSON_IsObject(doc))
        usage_of(cfg, doc, u);
    cJSON_Delete(doc);
}

void judge_reply_release(struct judge_reply *r)
{
    cJSON_Delete(r->answer);
    free(r->text);
    memset(r, 0, sizeof(*r));
}

/* The words of a refusal: OpenAI's message.refusal, or the text the model wrote. */
static void refusal(struct judge_reply *r, const char *kind, const char *words)
{
    r->refused = 1;
    snprintf(r->error.type, sizeof(r->error.type), "%s", kind);
    snprintf(r->error.message, sizeof(r->error.message), "%s",
             words && words[0] ? words
             : strcmp(kind, "content_filter") == 0
                 ? "the provider's content filter stopped the reply"
                 : "the model refused to answer");
    r->error.found = 1;
}

/* OpenAI and compatible servers: the content, finish_reason and refusal of choices[0]. */
static const cJSON *openai_content(const cJSON *doc, struct judge_reply *r)
{
    const cJSON *choice = cJSON_GetArrayItem(get(doc, "choices"), 0);
    const cJSON *msg = get(choice, "message"), *fin = get(choice, "finish_reason");
    const cJSON *ref = get(msg, "refusal"), *content = get(msg, "content");

    if (cJSON_IsString(fin))
        snprintf(r->stop_reason, sizeof(r->stop_reason), "%s", fin->valuestring);
    r->truncated = strcmp(r->stop_reason, "length") == 0;
    if (cJSON_IsString(ref) && ref->valuestring[0])
        refusal(r, "refusal", ref->valuestring);
    else if (strcmp(r->stop_reason, "content_filter") == 0)
        refusal(r, "content_filter", cJSON_IsString(content) ? content->valuestring : NULL);
    return cJSON_IsString(content) && content->valuestring[0] ? content : NULL;
}

/* Anthropic: the tool_use input (or else the first text block), and stop_reason. */
static const cJSON *anthropic_content(const cJSON *doc, struct judge_reply *r)
{
    const cJSON *c, *content = NULL, *text = NULL, *stop = get(doc, "stop_reason");

    cJSON_ArrayForEach(c, get(doc, "content"))
    {
        const cJSON *type = get(c, "type");

        if (!cJSON_IsString(type))
            continue;
        if (strcmp(type->valuestring, "tool_use") == 0 && !content)
            content = get(c, "input");
        else if (strcmp(type->valuestring, "text") == 0 && !text)
            text = get(c, "text"); /* thinking and redacted_thinking blocks are not answers */
    }
    if (cJSON_IsString(stop))
        snprintf(r->stop_reason, sizeof(r->stop_reason), "%s", stop->valuestring);
    r->truncated = strcmp(r->stop_reason, "max_tokens") == 0;
    if (strcmp(r->stop_reason, "refusal") == 0)
        refusal(r, "refusal", cJSON_IsString(text) ? text->valuestring : NULL);
    return content ? content : text;
}

/* The answer from its text: as written, or found in it (clean.c); ARB_EPARSE says why not. */
static enum arb_status answer_from_text(struct judge_reply *r, struct arb_err *err)
{
    struct arb_err perr = {{0}};
    cJSON *v = NULL;
    enum arb_status st;

    r->answer = judge_clean_answer(r->text, r);
    if (r->answer)
        return ARB_OK;
    r->normalization[0] = '\0';
    st = arb_json_parse(r->text, strlen(r->text), ARB_JSON_ALLOW_BOM, &v, &perr);
    cJSON_Delete(v);
    if (st == ARB_ENOMEM)
        return st;
    if (st)
        return arb_err_set(err, ARB_EPARSE, "the answer is not JSON: %s", perr.msg);
    return arb_err_set(err, ARB_EPARSE, "the answer is not a JSON object");
}

enum arb_status judge_parse_reply(const struct arb_judge_config *cfg, const char *body,
                                  struct judge_reply *r, struct arb_err *err)
{
    cJSON *doc;
    const cJSON *content;
    int streamed;
    enum arb_status st;

    memset(r, 0, sizeof(*r));
    if (cfg->provider == ARB_JUDGE_COMMAND) {
        struct arb_err perr = {{0}};

        /* The program's standard output is the answer itself. */
        r->text = strdup(body);
        if (!r->text)
            return ARB_ENOMEM;
        st = arb_json_parse(body, strlen(body), ARB_JSON_ALLOW_BOM, &r->answer, &perr);
        if (st && st != ARB_ENOMEM)
            st = arb_err_set(err, ARB_EPARSE, "the command's answer is not JSON: %s", perr.msg);
        return st;
    }
    doc = reply_doc(cfg, body, &streamed);
    if (!doc || !cJSON_IsObject(doc)) {
        struct arb_err perr = {{0}};
        cJSON *v = NULL;

        cJSON_Delete(doc);
        st = arb_json_parse(body, strlen(body), ARB_JSON_ALLOW_BOM, &v, &perr);
        cJSON_Delete(v);
        return st == ARB_ENOMEM ? st
               : st ? arb_err_set(err, ARB_EPARSE, "reply is not JSON: %s", perr.msg)
                    : arb_err_set(err, ARB_EPARSE, "reply is not a JSON object");
    }
    if (streamed)
        snprintf(r->normalization, sizeof(r->normalization), "[\"sse\"]");
    usage_of(cfg, doc, &r->usage);
    if (judge_error_from_doc(doc, &r->error)) {
        /* An HTTP 200 whose body is an error (gateways relay an upstream failure so). */
        r->error_body = 1;
        cJSON_Delete(doc);
        return arb_err_set(err, ARB_EPARSE, "the reply is an error, not an answer: %s",
                           r->error.message[0] ? r->error.message : r->error.type);
    }
    content = cfg->provider == ARB_JUDGE_ANTHROPIC ? anthropic_content(doc, r)
                                                   : openai_content(doc, r);
    st = ARB_OK;
    if (r->refused) {
        st = strcmp(r->error.type, "content_filter") == 0
                 ? arb_err_set(err, ARB_EPARSE, "the judge refused (content_filter): %s",
                               r->error.message)
                 : arb_err_set(err, ARB_EPARSE, "the judge refused: %s", r->error.message);
    } else if (!content) {
        st = r->truncated ? arb_err_set(err, ARB_EPARSE,
                                        "the reply was cut at the output limit before any "
                                        "answer (a reasoning model may spend it all thinking)")
                          : arb_err_set(err, ARB_EPARSE, "reply has no answer (no %s)",
                                        cfg->provider == ARB_JUDGE_ANTHROPIC
                                            ? "tool_use or text block"
                                            : "choices[0].message.content");
    } else if (cJSON_IsString(content)) {
        r->text = strdup(content->valuestring);
        st = r->text ? answer_from_text(r, err) : ARB_ENOMEM;
    } else {
        r->text = cJSON_PrintUnformatted(content);
        r->answer = cJSON_Duplicate(content, 1);
        st = r->text && r->answer ? ARB_OK : ARB_ENOMEM;
    }
    cJSON_Delete(doc);
    return st;
}
