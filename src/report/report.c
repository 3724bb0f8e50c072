/*
 * report.c - building the report object from a run's records (see
 * include/arbiter/report.h).  The comparison.json of each verdict carries
 * the rubric and expectation results of both sides; each (case, system) is
 * counted once, from the first pair it appears in.  One pass over the
 * verdicts serves the run's totals (arb_run_summarize_rows), the report, the
 * win matrix and the statistics: each comparison.json is read and parsed once.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/report.h"
#include "arbiter/run.h"
#include "report_int.h"

struct acc {
    cJSON *systems;         /* name -> accumulator object */
    cJSON *expectations;    /* id -> {"text", "systems": {name: counts}} */
    cJSON *exp_order;       /* ids in first-seen order */
    struct arb_buf case_id; /* the case being counted */
    const char **names;     /* the run's systems, suite order */
    size_t n_sys;
    unsigned char *seen;  /* per system: already counted for case_id */
    struct case_rates cr; /* per case, with want_cases */
    int want_cases;
    struct matrix_acc *matrix; /* with parts->win_matrix */
    struct stats_acc *stats;   /* with parts->statistics */
    struct cmp_view view;      /* the verdict's comparison.json, as read */
    char bad[300];             /* which verdict's comparison could not be read */
    const struct arb_report_parts *parts;
    char **extra; /* systems only verdicts name, found by a first pass (an edited database) */
    size_t n_extra;
    struct arb_store *store; /* the statistics read the outputs' durations */
    int64_t run;
    struct arb_err *err;
    enum arb_status st;
};

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* obj[k] += by (creating it at 0). */
static int bump(cJSON *obj, const char *k, double by)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, k);

    if (!v)
        return cJSON_AddNumberToObject(obj, k, by) != NULL;
    cJSON_SetNumberValue(v, v->valuedouble + by);
    return 1;
}

static cJSON *child(cJSON *obj, const char *k)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, k);

    return v ? v : cJSON_AddObjectToObject(obj, k);
}

/* Add one side's rubric and expectations to the system's accumulator. */
static int add_side(struct acc *a, const char *case_id, const char *system,
                    const struct cmp_side *sd)
{
    static const char *const dims[] = {"content", "structure"};
    static const char *const scores[] = {"content_score", "structure_score", "overall_score"};
    uint32_t n[3] = {0, 0, 0};
    cJSON *sys = child(a->systems, system);
    size_t k, i;

    if (!sys)
        return 0;
    for (k = 0; k < 2; k++) {
        cJSON *sums = sd->n_crit[k] ? child(sys, dims[k]) : NULL;

        for (i = 0; i < sd->n_crit[k]; i++) {
            const struct cmp_crit *c = &sd->crit[k][i];
            cJSON *acc = sums ? child(sums, c->name) : NULL;

            if (!acc)
                return 0;
            /* A criterion whose value is not a number is listed, without a score. */
            if (c->is_number && (!bump(acc, "sum", c->value) || !bump(acc, "n", 1)))
                return 0;
        }
    }
    if (sd->score_is_number[2]) {
        for (k = 0; k < 3; k++)
            if (!bump(sys, scores[k], sd->score[k]))
                return 0;
        if (!bump(sys, "scored", 1))
            return 0;
    }
    for (i = 0; i < sd->n_exp; i++) {
        const struct cmp_exp *e = &sd->exp[i];
        const char *what = e->passed == 1 ? "passed" : e->passed == 0 ? "failed" : "unresolved";
        cJSON *x, *per;

        if (!e->id)
            continue;
        n[e->passed == 1 ? 0 : e->passed == 0 ? 1 : 2]++;
        x = cJSON_GetObjectItemCaseSensitive(a->expectations, e->id);
        if (!x) {
            x = cJSON_AddObjectToObject(a->expectations, e->id);
            if (!x || !cJSON_AddStringToObject(x, "text", e->text ? e->text : "") ||
                !cJSON_AddItemToArray(a->exp_order, cJSON_CreateString(e->id)))
                return 0;
        }
        per = child(child(x, "systems"), system);
        if (!per || !bump(per, what, 1) || !bump(child(sys, "expectations"), what, 1))
            return 0;
    }
    if (a->want_cases) {
        enum arb_status st = case_rates_add(&a->cr, case_id, system, n[0], n[1], n[2]);

        if (st) {
            a->st = st; /* ARB_EIO: the spill file could not be written */
            return 0;
        }
    }
    return 1;
}

/* 1 when system was already counted for case_id (each (case, system) counts once). */
static int seen_in_case(struct acc *a, const char *case_id, const char *system)
{
    size_t i;

    if (!a->case_id.ptr || strcmp(a->case_id.ptr, case_id) != 0) {
        arb_buf_reset(&a->case_id);
        if (arb_buf_adds(&a->case_id, case_id)) {
            a->st = ARB_ENOMEM;
            return 1;
        }
        memset(a->seen, 0, a->n_sys ? a->n_sys : 1);
    }
    for (i = 0; i < a->n_sys && strcmp(a->names[i], system) != 0; i++)
        ;
    if (i == a->n_sys || a->seen[i])
        return 1; /* a system the run does not list is not counted */
    a->seen[i] = 1;
    return 0;
}

/* The run's systems are known: set up the accumulators (arb_run_summarize_rows). */
static int on_begin(void *ctx, struct arb_run_summary *sum)
{
    struct acc *a = ctx;
    size_t i, n;

    for (i = 0; i < a->n_extra; i++) {
        if (arb_run_summary_add_system(sum, a->extra[i])) {
            a->st = ARB_ENOMEM;
            return 1;
        }
    }
    n = sum->n_systems;
    a->names = calloc(n ? n : 1, sizeof(*a->names));
    a->seen = calloc(n ? n : 1, 1);
    if (!a->names || !a->seen) {
        a->st = ARB_ENOMEM;
        return 1;
    }
    for (i = 0; i < n; i++)
        a->names[i] = sum->systems[i].name; /* stays valid until the summary is released */
    a->n_sys = n;
    a->want_cases = a->parts->case_limit > 0;
    a->st = a->want_cases ? case_rates_init(&a->cr, a->names, n, a->parts->case_limit) : ARB_OK;
    if (a->want_cases && a->parts->case_limit == SIZE_MAX)
        a->cr.spill = a->parts->case_spill;
    if (!a->st && a->parts->win_matrix && !(a->matrix = matrix_acc_new(a->names, n)))
        a->st = ARB_ENOMEM;
    if (!a->st && a->parts->statistics &&
        !(a->stats = stats_acc_new(a->names, n, a->store, a->run, a->err)))
        a->st = ARB_ENOMEM;
    return a->st != ARB_OK;
}

static int on_verdict(void *ctx, const struct arb_verdict_row *v)
{
    struct acc *a = ctx;
    int ok = 1;
    enum arb_status st;

    if (a->matrix)
        matrix_acc_verdict(a->matrix, v);
    if (!v->comparison_json)
        return 0;
    st = cmp_view_read(&a->view, v->comparison_json);
    if (st) {
        a->st = st == ARB_ENOMEM ? ARB_ENOMEM : ARB_EDB;
        snprintf(a->bad, sizeof(a->bad), "case '%.100s' (%.60s vs %.60s)", v->case_id, v->system_a,
                 v->system_b);
        return 1;
    }
    if (!seen_in_case(a, v->case_id, v->system_a))
        ok = add_side(a, v->case_id, v->system_a, &a->view.side[0]);
    if (ok && !seen_in_case(a, v->case_id, v->system_b))
        ok = add_side(a, v->case_id, v->system_b, &a->view.side[1]);
    if (ok && a->stats) {
        /* a store failure reading a duration keeps its status (err says which) */
        st = stats_acc_verdict(a->stats, v, &a->view);
        if (st) {
            a->st = st;
            ok = 0;
        }
    }
    if (!ok || a->st) {
        a->st = a->st ? a->st : ARB_ENOMEM;
        return 1;
    }
    return 0;
}

static int add_rate(cJSON *o, const char *k, double num_, double den)
{
    return den > 0 ? cJSON_AddNumberToObject(o, k, num_ / den) != NULL
                   : cJSON_AddNullToObject(o, k) != NULL;
}

/* {"passed", "failed", "unresolved", "pass_rate"}: the rate is over decided outcomes. */
static cJSON *counts(const cJSON *c)
{
    double p = num(c, "passed"), f = num(c, "failed"), u = num(c, "unresolved");
    cJSON *o = cJSON_CreateObject();

    p = isnan(p) ? 0 : p;
    f = isnan(f) ? 0 : f;
    u = isnan(u) ? 0 : u;
    if (!o || !cJSON_AddNumberToObject(o, "passed", p) ||
        !cJSON_AddNumberToObject(o, "failed", f) || !cJSON_AddNumberToObject(o, "unresolved", u) ||
        !add_rate(o, "pass_rate", p, p + f)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *system_entry(const struct arb_run_system_total *t, const cJSON *acc)
{
    cJSON *o = cJSON_CreateObject(), *rub;
    double decided = (double)(t->wins + t->losses + t->ties), scored = num(acc, "scored");
    const char *dims[] = {"content", "structure"},
               *scores[] = {"content_score", "structure_score", "overall_score"};
    const cJSON *c;
    size_t k;
    int ok = o != NULL;

    ok = ok && cJSON_AddStringToObject(o, "name", t->name);
    ok = ok && cJSON_AddNumberToObject(o, "wins", (double)t->wins);
    ok = ok && cJSON_AddNumberToObject(o, "losses", (double)t->losses);
    ok = ok && cJSON_AddNumberToObject(o, "ties", (double)t->ties);
    ok = ok && add_rate(o, "win_rate", (double)t->wins + 0.5 * (double)t->ties, decided);
    ok = ok && add_rate(o, "win_rate_without_ties", (double)t->wins, (double)(t->wins + t->losses));
    ok = ok && cJSON_AddItemToObject(o, "expectations",
                                     counts(cJSON_GetObjectItemCaseSensitive(acc, "expectations")));
    rub = ok ? cJSON_AddObjectToObject(o, "rubric") : NULL;
    ok = rub != NULL;
    for (k = 0; ok && k < 2; k++) {
        cJSON *dim = cJSON_AddObjectToObject(rub, dims[k]);

        ok = dim != NULL;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(acc, dims[k]))
        {
            if (ok)
                ok = add_rate(dim, c->string, num(c, "sum"), num(c, "n"));
        }
    }
    for (k = 0; ok && k < 3; k++)
        ok = add_rate(o, scores[k], num(acc, scores[k]), isnan(scored) ? 0 : scored);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

struct run_info {
    cJSON *out;
    int ok;
};

static int on_run(void *ctx, const struct arb_run_row *r)
{
    struct run_info *ri = ctx;
    cJSON *o = cJSON_AddObjectToObject(ri->out, "run");

    ri->ok = o && cJSON_AddNumberToObject(o, "id", (double)r->id) &&
             cJSON_AddStringToObject(o, "suite", r->suite_name ? r->suite_name : "") &&
             cJSON_AddStringToObject(o, "suite_sha256", r->suite_sha256 ? r->suite_sha256 : "") &&
             cJSON_AddStringToObject(o, "created_at", r->created_at ? r->created_at : "") &&
             cJSON_AddStringToObject(o, "status", r->status ? r->status : "") &&
             cJSON_AddNumberToObject(o, "seed", (double)r->seed) &&
             cJSON_AddStringToObject(o, "arbiter_version", r->version ? r->version : "") &&
             cJSON_AddStringToObject(o, "kind", r->kind ? r->kind : "run") &&
             (!r->procedure_hash ||
              cJSON_AddStringToObject(o, "procedure_hash", r->procedure_hash));
    if (ri->ok && r->judge_json) {
        cJSON *j = cJSON_Parse(r->judge_json);

        ri->ok = j && cJSON_AddItemToObject(o, "judge", j);
    }
    return 1;
}

static int on_problem(void *ctx, const struct arb_problem_row *p)
{
    cJSON *arr = ctx, *o = cJSON_CreateObject();

    if (!o || !cJSON_AddItemToArray(arr, o))
        return 1;
    cJSON_AddStringToObject(o, "kind", p->kind);
    if (p->case_id)
        cJSON_AddStringToObject(o, "case", p->case_id);
    if (p->system)
        cJSON_AddStringToObject(o, "system", p->system);
    cJSON_AddStringToObject(o, "message", p->message ? p->message : "");
    return 0;
}

enum arb_status arb_report_build(struct arb_store *st, int64_t run, cJSON **out,
                                 struct arb_err *err)
{
    return arb_report_build_cases(st, run, 0, out, err);
}

enum arb_status arb_report_build_cases(struct arb_store *st, int64_t run, size_t case_limit,
                                       cJSON **out, struct arb_err *err)
{
    struct arb_report_parts parts = {case_limit, 0, NULL, NULL};

    return arb_report_compose(st, run, &parts, out, err);
}

/* The accumulators, empty (all but extra and the store, which a recount keeps). */
static enum arb_status acc_init(struct acc *a, const struct arb_report_parts *parts)
{
    char **extra = a->extra;
    size_t n_extra = a->n_extra;
    struct arb_store *store = a->store;
    int64_t run = a->run;
    struct arb_err *err = a->err;

    memset(a, 0, sizeof(*a));
    a->extra = extra;
    a->n_extra = n_extra;
    a->store = store;
    a->run = run;
    a->err = err;
    arb_buf_init(&a->case_id, 0);
    a->parts = parts;
    cmp_view_init(&a->view);
    a->systems = cJSON_CreateObject();
    a->expectations = cJSON_CreateObject();
    a->exp_order = cJSON_CreateArray();
    return a->systems && a->expectations && a->exp_order ? ARB_OK : ARB_ENOMEM;
}

static void acc_release(struct acc *a)
{
    cJSON_Delete(a->systems);
    cJSON_Delete(a->expectations);
    cJSON_Delete(a->exp_order);
    free(a->seen);
    free(a->names);
    arb_buf_release(&a->case_id);
    case_rates_release(&a->cr);
    matrix_acc_free(a->matrix);
    stats_acc_free(a->stats);
    cmp_view_release(&a->view);
    a->systems = a->expectations = a->exp_order = NULL;
    a->seen = NULL;
    a->names = NULL;
    a->matrix = NULL;
    a->stats = NULL;
}

/* The one pass over the verdicts, into sum and a. */
static enum arb_status scan(struct arb_store *st, int64_t run, struct arb_run_summary *sum,
                            struct acc *a, struct arb_err *err)
{
    enum arb_status rc = arb_run_summarize_rows(st, run, sum, on_begin, on_verdict, a, err);

    if (!rc)
        rc = a->st;
    if (!rc && !a->names) /* begin was not reached */
        rc = ARB_EINTERNAL;
    return rc;
}

/*
 * Systems that verdicts name but the run does not list (only an edited
 * database has them) turn up during the pass, too late for the accumulators:
 * keep their names and count again, with them known from the start.
 */
static enum arb_status recount(struct arb_store *st, int64_t run, struct arb_run_summary *sum,
                               struct acc *a, struct arb_err *err)
{
    size_t i, n = sum->n_systems - a->n_sys;

    a->extra = calloc(n, sizeof(*a->extra));
    if (!a->extra)
        return ARB_ENOMEM;
    for (i = 0; i < n; i++)
        if (!(a->extra[a->n_extra++] = strdup(sum->systems[a->n_sys + i].name)))
            return ARB_ENOMEM;
    acc_release(a);
    arb_run_summary_release(sum);
    if (acc_init(a, a->parts))
        return ARB_ENOMEM;
    return scan(st, run, sum, a, err);
}

enum arb_status arb_report_compose(struct arb_store *st, int64_t run,
                                   const struct arb_report_parts *parts, cJSON **out,
                                   struct arb_err *err)
{
    struct arb_run_summary sum;
    struct acc a;
    cJSON *r = cJSON_CreateObject(), *systems = NULL, *exps = NULL, *problems = NULL;
    struct run_info ri = {r, 0};
    const cJSON *id;
    size_t i;
    enum arb_status rc;

    memset(&a, 0, sizeof(a));
    a.store = st;
    a.run = run;
    a.err = err;
    rc = acc_init(&a, parts);
    if (!r)
        rc = ARB_ENOMEM;

    memset(&sum, 0, sizeof(sum));
    if (!rc)
        rc = arb_store_runs(st, run, on_run, &ri, err);
    if (!rc && !ri.ok)
        rc = ARB_ENOMEM;
    if (!rc)
        rc = scan(st, run, &sum, &a, err);
    if (!rc && sum.n_systems > a.n_sys)
        rc = recount(st, run, &sum, &a, err);
    if (!rc && !(cJSON_AddNumberToObject(r, "cases", (double)sum.cases) &&
                 cJSON_AddNumberToObject(r, "decided", (double)sum.decided) &&
                 cJSON_AddNumberToObject(r, "pending_judge", (double)sum.pending) &&
                 cJSON_AddNumberToObject(r, "missing_output", (double)sum.missing) &&
                 (systems = cJSON_AddArrayToObject(r, "systems")) &&
                 (exps = cJSON_AddArrayToObject(r, "expectations")) &&
                 (problems = cJSON_AddArrayToObject(r, "problems"))))
        rc = ARB_ENOMEM;
    for (i = 0; !rc && i < sum.n_systems; i++) {
        const cJSON *acc = cJSON_GetObjectItemCaseSensitive(a.systems, sum.systems[i].name);

        if (!cJSON_AddItemToArray(systems, system_entry(&sum.systems[i], acc)))
            rc = ARB_ENOMEM;
    }
    cJSON_ArrayForEach(id, a.exp_order)
    {
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(a.expectations, id->valuestring);
        cJSON *o = cJSON_CreateObject(), *per;
        const cJSON *c;

        if (rc || !o || !cJSON_AddItemToArray(exps, o)) {
            cJSON_Delete(rc ? o : NULL);
            rc = rc ? rc : ARB_ENOMEM;
            break;
        }
        cJSON_AddStringToObject(o, "id", id->valuestring);
        cJSON_AddStringToObject(o, "text",
                                cJSON_GetObjectItemCaseSensitive(e, "text")->valuestring);
        per = cJSON_AddObjectToObject(o, "systems");
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(e, "systems"))
        {
            if (!per || !cJSON_AddItemToObject(per, c->string, counts(c)))
                rc = ARB_ENOMEM;
        }
    }
    if (!rc && a.want_cases)
        rc = case_rates_emit(&a.cr, r);
    if (!rc && a.matrix)
        rc = matrix_acc_emit(a.matrix, r);
    if (!rc && a.stats)
        rc = stats_acc_emit(a.stats, parts->statistics, r, err);
    if (!rc)
        rc = arb_store_problems(st, run, on_problem, problems, err);
    if (!rc) {
        struct arb_judge_totals jt;
        cJSON *j;

        rc = arb_store_judge_totals(st, run, &jt, err);
        j = rc ? NULL : cJSON_AddObjectToObject(r, "judge_usage");
        if (!rc &&
            !(j && cJSON_AddNumberToObject(j, "judgments", (double)jt.judgments) &&
              cJSON_AddNumberToObject(j, "cached", (double)jt.cached) &&
              cJSON_AddNumberToObject(j, "invalid_replies", (double)jt.invalid) &&
              cJSON_AddNumberToObject(j, "prompt_tokens", (double)jt.prompt_tokens) &&
              cJSON_AddNumberToObject(j, "completion_tokens", (double)jt.completion_tokens) &&
              cJSON_AddNumberToObject(j, "latency_s", jt.latency_s) &&
              cJSON_AddNumberToObject(r, "judge_failed", (double)sum.judge_failed) &&
              cJSON_AddNumberToObject(r, "judge_refused", (double)sum.judge_refused)))
            rc = ARB_ENOMEM;
    }
    arb_run_summary_release(&sum);
    acc_release(&a);
    for (i = 0; i < a.n_extra; i++)
        free(a.extra[i]);
    free(a.extra);
    if (rc) {
        cJSON_Delete(r);
        if (rc == ARB_EDB && a.bad[0] && !err->msg[0])
            arb_err_set(err, rc, "run %lld: the stored comparison of %s is not JSON",
                        (long long)run, a.bad);
        else if (rc == ARB_ENOMEM && !err->msg[0])
            arb_err_set(err, rc, "out of memory building the report");
        else if (rc == ARB_EIO && !err->msg[0])
            arb_err_set(err, rc, "cannot write the cases' pass rates to a temporary file");
        return rc;
    }
    *out = r;
    return ARB_OK;
}
