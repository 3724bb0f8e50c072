/*
 * reply.c - the bodies the test judge sends: a 200 reply built from the request's schema
 * (an OpenAI chat completion or an Anthropic message) and the error bodies of each protocol.
 *
 * The synchronous routes (handler.c) and the batch routes (batch_openai.c, batch_anthropic.c)
 * both build their replies here, from the same draws, so a request answered in a batch gets
 * the very bytes it would get alone. Deciding which reply a request gets is the callers' job;
 * values built from a schema are gen.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "judge_sim.h"

void sim_reply_text(struct sim_reply *r, int status, char *text)
{
    free(r->text);
    r->status = status;
    r->text = text;
    r->len = text ? strlen(text) : 0;
}

static const char *anthropic_type(int status)
{
    switch (status) {
    case 400:
        return "invalid_request_error";
    case 401:
        return "authentication_error";
    case 404:
        return "not_found_error";
    case 413:
        return "request_too_large";
    case 429:
        return "rate_limit_error";
    case 503:
    case 529:
        return "overloaded_error";
    default:
        return "api_error";
    }
}

static const char *openai_type(int status)
{
    if (status == 429)
        return "rate_limit_exceeded";
    if (status >= 500)
        return "server_error";
    return "invalid_request_error";
}

cJSON *sim_attach(cJSON *parent, const char *key, cJSON *item)
{
    bool ok;

    if (!parent || !item) {
        cJSON_Delete(item);
        return NULL;
    }
    ok = key ? cJSON_AddItemToObject(parent, key, item) : cJSON_AddItemToArray(parent, item);
    if (!ok) {
        cJSON_Delete(item);
        return NULL;
    }
    return item;
}

cJSON *sim_error_json(enum sim_proto p, int status, const char *msg)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *err;
    bool ok;

    if (p == SIM_PROTO_ANTHROPIC) {
        ok = cJSON_AddStringToObject(root, "type", "error") != NULL;
        err = sim_attach(root, "error", cJSON_CreateObject());
        ok = ok && cJSON_AddStringToObject(err, "type", anthropic_type(status)) &&
             cJSON_AddStringToObject(err, "message", msg);
    } else {
        err = sim_attach(root, "error", cJSON_CreateObject());
        ok = cJSON_AddStringToObject(err, "message", msg) &&
             cJSON_AddStringToObject(err, "type", openai_type(status)) &&
             cJSON_AddNullToObject(err, "param") &&
             (status == 401 ? cJSON_AddStringToObject(err, "code", "invalid_api_key") != NULL
                            : cJSON_AddNullToObject(err, "code") != NULL);
    }
    if (!ok) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

void sim_reply_error(struct sim_reply *r, enum sim_proto p, int status, const char *msg)
{
    cJSON *root = sim_error_json(p, status, msg);

    sim_reply_text(r, status, root ? cJSON_PrintUnformatted(root) : NULL);
    cJSON_Delete(root);
}

static const cJSON *member(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

void sim_hex_id(char *out, size_t cap, const char *prefix, const unsigned char *d)
{
    size_t n = (size_t)snprintf(out, cap, "%s", prefix);

    for (int i = 0; i < 12 && n + 3 <= cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%02x", d[i]);
}

static const char *model_of(const cJSON *req)
{
    const cJSON *m = member(req, "model");

    return cJSON_IsString(m) ? m->valuestring : "judge-sim";
}

/* The reply value for schema, broken on purpose when invalid is set. */
static cJSON *make_value(struct sim_gen *g, const cJSON *schema, bool invalid)
{
    cJSON *v;

    g->root = schema;
    v = sim_gen_value(g, schema);
    if (v && invalid)
        v = sim_gen_break(g, schema, v);
    return v;
}

/* fixed, when not NULL, replaces the request's schema (--reply-format). */
static char *openai_body(struct sim_gen *g, const cJSON *req, const cJSON *fixed, size_t body_len,
                         bool invalid, const unsigned char *d)
{
    const cJSON *rf = member(req, "response_format");
    const cJSON *schema = fixed;
    cJSON *root, *value, *choices, *choice, *msg, *usage;
    char *content, *text = NULL;
    char id[64];
    bool ok;

    if (!fixed && cJSON_IsString(member(rf, "type")) &&
        !strcmp(member(rf, "type")->valuestring, "json_schema"))
        schema = member(member(rf, "json_schema"), "schema");
    value = make_value(g, cJSON_IsObject(schema) ? schema : NULL, invalid);
    content = value ? cJSON_PrintUnformatted(value) : NULL;
    cJSON_Delete(value);
    if (!content)
        return NULL;
    sim_hex_id(id, sizeof(id), "chatcmpl-sim", d);
    root = cJSON_CreateObject();
    ok = cJSON_AddStringToObject(root, "id", id) &&
         cJSON_AddStringToObject(root, "object", "chat.completion") &&
         cJSON_AddStringToObject(root, "model", model_of(req));
    choices = sim_attach(root, "choices", cJSON_CreateArray());
    choice = sim_attach(choices, NULL, cJSON_CreateObject());
    ok = ok && cJSON_AddNumberToObject(choice, "index", 0);
    msg = sim_attach(choice, "message", cJSON_CreateObject());
    ok = ok && cJSON_AddStringToObject(msg, "role", "assistant") &&
         cJSON_AddStringToObject(msg, "content", content) &&
         cJSON_AddStringToObject(choice, "finish_reason", "stop");
    usage = sim_attach(root, "usage", cJSON_CreateObject());
    ok = ok && cJSON_AddNumberToObject(usage, "prompt_tokens", (double)(body_len / 4)) &&
         cJSON_AddNumberToObject(usage, "completion_tokens", (double)(strlen(content) / 4)) &&
         cJSON_AddNumberToObject(usage, "total_tokens",
                                 (double)(body_len / 4 + strlen(content) / 4));
    if (ok)
        text = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    free(content);
    return text;
}

/* The tool the request forces with tool_choice, else its first tool; NULL without tools. */
static const cJSON *pick_tool(const cJSON *req)
{
    const cJSON *tools = member(req, "tools"), *choice = member(req, "tool_choice");
    const cJSON *want = member(choice, "name"), *t;

    if (!cJSON_IsArray(tools) || cJSON_GetArraySize(tools) == 0)
        return NULL;
    if (cJSON_IsString(want)) {
        cJSON_ArrayForEach(t, tools)
        {
            const cJSON *name = member(t, "name");

            if (cJSON_IsString(name) && !strcmp(name->valuestring, want->valuestring))
                return t;
        }
    }
    return cJSON_GetArrayItem(tools, 0);
}

static char *anthropic_body(struct sim_gen *g, const cJSON *req, const cJSON *fixed,
                            size_t body_len, bool invalid, const unsigned char *d)
{
    const cJSON *tool = pick_tool(req), *schema = NULL, *name = member(tool, "name");
    cJSON *root, *value, *content, *block, *usage;
    char *out_text = NULL, *text = NULL;
    char id[64], tool_id[64];
    bool ok;

    if (tool)
        schema = member(tool, "input_schema");
    else /* structured outputs: the schema rides in output_format */
        schema = member(member(req, "output_format"), "schema");
    if (fixed)
        schema = fixed;
    value = make_value(g, cJSON_IsObject(schema) ? schema : NULL, invalid);
    out_text = value ? cJSON_PrintUnformatted(value) : NULL;
    if (!out_text) {
        cJSON_Delete(value);
        return NULL;
    }
    sim_hex_id(id, sizeof(id), "msg_sim", d);
    sim_hex_id(tool_id, sizeof(tool_id), "toolu_sim", d + 12);
    root = cJSON_CreateObject();
    ok = cJSON_AddStringToObject(root, "id", id) &&
         cJSON_AddStringToObject(root, "type", "message") &&
         cJSON_AddStringToObject(root, "role", "assistant") &&
         cJSON_AddStringToObject(root, "model", model_of(req));
    content = sim_attach(root, "content", cJSON_CreateArray());
    block = sim_attach(content, NULL, cJSON_CreateObject());
    ok = ok && block;
    if (ok && tool) {
        ok = cJSON_AddStringToObject(block, "type", "tool_use") &&
             cJSON_AddStringToObject(block, "id", tool_id) &&
             cJSON_AddStringToObject(block, "name",
                                     cJSON_IsString(name) ? name->valuestring : "tool");
        ok = sim_attach(block, "input", value) && ok;
        value = NULL; /* block owns it now, or attach freed it */
    } else if (ok) {
        ok = cJSON_AddStringToObject(block, "type", "text") &&
             cJSON_AddStringToObject(block, "text", out_text);
    }
    ok = ok && cJSON_AddStringToObject(root, "stop_reason", tool ? "tool_use" : "end_turn") &&
         cJSON_AddNullToObject(root, "stop_sequence");
    usage = sim_attach(root, "usage", cJSON_CreateObject());
    ok = ok && cJSON_AddNumberToObject(usage, "input_tokens", (double)(body_len / 4)) &&
         cJSON_AddNumberToObject(usage, "output_tokens", (double)(strlen(out_text) / 4));
    if (ok)
        text = cJSON_PrintUnformatted(root);
    cJSON_Delete(value);
    cJSON_Delete(root);
    free(out_text);
    return text;
}

/* --usage off: the reply without its "usage" member (frees text); NULL when out of memory. */
static char *without_usage(char *text)
{
    cJSON *root = cJSON_Parse(text);
    char *out = NULL;

    free(text);
    if (root) {
        cJSON_DeleteItemFromObjectCaseSensitive(root, "usage");
        out = cJSON_PrintUnformatted(root);
    }
    cJSON_Delete(root);
    return out;
}

char *sim_answer(const struct sim_config *cfg, enum sim_proto p, const cJSON *req,
                 const char *hashed, size_t len, bool invalid)
{
    unsigned char seed_d[SIM_DIGEST_LEN], bias_d[SIM_DIGEST_LEN];
    struct sim_gen g = {0};
    char *text;

    /* The reply and the bias draw ignore the attempt: a retry gets the reply the failed
     * attempt would have got. */
    if (!sim_draw(seed_d, hashed, len, cfg->seed, NULL, 0) ||
        !sim_draw(bias_d, hashed, len, cfg->seed, "prefer-a", 0))
        return NULL;
    sim_rng_seed(&g.rng, seed_d);
    g.force_a = cfg->prefer_a > 0 && sim_digest_unit(bias_d) < cfg->prefer_a;
    if (p == SIM_PROTO_OPENAI)
        text = openai_body(&g, req, cfg->reply_schema, len, invalid, seed_d);
    else
        text = anthropic_body(&g, req, cfg->reply_schema, len, invalid, seed_d);
    if (text && cfg->no_usage)
        text = without_usage(text);
    return text;
}
