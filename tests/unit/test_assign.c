/*
 * Unit tests for the linear assignment solver: scipy's public vectors (each
 * also transposed and as a maximisation), empty and forbidden cases, invalid
 * input, a brute-force cross-check on small random matrices and determinism
 * on ties.  Random matrices come from a local xorshift with a fixed seed.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/fields/assign.h"
#include "arbiter/status.h"

#define MAXN 8

/* A tiny xorshift64 so no test touches the global rand() state. */
struct rng {
    uint64_t s;
};

static uint64_t rng_next(struct rng *g)
{
    g->s ^= g->s << 13;
    g->s ^= g->s >> 7;
    g->s ^= g->s << 17;
    return g->s;
}

static size_t rng_below(struct rng *g, size_t n)
{
    return (size_t)(rng_next(g) % n);
}

static double rng_unit(struct rng *g)
{
    return (double)(rng_next(g) >> 11) / 9007199254740992.0;
}

/* Check row_to_col is a valid assignment of min(rows, cols) pairs; return its total. */
static double check_assignment(const double *m, size_t rows, size_t cols, const size_t *r2c)
{
    int used[MAXN * 4] = {0};
    size_t pairs = 0;
    double sum = 0.0;

    cr_assert(cols <= MAXN * 4);
    for (size_t r = 0; r < rows; r++) {
        if (r2c[r] == ARB_ASSIGN_NONE)
            continue;
        cr_assert_lt(r2c[r], cols, "row %zu got column %zu of %zu", r, r2c[r], cols);
        cr_assert(!used[r2c[r]], "column %zu used twice", r2c[r]);
        used[r2c[r]] = 1;
        sum += m[r * cols + r2c[r]];
        pairs++;
    }
    cr_assert_eq(pairs, rows < cols ? rows : cols);
    return sum;
}

static void transpose(const double *m, size_t rows, size_t cols, double *out)
{
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++)
            out[c * rows + r] = m[r * cols + c];
}

/* Minimise m, and check it also transposed and as maximisation of -m. */
static void expect_min_total(const double *m, size_t rows, size_t cols, double want)
{
    double t[MAXN * MAXN], neg[MAXN * MAXN];
    size_t r2c[MAXN];
    struct arb_err err = {{0}};
    double total = -1.0;

    cr_assert(rows <= MAXN && cols <= MAXN);
    cr_assert_eq(arb_assign_min(m, rows, cols, r2c, &total, &err), ARB_OK, "%s", err.msg);
    cr_assert_float_eq(total, want, 1e-9, "total %g, want %g", total, want);
    cr_assert_float_eq(check_assignment(m, rows, cols, r2c), want, 1e-9);

    transpose(m, rows, cols, t);
    cr_assert_eq(arb_assign_min(t, cols, rows, r2c, &total, &err), ARB_OK, "%s", err.msg);
    cr_assert_float_eq(total, want, 1e-9, "transposed total %g, want %g", total, want);
    cr_assert_float_eq(check_assignment(t, cols, rows, r2c), want, 1e-9);

    for (size_t k = 0; k < rows * cols; k++)
        neg[k] = -m[k];
    cr_assert_eq(arb_assign_max(neg, rows, cols, r2c, &total, &err), ARB_OK, "%s", err.msg);
    cr_assert_float_eq(total, -want, 1e-9, "max total %g, want %g", total, -want);
    cr_assert_float_eq(check_assignment(neg, rows, cols, r2c), -want, 1e-9);

    transpose(neg, rows, cols, t);
    cr_assert_eq(arb_assign_max(t, cols, rows, r2c, &total, &err), ARB_OK, "%s", err.msg);
    cr_assert_float_eq(total, -want, 1e-9, "transposed max total %g, want %g", total, -want);
}

Test(assign, should_solve_scipy_vector_square)
{
    const double m[] = {400, 150, 400, 400, 450, 600, 300, 225, 300};

    expect_min_total(m, 3, 3, 850);
}

Test(assign, should_solve_scipy_vector_wide)
{
    const double m[] = {400, 150, 400, 1, 400, 450, 600, 2, 300, 225, 300, 3};

    expect_min_total(m, 3, 4, 452);
}

Test(assign, should_solve_scipy_vector_small_square)
{
    const double m[] = {10, 10, 8, 9, 8, 1, 9, 7, 4};

    expect_min_total(m, 3, 3, 18);
}

Test(assign, should_solve_scipy_vector_small_wide)
{
    const double m[] = {10, 10, 8, 11, 9, 8, 1, 1, 9, 7, 4, 10};

    expect_min_total(m, 3, 4, 15);
}

Test(assign, should_give_exact_pairs_for_scipy_vector_square)
{
    const double m[] = {400, 150, 400, 400, 450, 600, 300, 225, 300};
    size_t r2c[3];
    double total;

    cr_assert_eq(arb_assign_min(m, 3, 3, r2c, &total, NULL), ARB_OK);
    cr_assert_eq(r2c[0], 1);
    cr_assert_eq(r2c[1], 0);
    cr_assert_eq(r2c[2], 2);
}

Test(assign, should_leave_extra_rows_unassigned)
{
    /* 4 x 3: the transposed form of scipy's wide vector; one row stays unmatched. */
    const double m[] = {400, 400, 300, 150, 450, 225, 400, 600, 300, 1, 2, 3};
    size_t r2c[4];
    double total;
    size_t none = 0;

    cr_assert_eq(arb_assign_min(m, 4, 3, r2c, &total, NULL), ARB_OK);
    cr_assert_float_eq(total, 452, 1e-9);
    for (size_t r = 0; r < 4; r++)
        none += r2c[r] == ARB_ASSIGN_NONE;
    cr_assert_eq(none, 1);
}

Test(assign, should_accept_empty_matrices)
{
    size_t r2c[3] = {7, 7, 7};
    double total = -1.0;

    cr_assert_eq(arb_assign_min(NULL, 0, 0, NULL, &total, NULL), ARB_OK);
    cr_assert_eq(total, 0.0);
    total = -1.0;
    cr_assert_eq(arb_assign_max(NULL, 0, 3, NULL, &total, NULL), ARB_OK);
    cr_assert_eq(total, 0.0);
    total = -1.0;
    cr_assert_eq(arb_assign_min(NULL, 3, 0, r2c, &total, NULL), ARB_OK);
    cr_assert_eq(total, 0.0);
    for (size_t r = 0; r < 3; r++)
        cr_assert_eq(r2c[r], ARB_ASSIGN_NONE);
}

Test(assign, should_solve_one_by_one)
{
    const double m[] = {-2.5};
    size_t r2c[1] = {99};
    double total;

    cr_assert_eq(arb_assign_min(m, 1, 1, r2c, &total, NULL), ARB_OK);
    cr_assert_eq(r2c[0], 0);
    cr_assert_eq(total, -2.5);
    cr_assert_eq(arb_assign_max(m, 1, 1, r2c, &total, NULL), ARB_OK);
    cr_assert_eq(total, -2.5);
}

Test(assign, should_accept_a_null_total)
{
    const double m[] = {1, 2, 3, 4};
    size_t r2c[2];

    cr_assert_eq(arb_assign_min(m, 2, 2, r2c, NULL, NULL), ARB_OK);
    cr_assert_eq(r2c[0], 0);
    cr_assert_eq(r2c[1], 1);
}

Test(assign, should_avoid_forbidden_pairs)
{
    const double m[] = {INFINITY, 1, 1, INFINITY};
    const double s[] = {-INFINITY, 1, 1, -INFINITY};
    size_t r2c[2];
    double total;

    cr_assert_eq(arb_assign_min(m, 2, 2, r2c, &total, NULL), ARB_OK);
    cr_assert_eq(total, 2.0);
    cr_assert_eq(r2c[0], 1);
    cr_assert_eq(r2c[1], 0);
    cr_assert_eq(arb_assign_max(s, 2, 2, r2c, &total, NULL), ARB_OK);
    cr_assert_eq(total, 2.0);
    cr_assert_eq(r2c[0], 1);
}

Test(assign, should_prefer_a_costly_allowed_pair_to_a_forbidden_one)
{
    /* The cheap diagonal is mostly forbidden; the only full assignment is expensive. */
    const double m[] = {0, INFINITY, 1e9, 1e9, 0, INFINITY, INFINITY, 1e9, INFINITY};
    size_t r2c[3];
    double total;

    cr_assert_eq(arb_assign_min(m, 3, 3, r2c, &total, NULL), ARB_OK);
    cr_assert_eq(r2c[0], 2);
    cr_assert_eq(r2c[1], 0);
    cr_assert_eq(r2c[2], 1);
    cr_assert_float_eq(total, 3e9, 1e-3);
}

Test(assign, should_report_an_infeasible_matrix)
{
    const double m[] = {INFINITY, INFINITY, 1, 2};
    size_t r2c[2] = {42, 42};
    struct arb_err err = {{0}};
    double total = 42.0;

    cr_assert_eq(arb_assign_min(m, 2, 2, r2c, &total, &err), ARB_ESCHEMA);
    cr_assert(strstr(err.msg, "infeasible") != NULL, "message: %s", err.msg);
    cr_assert_eq(r2c[0], 42);
    cr_assert_eq(total, 42.0);
}

Test(assign, should_report_infeasible_rectangular_and_max_matrices)
{
    /* Two rows compete for the single allowed column. */
    const double m[] = {1, INFINITY, INFINITY, 2, INFINITY, INFINITY};
    const double s[] = {-INFINITY, -INFINITY, -INFINITY, 5};
    struct arb_err err = {{0}};
    double t[6];
    size_t r2c[3];

    cr_assert_eq(arb_assign_min(m, 2, 3, r2c, NULL, &err), ARB_ESCHEMA);
    cr_assert(strstr(err.msg, "cost matrix is infeasible") != NULL, "message: %s", err.msg);
    transpose(m, 2, 3, t);
    cr_assert_eq(arb_assign_min(t, 3, 2, r2c, NULL, &err), ARB_ESCHEMA);
    cr_assert_eq(arb_assign_max(s, 2, 2, r2c, NULL, &err), ARB_ESCHEMA);
    cr_assert(strstr(err.msg, "score matrix is infeasible") != NULL, "message: %s", err.msg);
}

Test(assign, should_reject_nan)
{
    const double m[] = {1, 2, NAN, 4};
    struct arb_err err = {{0}};
    size_t r2c[2];

    cr_assert_eq(arb_assign_min(m, 2, 2, r2c, NULL, &err), ARB_EUSAGE);
    cr_assert_str_eq(err.msg, "cost matrix entry [1][0] is nan");
    cr_assert_eq(arb_assign_max(m, 2, 2, r2c, NULL, &err), ARB_EUSAGE);
    cr_assert_str_eq(err.msg, "score matrix entry [1][0] is nan");
}

Test(assign, should_reject_the_wrong_infinity)
{
    const double m[] = {1, -INFINITY, 3, 4};
    const double s[] = {1, 2, INFINITY, 4};
    struct arb_err err = {{0}};
    size_t r2c[2];

    cr_assert_eq(arb_assign_min(m, 2, 2, r2c, NULL, &err), ARB_EUSAGE);
    cr_assert(strstr(err.msg, "[0][1] is -inf") != NULL, "message: %s", err.msg);
    cr_assert_eq(arb_assign_max(s, 2, 2, r2c, NULL, &err), ARB_EUSAGE);
    cr_assert(strstr(err.msg, "[1][0] is +inf") != NULL, "message: %s", err.msg);
}

Test(assign, should_reject_entries_beyond_the_limit_and_missing_pointers)
{
    const double m[] = {1, 2, 3, 1e305};
    struct arb_err err = {{0}};
    size_t r2c[2];

    cr_assert_eq(arb_assign_min(m, 2, 2, r2c, NULL, &err), ARB_EUSAGE);
    cr_assert_eq(arb_assign_min(NULL, 2, 2, r2c, NULL, &err), ARB_EUSAGE);
    cr_assert_eq(arb_assign_min(m, 2, 2, NULL, NULL, &err), ARB_EUSAGE);
    cr_assert_eq(arb_assign_min(m, SIZE_MAX / 2, 4, r2c, NULL, &err), ARB_ETOOBIG);
}

Test(assign, should_stay_exact_near_the_limit)
{
    const double m[] = {1e300, -1e300, -1e300, 1e300};
    size_t r2c[2];
    double total;

    cr_assert_eq(arb_assign_min(m, 2, 2, r2c, &total, NULL), ARB_OK);
    cr_assert_eq(total, -2e300);
    cr_assert_eq(arb_assign_max(m, 2, 2, r2c, &total, NULL), ARB_OK);
    cr_assert_eq(total, 2e300);
}

/* Best total over every injective pairing of the shorter side, or +INFINITY. */
static double brute_rec(const double *m, size_t rows, size_t cols, size_t r, unsigned used)
{
    double best = INFINITY;

    if (r == rows)
        return 0.0;
    for (size_t c = 0; c < cols; c++) {
        double rest;

        if (used & (1u << c) || m[r * cols + c] == INFINITY)
            continue;
        rest = brute_rec(m, rows, cols, r + 1, used | (1u << c));
        if (m[r * cols + c] + rest < best)
            best = m[r * cols + c] + rest;
    }
    return best;
}

static double brute_min(const double *m, size_t rows, size_t cols)
{
    double t[MAXN * MAXN];

    if (rows <= cols)
        return brute_rec(m, rows, cols, 0, 0);
    transpose(m, rows, cols, t);
    return brute_rec(t, cols, rows, 0, 0);
}

static void fill_random(struct rng *g, double *m, size_t n, int kind)
{
    for (size_t k = 0; k < n; k++) {
        if (kind == 0)
            m[k] = rng_unit(g) * 200.0 - 100.0;
        else if (kind == 1)
            m[k] = (double)rng_below(g, 4); /* many ties */
        else
            m[k] = rng_below(g, 3) == 0 ? INFINITY : (double)rng_below(g, 10);
    }
}

Test(assign, should_match_brute_force_on_small_random_matrices)
{
    struct rng g = {0x9e3779b97f4a7c15u};
    double m[MAXN * MAXN], neg[MAXN * MAXN];
    size_t r2c[MAXN];
    int infeasible = 0;

    for (int trial = 0; trial < 3000; trial++) {
        size_t rows = 1 + rng_below(&g, 6), cols = 1 + rng_below(&g, 6);
        int kind = trial % 3;
        struct arb_err err = {{0}};
        double want, total = 0.0;
        enum arb_status st;

        fill_random(&g, m, rows * cols, kind);
        want = brute_min(m, rows, cols);
        st = arb_assign_min(m, rows, cols, r2c, &total, &err);
        if (want == INFINITY) {
            cr_assert_eq(st, ARB_ESCHEMA, "trial %d: %zu x %zu should be infeasible", trial, rows,
                         cols);
            infeasible++;
            continue;
        }
        cr_assert_eq(st, ARB_OK, "trial %d: %s", trial, err.msg);
        cr_assert_float_eq(total, want, 1e-9, "trial %d %zu x %zu: %g, brute force %g", trial, rows,
                           cols, total, want);
        cr_assert_float_eq(check_assignment(m, rows, cols, r2c), want, 1e-9);

        for (size_t k = 0; k < rows * cols; k++)
            neg[k] = -m[k];
        cr_assert_eq(arb_assign_max(neg, rows, cols, r2c, &total, &err), ARB_OK, "%s", err.msg);
        cr_assert_float_eq(total, -want, 1e-9, "trial %d max", trial);
    }
    cr_assert_gt(infeasible, 0, "the forbidden-entry trials should include infeasible ones");
}

Test(assign, should_give_identity_on_a_constant_matrix)
{
    double m[MAXN * MAXN];
    size_t r2c[MAXN];
    double total;

    for (size_t k = 0; k < MAXN * MAXN; k++)
        m[k] = 0.5;
    cr_assert_eq(arb_assign_max(m, MAXN, MAXN, r2c, &total, NULL), ARB_OK);
    cr_assert_float_eq(total, MAXN * 0.5, 1e-12);
    for (size_t r = 0; r < MAXN; r++)
        cr_assert_eq(r2c[r], r, "row %zu got column %zu", r, r2c[r]);
}

Test(assign, should_break_ties_the_same_way_every_time)
{
    struct rng g = {12345};
    size_t n = 40;
    double *a = malloc(n * n * sizeof(double));
    double *b = malloc(n * n * sizeof(double));
    size_t first[40], again[40];
    double t1, t2;

    cr_assert(a && b);
    for (int trial = 0; trial < 20; trial++) {
        /* Two distinct values only, so optima are massively tied. */
        for (size_t k = 0; k < n * n; k++)
            a[k] = (double)rng_below(&g, 2);
        cr_assert_eq(arb_assign_max(a, n, n, first, &t1, NULL), ARB_OK);
        /* Same values at another address, after an unrelated call. */
        cr_assert_eq(arb_assign_min(a, n, n, again, &t2, NULL), ARB_OK);
        memcpy(b, a, n * n * sizeof(double));
        cr_assert_eq(arb_assign_max(b, n, n, again, &t2, NULL), ARB_OK);
        cr_assert_eq(t1, t2);
        cr_assert_arr_eq(first, again, sizeof(first), "trial %d: tie broken differently", trial);
    }
    free(a);
    free(b);
}

Test(assign, should_solve_a_larger_matrix_consistently)
{
    /* 120 x 80 random: the transposed problem must agree, and the total is optimal for both. */
    struct rng g = {777};
    size_t rows = 120, cols = 80;
    double *m = malloc(rows * cols * sizeof(double));
    double *t = malloc(rows * cols * sizeof(double));
    size_t *r2c = malloc(rows * sizeof(size_t));
    size_t *c2r = malloc(cols * sizeof(size_t));
    double t1, t2;

    cr_assert(m && t && r2c && c2r);
    for (size_t k = 0; k < rows * cols; k++)
        m[k] = rng_unit(&g);
    transpose(m, rows, cols, t);
    cr_assert_eq(arb_assign_max(m, rows, cols, r2c, &t1, NULL), ARB_OK);
    cr_assert_eq(arb_assign_max(t, cols, rows, c2r, &t2, NULL), ARB_OK);
    cr_assert_float_eq(t1, t2, 1e-9);
    for (size_t c = 0; c < cols; c++)
        cr_assert_eq(r2c[c2r[c]], c);
    free(m);
    free(t);
    free(r2c);
    free(c2r);
}
