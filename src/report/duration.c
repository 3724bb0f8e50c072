/*
 * duration.c - what the statistics (statistics.c) and the trials (trials.c)
 * read of an output's capture fields, its stored meta_json: the duration in
 * milliseconds, by the weighted strategy's rule (strategy_duration_ms), and
 * a prior grader score (seeds/comparison-graders.md: "score?: GraderResult",
 * read as weighted.c reads it), and the duration of a system's compared
 * output of one case.  What they mean for a system is left
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

double report_compared_ms(struct arb_store_first_output *q, const char *case_id, const char *system,
                          enum arb_status *st, struct arb_err *err)
{
    const char *meta;
    int got = arb_store_first_output_meta(q, case_id, system, &meta, err);

    if (got < 0)
        *st = (enum arb_status) - got;
    return got == 1 ? report_output_ms(meta) : NAN;
}
