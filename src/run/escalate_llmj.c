/*
 * escalate_llmj.c - sending a pair's llm_judge checks to the judge.
 *
 * An llm_judge check (compare.h) is unresolved when it runs; the run keeps,
 * per side, what it would ask (llmj_keep: the output after extract, the text
 * of the expected value, the record as stored).  When the pair is escalated,
 * each such check becomes one single-output question of its own (judge.h's
 * template_text), asked before the pair's question so that the judge answers
 * it first (arb_judge_drain answers questions in the order asked): its answer
 * sets the item's verdict on that side and replaces the check's record, and
 * then the pairwise answer (escalate.c) decides the pair with it.  A failed
 * call or a reply whose result cannot be read fails the check under
 * on_error "fail" (the error is a note) and leaves it unresolved under
 * "unresolved", which makes the pair judge_failed with that error.
 *
 * Its judgment slot is (case, the system, "llm_judge:KIND:ITEM", "AB", ...):
 * one slot per check and system, so a replay or a resume finds each reply.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/blind.h"
#include "arbiter/judge.h"
#include "arbiter/json.h"
#include "arbiter/store.h"
#include "run_int.h"

/* One question in flight: everything it borrows until answered. */
struct llmj_q {
    struct llmj_asked *owner;
    struct side *side; /* the pair's copy whose item the answer sets */
    const struct arb_check *check;
    int criterion;
    size_t index;
    const char *system;
    char *item;   /* "llm_judge:KIND:ITEM": the judgment slot's system_b */
    char *name;   /* the item's own name (the check record's item) */
    char *output; /* redacted */
    char *expected;
    char *tmpl;
    char *record;
    struct arb_judge_item ji;
};

struct llmj_asked {
    struct llmj_env *env;
    const struct items *it;
    struct llmj_q *q;
    size_t n, cap;
    char error[600]; /* an on_error "unresolved" failure: the pair is judge_failed */
};

int llmj_is(const struct arb_check *c)
{
    return c && arb_check_llm_judge(c) != NULL;
}

static void ask_release(struct llmj_ask *a)
{
    free(a->item);
    free(a->output);
    free(a->expected);
    free(a->record);
}

void llmj_list_clear(struct llmj_list *l)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        ask_release(&l->v[i]);
    l->n = 0;
}

void llmj_list_release(struct llmj_list *l)
{
    llmj_list_clear(l);
    free(l->v);
    memset(l, 0, sizeof(*l));
}

enum arb_status llmj_keep(struct llmj_list *l, const struct arb_check *c, int criterion,
                          size_t index, const char *item, const struct arb_result *res,
                          const char *record)
{
    struct llmj_ask *a;
    struct arb_buf ex;
    enum arb_status st;

    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 4;
        struct llmj_ask *v = realloc(l->v, cap * sizeof(*v));

        if (!v)
            return ARB_ENOMEM;
        l->v = v;
        l->cap = cap;
    }
    a = &l->v[l->n];
    memset(a, 0, sizeof(*a));
    a->check = c;
    a->criterion = criterion;
    a->index = index;
    arb_buf_init(&ex, 0);
    st = arb_llm_judge_expected(res->expected, &ex);
    a->expected = st ? NULL : arb_buf_detach(&ex, NULL);
    arb_buf_release(&ex);
    a->item = strdup(item);
    a->output = arb_memdup0(res->observed ? res->observed : "", res->observed_len);
    a->record = strdup(record);
    if (!a->expected || !a->item || !a->output || !a->record) {
        ask_release(a);
        return st ? st : ARB_ENOMEM;
    }
    l->n++;
    return ARB_OK;
}

void llmj_asked_free(struct llmj_asked *lj)
{
    size_t i;

    if (!lj)
        return;
    for (i = 0; i < lj->n; i++) {
        struct llmj_q *q = &lj->q[i];

        free(q->item);
        free(q->name);
        free(q->output);
        free(q->expected);
        free(q->tmpl);
        free(q->record);
    }
    free(lj->q);
    free(lj);
}

const char *llmj_error(const struct llmj_asked *lj)
{
    return lj && lj->error[0] ? lj->error : NULL;
}

static char *redact(const struct llmj_env *env, const char *text)
{
    struct arb_buf b;

    arb_buf_init(&b, 0);
    if (arb_redact(text, strlen(text), env->redact, env->n_redact, &b, NULL) ||
        arb_buf_add(&b, "", 0)) {
        arb_buf_release(&b);
        return NULL;
    }
    return arb_buf_detach(&b, NULL);
}

/*
 * The record as the judge left it: score and verdict, a note saying what decided (or the
 * error), and details.judge: {"result", "reasoning"} or {"error"}.  *text caller frees.
 */
static enum arb_status judged_record(const struct llmj_q *q, const char *verdict, double score,
                                     const cJSON *result, const char *reasoning, const char *error,
                                     char **text)
{
    cJSON *r = cJSON_Parse(q->record), *notes, *details, *j, *old;
    char note[700];
    int ok = r != NULL;

    *text = NULL;
    notes = ok ? cJSON_GetObjectItemCaseSensitive(r, "notes") : NULL;
    ok = ok && cJSON_IsArray(notes);
    if (error)
        snprintf(note, sizeof(note), "judge_error: %s", error);
    else if (cJSON_IsBool(result))
        snprintf(note, sizeof(note), "judged: the judge answered %s = %s", q->ji.name,
                 cJSON_IsTrue(result) ? "true" : "false");
    else
        snprintf(note, sizeof(note), "judged: the judge answered %s = %g", q->ji.name,
                 result->valuedouble);
    ok = ok && cJSON_AddItemToArray(notes, cJSON_CreateString(note));
    ok = ok && cJSON_ReplaceItemInObjectCaseSensitive(
                   r, "score", isnan(score) ? cJSON_CreateNull() : cJSON_CreateNumber(score));
    ok = ok && cJSON_ReplaceItemInObjectCaseSensitive(r, "verdict", cJSON_CreateString(verdict));
    /* details.judge: the record's schema keeps operator-specific members under details */
    details = ok ? cJSON_GetObjectItemCaseSensitive(r, "details") : NULL;
    if (ok && !details)
        details = cJSON_AddObjectToObject(r, "details");
    old = details ? cJSON_DetachItemFromObjectCaseSensitive(details, "judge") : NULL;
    cJSON_Delete(old);
    j = details ? cJSON_AddObjectToObject(details, "judge") : NULL;
    ok = j != NULL;
    if (ok && error)
        ok = cJSON_AddStringToObject(j, "error", error) != NULL;
    else if (ok)
        ok = cJSON_AddItemToObject(j, "result", cJSON_Duplicate(result, 1)) &&
             (reasoning ? cJSON_AddStringToObject(j, "reasoning", reasoning)
                        : cJSON_AddNullToObject(j, "reasoning")) != NULL;
    if (ok)
        *text = cJSON_PrintUnformatted(r);
    cJSON_Delete(r);
    return *text ? ARB_OK : ARB_ENOMEM;
}

/* Store the judged record in its own transaction (none is open during a drain). */
static enum arb_status store_record(const struct llmj_q *q, const char *verdict, double score,
                                    const char *text)
{
    struct llmj_env *env = q->owner->env;
    struct arb_check_row row = {q->owner->it->kase->id,
                                q->system,
                                q->criterion ? "criterion" : "expectation",
                                q->name,
                                text,
                                verdict,
                                score,
                                0,
                                0}; /* the judged record is kept whole */
    enum arb_status st = arb_store_begin(env->st, env->err);

    if (!st)
        st = arb_store_set_check(env->st, env->run, &row, env->err);
    if (!st)
        st = arb_store_commit(env->st, env->err);
    else
        arb_store_rollback(env->st);
    return st;
}

/* What the answer says: *score (NAN when it cannot be read), or an error. */
static const char *read_answer(const struct llmj_q *q, const struct arb_judge_answer *ans,
                               double *score, char *buf, size_t len)
{
    const struct arb_llm_judge *lj = arb_check_llm_judge(q->check);

    *score = NAN;
    if (ans->failed)
        return ans->error ? ans->error : "the judge gave no valid reply";
    if (lj->result_bool) {
        if (ans->pass_a[0] < 0)
            return "the reply has no boolean result";
        *score = ans->pass_a[0] ? 1.0 : 0.0;
        return NULL;
    }
    if (!(ans->score_a[0] >= 0.0 && ans->score_a[0] <= 1.0)) {
        snprintf(buf, len, "the reply's %s is %g: a score must be from 0 to 1", lj->result_key,
                 ans->score_a[0]);
        return buf;
    }
    *score = ans->score_a[0];
    return NULL;
}

static void on_answer(void *ctx, const struct arb_judge_question *jq,
                      const struct arb_judge_answer *ans)
{
    struct llmj_q *q = ctx;
    struct llmj_asked *owner = q->owner;
    const struct arb_llm_judge *lj = arb_check_llm_judge(q->check);
    char buf[200], *text = NULL;
    const char *error;
    double score, shown = 0.0;
    enum arb_verdict v = ARB_UNRESOLVED;
    cJSON *result = NULL;
    enum arb_status st;

    (void)jq;
    if (ans->held)
        return; /* not asked for want of budget: the pair stays pending_judge */
    error = read_answer(q, ans, &score, buf, sizeof(buf));
    if (error && lj->on_error_fail) {
        v = ARB_FAIL;
        shown = 0.0;
    } else if (error) {
        if (!owner->error[0]) /* the first one names the pair's failure */
            snprintf(owner->error, sizeof(owner->error), "llm_judge %s '%s' of %s: %s",
                     q->criterion ? "criterion" : "expectation", q->name, q->system, error);
    } else {
        v = arb_check_judged(q->check, score, &shown);
        result = lj->result_bool ? cJSON_CreateBool(score > 0.5) : cJSON_CreateNumber(score);
    }
    /* As run.c scores a criterion's check: 5 on pass, 1 on fail, 1 + 4 * score when graded. */
    if (q->criterion)
        q->side->crit[q->index] = v == ARB_UNRESOLVED                           ? NAN
                                  : owner->it->suite->criteria[q->index].graded ? 1.0 + 4.0 * shown
                                  : v == ARB_PASS                               ? 5.0
                                                                                : 1.0;
    else
        q->side->exp[q->index] = v;
    st = error || result
             ? judged_record(q, arb_verdict_name(v), shown, result, ans->reasoning, error, &text)
             : ARB_ENOMEM;
    if (!st)
        st = store_record(q, arb_verdict_name(v), shown, text);
    if (st && !owner->env->st_cb)
        owner->env->st_cb = st;
    cJSON_free(text);
    cJSON_Delete(result);
}

/* Copy the redacted texts of one kept check into a question. */
static enum arb_status fill(struct llmj_env *env, struct llmj_q *q, const struct llmj_ask *a,
                            const char *system, struct side *side)
{
    const struct arb_llm_judge *lj = arb_check_llm_judge(a->check);
    const char *kind = a->criterion ? "criterion" : "expectation";
    size_t n = strlen(kind) + strlen(a->item) + 16;

    memset(q, 0, sizeof(*q));
    q->side = side;
    q->check = a->check;
    q->criterion = a->criterion;
    q->index = a->index;
    q->system = system;
    q->item = malloc(n);
    if (q->item)
        snprintf(q->item, n, "llm_judge:%s:%s", kind, a->item);
    q->name = strdup(a->item);
    q->output = redact(env, a->output);
    q->expected = redact(env, a->expected);
    q->tmpl = redact(env, lj->template_text);
    q->record = strdup(a->record);
    q->ji.kind = ARB_ITEM_EXPECTATION;
    q->ji.name = lj->result_key;
    return q->item && q->name && q->output && q->expected && q->tmpl && q->record ? ARB_OK
                                                                                  : ARB_ENOMEM;
}

static enum arb_status ask_one(struct llmj_asked *lj, struct llmj_q *q, struct arb_err *err)
{
    const struct arb_llm_judge *c = arb_check_llm_judge(q->check);
    struct arb_judge_question jq;

    memset(&jq, 0, sizeof(jq));
    jq.case_id = lj->it->kase->id;
    jq.system_a = q->system;
    jq.system_b = q->item;
    jq.output_a = q->output;
    jq.items = &q->ji;
    jq.n_items = 1;
    jq.seed = lj->it->suite->seed;
    jq.template_text = q->tmpl;
    jq.expected = q->expected;
    jq.result_key = c->result_key;
    jq.result_bool = c->result_bool;
    return arb_judge_ask(lj->env->judge, &jq, on_answer, q, err);
}

enum arb_status llmj_ask(struct llmj_env *env, const struct items *it, struct side *a,
                         struct side *b, const struct side *src_a, const struct side *src_b,
                         struct llmj_asked **out, struct arb_err *err)
{
    const struct side *src[2] = {src_a, src_b};
    struct side *dst[2] = {a, b};
    struct llmj_asked *lj;
    size_t n = src_a->llmj.n + src_b->llmj.n, i, k;
    enum arb_status st = ARB_OK;

    *out = NULL;
    if (!n)
        return ARB_OK;
    lj = calloc(1, sizeof(*lj));
    if (!lj)
        return ARB_ENOMEM;
    lj->env = env;
    lj->it = it;
    /* Every question is in place before the first is asked: the judge keeps pointers in. */
    lj->q = calloc(n, sizeof(*lj->q));
    if (!lj->q) {
        free(lj);
        return ARB_ENOMEM;
    }
    for (k = 0; !st && k < 2; k++)
        for (i = 0; !st && i < src[k]->llmj.n; i++) {
            st = fill(env, &lj->q[lj->n], &src[k]->llmj.v[i], src[k]->system, dst[k]);
            lj->q[lj->n++].owner = lj;
        }
    /* The judge may hold some of them even when asking fails: the caller frees lj with the
     * pair's escalation, after the judge. */
    for (i = 0; !st && i < lj->n; i++)
        st = ask_one(lj, &lj->q[i], err);
    *out = lj;
    return st;
}
