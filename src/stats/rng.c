/*
 * rng.c - the seeded generator behind every bootstrap: xoshiro256** (Blackman
 * and Vigna) with its state filled by splitmix64, so any 64-bit seed, zero
 * included, gives a good non-zero state.  The state lives in the caller's
 * struct arb_rng; nothing here is global.  Not for cryptography.
 */
#include <stdint.h>

#include "arbiter/stats.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/*
 * Seed r from one 64-bit value.  The same seed always gives the same
 * sequence, on every platform.
 */
void arb_rng_seed(struct arb_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

/* The next 64 uniformly distributed bits (xoshiro256**). */
uint64_t arb_rng_next(struct arb_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* A double uniform in [0, 1): the top 53 bits scaled, so 1.0 is never returned. */
double arb_rng_unit(struct arb_rng *r)
{
    return (double)(arb_rng_next(r) >> 11) * 0x1.0p-53;
}

/*
 * An integer uniform in [0, n), exactly unbiased.  n up to 2^32 takes
 * Lemire's multiply-shift on the top 32 bits and rejects only the few draws
 * that would favour some outputs (the modulo is computed only then); larger n
 * rejects draws below 2^64 mod n and reduces the rest.  n == 0 returns 0
 * (the caller broke the contract; there is no value to give).
 */
size_t arb_rng_below(struct arb_rng *r, size_t n)
{
    if (n == 0)
        return 0;
    if ((uint64_t)n <= UINT32_MAX + 1ull) {
        uint64_t bound = (uint64_t)n;
        uint64_t m = (arb_rng_next(r) >> 32) * bound;
        uint32_t low = (uint32_t)m;

        if (low < bound) {
            /* 2^32 mod n: the count of low words that would over-represent some outputs. */
            uint32_t threshold = (uint32_t)((0x100000000ull - bound) % bound);

            while (low < threshold) {
                m = (arb_rng_next(r) >> 32) * bound;
                low = (uint32_t)m;
            }
        }
        return (size_t)(m >> 32);
    }
    {
        uint64_t bound = (uint64_t)n;
        uint64_t threshold = (0 - bound) % bound; /* 2^64 mod n */
        uint64_t x = arb_rng_next(r);

        while (x < threshold)
            x = arb_rng_next(r);
        return (size_t)(x % bound);
    }
}
