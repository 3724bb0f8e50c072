/*
 * test_quantile.c - arb_quantile (type 7, NumPy's default) and the bootstrap
 * median arb_bootstrap_clusters gives beside each interval, against figures
 * worked out by hand.
 */
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/stats.h"
#include "arbiter/status.h"

static void assert_near(double got, double want)
{
    cr_assert(fabs(got - want) <= 1e-12, "got %.17g, want %.17g", got, want);
}

/*
 * numpy.percentile([1, 2, 3, 4], q): h = (n - 1) * q / 100, then interpolate:
 * 50 -> h 1.5 -> 2.5; 25 -> h 0.75 -> 1.75; 90 -> h 2.7 -> 3.7; 99 -> h 2.97 -> 3.97.
 */
Test(stats_quantile, should_interpolate_between_closest_ranks)
{
    const double v[] = {1, 2, 3, 4};

    assert_near(arb_quantile(v, 4, 0.5), 2.5);
    assert_near(arb_quantile(v, 4, 0.25), 1.75);
    assert_near(arb_quantile(v, 4, 0.75), 3.25);
    assert_near(arb_quantile(v, 4, 0.9), 3.7);
    assert_near(arb_quantile(v, 4, 0.99), 3.97);
    assert_near(arb_quantile(v, 4, 0), 1);
    assert_near(arb_quantile(v, 4, 1), 4);
}

/* Odd n: the median is the middle value; p90 of 10, 20, 40 is h 1.8 -> 20 + 0.8 * 20 = 36. */
Test(stats_quantile, should_give_the_middle_value_for_odd_n)
{
    const double v[] = {10, 20, 40};

    assert_near(arb_quantile(v, 3, 0.5), 20);
    assert_near(arb_quantile(v, 3, 0.9), 36);
    assert_near(arb_quantile(v + 2, 1, 0.99), 40);
}

Test(stats_quantile, should_be_nan_without_values_or_outside_0_1)
{
    const double v[] = {1, 2};

    cr_assert(isnan(arb_quantile(v, 0, 0.5)));
    cr_assert(isnan(arb_quantile(v, 2, 1.5)));
    cr_assert(isnan(arb_quantile(v, 2, -0.1)));
}

/*
 * Cases {0, 0, 1}: a resample of three cases has mean k/3 with k ~ Binomial(3, 1/3):
 * P(0) = 8/27 (0.30), P(1/3) = 12/27, so P(mean <= 1/3) = 20/27 (0.74): the median of the
 * resampled means is 1/3, far from either edge for 1000 resamples.  The 2.5th percentile
 * is 0 and the 97.5th 2/3 (P(mean <= 2/3) = 26/27 = 0.963 < 0.975, so it is 1 or
 * between: P(k = 3) = 1/27 = 0.037 > 0.025 puts it at 1).
 */
Test(stats_quantile, should_give_the_median_of_the_resampled_means)
{
    const double x[] = {0, 0, 1};
    struct arb_cluster_stat c;

    memset(&c, 0, sizeof(c));
    c.num = x;
    cr_assert_eq(arb_bootstrap_clusters(&c, 1, 3, 1000, 0.95, 7), ARB_OK);
    cr_assert(c.ok);
    assert_near(c.out.estimate, 1.0 / 3.0);
    assert_near(c.median, 1.0 / 3.0);
    assert_near(c.out.lo, 0);
    assert_near(c.out.hi, 1);
}

/* Identical values: every resample gives the value, so does the median; a skipped one is NaN. */
Test(stats_quantile, should_give_the_value_back_and_nan_when_skipped)
{
    const double x[] = {0.7, 0.7, 0.7, 0.7};
    struct arb_cluster_stat c[2];

    memset(c, 0, sizeof(c));
    c[0].num = x;
    cr_assert_eq(arb_bootstrap_clusters(c, 2, 4, 200, 0.95, 1), ARB_OK);
    cr_assert(c[0].median == 0.7, "%.17g", c[0].median);
    cr_assert(!c[1].ok);
    cr_assert(isnan(c[1].median));
}

/*
 * pass@1 and pass^1 are both c/n: the two estimators must give the same double, or one
 * resampling of the cases gives the same quantity two intervals (1 - (1 - 1/3) is not 1/3).
 */
Test(stats_quantile, should_give_pass_at_1_and_pass_hat_1_the_same_value)
{
    for (size_t n = 1; n <= 12; n++)
        for (size_t c = 0; c <= n; c++)
            cr_assert(arb_pass_at_k(n, c, 1) == arb_pass_hat_k(n, c, 1),
                      "n %zu c %zu: %.17g vs %.17g", n, c, arb_pass_at_k(n, c, 1),
                      arb_pass_hat_k(n, c, 1));
}
