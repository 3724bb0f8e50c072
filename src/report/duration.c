/*
 * duration.c - what a report reads of an output's capture fields (its stored
 * meta_json): the duration in milliseconds and a prior grader score, as the
 * agent-eval harness writes them (seeds/comparison-graders.md:
 * "duration?: number // Total ms", "score?: GraderResult").  The statistics
 * (statistics.c) and the trials (trials.c) read them; what they mean for a
 * system is left to those files.
 */
#include <math.h>

#include <cjson/cJSON.h>

#include "stats_int.h"

static double ms_of(const cJSON *meta)
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

double report_output_ms(const char *meta_json)
{
    cJSON *meta = meta_json ? cJSON_Parse(meta_json) : NULL;
    double ms = ms_of(meta);

    cJSON_Delete(meta);
    return ms;
}

double report_output_score(const char *meta_json)
{
    cJSON *meta = meta_json ? cJSON_Parse(meta_json) : NULL;
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(meta, "score");
    double v;

    if (cJSON_IsObject(s))
        s = cJSON_GetObjectItemCaseSensitive(s, "score");
    v = cJSON_IsNumber(s) && isfinite(s->valuedouble) ? s->valuedouble : NAN;
    cJSON_Delete(meta);
    return v;
}
