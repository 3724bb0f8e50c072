/*
 * stats.h - the statistics of reports and calibration studies: a seeded
 * PRNG, percentile bootstrap intervals (plain and paired), exact sign and
 * McNemar tests, pass@k and pass^k, Bradley-Terry ratings, Cohen's kappa.
 *
 * Everything is deterministic for a given seed (reports are reproducible)
 * and allocation-light; functions that allocate return ARB_ENOMEM.
 */
#ifndef ARBITER_STATS_H
#define ARBITER_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/status.h"

/* xoshiro256** seeded through splitmix64. */
struct arb_rng {
    uint64_t s[4];
};

void arb_rng_seed(struct arb_rng *r, uint64_t seed);
uint64_t arb_rng_next(struct arb_rng *r);
double arb_rng_unit(struct arb_rng *r);            /* uniform in [0, 1) */
size_t arb_rng_below(struct arb_rng *r, size_t n); /* uniform in [0, n), unbiased; n > 0 */

struct arb_interval {
    double estimate; /* the statistic on the original sample */
    double lo, hi;   /* percentile interval of the resampled statistic */
};

/*
 * Percentile bootstrap of the mean of x[0..n): `resamples` resamples with
 * replacement (a fixed seed makes it reproducible), interval at `level`
 * (0.95 for 2.5th and 97.5th percentiles, linear interpolation between order
 * statistics).  n == 1 or identical values give a zero-width interval.
 * n == 0: ARB_EUSAGE.
 */
enum arb_status arb_bootstrap_mean(const double *x, size_t n, size_t resamples, double level,
                                   uint64_t seed, struct arb_interval *out);

/*
 * Paired bootstrap of the mean of a[i] - b[i] (cases resampled together).
 * *p_two_sided, when given, receives the bootstrap two-sided p-value for a
 * zero mean difference: 2 * min(share of resampled means <= 0, share >= 0),
 * capped at 1.
 */
enum arb_status arb_bootstrap_paired(const double *a, const double *b, size_t n, size_t resamples,
                                     double level, uint64_t seed, struct arb_interval *out,
                                     double *p_two_sided);

/*
 * Percentile bootstrap of sum(num) / sum(den) over n clusters resampled with
 * replacement (a case's expectations are resampled together).  ARB_EUSAGE
 * for n == 0, a negative denominator or denominators summing to 0.
 */
enum arb_status arb_bootstrap_ratio(const double *num, const double *den, size_t n,
                                    size_t resamples, double level, uint64_t seed,
                                    struct arb_interval *out);

/*
 * n values stored compactly (borrowed): width 1 or 2, codes (uint8_t or
 * uint16_t) indexing dict; width 8, the doubles themselves.
 */
struct arb_column {
    const void *data;
    const double *dict;
    unsigned width;
};

/* Value i of c. */
static inline double arb_column_at(const struct arb_column *c, size_t i)
{
    if (c->width == 1)
        return c->dict[((const unsigned char *)c->data)[i]];
    if (c->width == 2)
        return c->dict[((const uint16_t *)c->data)[i]];
    return ((const double *)c->data)[i];
}

/*
 * Percentile bootstraps of m statistics over the same n cases (clusters),
 * all from one resampling of the cases: statistic j is
 * sum(num[i]) / sum(den[i]) over the drawn cases (den NULL: 1 per case, so
 * the mean of num).  A case without a value for j has num 0 and den 0; a
 * resample whose denominator is 0 counts as the sample's value.  Each
 * statistic's interval is that of its own percentile bootstrap over the
 * cases and does not depend on which other statistics are asked for; the
 * result depends only on the arguments (the work is shared with a second
 * thread when one can be started).
 * In: num, den (n values each, finite, den >= 0), want_p; a NULL num skips
 * the statistic.  Instead of num or den, a compact column (struct
 * arb_column, above) may give the values: num NULL with num_col set is not
 * skipped, and den_col set stands for den.  Out: ok (0 when skipped or den
 * sums to 0: no interval), out, and p_two_sided when want_p (as
 * arb_bootstrap_paired's, for a difference).  ARB_EUSAGE for stats NULL with m > 0, n == 0, resamples == 0,
 * level outside (0, 1) or a bad value; ARB_ENOMEM.
 *
 * The resamples read each drawn case's values from a copy: the distinct rows
 * of values once and a 4-byte code per case when the cases' rows repeat (so
 * memory stays a few bytes a case), else every case's row; the sums, and so
 * the figures, are the same either way.
 */
struct arb_cluster_stat {
    const double *num, *den;
    const struct arb_column *num_col, *den_col; /* borrowed, or NULL */
    int want_p;
    int ok;
    struct arb_interval out;
    double median;
    double p_two_sided;
};

enum arb_status arb_bootstrap_clusters(struct arb_cluster_stat *stats, size_t m, size_t n,
                                       size_t resamples, double level, uint64_t seed);

/*
 * The percentile interval of v[0..n) at level (0.95: the 2.5th to 97.5th
 * percentiles): v is sorted in place and each end read by linear
 * interpolation between order statistics at h = (n - 1) * q (Hyndman and
 * Fan's type 7, the default of R and NumPy).  NaN for both when n is 0.
 */
void arb_percentile_interval(double *v, size_t n, double level, double *lo, double *hi);

/*
 * The q-quantile (0 <= q <= 1) of sorted[0..n), ascending: linear
 * interpolation between the order statistics at h = (n - 1) * q (Hyndman
 * and Fan's type 7, NumPy's default "linear"), so q = 0.5 is the median, the
 * mean of the two middle values when n is even.  NaN when n is 0.
 */
double arb_quantile(const double *sorted, size_t n, double q);

/* Exact two-sided sign test of wins vs losses (ties dropped): P(|X - n/2| >= |w - n/2|). */
double arb_sign_test(size_t wins, size_t losses);

/*
 * McNemar's exact test on paired binary outcomes: b cases where only the
 * first passes, c where only the second does (exact binomial, two-sided).
 */
double arb_mcnemar_exact(size_t b, size_t c);

/* pass@k = 1 - C(n-c, k) / C(n, k) (unbiased, Chen et al.); pass^k = C(c, k) / C(n, k). */
double arb_pass_at_k(size_t n, size_t c, size_t k);
double arb_pass_hat_k(size_t n, size_t c, size_t k);

/*
 * Bradley-Terry ratings by maximum likelihood (Newton-Raphson on the
 * log-strengths with step halving; see bt.c for why not Hunter's MM) from a
 * matrix of results: wins[i * m + j] is how often i beat j (a tie counts 0.5
 * to each).  ratings[i] receives log-strengths centred at mean 0.  When the
 * plain maximum does not exist (a system that never lost or never won, or
 * groups that never met), every system gets 0.01 wins and 0.01 losses
 * against a virtual system fixed at rating 0, so ratings stay finite.
 * ARB_EUSAGE for m < 2 or a negative or non-finite count; ARB_ENOMEM.
 */
enum arb_status arb_bradley_terry(const double *wins, size_t m, double *ratings,
                                  struct arb_err *err);

/*
 * Cohen's kappa of a k x k confusion matrix (rows: rater 1's category,
 * columns: rater 2's).  1 for perfect agreement; 0 at chance; NaN when the
 * expected agreement is 1 (a single category used by both).
 */
double arb_cohen_kappa(const double *confusion, size_t k);

#endif
