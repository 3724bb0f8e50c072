/*
 * health.c - how far the judge can be trusted on this run: how much was
 * escalated, cache hits and tokens, position-inconsistent pairs, how often
 * the first-shown response won, ties, how often the longer output won,
 * agreement between samples, and failures with their reasons.  From the
 * records only.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/report.h"
#include "arbiter/strset.h"

/* The reasons of failure a report lists, and the case ids it names for each. */
#define MAX_REASONS 100
#define MAX_IDS     5

struct health {
    struct arb_store *st;
    int64_t run;
    struct arb_strset cases; /* cases that reached the judge */
    size_t valid, first_won, second_won, tie;
    size_t judged_pairs, inconsistent, longer_known, longer_won;
    double agreement_sum;
    enum arb_status rc;
    struct arb_err *err;
};

static int on_judgment(void *ctx, const struct arb_judgment_row *j)
{
    struct health *h = ctx;
    cJSON *a;
    const cJSON *w;
    int added;

    if (arb_strset_add(&h->cases, j->case_id, 0, &added, NULL)) {
        h->rc = ARB_ENOMEM;
        return 1;
    }
    if (!j->valid || !j->answer_json)
        return 0;
    a = cJSON_Parse(j->answer_json);
    w = cJSON_GetObjectItemCaseSensitive(a, "winner");
    if (cJSON_IsString(w)) {
        h->valid++;
        if (strcmp(w->valuestring, "A") == 0)
            h->first_won++;
        else if (strcmp(w->valuestring, "B") == 0)
            h->second_won++;
        else
            h->tie++;
    }
    cJSON_Delete(a);
    return 0;
}

struct lengths {
    const char *a, *b;
    size_t la, lb;
};

static int on_output(void *ctx, const struct arb_output_row *o)
{
    struct lengths *l = ctx;

    if (strcmp(o->system, l->a) == 0)
        l->la += o->len;
    else if (strcmp(o->system, l->b) == 0)
        l->lb += o->len;
    return 0;
}

static int on_verdict(void *ctx, const struct arb_verdict_row *v)
{
    struct health *h = ctx;
    cJSON *cmp;
    const cJSON *j, *w, *pi, *sa;

    if (!v->comparison_json || !strstr(v->comparison_json, "\"judge\""))
        return 0;
    cmp = cJSON_Parse(v->comparison_json);
    j = cJSON_GetObjectItemCaseSensitive(cmp, "judge");
    w = cJSON_GetObjectItemCaseSensitive(j, "winner");
    pi = cJSON_GetObjectItemCaseSensitive(j, "position_inconsistent");
    sa = cJSON_GetObjectItemCaseSensitive(j, "sample_agreement");
    if (cJSON_IsString(w)) {
        h->judged_pairs++;
        h->inconsistent += cJSON_IsTrue(pi);
        h->agreement_sum += cJSON_IsNumber(sa) ? sa->valuedouble : 0.0;
        if (strcmp(w->valuestring, "A") == 0 || strcmp(w->valuestring, "B") == 0) {
            struct lengths l = {v->system_a, v->system_b, 0, 0};

            if (arb_store_compared_outputs(h->st, h->run, v->case_id, on_output, &l, h->err)) {
                h->rc = ARB_EDB;
                cJSON_Delete(cmp);
                return 1;
            }
            if (l.la != l.lb) {
                int a_longer = l.la > l.lb;

                h->longer_known++;
                h->longer_won += (w->valuestring[0] == 'A') == a_longer;
            }
        }
    }
    cJSON_Delete(cmp);
    return 0;
}

static void rate(cJSON *o, const char *k, double num, double den)
{
    if (den > 0)
        cJSON_AddNumberToObject(o, k, num / den);
    else
        cJSON_AddNullToObject(o, k);
}

enum arb_status arb_report_add_judge_health(struct arb_store *st, int64_t run, cJSON *report,
                                            struct arb_err *err)
{
    struct health h;
    struct arb_judge_totals t;
    const cJSON *jc =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(report, "run"), "judge");
    const cJSON *hash = cJSON_GetObjectItemCaseSensitive(jc, "hash");
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(report, "cases");
    const cJSON *failed = cJSON_GetObjectItemCaseSensitive(report, "judge_failed");
    const cJSON *refused = cJSON_GetObjectItemCaseSensitive(report, "judge_refused");
    cJSON *o;
    enum arb_status rc;

    memset(&h, 0, sizeof(h));
    h.st = st;
    h.run = run;
    h.err = err;
    arb_strset_init(&h.cases);
    rc = arb_store_judge_totals(st, run, &t, err);
    /* Without a single judgment there is nothing to read back (and 100k verdicts to skip). */
    if (!rc && t.judgments)
        rc = arb_store_judgments(st, run, NULL, on_judgment, &h, err);
    if (!rc)
        rc = h.rc;
    if (!rc && t.judgments)
        rc = arb_store_verdicts(st, run, NULL, on_verdict, &h, err);
    if (!rc)
        rc = h.rc;
    o = rc ? NULL : cJSON_AddObjectToObject(report, "judge_health");
    if (!rc && !o)
        rc = ARB_ENOMEM;
    if (!rc) {
        cJSON_AddNumberToObject(o, "escalated_cases", (double)h.cases.n);
        rate(o, "escalation_rate", (double)h.cases.n,
             cJSON_IsNumber(cases) ? cases->valuedouble : 0);
        cJSON_AddNumberToObject(o, "requests", (double)t.judgments);
        cJSON_AddNumberToObject(o, "cache_hits", (double)t.cached);
        cJSON_AddNumberToObject(o, "invalid_replies", (double)t.invalid);
        cJSON_AddNumberToObject(o, "prompt_tokens", (double)t.prompt_tokens);
        cJSON_AddNumberToObject(o, "completion_tokens", (double)t.completion_tokens);
        rate(o, "position_inconsistent_rate", (double)h.inconsistent, (double)h.judged_pairs);
        rate(o, "first_position_win_rate", (double)h.first_won,
             (double)(h.first_won + h.second_won));
        rate(o, "tie_rate", (double)h.tie, (double)h.valid);
        rate(o, "longer_output_won_rate", (double)h.longer_won, (double)h.longer_known);
        rate(o, "sample_agreement", h.agreement_sum, (double)h.judged_pairs);
        cJSON_AddNumberToObject(o, "judge_failed",
                                cJSON_IsNumber(failed) ? failed->valuedouble : 0);
        cJSON_AddNumberToObject(o, "judge_refused",
                                cJSON_IsNumber(refused) ? refused->valuedouble : 0);
        if (cJSON_IsString(hash))
            cJSON_AddStringToObject(o, "config_hash", hash->valuestring);
        else
            cJSON_AddNullToObject(o, "config_hash");
    }
    if (!rc) {
        const cJSON *proc = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(report, "run"), "procedure_hash");

        rc = arb_report_add_calibration(st, cJSON_IsString(proc) ? proc->valuestring : NULL,
                                        jc && cJSON_IsString(hash) ? hash->valuestring : NULL, o,
                                        err);
    }
    arb_strset_release(&h.cases);
    /* Only judgments can fail: a run without any has nothing to look for. */
    if (!rc && t.judgments)
        rc = arb_report_add_judge_failures(st, run, o, MAX_REASONS, MAX_IDS, err);
    else if (!rc && !cJSON_AddArrayToObject(o, "judge_failures"))
        rc = ARB_ENOMEM;
    if (!rc)
        rc = arb_report_add_judge_cost(st, run, report, err);
    return rc;
}
