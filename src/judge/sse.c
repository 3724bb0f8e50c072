/*
 * sse.c - a reply that came as a server-sent event stream although none was asked (some
 * gateways and local servers stream regardless), assembled into the one reply it stands for.
 *
 * Shapes: OpenAI "chat.completion.chunk" events (choices[0].delta.content / .refusal,
 * choices[0].finish_reason, a last chunk with usage), ended by "data: [DONE]" (the OpenAPI
 * description's CreateChatCompletionStreamResponse); Anthropic message_start (message.usage),
 * content_block_start (a text or tool_use block), content_block_delta (text_delta,
 * input_json_delta with partial_json), message_delta (delta.stop_reason, usage.output_tokens)
 * (Messages API reference, "Streaming messages").  Lines other than "data:" (event:, id:,
 * comments) are skipped; a data line that is not JSON ends nothing and is skipped.
 */
#include <stdlib.h>
#include <string.h>

#include "arbiter/buf.h"
#include "judge_int.h"

static const cJSON *get(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* Whether body is an event stream: its first line that is not blank starts a field. */
static int is_stream(const char *body)
{
    while (*body == ' ' || *body == '\n' || *body == '\r' || *body == '\t')
        body++;
    return strncmp(body, "data:", 5) == 0 || strncmp(body, "event:", 6) == 0 ||
           strncmp(body, ":", 1) == 0;
}

/* Replace o[k] by a copy of v (when v is not JSON null): 1, or 0 when out of memory. */
static int set(cJSON *o, const char *k, const cJSON *v)
{
    cJSON *copy;

    if (!v || cJSON_IsNull(v))
        return 1;
    copy = cJSON_Duplicate(v, 1);
    if (!copy)
        return 0;
    cJSON_DeleteItemFromObjectCaseSensitive(o, k);
    if (!cJSON_AddItemToObject(o, k, copy)) {
        cJSON_Delete(copy);
        return 0;
    }
    return 1;
}

/* State while assembling: texts grow in buffers, the rest in the reply document. */
struct asm_state {
    struct arb_buf content, refusal; /* OpenAI */
    struct arb_buf blocks[8];        /* Anthropic: text or partial tool input per index */
    int block_kind[8]; /* 0 text, 1 tool_use, 2 anything else (thinking...): left out */
    int n_blocks;
    cJSON *doc;
    int ok;
};

static void openai_event(struct asm_state *a, const cJSON *ev)
{
    const cJSON *choice = cJSON_GetArrayItem(get(ev, "choices"), 0), *delta = get(choice, "delta");
    const cJSON *c = get(delta, "content"), *r = get(delta, "refusal");

    if (cJSON_IsString(c) && arb_buf_adds(&a->content, c->valuestring))
        a->ok = 0;
    if (cJSON_IsString(r) && arb_buf_adds(&a->refusal, r->valuestring))
        a->ok = 0;
    if (!set(a->doc, "finish_reason", get(choice, "finish_reason")) ||
        !set(a->doc, "usage", get(ev, "usage")) || !set(a->doc, "model", get(ev, "model")))
        a->ok = 0;
}

static void anthropic_event(struct asm_state *a, const cJSON *ev)
{
    const cJSON *type = get(ev, "type"), *idx = get(ev, "index"), *d = get(ev, "delta");
    int i = cJSON_IsNumber(idx) ? (int)idx->valuedouble : -1;

    if (!cJSON_IsString(type))
        return;
    if (strcmp(type->valuestring, "message_start") == 0) {
        a->ok = a->ok && set(a->doc, "usage", get(get(ev, "message"), "usage"));
    } else if (strcmp(type->valuestring, "content_block_start") == 0 && i >= 0 && i < 8) {
        const cJSON *b = get(ev, "content_block"), *t = get(b, "text");
        const char *kind = cJSON_IsString(get(b, "type")) ? get(b, "type")->valuestring : "";

        a->block_kind[i] = strcmp(kind, "text") == 0 ? 0 : strcmp(kind, "tool_use") == 0 ? 1 : 2;
        if (a->n_blocks <= i)
            a->n_blocks = i + 1;
        if (cJSON_IsString(t) && arb_buf_adds(&a->blocks[i], t->valuestring))
            a->ok = 0;
    } else if (strcmp(type->valuestring, "content_block_delta") == 0 && i >= 0 &&
               i < a->n_blocks) {
        const cJSON *t = get(d, "text"), *pj = get(d, "partial_json");

        if (cJSON_IsString(t) && arb_buf_adds(&a->blocks[i], t->valuestring))
            a->ok = 0;
        if (cJSON_IsString(pj) && arb_buf_adds(&a->blocks[i], pj->valuestring))
            a->ok = 0;
    } else if (strcmp(type->valuestring, "message_delta") == 0) {
        const cJSON *u = get(ev, "usage"), *out = get(u, "output_tokens");
        cJSON *usage = cJSON_GetObjectItemCaseSensitive(a->doc, "usage");

        a->ok = a->ok && set(a->doc, "stop_reason", get(d, "stop_reason"));
        if (a->ok && usage && cJSON_IsNumber(out))
            a->ok = set(usage, "output_tokens", out);
        else if (a->ok && !usage)
            a->ok = set(a->doc, "usage", u);
    }
}

/* The document a non-streamed reply would have been, from what the events carried. */
static int finish(const struct arb_judge_config *cfg, struct asm_state *a)
{
    int i;

    if (cfg->provider == ARB_JUDGE_ANTHROPIC) {
        cJSON *content = cJSON_AddArrayToObject(a->doc, "content");

        for (i = 0; content && i < a->n_blocks; i++) {
            cJSON *b;
            const char *text = a->blocks[i].ptr ? a->blocks[i].ptr : "";

            if (a->block_kind[i] == 2)
                continue; /* reasoning (thinking, redacted_thinking) is never the answer */
            b = cJSON_CreateObject();
            if (!b || !cJSON_AddItemToArray(content, b)) {
                cJSON_Delete(b);
                return 0;
            }
            if (a->block_kind[i] == 1) {
                cJSON *input = cJSON_Parse(text[0] ? text : "{}");

                if (!cJSON_AddStringToObject(b, "type", "tool_use") ||
                    !cJSON_AddItemToObject(b, "input", input ? input : cJSON_CreateNull()))
                    return 0;
            } else if (!cJSON_AddStringToObject(b, "type", "text") ||
                       !cJSON_AddStringToObject(b, "text", text)) {
                return 0;
            }
        }
        return content != NULL;
    }
    {
        cJSON *choices = cJSON_AddArrayToObject(a->doc, "choices"), *c = cJSON_CreateObject();
        cJSON *msg, *fin = cJSON_DetachItemFromObjectCaseSensitive(a->doc, "finish_reason");

        if (!choices || !c || !cJSON_AddItemToArray(choices, c)) {
            cJSON_Delete(c);
            cJSON_Delete(fin);
            return 0;
        }
        if (fin && !cJSON_AddItemToObject(c, "finish_reason", fin)) {
            cJSON_Delete(fin);
            return 0;
        }
        return (msg = cJSON_AddObjectToObject(c, "message")) &&
               cJSON_AddStringToObject(msg, "role", "assistant") &&
               (a->content.len ? cJSON_AddStringToObject(msg, "content", a->content.ptr) != NULL
                               : cJSON_AddNullToObject(msg, "content") != NULL) &&
               (!a->refusal.len || cJSON_AddStringToObject(msg, "refusal", a->refusal.ptr));
    }
}

cJSON *judge_sse_assemble(const struct arb_judge_config *cfg, const char *body)
{
    struct asm_state a;
    const char *p = body;
    int i, events = 0;

    if (!body || !is_stream(body))
        return NULL;
    memset(&a, 0, sizeof(a));
    arb_buf_init(&a.content, 0);
    arb_buf_init(&a.refusal, 0);
    for (i = 0; i < 8; i++)
        arb_buf_init(&a.blocks[i], 0);
    a.doc = cJSON_CreateObject();
    a.ok = a.doc != NULL;
    while (a.ok && *p) {
        const char *end = strchr(p, '\n'), *data;
        size_t n = end ? (size_t)(end - p) : strlen(p);

        if (n > 5 && strncmp(p, "data:", 5) == 0) {
            char *line = malloc(n - 4);
            cJSON *ev;

            if (!line) {
                a.ok = 0;
                break;
            }
            data = p + 5;
            memcpy(line, data, n - 5);
            line[n - 5] = '\0';
            ev = cJSON_Parse(line);
            free(line);
            if (cJSON_IsObject(ev)) {
                events++;
                if (cfg->provider == ARB_JUDGE_ANTHROPIC)
                    anthropic_event(&a, ev);
                else
                    openai_event(&a, ev);
            }
            cJSON_Delete(ev);
        }
        p = end ? end + 1 : p + n;
    }
    a.ok = a.ok && events > 0 && finish(cfg, &a);
    arb_buf_release(&a.content);
    arb_buf_release(&a.refusal);
    for (i = 0; i < 8; i++)
        arb_buf_release(&a.blocks[i]);
    if (!a.ok) {
        cJSON_Delete(a.doc);
        return NULL;
    }
    return a.doc;
}
