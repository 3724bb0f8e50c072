/*
 * tests.c - exact tests on counts and the trial estimators: the sign test,
 * McNemar's exact test (the same binomial on the discordant pairs), pass@k
 * and pass^k.  All work in doubles without forming a binomial coefficient:
 * tail sums start from the largest term (Loader's saddle-point form) and step by
 * ratios, and pass@k is a product of ratios, so n in the millions neither
 * overflows nor loses the small p-values.  Deciding what is significant is
 * left to the caller.
 */
#include <math.h>
#include <stddef.h>

#include "arbiter/stats.h"

#define LN_2PI 1.837877066409345483560659472811235280 /* log(2 pi) */

/*
 * log(n!) - log(sqrt(2 pi n) (n / e)^n): exact values up to 15 (computed to
 * 50 digits), the Stirling series beyond (Loader 2000, as in R's dbinom).
 */
static double stirlerr(double n)
{
    static const double exact[16] = {
        0.0,
        0.0810614667953272582196702635943823601,
        0.0413406959554092940938220814071175080,
        0.0276779256849983391487892927462446666,
        0.0207906721037650931115227717678486563,
        0.0166446911898211921631948653735933911,
        0.0138761288230707479987457270237629086,
        0.0118967099458917700950557241176594386,
        0.0104112652619720964974785671325346292,
        0.0092554621827127329177286366331001361,
        0.0083305634333628712564693186596285522,
        0.0075736754879518407949720242115950839,
        0.0069428401072095298656641526634753627,
        0.0064089941880042070684396310829783126,
        0.0059513701127588477356244160464694583,
        0.0055547335519628013710386899597922846,
    };
    const double s0 = 1.0 / 12, s1 = 1.0 / 360, s2 = 1.0 / 1260, s3 = 1.0 / 1680, s4 = 1.0 / 1188;
    double nn = n * n;

    if (n <= 15.0)
        return exact[(int)n];
    if (n > 500.0)
        return (s0 - s1 / nn) / n;
    if (n > 80.0)
        return (s0 - (s1 - s2 / nn) / nn) / n;
    if (n > 35.0)
        return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n;
    return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n;
}

/* x log(x / np) + np - x without the cancellation near x == np (Loader's bd0). */
static double bd0(double x, double np)
{
    if (fabs(x - np) < 0.1 * (x + np)) {
        double v = (x - np) / (x + np), s = (x - np) * v, ej = 2.0 * x * v;

        v *= v;
        for (int j = 1; j < 1000; j++) {
            double s1;

            ej *= v;
            s1 = s + ej / (2 * j + 1);
            if (s1 == s)
                return s1;
            s = s1;
        }
        return s;
    }
    return x * log(x / np) + np - x;
}

/*
 * P(X == k) for X ~ Binomial(n, 1/2), 0 < k < n, to a few ulps for any n
 * (lgamma differences would lose digits at large n, and lgamma writes the
 * global signgam).
 */
static double binom_half_pmf(double n, double k)
{
    double lc = stirlerr(n) - stirlerr(k) - stirlerr(n - k) - bd0(k, n / 2) - bd0(n - k, n / 2);
    double lf = LN_2PI + log(k) + log1p(-k / n);

    return exp(lc - 0.5 * lf);
}

/* P(X <= k) for X ~ Binomial(n, 1/2), with k < n / 2. */
static double binom_half_cdf(size_t n, size_t k)
{
    double term, sum = 0.0;

    if (k == 0)
        return pow(0.5, (double)n);
    term = binom_half_pmf((double)n, (double)k);
    /* Terms fall going down from k (ratio i / (n - i + 1) < 1); stop once they cannot count. */
    for (size_t i = k;; i--) {
        sum += term;
        if (i == 0 || term <= sum * 1e-17)
            break;
        term *= (double)i / (double)(n - i + 1);
    }
    return sum;
}

/*
 * Exact two-sided sign test: the probability, under a fair coin over the
 * wins + losses decisive cases, of a split at least as uneven as the one
 * seen.  Ties are the caller's to drop.  Returns a p-value in [0, 1]; 1 when
 * wins == losses, including 0 vs 0.
 */
double arb_sign_test(size_t wins, size_t losses)
{
    size_t n = wins + losses, k = wins < losses ? wins : losses;

    if (wins == losses)
        return 1.0;
    /* The two tails are disjoint and mirror each other. */
    return fmin(1.0, 2.0 * binom_half_cdf(n, k));
}

/*
 * McNemar's exact test: b cases where only the first system passed, c where
 * only the second did; concordant cases carry no information.  Returns the
 * two-sided p-value, 1 when b == c.
 */
double arb_mcnemar_exact(size_t b, size_t c)
{
    return arb_sign_test(b, c);
}

/*
 * pass@k: the chance that at least one of k trials drawn without replacement
 * from n, of which c passed, passes: 1 - C(n - c, k) / C(n, k), computed as
 * 1 - prod_{i = n-c+1}^{n} (1 - k / i) (Chen et al. 2021).  Returns NaN when
 * k > n or c > n (undefined), 0 when c == 0, 1 when n - c < k.
 */
double arb_pass_at_k(size_t n, size_t c, size_t k)
{
    double prod = 1.0;

    if (k > n || c > n)
        return NAN;
    if (n - c < k)
        return 1.0;
    /* k = 1 is c/n exactly, as pass^1 is: the product below would round 1 - (n-c)/n to a
     * different last bit, and the same quantity would get two values and two intervals. */
    if (k == 1)
        return (double)c / (double)n;
    for (size_t i = n - c + 1; i <= n; i++)
        prod *= 1.0 - (double)k / (double)i;
    return 1.0 - prod;
}

/*
 * pass^k: the chance that all k trials drawn without replacement pass:
 * C(c, k) / C(n, k) = prod_{j < k} (c - j) / (n - j).  Returns NaN when k > n
 * or c > n, 0 when k > c, 1 when k == 0.
 */
double arb_pass_hat_k(size_t n, size_t c, size_t k)
{
    double prod = 1.0;

    if (k > n || c > n)
        return NAN;
    if (k > c)
        return 0.0;
    for (size_t j = 0; j < k; j++)
        prod *= (double)(c - j) / (double)(n - j);
    return prod;
}
