/*
 * trials.c - pass@k and pass^k from the trials of a run, with the trials'
 * quality and performance (report.h).
 *
 * A system's case with several trials (outputs numbered by "trial") has n
 * decided trials, c of which passed every expectation (src/run/trials.c).
 * Per case, pass@k = 1 - C(n-c, k) / C(n, k) is the chance that at least one
 * of k trials drawn without replacement passes (the unbiased estimator of
 * Chen et al., 2021), and pass^k = C(c, k) / C(n, k) the chance that all k
 * pass.  The report gives, per system and for k = 1 up to the most trials
 * any case has (at most MAX_K), the mean over the cases with at least k
 * decided trials.  A case with a trial left unresolved (a check in its grey
 * band) is left out of pass@k for that system, whole: dropping only that
 * trial would bias n and c.  The cases left out are counted
 * ("unresolved_cases").
 *
 * Quality and performance follow the seed's trials report
 * (comparison-graders.md): a trial's score is its output's own grader score
 * when the capture carries one ("score.score", 0-1, as weighted.c), else the share
 * of its checked expectations that passed when none is unresolved; its
 * duration is its output's (duration.c).  Both are pooled over every trial
 * of the system: mean, median, p25 and p75 of the scores; p50, p90, p99,
 * mean, min, max and the total of the durations (percentiles by linear
 * interpolation between closest ranks, arb_quantile).
 *
 * With opts (the statistical strategy) every figure gets a 95% percentile
 * bootstrap interval and the median of its resampled values, all from one
 * resampling of the run's cases with trials (arb_bootstrap_clusters): a
 * case's trials stay together, and pass@1 and pass^1, the same quantity, get
 * the same interval.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/report.h"
#include "arbiter/stats.h"
#include "stats_int.h"

#define MAX_K 10

/* What one system did on one case. */
struct tcase {
    char *id;
    size_t n, c;      /* decided trials, and those that passed */
    int resolved;     /* no trial left unresolved: counted for pass@k */
    double score_sum; /* its trials' scores */
    size_t scored;    /* how many have one */
    double ms_sum;    /* its trials' durations */
    size_t timed;     /* how many have one */
};

struct tsys {
    char *name;
    struct tcase *cs;
    size_t n_cs, cap_cs;
    size_t cases; /* resolved cases */
    size_t trials, unresolved, unresolved_cases, max_n, min_n;
    struct dvec scores, ms; /* every trial's score and duration */
    size_t from_output, from_checks;
};

/* A trial of the case being read: its number and its checks. */
struct ttrial {
    int64_t trial;
    int64_t n_pass, n_fail, n_unresolved;
};

struct tacc {
    struct arb_store *store;
    int64_t run;
    struct arb_err *err;
    struct tsys *sys;
    size_t n_sys, cap;
    char *case_id; /* the case being summed, and its counts */
    size_t n, c;
    int unresolved;    /* a trial of it is unresolved: the case is left out of pass@k */
    struct ttrial *tr; /* its trials */
    size_t n_tr, cap_tr;
    double *own; /* per trial of tr: the output's own score and duration (NaN: none) */
    double *dur;
    enum arb_status st;
};

static struct tsys *sys_named(struct tacc *a, const char *name)
{
    if (a->n_sys && strcmp(a->sys[a->n_sys - 1].name, name) == 0)
        return &a->sys[a->n_sys - 1];
    if (a->n_sys == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 4;
        struct tsys *v = realloc(a->sys, cap * sizeof(*v));

        if (!v)
            return NULL;
        a->sys = v;
        a->cap = cap;
    }
    memset(&a->sys[a->n_sys], 0, sizeof(a->sys[0]));
    a->sys[a->n_sys].name = strdup(name);
    if (!a->sys[a->n_sys].name)
        return NULL;
    return &a->sys[a->n_sys++];
}

/* An output of the case being closed: its own score and duration, by trial. */
static int on_output(void *ctx, const struct arb_output_row *o)
{
    struct tacc *a = ctx;

    if (strcmp(o->system, a->sys[a->n_sys - 1].name) != 0)
        return 0;
    for (size_t i = 0; i < a->n_tr; i++) {
        /* A trial with several files: the first one's capture fields. */
        if (a->tr[i].trial == o->trial && isnan(a->own[i]) && isnan(a->dur[i])) {
            a->own[i] = report_output_score(o->meta_json);
            a->dur[i] = report_output_ms(o->meta_json);
        }
    }
    return 0;
}

/* The trials' scores and durations of the case being closed into s and t. */
static int trial_figures(struct tacc *a, struct tsys *s, struct tcase *t)
{
    for (size_t i = 0; i < a->n_tr; i++)
        a->own[i] = a->dur[i] = NAN;
    if (a->store && arb_store_outputs(a->store, a->run, a->case_id, on_output, a, a->err)) {
        a->st = ARB_EDB;
        return -1;
    }
    for (size_t i = 0; i < a->n_tr; i++) {
        const struct ttrial *r = &a->tr[i];
        double score = a->own[i];

        if (!isnan(score))
            s->from_output++;
        else if (r->n_unresolved == 0 && r->n_pass + r->n_fail > 0) {
            score = (double)r->n_pass / (double)(r->n_pass + r->n_fail);
            s->from_checks++;
        }
        if (!isnan(score)) {
            t->score_sum += score;
            t->scored++;
            if (dvec_push(&s->scores, score))
                return -1;
        }
        if (!isnan(a->dur[i])) {
            t->ms_sum += a->dur[i];
            t->timed++;
            if (dvec_push(&s->ms, a->dur[i]))
                return -1;
        }
    }
    return 0;
}

/* The case summed so far becomes one case of the last system. */
static int close_case(struct tacc *a)
{
    struct tsys *s = a->n_sys ? &a->sys[a->n_sys - 1] : NULL;
    struct tcase *t;

    if (!s || !a->case_id || !a->n_tr)
        return 0;
    if (s->n_cs == s->cap_cs) {
        size_t cap = s->cap_cs ? s->cap_cs * 2 : 64;
        struct tcase *v = realloc(s->cs, cap * sizeof(*v));

        if (!v)
            return -1;
        s->cs = v;
        s->cap_cs = cap;
    }
    t = &s->cs[s->n_cs];
    memset(t, 0, sizeof(*t));
    t->id = strdup(a->case_id);
    if (!t->id)
        return -1;
    s->n_cs++;
    t->n = a->n;
    t->c = a->c;
    t->resolved = !a->unresolved && a->n > 0;
    if (a->unresolved)
        s->unresolved_cases++;
    else if (a->n > 0) {
        s->cases++;
        s->max_n = a->n > s->max_n ? a->n : s->max_n;
        s->min_n = !s->min_n || a->n < s->min_n ? a->n : s->min_n;
    }
    return trial_figures(a, s, t);
}

static int add_trial(struct tacc *a, const struct arb_trial_row *t)
{
    if (a->n_tr == a->cap_tr) {
        size_t cap = a->cap_tr ? a->cap_tr * 2 : 8;
        struct ttrial *v = realloc(a->tr, cap * sizeof(*v));
        double *own, *dur;

        if (!v)
            return -1;
        a->tr = v;
        own = realloc(a->own, cap * sizeof(*own));
        if (!own)
            return -1;
        a->own = own;
        dur = realloc(a->dur, cap * sizeof(*dur));
        if (!dur)
            return -1;
        a->dur = dur;
        a->cap_tr = cap;
    }
    a->tr[a->n_tr].trial = t->trial;
    a->tr[a->n_tr].n_pass = t->n_pass;
    a->tr[a->n_tr].n_fail = t->n_fail;
    a->tr[a->n_tr].n_unresolved = t->n_unresolved;
    a->n_tr++;
    return 0;
}

static int on_trial(void *ctx, const struct arb_trial_row *t)
{
    struct tacc *a = ctx;
    int new_sys = !a->n_sys || strcmp(a->sys[a->n_sys - 1].name, t->system) != 0;
    struct tsys *s;

    if (new_sys || !a->case_id || strcmp(a->case_id, t->case_id) != 0) {
        if (close_case(a))
            goto fail;
        free(a->case_id);
        a->case_id = strdup(t->case_id);
        a->n = a->c = a->n_tr = 0;
        a->unresolved = 0;
        if (!a->case_id)
            goto fail;
    }
    s = sys_named(a, t->system);
    if (!s || add_trial(a, t))
        goto fail;
    s->trials++;
    if (t->passed < 0) {
        s->unresolved++;
        a->unresolved = 1;
        return 0;
    }
    a->n++;
    a->c += t->passed == 1;
    return 0;
fail:
    a->st = a->st ? a->st : ARB_ENOMEM;
    return 1;
}

/*
 * The columns of one system over the run's U cases with trials (in id order),
 * and its statistics: pass@k and pass^k for k = 1..top (over the resolved
 * cases with at least k trials), then the mean score and the mean duration
 * (over the trials that have one).
 */
struct tcols {
    size_t top;
    double *col;                 /* (3 * top + 4) columns of U */
    struct arb_cluster_stat *st; /* 2 * top + 2 */
};

static int cmp_id(const void *pa, const void *pb)
{
    return strcmp(*(char *const *)pa, *(char *const *)pb);
}

/* The ids of every case some system has trials of, sorted and distinct, into *out. */
static size_t case_ids(const struct tacc *a, char ***out)
{
    size_t total = 0, u = 0;
    char **ids;

    for (size_t i = 0; i < a->n_sys; i++)
        total += a->sys[i].n_cs;
    ids = malloc((total ? total : 1) * sizeof(*ids));
    *out = ids;
    if (!ids)
        return 0;
    for (size_t i = 0; i < a->n_sys; i++)
        for (size_t j = 0; j < a->sys[i].n_cs; j++)
            ids[u++] = a->sys[i].cs[j].id;
    qsort(ids, u, sizeof(*ids), cmp_id);
    total = u;
    u = 0;
    for (size_t j = 0; j < total; j++)
        if (!u || strcmp(ids[u - 1], ids[j]) != 0)
            ids[u++] = ids[j];
    return u;
}

/* Fill s's columns; 0, or -1 on no memory. */
static int fill_columns(const struct tsys *s, char **ids, size_t u, struct tcols *tc,
                        struct arb_cluster_stat *st)
{
    size_t top = s->max_n < MAX_K ? s->max_n : MAX_K, k;
    double *col = calloc((3 * top + 4) * u, sizeof(double));

    tc->top = top;
    tc->col = col;
    tc->st = st;
    if (!col)
        return -1;
    for (size_t j = 0; j < s->n_cs; j++) {
        const struct tcase *t = &s->cs[j];
        char **hit = bsearch(&t->id, ids, u, sizeof(*ids), cmp_id);
        size_t i = (size_t)(hit - ids);

        for (k = 1; t->resolved && k <= top && t->n >= k; k++) {
            col[(3 * (k - 1)) * u + i] = arb_pass_at_k(t->n, t->c, k);
            col[(3 * (k - 1) + 1) * u + i] = arb_pass_hat_k(t->n, t->c, k);
            col[(3 * (k - 1) + 2) * u + i] = 1.0;
        }
        col[(3 * top) * u + i] = t->score_sum;
        col[(3 * top + 1) * u + i] = (double)t->scored;
        col[(3 * top + 2) * u + i] = t->ms_sum;
        col[(3 * top + 3) * u + i] = (double)t->timed;
    }
    for (k = 0; k < top; k++) {
        st[2 * k].num = col + 3 * k * u;
        st[2 * k + 1].num = col + (3 * k + 1) * u;
        st[2 * k].den = st[2 * k + 1].den = col + (3 * k + 2) * u;
    }
    st[2 * top].num = col + 3 * top * u;
    st[2 * top].den = col + (3 * top + 1) * u;
    st[2 * top + 1].num = col + (3 * top + 2) * u;
    st[2 * top + 1].den = col + (3 * top + 3) * u;
    return 0;
}

/* [lo, hi] of c, or NULL when it has none (no interval asked, or no case). */
static cJSON *interval_of(const struct arb_cluster_stat *c)
{
    return c && c->ok ? cJSON_CreateDoubleArray((double[]){c->out.lo, c->out.hi}, 2) : NULL;
}

/* Add key: [lo, hi] and median_key: the bootstrap median of c, when c has an interval. */
static int add_boot(cJSON *o, const char *key, cJSON *med, const char *median_key,
                    const struct arb_cluster_stat *c)
{
    cJSON *iv = interval_of(c);

    if (!c || !c->ok)
        return 1;
    if (!iv || !cJSON_AddItemToObject(o, key, iv)) {
        cJSON_Delete(iv);
        return 0;
    }
    return cJSON_AddNumberToObject(med, median_key, c->median) != NULL;
}

/* One {"k", "cases", "pass@k", "pass^k"[, intervals and medians]} entry; NULL on no memory. */
static cJSON *k_entry(const struct tsys *s, size_t k, const struct arb_cluster_stat *st)
{
    cJSON *e = cJSON_CreateObject();
    double sum_at = 0, sum_hat = 0;
    size_t m = 0;
    int ok = e != NULL;

    for (size_t i = 0; i < s->n_cs; i++) {
        if (!s->cs[i].resolved || s->cs[i].n < k)
            continue;
        sum_at += arb_pass_at_k(s->cs[i].n, s->cs[i].c, k);
        sum_hat += arb_pass_hat_k(s->cs[i].n, s->cs[i].c, k);
        m++;
    }
    ok = ok && cJSON_AddNumberToObject(e, "k", (double)k);
    ok = ok && cJSON_AddNumberToObject(e, "cases", (double)m);
    ok = ok && cJSON_AddNumberToObject(e, "pass@k", m ? sum_at / (double)m : 0);
    ok = ok && cJSON_AddNumberToObject(e, "pass^k", m ? sum_hat / (double)m : 0);
    /* One resampling of the cases for every figure: at k = 1 they are the same quantity and
     * get the same interval. */
    ok = ok && add_boot(e, "pass@k_ci", e, "pass@k_bootstrap_median", st ? &st[0] : NULL);
    ok = ok && add_boot(e, "pass^k_ci", e, "pass^k_bootstrap_median", st ? &st[1] : NULL);
    if (!ok) {
        cJSON_Delete(e);
        return NULL;
    }
    return e;
}

static int add_num(cJSON *o, const char *key, double v)
{
    return (isnan(v) ? cJSON_AddNullToObject(o, key) : cJSON_AddNumberToObject(o, key, v)) != NULL;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;

    return (a > b) - (a < b);
}

static double mean_of(const struct dvec *d)
{
    double t = 0;

    for (size_t i = 0; i < d->n; i++)
        t += d->v[i];
    return d->n ? t / (double)d->n : NAN;
}

/* "quality" (the seed's avgScore, medianScore, p25Score, p75Score), when some trial has a score. */
static int quality_json(cJSON *j, struct tsys *s, const struct arb_cluster_stat *st)
{
    cJSON *q, *from, *ci, *med;
    const double *v = s->scores.v;
    size_t n = s->scores.n;
    int ok;

    if (!n)
        return 1;
    qsort(s->scores.v, n, sizeof(double), cmp_double);
    q = cJSON_AddObjectToObject(j, "quality");
    ok = q && add_num(q, "avgScore", mean_of(&s->scores));
    ok = ok && add_num(q, "medianScore", arb_quantile(v, n, 0.5));
    ok = ok && add_num(q, "p25Score", arb_quantile(v, n, 0.25));
    ok = ok && add_num(q, "p75Score", arb_quantile(v, n, 0.75));
    ok = ok && cJSON_AddNumberToObject(q, "trials", (double)n);
    from = ok ? cJSON_AddObjectToObject(q, "scores_from") : NULL;
    ok = from && cJSON_AddNumberToObject(from, "output", (double)s->from_output) &&
         cJSON_AddNumberToObject(from, "checks", (double)s->from_checks);
    if (ok && st && st->ok) {
        ci = cJSON_AddObjectToObject(q, "confidenceIntervals");
        med = cJSON_AddObjectToObject(q, "bootstrapMedian");
        ok = ci && med && add_boot(ci, "avgScore", med, "avgScore", st);
    }
    return ok;
}

/* "performance" (the seed's latency p50..max and totalDuration), always. */
static int performance_json(cJSON *j, struct tsys *s, const struct arb_cluster_stat *st)
{
    cJSON *p = cJSON_AddObjectToObject(j, "performance"), *l, *ci, *med;
    const double *v = s->ms.v;
    size_t n = s->ms.n;
    double total = 0;
    int ok;

    if (n)
        qsort(s->ms.v, n, sizeof(double), cmp_double);
    for (size_t i = 0; i < n; i++)
        total += v[i];
    l = p ? cJSON_AddObjectToObject(p, "latency") : NULL;
    ok = l && add_num(l, "p50", arb_quantile(v, n, 0.5));
    ok = ok && add_num(l, "p90", arb_quantile(v, n, 0.9));
    ok = ok && add_num(l, "p99", arb_quantile(v, n, 0.99));
    ok = ok && add_num(l, "mean", mean_of(&s->ms));
    ok = ok && add_num(l, "min", n ? v[0] : NAN);
    ok = ok && add_num(l, "max", n ? v[n - 1] : NAN);
    ok = ok && add_num(p, "totalDuration", n ? total : NAN);
    ok = ok && cJSON_AddNumberToObject(p, "trials", (double)n);
    if (ok && st && st->ok) {
        ci = cJSON_AddObjectToObject(p, "confidenceIntervals");
        med = cJSON_AddObjectToObject(p, "bootstrapMedian");
        ok = ci && med && add_boot(ci, "latencyMean", med, "latencyMean", st);
    }
    return ok;
}

/* System s; tc its statistics, or NULL without intervals. */
static cJSON *system_json(struct tsys *s, const struct tcols *tc)
{
    cJSON *j = cJSON_CreateObject(), *ks;
    size_t top = s->max_n < MAX_K ? s->max_n : MAX_K;
    const struct arb_cluster_stat *st = tc ? tc->st : NULL;
    int ok = j != NULL;

    ok = ok && cJSON_AddStringToObject(j, "name", s->name);
    ok = ok && cJSON_AddNumberToObject(j, "cases", (double)s->cases);
    ok = ok && cJSON_AddNumberToObject(j, "trials", (double)s->trials);
    ok = ok && cJSON_AddNumberToObject(j, "unresolved_trials", (double)s->unresolved);
    ok = ok && cJSON_AddNumberToObject(j, "unresolved_cases", (double)s->unresolved_cases);
    ok = ok && cJSON_AddNumberToObject(j, "min_trials", (double)s->min_n);
    ok = ok && cJSON_AddNumberToObject(j, "max_trials", (double)s->max_n);
    ks = ok ? cJSON_AddArrayToObject(j, "k") : NULL;
    ok = ks != NULL;
    for (size_t k = 1; ok && k <= top; k++) {
        cJSON *e = k_entry(s, k, st ? st + 2 * (k - 1) : NULL);

        ok = e && cJSON_AddItemToArray(ks, e);
    }
    ok = ok && quality_json(j, s, st ? st + 2 * top : NULL);
    ok = ok && performance_json(j, s, st ? st + 2 * top + 1 : NULL);
    if (!ok) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

/* Every system's statistics from one resampling of the cases into tc[0..n_sys). */
static enum arb_status resample(struct tacc *a, const struct arb_report_opts *o, struct tcols *tc)
{
    char **ids = NULL;
    size_t u = case_ids(a, &ids), m = 0, at = 0;
    struct arb_cluster_stat *st;
    enum arb_status rc = ids ? ARB_OK : ARB_ENOMEM;

    for (size_t i = 0; i < a->n_sys; i++) {
        size_t top = a->sys[i].max_n < MAX_K ? a->sys[i].max_n : MAX_K;

        m += 2 * top + 2;
    }
    st = rc ? NULL : calloc(m ? m : 1, sizeof(*st));
    if (!rc && !st)
        rc = ARB_ENOMEM;
    for (size_t i = 0; !rc && i < a->n_sys; i++) {
        if (fill_columns(&a->sys[i], ids, u, &tc[i], st + at))
            rc = ARB_ENOMEM;
        at += 2 * tc[i].top + 2;
    }
    if (!rc && u)
        rc = arb_bootstrap_clusters(st, m, u, o->resamples, 0.95, o->seed ^ 0x7061737340ull);
    if (rc) {
        free(st);
        for (size_t i = 0; i < a->n_sys; i++)
            tc[i].st = NULL;
    }
    free(ids);
    return rc;
}

static void tacc_release(struct tacc *a, struct tcols *tc)
{
    for (size_t i = 0; i < a->n_sys; i++) {
        for (size_t j = 0; j < a->sys[i].n_cs; j++)
            free(a->sys[i].cs[j].id);
        free(a->sys[i].name);
        free(a->sys[i].cs);
        free(a->sys[i].scores.v);
        free(a->sys[i].ms.v);
        if (tc)
            free(tc[i].col);
    }
    if (tc && a->n_sys)
        free(tc[0].st); /* one array for every system */
    free(tc);
    free(a->sys);
    free(a->case_id);
    free(a->tr);
    free(a->own);
    free(a->dur);
}

static const char method[] =
    "per case: pass@k = 1 - C(n-c,k)/C(n,k), pass^k = C(c,k)/C(n,k) over n trials of which c "
    "passed every expectation that has a check (free-text expectations are the judge's, for the "
    "compared trial only); the mean over the cases with at least k trials; a case with a trial "
    "left unresolved by a check's grey band is left out. quality: a trial's score is its "
    "output's own grader score (score.score, 0-1), else the share of its checks passed "
    "when none is unresolved; performance: its output's duration (ms); percentiles interpolate "
    "linearly between closest ranks (NumPy's default). Intervals: one percentile bootstrap "
    "resampling of the cases for every figure";

enum arb_status arb_report_add_trials(struct arb_store *st, int64_t run, cJSON *report,
                                      const struct arb_report_opts *opts, struct arb_err *err)
{
    struct tacc a;
    struct tcols *tc = NULL;
    cJSON *t = NULL, *arr;
    enum arb_status rs;

    memset(&a, 0, sizeof(a));
    a.store = st;
    a.run = run;
    a.err = err;
    rs = arb_store_trials(st, run, NULL, on_trial, &a, err);
    if (!rs && !a.st && close_case(&a))
        a.st = a.st ? a.st : ARB_ENOMEM;
    if (!rs && a.st)
        rs = a.st == ARB_ENOMEM ? arb_err_set(err, a.st, "out of memory") : a.st;
    if (!rs && a.n_sys && opts) {
        tc = calloc(a.n_sys, sizeof(*tc));
        rs = tc ? resample(&a, opts, tc) : ARB_ENOMEM;
        if (rs == ARB_ENOMEM)
            arb_err_set(err, rs, "out of memory");
    }
    if (!rs && a.n_sys) {
        t = cJSON_AddObjectToObject(report, "trials");
        arr = t ? cJSON_AddArrayToObject(t, "systems") : NULL;
        if (!t || !cJSON_AddStringToObject(t, "method", method) || !arr)
            rs = arb_err_set(err, ARB_ENOMEM, "out of memory");
        /* The rows came in the suite's order of systems, as the report lists them. */
        for (size_t i = 0; !rs && i < a.n_sys; i++) {
            cJSON *s = system_json(&a.sys[i], tc ? &tc[i] : NULL);

            if (!s || !cJSON_AddItemToArray(arr, s)) {
                cJSON_Delete(s);
                rs = arb_err_set(err, ARB_ENOMEM, "out of memory");
            }
        }
    }
    tacc_release(&a, tc);
    return rs;
}
