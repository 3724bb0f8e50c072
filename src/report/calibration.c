/*
 * calibration.c - the judge-health line about calibration: the study of the
 * run's decision procedure (db/migrations/007-procedure-identity.sql), looked
 * up by the run's procedure_hash, or why none applies.
 *
 * A study of the judge's own per-order winners (calibrate LABELS) measures
 * another procedure than the run's (no rubric, no policy): it is named as the
 * reason, never taken for the run's calibration.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arbiter/report.h"

/* "0.52 [0.31, 0.70]", or "undefined" */
static void kappa_text(const struct arb_calibration_info *c, char *out, size_t len)
{
    if (isnan(c->kappa))
        snprintf(out, len, "undefined");
    else if (isnan(c->kappa_lo) || isnan(c->kappa_hi))
        snprintf(out, len, "%.2f", c->kappa);
    else
        snprintf(out, len, "%.2f [%.2f, %.2f]", c->kappa, c->kappa_lo, c->kappa_hi);
}

static int add_real(cJSON *o, const char *k, double v)
{
    return (isnan(v) ? cJSON_AddNullToObject(o, k) : cJSON_AddNumberToObject(o, k, v)) != NULL;
}

static cJSON *study_json(const struct arb_calibration_info *c)
{
    cJSON *o = cJSON_CreateObject();

    if (o && cJSON_AddNumberToObject(o, "id", (double)c->id) &&
        cJSON_AddStringToObject(o, "procedure_hash", c->procedure_hash) &&
        cJSON_AddStringToObject(o, "source", c->source) &&
        cJSON_AddStringToObject(o, "labels", c->labels_path) &&
        cJSON_AddNumberToObject(o, "n", (double)c->n) && add_real(o, "kappa", c->kappa) &&
        add_real(o, "kappa_lo", c->kappa_lo) && add_real(o, "kappa_hi", c->kappa_hi) &&
        add_real(o, "accuracy", c->accuracy) &&
        cJSON_AddStringToObject(o, "created_at", c->created_at) &&
        (c->run ? cJSON_AddNumberToObject(o, "run", (double)c->run)
                : cJSON_AddNullToObject(o, "run")) != NULL)
        return o;
    cJSON_Delete(o);
    return NULL;
}

enum arb_status arb_report_add_calibration(struct arb_store *st, const char *procedure_hash,
                                           const char *judge_hash, cJSON *health,
                                           struct arb_err *err)
{
    struct arb_calibration_info c;
    char line[900], kappa[64];
    cJSON *study = NULL;
    int found = 0;
    enum arb_status rc = ARB_OK;

    /* The run's procedure, judged or not (without a judge the checks and the policy decide,
     * and a study may still measure them). */
    if (procedure_hash)
        rc = arb_store_calibration_of(st, procedure_hash, NULL, &c, &found, err);
    if (rc)
        return rc;
    if (found) {
        kappa_text(&c, kappa, sizeof(kappa));
        snprintf(line, sizeof(line), "%sprocedure %.12s, n %lld, kappa %s, %.10s (calibrate --%s)",
                 judge_hash ? "" : "no judge; ", procedure_hash, (long long)c.n, kappa,
                 c.created_at, c.source);
        study = study_json(&c);
        if (!study)
            return ARB_ENOMEM;
    } else if (!judge_hash) {
        snprintf(line, sizeof(line), "no judge");
    } else if (!procedure_hash) {
        snprintf(line, sizeof(line),
                 "uncalibrated: the run was stored before procedures had an identity (run its "
                 "suite again, or replay --rejudge it into a new run, to calibrate)");
    } else {
        rc = arb_store_calibration_of(st, NULL, judge_hash, &c, &found, err);
        if (!rc && found)
            snprintf(line, sizeof(line),
                     "uncalibrated: no study of procedure %.12s; judge config %.12s has a study "
                     "of its own per-order winners (calibrate LABELS), which is not the run's "
                     "rubric and policy (arbiter calibrate --suite SUITE LABELS)",
                     procedure_hash, judge_hash);
        else if (!rc)
            snprintf(line, sizeof(line),
                     "uncalibrated: no study of procedure %.12s (arbiter calibrate --suite "
                     "SUITE LABELS, or --run RUN LABELS)",
                     procedure_hash);
    }
    if (rc)
        return rc;
    if (!cJSON_AddStringToObject(health, "calibration", line) ||
        !(study ? cJSON_AddItemToObject(health, "calibration_study", study)
                : cJSON_AddNullToObject(health, "calibration_study") != NULL)) {
        cJSON_Delete(study);
        return ARB_ENOMEM;
    }
    return ARB_OK;
}
