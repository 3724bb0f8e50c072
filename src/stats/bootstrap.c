/*
 * bootstrap.c - percentile bootstrap intervals of a mean, plain and paired.
 *
 * One buffer of `resamples` doubles is allocated per call and nothing per
 * resample: each resample draws n indices (draw.h: two per generator output)
 * and keeps only its mean.  Values are summed as offsets from the first one (x[i] - x[0]),
 * which keeps precision on data far from zero and makes identical values
 * give exactly that value back, hence a zero-width interval.
 *
 * The interval is the percentile interval: the resampled means are sorted and
 * the quantiles at q = (1 - level) / 2 and 1 - q are read by linear
 * interpolation between order statistics at index h = (B - 1) * q (Hyndman
 * and Fan's type 7, the default of R and NumPy).  Which statistic to report
 * and how to print it is left to src/report/.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "arbiter/stats.h"
#include "draw.h"

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;

    return (a > b) - (a < b);
}

/* Type 7 quantile of sorted v[0..n) (stats.h). */
double arb_quantile(const double *v, size_t n, double q)
{
    double h = n ? (double)(n - 1) * q : 0.0, frac;
    size_t lo;

    if (n == 0 || !(q >= 0.0 && q <= 1.0))
        return NAN;
    lo = (size_t)floor(h);
    frac = h - (double)lo;
    if (lo + 1 >= n)
        return v[n - 1];
    /* frac * 0 is 0, so equal neighbours give that value exactly. */
    return v[lo] + frac * (v[lo + 1] - v[lo]);
}

void arb_percentile_interval(double *v, size_t n, double level, double *lo, double *hi)
{
    double q = (1.0 - level) / 2.0;

    if (n == 0) {
        *lo = *hi = NAN;
        return;
    }
    qsort(v, n, sizeof(*v), cmp_double);
    *lo = arb_quantile(v, n, q);
    *hi = arb_quantile(v, n, 1.0 - q);
}

/* The value of case i: x[i], or a[i] - b[i] when paired. */
static double value(const double *a, const double *b, size_t i)
{
    return b ? a[i] - b[i] : a[i];
}

static enum arb_status check_args(const double *a, const double *b, size_t n, size_t resamples,
                                  double level, const struct arb_interval *out)
{
    if (!a || n == 0 || resamples == 0 || !out || !(level > 0.0 && level < 1.0))
        return ARB_EUSAGE;
    for (size_t i = 0; i < n; i++) {
        /* A NaN would make the sort order meaningless; an infinity, every mean. */
        if (!isfinite(value(a, b, i)))
            return ARB_EUSAGE;
    }
    return ARB_OK;
}

/* Fill means[0..resamples) with the means of resamples drawn with replacement. */
static void resample_means(const double *a, const double *b, size_t n, size_t resamples,
                           uint64_t seed, double ref, double *means)
{
    struct arb_rng rng;
    struct draw d;
    double dn = (double)n;

    if ((uint64_t)n > DRAW_MAX) {
        arb_rng_seed(&rng, seed);
        for (size_t r = 0; r < resamples; r++) {
            double sum = 0.0;

            for (size_t i = 0; i < n; i++)
                sum += value(a, b, arb_rng_below(&rng, n)) - ref;
            means[r] = ref + sum / dn;
        }
        return;
    }
    draw_init(&d, seed, n);
    for (size_t r = 0; r < resamples; r++) {
        double sum = 0.0;

        /* Two loops rather than a test per draw: this is the hot path. */
        if (b) {
            for (size_t i = 0; i < n; i++) {
                uint32_t j = draw_index(&d);

                sum += (a[j] - b[j]) - ref;
            }
        } else {
            for (size_t i = 0; i < n; i++)
                sum += a[draw_index(&d)] - ref;
        }
        means[r] = ref + sum / dn;
    }
}

static enum arb_status bootstrap(const double *a, const double *b, size_t n, size_t resamples,
                                 double level, uint64_t seed, struct arb_interval *out,
                                 double *p_two_sided)
{
    enum arb_status st = check_args(a, b, n, resamples, level, out);
    double ref, sum = 0.0;
    double *means;

    if (st)
        return st;
    if (resamples > SIZE_MAX / sizeof(*means))
        return ARB_ENOMEM;
    means = malloc(resamples * sizeof(*means));
    if (!means)
        return ARB_ENOMEM;
    ref = value(a, b, 0);
    for (size_t i = 0; i < n; i++)
        sum += value(a, b, i) - ref;
    out->estimate = ref + sum / (double)n;
    resample_means(a, b, n, resamples, seed, ref, means);
    if (p_two_sided) {
        size_t le = 0, ge = 0;

        for (size_t r = 0; r < resamples; r++) {
            le += means[r] <= 0.0;
            ge += means[r] >= 0.0;
        }
        *p_two_sided = fmin(1.0, 2.0 * (double)(le < ge ? le : ge) / (double)resamples);
    }
    arb_percentile_interval(means, resamples, level, &out->lo, &out->hi);
    free(means);
    return ARB_OK;
}

/*
 * Percentile bootstrap of the mean of x[0..n).
 *   x, n       the sample; n > 0, every value finite
 *   resamples  how many resamples (> 0); seed makes them reproducible
 *   level      interval coverage in (0, 1), 0.95 for the 2.5th..97.5th percentiles
 *   out        receives the sample mean and the interval
 * Returns ARB_OK, ARB_EUSAGE (n == 0, resamples == 0, level outside (0, 1),
 * a NaN or infinite value, NULL x or out) or ARB_ENOMEM.  Nothing to free.
 */
enum arb_status arb_bootstrap_mean(const double *x, size_t n, size_t resamples, double level,
                                   uint64_t seed, struct arb_interval *out)
{
    return bootstrap(x, NULL, n, resamples, level, seed, out, NULL);
}

/*
 * Paired bootstrap of the mean of a[i] - b[i]: case i is drawn with both of
 * its values.  Arguments and returns as arb_bootstrap_mean (a and b both
 * n long); p_two_sided, when not NULL, receives 2 * min(share of resampled
 * means <= 0, share >= 0), capped at 1, so a difference that is 0 for every
 * case gives p = 1.
 */
enum arb_status arb_bootstrap_paired(const double *a, const double *b, size_t n, size_t resamples,
                                     double level, uint64_t seed, struct arb_interval *out,
                                     double *p_two_sided)
{
    if (!b)
        return ARB_EUSAGE;
    return bootstrap(a, b, n, resamples, level, seed, out, p_two_sided);
}

/*
 * Percentile bootstrap of a ratio of sums, sum(num) / sum(den), resampling
 * the n clusters (cases) with replacement: the right unit when each case
 * contributes several correlated outcomes (its expectations).  A resample
 * whose denominators sum to 0 counts as the sample's ratio.
 */
enum arb_status arb_bootstrap_ratio(const double *num, const double *den, size_t n,
                                    size_t resamples, double level, uint64_t seed,
                                    struct arb_interval *out)
{
    struct arb_rng rng;
    struct draw d;
    double sn = 0.0, sd = 0.0, *ratios;

    if (!num || !den || n == 0 || resamples == 0 || !out || !(level > 0.0 && level < 1.0))
        return ARB_EUSAGE;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(num[i]) || !isfinite(den[i]) || den[i] < 0)
            return ARB_EUSAGE;
        sn += num[i];
        sd += den[i];
    }
    if (sd <= 0.0)
        return ARB_EUSAGE;
    if (resamples > SIZE_MAX / sizeof(*ratios))
        return ARB_ENOMEM;
    ratios = malloc(resamples * sizeof(*ratios));
    if (!ratios)
        return ARB_ENOMEM;
    out->estimate = sn / sd;
    arb_rng_seed(&rng, seed);
    draw_init(&d, seed, (uint64_t)n > DRAW_MAX ? 1 : n);
    for (size_t r = 0; r < resamples; r++) {
        double a = 0.0, b = 0.0;

        for (size_t i = 0; i < n; i++) {
            size_t j = (uint64_t)n > DRAW_MAX ? arb_rng_below(&rng, n) : draw_index(&d);

            a += num[j];
            b += den[j];
        }
        ratios[r] = b > 0.0 ? a / b : out->estimate;
    }
    arb_percentile_interval(ratios, resamples, level, &out->lo, &out->hi);
    free(ratios);
    return ARB_OK;
}
