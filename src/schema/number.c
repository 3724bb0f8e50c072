/*
 * number.c - exact "multipleOf" for decimal numbers.
 *
 * 0.0075 / 0.0001 is 75.00000000000001 in binary floating point, so a plain
 * fmod() calls 0.0075 no multiple of 0.0001.  Both numbers are taken instead
 * as the decimals a person wrote, i.e. their shortest round-trip digits
 * (mant * 10^exp), and divisibility is decided in integers.  A quick float
 * test rejects the clear non-multiples first.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "schema_int.h"

/*
 * Shortest decimal digits of |d| (at most 17), trailing zeros dropped.
 * Returns 0, or -1 for a non-finite d.
 */
int decimal_of(double d, struct decimal *out)
{
    char buf[40];
    int prec;

    if (!isfinite(d))
        return -1;
    d = fabs(d);
    if (d == 0) {
        out->mant = 0;
        out->exp = 0;
        return 0;
    }
    /* Digits that round-trip at precision p are the shortest ones, padded. */
    for (prec = 15; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*e", prec - 1, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    {
        uint64_t mant = 0;
        int digits = 0, e10;
        const char *p = buf;

        for (; *p && *p != 'e'; p++) {
            if (*p >= '0' && *p <= '9') {
                mant = mant * 10 + (uint64_t)(*p - '0');
                digits++;
            }
        }
        e10 = *p == 'e' ? atoi(p + 1) : 0;
        /* buf is d.ddd...e±X: the value is mant * 10^(X - digits + 1). */
        e10 -= digits - 1;
        while (mant && mant % 10 == 0) {
            mant /= 10;
            e10++;
        }
        out->mant = mant;
        out->exp = e10;
    }
    return 0;
}

/* Is (mx * 10^k) / md an integer?  md > 0. */
static int divides(uint64_t mx, int k, uint64_t md)
{
    if (mx == 0)
        return 1;
    if (k >= 0) {
        uint64_t r = mx % md;

        /* r < md < 10^17, so r * 10 cannot overflow. */
        while (k-- > 0 && r)
            r = r * 10 % md;
        return r == 0;
    }
    if (-k > 19)
        return 0;
    {
        uint64_t p10 = 1;
        int j;

        for (j = 0; j < -k; j++)
            p10 *= 10;
        if (mx % p10)
            return 0;
        return (mx / p10) % md == 0;
    }
}

/*
 * Is x a multiple of divisor (> 0), whose decimal form is dd?  1 or 0.
 */
int multiple_of(double x, double divisor, const struct decimal *dd)
{
    struct decimal dx;
    double q, r;

    if (x == 0)
        return 1;
    if (!isfinite(x))
        return 0;
    if (fabs(x) < 9007199254740992.0 && x == floor(x) && divisor == floor(divisor))
        return fmod(x, divisor) == 0;
    q = x / divisor;
    r = floor(q + 0.5);
    /* Rounding moves a true quotient by a few ulps; far more means no multiple. */
    if (fabs(q) < 9007199254740992.0 && fabs(q - r) > 1e-9 * (fabs(q) > 1 ? fabs(q) : 1))
        return 0;
    if (decimal_of(x, &dx) != 0 || dd->mant == 0)
        return 0;
    return divides(dx.mant, dx.exp - dd->exp, dd->mant);
}
