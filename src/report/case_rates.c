/*
 * case_rates.c - expectation pass rates per case, for each system: report.h
 * calls them "case_pass_rates".
 *
 * Counts are kept in flat arrays (an id and three counters per system per
 * case), not cJSON, so a 100,000-case report pays for objects only for the
 * cases it lists: all of them for JSON, the worst few for markdown.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

enum arb_status case_rates_init(struct case_rates *cr, const char *const *names, size_t n_sys)
{
    memset(cr, 0, sizeof(*cr));
    cr->names = calloc(n_sys ? n_sys : 1, sizeof(*cr->names));
    if (!cr->names)
        return ARB_ENOMEM;
    cr->n_sys = n_sys;
    for (size_t i = 0; i < n_sys; i++) {
        cr->names[i] = strdup(names[i]);
        if (!cr->names[i])
            return ARB_ENOMEM;
    }
    return ARB_OK;
}

void case_rates_release(struct case_rates *cr)
{
    for (size_t i = 0; cr->names && i < cr->n_sys; i++)
        free(cr->names[i]);
    for (size_t i = 0; i < cr->n; i++)
        free(cr->ids[i]);
    free(cr->names);
    free(cr->ids);
    free(cr->counts);
    memset(cr, 0, sizeof(*cr));
}

enum arb_status case_rates_add(struct case_rates *cr, const char *case_id, const char *system,
                               uint32_t passed, uint32_t failed, uint32_t unresolved)
{
    size_t s, w = cr->n_sys * 3;
    uint32_t *c;

    for (s = 0; s < cr->n_sys && strcmp(cr->names[s], system) != 0; s++)
        ;
    if (s == cr->n_sys || passed + failed + unresolved == 0)
        return ARB_OK;
    if (!cr->n || strcmp(cr->ids[cr->n - 1], case_id) != 0) {
        if (cr->n == cr->cap) {
            size_t cap = cr->cap ? cr->cap * 2 : 256;
            char **ids = realloc(cr->ids, cap * sizeof(*ids));
            uint32_t *counts;

            if (!ids)
                return ARB_ENOMEM;
            cr->ids = ids;
            counts = realloc(cr->counts, cap * w * sizeof(*counts));
            if (!counts)
                return ARB_ENOMEM;
            cr->counts = counts;
            cr->cap = cap;
        }
        cr->ids[cr->n] = strdup(case_id);
        if (!cr->ids[cr->n])
            return ARB_ENOMEM;
        memset(cr->counts + cr->n * w, 0, w * sizeof(*cr->counts));
        cr->n++;
    }
    c = cr->counts + (cr->n - 1) * w + s * 3;
    c[0] += passed;
    c[1] += failed;
    c[2] += unresolved;
    return ARB_OK;
}

/* The lowest pass rate of any system on case i (NaN when none decided anything). */
static double worst(const struct case_rates *cr, size_t i)
{
    double m = NAN;

    for (size_t s = 0; s < cr->n_sys; s++) {
        const uint32_t *c = cr->counts + (i * cr->n_sys + s) * 3;

        if (c[0] + c[1] > 0) {
            double r = (double)c[0] / (double)(c[0] + c[1]);

            m = isnan(m) || r < m ? r : m;
        }
    }
    return m;
}

struct ranked {
    double worst;
    size_t i;
};

static int by_worst(const void *pa, const void *pb)
{
    const struct ranked *a = pa, *b = pb;

    if (a->worst != b->worst)
        return a->worst < b->worst ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

static cJSON *case_json(const struct case_rates *cr, size_t i)
{
    cJSON *o = cJSON_CreateObject(), *sys;
    int ok = o && cJSON_AddStringToObject(o, "case", cr->ids[i]) &&
             (sys = cJSON_AddObjectToObject(o, "systems")) != NULL;

    for (size_t s = 0; ok && s < cr->n_sys; s++) {
        const uint32_t *c = cr->counts + (i * cr->n_sys + s) * 3;
        cJSON *e;

        if (c[0] + c[1] + c[2] == 0)
            continue;
        e = cJSON_AddObjectToObject(sys, cr->names[s]);
        ok = e && cJSON_AddNumberToObject(e, "passed", c[0]) &&
             cJSON_AddNumberToObject(e, "failed", c[1]) &&
             cJSON_AddNumberToObject(e, "unresolved", c[2]) &&
             (c[0] + c[1]
                  ? cJSON_AddNumberToObject(e, "pass_rate", (double)c[0] / (double)(c[0] + c[1]))
                  : cJSON_AddNullToObject(e, "pass_rate")) != NULL;
    }
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

enum arb_status case_rates_emit(const struct case_rates *cr, size_t limit, cJSON *report)
{
    cJSON *o = cJSON_AddObjectToObject(report, "case_pass_rates"), *items;
    struct ranked *r = NULL;
    size_t m = 0;
    int all = limit >= cr->n;

    if (!o || !cJSON_AddStringToObject(o, "order", all ? "case" : "worst_first") ||
        !cJSON_AddNumberToObject(o, "cases", (double)cr->n) ||
        !(items = cJSON_AddArrayToObject(o, "items")))
        return ARB_ENOMEM;
    if (!all) {
        /* The cases some system failed, lowest pass rate first, then in case order. */
        r = malloc((cr->n ? cr->n : 1) * sizeof(*r));
        if (!r)
            return ARB_ENOMEM;
        for (size_t i = 0; i < cr->n; i++) {
            double w = worst(cr, i);

            if (!isnan(w) && w < 1.0) {
                r[m].worst = w;
                r[m++].i = i;
            }
        }
        qsort(r, m, sizeof(*r), by_worst);
        m = m < limit ? m : limit;
    }
    for (size_t k = 0; k < (all ? cr->n : m); k++) {
        cJSON *c = case_json(cr, all ? k : r[k].i);

        if (!c || !cJSON_AddItemToArray(items, c)) {
            cJSON_Delete(c);
            free(r);
            return ARB_ENOMEM;
        }
    }
    free(r);
    return cJSON_AddNumberToObject(o, "listed", (double)cJSON_GetArraySize(items)) ? ARB_OK
                                                                                   : ARB_ENOMEM;
}
