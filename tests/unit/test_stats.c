/*
 * Unit tests for include/arbiter/stats.h against values computed by hand or
 * by an independent method: exact big-integer binomial sums (Python) for the
 * sign test, a Newton solver written here for Bradley-Terry, reference
 * xoshiro256** output for the generator.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/stats.h"
#include "arbiter/status.h"
#include "../../src/stats/draw.h"

#define assert_near(actual, expected, tol)                                                         \
    cr_assert(fabs((double)(actual) - (double)(expected)) <= (tol), "%s = %.17g, expected %.17g",  \
              #actual, (double)(actual), (double)(expected))

/* ---- generator ---- */

Test(stats_rng, should_match_the_reference_xoshiro256starstar_sequence)
{
    struct arb_rng r;

    /* Reference: splitmix64 seeding then xoshiro256**, computed in Python. */
    arb_rng_seed(&r, 0);
    cr_assert_eq(arb_rng_next(&r), 0x99ec5f36cb75f2b4u);
    cr_assert_eq(arb_rng_next(&r), 0xbf6e1f784956452au);
    cr_assert_eq(arb_rng_next(&r), 0x1a5f849d4933e6e0u);
    arb_rng_seed(&r, 42);
    cr_assert_eq(arb_rng_next(&r), 0x15780b2e0c2ec716u);
}

Test(stats_rng, should_repeat_a_sequence_for_the_same_seed)
{
    struct arb_rng a, b, c;
    int differ = 0;

    arb_rng_seed(&a, 12345);
    arb_rng_seed(&b, 12345);
    arb_rng_seed(&c, 12346);
    for (int i = 0; i < 1000; i++) {
        uint64_t x = arb_rng_next(&a);

        cr_assert_eq(x, arb_rng_next(&b));
        differ += x != arb_rng_next(&c);
    }
    cr_assert_gt(differ, 990);
}

/* The bootstrap's index drawer: same generator as arb_rng, two indices per output. */
Test(stats_draw, should_use_both_halves_of_the_reference_sequence)
{
    struct draw d;
    struct arb_rng r;

    /* With n = 2^31 an index is the half shifted right by one, and nothing is rejected. */
    draw_init(&d, 0, 0x80000000u);
    arb_rng_seed(&r, 0);
    for (int i = 0; i < 50; i++) {
        uint64_t x = arb_rng_next(&r);

        cr_assert_eq(draw_index(&d), (uint32_t)(x >> 33));
        cr_assert_eq(draw_index(&d), (uint32_t)x >> 1);
    }
}

Test(stats_draw, should_draw_every_index_equally_often)
{
    enum { N = 7, DRAWS = 700000 };
    struct draw d;
    long seen[N] = {0};
    double chi2 = 0.0;

    draw_init(&d, 99, N);
    for (int i = 0; i < DRAWS; i++) {
        uint32_t j = draw_index(&d);

        cr_assert_lt(j, (uint32_t)N);
        seen[j]++;
    }
    for (int k = 0; k < N; k++)
        chi2 += (seen[k] - DRAWS / N) * (double)(seen[k] - DRAWS / N) / (DRAWS / N);
    /* 6 degrees of freedom: P(chi2 > 22.46) = 0.001. */
    cr_assert_lt(chi2, 22.46, "chi2 = %g", chi2);
}

Test(stats_rng, should_draw_units_in_the_half_open_interval)
{
    struct arb_rng r;
    double sum = 0.0, lo = 1.0, hi = 0.0;
    const int n = 100000;

    arb_rng_seed(&r, 7);
    for (int i = 0; i < n; i++) {
        double u = arb_rng_unit(&r);

        cr_assert(u >= 0.0 && u < 1.0);
        sum += u;
        lo = fmin(lo, u);
        hi = fmax(hi, u);
    }
    assert_near(sum / n, 0.5, 0.01);
    cr_assert_lt(lo, 0.001);
    cr_assert_gt(hi, 0.999);
}

Test(stats_rng, should_return_zero_below_one_and_cover_small_ranges)
{
    struct arb_rng r;
    size_t count[7] = {0};

    arb_rng_seed(&r, 1);
    for (int i = 0; i < 1000; i++)
        cr_assert_eq(arb_rng_below(&r, 1), 0);
    for (int i = 0; i < 70000; i++) {
        size_t v = arb_rng_below(&r, 7);

        cr_assert_lt(v, 7);
        count[v]++;
    }
    for (int v = 0; v < 7; v++)
        assert_near(count[v] / 70000.0, 1.0 / 7, 0.01);
}

/*
 * n = 3 * 2^30 exposes both usual biases: a bare modulo of 32 bits gives the
 * values below 2^30 half the draws, a bare multiply-shift gives the multiples
 * of 3 half the draws.  Unbiased, each share is 1/3.
 */
Test(stats_rng, should_be_unbiased_for_a_32_bit_range)
{
    struct arb_rng r;
    size_t n = (size_t)3 << 30, low = 0, mult3 = 0;
    const int draws = 300000;

    arb_rng_seed(&r, 99);
    for (int i = 0; i < draws; i++) {
        size_t v = arb_rng_below(&r, n);

        cr_assert_lt(v, n);
        low += v < ((size_t)1 << 30);
        mult3 += v % 3 == 0;
    }
    assert_near((double)low / draws, 1.0 / 3, 0.01);
    assert_near((double)mult3 / draws, 1.0 / 3, 0.01);
}

Test(stats_rng, should_be_unbiased_for_a_64_bit_range)
{
    struct arb_rng r;
    size_t n, low = 0;
    const int draws = 300000;

    if (SIZE_MAX <= UINT32_MAX)
        return;
    n = (size_t)((uint64_t)3 << 62);
    arb_rng_seed(&r, 98);
    for (int i = 0; i < draws; i++) {
        size_t v = arb_rng_below(&r, n);

        cr_assert_lt(v, n);
        low += (uint64_t)v < ((uint64_t)1 << 62);
    }
    assert_near((double)low / draws, 1.0 / 3, 0.01);
}

/* ---- bootstrap ---- */

static double width(const struct arb_interval *iv)
{
    return iv->hi - iv->lo;
}

/* Deterministic pseudo-data (a different generator from the library's). */
static void fill(double *x, size_t n, uint64_t s)
{
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        x[i] = (double)(s >> 11) / 9007199254740992.0 * 10.0;
    }
}

Test(stats_bootstrap, should_reproduce_an_interval_for_a_fixed_seed)
{
    double x[200];
    struct arb_interval a, b, c;

    fill(x, 200, 3);
    cr_assert_eq(arb_bootstrap_mean(x, 200, 1000, 0.95, 5, &a), ARB_OK);
    cr_assert_eq(arb_bootstrap_mean(x, 200, 1000, 0.95, 5, &b), ARB_OK);
    cr_assert_eq(arb_bootstrap_mean(x, 200, 1000, 0.95, 6, &c), ARB_OK);
    cr_assert(a.estimate == b.estimate && a.lo == b.lo && a.hi == b.hi);
    cr_assert(a.lo != c.lo || a.hi != c.hi);
    cr_assert(a.lo < a.estimate && a.estimate < a.hi);
}

Test(stats_bootstrap, should_estimate_the_sample_mean)
{
    double x[] = {1.0, 2.0, 4.0, 8.0, 16.0};
    struct arb_interval iv;

    cr_assert_eq(arb_bootstrap_mean(x, 5, 500, 0.95, 1, &iv), ARB_OK);
    assert_near(iv.estimate, 6.2, 1e-12);
    cr_assert(iv.lo >= 1.0 && iv.hi <= 16.0);
}

Test(stats_bootstrap, should_give_zero_width_for_one_sample)
{
    double x[] = {0.7};
    struct arb_interval iv;

    cr_assert_eq(arb_bootstrap_mean(x, 1, 1000, 0.95, 1, &iv), ARB_OK);
    cr_assert(iv.estimate == 0.7 && iv.lo == 0.7 && iv.hi == 0.7);
}

Test(stats_bootstrap, should_collapse_for_identical_samples)
{
    double x[50];
    struct arb_interval iv;

    for (int i = 0; i < 50; i++)
        x[i] = 0.1; /* 0.1 * 50 / 50 would not round-trip; offsets from x[0] do */
    cr_assert_eq(arb_bootstrap_mean(x, 50, 1000, 0.95, 1, &iv), ARB_OK);
    cr_assert(iv.estimate == 0.1 && iv.lo == 0.1 && iv.hi == 0.1);
}

Test(stats_bootstrap, should_widen_with_the_spread)
{
    double x[300], y[300];
    struct arb_interval a, b;

    fill(x, 300, 11);
    for (int i = 0; i < 300; i++)
        y[i] = 5.0 + 3.0 * (x[i] - 5.0);
    cr_assert_eq(arb_bootstrap_mean(x, 300, 1000, 0.95, 2, &a), ARB_OK);
    cr_assert_eq(arb_bootstrap_mean(y, 300, 1000, 0.95, 2, &b), ARB_OK);
    cr_assert_gt(width(&b), width(&a));
    /* Same seed, same draws: the interval scales with the data. */
    assert_near(width(&b) / width(&a), 3.0, 1e-9);
}

Test(stats_bootstrap, should_cover_a_known_proportion_with_the_normal_width)
{
    double *x = malloc(1000 * sizeof(*x));
    struct arb_interval iv;

    cr_assert_not_null(x);
    for (int i = 0; i < 1000; i++)
        x[i] = i % 10 < 3 ? 1.0 : 0.0;
    cr_assert_eq(arb_bootstrap_mean(x, 1000, 1000, 0.95, 2024, &iv), ARB_OK);
    assert_near(iv.estimate, 0.3, 1e-12);
    cr_assert(iv.lo < 0.3 && 0.3 < iv.hi);
    /* 2 * 1.96 * sqrt(0.3 * 0.7 / 1000) = 0.0568 */
    assert_near(width(&iv), 0.0568, 0.01);
    free(x);
}

Test(stats_bootstrap, should_narrow_at_a_lower_level)
{
    double x[400];
    struct arb_interval a, b;

    fill(x, 400, 17);
    cr_assert_eq(arb_bootstrap_mean(x, 400, 2000, 0.90, 8, &a), ARB_OK);
    cr_assert_eq(arb_bootstrap_mean(x, 400, 2000, 0.99, 8, &b), ARB_OK);
    cr_assert_lt(width(&a), width(&b));
    cr_assert(b.lo < a.lo && a.hi < b.hi);
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;

    return (a > b) - (a < b);
}

/*
 * Replays the documented draws (seeded generator, n indices per resample
 * with arb_rng_below) and checks the percentile rule: with 11 resamples and
 * level 0.5, q = 0.25 gives h = 10 * 0.25 = 2.5, halfway between the third
 * and fourth order statistics, and 1 - q gives h = 7.5.
 */
Test(stats_bootstrap, should_interpolate_between_order_statistics)
{
    double x[] = {3.1, 1.01, 4.3, 1.7, 5.09, 9.2, 2.55}, means[11], first;
    struct arb_interval iv;
    struct draw d;

    draw_init(&d, 77, 7); /* the resampling of bootstrap.c, redone here */
    for (int k = 0; k < 11; k++) {
        double sum = 0.0;

        for (int i = 0; i < 7; i++)
            sum += x[draw_index(&d)] - x[0];
        means[k] = x[0] + sum / 7;
    }
    first = means[0];
    qsort(means, 11, sizeof(double), cmp_double);
    cr_assert(means[2] < means[3] && means[7] < means[8], "draws give distinct neighbours");
    cr_assert_eq(arb_bootstrap_mean(x, 7, 11, 0.5, 77, &iv), ARB_OK);
    assert_near(iv.lo, (means[2] + means[3]) / 2, 1e-12);
    assert_near(iv.hi, (means[7] + means[8]) / 2, 1e-12);
    /* One resample: both ends are its mean. */
    cr_assert_eq(arb_bootstrap_mean(x, 7, 1, 0.95, 77, &iv), ARB_OK);
    cr_assert(iv.lo == first && iv.hi == first);
}

Test(stats_bootstrap, should_refuse_impossible_arguments)
{
    double x[] = {1.0, NAN};
    struct arb_interval iv;
    double p;

    cr_assert_eq(arb_bootstrap_mean(x, 0, 100, 0.95, 1, &iv), ARB_EUSAGE);
    cr_assert_eq(arb_bootstrap_mean(x, 1, 0, 0.95, 1, &iv), ARB_EUSAGE);
    cr_assert_eq(arb_bootstrap_mean(x, 1, 100, 1.0, 1, &iv), ARB_EUSAGE);
    cr_assert_eq(arb_bootstrap_mean(x, 1, 100, 0.0, 1, &iv), ARB_EUSAGE);
    cr_assert_eq(arb_bootstrap_mean(x, 2, 100, 0.95, 1, &iv), ARB_EUSAGE);
    cr_assert_eq(arb_bootstrap_mean(x, 1, 100, 0.95, 1, NULL), ARB_EUSAGE);
    cr_assert_eq(arb_bootstrap_paired(x, NULL, 1, 100, 0.95, 1, &iv, &p), ARB_EUSAGE);
    cr_assert_eq(arb_bootstrap_paired(x, x, 0, 100, 0.95, 1, &iv, &p), ARB_EUSAGE);
}

Test(stats_bootstrap, should_find_no_difference_between_identical_pairs)
{
    double a[100];
    struct arb_interval iv;
    double p = -1.0;

    fill(a, 100, 23);
    cr_assert_eq(arb_bootstrap_paired(a, a, 100, 1000, 0.95, 3, &iv, &p), ARB_OK);
    cr_assert(iv.estimate == 0.0 && iv.lo == 0.0 && iv.hi == 0.0);
    cr_assert(p == 1.0);
}

Test(stats_bootstrap, should_find_a_clear_paired_difference)
{
    double a[200], b[200], noise[200];
    struct arb_interval iv;
    double p = -1.0;

    fill(b, 200, 31);
    fill(noise, 200, 37);
    for (int i = 0; i < 200; i++)
        a[i] = b[i] + 0.5 + (noise[i] - 5.0) * 0.1;
    cr_assert_eq(arb_bootstrap_paired(a, b, 200, 1000, 0.95, 4, &iv, &p), ARB_OK);
    cr_assert_lt(p, 0.01);
    cr_assert_gt(iv.lo, 0.0);
    cr_assert(iv.lo < iv.estimate && iv.estimate < iv.hi);
    cr_assert_eq(arb_bootstrap_paired(b, a, 200, 1000, 0.95, 4, &iv, &p), ARB_OK);
    cr_assert_lt(p, 0.01);
    cr_assert_lt(iv.hi, 0.0);
    /* The paired interval matches a plain bootstrap of the differences. */
    {
        struct arb_interval plain;
        double d[200];

        for (int i = 0; i < 200; i++)
            d[i] = b[i] - a[i];
        cr_assert_eq(arb_bootstrap_mean(d, 200, 1000, 0.95, 4, &plain), ARB_OK);
        assert_near(plain.lo, iv.lo, 1e-12);
        assert_near(plain.hi, iv.hi, 1e-12);
    }
}

Test(stats_bootstrap, should_give_a_middling_p_value_for_noise)
{
    double a[300], b[300];
    struct arb_interval iv;
    double p = -1.0;

    fill(a, 300, 41);
    fill(b, 300, 43);
    cr_assert_eq(arb_bootstrap_paired(a, b, 300, 2000, 0.95, 5, &iv, &p), ARB_OK);
    cr_assert(p > 0.05 && p <= 1.0, "p = %g", p);
    cr_assert(iv.lo < 0.0 && 0.0 < iv.hi);
}

/* ---- sign, McNemar ---- */

Test(stats_tests, should_match_hand_computed_sign_tests)
{
    /* 2 * (C(10,0) + C(10,1)) / 2^10 */
    assert_near(arb_sign_test(9, 1), 0.021484375, 1e-15);
    assert_near(arb_sign_test(1, 9), 0.021484375, 1e-15);
    assert_near(arb_sign_test(10, 0), 0.001953125, 1e-18);
    assert_near(arb_sign_test(0, 10), 0.001953125, 1e-18);
    cr_assert(arb_sign_test(5, 5) == 1.0);
    cr_assert(arb_sign_test(0, 0) == 1.0);
    cr_assert(arb_sign_test(1, 0) == 1.0);            /* 2 * 1/2, capped */
    assert_near(arb_sign_test(2, 1), 1.0, 1e-15);     /* 2 * (1 + 3) / 8 capped */
    assert_near(arb_sign_test(5, 1), 0.21875, 1e-15); /* 2 * 7 / 64 */
}

/* References: exact big-integer sums in Python, 2 * sum_{i <= k} C(n, i) / 2^n. */
Test(stats_tests, should_stay_exact_for_large_counts)
{
    assert_near(arb_sign_test(60, 40), 0.05688793364098079, 1e-14);
    assert_near(arb_sign_test(3000, 2900), 0.1974390248435765, 1e-12);
    assert_near(arb_sign_test(2900, 3000), 0.1974390248435765, 1e-12);
    assert_near(arb_sign_test(20000, 19500), 0.012046830244306264, 1e-13);
    assert_near(arb_sign_test(100000, 99000), 0.025127217688360945, 1e-12);
    assert_near(arb_sign_test(40, 0) / 1.8189894035458565e-12, 1.0, 1e-12);
    cr_assert(arb_sign_test(0, 3000) == 0.0); /* 2^-2999 underflows */
    {
        double p = arb_sign_test(5000000, 5001000);

        cr_assert(p > 0.0 && p <= 1.0 && isfinite(p));
    }
}

Test(stats_tests, should_apply_mcnemar_to_discordant_pairs)
{
    assert_near(arb_mcnemar_exact(1, 9), 0.021484375, 1e-15);
    assert_near(arb_mcnemar_exact(9, 1), 0.021484375, 1e-15);
    cr_assert(arb_mcnemar_exact(4, 4) == 1.0);
    cr_assert(arb_mcnemar_exact(0, 0) == 1.0);
}

/* ---- pass@k, pass^k ---- */

Test(stats_tests, should_match_hand_computed_pass_at_k)
{
    assert_near(arb_pass_at_k(10, 3, 1), 0.3, 1e-15);
    assert_near(arb_pass_at_k(10, 3, 2), 1.0 - 21.0 / 45.0, 1e-15);
    assert_near(arb_pass_at_k(10, 3, 8), 1.0, 0.0); /* n - c < k: a pass is certain */
    cr_assert(arb_pass_at_k(10, 10, 1) == 1.0);
    cr_assert(arb_pass_at_k(10, 0, 5) == 0.0);
    cr_assert(arb_pass_at_k(10, 3, 0) == 0.0);
    cr_assert(isnan(arb_pass_at_k(10, 3, 11)));
    cr_assert(isnan(arb_pass_at_k(10, 11, 1)));
}

Test(stats_tests, should_match_hand_computed_pass_hat_k)
{
    assert_near(arb_pass_hat_k(10, 3, 2), 3.0 / 45.0, 1e-15);
    assert_near(arb_pass_hat_k(10, 3, 1), 0.3, 1e-15);
    cr_assert(arb_pass_hat_k(10, 3, 4) == 0.0);
    cr_assert(arb_pass_hat_k(10, 10, 10) == 1.0);
    cr_assert(arb_pass_hat_k(10, 3, 0) == 1.0);
    cr_assert(isnan(arb_pass_hat_k(10, 3, 11)));
}

Test(stats_tests, should_not_overflow_for_many_trials)
{
    /* C(n - c, k) / C(n, k) with n = 10000, c = 100, k = 100, by logs as a cross-check. */
    double n = 10000, c = 100, k = 100;
    double lratio = lgamma(n - c + 1) - lgamma(n - c - k + 1) - lgamma(n + 1) + lgamma(n - k + 1);
    double hat = lgamma(c + 1) - lgamma(c - k + 1) - lgamma(n + 1) + lgamma(n - k + 1);

    assert_near(arb_pass_at_k(10000, 100, 100), 1.0 - exp(lratio), 1e-10);
    assert_near(arb_pass_hat_k(10000, 100, 100) / exp(hat), 1.0, 1e-9);
    assert_near(arb_pass_at_k(10000, 5000, 1), 0.5, 1e-12);
    assert_near(arb_pass_hat_k(10000, 10000, 9999), 1.0, 1e-12);
}

/* ---- Bradley-Terry ---- */

/*
 * An independent solver: Hunter's MM updates on the strengths, simultaneous
 * and many, rescaled to geometric mean 1, returned as centred logs.  Sound
 * only when the plain MLE exists (the library uses Newton steps instead).
 */
static void bt_mm(const double *w, size_t m, double *theta)
{
    double g[6], next[6];

    for (size_t i = 0; i < m; i++)
        g[i] = 1.0;
    for (int it = 0; it < 200000; it++) {
        double lmean = 0.0;

        for (size_t i = 0; i < m; i++) {
            double won = 0.0, denom = 0.0;

            for (size_t j = 0; j < m; j++) {
                if (j == i)
                    continue;
                won += w[i * m + j];
                denom += (w[i * m + j] + w[j * m + i]) / (g[i] + g[j]);
            }
            next[i] = won / denom;
            lmean += log(next[i]) / (double)m;
        }
        for (size_t i = 0; i < m; i++)
            g[i] = next[i] / exp(lmean);
    }
    for (size_t i = 0; i < m; i++)
        theta[i] = log(g[i]);
}

Test(stats_bt, should_match_mm_on_three_players)
{
    double w[] = {0, 2, 3, 1, 0, 2, 0, 1, 0};
    double r[3], ref[3];
    struct arb_err err = {{0}};

    bt_mm(w, 3, ref);
    /* The same solution from Python: +-1.1450707049993654, 0. */
    assert_near(ref[0], 1.1450707049993654, 1e-12);
    cr_assert_eq(arb_bradley_terry(w, 3, r, &err), ARB_OK);
    for (int i = 0; i < 3; i++)
        assert_near(r[i], ref[i], 1e-9);
    assert_near(r[0] + r[1] + r[2], 0.0, 1e-12);
}

Test(stats_bt, should_match_mm_on_four_players_with_ties)
{
    /* Halves are ties; strongly connected, so the plain MLE. */
    double w[] = {0, 3.5, 2, 5, 1.5, 0, 4, 2, 1, 1, 0, 3, 0.5, 2, 1, 0};
    double r[4], ref[4];

    bt_mm(w, 4, ref);
    cr_assert_eq(arb_bradley_terry(w, 4, r, NULL), ARB_OK);
    for (int i = 0; i < 4; i++)
        assert_near(r[i], ref[i], 1e-9);
    cr_assert(r[0] > r[1] && r[1] > r[2] && r[2] > r[3]);
}

Test(stats_bt, should_give_log_odds_for_two_players)
{
    double w[] = {0, 3, 1, 0};
    double diag[] = {5, 3, 1, 7}; /* the diagonal is ignored */
    double r[2];

    cr_assert_eq(arb_bradley_terry(w, 2, r, NULL), ARB_OK);
    assert_near(r[0] - r[1], log(3.0), 1e-9);
    assert_near(r[0] + r[1], 0.0, 1e-12);
    cr_assert_eq(arb_bradley_terry(diag, 2, r, NULL), ARB_OK);
    assert_near(r[0] - r[1], log(3.0), 1e-9);
}

Test(stats_bt, should_keep_an_unbeaten_player_finite)
{
    double w[] = {0, 3, 0, 0};
    double r[2];

    cr_assert_eq(arb_bradley_terry(w, 2, r, NULL), ARB_OK);
    cr_assert(isfinite(r[0]) && isfinite(r[1]));
    cr_assert_gt(r[0] - r[1], log(3.0));
    /*
     * Symmetric, so r[1] = -r[0] holds uncentred too; the prior-augmented
     * likelihood is flat there: 3 + a - 3 P(0 beats 1) - 2a P(0 beats virtual) = 0.
     */
    assert_near(3.01 - 3.0 / (1.0 + exp(r[1] - r[0])) - 0.02 / (1.0 + exp(-r[0])), 0.0, 1e-10);
}

Test(stats_bt, should_order_groups_when_the_graph_is_not_strongly_connected)
{
    /* 0 and 1 split their games and so do 2 and 3, but 0 and 1 beat 2 and 3 every time. */
    double w[] = {0, 2, 1, 1, 2, 0, 1, 1, 0, 0, 0, 2, 0, 0, 2, 0};
    double iso[] = {0, 1, 0, 1, 0, 0, 0, 0, 0}; /* player 2 never played */
    double r[4];

    cr_assert_eq(arb_bradley_terry(w, 4, r, NULL), ARB_OK);
    for (int i = 0; i < 4; i++)
        cr_assert(isfinite(r[i]));
    assert_near(r[0], r[1], 1e-8);
    assert_near(r[2], r[3], 1e-8);
    cr_assert_gt(r[0], r[2] + 1.0);
    cr_assert_eq(arb_bradley_terry(iso, 3, r, NULL), ARB_OK);
    assert_near(r[0], r[1], 1e-8);
    cr_assert(isfinite(r[2]));
}

Test(stats_bt, should_refuse_bad_input)
{
    double w[] = {0, -1, 1, 0};
    double one[] = {0};
    double r[2];
    struct arb_err err = {{0}};

    cr_assert_eq(arb_bradley_terry(one, 1, r, &err), ARB_EUSAGE);
    cr_assert_str_neq(err.msg, "");
    cr_assert_eq(arb_bradley_terry(w, 2, r, &err), ARB_EUSAGE);
    cr_assert(strstr(err.msg, "[0][1]") != NULL, "%s", err.msg);
}

/* ---- Cohen's kappa ---- */

Test(stats_kappa, should_match_hand_computed_kappa)
{
    /* po = 0.7, pe = (25 * 30 + 25 * 20) / 2500 = 0.5 */
    double t2[] = {20, 5, 10, 15};
    /* N = 40, trace 29, rows 15 15 10, cols 13 15 12: (1160 - 540) / (1600 - 540) = 31/53 */
    double t3[] = {10, 2, 3, 1, 12, 2, 2, 1, 7};
    double against[] = {0, 5, 5, 0};

    assert_near(arb_cohen_kappa(t2, 2), 0.4, 1e-15);
    assert_near(arb_cohen_kappa(t3, 3), 31.0 / 53.0, 1e-15);
    assert_near(arb_cohen_kappa(against, 2), -1.0, 1e-15);
}

Test(stats_kappa, should_be_one_on_the_diagonal_and_nan_for_one_category)
{
    double diag[] = {4, 0, 0, 0, 7, 0, 0, 0, 2};
    double one[] = {0, 0, 0, 9};
    double empty[] = {0, 0, 0, 0};
    double neg[] = {1, -1, 0, 1};

    cr_assert(arb_cohen_kappa(diag, 3) == 1.0);
    cr_assert(isnan(arb_cohen_kappa(one, 2)));
    cr_assert(isnan(arb_cohen_kappa(empty, 2)));
    cr_assert(isnan(arb_cohen_kappa(neg, 2)));
    cr_assert(isnan(arb_cohen_kappa(diag, 0)));
}

Test(stats_kappa, should_be_zero_at_chance)
{
    /* Independent raters: each cell is row share times column share. */
    double t[] = {6, 4, 9, 6};

    assert_near(arb_cohen_kappa(t, 2), 0.0, 1e-15);
}

Test(stats_bootstrap, should_bootstrap_a_ratio_of_sums_over_clusters)
{
    double num[4] = {2, 3, 0, 1}, den[4] = {3, 3, 2, 1}, same_n[3] = {1, 2, 3},
           same_d[3] = {2, 4, 6};
    struct arb_interval a, b, c;

    cr_assert_eq(arb_bootstrap_ratio(num, den, 4, 500, 0.95, 9, &a), ARB_OK);
    cr_assert_float_eq(a.estimate, 6.0 / 9.0, 1e-12,
                       "the estimate is sum/sum, not a mean of ratios");
    cr_assert(a.lo <= a.estimate && a.estimate <= a.hi);
    cr_assert_eq(arb_bootstrap_ratio(num, den, 4, 500, 0.95, 9, &b), ARB_OK);
    cr_assert(a.lo == b.lo && a.hi == b.hi, "the same seed gives the same interval");
    cr_assert_eq(arb_bootstrap_ratio(same_n, same_d, 3, 200, 0.95, 1, &c), ARB_OK);
    cr_assert_float_eq(c.lo, 0.5, 1e-12, "every cluster at 1/2: a zero-width interval");
    cr_assert_float_eq(c.hi, 0.5, 1e-12);
    cr_assert_eq(arb_bootstrap_ratio(num, (double[]){0, 0, 0, 0}, 4, 10, 0.95, 1, &c), ARB_EUSAGE);
}
