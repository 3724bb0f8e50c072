/*
 * test_reasoning.c - the one-line significance reasoning of a pair
 * (src/report/reasoning.c): the intervals' evidence, then the conclusion of the
 * paired tests, which is what "significant" says, in each of the ways the two can
 * meet.
 */
#include <math.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/report/stats_int.h"

static struct pair_figures figures(double lo_a, double hi_a, double lo_b, double hi_b)
{
    struct pair_figures f;

    memset(&f, 0, sizeof(f));
    f.name[0] = "candidate";
    f.name[1] = "baseline";
    f.lo[0] = lo_a;
    f.hi[0] = hi_a;
    f.lo[1] = lo_b;
    f.hi[1] = hi_b;
    return f;
}

static void expect(const struct pair_figures *f, const char *want)
{
    char line[600];

    stats_pair_reasoning(line, sizeof(line), f);
    cr_assert_str_eq(line, want);
}

Test(report_reasoning, should_name_the_bounds_when_the_intervals_separate_and_tests_agree)
{
    struct pair_figures f = figures(0.61, 0.80, 0.40, 0.52);

    f.sign_p = 0.002;
    f.boot_p = 0.001;
    f.mean_diff = 0.2;
    f.a_wins = 12;
    f.b_wins = 2;
    f.significant = 1;
    expect(&f, "candidate's lower bound 0.61 > baseline's upper bound 0.52; paired tests p = "
               "0.002 (sign), 0.001 (bootstrap): candidate better");
}

Test(report_reasoning, should_find_no_difference_when_intervals_overlap_and_tests_do_not)
{
    struct pair_figures f = figures(0.48, 0.61, 0.52, 0.66);

    f.sign_p = 0.45;
    f.boot_p = 0.30;
    f.mean_diff = -0.03;
    f.a_wins = 4;
    f.b_wins = 6;
    expect(&f, "intervals overlap (candidate 0.48-0.61 vs baseline 0.52-0.66); paired tests p = "
               "0.450 (sign), 0.300 (bootstrap): no significant difference");
}

/* The paired tests see a difference the overlapping intervals hide: significant, and said. */
Test(report_reasoning, should_follow_the_paired_tests_when_the_intervals_overlap)
{
    struct pair_figures f = figures(0.48, 0.61, 0.52, 0.66);

    f.sign_p = 0.01;
    f.boot_p = 0.02;
    f.mean_diff = -0.05;
    f.a_wins = 1;
    f.b_wins = 11;
    f.significant = 1;
    expect(&f, "intervals overlap (candidate 0.48-0.61 vs baseline 0.52-0.66); paired tests p = "
               "0.010 (sign), 0.020 (bootstrap): baseline better (the paired tests compare case "
               "by case, though the intervals overlap)");
}

Test(report_reasoning, should_not_call_separate_intervals_significant_without_the_tests)
{
    struct pair_figures f = figures(0.61, 0.80, 0.40, 0.52);

    f.sign_p = 0.09;
    f.boot_p = 0.001;
    f.mean_diff = 0.2;
    f.a_wins = 7;
    f.b_wins = 1;
    expect(&f, "candidate's lower bound 0.61 > baseline's upper bound 0.52; paired tests p = "
               "0.090 (sign), 0.001 (bootstrap): no significant difference (the paired tests do "
               "not both give p < 0.05)");
}

/* The gate reads the winner from the wins; the scores' other direction is said. */
Test(report_reasoning, should_say_when_wins_and_scores_disagree)
{
    struct pair_figures f = figures(0.30, 0.50, 0.35, 0.55);

    f.sign_p = 0.01;
    f.boot_p = 0.04;
    f.mean_diff = -0.05;
    f.a_wins = 11;
    f.b_wins = 1;
    f.significant = 1;
    expect(&f, "intervals overlap (candidate 0.30-0.50 vs baseline 0.35-0.55); paired tests p = "
               "0.010 (sign), 0.040 (bootstrap): candidate better by wins, though the score "
               "difference favours baseline");
}

/* Equal mean scores favour neither system: the line says they are equal. */
Test(report_reasoning, should_say_equal_scores_are_equal)
{
    struct pair_figures f = figures(0.30, 0.50, 0.30, 0.50);

    f.sign_p = 0.01;
    f.boot_p = 0.04;
    f.mean_diff = 0;
    f.a_wins = 1;
    f.b_wins = 11;
    f.significant = 1;
    expect(&f, "intervals overlap (candidate 0.30-0.50 vs baseline 0.30-0.50); paired tests p = "
               "0.010 (sign), 0.040 (bootstrap): baseline better by wins, though the mean scores "
               "are equal");
}

Test(report_reasoning, should_say_what_is_missing)
{
    struct pair_figures f = figures(NAN, NAN, 0.4, 0.5);

    f.sign_p = 1;
    f.boot_p = NAN;
    f.mean_diff = NAN;
    expect(&f, "no overall-score interval for candidate; sign test p = 1.000, no case with both "
               "overall scores: no significant difference");
}

Test(report_reasoning, should_cut_to_the_buffer)
{
    struct pair_figures f = figures(0.61, 0.80, 0.40, 0.52);
    char line[20];

    f.boot_p = 0.5;
    stats_pair_reasoning(line, sizeof(line), &f);
    cr_assert_eq(strlen(line), sizeof(line) - 1);
    cr_assert_str_eq(line, "candidate's lower b");
}
