/*
 * duration.c - what the statistics (statistics.c) and the trials (trials.c)
 * read of an output's capture fields, its stored meta_json: the duration in
 * milliseconds, by the weighted strategy's rule (strategy_duration_ms), and
 * a prior grader score (seeds/comparison-graders.md: "score?: GraderResult",
 * read as weighted.c reads it).  What they mean for a system is left to
 * those files.
 */
#include <math.h>

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
    const cJSON *s =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(meta, "score"), "score");
    double v =
        cJSON_IsNumber(s) && s->valuedouble >= 0 && s->valuedouble <= 1 ? s->valuedouble : NAN;

    cJSON_Delete(meta);
    return v;
}
