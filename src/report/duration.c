/*
 * duration.c - what the statistics (statistics.c) and the trials (trials.c)
 * read of an output's capture fields, its stored meta_json: the duration in
 * milliseconds, by the weighted strategy's rule (strategy_duration_ms), and
 * a prior grader score (seeds/comparison-graders.md: "score?: GraderResult",
 * read as weighted.c reads it), and the durations of a system's compared
 * outputs over many cases in one pass.  What they mean for a system is left
 * to those files.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "stats_int.h"
#include "strategy_int.h"

double report_output_ms(const char *meta_json)
{
    cJSON *meta = meta_json ? cJSON_Parse(meta_json) : NULL;
    double ms = strategy_duration_ms(meta);

    cJSON_Delete(meta);
    return ms;
}

double report_output_score(const char *meta_json)
{
    cJSON *meta = meta_json ? cJSON_Parse(meta_json) : NULL;
    double v = strategy_prior_score(meta);

    cJSON_Delete(meta);
    return v;
}

static int cmp_ids(const void *a, const void *b)
{
    return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

static int cmp_key(const void *key, const void *e)
{
    return strcmp((const char *)key, **(char *const *const *)e);
}

/* Walk system's outputs (by case, then trial and file): a case's first row is compared. */
static enum arb_status walk(struct arb_store_cursor *c, char *const *ids, char *const *const *by_id,
                            size_t n, double *ms, double *timed, struct arb_err *err)
{
    struct arb_output_row o;
    size_t k = (size_t)-1;
    int got;

    while ((got = arb_store_cursor_output(c, &o, err)) == 1) {
        char *const *const *hit;
        double d;

        if (k != (size_t)-1 && strcmp(ids[k], o.case_id) == 0)
            continue;
        hit = bsearch(o.case_id, by_id, n, sizeof(*by_id), cmp_key);
        k = hit ? (size_t)(*hit - ids) : (size_t)-1;
        d = hit ? report_output_ms(o.meta_json) : NAN;
        if (!isnan(d)) {
            ms[k] = d;
            timed[k] = 1.0;
        }
    }
    return got < 0 ? (enum arb_status) - got : ARB_OK;
}

enum arb_status report_compared_durations(struct arb_store *st, int64_t run, const char *system,
                                          char *const *ids, size_t n, double *ms, double *timed,
                                          struct arb_err *err)
{
    char *const **by_id = malloc((n ? n : 1) * sizeof(*by_id));
    struct arb_store_cursor *c = NULL;
    enum arb_status rc;

    if (!by_id)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    for (size_t k = 0; k < n; k++)
        by_id[k] = &ids[k];
    qsort(by_id, n, sizeof(*by_id), cmp_ids);
    rc = arb_store_outputs_cursor(st, run, system, &c, err);
    if (!rc)
        rc = walk(c, ids, by_id, n, ms, timed, err);
    arb_store_cursor_close(c);
    free(by_id);
    return rc;
}
