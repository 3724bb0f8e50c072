/*
 * bench_stats.c - time the bootstrap: arb_bootstrap_mean and
 * arb_bootstrap_paired on 10,000 values with 1,000 resamples (10 million
 * draws each), and Bradley-Terry on 8 systems.
 *
 * A figure to watch, not a test: prints the best of five runs on data from a
 * fixed-seed xorshift, so runs on one machine are comparable.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "arbiter/stats.h"
#include "arbiter/status.h"

#define N         10000
#define RESAMPLES 1000
#define SYSTEMS   8
#define RUNS      5

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double next_unit(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* Best of RUNS for one statistic; which: 0 mean, 1 paired, 2 Bradley-Terry. */
static int best_of(int which, const double *a, const double *b, const double *wins, double *best)
{
    struct arb_interval iv;
    double p, ratings[SYSTEMS];

    *best = -1.0;
    for (int run = 0; run < RUNS; run++) {
        double t0 = now_ms(), dt;
        enum arb_status st;

        if (which == 0)
            st = arb_bootstrap_mean(a, N, RESAMPLES, 0.95, 42, &iv);
        else if (which == 1)
            st = arb_bootstrap_paired(a, b, N, RESAMPLES, 0.95, 42, &iv, &p);
        else
            st = arb_bradley_terry(wins, SYSTEMS, ratings, NULL);
        dt = now_ms() - t0;
        if (st != ARB_OK) {
            fprintf(stderr, "bench_stats: %s\n", arb_strerror(st));
            return 1;
        }
        if (*best < 0.0 || dt < *best)
            *best = dt;
    }
    return 0;
}

int main(void)
{
    uint64_t s = 0x2545f4914f6cdd1du;
    double *a = malloc(sizeof(double) * N), *b = malloc(sizeof(double) * N);
    double wins[SYSTEMS * SYSTEMS], ms;
    int rc = 1;

    if (!a || !b) {
        fprintf(stderr, "bench_stats: out of memory\n");
        goto out;
    }
    for (size_t i = 0; i < N; i++) {
        a[i] = next_unit(&s);
        b[i] = next_unit(&s);
    }
    for (size_t i = 0; i < SYSTEMS * SYSTEMS; i++)
        wins[i] = i / SYSTEMS == i % SYSTEMS ? 0.0 : (double)(1 + (size_t)(next_unit(&s) * 50));
    if (best_of(0, a, b, wins, &ms))
        goto out;
    printf("bootstrap %d x %d: %.1f ms\n", N, RESAMPLES, ms);
    if (best_of(1, a, b, wins, &ms))
        goto out;
    printf("paired bootstrap %d x %d: %.1f ms\n", N, RESAMPLES, ms);
    if (best_of(2, a, b, wins, &ms))
        goto out;
    printf("bradley-terry %d systems: %.3f ms\n", SYSTEMS, ms);
    rc = 0;
out:
    free(a);
    free(b);
    return rc;
}
