/*
 * test_clusters.c - arb_bootstrap_clusters: many percentile bootstraps from
 * one resampling of the cases (src/stats/clusters.c).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/stats.h"
#include "arbiter/status.h"

#define N 400

static void assert_near(double got, double want, double tol)
{
    cr_assert(fabs(got - want) <= tol, "got %.17g, want %.17g (tolerance %g)", got, want, tol);
}

/* Deterministic pseudo-data in [0, 10) (not the library's generator). */
static void fill(double *x, size_t n, uint64_t s)
{
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        x[i] = (double)(s >> 11) / 9007199254740992.0 * 10.0;
    }
}

static struct arb_cluster_stat mean_of(const double *x)
{
    struct arb_cluster_stat c;

    memset(&c, 0, sizeof(c));
    c.num = x;
    return c;
}

static void assert_same(const struct arb_cluster_stat *a, const struct arb_cluster_stat *b)
{
    cr_assert_eq(a->ok, b->ok);
    cr_assert(a->out.estimate == b->out.estimate, "%.17g vs %.17g", a->out.estimate,
              b->out.estimate);
    cr_assert(a->out.lo == b->out.lo && a->out.hi == b->out.hi, "[%.17g, %.17g] vs [%.17g, %.17g]",
              a->out.lo, a->out.hi, b->out.lo, b->out.hi);
}

Test(stats_clusters, should_repeat_for_a_seed_and_change_with_it)
{
    double x[N];
    struct arb_cluster_stat a = mean_of(x), b = mean_of(x), c = mean_of(x);

    fill(x, N, 3);
    cr_assert_eq(arb_bootstrap_clusters(&a, 1, N, 1000, 0.95, 5), ARB_OK);
    cr_assert_eq(arb_bootstrap_clusters(&b, 1, N, 1000, 0.95, 5), ARB_OK);
    cr_assert_eq(arb_bootstrap_clusters(&c, 1, N, 1000, 0.95, 6), ARB_OK);
    assert_same(&a, &b);
    cr_assert(a.out.lo != c.out.lo || a.out.hi != c.out.hi);
    cr_assert(a.ok && a.out.lo < a.out.estimate && a.out.estimate < a.out.hi);
}

/* A statistic's interval is the same alone and among others, over several blocks of columns. */
Test(stats_clusters, should_not_depend_on_the_other_statistics)
{
    static double cols[12][N], den[N];
    struct arb_cluster_stat many[12], alone;

    for (int k = 0; k < 12; k++)
        fill(cols[k], N, 100 + (uint64_t)k);
    for (int i = 0; i < N; i++)
        den[i] = i % 4 ? 1.0 : 0.0;
    for (int k = 0; k < 12; k++) {
        many[k] = mean_of(cols[k]);
        if (k % 3 == 1)
            many[k].den = den; /* two columns each: the blocks fill unevenly */
        many[k].want_p = k == 7;
    }
    cr_assert_eq(arb_bootstrap_clusters(many, 12, N, 501, 0.95, 9), ARB_OK);
    for (int k = 0; k < 12; k++) {
        alone = many[k];
        cr_assert_eq(arb_bootstrap_clusters(&alone, 1, N, 501, 0.95, 9), ARB_OK);
        assert_same(&many[k], &alone);
        if (k == 7)
            cr_assert(many[k].p_two_sided == alone.p_two_sided);
    }
}

Test(stats_clusters, should_treat_a_column_of_ones_as_no_denominator)
{
    double x[N], ones[N];
    struct arb_cluster_stat a = mean_of(x), b = mean_of(x);

    fill(x, N, 17);
    for (int i = 0; i < N; i++)
        ones[i] = 1.0;
    b.den = ones;
    cr_assert_eq(arb_bootstrap_clusters(&a, 1, N, 1000, 0.95, 2), ARB_OK);
    cr_assert_eq(arb_bootstrap_clusters(&b, 1, N, 1000, 0.95, 2), ARB_OK);
    assert_same(&a, &b);
}

Test(stats_clusters, should_collapse_for_identical_values)
{
    double x[50], num[50], den[50];
    struct arb_cluster_stat s[2] = {mean_of(x), mean_of(num)};

    for (int i = 0; i < 50; i++) {
        x[i] = 0.1; /* 50 * 0.1 / 50 would not round-trip; offsets from the first do */
        den[i] = (double)(1 + i % 3);
        num[i] = 0.7 * den[i];
    }
    s[1].den = den;
    cr_assert_eq(arb_bootstrap_clusters(s, 2, 50, 1000, 0.95, 1), ARB_OK);
    cr_assert(s[0].out.estimate == 0.1 && s[0].out.lo == 0.1 && s[0].out.hi == 0.1);
    cr_assert(s[1].out.estimate == 0.7 && s[1].out.lo == 0.7 && s[1].out.hi == 0.7,
              "[%.17g, %.17g]", s[1].out.lo, s[1].out.hi);
}

Test(stats_clusters, should_skip_null_and_empty_statistics)
{
    double x[N], zero[N];
    struct arb_cluster_stat s[3] = {mean_of(NULL), mean_of(x), mean_of(x)};

    fill(x, N, 5);
    memset(zero, 0, sizeof(zero));
    s[2].den = zero;
    cr_assert_eq(arb_bootstrap_clusters(s, 3, N, 200, 0.95, 1), ARB_OK);
    cr_assert(!s[0].ok && isnan(s[0].out.lo));
    cr_assert(s[1].ok && s[1].out.lo < s[1].out.hi);
    cr_assert(!s[2].ok && isnan(s[2].out.estimate));
}

Test(stats_clusters, should_estimate_a_ratio_of_sums)
{
    double num[] = {1, 0, 2, 3, 0}, den[] = {2, 0, 2, 4, 1};
    struct arb_cluster_stat s = mean_of(num);

    s.den = den;
    cr_assert_eq(arb_bootstrap_clusters(&s, 1, 5, 1000, 0.95, 3), ARB_OK);
    assert_near(s.out.estimate, 6.0 / 9.0, 1e-15);
    cr_assert(s.out.lo >= 0.0 && s.out.hi <= 1.0 && s.out.lo < s.out.hi);
}

Test(stats_clusters, should_match_the_normal_width_of_a_proportion)
{
    double *x = malloc(1000 * sizeof(*x));
    struct arb_cluster_stat s;

    cr_assert_not_null(x);
    for (int i = 0; i < 1000; i++)
        x[i] = i % 10 < 3 ? 1.0 : 0.0;
    s = mean_of(x);
    cr_assert_eq(arb_bootstrap_clusters(&s, 1, 1000, 2000, 0.95, 2024), ARB_OK);
    assert_near(s.out.estimate, 0.3, 1e-12);
    /* 2 * 1.96 * sqrt(0.3 * 0.7 / 1000) = 0.0568 */
    assert_near(s.out.hi - s.out.lo, 0.0568, 0.006);
    free(x);
}

/* The same distribution as the one-statistic bootstrap of bootstrap.c, from other draws. */
Test(stats_clusters, should_agree_with_arb_bootstrap_mean_within_monte_carlo_error)
{
    double x[N];
    struct arb_cluster_stat s = mean_of(x);
    struct arb_interval iv;

    fill(x, N, 77);
    cr_assert_eq(arb_bootstrap_clusters(&s, 1, N, 4000, 0.95, 8), ARB_OK);
    cr_assert_eq(arb_bootstrap_mean(x, N, 4000, 0.95, 8, &iv), ARB_OK);
    assert_near(s.out.estimate, iv.estimate, 1e-12);
    assert_near(s.out.lo, iv.lo, 0.05 * (iv.hi - iv.lo));
    assert_near(s.out.hi, iv.hi, 0.05 * (iv.hi - iv.lo));
}

Test(stats_clusters, should_give_p_values_for_differences)
{
    double d[N], zero[N];
    struct arb_cluster_stat s[2] = {mean_of(d), mean_of(zero)};

    fill(d, N, 13);
    for (int i = 0; i < N; i++)
        d[i] = 0.2 + d[i] / 100.0; /* every difference positive */
    memset(zero, 0, sizeof(zero));
    s[0].want_p = s[1].want_p = 1;
    cr_assert_eq(arb_bootstrap_clusters(s, 2, N, 1000, 0.95, 4), ARB_OK);
    cr_assert(s[0].p_two_sided == 0.0 && s[0].out.lo > 0.0);
    cr_assert(s[1].p_two_sided == 1.0 && s[1].out.lo == 0.0 && s[1].out.hi == 0.0);
}

/* Two systems' win rates: one is games minus the other, so its interval mirrors it. */
Test(stats_clusters, should_mirror_complementary_rates)
{
    double win[N], other[N], games[N];
    struct arb_cluster_stat s[2] = {mean_of(win), mean_of(other)};

    fill(win, N, 21);
    for (int i = 0; i < N; i++) {
        games[i] = (double)(1 + i % 2);
        win[i] = floor(win[i] / 5.0) * 0.5 * games[i]; /* 0 or half the games */
        other[i] = games[i] - win[i];
    }
    s[0].den = s[1].den = games;
    cr_assert_eq(arb_bootstrap_clusters(s, 2, N, 1000, 0.95, 6), ARB_OK);
    assert_near(s[1].out.lo, 1.0 - s[0].out.hi, 1e-12);
    assert_near(s[1].out.hi, 1.0 - s[0].out.lo, 1e-12);
}

Test(stats_clusters, should_handle_one_and_an_odd_number_of_resamples)
{
    double x[N];
    struct arb_cluster_stat one = mean_of(x), odd = mean_of(x);

    fill(x, N, 31);
    cr_assert_eq(arb_bootstrap_clusters(&one, 1, N, 1, 0.95, 1), ARB_OK);
    cr_assert(one.ok && one.out.lo == one.out.hi && one.out.lo > 0.0);
    cr_assert_eq(arb_bootstrap_clusters(&odd, 1, N, 7, 0.95, 1), ARB_OK);
    cr_assert(odd.ok && odd.out.lo <= odd.out.hi);
}

Test(stats_clusters, should_refuse_impossible_arguments)
{
    double x[] = {1, 2, 3}, bad[] = {1, NAN, 3}, neg[] = {1, -1, 1};
    struct arb_cluster_stat s = mean_of(x);

    cr_assert_eq(arb_bootstrap_clusters(&s, 1, 0, 100, 0.95, 1), ARB_EUSAGE);
    cr_assert_eq(arb_bootstrap_clusters(&s, 1, 3, 0, 0.95, 1), ARB_EUSAGE);
    cr_assert_eq(arb_bootstrap_clusters(&s, 1, 3, 100, 1.0, 1), ARB_EUSAGE);
    cr_assert_eq(arb_bootstrap_clusters(NULL, 1, 3, 100, 0.95, 1), ARB_EUSAGE);
    s.num = bad;
    cr_assert_eq(arb_bootstrap_clusters(&s, 1, 3, 100, 0.95, 1), ARB_EUSAGE);
    s.num = x;
    s.den = neg;
    cr_assert_eq(arb_bootstrap_clusters(&s, 1, 3, 100, 0.95, 1), ARB_EUSAGE);
    cr_assert_eq(arb_bootstrap_clusters(NULL, 0, 3, 100, 0.95, 1), ARB_OK, "nothing to do");
}
