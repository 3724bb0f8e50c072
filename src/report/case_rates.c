/*
 * case_rates.c - expectation pass rates per case, for each system: report.h
 * calls them "case_pass_rates".
 *
 * Counts are kept in flat arrays (three counters per system per case), not
 * cJSON, and only for the cases the listing can show: with a limit (the
 * markdown's 20 worst) the first cases up to it, in case order, for a run
 * that has no more, and a heap of the worst so far, so memory does not grow
 * with the run; without one (JSON) every case.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

enum arb_status case_rates_init(struct case_rates *cr, const char *const *names, size_t n_sys,
                                size_t limit)
{
    memset(cr, 0, sizeof(*cr));
    cr->names = calloc(n_sys ? n_sys : 1, sizeof(*cr->names));
    cr->cur_counts = calloc(n_sys ? n_sys * 3 : 1, sizeof(*cr->cur_counts));
    if (!cr->names || !cr->cur_counts)
        return ARB_ENOMEM;
    cr->n_sys = n_sys;
    cr->limit = limit;
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
    for (size_t i = 0; i < cr->n_first; i++)
        free(cr->first[i].id);
    for (size_t i = 0; i < cr->n_heap; i++)
        free(cr->pool[cr->heap[i]].id);
    free(cr->cur.id);
    free(cr->names);
    free(cr->cur_counts);
    free(cr->first);
    free(cr->first_counts);
    free(cr->pool);
    free(cr->pool_counts);
    free(cr->heap);
    memset(cr, 0, sizeof(*cr));
}

/* The lowest pass rate of any system in counts (NaN when none decided anything). */
static double worst(const struct case_rates *cr, const uint32_t *counts)
{
    double m = NAN;

    for (size_t s = 0; s < cr->n_sys; s++) {
        const uint32_t *c = counts + s * 3;

        if (c[0] + c[1] > 0) {
            double r = (double)c[0] / (double)(c[0] + c[1]);

            m = isnan(m) || r < m ? r : m;
        }
    }
    return m;
}

/* 1 when a is listed before b: lower pass rate first, then in case order. */
static int before(const struct case_rate *a, const struct case_rate *b)
{
    if (a->worst != b->worst)
        return a->worst < b->worst;
    return a->i < b->i;
}

/* Heap order: the entry listed last on top. */
static int heap_above(const struct case_rates *cr, size_t x, size_t y)
{
    return before(&cr->pool[cr->heap[y]], &cr->pool[cr->heap[x]]);
}

static void heap_swap(struct case_rates *cr, size_t x, size_t y)
{
    size_t t = cr->heap[x];

    cr->heap[x] = cr->heap[y];
    cr->heap[y] = t;
}

static void sift_up(struct case_rates *cr, size_t k)
{
    while (k > 0 && heap_above(cr, k, (k - 1) / 2)) {
        heap_swap(cr, k, (k - 1) / 2);
        k = (k - 1) / 2;
    }
}

static void sift_down(struct case_rates *cr, size_t k)
{
    for (;;) {
        size_t l = 2 * k + 1, r = l + 1, top = k;

        if (l < cr->n_heap && heap_above(cr, l, top))
            top = l;
        if (r < cr->n_heap && heap_above(cr, r, top))
            top = r;
        if (top == k)
            return;
        heap_swap(cr, k, top);
        k = top;
    }
}

/* Keep the current case among the worst when it is one of them. */
static enum arb_status keep_worst(struct case_rates *cr)
{
    size_t w = cr->n_sys * 3, slot;
    int replaced = cr->n_heap == cr->limit;

    if (isnan(cr->cur.worst) || cr->cur.worst >= 1.0)
        return ARB_OK;
    if (!cr->pool) {
        cr->pool = calloc(cr->limit, sizeof(*cr->pool));
        cr->pool_counts = calloc(cr->limit * (w ? w : 1), sizeof(*cr->pool_counts));
        cr->heap = calloc(cr->limit, sizeof(*cr->heap));
        if (!cr->pool || !cr->pool_counts || !cr->heap)
            return ARB_ENOMEM;
    }
    if (replaced && !before(&cr->cur, &cr->pool[cr->heap[0]]))
        return ARB_OK;
    slot = replaced ? cr->heap[0] : cr->n_heap;
    if (replaced)
        free(cr->pool[slot].id);
    cr->pool[slot] = cr->cur;
    cr->pool[slot].id = strdup(cr->cur.id);
    memcpy(cr->pool_counts + slot * w, cr->cur_counts, w * sizeof(*cr->cur_counts));
    if (!replaced)
        cr->heap[cr->n_heap++] = slot;
    if (!cr->pool[slot].id)
        return ARB_ENOMEM; /* the report fails: the heap's order no longer matters */
    if (replaced)
        sift_down(cr, 0);
    else
        sift_up(cr, cr->n_heap - 1);
    return ARB_OK;
}

static cJSON *case_json(const struct case_rates *cr, const char *id, const uint32_t *counts)
{
    cJSON *o = cJSON_CreateObject(), *sys;
    int ok = o && cJSON_AddStringToObject(o, "case", id) &&
             (sys = cJSON_AddObjectToObject(o, "systems")) != NULL;

    for (size_t s = 0; ok && s < cr->n_sys; s++) {
        const uint32_t *c = counts + s * 3;
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

/*
 * The current case's entry into the spill, as cJSON prints it alone, after
 * ", " from the one before (the report's "items" is an array).
 */
static enum arb_status spill_case(struct case_rates *cr)
{
    cJSON *c = case_json(cr, cr->cur.id, cr->cur_counts);
    char *text = c ? cJSON_Print(c) : NULL;
    enum arb_status st = ARB_OK;

    if (!text)
        st = ARB_ENOMEM;
    else if ((cr->n > 1 && fputs(", ", cr->spill) == EOF) || fputs(text, cr->spill) == EOF)
        st = ARB_EIO;
    cJSON_free(text);
    cJSON_Delete(c);
    return st;
}

/* The current case is complete: keep it where the listing may need it. */
static enum arb_status close_case(struct case_rates *cr)
{
    size_t w = cr->n_sys * 3;

    cr->cur.worst = worst(cr, cr->cur_counts);
    if (cr->spill)
        return spill_case(cr);
    if (cr->n_first < cr->limit) {
        if (cr->n_first == cr->cap_first) {
            size_t cap = cr->cap_first ? cr->cap_first * 2 : 32;
            struct case_rate *f;
            uint32_t *c;

            cap = cap < cr->limit ? cap : cr->limit;
            f = realloc(cr->first, cap * sizeof(*f));
            if (!f)
                return ARB_ENOMEM;
            cr->first = f;
            c = realloc(cr->first_counts, cap * (w ? w : 1) * sizeof(*c));
            if (!c)
                return ARB_ENOMEM;
            cr->first_counts = c;
            cr->cap_first = cap;
        }
        cr->first[cr->n_first] = cr->cur;
        cr->first[cr->n_first].id = strdup(cr->cur.id);
        if (!cr->first[cr->n_first].id)
            return ARB_ENOMEM;
        memcpy(cr->first_counts + cr->n_first * w, cr->cur_counts, w * sizeof(*cr->cur_counts));
        cr->n_first++;
    }
    /* Without a limit every case is listed in case order: no ranking to keep. */
    return cr->limit == SIZE_MAX ? ARB_OK : keep_worst(cr);
}

enum arb_status case_rates_add(struct case_rates *cr, const char *case_id, const char *system,
                               uint32_t passed, uint32_t failed, uint32_t unresolved)
{
    size_t s;
    uint32_t *c;

    for (s = 0; s < cr->n_sys && strcmp(cr->names[s], system) != 0; s++)
        ;
    if (s == cr->n_sys || passed + failed + unresolved == 0)
        return ARB_OK;
    if (!cr->n || strcmp(cr->cur.id, case_id) != 0) {
        char *id = strdup(case_id);
        enum arb_status st = !id ? ARB_ENOMEM : cr->n ? close_case(cr) : ARB_OK;

        if (st) {
            free(id);
            return st;
        }
        free(cr->cur.id);
        cr->cur.id = id;
        cr->cur.i = cr->n++;
        memset(cr->cur_counts, 0, cr->n_sys * 3 * sizeof(*cr->cur_counts));
    }
    c = cr->cur_counts + s * 3;
    c[0] += passed;
    c[1] += failed;
    c[2] += unresolved;
    return ARB_OK;
}

/* The heap's cases in listing order, into order[0..n_heap) (the heap is emptied). */
static void drain(struct case_rates *cr, size_t *order)
{
    while (cr->n_heap) {
        order[cr->n_heap - 1] = cr->heap[0];
        cr->heap[0] = cr->heap[--cr->n_heap];
        sift_down(cr, 0);
    }
}

enum arb_status case_rates_emit(struct case_rates *cr, cJSON *report)
{
    cJSON *o = cJSON_AddObjectToObject(report, "case_pass_rates"), *items;
    size_t w = cr->n_sys * 3, m, *order = NULL;
    int all = cr->limit >= cr->n;

    enum arb_status st = cr->n ? close_case(cr) : ARB_OK;

    if (st)
        return st;
    if (!o || !cJSON_AddStringToObject(o, "order", all ? "case" : "worst_first") ||
        !cJSON_AddNumberToObject(o, "cases", (double)cr->n) ||
        !(items = cJSON_AddArrayToObject(o, "items")))
        return ARB_ENOMEM;
    if (cr->spill) {
        static const char mark[] = {CASE_SPILL_MARK, '\0'};

        return cJSON_AddItemToArray(items, cJSON_CreateRaw(mark)) &&
                       cJSON_AddNumberToObject(o, "listed", (double)cr->n)
                   ? ARB_OK
                   : ARB_ENOMEM;
    }
    m = all ? cr->n_first : cr->n_heap;
    if (!all) {
        order = malloc((m ? m : 1) * sizeof(*order));
        if (!order)
            return ARB_ENOMEM;
        drain(cr, order);
        cr->n_heap = m; /* the slots stay owned for release */
        memcpy(cr->heap, order, m * sizeof(*order));
    }
    for (size_t k = 0; k < m; k++) {
        const struct case_rate *e = all ? &cr->first[k] : &cr->pool[order[k]];
        const uint32_t *counts = all ? cr->first_counts + k * w : cr->pool_counts + order[k] * w;
        cJSON *c = case_json(cr, e->id, counts);

        if (!c || !cJSON_AddItemToArray(items, c)) {
            cJSON_Delete(c);
            free(order);
            return ARB_ENOMEM;
        }
    }
    free(order);
    return cJSON_AddNumberToObject(o, "listed", (double)cJSON_GetArraySize(items)) ? ARB_OK
                                                                                   : ARB_ENOMEM;
}
