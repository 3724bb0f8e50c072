/*
 * draw.h - indices for the bootstrap's hot loops, private to src/stats/.
 *
 * A resample of n values draws n indices below n.  arb_rng_below does it one
 * call and one 64-bit output per index; here the generator is inlined and each
 * output gives two indices, one from each 32-bit half, by Lemire's
 * multiply-shift with the rejection threshold (2^32 mod n) computed once, so
 * the draws stay exactly unbiased.  Every bit of xoshiro256** output is of full
 * quality, so the low half serves as well as the high one.  n up to 2^32 only:
 * callers with more values use arb_rng_below.
 */
#ifndef ARBITER_STATS_DRAW_H
#define ARBITER_STATS_DRAW_H

#include <stdint.h>

#include "arbiter/stats.h"

struct draw {
    uint64_t s[4];      /* xoshiro256** state, seeded as arb_rng_seed does */
    uint64_t bound;     /* n */
    uint32_t threshold; /* 2^32 mod n: low words below it are rejected */
    uint32_t spare;     /* the second half of the last output */
    int has_spare;
};

#define DRAW_MAX 0x100000000ull /* the largest n draw_init takes */

static inline void draw_init(struct draw *d, uint64_t seed, uint64_t n)
{
    struct arb_rng r;

    arb_rng_seed(&r, seed);
    for (int i = 0; i < 4; i++)
        d->s[i] = r.s[i];
    d->bound = n;
    d->threshold = (uint32_t)((0x100000000ull - n) % n);
    d->spare = 0;
    d->has_spare = 0;
}

static inline uint64_t draw_bits(struct draw *d)
{
    uint64_t *s = d->s;
    uint64_t x = s[1] * 5, result = ((x << 7) | (x >> 57)) * 9, t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

/* The next index in [0, n). */
static inline uint32_t draw_index(struct draw *d)
{
    for (;;) {
        uint64_t half, m;

        if (d->has_spare) {
            half = d->spare;
            d->has_spare = 0;
        } else {
            uint64_t x = draw_bits(d);

            d->spare = (uint32_t)x;
            d->has_spare = 1;
            half = x >> 32;
        }
        m = half * d->bound;
        if ((uint32_t)m >= d->threshold)
            return (uint32_t)(m >> 32);
    }
}

#endif
