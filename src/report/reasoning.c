/*
 * reasoning.c - the one-line significance reasoning of a pair of systems in
 * the statistical strategy (statistics.c gathers the figures, the markdown
 * and HTML reports print the line as it is).
 *
 * The line gives the seed's evidence first (comparison-graders.md: "if
 * winner's lower CI > second's upper CI -> statistically significant"): one
 * system's lower bound above the other's upper bound, or the two overall-score
 * intervals overlapping.  Its conclusion is the report's own test, the same as
 * the pair's "significant": the exact sign test and the paired bootstrap both
 * give p < 0.05, the winner the one with more wins, as the gate
 * --require-significant reads it.  The two can differ (paired tests
 * compare case by case and find differences that overlapping intervals hide),
 * and the line then says so rather than contradicting "significant".
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stats_int.h"

/* "NAME's lower bound 7.10 > NAME's upper bound 6.20", or the overlap, or what is missing. */
static int evidence(char *buf, size_t len, const struct pair_figures *f, int *dir)
{
    *dir = 0;
    if (isnan(f->lo[0]) || isnan(f->lo[1]))
        return snprintf(buf, len, "no overall-score interval for %s",
                        isnan(f->lo[0]) && isnan(f->lo[1]) ? "either system"
                        : isnan(f->lo[0])                  ? f->name[0]
                                                           : f->name[1]);
    if (f->lo[0] > f->hi[1] || f->lo[1] > f->hi[0]) {
        int w = f->lo[0] > f->hi[1] ? 0 : 1;

        *dir = w ? -1 : 1;
        return snprintf(buf, len, "%s's lower bound %.2f > %s's upper bound %.2f", f->name[w],
                        f->lo[w], f->name[!w], f->hi[!w]);
    }
    return snprintf(buf, len, "intervals overlap (%s %.2f-%.2f vs %s %.2f-%.2f)", f->name[0],
                    f->lo[0], f->hi[0], f->name[1], f->lo[1], f->hi[1]);
}

void stats_pair_reasoning(char *buf, size_t len, const struct pair_figures *f)
{
    int dir, n = evidence(buf, len, f, &dir);
    int by_score = f->mean_diff > 0 ? 1 : f->mean_diff < 0 ? -1 : 0;
    int by_wins = f->a_wins > f->b_wins ? 1 : f->a_wins < f->b_wins ? -1 : 0;
    const char *winner = by_score > 0 ? f->name[0] : f->name[1];
    size_t at = n > 0 && (size_t)n < len ? (size_t)n : len ? len - 1 : 0;

    if (!len)
        return;
    if (isnan(f->boot_p)) {
        snprintf(buf + at, len - at,
                 "; sign test p = %.3f, no case with both overall scores: no significant "
                 "difference",
                 f->sign_p);
        return;
    }
    at += (size_t)snprintf(buf + at, len - at,
                           "; paired tests p = %.3f (sign), %.3f (bootstrap): ", f->sign_p,
                           f->boot_p);
    if (at >= len)
        return;
    if (!f->significant)
        snprintf(buf + at, len - at, "%s",
                 dir ? "no significant difference (the paired tests do not both give p < 0.05)"
                     : "no significant difference");
    else if (by_score == 0)
        /* Equal mean scores favour neither: the wins alone decided the gate. */
        snprintf(buf + at, len - at, "%s better by wins, though the mean scores are equal",
                 by_wins >= 0 ? f->name[0] : f->name[1]);
    else if (by_score != by_wins)
        /* The gate (--require-significant) goes by the wins; say what the scores say. */
        snprintf(buf + at, len - at, "%s better by wins, though the score difference favours %s",
                 by_wins > 0 ? f->name[0] : f->name[1], winner);
    else if (dir == by_score)
        snprintf(buf + at, len - at, "%s better", winner);
    else if (dir == 0)
        snprintf(buf + at, len - at,
                 "%s better (the paired tests compare case by case, though the intervals "
                 "overlap)",
                 winner);
    else
        snprintf(buf + at, len - at, "%s better by the paired tests, though its interval is lower",
                 winner);
}
