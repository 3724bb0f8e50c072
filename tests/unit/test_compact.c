/*
 * test_compact.c - the report's compact per-case representations against
 * plain ones on pseudo-random data: a column of codes (src/report/column.c)
 * gives back every double bit for bit and the same sums; the bootstrap gives
 * the same figures from compact columns and coded rows as from plain
 * doubles (src/stats/clusters.c); the bounded listing of the worst cases
 * (src/report/case_rates.c) lists what sorting every case lists.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/report/report_int.h"
#include "../../src/report/stats_int.h"

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* n values drawn among k distinct ones (k 0: any double in [0, 10)). */
static void fill(double *x, size_t n, size_t k, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = next(&seed);

        x[i] = k ? (double)(r % k) * 0.37 - 3.0 : (double)(r >> 11) / 9007199254740992.0 * 10.0;
    }
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof(a)) == 0;
}

Test(report_compact, should_give_back_every_value_at_each_width)
{
    static const size_t distinct[] = {1, 3, 256, 257, 65536, 65537, 0};
    enum { N = 200000 };
    double *x = malloc(N * sizeof(*x));

    cr_assert_not_null(x);
    for (size_t t = 0; t < sizeof(distinct) / sizeof(distinct[0]); t++) {
        struct col c;
        double plain = 0;

        memset(&c, 0, sizeof(c));
        fill(x, N, 0, 42 + t);
        for (size_t i = 0; distinct[t] && i < N; i++) /* each of them, in a scattered order */
            x[i] = (double)((i * 7919) % distinct[t]) * 0.37 - 3.0;
        x[7] = -0.0; /* kept apart from 0.0 */
        for (size_t i = 0; i < N; i++)
            cr_assert_eq(col_push(&c, x[i]), 0);
        cr_assert_eq(c.n, N);
        /* -0.0 is one more distinct value */
        cr_assert_eq(c.width,
                     distinct[t] && distinct[t] < 256     ? 1u
                     : distinct[t] && distinct[t] < 65536 ? 2u
                                                          : 8u,
                     "%zu distinct: width %u", distinct[t] + 1, c.width);
        for (size_t i = 0; i < N; i++) {
            cr_assert(same_bits(col_at(&c, i), x[i]), "value %zu of %zu distinct", i, distinct[t]);
            plain += x[i];
        }
        cr_assert(same_bits(col_sum(&c), plain));
        col_release(&c);
    }
    free(x);
}

/* Two bootstraps give the same figures, bit for bit. */
static void assert_same(const struct arb_cluster_stat *a, const struct arb_cluster_stat *b)
{
    cr_assert_eq(a->ok, b->ok);
    cr_assert(same_bits(a->out.estimate, b->out.estimate) && same_bits(a->out.lo, b->out.lo) &&
                  same_bits(a->out.hi, b->out.hi) && same_bits(a->median, b->median),
              "[%.17g, %.17g] vs [%.17g, %.17g]", a->out.lo, a->out.hi, b->out.lo, b->out.hi);
    cr_assert(same_bits(a->p_two_sided, b->p_two_sided) ||
              (isnan(a->p_two_sided) && isnan(b->p_two_sided)));
}

Test(report_compact, should_bootstrap_compact_columns_as_doubles)
{
    enum { N = 5000, K = 4 };
    static double num[K][N], den[K][N];
    static const size_t distinct[K] = {3, 300, 0, 2};
    struct col cn[K], cd[K];
    struct arb_column vn[K], vd[K];
    struct arb_cluster_stat plain[K], compact[K];

    memset(cn, 0, sizeof(cn));
    memset(cd, 0, sizeof(cd));
    memset(plain, 0, sizeof(plain));
    memset(compact, 0, sizeof(compact));
    for (size_t k = 0; k < K; k++) {
        fill(num[k], N, distinct[k], 7 + k);
        fill(den[k], N, 2, 70 + k);
        for (size_t i = 0; i < N; i++)
            den[k][i] = fabs(den[k][i]); /* 3 or 2.63 */
        for (size_t i = 0; i < N; i++)
            cr_assert(!col_push(&cn[k], num[k][i]) && !col_push(&cd[k], den[k][i]));
        vn[k] = col_view(&cn[k]);
        vd[k] = col_view(&cd[k]);
        plain[k].num = num[k];
        plain[k].den = k % 2 ? den[k] : NULL;
        compact[k].num_col = &vn[k];
        compact[k].den_col = k % 2 ? &vd[k] : NULL;
        plain[k].want_p = compact[k].want_p = k == 2;
    }
    cr_assert_eq(arb_bootstrap_clusters(plain, K, N, 1000, 0.95, 11), ARB_OK);
    cr_assert_eq(arb_bootstrap_clusters(compact, K, N, 1000, 0.95, 11), ARB_OK);
    for (size_t k = 0; k < K; k++) {
        cr_assert(plain[k].ok);
        assert_same(&plain[k], &compact[k]);
    }
    for (size_t k = 0; k < K; k++) {
        col_release(&cn[k]);
        col_release(&cd[k]);
    }
}

/*
 * A statistic of few values alone has its rows coded (a few distinct rows);
 * beside a continuous one in the same block every row is copied: the same
 * figures both ways.
 */
Test(report_compact, should_bootstrap_coded_rows_as_copied_ones)
{
    enum { N = 20000 };
    static double win[N], score[N];
    struct arb_cluster_stat alone, both[2];

    fill(win, N, 3, 5);
    fill(score, N, 0, 6);
    memset(&alone, 0, sizeof(alone));
    memset(both, 0, sizeof(both));
    alone.num = both[0].num = win;
    both[1].num = score;
    for (size_t r = 1; r <= 1001; r += 500) {
        cr_assert_eq(arb_bootstrap_clusters(&alone, 1, N, r, 0.95, 3), ARB_OK);
        cr_assert_eq(arb_bootstrap_clusters(both, 2, N, r, 0.95, 3), ARB_OK);
        assert_same(&alone, &both[0]);
    }
}

/* The reference: every case's counts, sorted by lowest pass rate, then case order. */
struct ref_case {
    double worst;
    size_t i;
};

static int by_ref(const void *pa, const void *pb)
{
    const struct ref_case *a = pa, *b = pb;

    if (a->worst != b->worst)
        return a->worst < b->worst ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

static void check_listing(size_t n_cases, size_t limit, uint64_t seed)
{
    const char *names[] = {"a", "b"};
    struct case_rates cr;
    struct ref_case *ref = calloc(n_cases, sizeof(*ref));
    size_t *order = calloc(n_cases, sizeof(*order));
    cJSON *report = cJSON_CreateObject();
    const cJSON *items, *it;
    size_t m = 0, k = 0, counted = 0;

    cr_assert(ref && order && report);
    cr_assert_eq(case_rates_init(&cr, names, 2, limit), ARB_OK);
    for (size_t i = 0; i < n_cases; i++) {
        char id[32];
        double w = NAN;

        snprintf(id, sizeof(id), "case-%zu", i);
        for (size_t s = 0; s < 2; s++) {
            uint32_t p = (uint32_t)(next(&seed) % 4), f = (uint32_t)(next(&seed) % 3);

            cr_assert_eq(case_rates_add(&cr, id, names[s], p, f, 0), ARB_OK);
            if (p + f) {
                double r = (double)p / (double)(p + f);

                w = isnan(w) || r < w ? r : w;
            }
        }
        if (!isnan(w)) /* a case without counts is not listed at all */
            order[counted++] = i;
        if (!isnan(w) && w < 1.0) {
            ref[m].worst = w;
            ref[m++].i = i;
        }
    }
    qsort(ref, m, sizeof(*ref), by_ref);
    cr_assert_eq(case_rates_emit(&cr, report), ARB_OK);
    items = cJSON_GetObjectItem(cJSON_GetObjectItem(report, "case_pass_rates"), "items");
    cJSON_ArrayForEach(it, items)
    {
        char want[32];

        if (limit >= counted)
            snprintf(want, sizeof(want), "case-%zu", order[k]);
        else
            snprintf(want, sizeof(want), "case-%zu", ref[k].i);
        cr_assert_str_eq(cJSON_GetObjectItem(it, "case")->valuestring, want, "item %zu", k);
        k++;
    }
    cr_assert_eq(k, limit >= counted ? counted : (m < limit ? m : limit));
    case_rates_release(&cr);
    cJSON_Delete(report);
    free(ref);
    free(order);
}

Test(report_compact, should_list_the_worst_cases_as_a_full_sort_does)
{
    check_listing(5000, 20, 1);
    check_listing(5000, 1, 2);
    check_listing(300, 500, 3); /* all of them, in case order */
    check_listing(20, 20, 4);
    check_listing(21, 20, 5);
    check_listing(3000, SIZE_MAX, 6);
}
