/*
 * bench_assign.c - time arb_assign_max on a 500 x 500 random score matrix.
 *
 * A figure to watch, not a test: prints the best of five runs on a matrix
 * from a fixed-seed xorshift, so runs on one machine are comparable.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../src/fields/assign.h"
#include "arbiter/status.h"

#define N    500
#define RUNS 5

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(void)
{
    uint64_t s = 0x2545f4914f6cdd1du;
    double *score = malloc(sizeof(double) * N * N);
    size_t *r2c = malloc(sizeof(size_t) * N);
    struct arb_err err = {{0}};
    double best = -1.0, total = 0.0;

    if (!score || !r2c) {
        fprintf(stderr, "bench_assign: out of memory\n");
        free(score);
        free(r2c);
        return 1;
    }
    for (size_t k = 0; k < (size_t)N * N; k++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        score[k] = (double)(s >> 11) / 9007199254740992.0;
    }
    for (int run = 0; run < RUNS; run++) {
        double t0 = now_ms(), dt;
        enum arb_status st = arb_assign_max(score, N, N, r2c, &total, &err);

        dt = now_ms() - t0;
        if (st != ARB_OK) {
            fprintf(stderr, "bench_assign: %s: %s\n", arb_strerror(st), err.msg);
            free(score);
            free(r2c);
            return 1;
        }
        if (best < 0 || dt < best)
            best = dt;
    }
    printf("assign %dx%d: %.1f ms (best of %d, total %.6f)\n", N, N, best, RUNS, total);
    free(score);
    free(r2c);
    return 0;
}
