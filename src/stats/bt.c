/*
 * bt.c - Bradley-Terry ratings by maximum likelihood.
 *
 * The estimate exists exactly when the "beat" graph is strongly connected
 * (Hunter 2004, Assumption 1): for every split of the players into two
 * groups, someone in each group beat someone in the other.  Then the plain
 * MLE is returned, so two players at 3 wins to 1 differ by exactly log 3.
 * Otherwise (a player who never lost or never won, a group that beat everyone
 * outside it, players never compared) every player gets a tiny prior: 0.01
 * wins and 0.01 losses against a virtual player held at rating 0, which makes
 * every rating finite and pulls unconnected groups together.
 *
 * The maximum is found by Newton-Raphson on the log-strengths with step
 * halving, not by Hunter's MM updates the header names: MM reaches the same
 * maximum, but with the tiny prior it moves by ~1e-7 per sweep and was still
 * 2e-6 away after 10,000 sweeps, where Newton takes a dozen steps.  The
 * log-likelihood is concave (strictly so with the prior; without it, once the
 * last rating is pinned at 0), so halving a step until the likelihood does
 * not fall always makes progress.  Each step solves an m x m system: fine
 * for the tens of systems a report compares.  Intervals (resampling games)
 * are the caller's.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "arbiter/stats.h"

#define PRIOR_WINS 0.01
#define MAX_STEPS  10000
#define TOLERANCE  1e-10

/* The work arrays, carved from one allocation. */
struct bt {
    const double *wins;
    size_t m;
    double a; /* the prior's wins (and losses) against the virtual player, or 0 */
    double *theta, *trial, *grad, *step, *hess; /* m, m, m, m, m * m */
};

/*
 * Whether every player is reachable from player 0 along "beat" edges taken
 * forwards (reverse == 0) or backwards.  stack and seen hold m entries.
 */
static int reaches_all(const double *wins, size_t m, int reverse, size_t *stack,
                       unsigned char *seen)
{
    size_t top = 0, count = 1;

    for (size_t i = 0; i < m; i++)
        seen[i] = 0;
    seen[0] = 1;
    stack[top++] = 0;
    while (top > 0) {
        size_t i = stack[--top];

        for (size_t j = 0; j < m; j++) {
            double w = reverse ? wins[j * m + i] : wins[i * m + j];

            if (j != i && !seen[j] && w > 0.0) {
                seen[j] = 1;
                count++;
                stack[top++] = j;
            }
        }
    }
    return count == m;
}

/* log(exp(x) + exp(y)) without overflow. */
static double log_sum_exp(double x, double y)
{
    double hi = x > y ? x : y;

    return hi + log1p(exp(-fabs(x - y)));
}

/* 1 / (1 + exp(-x)) */
static double logistic(double x)
{
    return x >= 0.0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
}

static double log_likelihood(const struct bt *b, const double *theta)
{
    size_t m = b->m;
    double ll = 0.0;

    for (size_t i = 0; i < m; i++) {
        for (size_t j = i + 1; j < m; j++) {
            double wij = b->wins[i * m + j], wji = b->wins[j * m + i];

            if (wij + wji > 0.0)
                ll +=
                    wij * theta[i] + wji * theta[j] - (wij + wji) * log_sum_exp(theta[i], theta[j]);
        }
        if (b->a > 0.0)
            ll += b->a * (theta[i] - 2.0 * log_sum_exp(theta[i], 0.0));
    }
    return ll;
}

/* Gradient and negative Hessian of the log-likelihood at b->theta. */
static void derivatives(struct bt *b)
{
    size_t m = b->m;
    const double *t = b->theta;

    for (size_t i = 0; i < m; i++) {
        double s = logistic(t[i]);

        b->grad[i] = b->a - 2.0 * b->a * s;
        b->hess[i * m + i] = 2.0 * b->a * s * (1.0 - s);
    }
    for (size_t i = 0; i < m; i++) {
        for (size_t j = i + 1; j < m; j++) {
            double wij = b->wins[i * m + j], wji = b->wins[j * m + i], n = wij + wji;
            double p = logistic(t[i] - t[j]), info = n * p * (1.0 - p);

            b->grad[i] += wij - n * p;
            b->grad[j] += wji - n * (1.0 - p);
            b->hess[i * m + i] += info;
            b->hess[j * m + j] += info;
            b->hess[i * m + j] = -info;
            b->hess[j * m + i] = -info;
        }
    }
}

/*
 * Solve hess[0..d) step = grad[0..d) in place by elimination without
 * pivoting, which is sound because the matrix is symmetric and diagonally
 * dominant.  Returns 0 if a pivot vanished (underflow at extreme ratings).
 */
static int solve(struct bt *b, size_t d)
{
    size_t m = b->m;
    double *h = b->hess, *x = b->step;

    for (size_t i = 0; i < d; i++)
        x[i] = b->grad[i];
    for (size_t c = 0; c < d; c++) {
        if (!(h[c * m + c] > 0.0))
            return 0;
        for (size_t r = c + 1; r < d; r++) {
            double f = h[r * m + c] / h[c * m + c];

            if (f == 0.0)
                continue;
            for (size_t j = c; j < d; j++)
                h[r * m + j] -= f * h[c * m + j];
            x[r] -= f * x[c];
        }
    }
    for (size_t r = d; r-- > 0;) {
        double s = x[r];

        for (size_t j = r + 1; j < d; j++)
            s -= h[r * m + j] * x[j];
        x[r] = s / h[r * m + r];
    }
    return 1;
}

/*
 * One Newton step, halved until the likelihood does not fall.  Returns the
 * largest move of a full step (below TOLERANCE: converged), TOLERANCE for a
 * halved one, or 0 when nothing improves the likelihood any more.
 */
static double newton_step(struct bt *b)
{
    size_t m = b->m, d = b->a > 0.0 ? m : m - 1; /* without the prior, pin the last at 0 */
    double ll = log_likelihood(b, b->theta), t = 1.0;

    derivatives(b);
    if (!solve(b, d))
        return 0.0;
    for (int halvings = 0; halvings < 60; halvings++, t /= 2.0) {
        double move = 0.0;

        for (size_t i = 0; i < m; i++) {
            b->trial[i] = b->theta[i] + (i < d ? t * b->step[i] : 0.0);
            move = fmax(move, fabs(b->trial[i] - b->theta[i]));
        }
        /* A full step this small is convergence: the likelihood is flat to rounding there. */
        if ((t == 1.0 && move < TOLERANCE) || log_likelihood(b, b->trial) >= ll) {
            for (size_t i = 0; i < m; i++)
                b->theta[i] = b->trial[i];
            /* A damped step says nothing about convergence: keep going. */
            return t == 1.0 ? move : fmax(move, TOLERANCE);
        }
    }
    return 0.0;
}

/*
 * Bradley-Terry ratings of m players from wins[i * m + j], how often i beat
 * j (ties as 0.5 each way; the diagonal is ignored).
 *   ratings  receives m log-strengths with mean 0: P(i beats j) =
 *            1 / (1 + exp(ratings[j] - ratings[i]))
 *   err      detail on failure, may be NULL
 * Steps until no rating moves by 1e-10 (or 10,000 steps).  The prior
 * described at the top of this file applies only when the plain maximum
 * likelihood estimate does not exist.  Returns ARB_OK, ARB_EUSAGE (m < 2, a
 * negative or non-finite count, NULL arrays) or ARB_ENOMEM.  Nothing to free.
 */
enum arb_status arb_bradley_terry(const double *wins, size_t m, double *ratings,
                                  struct arb_err *err)
{
    struct bt b;
    size_t *stack;
    unsigned char *seen;
    double *mem, mean = 0.0;

    if (!wins || !ratings || m < 2)
        return arb_err_set(err, ARB_EUSAGE, "bradley-terry needs at least 2 players, got %zu",
                           wins && ratings ? m : (size_t)0);
    if (m > SIZE_MAX / sizeof(double) / (m + 6))
        return arb_err_set(err, ARB_ENOMEM, "bradley-terry: too many players (%zu)", m);
    for (size_t k = 0; k < m * m; k++) {
        if (!(wins[k] >= 0.0) || !isfinite(wins[k]))
            return arb_err_set(err, ARB_EUSAGE,
                               "bradley-terry win count [%zu][%zu] is negative or not finite",
                               k / m, k % m);
    }
    /* 4m + m * m doubles, then m size_t and m bytes, each given a double's room. */
    mem = malloc(sizeof(double) * m * (m + 6));
    if (!mem)
        return arb_err_set(err, ARB_ENOMEM, "bradley-terry: out of memory for %zu players", m);
    b.wins = wins;
    b.m = m;
    b.theta = mem;
    b.trial = b.theta + m;
    b.grad = b.trial + m;
    b.step = b.grad + m;
    b.hess = b.step + m;
    stack = (size_t *)(b.hess + m * m);
    seen = (unsigned char *)(b.hess + m * m + m);
    b.a = reaches_all(wins, m, 0, stack, seen) && reaches_all(wins, m, 1, stack, seen) ? 0.0
                                                                                       : PRIOR_WINS;
    for (size_t i = 0; i < m; i++)
        b.theta[i] = 0.0;
    for (int s = 0; s < MAX_STEPS; s++) {
        if (newton_step(&b) < TOLERANCE)
            break;
    }
    for (size_t i = 0; i < m; i++)
        mean += b.theta[i] / (double)m;
    for (size_t i = 0; i < m; i++)
        ratings[i] = b.theta[i] - mean;
    free(mem);
    return ARB_OK;
}
