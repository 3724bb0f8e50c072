/*
 * summary.c - a run's totals, computed from its stored records only (so a
 * resumed run and a report agree with an uninterrupted one).
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "arbiter/buf.h"
#include "arbiter/run.h"

void arb_run_summary_release(struct arb_run_summary *s)
{
    size_t i;

    for (i = 0; i < s->n_systems; i++)
        free(s->systems[i].name);
    free(s->systems);
    memset(s, 0, sizeof(*s));
}

struct tally {
    struct arb_run_summary *sum;
    struct arb_buf case_id; /* the case being tallied, */
    int in_case;            /* when there is one */
    int missing, pending, failed, refused;
    enum arb_status st;
    int (*fn)(void *ctx, const struct arb_verdict_row *v); /* the caller's, or NULL */
    void *ctx;
    int stopped; /* fn returned non-zero */
};

static struct arb_run_system_total *system_total(struct arb_run_summary *sum, const char *name)
{
    size_t i;
    struct arb_run_system_total *v;

    for (i = 0; i < sum->n_systems; i++)
        if (strcmp(sum->systems[i].name, name) == 0)
            return &sum->systems[i];
    v = realloc(sum->systems, (sum->n_systems + 1) * sizeof(*v));
    if (!v)
        return NULL;
    sum->systems = v;
    v = &sum->systems[sum->n_systems];
    memset(v, 0, sizeof(*v));
    v->name = strdup(name);
    if (!v->name)
        return NULL;
    sum->n_systems++;
    return v;
}

static void close_case(struct tally *t)
{
    if (!t->in_case)
        return;
    if (t->missing)
        t->sum->missing++;
    else if (t->failed)
        t->sum->judge_failed++;
    else if (t->refused)
        t->sum->judge_refused++;
    else if (t->pending)
        t->sum->pending++;
    else
        t->sum->decided++;
    arb_buf_reset(&t->case_id);
    t->in_case = 0;
    t->missing = t->pending = t->failed = t->refused = 0;
}

static int tally_verdict(void *ctx, const struct arb_verdict_row *v)
{
    struct tally *t = ctx;
    struct arb_run_system_total *a, *b;

    if (!t->in_case || strcmp(t->case_id.ptr ? t->case_id.ptr : "", v->case_id) != 0) {
        /* kept in a buffer reused case after case, not a copy of each id */
        close_case(t);
        if (arb_buf_adds(&t->case_id, v->case_id) != ARB_OK) {
            t->st = ARB_ENOMEM;
            return 1;
        }
        t->in_case = 1;
    }
    /* Looking b up may grow the array a points into: look a up again after it. */
    b = system_total(t->sum, v->system_b);
    a = b ? system_total(t->sum, v->system_a) : NULL;
    b = a ? system_total(t->sum, v->system_b) : NULL;
    if (!a || !b) {
        t->st = ARB_ENOMEM;
        return 1;
    }
    if (strcmp(v->status, "missing_output") == 0) {
        t->missing = 1;
    } else if (strcmp(v->status, "pending_judge") == 0 ||
               strcmp(v->status, "position_inconsistent") == 0) {
        t->pending = 1;
    } else if (strcmp(v->status, "judge_failed") == 0) {
        t->failed = 1;
    } else if (strcmp(v->status, "judge_refused") == 0) {
        t->refused = 1;
    } else if (v->winner && strcmp(v->winner, "TIE") == 0) {
        a->ties++;
        b->ties++;
    } else if (v->winner) {
        int a_won = strcmp(v->winner, v->system_a) == 0;

        (a_won ? a : b)->wins++;
        (a_won ? b : a)->losses++;
    }
    if (t->fn && t->fn(t->ctx, v)) {
        t->stopped = 1;
        return 1;
    }
    return 0;
}

enum arb_status arb_run_summary_add_system(struct arb_run_summary *sum, const char *name)
{
    return system_total(sum, name) ? ARB_OK : ARB_ENOMEM;
}

/* Register the run's systems first, so their order is the suite's. */
static int note_systems(void *ctx, const struct arb_run_row *run)
{
    struct tally *t = ctx;
    cJSON *arr = cJSON_Parse(run->systems_json ? run->systems_json : "[]");
    const cJSON *s;

    cJSON_ArrayForEach(s, arr)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(s, "name");

        if (cJSON_IsString(name) && !system_total(t->sum, name->valuestring))
            t->st = ARB_ENOMEM;
    }
    cJSON_Delete(arr);
    return 1;
}

enum arb_status arb_run_summarize(struct arb_store *st, int64_t run, struct arb_run_summary *sum,
                                  struct arb_err *err)
{
    return arb_run_summarize_rows(st, run, sum, NULL, NULL, NULL, err);
}

enum arb_status arb_run_summarize_rows(struct arb_store *st, int64_t run,
                                       struct arb_run_summary *sum,
                                       int (*begin)(void *ctx, struct arb_run_summary *sum),
                                       int (*fn)(void *ctx, const struct arb_verdict_row *v),
                                       void *ctx, struct arb_err *err)
{
    struct tally t = {sum, {NULL, 0, 0, 0}, 0, 0, 0, 0, 0, ARB_OK, fn, ctx, 0};
    int64_t n = 0;
    enum arb_status rc;

    arb_buf_init(&t.case_id, 0);
    memset(sum, 0, sizeof(*sum));
    sum->run_id = run;
    rc = arb_store_runs(st, run, note_systems, &t, err);
    if (!rc)
        rc = t.st;
    if (!rc)
        rc = arb_store_count(st, run, "cases", &n, err);
    sum->cases = (size_t)n;
    if (!rc)
        rc = arb_store_count(st, run, "problems", &n, err);
    sum->problems = (size_t)n;
    if (!rc)
        rc = arb_store_count(st, run, "judged_cases", &n, err);
    sum->judged = (size_t)n;
    if (!rc && begin && begin(ctx, sum))
        t.stopped = 1;
    /* Without a reader of the rows, the outcomes alone: SQLite then never reads the
     * comparison texts. */
    if (!rc && !t.stopped)
        rc = fn ? arb_store_verdicts_ahead(st, run, tally_verdict, &t, err)
                : arb_store_verdict_outcomes(st, run, tally_verdict, &t, err);
    close_case(&t);
    arb_buf_release(&t.case_id);
    if (!rc)
        rc = t.st;
    if (rc)
        arb_run_summary_release(sum);
    return rc;
}
