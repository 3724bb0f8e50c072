/*
 * template.c - the llm_judge question: a single-output question whose prompt
 * is the user's template (judge.h, arb_judge_question.template_text) instead
 * of prompts/expectation.md.  What sets it apart: the prompt ({output} is the
 * output between fence lines, {expected_output} the case's expected text,
 * filled by template.h's rules), the reply schema ({"reasoning": string,
 * result_key: boolean or number}, reasoning first), and how samples combine
 * (a boolean by majority, a tie failing; a number by mean).  Fences, the
 * request, the cache and retries are the single-output question's.
 */
#include <math.h>

#include "arbiter/template.h"
#include "judge_int.h"

enum arb_status judge_template_render(const struct arb_judge_question *q, const char *fence,
                                      struct arb_buf *out)
{
    static const char *const names[] = {"output", "expected_output"};
    struct arb_buf fenced;
    const char *values[2];
    enum arb_status st;

    /* The output is data: between fence lines that carry the request's random code, as in
     * every other question, wherever the template puts it. */
    arb_buf_init(&fenced, 0);
    st = arb_buf_printf(&fenced, "<<<BEGIN RESPONSE %s>>>\n%s\n<<<END RESPONSE %s>>>", fence,
                        q->output_a ? q->output_a : "", fence);
    values[0] = fenced.ptr;
    values[1] = q->expected ? q->expected : "";
    if (!st)
        st = arb_template_fill(q->template_text, names, values, 2, out, NULL);
    arb_buf_release(&fenced);
    return st;
}

cJSON *judge_template_schema(const struct arb_judge_question *q)
{
    const char *required[2] = {"reasoning", q->result_key};
    cJSON *o = cJSON_CreateObject();
    int ok = cJSON_AddStringToObject(o, "type", "object") != NULL;
    cJSON *props = cJSON_AddObjectToObject(o, "properties");
    cJSON *r = cJSON_AddObjectToObject(props, "reasoning");
    cJSON *k = cJSON_AddObjectToObject(props, q->result_key);
    cJSON *req = cJSON_CreateStringArray(required, 2);

    /* reasoning first, then the result: the judge explains before it decides */
    ok = ok && r && k && cJSON_AddStringToObject(r, "type", "string") &&
         cJSON_AddStringToObject(k, "type", q->result_bool ? "boolean" : "number");
    /* a score is held against a threshold in (0, 1]: the reply says where in 0..1 it lies */
    ok = ok && (q->result_bool || (cJSON_AddNumberToObject(k, "minimum", 0) &&
                                   cJSON_AddNumberToObject(k, "maximum", 1)));
    if (ok && req && cJSON_AddItemToObject(o, "required", req))
        req = NULL;
    else
        ok = 0;
    cJSON_Delete(req);
    ok = ok && cJSON_AddFalseToObject(o, "additionalProperties");
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

void judge_template_combine(const struct arb_judge_question *q, cJSON *const *slots, int samples,
                            struct arb_judge_answer *a)
{
    const cJSON *r;
    double sum = 0;
    int yes = 0, k;

    for (k = 0; k < samples; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(slots[k], q->result_key);

        yes += cJSON_IsTrue(v);
        sum += cJSON_IsNumber(v) ? v->valuedouble : NAN;
    }
    if (q->result_bool) {
        /* A tie of votes fails, as for every single-output question. */
        a->pass_a[0] = 2 * yes > samples;
        a->sample_agreement = (double)(a->pass_a[0] ? yes : samples - yes) / (double)samples;
    } else {
        a->score_a[0] = sum / (double)samples;
        a->sample_agreement = 1.0;
    }
    r = cJSON_GetObjectItemCaseSensitive(slots[0], "reasoning");
    a->reasoning = cJSON_IsString(r) ? r->valuestring : NULL;
}
