/*
 * statistics.c - the `statistical` strategy of a report: percentile
 * bootstrap intervals (seeded, so a report is reproducible) for each
 * system's win rate, expectation pass rate and overall score; for each pair
 * of systems, the exact sign test on wins vs losses and a paired bootstrap
 * of the per-case overall score differences; McNemar's exact test on each
 * expectation; Bradley-Terry ratings with bootstrap intervals when there are
 * more than two systems.  A pair is "significant" when both paired tests
 * give p < 0.05; beside that, "intervals_separate" applies the seed's rule
 * (the two systems' 95% overall-score intervals do not overlap), and
 * "reasoning" says both in one line (reasoning.c).  Each system's mean
 * latency comes from its compared outputs' durations (duration.c) and gets
 * its interval from the same resampling of the cases as the others; every
 * interval has the median of its resampled values beside it
 * ("bootstrap_median", the seed's central estimate).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/report.h"
#include "arbiter/stats.h"
#include "report_int.h"
#include "stats_int.h"

#define SEEN_EXPECTATIONS 1
#define SEEN_SCORE        2
#define PER_SYS           4 /* statistics per system: win, pass and score rates, latency */

int dvec_push(struct dvec *d, double x)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 64;
        double *v = realloc(d->v, cap * sizeof(*v));

        if (!v)
            return -1;
        d->v = v;
        d->cap = cap;
    }
    d->v[d->n++] = x;
    return 0;
}

/*
 * Every column holds one value per case, in case order, so that one
 * resampling of the cases serves every interval (arb_bootstrap_clusters): a
 * statistic is a sum over its numerator column divided by the sum over its
 * denominator column, and a case without a value adds 0 to both.  The
 * current case's values are added up in cur and pushed to the columns
 * (compact: column.c) when the next case starts or the statistics are
 * emitted.
 */
enum sys_col {
    WIN,     /* outcomes (1 win, 0.5 tie, 0 loss) of the decided pairs */
    GAMES,   /* and their number */
    PASSED,  /* expectations passed (each case once) */
    TOTAL,   /* and decided */
    OVERALL, /* overall score of the first decided pair with one */
    SCORED,  /* and 1 */
    MS,      /* the compared output's duration (ms), when it has one */
    TIMED,   /* and 1 */
    SYS_COLS
};

struct sys_acc {
    const char *name;
    struct col col[SYS_COLS];
    double cur[SYS_COLS];
};

enum pair_col {
    DIFF,   /* score_a - score_b of a decided verdict with both */
    PAIRED, /* and 1 */
    PAIR_COLS
};

struct pair_acc {
    size_t a, b; /* system indexes, a < b in suite order */
    size_t a_wins, b_wins, ties;
    struct col col[PAIR_COLS];
    double cur[PAIR_COLS];
};

struct exp_acc {
    char *id;
    size_t pair; /* the pair it was counted for */
    size_t b, c; /* only a passes / only b passes */
};

struct stats_acc {
    struct sys_acc *sys;
    size_t n_sys;
    struct pair_acc *pairs;
    size_t n_pairs;
    struct exp_acc *exps;
    size_t n_exps, cap_exps;
    char *case_id;  /* the current case (owned) */
    size_t n_cases; /* counted, the current one included */
    size_t pushed;  /* cases whose values are in the columns (the current one's are in cur) */
    unsigned char *seen;     /* per system: what was counted for case_id (SEEN_*) */
    struct arb_store *store; /* where the outputs' durations are read */
    struct arb_store_first_output *first; /* the look-up of them, once the first case starts */
    int64_t run;
    struct arb_err *err;
    enum arb_status st;
};

static size_t sys_index(const struct stats_acc *s, const char *name)
{
    size_t i;

    for (i = 0; i < s->n_sys; i++)
        if (strcmp(s->sys[i].name, name) == 0)
            return i;
    return (size_t)-1;
}

static struct pair_acc *pair_of(struct stats_acc *s, size_t i, size_t j)
{
    size_t k;

    for (k = 0; k < s->n_pairs; k++)
        if (s->pairs[k].a == (i < j ? i : j) && s->pairs[k].b == (i < j ? j : i))
            return &s->pairs[k];
    return NULL;
}

static struct exp_acc *exp_of(struct stats_acc *s, const char *id, size_t pair)
{
    size_t k;

    for (k = 0; k < s->n_exps; k++)
        if (s->exps[k].pair == pair && strcmp(s->exps[k].id, id) == 0)
            return &s->exps[k];
    if (s->n_exps == s->cap_exps) {
        size_t cap = s->cap_exps ? s->cap_exps * 2 : 16;
        struct exp_acc *v = realloc(s->exps, cap * sizeof(*v));

        if (!v)
            return NULL;
        s->exps = v;
        s->cap_exps = cap;
    }
    s->exps[s->n_exps].id = strdup(id);
    if (!s->exps[s->n_exps].id)
        return NULL;
    s->exps[s->n_exps].pair = pair;
    s->exps[s->n_exps].b = s->exps[s->n_exps].c = 0;
    return &s->exps[s->n_exps++];
}

/* The current case's values into the columns. */
static int push_case(struct stats_acc *s)
{
    int bad = 0;

    for (size_t i = 0; i < s->n_sys; i++)
        for (size_t k = 0; k < SYS_COLS; k++)
            bad |= col_push(&s->sys[i].col[k], s->sys[i].cur[k]);
    for (size_t i = 0; i < s->n_pairs; i++)
        for (size_t k = 0; k < PAIR_COLS; k++)
            bad |= col_push(&s->pairs[i].col[k], s->pairs[i].cur[k]);
    s->pushed++;
    return bad;
}

/* Each system's duration of the current case, when the statistics have a store to read. */
static enum arb_status read_durations(struct stats_acc *s)
{
    enum arb_status st = ARB_OK;

    if (!s->store)
        return ARB_OK;
    if (!s->first)
        st = arb_store_first_output_open(s->store, s->run, &s->first, s->err);
    for (size_t i = 0; !st && i < s->n_sys; i++) {
        double d = report_compared_ms(s->first, s->case_id, s->sys[i].name, &st, s->err);

        if (!st && !isnan(d)) {
            s->sys[i].cur[MS] = d;
            s->sys[i].cur[TIMED] = 1.0;
        }
    }
    return st;
}

/* Start case id: a 0 in every column, and nothing counted yet; ARB_OK or a status. */
static enum arb_status new_case(struct stats_acc *s, const char *id)
{
    char *copy = strdup(id);

    if (!copy || (s->n_cases > s->pushed && push_case(s))) {
        free(copy);
        return ARB_ENOMEM;
    }
    free(s->case_id);
    s->case_id = copy;
    memset(s->seen, 0, s->n_sys);
    for (size_t i = 0; i < s->n_sys; i++)
        memset(s->sys[i].cur, 0, sizeof(s->sys[i].cur));
    for (size_t i = 0; i < s->n_pairs; i++)
        memset(s->pairs[i].cur, 0, sizeof(s->pairs[i].cur));
    s->n_cases++;
    return read_durations(s);
}

/* 1 passed, 0 failed, -1 unresolved or absent, for expectation id in a side's details. */
static int exp_result(const struct cmp_side *sd, const char *id)
{
    for (size_t i = 0; i < sd->n_exp; i++)
        if (sd->exp[i].id && strcmp(sd->exp[i].id, id) == 0)
            return sd->exp[i].passed;
    return -1;
}

/* Each (case, system) adds its expectation outcomes once and its score once. */
static void add_once(struct stats_acc *s, size_t sys, const struct cmp_side *sd, int decided)
{
    /* The score from the first decided pair with one (an earlier pair may be pending or
     * missing the other system's output), the expectations from the first pair. */
    if (!(s->seen[sys] & SEEN_SCORE) && decided && sd->score_is_number[2]) {
        s->seen[sys] |= SEEN_SCORE;
        s->sys[sys].cur[OVERALL] = sd->score[2];
        s->sys[sys].cur[SCORED] = 1.0;
    }
    if (s->seen[sys] & SEEN_EXPECTATIONS)
        return;
    s->seen[sys] |= SEEN_EXPECTATIONS;
    {
        double p = 0, t = 0;

        for (size_t i = 0; i < sd->n_exp; i++) {
            if (sd->exp[i].passed >= 0) {
                t += 1;
                p += sd->exp[i].passed;
            }
        }
        s->sys[sys].cur[PASSED] = p;
        s->sys[sys].cur[TOTAL] = t;
    }
}

enum arb_status stats_acc_verdict(struct stats_acc *s, const struct arb_verdict_row *v,
                                  const struct cmp_view *cmp)
{
    size_t ia = sys_index(s, v->system_a), ib = sys_index(s, v->system_b);
    struct pair_acc *p;
    int decided = strcmp(v->status, "decided") == 0, flip;
    const struct cmp_side *ea, *eb;

    if (ia == (size_t)-1 || ib == (size_t)-1 || ia == ib || !cmp || s->st)
        return s->st;
    if ((!s->case_id || strcmp(s->case_id, v->case_id) != 0) && (s->st = new_case(s, v->case_id)))
        return s->st;
    p = pair_of(s, ia, ib);
    flip = ia > ib; /* the verdict's A is the pair's second system */
    add_once(s, ia, &cmp->side[0], decided);
    add_once(s, ib, &cmp->side[1], decided);
    if (decided && v->winner) {
        int a_won = strcmp(v->winner, v->system_a) == 0, tie = strcmp(v->winner, "TIE") == 0;
        double oa = tie ? 0.5 : a_won ? 1.0 : 0.0;

        if (tie)
            p->ties++;
        else if (a_won != flip)
            p->a_wins++;
        else
            p->b_wins++;
        s->sys[ia].cur[WIN] += oa;
        s->sys[ia].cur[GAMES] += 1.0;
        s->sys[ib].cur[WIN] += 1.0 - oa;
        s->sys[ib].cur[GAMES] += 1.0;
        if (!isnan(v->score_a) && !isnan(v->score_b)) {
            double x = flip ? v->score_b : v->score_a, y = flip ? v->score_a : v->score_b;

            p->cur[DIFF] = x - y;
            p->cur[PAIRED] = 1.0;
        }
    }
    /* McNemar: per expectation, cases where exactly one system of the pair passes. */
    ea = &cmp->side[flip ? 1 : 0];
    eb = &cmp->side[flip ? 0 : 1];
    for (size_t i = 0; i < ea->n_exp; i++) {
        const struct cmp_exp *d = &ea->exp[i];
        int pb;
        struct exp_acc *e;

        if (!d->id || d->passed < 0)
            continue;
        pb = exp_result(eb, d->id);
        if (pb < 0)
            continue;
        e = exp_of(s, d->id, (size_t)(p - s->pairs));
        if (!e) {
            s->st = ARB_ENOMEM;
            break;
        }
        if (d->passed == 1 && !pb)
            e->b++;
        else if (d->passed == 0 && pb)
            e->c++;
    }
    return s->st;
}

/* A number, or null when it is NaN. */
static cJSON *number_or_null(double v)
{
    return isnan(v) ? cJSON_CreateNull() : cJSON_CreateNumber(v);
}

/* [lo, hi] of a statistic, or null when it has no case. */
static cJSON *interval_json(const struct arb_cluster_stat *c)
{
    double both[2] = {c->out.lo, c->out.hi};

    return c->ok ? cJSON_CreateDoubleArray(both, 2) : cJSON_CreateNull();
}

/*
 * Where a statistic reads its columns: the views of num and den, den NULL
 * when every case holds 1 (the statistic is then a plain mean), num NULL
 * (the statistic skipped, its interval null) when a value is not finite.
 */
struct planned {
    struct arb_column num, den;
};

static const struct arb_column *den_column(const struct col *d, struct arb_column *view)
{
    for (size_t i = 0; i < d->n; i++) {
        if (col_at(d, i) != 1.0) {
            *view = col_view(d);
            return view;
        }
    }
    return NULL;
}

static const struct arb_column *finite_column(const struct col *num, const struct col *den,
                                              struct arb_column *view)
{
    for (size_t i = 0; i < num->n; i++)
        if (!isfinite(col_at(num, i)) || !isfinite(col_at(den, i)))
            return NULL;
    *view = col_view(num);
    return view;
}

/* Bradley-Terry ratings (and bootstrap intervals over pair-cases) for three or more systems. */
static enum arb_status bradley_terry(const struct stats_acc *s, const struct arb_report_opts *o,
                                     cJSON *report, struct arb_err *err)
{
    size_t m = s->n_sys, i, k, r, n_games = 0;
    double *w = calloc(m * m, sizeof(double)), *rating = calloc(m, sizeof(double));
    double *boot = NULL, *bw = NULL;
    size_t *ga = NULL, *gb = NULL;
    double *gr = NULL;
    cJSON *arr;
    struct arb_rng rng;
    enum arb_status st = w && rating ? ARB_OK : ARB_ENOMEM;

    for (k = 0; !st && k < s->n_pairs; k++) {
        const struct pair_acc *p = &s->pairs[k];

        w[p->a * m + p->b] += (double)p->a_wins + 0.5 * (double)p->ties;
        w[p->b * m + p->a] += (double)p->b_wins + 0.5 * (double)p->ties;
        n_games += p->a_wins + p->b_wins + p->ties;
    }
    if (!st)
        st = arb_bradley_terry(w, m, rating, err);
    /* Resample the games (pair, result) with replacement for the intervals. */
    ga = st ? NULL : malloc((n_games ? n_games : 1) * sizeof(size_t));
    gb = st ? NULL : malloc((n_games ? n_games : 1) * sizeof(size_t));
    gr = st ? NULL : malloc((n_games ? n_games : 1) * sizeof(double));
    boot = st ? NULL : malloc(m * (o->resamples ? o->resamples : 1) * sizeof(double));
    bw = st ? NULL : malloc(m * m * sizeof(double));
    if (!st && (!ga || !gb || !gr || !boot || !bw))
        st = ARB_ENOMEM;
    for (k = 0, i = 0; !st && k < s->n_pairs; k++) {
        const struct pair_acc *p = &s->pairs[k];
        size_t t;

        for (t = 0; t < p->a_wins; t++, i++)
            ga[i] = p->a, gb[i] = p->b, gr[i] = 1.0;
        for (t = 0; t < p->b_wins; t++, i++)
            ga[i] = p->a, gb[i] = p->b, gr[i] = 0.0;
        for (t = 0; t < p->ties; t++, i++)
            ga[i] = p->a, gb[i] = p->b, gr[i] = 0.5;
    }
    arb_rng_seed(&rng, o->seed ^ 0xB7ull);
    for (r = 0; !st && n_games && r < o->resamples; r++) {
        memset(bw, 0, m * m * sizeof(double));
        for (k = 0; k < n_games; k++) {
            size_t g = arb_rng_below(&rng, n_games);

            bw[ga[g] * m + gb[g]] += gr[g];
            bw[gb[g] * m + ga[g]] += 1.0 - gr[g];
        }
        st = arb_bradley_terry(bw, m, boot + r * m, err);
    }
    arr = st ? NULL : cJSON_AddArrayToObject(report, "bradley_terry");
    if (!st && !arr)
        st = ARB_ENOMEM;
    for (i = 0; !st && i < m; i++) {
        cJSON *x = cJSON_CreateObject();
        double *col = malloc((o->resamples ? o->resamples : 1) * sizeof(double)), lo, hi;
        size_t q;

        if (!x || !col || !cJSON_AddItemToArray(arr, x)) {
            cJSON_Delete(x);
            free(col);
            st = ARB_ENOMEM;
            break;
        }
        cJSON_AddStringToObject(x, "system", s->sys[i].name);
        cJSON_AddNumberToObject(x, "rating", rating[i]);
        for (q = 0; q < o->resamples && n_games; q++)
            col[q] = boot[q * m + i];
        if (n_games && o->resamples) {
            arb_percentile_interval(col, o->resamples, 0.95, &lo, &hi);
            cJSON_AddItemToObject(x, "interval", cJSON_CreateDoubleArray((double[]){lo, hi}, 2));
            cJSON_AddNumberToObject(x, "bootstrap_median", arb_quantile(col, o->resamples, 0.5));
        }
        free(col);
    }
    free(w);
    free(rating);
    free(boot);
    free(bw);
    free(ga);
    free(gb);
    free(gr);
    return st;
}

void stats_acc_free(struct stats_acc *s)
{
    size_t i;

    if (!s)
        return;
    for (i = 0; i < s->n_sys; i++)
        for (size_t k = 0; k < SYS_COLS; k++)
            col_release(&s->sys[i].col[k]);
    for (i = 0; i < s->n_pairs; i++)
        for (size_t k = 0; k < PAIR_COLS; k++)
            col_release(&s->pairs[i].col[k]);
    for (i = 0; i < s->n_exps; i++)
        free(s->exps[i].id);
    free(s->sys);
    free(s->pairs);
    free(s->exps);
    free(s->seen);
    free(s->case_id);
    arb_store_first_output_close(s->first);
    free(s);
}

/* System name's 95% overall-score interval from the report, NaN when it has none. */
static void overall_interval(const cJSON *report, const char *name, double *lo, double *hi)
{
    const cJSON *s;

    *lo = *hi = NAN;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(report, "systems"))
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(s, "name");
        const cJSON *iv = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(s, "intervals"), "overall_score");

        if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0 && cJSON_GetArraySize(iv) == 2) {
            *lo = cJSON_GetArrayItem(iv, 0)->valuedouble;
            *hi = cJSON_GetArrayItem(iv, 1)->valuedouble;
        }
    }
}

/*
 * The seed's rule for a pair: the two systems' 95% intervals of the overall
 * score do not overlap.  -1 when either interval is missing.
 */
static int intervals_separate(const struct pair_figures *f)
{
    if (isnan(f->lo[0]) || isnan(f->lo[1]))
        return -1;
    return f->lo[0] > f->hi[1] || f->lo[1] > f->hi[0];
}

/*
 * System i's "intervals" and "bootstrap_median" (win_rate, pass_rate,
 * overall_score, latency_ms) and "latency_ms" {"mean", "cases"} into sys.
 */
static enum arb_status system_json(cJSON *sys, const struct stats_acc *s,
                                   const struct arb_cluster_stat *cs, size_t i)
{
    static const char *const keys[PER_SYS] = {"win_rate", "pass_rate", "overall_score",
                                              "latency_ms"};
    const struct arb_cluster_stat *c = cs + PER_SYS * i;
    cJSON *iv = cJSON_AddObjectToObject(sys, "intervals");
    cJSON *med = cJSON_AddObjectToObject(sys, "bootstrap_median");
    cJSON *lat = cJSON_AddObjectToObject(sys, "latency_ms");
    int ok = iv && med && lat;

    for (size_t k = 0; ok && k < PER_SYS; k++) {
        cJSON *x, *m;

        /* Two systems: the second's win rate is 1 minus the first's, resample by resample. */
        if (k == 0 && s->n_sys == 2 && i == 1) {
            x = cs[0].ok
                    ? cJSON_CreateDoubleArray((double[]){1.0 - cs[0].out.hi, 1.0 - cs[0].out.lo}, 2)
                    : cJSON_CreateNull();
            m = number_or_null(cs[0].ok ? 1.0 - cs[0].median : NAN);
        } else {
            x = interval_json(&c[k]);
            m = number_or_null(c[k].ok ? c[k].median : NAN);
        }
        if (!x || !cJSON_AddItemToObject(iv, keys[k], x)) {
            cJSON_Delete(x);
            x = NULL;
        }
        if (!x || !m || !cJSON_AddItemToObject(med, keys[k], m)) {
            cJSON_Delete(m);
            ok = 0;
        }
    }
    if (ok) {
        cJSON *mean = number_or_null(c[3].ok ? c[3].out.estimate : NAN);

        ok = mean && cJSON_AddItemToObject(lat, "mean", mean);
        if (!ok)
            cJSON_Delete(mean);
    }
    ok = ok && cJSON_AddNumberToObject(lat, "cases", col_sum(&s->sys[i].col[TIMED]));
    return ok ? ARB_OK : ARB_ENOMEM;
}

/* 1 when pair p is reported: every pair, or with a baseline only the pairs with it. */
static int pair_shown(const struct stats_acc *s, const struct pair_acc *p, const char *baseline)
{
    return !baseline || strcmp(s->sys[p->a].name, baseline) == 0 ||
           strcmp(s->sys[p->b].name, baseline) == 0;
}

/* The pairs, with cs[k] the paired bootstrap of pair k. */
static enum arb_status pairs_json(const struct stats_acc *s, const struct arb_report_opts *o,
                                  const struct arb_cluster_stat *cs, cJSON *report)
{
    cJSON *arr = cJSON_AddArrayToObject(report, "pairs");
    size_t k;

    if (!arr)
        return ARB_ENOMEM;
    for (k = 0; k < s->n_pairs; k++) {
        const struct pair_acc *p = &s->pairs[k];
        cJSON *x, *pb;
        const struct arb_interval *iv = &cs[k].out;
        double pval = cs[k].p_two_sided, sign = arb_sign_test(p->a_wins, p->b_wins);
        int have = cs[k].ok;

        if (!pair_shown(s, p, o->baseline))
            continue;
        x = cJSON_CreateObject();

        if (!x || !cJSON_AddItemToArray(arr, x))
            return ARB_ENOMEM;
        cJSON_AddStringToObject(x, "a", s->sys[p->a].name);
        cJSON_AddStringToObject(x, "b", s->sys[p->b].name);
        cJSON_AddNumberToObject(x, "a_wins", (double)p->a_wins);
        cJSON_AddNumberToObject(x, "b_wins", (double)p->b_wins);
        cJSON_AddNumberToObject(x, "ties", (double)p->ties);
        cJSON_AddNumberToObject(x, "sign_test_p", sign);
        pb = cJSON_AddObjectToObject(x, "paired_bootstrap");
        if (pb && have) {
            cJSON_AddNumberToObject(pb, "cases", col_sum(&p->col[PAIRED]));
            cJSON_AddNumberToObject(pb, "mean_diff", iv->estimate);
            cJSON_AddNumberToObject(pb, "lo", iv->lo);
            cJSON_AddNumberToObject(pb, "hi", iv->hi);
            cJSON_AddNumberToObject(pb, "median", cs[k].median);
            cJSON_AddNumberToObject(pb, "p", pval);
        }
        /* Significant when the paired tests agree: the sign test and the bootstrap, p < 0.05. */
        cJSON_AddBoolToObject(x, "significant", have && sign < 0.05 && pval < 0.05);
        /* Beside them, the seed's rule: the overall-score intervals do not overlap. */
        {
            struct pair_figures f = {{s->sys[p->a].name, s->sys[p->b].name},
                                     {NAN, NAN},
                                     {NAN, NAN},
                                     sign,
                                     have ? pval : NAN,
                                     have ? iv->estimate : NAN,
                                     (double)p->a_wins,
                                     (double)p->b_wins,
                                     have && sign < 0.05 && pval < 0.05};
            char line[600];
            int sep;

            overall_interval(report, f.name[0], &f.lo[0], &f.hi[0]);
            overall_interval(report, f.name[1], &f.lo[1], &f.hi[1]);
            sep = intervals_separate(&f);
            if (sep < 0)
                cJSON_AddNullToObject(x, "intervals_separate");
            else
                cJSON_AddBoolToObject(x, "intervals_separate", sep);
            stats_pair_reasoning(line, sizeof(line), &f);
            if (!cJSON_AddStringToObject(x, "reasoning", line))
                return ARB_ENOMEM;
        }
    }
    return ARB_OK;
}

static enum arb_status mcnemar_json(const struct stats_acc *s, const char *baseline, cJSON *report)
{
    cJSON *arr = cJSON_AddArrayToObject(report, "mcnemar");
    size_t k;

    if (!arr)
        return ARB_ENOMEM;
    for (k = 0; k < s->n_exps; k++) {
        const struct exp_acc *e = &s->exps[k];
        const struct pair_acc *p = &s->pairs[e->pair];
        cJSON *x;

        if (!pair_shown(s, p, baseline))
            continue;
        x = cJSON_CreateObject();
        if (!x || !cJSON_AddItemToArray(arr, x))
            return ARB_ENOMEM;
        cJSON_AddStringToObject(x, "expectation", e->id);
        cJSON_AddStringToObject(x, "a", s->sys[p->a].name);
        cJSON_AddStringToObject(x, "b", s->sys[p->b].name);
        cJSON_AddNumberToObject(x, "only_a_passes", (double)e->b);
        cJSON_AddNumberToObject(x, "only_b_passes", (double)e->c);
        cJSON_AddNumberToObject(x, "p", arb_mcnemar_exact(e->b, e->c));
    }
    return ARB_OK;
}

struct stats_acc *stats_acc_new(const char *const *names, size_t n, struct arb_store *store,
                                int64_t run, struct arb_err *err)
{
    struct stats_acc *s = calloc(1, sizeof(*s));
    size_t i, j;

    if (!s)
        return NULL;
    s->store = store;
    s->run = run;
    s->err = err;
    s->sys = calloc(n ? n : 1, sizeof(*s->sys));
    s->seen = calloc(n ? n : 1, 1);
    s->pairs = calloc(n > 1 ? n * (n - 1) / 2 : 1, sizeof(*s->pairs));
    if (!s->sys || !s->seen || !s->pairs) {
        stats_acc_free(s);
        return NULL;
    }
    for (i = 0; i < n; i++)
        s->sys[s->n_sys++].name = names[i];
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++) {
            s->pairs[s->n_pairs].a = i;
            s->pairs[s->n_pairs++].b = j;
        }
    return s;
}

/*
 * The statistics to resample, into cs: for each system its win rate, pass rate,
 * overall score and mean latency; for each pair shown, the paired score difference.
 */
static void plan(const struct stats_acc *s, const char *baseline, struct arb_cluster_stat *cs,
                 struct planned *pl)
{
    static const enum sys_col cols[PER_SYS][2] = {
        {WIN, GAMES}, {PASSED, TOTAL}, {OVERALL, SCORED}, {MS, TIMED}};
    size_t i, n = s->n_sys;

    for (i = 0; i < n; i++) {
        const struct sys_acc *y = &s->sys[i];

        for (size_t k = 0; k < PER_SYS; k++) {
            struct arb_cluster_stat *c = cs + PER_SYS * i + k;
            const struct col *num = &y->col[cols[k][0]], *den = &y->col[cols[k][1]];

            /* Two systems: every outcome of one is 1 minus the other's, and so is the interval.
             * A case's expectations count together (pass rate). */
            c->num_col =
                k == 0 && n == 2 && i == 1 ? NULL : finite_column(num, den, &pl[c - cs].num);
            c->den_col = den_column(den, &pl[c - cs].den);
        }
    }
    for (i = 0; i < s->n_pairs; i++) {
        struct arb_cluster_stat *c = cs + PER_SYS * n + i;
        const struct col *diff = &s->pairs[i].col[DIFF], *paired = &s->pairs[i].col[PAIRED];

        c->num_col = pair_shown(s, &s->pairs[i], baseline)
                         ? finite_column(diff, paired, &pl[c - cs].num)
                         : NULL;
        c->den_col = den_column(paired, &pl[c - cs].den);
        c->want_p = 1;
    }
}

enum arb_status stats_acc_emit(struct stats_acc *s, const struct arb_report_opts *o, cJSON *report,
                               struct arb_err *err)
{
    const cJSON *sys;
    cJSON *info;
    size_t i = 0, n = s->n_sys, m = PER_SYS * n + s->n_pairs;
    struct arb_cluster_stat *cs = s->st ? NULL : calloc(m ? m : 1, sizeof(*cs));
    struct planned *pl = s->st ? NULL : calloc(m ? m : 1, sizeof(*pl));
    enum arb_status rc = s->st ? s->st : cs && pl ? ARB_OK : ARB_ENOMEM;

    if (!rc && s->n_cases > s->pushed && push_case(s))
        rc = ARB_ENOMEM;
    if (!rc)
        plan(s, o->baseline, cs, pl);
    if (!rc && s->n_cases)
        rc = arb_bootstrap_clusters(cs, m, s->n_cases, o->resamples, 0.95, o->seed);
    /* The report lists the run's systems first, in the same order (then any that only
     * verdicts name, which have no statistics). */
    cJSON_ArrayForEach(sys, cJSON_GetObjectItemCaseSensitive(report, "systems"))
    {
        if (rc || i >= n)
            break;
        rc = system_json((cJSON *)sys, s, cs, i++);
    }
    if (!rc)
        rc = pairs_json(s, o, cs + PER_SYS * n, report);
    if (!rc)
        rc = mcnemar_json(s, o->baseline, report);
    if (!rc && n > 2)
        rc = bradley_terry(s, o, report, err);
    info = rc ? NULL : cJSON_AddObjectToObject(report, "statistics");
    if (!rc && info) {
        cJSON_AddStringToObject(info, "strategy", "statistical");
        cJSON_AddNumberToObject(info, "resamples", (double)o->resamples);
        cJSON_AddNumberToObject(info, "seed", (double)o->seed);
        cJSON_AddNumberToObject(info, "level", 0.95);
        cJSON_AddStringToObject(info, "intervals",
                                "percentile bootstrap over cases, one resampling of the cases "
                                "for every interval (a case's outcomes and expectations "
                                "resampled together)");
        cJSON_AddStringToObject(info, "pair_tests",
                                "exact sign test (wins vs losses); paired bootstrap of per-case "
                                "overall score differences; significant when both give p < 0.05. "
                                "Beside them, intervals_separate: the two systems' 95% "
                                "overall-score intervals do not overlap");
        cJSON_AddStringToObject(info, "expectation_tests", "McNemar exact, per expectation");
        cJSON_AddStringToObject(info, "bootstrap_median",
                                "the median of each figure's resampled values, the central "
                                "estimate beside the sample's figure");
        cJSON_AddStringToObject(info, "latency",
                                "latency_ms: the mean duration (ms) of a system's compared "
                                "outputs, from their duration or timing capture fields");
        cJSON_AddStringToObject(info, "reasoning",
                                "per pair: the intervals' evidence, then the paired tests' "
                                "conclusion, as significant says");
        if (o->baseline)
            cJSON_AddStringToObject(info, "baseline", o->baseline);
    } else if (!rc) {
        rc = ARB_ENOMEM;
    }
    free(cs);
    free(pl);
    return rc;
}
