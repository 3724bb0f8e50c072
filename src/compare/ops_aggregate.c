/*
 * ops_aggregate.c - all, any, k_of_n and weighted_mean over child checks.
 *
 * Every child runs on the same observed text (and the same case expected);
 * the record keeps the children's records.  Scores: all = fraction passed,
 * any = 1 if any passed, k_of_n = passed / n with threshold k / n,
 * weighted_mean = weighted mean of the children's scores (weights default 1).
 *
 * An aggregate is resolved when its verdict would be the same whichever way
 * its unresolved children went: the verdict is computed once with every
 * unresolved child failing (score 0 for weighted_mean) and once with every
 * one passing (score 1); equal verdicts decide, different ones leave the
 * aggregate unresolved.  The reported score counts unresolved children as not
 * passed (weighted_mean reports their actual scores).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"

OP_COMPILE(op_agg_compile)
{
    const cJSON *checks = cJSON_GetObjectItemCaseSensitive(cfg, "checks");
    const cJSON *ch;
    size_t n, i = 0;
    char sub[512];
    enum arb_status st;

    if (!cJSON_IsArray(checks) || cJSON_GetArraySize(checks) == 0)
        return arb_err_set(err, ARB_ESCHEMA, "%s/checks: expected a non-empty array of checks",
                           path);
    n = (size_t)cJSON_GetArraySize(checks);
    c->children = calloc(n, sizeof(*c->children));
    c->weights = calloc(n, sizeof(*c->weights));
    if (!c->children || !c->weights)
        return ARB_ENOMEM;
    cJSON_ArrayForEach(ch, checks)
    {
        cJSON *copy;
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(ch, "weight");

        snprintf(sub, sizeof(sub), "%s/checks/%zu", path, i);
        c->weights[i] = 1.0;
        if (w) {
            if (strcmp(c->op->name, "weighted_mean") != 0)
                return arb_err_set(err, ARB_ESCHEMA,
                                   "%s/weight: weights are for 'weighted_mean' only", sub);
            if (!cJSON_IsNumber(w) || !(w->valuedouble >= 0))
                return arb_err_set(err, ARB_ESCHEMA, "%s/weight: expected a number >= 0", sub);
            c->weights[i] = w->valuedouble;
        }
        copy = cJSON_Duplicate(ch, 1);
        if (!copy)
            return ARB_ENOMEM;
        cJSON_DeleteItemFromObjectCaseSensitive(copy, "weight");
        st = check_compile_at(copy, c->opts, sub, &c->children[i], err);
        cJSON_Delete(copy);
        if (st)
            return st;
        c->n_children = ++i;
    }
    if (strcmp(c->op->name, "k_of_n") == 0) {
        double k = 0;
        int present = 0;

        st = param_number(cfg, "k", path, &k, &present, err);
        if (st)
            return st;
        if (!present || k < 1 || k > (double)n || k != (double)(long)k)
            return arb_err_set(err, ARB_ESCHEMA,
                               "%s/k: expected a whole number from 1 to %zu (the number of "
                               "checks)",
                               path, n);
        if (cJSON_GetObjectItemCaseSensitive(cfg, "threshold"))
            return arb_err_set(err, ARB_ESCHEMA, "%s/threshold: k_of_n sets its threshold from k",
                               path);
        c->threshold = k / (double)n;
    }
    return ARB_OK;
}

/* Run every child; count passes and unresolved ones. */
static enum arb_status run_children(struct arb_check *c, const struct op_input *in,
                                    struct arb_result *res, size_t *pass, size_t *unres)
{
    size_t i;
    enum arb_status st;

    if (res->cap_children < c->n_children) {
        /* results left from an earlier run are kept (arb_check_run): grow them for this one */
        struct arb_result *kids = realloc(res->children, c->n_children * sizeof(*kids));

        if (!kids)
            return ARB_ENOMEM;
        for (i = res->cap_children; i < c->n_children; i++)
            arb_result_init(&kids[i]);
        res->children = kids;
        res->cap_children = c->n_children;
    }
    *pass = *unres = 0;
    for (i = 0; i < c->n_children; i++) {
        res->n_children = i + 1;
        st = check_run_shared(c->children[i], in->text, in->len, in->shared, in->expected,
                              &res->children[i], in->err);
        if (st)
            return st;
        if (res->children[i].verdict == ARB_PASS)
            (*pass)++;
        else if (res->children[i].verdict == ARB_UNRESOLVED)
            (*unres)++;
    }
    return ARB_OK;
}

/* Decide from the pessimistic and optimistic scores. */
static void decide(struct arb_check *c, struct arb_result *res, double lo, double hi)
{
    enum arb_verdict vl = verdict_of(lo, c->threshold, c->fail_below, c->has_fail_below);
    enum arb_verdict vh = verdict_of(hi, c->threshold, c->fail_below, c->has_fail_below);

    res->verdict = vl == vh ? vl : ARB_UNRESOLVED;
}

OP_RUN(op_all_run)
{
    size_t pass, unres, n = c->n_children;
    enum arb_status st = run_children(c, in, res, &pass, &unres);

    if (st)
        return st;
    res->score = (double)pass / (double)n;
    decide(c, res, res->score, (double)(pass + unres) / (double)n);
    return ARB_OK;
}

OP_RUN(op_any_run)
{
    size_t pass, unres;
    enum arb_status st = run_children(c, in, res, &pass, &unres);

    if (st)
        return st;
    res->score = pass ? 1.0 : 0.0;
    decide(c, res, res->score, pass + unres ? 1.0 : 0.0);
    return ARB_OK;
}

OP_RUN(op_k_of_n_run)
{
    return op_all_run(c, in, res);
}

OP_RUN(op_weighted_mean_run)
{
    size_t pass, unres, i;
    double wsum = 0, sum = 0, lo = 0, hi = 0;
    enum arb_status st = run_children(c, in, res, &pass, &unres);

    if (st)
        return st;
    for (i = 0; i < c->n_children; i++) {
        const struct arb_result *r = &res->children[i];
        double w = c->weights[i];

        wsum += w;
        sum += w * r->score;
        lo += w * (r->verdict == ARB_UNRESOLVED ? 0.0 : r->score);
        hi += w * (r->verdict == ARB_UNRESOLVED ? 1.0 : r->score);
    }
    if (wsum <= 0) {
        res->score = 0.0;
        res->verdict = ARB_FAIL;
        return result_note(res, "weights_sum_to_zero");
    }
    res->score = sum / wsum;
    decide(c, res, lo / wsum, hi / wsum);
    return ARB_OK;
}
