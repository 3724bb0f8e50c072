/*
 * config_batch.c - the judge config's batch keys: "mode" ("sync" or "batch"),
 * "batch_poll_s", "batch_max_requests" and "batch_retry".  None is in the
 * config's hash (config.c): a request sent in a batch is the same question as
 * one sent alone, so both find the same cached replies and calibrations.
 * They are stored with the run (arb_judge_config_json), so --resume keeps to
 * the mode the run started in.  What a batch does is src/run/batch_*.c's and
 * the protocols batch_openai.c's and batch_anthropic.c's.
 */
#include <string.h>

#include "judge_int.h"

/* The providers' own limits on requests per batch. */
#define OPENAI_MAX_REQUESTS    50000
#define ANTHROPIC_MAX_REQUESTS 100000

static const char *const retry_names[] = {"sync", "batch", "none"};

const char *judge_batch_retry_name(enum arb_judge_batch_retry r)
{
    return (size_t)r < 3 ? retry_names[r] : "sync";
}

static enum arb_status get_mode(const cJSON *obj, struct arb_judge_config *cfg, struct arb_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "mode");

    if (!v)
        return ARB_OK;
    if (!cJSON_IsString(v) ||
        (strcmp(v->valuestring, "sync") != 0 && strcmp(v->valuestring, "batch") != 0))
        return arb_err_set(err, ARB_ESCHEMA, "/judge/mode: expected \"sync\" or \"batch\"");
    cfg->batch = strcmp(v->valuestring, "batch") == 0;
    if (cfg->batch && cfg->provider == ARB_JUDGE_COMMAND)
        return arb_err_set(err, ARB_ESCHEMA,
                           "/judge/mode: \"batch\" needs a provider with a batch API "
                           "(\"openai\" or \"anthropic\"), not a command judge");
    return ARB_OK;
}

static enum arb_status get_retry(const cJSON *obj, struct arb_judge_config *cfg,
                                 struct arb_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "batch_retry");
    size_t i;

    if (!v)
        return ARB_OK;
    for (i = 0; cJSON_IsString(v) && i < 3; i++)
        if (strcmp(v->valuestring, retry_names[i]) == 0) {
            cfg->batch_retry = (enum arb_judge_batch_retry)i;
            return ARB_OK;
        }
    return arb_err_set(err, ARB_ESCHEMA,
                       "/judge/batch_retry: expected \"sync\" (ask a request the batch did not "
                       "answer at once, alone), \"batch\" (in the next batch) or \"none\" "
                       "(record it failed)");
}

enum arb_status judge_config_batch(const cJSON *obj, struct arb_judge_config *cfg,
                                   struct arb_err *err)
{
    long limit =
        cfg->provider == ARB_JUDGE_ANTHROPIC ? ANTHROPIC_MAX_REQUESTS : OPENAI_MAX_REQUESTS;
    const cJSON *v;
    enum arb_status st;

    cfg->batch_poll_s = 30;
    cfg->batch_max_requests = limit;
    cfg->batch_retry = ARB_BATCH_RETRY_SYNC;
    st = get_mode(obj, cfg, err);
    if (!st)
        st = get_retry(obj, cfg, err);
    v = cJSON_GetObjectItemCaseSensitive(obj, "batch_poll_s");
    if (!st && v) {
        if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0.01 && v->valuedouble <= 86400))
            return arb_err_set(err, ARB_ESCHEMA,
                               "/judge/batch_poll_s: expected seconds between polls, a number "
                               "from 0.01 to 86400");
        cfg->batch_poll_s = v->valuedouble;
    }
    v = cJSON_GetObjectItemCaseSensitive(obj, "batch_max_requests");
    if (!st && v) {
        if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > (double)limit ||
            v->valuedouble != (double)(long)v->valuedouble)
            return arb_err_set(err, ARB_ESCHEMA,
                               "/judge/batch_max_requests: expected a whole number from 1 to "
                               "%ld (the provider's limit per batch)",
                               limit);
        cfg->batch_max_requests = (long)v->valuedouble;
    }
    if (!st && !cfg->batch && cfg->provider == ARB_JUDGE_COMMAND &&
        (cJSON_GetObjectItemCaseSensitive(obj, "batch_retry") ||
         cJSON_GetObjectItemCaseSensitive(obj, "batch_poll_s") ||
         cJSON_GetObjectItemCaseSensitive(obj, "batch_max_requests")))
        st = arb_err_set(err, ARB_ESCHEMA,
                         "/judge: the batch_* keys are for a provider with a batch API "
                         "(\"openai\" or \"anthropic\"), not a command judge");
    return st;
}

int judge_config_batch_json(const struct arb_judge_config *cfg, cJSON *o)
{
    /* A synchronous judge's stored config stays as it always was (its keys would change
     * nothing it does). */
    if (!cfg->batch)
        return 1;
    return cJSON_AddStringToObject(o, "mode", cfg->batch ? "batch" : "sync") &&
           cJSON_AddNumberToObject(o, "batch_poll_s", cfg->batch_poll_s) &&
           cJSON_AddNumberToObject(o, "batch_max_requests", (double)cfg->batch_max_requests) &&
           cJSON_AddStringToObject(o, "batch_retry", judge_batch_retry_name(cfg->batch_retry));
}
