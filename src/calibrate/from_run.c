/*
 * from_run.c - a run's stored verdicts as the verdicts a study measures
 * (calibrate --run, and calibrate --suite after its run): per labelled case,
 * the verdict the run's whole decision procedure stored (checks, judge and
 * policy), each judge order's own winner for the position figures, each
 * criterion's verdict from the rubric scores, and both outputs for the length
 * figures.  Nothing is asked of a judge.
 *
 * Numbering: systems[0] is output_1 and systems[1] output_2, whichever the
 * blinding showed as A.  order_12 is the order that showed output_1 first.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/calibrate.h"

struct fill {
    const char *const *systems;
    struct arb_calib_item *it;
    int found;
    enum arb_status rc;
    struct arb_err *err;
};

/* A system's name as a verdict: ARB_V_1, ARB_V_2, ARB_V_TIE, or ARB_V_NULL. */
static int side_of(const struct fill *f, const char *name)
{
    if (!name)
        return ARB_V_NULL;
    if (strcmp(name, f->systems[0]) == 0)
        return ARB_V_1;
    if (strcmp(name, f->systems[1]) == 0)
        return ARB_V_2;
    return strcmp(name, "TIE") == 0 ? ARB_V_TIE : ARB_V_NULL;
}

/* "A", "B", "TIE" of the pair (a is the system shown as A) as a verdict; null: ARB_V_NULL. */
static int pair_word(const struct fill *f, const cJSON *w, const char *a, const char *b)
{
    if (!cJSON_IsString(w))
        return ARB_V_NULL;
    if (strcmp(w->valuestring, "A") == 0)
        return side_of(f, a);
    if (strcmp(w->valuestring, "B") == 0)
        return side_of(f, b);
    return strcmp(w->valuestring, "TIE") == 0 ? ARB_V_TIE : ARB_V_NULL;
}

/* The criterion's score of one side in comparison.json's rubric, or NAN. */
static double crit_score(const cJSON *rubric, const char *side, const char *name)
{
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(rubric, side), *v;

    v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "content"), name);
    if (!v)
        v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "structure"),
                                             name);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Element k of order_winners as a verdict: ARB_V_ABSENT past its end (not asked). */
static int order_word(const struct fill *f, const cJSON *orders, int k,
                      const struct arb_verdict_row *v)
{
    const cJSON *w = cJSON_GetArrayItem(orders, k);

    return w ? pair_word(f, w, v->system_a, v->system_b) : ARB_V_ABSENT;
}

static void fill_orders(struct fill *f, const cJSON *cmp, const struct arb_verdict_row *v)
{
    const cJSON *judge = cJSON_GetObjectItemCaseSensitive(cmp, "judge");
    const cJSON *orders = cJSON_GetObjectItemCaseSensitive(judge, "order_winners");
    struct arb_calib_item *it = f->it;
    int a_first, b_first, a_is_1 = strcmp(v->system_a, f->systems[0]) == 0;

    it->order_12 = it->order_21 = ARB_V_ABSENT;
    if (!judge)
        return; /* decided by the checks: no judge order to measure */
    if (!cJSON_IsArray(orders)) {
        /* judge_failed (or a verdict stored before order_winners): asked, no verdict */
        it->order_12 = it->order_21 = ARB_V_NULL;
        return;
    }
    /* One element when the judge asked one order (swap off): the other was never asked. */
    a_first = order_word(f, orders, 0, v);
    b_first = order_word(f, orders, 1, v);
    it->order_12 = a_is_1 ? a_first : b_first;
    it->order_21 = a_is_1 ? b_first : a_first;
}

/* Present in the rubric of a side that has one (content or structure), scored or not. */
static int in_rubric(const cJSON *rubric, const char *name)
{
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(rubric, "A");

    if (!r)
        r = cJSON_GetObjectItemCaseSensitive(rubric, "B");

    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "content"), name) ||
           cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "structure"), name);
}

/*
 * Each labelled criterion: the side with the higher rubric score, equal scores a tie, an
 * unscored side null; a criterion the rubric lacks stays ARB_V_ABSENT (the caller says so).
 */
static void fill_criteria(struct fill *f, const cJSON *cmp, const struct arb_verdict_row *v)
{
    const cJSON *rubric = cJSON_GetObjectItemCaseSensitive(cmp, "rubric");
    struct arb_calib_item *it = f->it;

    for (size_t k = 0; k < it->n_crit; k++) {
        const char *name = it->crit[k].name;
        double a = crit_score(rubric, "A", name), b = crit_score(rubric, "B", name);

        if (!rubric)
            it->crit[k].verdict = ARB_V_NULL; /* neither output exists */
        else if (!in_rubric(rubric, name))
            it->crit[k].verdict = ARB_V_ABSENT;
        else if (!cJSON_GetObjectItemCaseSensitive(rubric, "A") ||
                 !cJSON_GetObjectItemCaseSensitive(rubric, "B"))
            it->crit[k].verdict = ARB_V_NULL; /* missing_output: no pair to compare */
        else if (isnan(a) || isnan(b))
            it->crit[k].verdict = ARB_V_NULL;
        else
            it->crit[k].verdict = a == b  ? ARB_V_TIE
                                  : a > b ? side_of(f, v->system_a)
                                          : side_of(f, v->system_b);
    }
}

static int on_verdict(void *ctx, const struct arb_verdict_row *v)
{
    struct fill *f = ctx;
    struct arb_calib_item *it = f->it;
    cJSON *cmp;

    /* The pair of the two labelled systems, in either blind order. */
    if (!((side_of(f, v->system_a) == ARB_V_1 && side_of(f, v->system_b) == ARB_V_2) ||
          (side_of(f, v->system_a) == ARB_V_2 && side_of(f, v->system_b) == ARB_V_1)))
        return 0;
    f->found = 1;
    it->has_final = 1;
    it->final = side_of(f, v->winner);
    cmp = v->comparison_json ? cJSON_Parse(v->comparison_json) : NULL;
    if (v->comparison_json && !cmp) {
        f->rc = arb_err_set(f->err, ARB_EPARSE,
                            "the stored comparison of case '%s' (%s vs %s) is not JSON", v->case_id,
                            v->system_a, v->system_b);
        return 1;
    }
    fill_orders(f, cmp, v);
    fill_criteria(f, cmp, v);
    cJSON_Delete(cmp);
    return 1;
}

static int on_output(void *ctx, const struct arb_output_row *o)
{
    struct fill *f = ctx;
    char **slot = strcmp(o->system, f->systems[0]) == 0   ? &f->it->output_1
                  : strcmp(o->system, f->systems[1]) == 0 ? &f->it->output_2
                                                          : NULL;

    if (!slot || *slot || o->binary || !o->content)
        return 0;
    *slot = malloc(o->len + 1);
    if (!*slot) {
        f->rc = ARB_ENOMEM;
        return 1;
    }
    memcpy(*slot, o->content, o->len);
    (*slot)[o->len] = '\0';
    return 0;
}

enum arb_status arb_calib_from_run(struct arb_store *st, int64_t run, const char *const systems[2],
                                   struct arb_calib_set *set, size_t *unmatched,
                                   struct arb_err *err)
{
    enum arb_status rc = ARB_OK;

    *unmatched = 0;
    for (size_t i = 0; !rc && i < set->n; i++) {
        struct arb_calib_item *it = &set->items[i];
        struct fill f = {systems, it, 0, ARB_OK, err};

        it->has_final = 0;
        it->final = ARB_V_NULL;
        it->order_12 = it->order_21 = ARB_V_ABSENT;
        for (size_t k = 0; k < it->n_crit; k++)
            it->crit[k].verdict = ARB_V_ABSENT;
        rc = arb_store_verdicts(st, run, it->id, on_verdict, &f, err);
        if (!rc)
            rc = f.rc;
        if (!rc && !f.found) {
            (*unmatched)++;
            continue;
        }
        /* The run's outputs, for the length figures (labels for a run carry none). */
        if (!rc && !it->output_1 && !it->output_2)
            rc = arb_store_compared_outputs(st, run, it->id, on_output, &f, err);
        if (!rc)
            rc = f.rc;
        it->recorded = 1;
    }
    if (rc == ARB_ENOMEM && !err->msg[0])
        arb_err_set(err, ARB_ENOMEM, "out of memory");
    return rc;
}
