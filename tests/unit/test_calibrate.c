/*
 * Unit tests for include/arbiter/calibrate.h: small studies computed by hand.
 *
 * tests/data/calibrate/pairs.jsonl (6 items, human / order_12 / order_21):
 *   a 1 / 1 / 1   b 2 / 2 / 2   c 1 / 1 / 2 (first-biased)   d 2 / 2 / tie
 *   e tie / tie / tie           f 1 / null / 1
 * inconsistent-tie: combined 1, 2, tie, tie, tie, null -> 3 of 6 correct (S1 0.5);
 *   S2 over a, b = 1; confusion (human rows) [[1,0,1],[0,1,1],[0,0,1]]: po = 3/5,
 *   kappa = (5*3 - (2*1 + 2*1 + 1*3)) / (25 - 7) = 8/18; F1 1: P 1, R 1/3 -> 0.5;
 *   F1 2: P 1, R 1/2 -> 2/3; F1 tie: P 1/3, R 1 -> 0.5; macro 5/9.
 * net-vote: d becomes 2 -> 4 of 6; kappa (20 - 8) / (25 - 8) = 12/17.
 * orders: order_12 5/6 (f null), order_21 4/6; both parsed a-e: consistent 3 of 5,
 *   kappa between orders [[1,1,0],[0,1,1],[0,0,1]] = (15 - 8) / (25 - 8) = 7/17.
 * --unparsed tie: f's order_12 is a tie: inconsistent-tie f -> tie (still 3/6, kappa
 *   (18 - 9) / (36 - 9) = 1/3); net-vote f -> 1 (5/6).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/calibrate.h"

#define D "tests/data/calibrate/"

#define assert_near(actual, expected)                                                              \
    cr_assert(fabs((double)(actual) - (double)(expected)) <= 1e-9, "%s = %.17g, expected %.17g",   \
              #actual, (double)(actual), (double)(expected))

static const cJSON *at(const cJSON *o, const char *path)
{
    char buf[256], *save = NULL, *tok;

    snprintf(buf, sizeof(buf), "%s", path);
    for (tok = strtok_r(buf, "/", &save); tok && o; tok = strtok_r(NULL, "/", &save)) {
        if (cJSON_IsArray(o))
            o = cJSON_GetArrayItem(o, atoi(tok));
        else
            o = cJSON_GetObjectItemCaseSensitive(o, tok);
    }
    cr_assert(o, "no %s in the study", path);
    return o;
}

static double num(const cJSON *study, const char *path)
{
    const cJSON *v = at(study, path);

    cr_assert(cJSON_IsNumber(v), "%s is not a number", path);
    return v->valuedouble;
}

static cJSON *study_of(const char *file, enum arb_calib_policy policy, int unparsed_tie)
{
    struct arb_calib_set *set = NULL;
    struct arb_calib_opts opts = {.policy = policy, .unparsed_tie = unparsed_tie, .bootstrap = 200};
    struct arb_err err = {{0}};
    cJSON *study = NULL;

    cr_assert_eq(arb_calib_load(file, &set, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_calib_study(set->items, set->n, set->kind, &opts, &study, &err), ARB_OK, "%s",
                 err.msg);
    arb_calib_set_free(set);
    return study;
}

Test(calibrate, should_take_the_majority_and_call_a_split_a_tie)
{
    int two_to_one[] = {ARB_V_1, ARB_V_1, ARB_V_2};
    int split[] = {ARB_V_1, ARB_V_2, ARB_V_TIE};
    int even[] = {ARB_V_2, ARB_V_1, ARB_V_1, ARB_V_2};
    int yes[] = {ARB_V_TRUE, ARB_V_FALSE};

    cr_assert_eq(arb_calib_majority(two_to_one, 3, 3), ARB_V_1);
    cr_assert_eq(arb_calib_majority(split, 3, 3), ARB_V_TIE);
    cr_assert_eq(arb_calib_majority(even, 4, 3), ARB_V_TIE);
    cr_assert_eq(arb_calib_majority(split + 2, 1, 3), ARB_V_TIE);
    cr_assert_eq(arb_calib_majority(yes, 2, 2), ARB_V_NULL);
}

Test(calibrate, should_measure_each_order_and_position_bias)
{
    cJSON *s = study_of(D "pairs.jsonl", ARB_CALIB_INCONSISTENT_TIE, 0);

    cr_assert_eq(num(s, "n"), 6);
    cr_assert_eq(num(s, "orders/order_12/correct"), 5);
    assert_near(num(s, "orders/order_12/accuracy"), 5.0 / 6.0);
    cr_assert_eq(num(s, "orders/order_12/unresolved"), 1);
    assert_near(num(s, "orders/order_21/accuracy"), 4.0 / 6.0);
    cr_assert_eq(num(s, "position/n"), 5);
    cr_assert_eq(num(s, "position/consistent"), 3);
    assert_near(num(s, "position/consistency"), 0.6);
    assert_near(num(s, "position/kappa_between_orders"), 7.0 / 17.0);
    cr_assert_eq(num(s, "position/first_biased"), 1);
    cr_assert_eq(num(s, "position/second_biased"), 0);
    cJSON_Delete(s);
}

Test(calibrate, should_combine_inconsistent_orders_as_a_tie)
{
    cJSON *s = study_of(D "pairs.jsonl", ARB_CALIB_INCONSISTENT_TIE, 0);
    static const double confusion[3][3] = {{1, 0, 1}, {0, 1, 1}, {0, 0, 1}};
    char path[64];

    cr_assert_str_eq(at(s, "policy")->valuestring, "inconsistent-tie");
    cr_assert_eq(num(s, "combined/correct"), 3);
    cr_assert_eq(num(s, "combined/unresolved"), 1);
    assert_near(num(s, "combined/accuracy"), 0.5);
    assert_near(num(s, "combined/agreement_with_ties"), 0.5);
    cr_assert_eq(num(s, "combined/n_without_ties"), 2);
    assert_near(num(s, "combined/agreement_without_ties"), 1.0);
    assert_near(num(s, "combined/kappa"), 8.0 / 18.0);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            snprintf(path, sizeof(path), "combined/confusion/%d/%d", i, j);
            cr_assert_eq(num(s, path), confusion[i][j], "%s", path);
        }
    assert_near(num(s, "combined/f1/1"), 0.5);
    assert_near(num(s, "combined/f1/2"), 2.0 / 3.0);
    assert_near(num(s, "combined/f1/tie"), 0.5);
    assert_near(num(s, "combined/macro_f1"), 5.0 / 9.0);
    cr_assert(cJSON_IsNull(at(s, "items/5/combined")), "f is unresolved");
    cr_assert_str_eq(at(s, "items/2/combined")->valuestring, "tie");
    cJSON_Delete(s);
}

Test(calibrate, should_count_net_votes_so_one_right_and_one_tie_is_right)
{
    cJSON *s = study_of(D "pairs.jsonl", ARB_CALIB_NET_VOTE, 0);

    cr_assert_str_eq(at(s, "items/3/combined")->valuestring, "2");
    cr_assert_str_eq(at(s, "items/2/combined")->valuestring, "tie");
    cr_assert_eq(num(s, "combined/correct"), 4);
    assert_near(num(s, "combined/agreement_without_ties"), 1.0);
    cr_assert_eq(num(s, "combined/n_without_ties"), 3);
    assert_near(num(s, "combined/kappa"), 12.0 / 17.0);
    cJSON_Delete(s);
}

Test(calibrate, should_count_unparsed_verdicts_as_ties_when_asked)
{
    cJSON *s = study_of(D "pairs.jsonl", ARB_CALIB_INCONSISTENT_TIE, 1);

    cr_assert_str_eq(at(s, "unparsed")->valuestring, "tie");
    cr_assert_eq(num(s, "combined/unresolved"), 0);
    cr_assert_eq(num(s, "combined/correct"), 3);
    assert_near(num(s, "combined/kappa"), 1.0 / 3.0);
    cr_assert_eq(num(s, "orders/order_12/unresolved"), 0);
    cr_assert_eq(num(s, "position/n"), 6);
    cr_assert(cJSON_IsNull(at(s, "items/5/order_12")), "the recorded verdict stays null");
    cJSON_Delete(s);
    s = study_of(D "pairs.jsonl", ARB_CALIB_NET_VOTE, 1);
    cr_assert_eq(num(s, "combined/correct"), 5);
    cr_assert_str_eq(at(s, "items/5/combined")->valuestring, "1");
    cJSON_Delete(s);
}

Test(calibrate, should_report_length_preference)
{
    cJSON *s = study_of(D "pairs.jsonl", ARB_CALIB_INCONSISTENT_TIE, 0);

    /* c has outputs of equal length; e's human label is a tie; d, e are judged ties, f null. */
    cr_assert_eq(num(s, "length/n"), 5);
    cr_assert_eq(num(s, "length/human/n"), 4);
    cr_assert_eq(num(s, "length/human/longer"), 2);
    cr_assert_eq(num(s, "length/judge/n"), 2);
    cr_assert_eq(num(s, "length/judge/longer"), 2);
    cJSON_Delete(s);
}

/*
 * annotators.jsonl: m1 [1,1,2] -> 1; m2 [1,2,tie] -> tie (split); m3 [2,2,2] -> 2;
 * m4 [tie,tie,1] -> tie.  Annotator 1-2: [[1,1,0],[0,1,0],[0,0,1]] -> (12 - 5) / (16 - 5);
 * 1-3: trace 1, chance 5 -> -1/11; 2-3: trace 1, chance 6 -> -2/10.  The judge (one order:
 * 1, tie, 1, tie) agrees with annotators 1 and 2 on 2 of 4, with 3 on 1 of 4.
 */
Test(calibrate, should_study_several_annotators)
{
    cJSON *s = study_of(D "annotators.jsonl", ARB_CALIB_INCONSISTENT_TIE, 0);

    cr_assert_eq(num(s, "human/annotators"), 3);
    cr_assert_eq(num(s, "human/majority/1"), 1);
    cr_assert_eq(num(s, "human/majority/2"), 1);
    cr_assert_eq(num(s, "human/majority/tie"), 2);
    cr_assert_eq(num(s, "human/majority/split"), 1);
    cr_assert_str_eq(at(s, "human/annotator_kappa/0/pair")->valuestring, "1-2");
    assert_near(num(s, "human/annotator_kappa/0/kappa"), 7.0 / 11.0);
    assert_near(num(s, "human/annotator_kappa/0/agreement"), 0.75);
    cr_assert_str_eq(at(s, "human/annotator_kappa/1/pair")->valuestring, "1-3");
    assert_near(num(s, "human/annotator_kappa/1/kappa"), -1.0 / 11.0);
    cr_assert_str_eq(at(s, "human/annotator_kappa/2/pair")->valuestring, "2-3");
    assert_near(num(s, "human/annotator_kappa/2/kappa"), -0.2);
    assert_near(num(s, "human/judge_agreement/0/agreement"), 0.5);
    assert_near(num(s, "human/judge_agreement/1/agreement"), 0.5);
    assert_near(num(s, "human/judge_agreement/2/agreement"), 0.25);
    /* With one order, that order is the verdict: 3 of 4 against the majority. */
    cr_assert_eq(num(s, "combined/correct"), 3);
    assert_near(num(s, "combined/kappa"), 0.6);
    cr_assert_null(cJSON_GetObjectItemCaseSensitive(at(s, "orders"), "order_21"));
    cr_assert(cJSON_IsNull(at(s, "position/consistency")), "no item has both orders");
    cJSON_Delete(s);
}

/* x1 T/T, x2 T/F, x3 F/F, x4 F/F, x5 T/null: 3 of 5; [[1,1],[0,2]] -> (12 - 8) / (16 - 8). */
Test(calibrate, should_study_expectation_labels)
{
    cJSON *s = study_of(D "expectations.jsonl", ARB_CALIB_INCONSISTENT_TIE, 0);

    cr_assert_str_eq(at(s, "kind")->valuestring, "expectation");
    cr_assert_eq(num(s, "correct"), 3);
    assert_near(num(s, "accuracy"), 0.6);
    cr_assert_eq(num(s, "unresolved"), 1);
    assert_near(num(s, "kappa"), 0.5);
    cr_assert_eq(num(s, "confusion/0/0"), 1);
    cr_assert_eq(num(s, "confusion/0/1"), 1);
    cr_assert_eq(num(s, "confusion/1/0"), 0);
    cr_assert_eq(num(s, "confusion/1/1"), 2);
    cJSON_Delete(s);
}

/* The textbook table (Wikipedia, Cohen's kappa): 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no. */
Test(calibrate, should_give_the_known_kappa_of_a_textbook_table)
{
    struct arb_calib_item items[50];
    struct arb_calib_opts opts = {.bootstrap = 50};
    struct arb_err err = {{0}};
    cJSON *s = NULL;
    char ids[50][8];

    memset(items, 0, sizeof(items));
    for (int i = 0; i < 50; i++) {
        snprintf(ids[i], sizeof(ids[i]), "t%d", i);
        items[i].id = ids[i];
        items[i].output_1 = "out";
        items[i].n_human = 1;
        items[i].recorded = 1;
        items[i].human[0] = i < 25 ? ARB_V_TRUE : ARB_V_FALSE;
        items[i].order_12 = (i < 20 || (i >= 25 && i < 35)) ? ARB_V_TRUE : ARB_V_FALSE;
    }
    cr_assert_eq(arb_calib_study(items, 50, ARB_CALIB_EXPECTATION, &opts, &s, &err), ARB_OK, "%s",
                 err.msg);
    assert_near(num(s, "kappa"), 0.4);
    assert_near(num(s, "accuracy"), 0.7);
    cJSON_Delete(s);
}

Test(calibrate, should_reproduce_bootstrap_intervals)
{
    cJSON *a = study_of(D "pairs.jsonl", ARB_CALIB_INCONSISTENT_TIE, 0);
    cJSON *b = study_of(D "pairs.jsonl", ARB_CALIB_INCONSISTENT_TIE, 0);
    double lo = num(a, "combined/bootstrap/accuracy/lo"),
           hi = num(a, "combined/bootstrap/accuracy/hi");

    cr_assert(cJSON_Compare(a, b, 1), "two studies of the same labels differ");
    cr_assert(lo <= 0.5 && hi >= 0.5 && lo < hi, "interval %g..%g", lo, hi);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

static void expect_load_error(const char *file, const char *msg)
{
    struct arb_calib_set *set = NULL;
    struct arb_err err = {{0}};

    cr_assert_neq(arb_calib_load(file, &set, &err), ARB_OK, "%s loaded", file);
    cr_assert_null(set);
    cr_assert(strstr(err.msg, msg), "%s: got '%s', want '%s'", file, err.msg, msg);
}

Test(calibrate, should_locate_errors_in_labels)
{
    expect_load_error(D "bad_human.jsonl",
                      D "bad_human.jsonl:2:56: /human: expected \"1\", \"2\", \"tie\" or a list");
    expect_load_error(D "bad_annotator.jsonl", ":1:67: /human/2: expected \"1\", \"2\" or \"tie\"");
    expect_load_error(D "bad_order.jsonl", ":2:88: /judge/order_13: unknown key 'order_13'");
    expect_load_error(D "duplicate.jsonl", ":2:8: /id: duplicate id 'a' (first on line 1)");
    expect_load_error(D "malformed.jsonl", "malformed.jsonl:2:60: ");
    expect_load_error(D "no-such-file.jsonl", "cannot open labels");
}

Test(calibrate, should_count_items_without_recorded_verdicts)
{
    struct arb_calib_set *set = NULL;
    struct arb_err err = {{0}};

    cr_assert_eq(arb_calib_load(D "online.jsonl", &set, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_calib_unjudged(set), 1);
    cr_assert_eq(set->items[0].order_12, ARB_V_ABSENT);
    cr_assert_eq(strlen(set->sha256), 64);
    arb_calib_set_free(set);
}
