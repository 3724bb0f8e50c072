/*
 * weighted.c - the `weighted` strategy of the agent-eval harness's compare
 * (seeds/comparison-graders.md): per system
 *   score = quality * w_q + latency * w_l + reliability * w_r
 * with quality the outputs' own prior grader score when every compared
 * output of every system carries one (score.score from 0 to 1, as agent-eval
 * capture files do; the mean of them), else the mean overall rubric score of
 * decided cases scaled to 0-1 (overall / 10) for every system: one ranking
 * never puts an external score beside a rubric one, which are on scales of
 * their own.  "weighted_quality" (and each row's "quality_source") says
 * which, with a notice naming the systems whose prior scores went unused
 * when only some outputs carried one.
 * Latency the fastest system's mean output duration divided
 * by this system's (1 for the fastest; inverse duration, normalized), and
 * reliability the share of outputs without tool errors.  Durations and tool
 * errors come from the outputs' capture fields (duration or timing, in ms;
 * toolErrors as a count or a list); a system with none recorded gets null
 * and its term counts 0.  Weights that do not sum to 1 are divided by their
 * sum, and the report says so ("weights": "given", "normalized", "notice");
 * weights summing to 0 are refused.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/report.h"
#include "strategy_int.h"

struct wsys {
    const char *name;
    double dur_sum, prior_sum;
    size_t dur_n, outputs, clean, prior_n;
};

struct wctx {
    struct arb_store *st;
    int64_t run;
    struct wsys *sys;
    size_t n;
    char *last_case;
    enum arb_status rc;
    struct arb_err *err;
};

double strategy_duration_ms(const cJSON *meta)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(meta, "duration");

    if (!d)
        d = cJSON_GetObjectItemCaseSensitive(meta, "timing");
    if (cJSON_IsObject(d)) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(d, "total");

        d = t ? t : cJSON_GetObjectItemCaseSensitive(d, "duration");
    }
    return cJSON_IsNumber(d) && d->valuedouble >= 0 ? d->valuedouble : NAN;
}

int strategy_tool_errors(const cJSON *meta)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(meta, "toolErrors");

    if (cJSON_IsNumber(e))
        return e->valuedouble > 0;
    if (cJSON_IsArray(e))
        return cJSON_GetArraySize(e) > 0;
    return cJSON_IsTrue(e);
}

double strategy_prior_score(const cJSON *meta)
{
    const cJSON *s =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(meta, "score"), "score");

    return cJSON_IsNumber(s) && s->valuedouble >= 0 && s->valuedouble <= 1 ? s->valuedouble : NAN;
}

static int on_output(void *ctx, const struct arb_output_row *o)
{
    struct wctx *w = ctx;
    size_t i;
    cJSON *meta;
    double d;

    for (i = 0; i < w->n && strcmp(w->sys[i].name, o->system) != 0; i++)
        ;
    if (i == w->n)
        return 0;
    meta = o->meta_json ? cJSON_Parse(o->meta_json) : NULL;
    d = strategy_duration_ms(meta);
    if (!isnan(d)) {
        w->sys[i].dur_sum += d;
        w->sys[i].dur_n++;
    }
    w->sys[i].outputs++;
    w->sys[i].clean += !strategy_tool_errors(meta);
    d = strategy_prior_score(meta);
    if (!isnan(d)) {
        w->sys[i].prior_sum += d;
        w->sys[i].prior_n++;
    }
    cJSON_Delete(meta);
    return 0;
}

static int on_verdict(void *ctx, const struct arb_verdict_row *v)
{
    struct wctx *w = ctx;

    /* Each case once (it has a verdict per pair of systems). */
    if (w->last_case && strcmp(w->last_case, v->case_id) == 0)
        return 0;
    free(w->last_case);
    w->last_case = strdup(v->case_id);
    if (!w->last_case ||
        arb_store_compared_outputs(w->st, w->run, v->case_id, on_output, w, w->err)) {
        w->rc = w->last_case ? ARB_EDB : ARB_ENOMEM;
        return 1;
    }
    return 0;
}

/* "weights": the weights used, and when the given ones did not sum to 1, those and a notice. */
static enum arb_status add_weights(cJSON *report, const double given[3], double w[3],
                                   struct arb_err *err)
{
    static const char *const names[] = {"quality", "latency", "reliability"};
    double sum = given[0] + given[1] + given[2];
    int normalized = fabs(sum - 1.0) > 1e-9;
    cJSON *wo = cJSON_AddObjectToObject(report, "weights"), *g;
    char notice[256];
    size_t i;

    if (!(sum > 0))
        return arb_err_set(err, ARB_EUSAGE,
                           "the weights (quality %g, latency %g, reliability %g) sum to 0: "
                           "nothing to weigh",
                           given[0], given[1], given[2]);
    for (i = 0; i < 3; i++)
        w[i] = normalized ? given[i] / sum : given[i];
    if (!wo || !cJSON_AddBoolToObject(wo, "normalized", normalized))
        return ARB_ENOMEM;
    for (i = 0; i < 3; i++)
        if (!cJSON_AddNumberToObject(wo, names[i], w[i]))
            return ARB_ENOMEM;
    if (!normalized)
        return ARB_OK;
    g = cJSON_AddObjectToObject(wo, "given");
    for (i = 0; g && i < 3; i++)
        if (!cJSON_AddNumberToObject(g, names[i], given[i]))
            g = NULL;
    snprintf(notice, sizeof(notice),
             "the weights given (quality %g, latency %g, reliability %g) sum to %g, not 1: "
             "divided by their sum (quality %.4g, latency %.4g, reliability %.4g)",
             given[0], given[1], given[2], sum, w[0], w[1], w[2]);
    return g && cJSON_AddStringToObject(wo, "notice", notice) ? ARB_OK : ARB_ENOMEM;
}

static cJSON *num_or_null(double v)
{
    return isnan(v) ? cJSON_CreateNull() : cJSON_CreateNumber(v);
}

/*
 * "weighted_quality": {"source", "notice"?}.  The prior scores are the source only when every
 * compared output of every system carries one; *prior says whether they are.
 */
static enum arb_status add_quality_source(cJSON *report, const struct wctx *w, int *prior)
{
    cJSON *o = cJSON_AddObjectToObject(report, "weighted_quality");
    size_t i, outputs = 0, scored = 0;
    struct arb_buf b;
    enum arb_status st;

    for (i = 0; i < w->n; i++) {
        outputs += w->sys[i].outputs;
        scored += w->sys[i].prior_n;
    }
    *prior = outputs && scored == outputs;
    if (!o || !cJSON_AddStringToObject(o, "source", *prior ? "prior_score" : "rubric"))
        return ARB_ENOMEM;
    if (*prior || !scored)
        return ARB_OK;
    arb_buf_init(&b, 0);
    st = arb_buf_adds(&b, "quality is the rubric's for every system: prior grader scores "
                          "(score.score) came with only some outputs (");
    for (i = 0; !st && i < w->n; i++)
        if (w->sys[i].prior_n)
            st = arb_buf_printf(&b, "%s%s %zu/%zu", b.len && b.ptr[b.len - 1] == '(' ? "" : ", ",
                                w->sys[i].name, w->sys[i].prior_n, w->sys[i].outputs);
    if (!st)
        st = arb_buf_adds(&b, "), and one ranking does not mix them with rubric scores");
    if (!st && !cJSON_AddStringToObject(o, "notice", b.ptr))
        st = ARB_ENOMEM;
    arb_buf_release(&b);
    return st;
}

/* One system's row of "weighted"; prior: the quality is the prior scores' (for every system). */
static enum arb_status add_row(cJSON *arr, const struct wsys *x, const cJSON *ov, double fastest,
                               const double w[3], int prior)
{
    double q = prior                ? (x->prior_n ? x->prior_sum / (double)x->prior_n : NAN)
               : cJSON_IsNumber(ov) ? ov->valuedouble / 10.0
                                    : NAN;
    double mean = x->dur_n ? x->dur_sum / (double)x->dur_n : NAN;
    double l = isnan(mean) ? NAN : mean > 0 ? fastest / mean : 1.0;
    double r = x->outputs ? (double)x->clean / (double)x->outputs : NAN;
    double score =
        (isnan(q) ? 0 : q) * w[0] + (isnan(l) ? 0 : l) * w[1] + (isnan(r) ? 0 : r) * w[2];
    cJSON *o = cJSON_CreateObject();

    if (!o || !cJSON_AddItemToArray(arr, o))
        return ARB_ENOMEM;
    if (!cJSON_AddStringToObject(o, "system", x->name) ||
        !cJSON_AddItemToObject(o, "quality", num_or_null(q)) ||
        !cJSON_AddStringToObject(o, "quality_source", prior ? "prior_score" : "rubric") ||
        !cJSON_AddNumberToObject(o, "prior_scores", (double)x->prior_n) ||
        !cJSON_AddNumberToObject(o, "outputs", (double)x->outputs) ||
        !cJSON_AddItemToObject(o, "mean_duration_ms", num_or_null(mean)) ||
        !cJSON_AddItemToObject(o, "latency", num_or_null(l)) ||
        !cJSON_AddItemToObject(o, "reliability", num_or_null(r)) ||
        !cJSON_AddNumberToObject(o, "score", score))
        return ARB_ENOMEM;
    return ARB_OK;
}

enum arb_status arb_report_add_weighted(struct arb_store *st, int64_t run, cJSON *report,
                                        const double weights[3], struct arb_err *err)
{
    const cJSON *systems = cJSON_GetObjectItemCaseSensitive(report, "systems"), *s;
    struct wctx w = {st, run, NULL, 0, NULL, ARB_OK, err};
    cJSON *arr = NULL;
    double fastest = INFINITY, wt[3];
    size_t i;
    int prior = 0;
    enum arb_status rc;

    w.sys = calloc((size_t)cJSON_GetArraySize(systems) + 1, sizeof(*w.sys));
    if (!w.sys)
        return ARB_ENOMEM;
    cJSON_ArrayForEach(s, systems)
    {
        w.sys[w.n++].name = cJSON_GetObjectItemCaseSensitive(s, "name")->valuestring;
    }
    rc = arb_store_verdicts(st, run, NULL, on_verdict, &w, err);
    if (!rc)
        rc = w.rc;
    for (i = 0; i < w.n; i++)
        if (w.sys[i].dur_n && w.sys[i].dur_sum / (double)w.sys[i].dur_n < fastest)
            fastest = w.sys[i].dur_sum / (double)w.sys[i].dur_n;
    if (!rc)
        rc = add_weights(report, weights, wt, err);
    if (!rc)
        rc = add_quality_source(report, &w, &prior);
    if (!rc && !(arr = cJSON_AddArrayToObject(report, "weighted")))
        rc = ARB_ENOMEM;
    for (i = 0, s = rc ? NULL : systems->child; s && !rc; s = s->next, i++)
        rc = add_row(arr, &w.sys[i], cJSON_GetObjectItemCaseSensitive(s, "overall_score"), fastest,
                     wt, prior);
    free(w.sys);
    free(w.last_case);
    return rc;
}
