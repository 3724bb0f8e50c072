/*
 * study.c - the numbers of a calibration study, from per-item labels and
 * verdicts (calibrate.h has the definitions): per-order accuracy, position
 * consistency and bias, the combined verdict under a policy, S1 and S2,
 * Cohen's kappa, confusion, macro F1, bootstrap intervals, agreement between
 * annotators and length preference.  A pure function: nothing is read or
 * written but the arrays given and the JSON returned.
 *
 * Statistics code (kappa) is src/stats/'s; this file builds the tables.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/calibrate.h"
#include "arbiter/stats.h"
#include "arbiter/unicode.h"
#include "calib_int.h"

#define DEFAULT_RESAMPLES 1000
#define BOOT_SEED         7
#define BOOT_LEVEL        0.95

static const char *const pair_names[] = {"1", "2", "tie"};

/* ---- helpers ----------------------------------------------------------------------------- */

int arb_calib_majority(const int *labels, size_t n, int k)
{
    size_t count[3] = {0, 0, 0}, best_n = 0;
    int best = ARB_V_NULL, split = 0;

    for (size_t i = 0; i < n; i++)
        if (labels[i] >= 0 && labels[i] < k)
            count[labels[i]]++;
    for (int c = 0; c < k; c++) {
        if (count[c] > best_n) {
            best = c;
            best_n = count[c];
            split = 0;
        } else if (count[c] == best_n && best_n) {
            split = 1;
        }
    }
    if (split)
        return k == 3 ? ARB_V_TIE : ARB_V_NULL;
    return best;
}

/* 1 when the top label counts of labels[0..n) are shared by several labels. */
static int is_split(const int *labels, size_t n)
{
    size_t count[3] = {0, 0, 0}, top = 0, at_top = 0;

    for (size_t i = 0; i < n; i++)
        count[labels[i]]++;
    for (int c = 0; c < 3; c++)
        top = count[c] > top ? count[c] : top;
    for (int c = 0; c < 3; c++)
        at_top += count[c] == top;
    return at_top > 1;
}

/* ---- bootstrap ------------------------------------------------------------------------- */

static cJSON *interval_json(double estimate, double *v, size_t n)
{
    cJSON *o = cJSON_CreateObject();
    double lo, hi;

    if (!o)
        return NULL;
    arb_percentile_interval(v, n, BOOT_LEVEL, &lo, &hi);
    if (!calib_add_num(o, "estimate", estimate) || !calib_add_num(o, "lo", lo) ||
        !calib_add_num(o, "hi", hi)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/*
 * Percentile bootstrap of accuracy (over all items) and kappa (over the
 * resolved ones) with items resampled together; resamples where kappa is
 * undefined are left out of its interval.
 */
static cJSON *bootstrap_json(const int *ref, const int *got, size_t n, size_t k, size_t resamples,
                             const struct calib_agreement *full)
{
    double *acc = malloc(resamples * sizeof(double)), *kap = malloc(resamples * sizeof(double));
    size_t *pick = malloc(n * sizeof(size_t)), n_kap = 0;
    cJSON *o = NULL;
    struct arb_rng rng;

    if (!acc || !kap || !pick)
        goto out;
    arb_rng_seed(&rng, BOOT_SEED);
    for (size_t r = 0; r < resamples; r++) {
        struct calib_agreement a;

        for (size_t i = 0; i < n; i++)
            pick[i] = arb_rng_below(&rng, n);
        calib_agree(ref, got, pick, n, k, &a);
        acc[r] = (double)a.correct / (double)n;
        if (isfinite(a.kappa))
            kap[n_kap++] = a.kappa;
    }
    o = cJSON_CreateObject();
    if (!o || !calib_add_count(o, "resamples", resamples) ||
        !calib_add_count(o, "seed", BOOT_SEED) || !calib_add_num(o, "level", BOOT_LEVEL) ||
        !cJSON_AddItemToObject(o, "accuracy",
                               interval_json(calib_ratio(full->correct, n), acc, resamples)) ||
        !cJSON_AddItemToObject(o, "kappa", interval_json(full->kappa, kap, n_kap))) {
        cJSON_Delete(o);
        o = NULL;
    }
out:
    free(acc);
    free(kap);
    free(pick);
    return o;
}

/* ---- pairwise ---------------------------------------------------------------------------- */

/* Per item: the human majority, each order's verdict after --unparsed, the combined verdict. */
struct row {
    int human, v12, v21, combined;
};

static int resolve_null(int v, int unparsed_tie)
{
    return v == ARB_V_NULL && unparsed_tie ? ARB_V_TIE : v;
}

static int combine(int a, int b, enum arb_calib_policy policy)
{
    int votes1, votes2;

    if (a == ARB_V_ABSENT)
        return b == ARB_V_ABSENT ? ARB_V_NULL : b;
    if (b == ARB_V_ABSENT)
        return a;
    if (a == ARB_V_NULL || b == ARB_V_NULL)
        return ARB_V_NULL;
    if (policy == ARB_CALIB_INCONSISTENT_TIE)
        return a == b ? a : ARB_V_TIE;
    votes1 = (a == ARB_V_1) + (b == ARB_V_1);
    votes2 = (a == ARB_V_2) + (b == ARB_V_2);
    return votes1 > votes2 ? ARB_V_1 : votes2 > votes1 ? ARB_V_2 : ARB_V_TIE;
}

static cJSON *orders_json(const struct row *rows, size_t n)
{
    cJSON *o = cJSON_CreateObject();
    static const char *const names[] = {"order_12", "order_21"};

    for (int which = 0; o && which < 2; which++) {
        size_t present = 0, correct = 0, unresolved = 0;
        cJSON *x;

        for (size_t i = 0; i < n; i++) {
            int v = which ? rows[i].v21 : rows[i].v12;

            if (v == ARB_V_ABSENT)
                continue;
            present++;
            correct += v == rows[i].human;
            unresolved += v == ARB_V_NULL;
        }
        if (!present)
            continue;
        x = cJSON_AddObjectToObject(o, names[which]);
        if (!x || !calib_add_count(x, "n", present) || !calib_add_count(x, "correct", correct) ||
            !calib_add_num(x, "accuracy", calib_ratio(correct, present)) ||
            !calib_add_count(x, "unresolved", unresolved)) {
            cJSON_Delete(o);
            return NULL;
        }
    }
    return o;
}

static cJSON *position_json(const struct row *rows, size_t n)
{
    size_t both = 0, consistent = 0, first = 0, second = 0;
    double conf[9] = {0};
    cJSON *o = cJSON_CreateObject();

    for (size_t i = 0; i < n; i++) {
        int a = rows[i].v12, b = rows[i].v21;

        if (a < 0 || b < 0)
            continue;
        both++;
        consistent += a == b;
        conf[a * 3 + b] += 1.0;
        /* order_21 shows output_2 first: "picked the first shown" is its verdict "2". */
        first += a == ARB_V_1 && b == ARB_V_2;
        second += a == ARB_V_2 && b == ARB_V_1;
    }
    if (!o || !calib_add_count(o, "n", both) || !calib_add_count(o, "consistent", consistent) ||
        !calib_add_num(o, "consistency", calib_ratio(consistent, both)) ||
        !calib_add_num(o, "kappa_between_orders", both ? arb_cohen_kappa(conf, 3) : NAN) ||
        !calib_add_count(o, "first_biased", first) ||
        !calib_add_count(o, "second_biased", second) ||
        !calib_add_num(o, "first_biased_rate", calib_ratio(first, both)) ||
        !calib_add_num(o, "second_biased_rate", calib_ratio(second, both))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* Per-class F1 (recall over every item of the class, unresolved ones as misses) and macro F1. */
static int f1_json(cJSON *o, const struct row *rows, size_t n)
{
    cJSON *per = cJSON_AddObjectToObject(o, "f1");
    double sum = 0.0;
    int classes = 0;

    if (!per)
        return 0;
    for (int c = 0; c < 3; c++) {
        size_t tp = 0, truth = 0, said = 0;
        double p, r, f;

        for (size_t i = 0; i < n; i++) {
            truth += rows[i].human == c;
            said += rows[i].combined == c;
            tp += rows[i].human == c && rows[i].combined == c;
        }
        if (!truth && !said) {
            if (!cJSON_AddNullToObject(per, pair_names[c]))
                return 0;
            continue;
        }
        p = said ? (double)tp / (double)said : 0.0;
        r = truth ? (double)tp / (double)truth : 0.0;
        f = p + r > 0.0 ? 2.0 * p * r / (p + r) : 0.0;
        sum += f;
        classes++;
        if (!calib_add_num(per, pair_names[c], f))
            return 0;
    }
    return calib_add_num(o, "macro_f1", classes ? sum / classes : NAN);
}

static cJSON *combined_json(const struct row *rows, size_t n, size_t resamples)
{
    int *ref = malloc(n * sizeof(int)), *got = malloc(n * sizeof(int));
    size_t s2_n = 0, s2_agree = 0;
    struct calib_agreement a;
    cJSON *o = NULL;

    if (!ref || !got)
        goto out;
    for (size_t i = 0; i < n; i++) {
        ref[i] = rows[i].human;
        got[i] = rows[i].combined;
        if (rows[i].human != ARB_V_TIE &&
            (rows[i].combined == ARB_V_1 || rows[i].combined == ARB_V_2)) {
            s2_n++;
            s2_agree += rows[i].human == rows[i].combined;
        }
    }
    calib_agree(ref, got, NULL, n, 3, &a);
    o = cJSON_CreateObject();
    if (!o || !calib_add_count(o, "n", n) || !calib_add_count(o, "resolved", a.resolved) ||
        !calib_add_count(o, "unresolved", n - a.resolved) ||
        !calib_add_count(o, "correct", a.correct) ||
        !calib_add_num(o, "accuracy", calib_ratio(a.correct, n)) ||
        !calib_add_num(o, "agreement_with_ties", calib_ratio(a.correct, n)) ||
        !calib_add_count(o, "n_without_ties", s2_n) ||
        !calib_add_num(o, "agreement_without_ties", calib_ratio(s2_agree, s2_n)) ||
        !calib_add_num(o, "kappa", a.kappa) ||
        !cJSON_AddItemToObject(o, "confusion", calib_matrix_json(a.conf, 3)) ||
        !f1_json(o, rows, n) ||
        !cJSON_AddItemToObject(o, "bootstrap", bootstrap_json(ref, got, n, 3, resamples, &a))) {
        cJSON_Delete(o);
        o = NULL;
    }
out:
    free(ref);
    free(got);
    return o;
}

/* Agreement of annotator x with y (y < 0: the combined verdict), over items both labelled. */
static int pair_stats(const struct arb_calib_item *items, const struct row *rows, size_t n,
                      size_t x, long y, cJSON *o)
{
    size_t both = 0, same = 0;
    double conf[9] = {0};

    for (size_t i = 0; i < n; i++) {
        int a, b;

        if (items[i].n_human <= x || (y >= 0 && items[i].n_human <= (size_t)y))
            continue;
        a = items[i].human[x];
        b = y >= 0 ? items[i].human[y] : rows[i].combined;
        both++;
        same += a == b;
        if (b >= 0)
            conf[a * 3 + b] += 1.0;
    }
    return calib_add_count(o, "n", both) &&
           calib_add_num(o, "agreement", calib_ratio(same, both)) &&
           calib_add_num(o, "kappa", both ? arb_cohen_kappa(conf, 3) : NAN);
}

static cJSON *human_json(const struct arb_calib_item *items, const struct row *rows, size_t n,
                         size_t annotators)
{
    size_t count[3] = {0, 0, 0}, split = 0;
    cJSON *o = cJSON_CreateObject(), *maj, *kappas, *judge;
    char name[48];

    for (size_t i = 0; i < n; i++) {
        count[rows[i].human]++;
        split += is_split(items[i].human, items[i].n_human);
    }
    if (!o || !calib_add_count(o, "annotators", annotators) ||
        !(maj = cJSON_AddObjectToObject(o, "majority")) || !calib_add_count(maj, "1", count[0]) ||
        !calib_add_count(maj, "2", count[1]) || !calib_add_count(maj, "tie", count[2]) ||
        !calib_add_count(maj, "split", split) ||
        !(kappas = cJSON_AddArrayToObject(o, "annotator_kappa")) ||
        !(judge = cJSON_AddArrayToObject(o, "judge_agreement")))
        goto fail;
    for (size_t x = 0; x < annotators; x++) {
        for (size_t y = x + 1; y < annotators; y++) {
            cJSON *p = cJSON_CreateObject();

            snprintf(name, sizeof(name), "%zu-%zu", x + 1, y + 1);
            if (!p || !cJSON_AddItemToArray(kappas, p) ||
                !cJSON_AddStringToObject(p, "pair", name) ||
                !pair_stats(items, rows, n, x, (long)y, p))
                goto fail;
        }
    }
    for (size_t x = 0; x < annotators; x++) {
        cJSON *p = cJSON_CreateObject();

        if (!p || !cJSON_AddItemToArray(judge, p) || !calib_add_count(p, "annotator", x + 1) ||
            !pair_stats(items, rows, n, x, -1, p))
            goto fail;
    }
    if (!calib_annotators_study(o, items, n, annotators))
        goto fail;
    return o;
fail:
    cJSON_Delete(o);
    return NULL;
}

/*
 * Which output is longer (code points): ARB_V_1, ARB_V_2, ARB_V_TIE for equal lengths, or
 * ARB_V_NULL when an output is missing (labels for a run have none).
 */
static int longer(const struct arb_calib_item *it)
{
    size_t a, b;

    if (!it->output_1 || !it->output_2)
        return ARB_V_NULL;
    a = arb_utf8_count(it->output_1, strlen(it->output_1));
    b = arb_utf8_count(it->output_2, strlen(it->output_2));
    return a > b ? ARB_V_1 : b > a ? ARB_V_2 : ARB_V_TIE;
}

static int prefer_json(cJSON *o, const char *name, size_t decisive, size_t picked)
{
    cJSON *x = cJSON_AddObjectToObject(o, name);

    return x && calib_add_count(x, "n", decisive) && calib_add_count(x, "longer", picked) &&
           calib_add_num(x, "rate", calib_ratio(picked, decisive));
}

/* Among items with outputs of different lengths, how often a decisive verdict picks the longer
 * output. */
static cJSON *length_json(const struct arb_calib_item *items, const struct row *rows, size_t n)
{
    size_t differ = 0, h_n = 0, h_long = 0, j_n = 0, j_long = 0;
    cJSON *o = cJSON_CreateObject();

    for (size_t i = 0; i < n; i++) {
        int l = longer(&items[i]);

        if (l != ARB_V_1 && l != ARB_V_2)
            continue;
        differ++;
        if (rows[i].human != ARB_V_TIE) {
            h_n++;
            h_long += rows[i].human == l;
        }
        if (rows[i].combined == ARB_V_1 || rows[i].combined == ARB_V_2) {
            j_n++;
            j_long += rows[i].combined == l;
        }
    }
    if (!o || !calib_add_count(o, "n", differ) || !prefer_json(o, "human", h_n, h_long) ||
        !prefer_json(o, "judge", j_n, j_long)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* The item's criteria: {NAME: {"human"?, "verdict"?}} (each when known). */
static int item_criteria(cJSON *x, const struct arb_calib_item *it)
{
    cJSON *per = cJSON_AddObjectToObject(x, "criteria");

    for (size_t k = 0; per && k < it->n_crit; k++) {
        const struct arb_calib_crit *c = &it->crit[k];
        cJSON *one = cJSON_AddObjectToObject(per, c->name);

        if (!one ||
            (c->n_human &&
             !cJSON_AddItemToObject(
                 one, "human", calib_verdict_json(arb_calib_majority(c->human, c->n_human, 3)))) ||
            (c->verdict != ARB_V_ABSENT &&
             !cJSON_AddItemToObject(one, "verdict", calib_verdict_json(c->verdict))))
            return 0;
    }
    return per != NULL;
}

static cJSON *items_json(const struct arb_calib_item *items, const struct row *rows, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    int failed = 0;

    for (size_t i = 0; arr && i < n; i++) {
        const struct arb_calib_item *it = &items[i];
        cJSON *x = cJSON_CreateObject(), *labels;
        int ok;

        if (!x || !cJSON_AddItemToArray(arr, x)) {
            cJSON_Delete(x);
            failed = 1;
            break;
        }
        ok = cJSON_AddStringToObject(x, "id", it->id) &&
             cJSON_AddItemToObject(x, "human", calib_verdict_json(rows[i].human));

        if (ok && it->n_human > 1) {
            ok = (labels = cJSON_AddArrayToObject(x, "labels")) != NULL;
            for (size_t k = 0; ok && k < it->n_human; k++)
                ok = cJSON_AddItemToArray(labels, calib_verdict_json(it->human[k]));
        }
        /* The verdicts as recorded (null stays null); combined after --unparsed. */
        if (ok && it->order_12 != ARB_V_ABSENT)
            ok = cJSON_AddItemToObject(x, "order_12", calib_verdict_json(it->order_12));
        if (ok && it->order_21 != ARB_V_ABSENT)
            ok = cJSON_AddItemToObject(x, "order_21", calib_verdict_json(it->order_21));
        ok = ok && cJSON_AddItemToObject(x, "combined", calib_verdict_json(rows[i].combined));
        ok = ok && (!it->n_crit || item_criteria(x, it));
        if (!ok) {
            failed = 1;
            break;
        }
    }
    if (failed) {
        cJSON_Delete(arr);
        return NULL;
    }
    return arr;
}

static enum arb_status pairwise(const struct arb_calib_item *items, size_t n,
                                const struct arb_calib_opts *opts, size_t resamples, cJSON *o)
{
    struct row *rows = calloc(n, sizeof(*rows));
    size_t annotators = 0;
    int ok;

    if (!rows)
        return ARB_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        rows[i].human = arb_calib_majority(items[i].human, items[i].n_human, 3);
        rows[i].v12 = resolve_null(items[i].order_12, opts->unparsed_tie);
        rows[i].v21 = resolve_null(items[i].order_21, opts->unparsed_tie);
        /* The procedure's verdict is final: --unparsed speaks of the judge's orders only. */
        rows[i].combined =
            items[i].has_final ? items[i].final : combine(rows[i].v12, rows[i].v21, opts->policy);
        annotators = items[i].n_human > annotators ? items[i].n_human : annotators;
    }
    /* The policy combines orders: a procedure's verdicts are already combined. */
    ok = (items[0].has_final ||
          cJSON_AddStringToObject(
              o, "policy", opts->policy == ARB_CALIB_NET_VOTE ? "net-vote" : "inconsistent-tie")) &&
         cJSON_AddItemToObject(o, "labels", cJSON_CreateStringArray(pair_names, 3)) &&
         cJSON_AddItemToObject(o, "orders", orders_json(rows, n)) &&
         cJSON_AddItemToObject(o, "position", position_json(rows, n)) &&
         cJSON_AddItemToObject(o, "combined", combined_json(rows, n, resamples)) &&
         (annotators < 2 ||
          cJSON_AddItemToObject(o, "human", human_json(items, rows, n, annotators))) &&
         cJSON_AddItemToObject(o, "length", length_json(items, rows, n)) &&
         calib_criteria_study(o, items, n) &&
         cJSON_AddItemToObject(o, "items", items_json(items, rows, n));
    free(rows);
    return ok ? ARB_OK : ARB_ENOMEM;
}

/* ---- expectations ------------------------------------------------------------------------ */

static cJSON *bool_json(int v)
{
    return v == ARB_V_TRUE    ? cJSON_CreateTrue()
           : v == ARB_V_FALSE ? cJSON_CreateFalse()
                              : cJSON_CreateNull();
}

/* An expectation item's verdict: the procedure's, else the judge's (one order). */
static int verdict_of(const struct arb_calib_item *it)
{
    return it->has_final ? it->final : it->order_12;
}

/* Categories for the tables: 0 true, 1 false (the order of "labels"); unresolved stays -1. */
static int category(int v)
{
    return v == ARB_V_TRUE ? 0 : v == ARB_V_FALSE ? 1 : -1;
}

static enum arb_status expectations(const struct arb_calib_item *items, size_t n, size_t resamples,
                                    cJSON *o)
{
    static const char *const names[] = {"true", "false"};
    int *ref = malloc(n * sizeof(int)), *got = malloc(n * sizeof(int));
    cJSON *arr = NULL;
    struct calib_agreement a;
    int ok = ref && got;

    for (size_t i = 0; ok && i < n; i++) {
        ref[i] = category(items[i].human[0]);
        got[i] = category(verdict_of(&items[i]));
    }
    if (ok) {
        calib_agree(ref, got, NULL, n, 2, &a);
        ok = cJSON_AddItemToObject(o, "labels", cJSON_CreateStringArray(names, 2)) &&
             calib_add_count(o, "resolved", a.resolved) &&
             calib_add_count(o, "unresolved", n - a.resolved) &&
             calib_add_count(o, "correct", a.correct) &&
             calib_add_num(o, "accuracy", calib_ratio(a.correct, n)) &&
             calib_add_num(o, "kappa", a.kappa) &&
             cJSON_AddItemToObject(o, "confusion", calib_matrix_json(a.conf, 2)) &&
             cJSON_AddItemToObject(o, "bootstrap", bootstrap_json(ref, got, n, 2, resamples, &a)) &&
             (arr = cJSON_AddArrayToObject(o, "items")) != NULL;
    }
    for (size_t i = 0; ok && i < n; i++) {
        cJSON *x = cJSON_CreateObject();

        ok = x && cJSON_AddItemToArray(arr, x) && cJSON_AddStringToObject(x, "id", items[i].id) &&
             cJSON_AddItemToObject(x, "human", bool_json(items[i].human[0])) &&
             cJSON_AddItemToObject(x, "judge", bool_json(verdict_of(&items[i])));
    }
    free(ref);
    free(got);
    return ok ? ARB_OK : ARB_ENOMEM;
}

/* ---- the study --------------------------------------------------------------------------- */

/* 1 when v is a verdict (or label, without null) of the kind's categories. */
static int valid(int v, enum arb_calib_kind kind, int null_ok)
{
    return (v >= 0 && v <= (kind == ARB_CALIB_PAIRWISE ? 2 : 1)) || (null_ok && v == ARB_V_NULL);
}

static int valid_labels(const int *labels, size_t n, enum arb_calib_kind kind)
{
    if (n == 0 || n > ARB_CALIB_MAX_ANNOTATORS)
        return 0;
    for (size_t k = 0; k < n; k++)
        if (!valid(labels[k], kind, 0))
            return 0;
    return 1;
}

/* What the study assumes of one item: labels, and verdicts of the kind's categories. */
static int valid_item(const struct arb_calib_item *it, enum arb_calib_kind kind)
{
    /* An expectation has one order (order_12); order_21 is not read. */
    int o21 = kind == ARB_CALIB_PAIRWISE ? it->order_21 : ARB_V_ABSENT;

    if (!it->id || !valid_labels(it->human, it->n_human, kind))
        return 0;
    if ((it->order_12 != ARB_V_ABSENT && !valid(it->order_12, kind, 1)) ||
        (o21 != ARB_V_ABSENT && !valid(o21, kind, 1)))
        return 0;
    if (it->has_final ? !valid(it->final, kind, 1)
                      : it->order_12 == ARB_V_ABSENT && o21 == ARB_V_ABSENT)
        return 0;
    if (kind == ARB_CALIB_EXPECTATION)
        return it->n_human == 1;
    for (size_t k = 0; k < it->n_crit; k++) {
        const struct arb_calib_crit *c = &it->crit[k];

        if (!c->name || (c->n_human && !valid_labels(c->human, c->n_human, kind)) ||
            (c->verdict != ARB_V_ABSENT && !valid(c->verdict, kind, 1)))
            return 0;
    }
    return 1;
}

static enum arb_status check_items(const struct arb_calib_item *items, size_t n,
                                   enum arb_calib_kind kind, struct arb_err *err)
{
    if (!items || n == 0)
        return arb_err_set(err, ARB_EUSAGE, "a calibration study needs at least one item");
    for (size_t i = 0; i < n; i++) {
        const struct arb_calib_item *it = &items[i];

        /* One study measures one thing: the procedure, or the judge's orders. */
        if (!it->has_final != !items[0].has_final)
            return arb_err_set(err, ARB_EUSAGE,
                               "item %zu ('%s') %s the procedure's verdict and item 0 ('%s') "
                               "%s: a study measures one or the other",
                               i, it->id ? it->id : "", it->has_final ? "has" : "lacks",
                               items[0].id ? items[0].id : "",
                               items[0].has_final ? "has it" : "does not");
        if (!valid_item(it, kind))
            return arb_err_set(err, ARB_EUSAGE, "item %zu ('%s') has no verdict or no label", i,
                               it->id ? it->id : "");
    }
    return ARB_OK;
}

enum arb_status arb_calib_study(const struct arb_calib_item *items, size_t n,
                                enum arb_calib_kind kind, const struct arb_calib_opts *opts,
                                cJSON **out, struct arb_err *err)
{
    struct arb_calib_opts defaults = {0};
    size_t resamples;
    enum arb_status st;
    cJSON *o;

    *out = NULL;
    if (!opts)
        opts = &defaults;
    resamples = opts->bootstrap ? opts->bootstrap : DEFAULT_RESAMPLES;
    st = check_items(items, n, kind, err);
    if (st)
        return st;
    o = cJSON_CreateObject();
    if (!o ||
        !cJSON_AddStringToObject(o, "kind",
                                 kind == ARB_CALIB_PAIRWISE ? "pairwise" : "expectation") ||
        !calib_add_count(o, "n", n) ||
        !cJSON_AddStringToObject(o, "unparsed",
                                 opts->unparsed_tie && kind == ARB_CALIB_PAIRWISE ? "tie"
                                                                                  : "unresolved") ||
        (opts->judge_hash && !cJSON_AddStringToObject(o, "judge_hash", opts->judge_hash)) ||
        !cJSON_AddStringToObject(o, "verdict", items[0].has_final ? "procedure" : "judge_orders")) {
        cJSON_Delete(o);
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    st = kind == ARB_CALIB_PAIRWISE ? pairwise(items, n, opts, resamples, o)
                                    : expectations(items, n, resamples, o);
    if (st) {
        cJSON_Delete(o);
        return arb_err_set(err, st, "out of memory computing a calibration study");
    }
    *out = o;
    return ARB_OK;
}
