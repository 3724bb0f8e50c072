/*
 * ops_llm_judge.c - the llm_judge operator (seeds/evaluator-factories.txt,
 * make_llm_judge_evaluator): a check that only a judge can decide.
 *
 * Compiling reads and validates its question: template (must hold {output};
 * {expected_output} is optional), result_key (default "score"), result_type
 * ("bool", the default, or "score": a number from 0 to 1 held against the
 * threshold) and on_error ("unresolved", the default, or "fail").  Running it
 * decides nothing: the record is unresolved with the note needs_judge, and a
 * run sends it to the judge (src/run/escalate_llmj.c), which asks the filled
 * template and reads result_key from the reply.  This file leaves the asking
 * to the judge and the filling to template.h; it holds the rules both ends
 * share: what {expected_output} reads and how a judged result becomes a
 * verdict.
 */
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "arbiter/template.h"
#include "ops.h"

#define NEEDS_JUDGE_NOTE                                                                           \
    "needs_judge: an llm_judge check is decided by the judge (a run with a judge asks it; "        \
    "without one the check stays unresolved)"

static const char *const placeholders[] = {"output", "expected_output"};

void op_llm_judge_free(void *priv)
{
    struct arb_llm_judge *q = priv;

    if (!q)
        return;
    free((char *)q->template_text);
    free((char *)q->result_key);
    free(q);
}

/* result_key: a non-empty name; the reply's other member is "reasoning". */
static enum arb_status read_key(const cJSON *cfg, const char *path, struct arb_llm_judge *q,
                                struct arb_err *err)
{
    const char *key = "score";
    enum arb_status st = param_string(cfg, "result_key", path, &key, err);

    if (st)
        return st;
    if (!key[0] || strcmp(key, "reasoning") == 0)
        return arb_err_set(err, ARB_ESCHEMA,
                           "%s/result_key: expected a non-empty member name other than "
                           "'reasoning' (the reply's reasoning comes first under that name)",
                           path);
    q->result_key = strdup(key);
    return q->result_key ? ARB_OK : ARB_ENOMEM;
}

/* result_type and on_error: one word of two each. */
static enum arb_status read_words(const cJSON *cfg, const char *path, struct arb_llm_judge *q,
                                  struct arb_err *err)
{
    const char *type = "bool", *on_error = "unresolved";
    enum arb_status st = param_string(cfg, "result_type", path, &type, err);

    if (!st)
        st = param_string(cfg, "on_error", path, &on_error, err);
    if (st)
        return st;
    if (strcmp(type, "bool") && strcmp(type, "score"))
        return arb_err_set(err, ARB_ESCHEMA,
                           "%s/result_type: expected \"bool\" (true passes) or \"score\" (a "
                           "number from 0 to 1 held against the threshold), got '%.60s'",
                           path, type);
    if (strcmp(on_error, "unresolved") && strcmp(on_error, "fail"))
        return arb_err_set(err, ARB_ESCHEMA,
                           "%s/on_error: expected \"unresolved\" (the default) or \"fail\", got "
                           "'%.60s'",
                           path, on_error);
    q->result_bool = strcmp(type, "bool") == 0;
    q->on_error_fail = strcmp(on_error, "fail") == 0;
    return ARB_OK;
}

OP_COMPILE(op_llm_judge_compile)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(cfg, "template");
    struct arb_llm_judge *q;
    unsigned found = 0;
    enum arb_status st;

    /* Only a whole check is compiled at "" (arb_check_compile); an aggregate's children and a
     * fields map's leaves are compiled at their own paths.  The judge answers one question
     * per item, so an llm_judge must be the item's whole check, never a part of one. */
    if (path[0])
        return arb_err_set(err, ARB_ESCHEMA,
                           "%s/op: 'llm_judge' must be the whole check of an expectation or "
                           "criterion, not inside an aggregate or a fields map",
                           path);
    /* The judge's answer is final: nothing is left to escalate a grey band to. */
    if (cJSON_GetObjectItemCaseSensitive(cfg, "fail_below"))
        return arb_err_set(err, ARB_ESCHEMA,
                           "/fail_below: an llm_judge score is the judge's final answer, so there "
                           "is no grey band to send further; the threshold alone decides (a "
                           "score below it fails)");
    if (!t)
        return arb_err_set(err, ARB_ESCHEMA,
                           "/: missing 'template' (the prompt the judge is asked, with {output} "
                           "and optionally {expected_output})");
    if (!cJSON_IsString(t))
        return arb_err_set(err, ARB_ESCHEMA, "%s/template: expected a string", path);
    st = arb_template_fill(t->valuestring, placeholders, NULL, 2, NULL, &found);
    if (st)
        return st;
    if (!(found & 1u))
        return arb_err_set(err, ARB_ESCHEMA,
                           "%s/template: expected the placeholder {output} (where the output "
                           "goes; {expected_output} is the case's expected value)",
                           path);
    q = calloc(1, sizeof(*q));
    if (!q)
        return ARB_ENOMEM;
    c->priv = q;
    q->template_text = strdup(t->valuestring);
    if (!q->template_text)
        return ARB_ENOMEM;
    st = read_key(cfg, path, q, err);
    if (!st)
        st = read_words(cfg, path, q, err);
    return st;
}

OP_RUN(op_llm_judge_run)
{
    (void)c;
    (void)in;
    res->score = 0.0;
    res->verdict = ARB_UNRESOLVED;
    return result_note(res, NEEDS_JUDGE_NOTE);
}

const struct arb_llm_judge *arb_check_llm_judge(const struct arb_check *c)
{
    return strcmp(c->op->name, "llm_judge") == 0 ? c->priv : NULL;
}

enum arb_status arb_llm_judge_expected(const cJSON *e, struct arb_buf *out)
{
    /* evalwire: expected_items[0] if expected_items else "" */
    if (cJSON_IsArray(e))
        e = cJSON_GetArrayItem(e, 0);
    if (!e)
        return arb_buf_add(out, "", 0);
    if (cJSON_IsString(e))
        return arb_buf_add(out, e->valuestring, strlen(e->valuestring));
    return arb_jcs_write(e, out, NULL);
}

enum arb_verdict arb_check_judged(const struct arb_check *c, double score, double *reported)
{
    enum arb_verdict v = verdict_of(score, c->threshold, c->fail_below, c->has_fail_below);

    *reported = score;
    if (!c->negate || v == ARB_UNRESOLVED)
        return v;
    *reported = 1.0 - score;
    return v == ARB_PASS ? ARB_FAIL : ARB_PASS;
}
