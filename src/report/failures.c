/*
 * failures.c - why the judge failed: the distinct reasons of a run's failed
 * judgments with their counts and the first cases of each (report.h,
 * arb_report_add_judge_failures), for the report's judge health and the
 * summary `arbiter run` and `arbiter replay --rejudge` print.  Which
 * judgments failed, and the order, are the store's
 * (arb_store_judge_failures); this file groups its rows.
 */
#include <stdlib.h>
#include <string.h>

#include "arbiter/report.h"

struct group {
    cJSON *list;     /* "judge_failures" */
    cJSON *cur;      /* the reason being filled, in list; NULL past max_reasons */
    char *reason;    /* its text (the rows' strings are borrowed) */
    char *last_case; /* the last case counted for it */
    size_t max_reasons, max_ids;
    size_t reasons;    /* distinct reasons seen */
    double more_count; /* judgments of the reasons left off */
    double cases;      /* distinct cases of the current reason */
    cJSON *ids;        /* its "case_ids" */
    enum arb_status rc;
};

/* Finish the current reason: its count of cases. */
static void close_reason(struct group *g)
{
    if (g->cur)
        cJSON_SetNumberValue(cJSON_GetObjectItemCaseSensitive(g->cur, "cases"), g->cases);
    g->cur = NULL;
}

/* A new reason: listed when there is room, else counted among those left off. */
static int open_reason(struct group *g, const struct arb_judge_failure_row *f)
{
    char *copy;

    close_reason(g);
    copy = strdup(f->reason);
    free(g->reason);
    g->reason = copy;
    free(g->last_case);
    g->last_case = NULL;
    g->cases = 0;
    if (!copy)
        return 0;
    if (g->reasons++ >= g->max_reasons) {
        g->more_count += (double)f->n;
        return 1;
    }
    g->cur = cJSON_CreateObject();
    if (!g->cur || !cJSON_AddItemToArray(g->list, g->cur)) {
        cJSON_Delete(g->cur);
        g->cur = NULL;
        return 0;
    }
    return cJSON_AddStringToObject(g->cur, "reason", f->reason) &&
           cJSON_AddNumberToObject(g->cur, "count", (double)f->n) &&
           cJSON_AddNumberToObject(g->cur, "cases", 0) &&
           (g->ids = cJSON_AddArrayToObject(g->cur, "case_ids")) != NULL;
}

static int on_failure(void *ctx, const struct arb_judge_failure_row *f)
{
    struct group *g = ctx;
    int ok = 1;

    if (!g->reason || strcmp(g->reason, f->reason) != 0)
        ok = open_reason(g, f);
    /* A reason's rows come in case order: a new case id is a new case. */
    if (ok && g->cur && (!g->last_case || strcmp(g->last_case, f->case_id) != 0)) {
        char *copy = strdup(f->case_id);

        free(g->last_case);
        g->last_case = copy;
        g->cases++;
        if (!copy || (cJSON_GetArraySize(g->ids) < (int)g->max_ids &&
                      !cJSON_AddItemToArray(g->ids, cJSON_CreateString(f->case_id))))
            ok = 0;
    }
    if (!ok) {
        g->rc = ARB_ENOMEM;
        return 1;
    }
    return 0;
}

enum arb_status arb_report_add_judge_failures(struct arb_store *st, int64_t run, cJSON *parent,
                                              size_t max_reasons, size_t max_ids,
                                              struct arb_err *err)
{
    struct group g;
    enum arb_status rc;

    memset(&g, 0, sizeof(g));
    g.max_reasons = max_reasons;
    g.max_ids = max_ids > 1000 ? 1000 : max_ids;
    g.list = cJSON_AddArrayToObject(parent, "judge_failures");
    if (!g.list)
        return ARB_ENOMEM;
    rc = arb_store_judge_failures(st, run, NULL, on_failure, &g, err);
    if (!rc)
        rc = g.rc;
    close_reason(&g);
    if (!rc && g.reasons > max_reasons) {
        cJSON *more = cJSON_AddObjectToObject(parent, "judge_failures_more");

        if (!more || !cJSON_AddNumberToObject(more, "reasons", (double)(g.reasons - max_reasons)) ||
            !cJSON_AddNumberToObject(more, "count", g.more_count))
            rc = ARB_ENOMEM;
    }
    free(g.reason);
    free(g.last_case);
    if (rc == ARB_ENOMEM && !err->msg[0])
        arb_err_set(err, rc, "out of memory listing the judge's failures");
    return rc;
}
