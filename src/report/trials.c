/*
 * trials.c - pass@k and pass^k from the trials of a run (report.h).
 *
 * A system's case with several trials (outputs numbered by "trial") has n
 * decided trials, c of which passed every expectation (src/run/trials.c).
 * Per case, pass@k = 1 - C(n-c, k) / C(n, k) is the chance that at least one
 * of k trials drawn without replacement passes (the unbiased estimator of
 * Chen et al., 2021), and pass^k = C(c, k) / C(n, k) the chance that all k
 * pass.  The report gives, per system and for k = 1 up to the most trials
 * any case has (at most MAX_K), the mean over the cases with at least k
 * decided trials, and with intervals a percentile bootstrap over those cases.
 * A case with a trial left unresolved (a check in its grey band) is left out
 * for that system, whole: dropping only that trial would bias n and c.  The
 * cases left out are counted ("unresolved_cases").
 */
#include <stdlib.h>
#include <string.h>

#include "arbiter/report.h"
#include "arbiter/stats.h"

#define MAX_K 10

/* The (n, c) of each case of one system. */
struct tsys {
    char *name;
    size_t *n, *c;
    size_t cases, cap;
    size_t trials, unresolved, unresolved_cases, max_n, min_n;
};

struct tacc {
    struct tsys *sys;
    size_t n_sys, cap;
    char *case_id; /* the case being summed, and its counts */
    size_t n, c;
    int unresolved; /* a trial of it is unresolved: the case is left out */
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

/* The case summed so far becomes one (n, c) of the last system. */
static int close_case(struct tacc *a)
{
    struct tsys *s = a->n_sys ? &a->sys[a->n_sys - 1] : NULL;

    if (!s || !a->case_id)
        return 0;
    if (a->unresolved) {
        s->unresolved_cases++;
        return 0;
    }
    if (a->n == 0)
        return 0;
    if (s->cases == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        size_t *n = realloc(s->n, cap * sizeof(*n)), *c;

        if (!n)
            return -1;
        s->n = n;
        c = realloc(s->c, cap * sizeof(*c));
        if (!c)
            return -1;
        s->c = c;
        s->cap = cap;
    }
    s->n[s->cases] = a->n;
    s->c[s->cases] = a->c;
    s->cases++;
    s->max_n = a->n > s->max_n ? a->n : s->max_n;
    s->min_n = !s->min_n || a->n < s->min_n ? a->n : s->min_n;
    return 0;
}

static int on_trial(void *ctx, const struct arb_trial_row *t)
{
    struct tacc *a = ctx;
    int new_sys = !a->n_sys || strcmp(a->sys[a->n_sys - 1].name, t->system) != 0;
    struct tsys *s;

    if (new_sys || !a->case_id || strcmp(a->case_id, t->case_id) != 0) {
        if (close_case(a))
            goto nomem;
        free(a->case_id);
        a->case_id = strdup(t->case_id);
        a->n = a->c = 0;
        a->unresolved = 0;
        if (!a->case_id)
            goto nomem;
    }
    s = sys_named(a, t->system);
    if (!s)
        goto nomem;
    s->trials++;
    if (t->passed < 0) {
        s->unresolved++;
        a->unresolved = 1;
        return 0;
    }
    a->n++;
    a->c += t->passed == 1;
    return 0;
nomem:
    a->st = ARB_ENOMEM;
    return 1;
}

static cJSON *interval(const double *v, size_t n, const struct arb_report_opts *o, uint64_t salt)
{
    struct arb_interval iv;
    double both[2];

    if (!o || arb_bootstrap_mean(v, n, o->resamples, 0.95, o->seed ^ salt, &iv))
        return NULL;
    both[0] = iv.lo;
    both[1] = iv.hi;
    return cJSON_CreateDoubleArray(both, 2);
}

/* One {"k", "cases", "pass@k", "pass^k"[, intervals]} entry; NULL on no memory. */
static cJSON *k_entry(const struct tsys *s, size_t k, double *at, double *hat,
                      const struct arb_report_opts *o)
{
    cJSON *e = cJSON_CreateObject();
    double sum_at = 0, sum_hat = 0;
    size_t m = 0;
    int ok = e != NULL;

    for (size_t i = 0; i < s->cases; i++) {
        if (s->n[i] < k)
            continue;
        at[m] = arb_pass_at_k(s->n[i], s->c[i], k);
        hat[m] = arb_pass_hat_k(s->n[i], s->c[i], k);
        sum_at += at[m];
        sum_hat += hat[m];
        m++;
    }
    ok = ok && cJSON_AddNumberToObject(e, "k", (double)k);
    ok = ok && cJSON_AddNumberToObject(e, "cases", (double)m);
    ok = ok && cJSON_AddNumberToObject(e, "pass@k", m ? sum_at / (double)m : 0);
    ok = ok && cJSON_AddNumberToObject(e, "pass^k", m ? sum_hat / (double)m : 0);
    if (ok && o && m) {
        /* One resampling of the cases for both (the same seed draws the same cases): at k = 1
         * they are the same quantity and get the same interval. */
        cJSON *a = interval(at, m, o, 0x7061737340 + k), *h = interval(hat, m, o, 0x7061737340 + k);

        ok = a && h && cJSON_AddItemToObject(e, "pass@k_ci", a);
        if (ok)
            ok = cJSON_AddItemToObject(e, "pass^k_ci", h);
        else {
            cJSON_Delete(a);
            cJSON_Delete(h);
        }
    }
    if (!ok) {
        cJSON_Delete(e);
        return NULL;
    }
    return e;
}

static cJSON *system_json(const struct tsys *s, const struct arb_report_opts *o)
{
    cJSON *j = cJSON_CreateObject(), *ks;
    double *at = malloc((s->cases + 1) * sizeof(double));
    double *hat = malloc((s->cases + 1) * sizeof(double));
    size_t top = s->max_n < MAX_K ? s->max_n : MAX_K;
    int ok = j && at && hat;

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
        cJSON *e = k_entry(s, k, at, hat, o);

        ok = e && cJSON_AddItemToArray(ks, e);
    }
    free(at);
    free(hat);
    if (!ok) {
        cJSON_Delete(j);
        return NULL;
    }
    return j;
}

enum arb_status arb_report_add_trials(struct arb_store *st, int64_t run, cJSON *report,
                                      const struct arb_report_opts *opts, struct arb_err *err)
{
    struct tacc a;
    cJSON *t = NULL, *arr;
    enum arb_status rs;

    memset(&a, 0, sizeof(a));
    rs = arb_store_trials(st, run, NULL, on_trial, &a, err);
    if (!rs && !a.st && close_case(&a))
        a.st = ARB_ENOMEM;
    if (!rs && a.st)
        rs = arb_err_set(err, a.st, "out of memory");
    if (!rs && a.n_sys) {
        t = cJSON_AddObjectToObject(report, "trials");
        arr = t ? cJSON_AddArrayToObject(t, "systems") : NULL;
        if (!t ||
            !cJSON_AddStringToObject(
                t, "method",
                "per case: pass@k = 1 - C(n-c,k)/C(n,k), pass^k = C(c,k)/C(n,k) over n "
                "trials of which c passed every expectation that has a check (free-text "
                "expectations are the judge's, for the compared trial only); the mean "
                "over the cases with at least k trials; a case with a trial left "
                "unresolved by a check's grey band is left out") ||
            !arr)
            rs = arb_err_set(err, ARB_ENOMEM, "out of memory");
        /* The rows came in the suite's order of systems, as the report lists them. */
        for (size_t i = 0; !rs && i < a.n_sys; i++) {
            cJSON *s = system_json(&a.sys[i], opts);

            if (!s || !cJSON_AddItemToArray(arr, s)) {
                cJSON_Delete(s);
                rs = arb_err_set(err, ARB_ENOMEM, "out of memory");
            }
        }
    }
    for (size_t i = 0; i < a.n_sys; i++) {
        free(a.sys[i].name);
        free(a.sys[i].n);
        free(a.sys[i].c);
    }
    free(a.sys);
    free(a.case_id);
    return rs;
}
