/*
 * weighted.c - the `weighted` strategy of the agent-eval harness's compare
 * (seeds/comparison-graders.md): per system
 *   score = quality * w_q + latency * w_l + reliability * w_r
 * with quality the mean overall rubric score of decided cases scaled to 0-1
 * (overall / 10), latency the fastest system's mean output duration divided
 * by this system's (1 for the fastest; inverse duration, normalized), and
 * reliability the share of outputs without tool errors.  Durations and tool
 * errors come from the outputs' capture fields (duration or timing, in ms;
 * toolErrors as a count or a list); a system with none recorded gets null
 * and its term counts 0.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/report.h"

struct wsys {
    const char *name;
    double dur_sum;
    size_t dur_n, outputs, clean;
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

static double duration_ms(const cJSON *meta)
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

static int tool_errors(const cJSON *meta)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(meta, "toolErrors");

    if (cJSON_IsNumber(e))
        return e->valuedouble > 0;
    if (cJSON_IsArray(e))
        return cJSON_GetArraySize(e) > 0;
    return cJSON_IsTrue(e);
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
    d = duration_ms(meta);
    if (!isnan(d)) {
        w->sys[i].dur_sum += d;
        w->sys[i].dur_n++;
    }
    w->sys[i].outputs++;
    w->sys[i].clean += !tool_errors(meta);
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

enum arb_status arb_report_add_weighted(struct arb_store *st, int64_t run, cJSON *report,
                                        const double weights[3], struct arb_err *err)
{
    const cJSON *systems = cJSON_GetObjectItemCaseSensitive(report, "systems"), *s;
    struct wctx w = {st, run, NULL, 0, NULL, ARB_OK, err};
    cJSON *arr, *wo;
    double fastest = INFINITY;
    size_t i;
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
    wo = rc ? NULL : cJSON_AddObjectToObject(report, "weights");
    arr = wo ? cJSON_AddArrayToObject(report, "weighted") : NULL;
    if (!rc && !arr)
        rc = ARB_ENOMEM;
    if (!rc) {
        cJSON_AddNumberToObject(wo, "quality", weights[0]);
        cJSON_AddNumberToObject(wo, "latency", weights[1]);
        cJSON_AddNumberToObject(wo, "reliability", weights[2]);
    }
    i = 0;
    cJSON_ArrayForEach(s, systems)
    {
        const cJSON *ov = cJSON_GetObjectItemCaseSensitive(s, "overall_score");
        const struct wsys *x = &w.sys[i++];
        double q = cJSON_IsNumber(ov) ? ov->valuedouble / 10.0 : NAN;
        double mean = x->dur_n ? x->dur_sum / (double)x->dur_n : NAN;
        double l = isnan(mean) ? NAN : mean > 0 ? fastest / mean : 1.0;
        double r = x->outputs ? (double)x->clean / (double)x->outputs : NAN;
        double score = (isnan(q) ? 0 : q) * weights[0] + (isnan(l) ? 0 : l) * weights[1] +
                       (isnan(r) ? 0 : r) * weights[2];
        cJSON *o = cJSON_CreateObject();

        if (rc || !o || !cJSON_AddItemToArray(arr, o)) {
            rc = rc ? rc : ARB_ENOMEM;
            break;
        }
        cJSON_AddStringToObject(o, "system", x->name);
        cJSON_AddItemToObject(o, "quality", isnan(q) ? cJSON_CreateNull() : cJSON_CreateNumber(q));
        cJSON_AddItemToObject(o, "mean_duration_ms",
                              isnan(mean) ? cJSON_CreateNull() : cJSON_CreateNumber(mean));
        cJSON_AddItemToObject(o, "latency", isnan(l) ? cJSON_CreateNull() : cJSON_CreateNumber(l));
        cJSON_AddItemToObject(o, "reliability",
                              isnan(r) ? cJSON_CreateNull() : cJSON_CreateNumber(r));
        cJSON_AddNumberToObject(o, "score", score);
    }
    free(w.sys);
    free(w.last_case);
    return rc;
}
