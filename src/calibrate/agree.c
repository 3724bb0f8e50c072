/*
 * agree.c - agreement figures of a calibration study that study.c does not
 * build itself: the JSON helpers every part of a study uses, agreement of a
 * verdict with a reference (counts, confusion, Cohen's kappa), per-criterion
 * agreement, and agreement between annotators (Cohen's or Fleiss' kappa,
 * Krippendorff's alpha).  Pure functions of their arguments, like study.c.
 *
 * Cohen's kappa itself is src/stats/'s; Fleiss' kappa and Krippendorff's
 * alpha are here because only a study uses them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/stats.h"
#include "calib_int.h"

static const char *const verdict_names[] = {"1", "2", "tie"};

/* ---- JSON helpers ------------------------------------------------------------------------ */

double calib_ratio(size_t a, size_t b)
{
    return b ? (double)a / (double)b : NAN;
}

int calib_add_num(cJSON *o, const char *name, double v)
{
    cJSON *x = isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();

    return x && cJSON_AddItemToObject(o, name, x);
}

int calib_add_count(cJSON *o, const char *name, size_t v)
{
    return cJSON_AddNumberToObject(o, name, (double)v) != NULL;
}

cJSON *calib_verdict_json(int v)
{
    return v >= 0 && v <= 2 ? cJSON_CreateString(verdict_names[v]) : cJSON_CreateNull();
}

cJSON *calib_matrix_json(const double *m, size_t k)
{
    cJSON *rows = cJSON_CreateArray();

    for (size_t i = 0; rows && i < k; i++) {
        cJSON *row = cJSON_CreateArray();

        if (!row || !cJSON_AddItemToArray(rows, row)) {
            cJSON_Delete(row);
            cJSON_Delete(rows);
            return NULL;
        }
        for (size_t j = 0; j < k; j++)
            if (!cJSON_AddItemToArray(row, cJSON_CreateNumber(m[i * k + j]))) {
                cJSON_Delete(rows);
                return NULL;
            }
    }
    return rows;
}

/* ---- a verdict against a reference ----------------------------------------------------- */

void calib_agree(const int *ref, const int *got, const size_t *pick, size_t n, size_t k,
                 struct calib_agreement *a)
{
    memset(a, 0, sizeof(*a));
    a->n = n;
    for (size_t r = 0; r < n; r++) {
        size_t i = pick ? pick[r] : r;

        if (got[i] < 0)
            continue;
        a->resolved++;
        a->correct += got[i] == ref[i];
        a->conf[(size_t)ref[i] * k + (size_t)got[i]] += 1.0;
    }
    a->kappa = a->resolved ? arb_cohen_kappa(a->conf, k) : NAN;
}

/* ---- per criterion ------------------------------------------------------------------------ */

static const struct arb_calib_crit *find_crit(const struct arb_calib_item *it, const char *name)
{
    for (size_t k = 0; k < it->n_crit; k++)
        if (strcmp(it->crit[k].name, name) == 0)
            return &it->crit[k];
    return NULL;
}

/* The names of criteria with a human label somewhere, in order of first appearance. */
static const char **labelled_names(const struct arb_calib_item *items, size_t n, size_t *count,
                                   int *oom)
{
    size_t total = 0;
    const char **names;

    *count = 0;
    *oom = 0;
    for (size_t i = 0; i < n; i++)
        total += items[i].n_crit;
    if (!total)
        return NULL;
    names = malloc(total * sizeof(*names));
    if (!names) {
        *oom = 1;
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < items[i].n_crit; k++) {
            const struct arb_calib_crit *c = &items[i].crit[k];
            size_t j;

            if (!c->n_human)
                continue;
            for (j = 0; j < *count && strcmp(names[j], c->name) != 0; j++)
                ;
            if (j == *count)
                names[(*count)++] = c->name;
        }
    return names;
}

/* One criterion's figures over the items labelled for it whose verdict is known. */
static cJSON *criterion_json(const struct arb_calib_item *items, size_t n, const char *name,
                             int *ref, int *got)
{
    size_t m = 0, labelled = 0, s2_n = 0, s2_agree = 0;
    struct calib_agreement a;
    cJSON *o;

    for (size_t i = 0; i < n; i++) {
        const struct arb_calib_crit *c = find_crit(&items[i], name);

        if (!c || !c->n_human)
            continue;
        labelled++;
        if (c->verdict == ARB_V_ABSENT)
            continue;
        ref[m] = arb_calib_majority(c->human, c->n_human, 3);
        got[m] = c->verdict >= 0 ? c->verdict : -1;
        if (ref[m] != ARB_V_TIE && (got[m] == ARB_V_1 || got[m] == ARB_V_2)) {
            s2_n++;
            s2_agree += ref[m] == got[m];
        }
        m++;
    }
    calib_agree(ref, got, NULL, m, 3, &a);
    o = cJSON_CreateObject();
    if (!o || !calib_add_count(o, "n", m) || !calib_add_count(o, "labelled", labelled) ||
        !calib_add_count(o, "unresolved", m - a.resolved) ||
        !calib_add_num(o, "agreement_with_ties", calib_ratio(a.correct, m)) ||
        !calib_add_count(o, "n_without_ties", s2_n) ||
        !calib_add_num(o, "agreement_without_ties", calib_ratio(s2_agree, s2_n)) ||
        !calib_add_num(o, "kappa", a.kappa) ||
        !cJSON_AddItemToObject(o, "confusion", calib_matrix_json(a.conf, 3))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

int calib_criteria_study(cJSON *study, const struct arb_calib_item *items, size_t n)
{
    size_t count;
    int oom, ok;
    const char **names = labelled_names(items, n, &count, &oom);
    int *ref = NULL, *got = NULL;
    cJSON *per;

    if (oom)
        return 0;
    if (!count) {
        free(names);
        return 1;
    }
    ref = malloc(n * sizeof(int));
    got = malloc(n * sizeof(int));
    per = cJSON_CreateObject();
    ok = ref && got && per && cJSON_AddItemToObject(study, "criteria", per);
    if (!ok)
        cJSON_Delete(per);
    for (size_t j = 0; ok && j < count; j++)
        ok = cJSON_AddItemToObject(per, names[j], criterion_json(items, n, names[j], ref, got));
    free(names);
    free(ref);
    free(got);
    return ok;
}

/* ---- between annotators ------------------------------------------------------------------ */

/* How many raters put unit u in some category. */
static size_t raters_of(const size_t *counts, size_t u, size_t k)
{
    size_t m = 0;

    for (size_t c = 0; c < k; c++)
        m += counts[u * k + c];
    return m;
}

/*
 * Fleiss (1971): P_u = sum_c n_uc (n_uc - 1) / (m (m - 1)) per unit, P its mean,
 * p_c = sum_u n_uc / (N m), P_e = sum_c p_c^2, kappa = (P - P_e) / (1 - P_e).
 */
double calib_fleiss_kappa(const size_t *counts, size_t units, size_t k)
{
    size_t m = units ? raters_of(counts, 0, k) : 0;
    double p_bar = 0.0, p_e = 0.0, pairs = (double)m * ((double)m - 1.0);

    if (m < 2)
        return NAN;
    for (size_t u = 0; u < units; u++) {
        double agree = 0.0;

        if (raters_of(counts, u, k) != m)
            return NAN;
        for (size_t c = 0; c < k; c++)
            agree += (double)counts[u * k + c] * ((double)counts[u * k + c] - 1.0);
        p_bar += agree / pairs;
    }
    p_bar /= (double)units;
    for (size_t c = 0; c < k; c++) {
        double share = 0.0;

        for (size_t u = 0; u < units; u++)
            share += (double)counts[u * k + c];
        share /= (double)units * (double)m;
        p_e += share * share;
    }
    return p_e < 1.0 ? (p_bar - p_e) / (1.0 - p_e) : NAN;
}

/*
 * Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C:
 * over pairable units (m_u >= 2 values), the coincidences o_ck = sum_u n_uc (n_uk -
 * [c = k]) / (m_u - 1), their margins n_c (the values in pairable units) and total n;
 * nominal alpha = 1 - (n - 1) * sum_{c != k} o_ck / sum_{c != k} n_c n_k.  Off the
 * diagonal, sum_{c != k} n_uc n_uk = m_u^2 - sum_c n_uc^2.
 */
double calib_krippendorff_alpha(const size_t *counts, size_t units, size_t k)
{
    double n = 0.0, observed = 0.0, expected = 0.0;

    for (size_t u = 0; u < units; u++) {
        double m = (double)raters_of(counts, u, k), same = 0.0;

        if (m < 2.0)
            continue;
        for (size_t c = 0; c < k; c++)
            same += (double)counts[u * k + c] * (double)counts[u * k + c];
        observed += (m * m - same) / (m - 1.0);
        n += m;
    }
    for (size_t c = 0; c < k; c++) {
        double margin = 0.0;

        for (size_t u = 0; u < units; u++)
            if (raters_of(counts, u, k) >= 2)
                margin += (double)counts[u * k + c];
        expected += margin * (n - margin);
    }
    return expected > 0.0 ? 1.0 - (n - 1.0) * observed / expected : NAN;
}

/* Cohen's kappa of annotator 1 against annotator 2 over items labelled by both. */
static double two_annotators(const struct arb_calib_item *items, size_t n, size_t *used)
{
    double conf[9] = {0};

    *used = 0;
    for (size_t i = 0; i < n; i++) {
        if (items[i].n_human < 2)
            continue;
        conf[items[i].human[0] * 3 + items[i].human[1]] += 1.0;
        (*used)++;
    }
    return *used ? arb_cohen_kappa(conf, 3) : NAN;
}

/* The most common number (>= 2) of labels on an item; equal counts: the larger number. */
static size_t usual_raters(const struct arb_calib_item *items, size_t n)
{
    size_t seen[ARB_CALIB_MAX_ANNOTATORS + 1] = {0}, best = 0;

    for (size_t i = 0; i < n; i++)
        if (items[i].n_human >= 2 && items[i].n_human <= ARB_CALIB_MAX_ANNOTATORS)
            seen[items[i].n_human]++;
    for (size_t m = 2; m <= ARB_CALIB_MAX_ANNOTATORS; m++)
        if (seen[m] && seen[m] >= seen[best])
            best = m;
    return best;
}

/* Category counts (1, 2, tie) of the items with exactly raters labels (0: at least 2). */
static size_t *label_counts(const struct arb_calib_item *items, size_t n, size_t raters,
                            size_t *units)
{
    size_t *counts = calloc(n ? 3 * n : 1, sizeof(size_t));

    *units = 0;
    if (!counts)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (raters ? items[i].n_human != raters : items[i].n_human < 2)
            continue;
        for (size_t a = 0; a < items[i].n_human; a++)
            counts[*units * 3 + (size_t)items[i].human[a]]++;
        (*units)++;
    }
    return counts;
}

int calib_annotators_study(cJSON *human, const struct arb_calib_item *items, size_t n,
                           size_t annotators)
{
    size_t multi = 0, kappa_n = 0, alpha_n = 0, raters = annotators == 2 ? 2 : 0;
    size_t *counts;
    double kappa, alpha;

    for (size_t i = 0; i < n; i++)
        multi += items[i].n_human >= 2;
    if (raters) {
        kappa = two_annotators(items, n, &kappa_n);
    } else {
        raters = usual_raters(items, n);
        counts = label_counts(items, n, raters, &kappa_n);
        if (!counts)
            return 0;
        kappa = calib_fleiss_kappa(counts, kappa_n, 3);
        free(counts);
    }
    counts = label_counts(items, n, 0, &alpha_n);
    if (!counts)
        return 0;
    alpha = calib_krippendorff_alpha(counts, alpha_n, 3);
    free(counts);
    return calib_add_count(human, "n_items_multi", multi) &&
           cJSON_AddStringToObject(human, "kappa_kind", annotators == 2 ? "cohen" : "fleiss") &&
           calib_add_num(human, "kappa", kappa) && calib_add_count(human, "kappa_n", kappa_n) &&
           calib_add_count(human, "kappa_annotators", raters) &&
           calib_add_num(human, "alpha", alpha) && calib_add_count(human, "alpha_n", alpha_n);
}
