/*
 * tune.c - where to put a graded check's threshold and fail_below
 * (calibrate.h, "tuning a check's grey band"): score every labelled output
 * with the check, search the bands, and describe the result as JSON.
 * Reading the labels is tune_load.c's, the markdown tune_markdown.c's.
 *
 * The search: a cut matters only by how many distinct scores lie below it,
 * so boundary b (0..k for k distinct scores s[0] < ... < s[k-1]) stands for
 * every cut in (s[b-1], s[b]] (b = 0: at or below the lowest score; b = k:
 * above the highest).  With the counts of human-pass and human-fail items
 * below each boundary, a band (fail_below at boundary j <= threshold at
 * boundary i) is counted in O(1), and all of them in O(k^2).  Comparing
 * agreements is done on the counts, so equal fractions are equal.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/calibrate.h"

/* Operators whose score takes values between 0 and 1 (the others give 1 or 0). */
static const char *const graded_ops[] = {"levenshtein", "name",  "json_match",    "json_distance",
                                         "fields",      "top_k", "weighted_mean", NULL};

static const char graded_list[] =
    "levenshtein, name, json_match, json_distance, fields, top_k, weighted_mean";

struct scored {
    double score;
    int human;
};

/* The boundaries of one search. */
struct grid {
    size_t n, k;
    double *value;    /* value[b]: the distinct scores, b < k */
    size_t *below[2]; /* below[h][b]: items labelled h scoring under boundary b, b <= k */
    double *cut;      /* cut[b]: the number reported for boundary b; NaN when none is valid */
};

static int by_score(const void *a, const void *b)
{
    double x = ((const struct scored *)a)->score, y = ((const struct scored *)b)->score;

    return (x > y) - (x < y);
}

/*
 * The shortest decimal strictly between lo and hi, nearest their midpoint
 * (0.85 between 0.8 and 0.9, 0.5 between 0.2 and 0.8); hi when no decimal of
 * up to 17 places lies strictly between them.
 */
static double cut_between(double lo, double hi)
{
    double mid = lo + (hi - lo) / 2;

    for (int d = 1; d <= 17; d++) {
        double p = pow(10.0, d), r = round(mid * p) / p;

        if (r > lo && r < hi)
            return r;
    }
    return hi;
}

static void grid_release(struct grid *g)
{
    free(g->value);
    free(g->below[0]);
    free(g->below[1]);
    free(g->cut);
}

/* Sort the items and count, per boundary, the labels below it. */
static enum arb_status grid_build(struct scored *v, size_t n, struct grid *g)
{
    size_t i, b;

    memset(g, 0, sizeof(*g));
    g->n = n;
    qsort(v, n, sizeof(*v), by_score);
    g->value = malloc(n * sizeof(*g->value));
    g->below[0] = calloc(n + 1, sizeof(size_t));
    g->below[1] = calloc(n + 1, sizeof(size_t));
    g->cut = malloc((n + 1) * sizeof(*g->cut));
    if (!g->value || !g->below[0] || !g->below[1] || !g->cut)
        return ARB_ENOMEM;
    for (i = 0; i < n; i++) {
        if (i == 0 || v[i].score != v[i - 1].score) {
            g->value[g->k++] = v[i].score;
            g->below[0][g->k] = g->below[0][g->k - 1];
            g->below[1][g->k] = g->below[1][g->k - 1];
        }
        g->below[v[i].human ? 1 : 0][g->k]++;
    }
    for (b = 0; b <= g->k; b++) {
        /* a threshold must be above 0 and at most 1 (arb_check_compile) */
        double lo = b ? g->value[b - 1] : 0.0, hi = b < g->k ? g->value[b] : 1.0;

        g->cut[b] = lo < hi ? cut_between(lo, hi) : NAN;
    }
    return ARB_OK;
}

static size_t agreed(const struct arb_tune_band *b)
{
    return b->pass[1] + b->fail[0];
}

static size_t decided(const struct arb_tune_band *b)
{
    return b->pass[0] + b->pass[1] + b->fail[0] + b->fail[1];
}

/* The band with fail_below at boundary j and threshold at boundary i (j <= i). */
static void band_at(const struct grid *g, size_t j, size_t i, struct arb_tune_band *out)
{
    memset(out, 0, sizeof(*out));
    out->threshold = g->cut[i];
    out->fail_below = j == i ? g->cut[i] : j == 0 ? 0.0 : g->cut[j];
    for (int h = 0; h < 2; h++) {
        out->pass[h] = g->below[h][g->k] - g->below[h][i];
        out->fail[h] = g->below[h][j];
        out->escalated[h] = g->below[h][i] - g->below[h][j];
    }
    out->agreement = decided(out) ? (double)agreed(out) / (double)decided(out) : NAN;
    out->escalation = (double)(out->escalated[0] + out->escalated[1]) / (double)g->n;
}

/* > 0 when a agrees more than b, < 0 when less (exact, on the counts). */
static int more_agreement(const struct arb_tune_band *a, const struct arb_tune_band *b)
{
    uint64_t x = (uint64_t)agreed(a) * decided(b), y = (uint64_t)agreed(b) * decided(a);

    return (x > y) - (x < y);
}

static int fewer_escalated(const struct arb_tune_band *a, const struct arb_tune_band *b)
{
    size_t x = a->escalated[0] + a->escalated[1], y = b->escalated[0] + b->escalated[1];

    return (x < y) - (x > y);
}

/* 1 when a is to be preferred to b: escalation first (bands reaching the target) or agreement. */
static int better(const struct arb_tune_band *a, const struct arb_tune_band *b,
                  int escalation_first)
{
    double wa = a->threshold - a->fail_below, wb = b->threshold - b->fail_below;
    int c = escalation_first ? fewer_escalated(a, b) : more_agreement(a, b);

    if (!c)
        c = escalation_first ? more_agreement(a, b) : fewer_escalated(a, b);
    if (!c)
        c = (wa < wb) - (wa > wb);
    if (!c)
        c = (a->threshold > b->threshold) - (a->threshold < b->threshold);
    return c > 0;
}

/* Every band of the grid: the best reaching the target, the best overall, the best single. */
static void search(const struct grid *g, double target, struct arb_tune_result *out)
{
    struct arb_tune_band b, best, reach;
    int have_best = 0, have_single = 0;

    out->reached = 0;
    for (size_t i = 0; i <= g->k; i++) {
        if (isnan(g->cut[i]))
            continue;
        for (size_t j = 0; j <= i; j++) {
            band_at(g, j, i, &b);
            if (!decided(&b))
                continue; /* everything escalated: it decides nothing */
            if (j == i && (!have_single || better(&b, &out->single, 0))) {
                out->single = b;
                have_single = 1;
            }
            if (!have_best || better(&b, &best, 0)) {
                best = b;
                have_best = 1;
            }
            if (b.agreement >= target && (!out->reached || better(&b, &reach, 1))) {
                reach = b;
                out->reached = 1;
            }
        }
    }
    out->band = out->reached ? reach : best;
}

enum arb_status arb_tune_search(const double *scores, const int *human, size_t n, double target,
                                struct arb_tune_result *out, struct arb_err *err)
{
    struct scored *v;
    struct grid g;
    enum arb_status st;

    memset(out, 0, sizeof(*out));
    if (n == 0 || !(target > 0.0 && target <= 1.0))
        return arb_err_set(err, ARB_EUSAGE, "arb_tune_search: %s",
                           n ? "the target must be in (0, 1]" : "no items");
    for (size_t i = 0; i < n; i++)
        if (!(scores[i] >= 0.0 && scores[i] <= 1.0))
            return arb_err_set(err, ARB_EUSAGE,
                               "arb_tune_search: score %g (item %zu) not in [0, 1]", scores[i], i);
    v = malloc(n * sizeof(*v));
    if (!v)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    out->n = n;
    out->target = target;
    for (size_t i = 0; i < n; i++) {
        v[i].score = scores[i];
        v[i].human = human[i] != 0;
        out->human_pass += v[i].human;
    }
    out->human_fail = n - out->human_pass;
    st = grid_build(v, n, &g);
    if (!st)
        search(&g, target, out);
    grid_release(&g);
    free(v);
    return st ? arb_err_set(err, st, "out of memory") : ARB_OK;
}

/* ---- scoring the labelled outputs ------------------------------------------------------ */

/* Refuse a check whose score does not grade (or whose verdict turns around). */
static enum arb_status refuse_ungraded(const cJSON *check, const struct arb_check *c,
                                       struct arb_err *err)
{
    const char *op = arb_check_op(c);
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(check, "max_distance");
    size_t i;

    for (i = 0; graded_ops[i] && strcmp(graded_ops[i], op) != 0; i++)
        ;
    if (!graded_ops[i])
        return arb_err_set(err, ARB_EUSAGE,
                           "/op: operator '%s' scores only 1 or 0: there is no grey band to tune "
                           "(graded operators: %s)",
                           op, graded_list);
    if (md && !cJSON_IsNull(md))
        return arb_err_set(err, ARB_EUSAGE,
                           "/max_distance: levenshtein with max_distance scores only 1 or 0: "
                           "tune it without max_distance");
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(check, "not")))
        return arb_err_set(err, ARB_EUSAGE,
                           "/not: a negated check cannot be tuned (its verdict turns around): "
                           "tune the check without \"not\"");
    if (arb_check_problem(c))
        return arb_err_set(err, ARB_ESCHEMA, "%s", arb_check_problem(c));
    return ARB_OK;
}

/* Run c on every item: scores[i] and human[i]. */
static enum arb_status score_items(struct arb_check *c, const struct arb_tune_set *set,
                                   double *scores, int *human, struct arb_err *err)
{
    struct arb_result res;
    enum arb_status st = ARB_OK;

    arb_result_init(&res);
    for (size_t i = 0; !st && i < set->n; i++) {
        const struct arb_tune_item *it = &set->items[i];

        st = arb_check_run(c, it->output, it->output_len, it->expected, &res, err);
        if (st == ARB_ENOMEM)
            st = arb_err_set(err, st, "out of memory");
        else if (st)
            arb_err_prefix(err, st, "%s:%zu: id '%.200s'", set->path, it->line, it->id);
        scores[i] = res.score;
        human[i] = it->human;
    }
    arb_result_release(&res);
    return st;
}

/* ---- the result as JSON ---------------------------------------------------------------- */

/* Add item to o under name; item is freed when that fails (or is NULL).  1 on success. */
static int attach(cJSON *o, const char *name, cJSON *item)
{
    if (item && cJSON_AddItemToObject(o, name, item))
        return 1;
    cJSON_Delete(item);
    return 0;
}

static int add_count(cJSON *o, const char *name, size_t v)
{
    return cJSON_AddNumberToObject(o, name, (double)v) != NULL;
}

static cJSON *by_human(const size_t *counts)
{
    cJSON *o = cJSON_CreateObject();

    if (o && add_count(o, "human_pass", counts[1]) && add_count(o, "human_fail", counts[0]))
        return o;
    cJSON_Delete(o);
    return NULL;
}

static cJSON *band_json(const struct arb_tune_band *b)
{
    cJSON *o = cJSON_CreateObject(), *conf = cJSON_CreateObject();
    int ok = o && conf;

    ok = ok && cJSON_AddNumberToObject(o, "threshold", b->threshold);
    ok = ok && cJSON_AddNumberToObject(o, "fail_below", b->fail_below);
    /* a band always decides something (search() skips the others): both are numbers */
    ok = ok && cJSON_AddNumberToObject(o, "agreement", b->agreement);
    ok = ok && cJSON_AddNumberToObject(o, "escalation", b->escalation);
    ok = ok && add_count(o, "auto_decided", decided(b));
    ok = ok && add_count(o, "agreed", agreed(b));
    ok = ok && add_count(o, "escalated", b->escalated[0] + b->escalated[1]);
    ok = ok && attach(conf, "auto_pass", by_human(b->pass));
    ok = ok && attach(conf, "auto_fail", by_human(b->fail));
    ok = ok && attach(conf, "escalated", by_human(b->escalated));
    if (ok) {
        ok = attach(o, "confusion", conf);
        conf = NULL;
    }
    cJSON_Delete(conf);
    if (ok)
        return o;
    cJSON_Delete(o);
    return NULL;
}

/*
 * The check with the band's threshold and fail_below (none when equal: no
 * grey band), compiled once more to be sure it is a valid check.
 */
static enum arb_status suggest(const cJSON *check, const struct arb_check_opts *copts,
                               const struct arb_tune_band *b, cJSON **out, struct arb_err *err)
{
    cJSON *s = cJSON_Duplicate(check, 1);
    struct arb_check *c = NULL;
    struct arb_err cerr = {{0}};
    int ok = s != NULL;

    *out = NULL;
    if (ok) {
        cJSON_DeleteItemFromObjectCaseSensitive(s, "threshold");
        cJSON_DeleteItemFromObjectCaseSensitive(s, "fail_below");
        ok = cJSON_AddNumberToObject(s, "threshold", b->threshold) != NULL;
        if (ok && b->fail_below < b->threshold)
            ok = cJSON_AddNumberToObject(s, "fail_below", b->fail_below) != NULL;
    }
    if (!ok) {
        cJSON_Delete(s);
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    if (arb_check_compile(s, copts, &c, &cerr)) {
        cJSON_Delete(s);
        return arb_err_set(err, ARB_EINTERNAL, "the suggested check does not compile: %s",
                           cerr.msg);
    }
    arb_check_free(c);
    *out = s;
    return ARB_OK;
}

static cJSON *items_json(const struct arb_tune_set *set, const double *scores,
                         const struct arb_tune_band *b)
{
    cJSON *arr = cJSON_CreateArray();

    for (size_t i = 0; arr && i < set->n; i++) {
        cJSON *o = cJSON_CreateObject();
        enum arb_verdict v = scores[i] >= b->threshold   ? ARB_PASS
                             : scores[i] < b->fail_below ? ARB_FAIL
                                                         : ARB_UNRESOLVED;
        int ok;

        if (!o || !cJSON_AddItemToArray(arr, o)) {
            cJSON_Delete(o);
            cJSON_Delete(arr);
            return NULL;
        }
        ok = cJSON_AddStringToObject(o, "id", set->items[i].id) != NULL;
        ok = ok && add_count(o, "line", set->items[i].line);
        ok = ok && cJSON_AddNumberToObject(o, "score", scores[i]);
        ok = ok && cJSON_AddBoolToObject(o, "human", set->items[i].human);
        ok = ok && cJSON_AddStringToObject(o, "verdict", arb_verdict_name(v));
        if (!ok) {
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

static enum arb_status tune_json(const struct arb_tune_set *set, const char *op,
                                 const struct arb_tune_result *r, cJSON *suggested,
                                 const double *scores, cJSON **out)
{
    cJSON *o = cJSON_CreateObject();
    int ok = o != NULL;

    ok = ok && cJSON_AddStringToObject(o, "kind", "tune");
    ok = ok && cJSON_AddStringToObject(o, "operator", op);
    ok = ok && cJSON_AddStringToObject(o, "labels", set->path);
    ok = ok && cJSON_AddStringToObject(o, "labels_sha256", set->sha256);
    ok = ok && add_count(o, "n", r->n);
    ok = ok && add_count(o, "human_pass", r->human_pass);
    ok = ok && add_count(o, "human_fail", r->human_fail);
    ok = ok && cJSON_AddNumberToObject(o, "target", r->target);
    ok = ok && cJSON_AddBoolToObject(o, "reached", r->reached);
    ok = ok && attach(o, "band", band_json(&r->band));
    ok = ok && attach(o, "single", band_json(&r->single));
    if (ok)
        ok = attach(o, "suggested_check", suggested);
    else
        cJSON_Delete(suggested);
    ok = ok && attach(o, "items", items_json(set, scores, &r->band));
    if (!ok) {
        cJSON_Delete(o);
        return ARB_ENOMEM;
    }
    *out = o;
    return ARB_OK;
}

enum arb_status arb_tune_run(const cJSON *check, const struct arb_check_opts *copts,
                             const struct arb_tune_set *set, double target, cJSON **out,
                             struct arb_err *err)
{
    struct arb_check *c = NULL;
    struct arb_tune_result r;
    cJSON *suggested = NULL;
    double *scores = NULL;
    int *human = NULL;
    enum arb_status st;

    *out = NULL;
    if (!set || set->n == 0)
        return arb_err_set(err, ARB_EUSAGE, "arb_tune_run: no labelled items");
    st = arb_check_compile(check, copts, &c, err);
    if (!st)
        st = refuse_ungraded(check, c, err);
    if (!st) {
        scores = malloc(set->n * sizeof(*scores));
        human = malloc(set->n * sizeof(*human));
        if (!scores || !human)
            st = arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    if (!st)
        st = score_items(c, set, scores, human, err);
    if (!st)
        st = arb_tune_search(scores, human, set->n, target, &r, err);
    if (!st)
        st = suggest(check, copts, &r.band, &suggested, err);
    if (!st && tune_json(set, arb_check_op(c), &r, suggested, scores, out))
        st = arb_err_set(err, ARB_ENOMEM, "out of memory");
    arb_check_free(c);
    free(scores);
    free(human);
    return st;
}
