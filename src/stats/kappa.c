/*
 * kappa.c - Cohen's kappa, the chance-corrected agreement of two raters
 * (calibration studies: the judge against a human, or two judges).  Building
 * the confusion matrix from labels is the caller's.
 */
#include <math.h>
#include <stddef.h>

#include "arbiter/stats.h"

/*
 * Cohen's kappa of a k x k confusion matrix, confusion[i * k + j] counting
 * items rater 1 put in category i and rater 2 in j (weights may be
 * fractional).  kappa = (po - pe) / (1 - pe), computed as
 * (N * trace - sum_i row_i col_i) / (N^2 - sum_i row_i col_i) so that one
 * category used by both raters gives an exact 0 / 0.  Returns a value in
 * [-1, 1]; NaN when the expected agreement is 1 (that case, or an empty
 * matrix), when k == 0, or for a negative or non-finite cell.
 */
double arb_cohen_kappa(const double *confusion, size_t k)
{
    double total = 0.0, trace = 0.0, chance = 0.0, denom;

    if (!confusion || k == 0)
        return NAN;
    for (size_t i = 0; i < k; i++) {
        double row = 0.0, col = 0.0;

        for (size_t j = 0; j < k; j++) {
            double v = confusion[i * k + j];

            if (!(v >= 0.0) || !isfinite(v))
                return NAN;
            row += v;
            col += confusion[j * k + i];
        }
        total += row;
        trace += confusion[i * k + i];
        chance += row * col;
    }
    denom = total * total - chance;
    if (!(denom > 0.0))
        return NAN;
    return (total * trace - chance) / denom;
}
