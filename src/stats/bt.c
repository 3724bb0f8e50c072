/*
 * bt.c - Bradley-Terry ratings by maximum likelihood with Hunter's (2004)
 * minorization-maximization updates, applied cyclically (each player's new
 * strength is used at once, which Hunter shows is still an MM algorithm and
 * converges faster than simultaneous updates).
 *
 * The maximum likelihood estimate exists exactly when the "beat" graph is
 * strongly connected (Hunter's Assumption 1): for every split of the players
 * into two groups, someone in each group beat someone in the other.  Then the
 * plain MLE is returned, so two players at 3 wins to 1 differ by exactly
 * log 3.  Otherwise (a player who never lost or never won, a group that beat
 * everyone outside it, players never compared) every player gets a tiny
 * prior: 0.01 wins and 0.01 losses against a virtual player held at rating
 * 0, which makes every rating finite and pulls unconnected groups together.
 * Confidence intervals (resampling games) are the caller's.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "arbiter/stats.h"

#define PRIOR_WINS 0.01
#define MAX_SWEEPS 10000
#define TOLERANCE  1e-10

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

/* One MM sweep; a is the prior's wins (and losses) against the virtual player. */
static void sweep(const double *wins, size_t m, const double *won, double a, double *g)
{
    for (size_t i = 0; i < m; i++) {
        double denom = 2.0 * a / (g[i] + 1.0);

        for (size_t j = 0; j < m; j++) {
            double games = wins[i * m + j] + wins[j * m + i];

            if (j != i && games > 0.0)
                denom += games / (g[i] + g[j]);
        }
        /* denom > 0: with no prior, strong connectivity gives every player a game. */
        g[i] = (won[i] + a) / denom;
    }
}

/*
 * Store the centred log-strengths in ratings and return the largest change
 * from what ratings held.  Without the prior the strengths are rescaled to
 * geometric mean 1 (the likelihood does not see the scale); with it the
 * virtual player fixes the scale and g is left alone.
 */
static double centre(double *g, size_t m, int rescale, double *ratings)
{
    double mean = 0.0, change = 0.0;

    for (size_t i = 0; i < m; i++)
        mean += log(g[i]);
    mean /= (double)m;
    for (size_t i = 0; i < m; i++) {
        double r = log(g[i]) - mean;

        if (fabs(r - ratings[i]) > change)
            change = fabs(r - ratings[i]);
        ratings[i] = r;
        if (rescale)
            g[i] = exp(r);
    }
    return change;
}

/*
 * Bradley-Terry ratings of m players from wins[i * m + j], how often i beat
 * j (ties as 0.5 each way; the diagonal is ignored).
 *   ratings  receives m log-strengths with mean 0: P(i beats j) =
 *            1 / (1 + exp(ratings[j] - ratings[i]))
 *   err      detail on failure, may be NULL
 * Iterates until no rating moves by 1e-10 or 10,000 sweeps.  The prior
 * described at the top of this file applies only when the plain maximum
 * likelihood estimate does not exist.  Returns ARB_OK, ARB_EUSAGE (m < 2, a
 * negative or non-finite count, NULL arrays) or ARB_ENOMEM.  Nothing to free.
 */
enum arb_status arb_bradley_terry(const double *wins, size_t m, double *ratings,
                                  struct arb_err *err)
{
    double *g, *won, a;
    size_t *stack;
    unsigned char *seen;
    void *mem;

    if (!wins || !ratings || m < 2)
        return arb_err_set(err, ARB_EUSAGE, "bradley-terry needs at least 2 players, got %zu",
                           wins && ratings ? m : (size_t)0);
    for (size_t k = 0; k < m * m; k++) {
        if (!(wins[k] >= 0.0) || !isfinite(wins[k]))
            return arb_err_set(err, ARB_EUSAGE,
                               "bradley-terry win count [%zu][%zu] is negative or not finite",
                               k / m, k % m);
    }
    if (m > SIZE_MAX / (2 * sizeof(double) + sizeof(size_t) + 1))
        return arb_err_set(err, ARB_ENOMEM, "bradley-terry: too many players (%zu)", m);
    mem = malloc(m * (2 * sizeof(double) + sizeof(size_t) + 1));
    if (!mem)
        return arb_err_set(err, ARB_ENOMEM, "bradley-terry: out of memory for %zu players", m);
    g = mem;
    won = g + m;
    stack = (size_t *)(won + m);
    seen = (unsigned char *)(stack + m);
    for (size_t i = 0; i < m; i++) {
        won[i] = 0.0;
        for (size_t j = 0; j < m; j++)
            won[i] += j != i ? wins[i * m + j] : 0.0;
        g[i] = 1.0;
        ratings[i] = 0.0;
    }
    a = reaches_all(wins, m, 0, stack, seen) && reaches_all(wins, m, 1, stack, seen)
            ? 0.0
            : PRIOR_WINS;
    for (int s = 0; s < MAX_SWEEPS; s++) {
        sweep(wins, m, won, a, g);
        if (centre(g, m, a == 0.0, ratings) < TOLERANCE)
            break;
    }
    free(mem);
    return ARB_OK;
}
