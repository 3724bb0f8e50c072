/*
 * single.c - the single-output question: does one output meet each of its
 * expectations?  What sets it apart from the pairwise question: the items
 * text of prompts/expectation.md, the reply schema ({"reasoning",
 * "expectations": {id: {"pass": bool}}}), and how the samples' answers
 * combine (one order, no swap, majority of samples).  Rendering, fences,
 * requests, the cache and retries are the pairwise question's (request.c,
 * judge.c).
 */
#include <string.h>

#include "judge_int.h"

enum arb_status judge_single_items(const struct arb_judge_question *q, struct arb_buf *out)
{
    enum arb_status st = arb_buf_adds(out, "Expectations (pass: true or false):\n");

    for (size_t i = 0; !st && i < q->n_items; i++)
        if (q->items[i].kind == ARB_ITEM_EXPECTATION)
            st = arb_buf_printf(out, "- %s: %s\n", q->items[i].name,
                                q->items[i].text ? q->items[i].text : "");
    return st;
}

/* Adds item to obj under key, or frees it: 1 on success. */
static int add_owned(cJSON *obj, const char *key, cJSON *item)
{
    if (item && cJSON_AddItemToObject(obj, key, item))
        return 1;
    cJSON_Delete(item);
    return 0;
}

/* {"type":"object","properties":{"pass":{"type":"boolean"}},"required":["pass"],...} */
static cJSON *pass_schema(void)
{
    static const char *const required[] = {"pass"};
    cJSON *o = cJSON_CreateObject();
    int ok = cJSON_AddStringToObject(o, "type", "object") != NULL;
    cJSON *props = cJSON_AddObjectToObject(o, "properties");
    cJSON *p = cJSON_AddObjectToObject(props, "pass");

    ok = ok && p && cJSON_AddStringToObject(p, "type", "boolean") &&
         add_owned(o, "required", cJSON_CreateStringArray(required, 1)) &&
         cJSON_AddFalseToObject(o, "additionalProperties");

    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The expectations member: every expectation id required, nothing else. */
static cJSON *expectations_schema(const struct arb_judge_question *q)
{
    cJSON *o = cJSON_CreateObject();
    int ok = cJSON_AddStringToObject(o, "type", "object") != NULL;
    cJSON *props = cJSON_AddObjectToObject(o, "properties");
    cJSON *req = cJSON_AddArrayToObject(o, "required");

    ok = ok && props && req;
    for (size_t i = 0; ok && i < q->n_items; i++) {
        cJSON *name;

        if (q->items[i].kind != ARB_ITEM_EXPECTATION)
            continue;
        name = cJSON_CreateString(q->items[i].name);
        ok = add_owned(props, q->items[i].name, pass_schema()) && name &&
             cJSON_AddItemToArray(req, name);
        if (!ok)
            cJSON_Delete(name);
    }
    if (!ok || !cJSON_AddFalseToObject(o, "additionalProperties")) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

cJSON *judge_single_schema(const struct arb_judge_question *q)
{
    static const char *const required[] = {"reasoning", "expectations"};
    cJSON *o = cJSON_CreateObject();
    int ok = cJSON_AddStringToObject(o, "type", "object") != NULL;
    cJSON *props = cJSON_AddObjectToObject(o, "properties");
    cJSON *r = cJSON_AddObjectToObject(props, "reasoning");

    ok = ok && r && cJSON_AddStringToObject(r, "type", "string") &&
         add_owned(props, "expectations", expectations_schema(q)) &&
         add_owned(o, "required", cJSON_CreateStringArray(required, 2)) &&
         cJSON_AddFalseToObject(o, "additionalProperties");
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

void judge_single_combine(const struct arb_judge_question *q, cJSON *const *slots, int samples,
                          struct arb_judge_answer *a)
{
    long agree = 0, votes = 0;
    const cJSON *r;

    if (q->template_text) {
        judge_template_combine(q, slots, samples, a);
        return;
    }
    for (size_t i = 0; i < q->n_items; i++) {
        int yes = 0;

        if (q->items[i].kind != ARB_ITEM_EXPECTATION)
            continue;
        for (int k = 0; k < samples; k++) {
            const cJSON *ex = cJSON_GetObjectItemCaseSensitive(slots[k], "expectations");

            yes += cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(ex, q->items[i].name), "pass"));
        }
        /* The same rule as one order of a pairwise question: a tie of votes fails. */
        a->pass_a[i] = 2 * yes > samples;
        agree += a->pass_a[i] ? yes : samples - yes;
        votes += samples;
    }
    a->sample_agreement = votes ? (double)agree / (double)votes : 1.0;
    r = cJSON_GetObjectItemCaseSensitive(slots[0], "reasoning");
    a->reasoning = cJSON_IsString(r) ? r->valuestring : NULL;
}
