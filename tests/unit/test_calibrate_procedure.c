/*
 * Unit tests for include/arbiter/calibrate.h: studies of the run's procedure
 * (has_final), labels files with outputs that are any JSON, and agreement per
 * criterion.  Figures computed by hand in the comments.
 *
 * The procedure set (human / final / order_12 / order_21):
 *   p1 1 / 1 / 1 / 1      p2 2 / 2 / - / - (the checks decided)   p3 1 / 2 / 2 / 2
 *   p4 tie / tie / 1 / 2 (first-biased; the procedure said tie)   p5 2 / null / null / -
 *   p6 1 / 1 / - / -
 * S1: p1, p2, p4, p6 right -> 4/6, p5 unresolved.  S2 (no tie on either side, p5 has no
 *   verdict): p1, p2, p3, p6 -> 3/4.  Confusion over resolved items (human rows):
 *   [[2,1,0],[0,1,0],[0,0,1]]: kappa = (5*4 - (3*2 + 1*2 + 1*1)) / (25 - 9) = 11/16.
 *   F1 1: P 2/2, R 2/3 -> 0.8; F1 2: P 1/2, R 1/2 -> 0.5; F1 tie: 1; macro 2.3/3.
 * Position, over items with both orders parsed (p1, p3, p4): consistent 2 of 3, p4
 *   first-biased.  order_12: p1, p3, p4, p5 -> 1 right of 4, 1 unresolved; order_21: 1 of 3.
 * Length, p1 ("longer one" / "short": 1 longer) and p3 ("x" / "yy": 2 longer) only (the
 *   others have no outputs): humans pick the longer in 1 of 2, the procedure in 2 of 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/calibrate.h"
#include "calib_fixture.h"

#define D "tests/data/calibrate/"

struct spec {
    const char *id;
    int human, final, o12, o21;
};

static const struct spec procedure[] = {
    {"p1", ARB_V_1, ARB_V_1, ARB_V_1, ARB_V_1},
    {"p2", ARB_V_2, ARB_V_2, ARB_V_ABSENT, ARB_V_ABSENT},
    {"p3", ARB_V_1, ARB_V_2, ARB_V_2, ARB_V_2},
    {"p4", ARB_V_TIE, ARB_V_TIE, ARB_V_1, ARB_V_2},
    {"p5", ARB_V_2, ARB_V_NULL, ARB_V_NULL, ARB_V_ABSENT},
    {"p6", ARB_V_1, ARB_V_1, ARB_V_ABSENT, ARB_V_ABSENT},
};
#define N_PROC (sizeof(procedure) / sizeof(procedure[0]))

static void build(struct arb_calib_item *items, const struct spec *s, size_t n, int has_final)
{
    memset(items, 0, n * sizeof(*items));
    for (size_t i = 0; i < n; i++) {
        items[i].id = (char *)s[i].id;
        items[i].human[0] = s[i].human;
        items[i].n_human = 1;
        items[i].has_final = has_final;
        items[i].final = s[i].final;
        items[i].order_12 = s[i].o12;
        items[i].order_21 = s[i].o21;
    }
    items[0].output_1 = "longer one";
    items[0].output_2 = "short";
    items[2].output_1 = "x";
    items[2].output_2 = "yy";
}

static cJSON *study(const struct arb_calib_item *items, size_t n, int unparsed_tie)
{
    struct arb_calib_opts opts = {.unparsed_tie = unparsed_tie, .bootstrap = 100};
    struct arb_err err = {{0}};
    cJSON *s = NULL;

    cr_assert_eq(arb_calib_study(items, n, ARB_CALIB_PAIRWISE, &opts, &s, &err), ARB_OK, "%s",
                 err.msg);
    return s;
}

static cJSON *study_file(const char *file, struct arb_calib_set **keep)
{
    struct arb_calib_set *set = NULL;
    struct arb_err err = {{0}};
    cJSON *s;

    cr_assert_eq(arb_calib_load(file, &set, &err), ARB_OK, "%s", err.msg);
    s = study(set->items, set->n, 0);
    if (keep)
        *keep = set;
    else
        arb_calib_set_free(set);
    return s;
}

Test(calibrate_procedure, should_measure_the_procedures_verdict_not_the_orders)
{
    struct arb_calib_item items[N_PROC];
    cJSON *s;

    build(items, procedure, N_PROC, 1);
    s = study(items, N_PROC, 0);
    cr_assert_str_eq(cal_at(s, "verdict")->valuestring, "procedure");
    cr_assert(cal_absent(s, "policy"), "no policy combines a procedure's verdicts");
    cr_assert_eq(cal_num(s, "combined/n"), 6);
    cr_assert_eq(cal_num(s, "combined/correct"), 4);
    cr_assert_eq(cal_num(s, "combined/unresolved"), 1);
    cal_assert_near(cal_num(s, "combined/agreement_with_ties"), 4.0 / 6.0);
    cr_assert_eq(cal_num(s, "combined/n_without_ties"), 4);
    cal_assert_near(cal_num(s, "combined/agreement_without_ties"), 0.75);
    cal_assert_near(cal_num(s, "combined/kappa"), 11.0 / 16.0);
    cr_assert_eq(cal_num(s, "combined/confusion/0/0"), 2);
    cr_assert_eq(cal_num(s, "combined/confusion/0/1"), 1);
    cr_assert_eq(cal_num(s, "combined/confusion/1/1"), 1);
    cr_assert_eq(cal_num(s, "combined/confusion/2/2"), 1);
    cal_assert_near(cal_num(s, "combined/f1/1"), 0.8);
    cal_assert_near(cal_num(s, "combined/macro_f1"), 2.3 / 3.0);
    /* p4's orders disagree (inconsistent-tie would say tie too); p3's agree on the wrong side. */
    cr_assert_str_eq(cal_at(s, "items/3/combined")->valuestring, "tie");
    cr_assert(cJSON_IsNull(cal_at(s, "items/4/combined")), "p5 has no verdict");
    cr_assert(cal_absent(s, "items/1/order_12"), "p2 was decided without a judge");
    cal_assert_schema(s);
    cJSON_Delete(s);
}

Test(calibrate_procedure, should_keep_position_figures_to_items_with_both_orders)
{
    struct arb_calib_item items[N_PROC];
    cJSON *s;

    build(items, procedure, N_PROC, 1);
    s = study(items, N_PROC, 0);
    cr_assert_eq(cal_num(s, "position/n"), 3);
    cr_assert_eq(cal_num(s, "position/consistent"), 2);
    cr_assert_eq(cal_num(s, "position/first_biased"), 1);
    cr_assert_eq(cal_num(s, "position/second_biased"), 0);
    cr_assert_eq(cal_num(s, "orders/order_12/n"), 4);
    cr_assert_eq(cal_num(s, "orders/order_12/correct"), 1);
    cr_assert_eq(cal_num(s, "orders/order_12/unresolved"), 1);
    cr_assert_eq(cal_num(s, "orders/order_21/n"), 3);
    cr_assert_eq(cal_num(s, "orders/order_21/correct"), 1);
    cr_assert_eq(cal_num(s, "length/n"), 2);
    cr_assert_eq(cal_num(s, "length/human/longer"), 1);
    cr_assert_eq(cal_num(s, "length/judge/n"), 2);
    cr_assert_eq(cal_num(s, "length/judge/longer"), 2);
    cJSON_Delete(s);
}

/* --unparsed tie speaks of a judge's unparsable order; a procedure without a verdict had none. */
Test(calibrate_procedure, should_leave_a_procedure_without_verdict_unresolved)
{
    struct arb_calib_item items[N_PROC];
    cJSON *s;

    build(items, procedure, N_PROC, 1);
    s = study(items, N_PROC, 1);
    cr_assert_eq(cal_num(s, "combined/unresolved"), 1);
    cr_assert_eq(cal_num(s, "combined/correct"), 4);
    cJSON_Delete(s);
}

Test(calibrate_procedure, should_say_when_the_judges_orders_were_measured)
{
    cJSON *s = study_file(D "pairs.jsonl", NULL);

    cr_assert_str_eq(cal_at(s, "verdict")->valuestring, "judge_orders");
    cr_assert_str_eq(cal_at(s, "policy")->valuestring, "inconsistent-tie");
    cr_assert(cal_absent(s, "criteria"), "no item has criterion labels");
    cal_assert_schema(s);
    cJSON_Delete(s);
}

Test(calibrate_procedure, should_refuse_a_mix_of_procedure_and_orders)
{
    struct arb_calib_item items[N_PROC];
    struct arb_err err = {{0}};
    cJSON *s = NULL;

    build(items, procedure, N_PROC, 1);
    items[2].has_final = 0;
    cr_assert_eq(arb_calib_study(items, N_PROC, ARB_CALIB_PAIRWISE, NULL, &s, &err), ARB_EUSAGE);
    cr_assert_null(s);
    cr_assert(strstr(err.msg, "item 2 ('p3') lacks the procedure's verdict"), "%s", err.msg);
}

Test(calibrate_procedure, should_refuse_items_with_nothing_to_measure)
{
    struct arb_calib_item items[N_PROC];
    struct arb_err err = {{0}};
    cJSON *s = NULL;

    /* Without the procedure's verdict, p2 and p6 have no order to combine. */
    build(items, procedure, N_PROC, 0);
    cr_assert_eq(arb_calib_study(items, N_PROC, ARB_CALIB_PAIRWISE, NULL, &s, &err), ARB_EUSAGE);
    cr_assert(strstr(err.msg, "item 1 ('p2') has no verdict"), "%s", err.msg);
    build(items, procedure, N_PROC, 1);
    items[5].final = ARB_V_ABSENT;
    cr_assert_eq(arb_calib_study(items, N_PROC, ARB_CALIB_PAIRWISE, NULL, &s, &err), ARB_EUSAGE);
    cr_assert(strstr(err.msg, "item 5 ('p6')"), "%s", err.msg);
}

Test(calibrate_procedure, should_measure_an_expectation_procedure)
{
    struct arb_calib_item items[3];
    struct arb_err err = {{0}};
    cJSON *s = NULL;

    memset(items, 0, sizeof(items));
    for (int i = 0; i < 3; i++) {
        items[i].id = i == 0 ? "x1" : i == 1 ? "x2" : "x3";
        items[i].n_human = 1;
        items[i].human[0] = ARB_V_TRUE;
        items[i].has_final = 1;
        items[i].order_12 = items[i].order_21 = ARB_V_ABSENT;
    }
    items[0].final = ARB_V_TRUE;
    items[1].final = ARB_V_FALSE;
    items[2].final = ARB_V_NULL;
    cr_assert_eq(arb_calib_study(items, 3, ARB_CALIB_EXPECTATION, NULL, &s, &err), ARB_OK, "%s",
                 err.msg);
    cr_assert_str_eq(cal_at(s, "verdict")->valuestring, "procedure");
    cr_assert_eq(cal_num(s, "correct"), 1);
    cr_assert_eq(cal_num(s, "unresolved"), 1);
    cr_assert(cJSON_IsFalse(cal_at(s, "items/1/judge")));
    cal_assert_schema(s);
    cJSON_Delete(s);
}

/* ---- outputs that are any JSON ----------------------------------------------------------- */

/* json_outputs.jsonl: a boolean pair, numbers, an object and null; "expected" kept. */
Test(calibrate_procedure, should_read_any_json_output_as_its_canonical_text)
{
    struct arb_calib_set *set = NULL;
    struct arb_err err = {{0}};
    cJSON *s;

    cr_assert_eq(arb_calib_load(D "json_outputs.jsonl", &set, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(set->n, 3);
    cr_assert_str_eq(set->items[0].output_1, "true");
    cr_assert_str_eq(set->items[0].output_2, "false");
    cr_assert_str_eq(set->items[0].prompt, "{\"a\":1,\"q\":\"is 2 even?\"}");
    cr_assert(cJSON_IsTrue(set->items[0].expected), "expected true is kept");
    cr_assert_str_eq(set->items[1].output_1, "100");
    cr_assert_str_eq(set->items[1].output_2, "3.5");
    cr_assert_str_eq(set->items[1].prompt, "plain text");
    cr_assert_null(set->items[1].expected);
    cr_assert_str_eq(set->items[2].output_1, "{\"a\":\"\xc3\xa9\",\"b\":[1,2]}");
    cr_assert_str_eq(set->items[2].output_2, "null");
    cr_assert_null(set->items[2].prompt);
    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(set->items[2].expected, "x")),
                 2);
    s = study(set->items, set->n, 0);
    /* "true" / "false": 4 / 5 code points; "100" / "3.5" equal; the object's 19 / "null" 4. */
    cr_assert_eq(cal_num(s, "length/n"), 2);
    cJSON_Delete(s);
    arb_calib_set_free(set);
}

Test(calibrate_procedure, should_read_an_expectation_output_that_is_json)
{
    struct arb_calib_set *set = NULL;
    struct arb_err err = {{0}};

    cr_assert_eq(arb_calib_load(cal_labels_file("{\"id\": \"x\", \"output\": {\"ok\": true, "
                                                "\"n\": 1.0}, \"expectation\": \"says ok\", "
                                                "\"human\": true, \"judge\": true}\n"),
                                &set, &err),
                 ARB_OK, "%s", err.msg);
    cal_unlink();
    cr_assert_eq(set->kind, ARB_CALIB_EXPECTATION);
    cr_assert_str_eq(set->items[0].output_1, "{\"n\":1,\"ok\":true}");
    arb_calib_set_free(set);
}

/* ---- criteria ------------------------------------------------------------------------------ */

/*
 * criteria.jsonl (human, criteria) and the verdicts set here:
 *   c1 accuracy 1 (verdict 1), style [2,2,1] -> 2 (verdict 2)
 *   c2 accuracy 2 (verdict 1), style tie (verdict tie)
 *   c3 accuracy 1 (verdict null)
 *   c4 style 1 (verdict unknown)      c5 no criteria
 * accuracy: 3 items, 1 right (S1 1/3), c3 unresolved; S2 over c1, c2: 1/2; confusion
 *   [[1,0,0],[1,0,0],[0,0,0]]: kappa (2*1 - 2*1) / (4 - 2) = 0.
 * style: c4 has no verdict: 2 items of 3 labelled, both right; S2 over c1: 1; kappa 1.
 */
Test(calibrate_procedure, should_measure_agreement_per_criterion)
{
    struct arb_calib_set *set = NULL;
    cJSON *s;
    const cJSON *crit;

    s = study_file(D "criteria.jsonl", &set);
    cJSON_Delete(s);
    cr_assert_eq(set->items[0].n_crit, 2);
    cr_assert_str_eq(set->items[0].crit[1].name, "style");
    cr_assert_eq(set->items[0].crit[1].n_human, 3);
    cr_assert_eq(set->items[0].crit[1].verdict, ARB_V_ABSENT);
    set->items[0].crit[0].verdict = ARB_V_1;
    set->items[0].crit[1].verdict = ARB_V_2;
    set->items[1].crit[0].verdict = ARB_V_1;
    set->items[1].crit[1].verdict = ARB_V_TIE;
    set->items[2].crit[0].verdict = ARB_V_NULL;
    s = study(set->items, set->n, 0);
    crit = cal_at(s, "criteria");
    cr_assert_str_eq(crit->child->string, "accuracy", "criteria in order of first appearance");
    cr_assert_eq(cal_num(crit, "accuracy/n"), 3);
    cr_assert_eq(cal_num(crit, "accuracy/labelled"), 3);
    cr_assert_eq(cal_num(crit, "accuracy/unresolved"), 1);
    cal_assert_near(cal_num(crit, "accuracy/agreement_with_ties"), 1.0 / 3.0);
    cr_assert_eq(cal_num(crit, "accuracy/n_without_ties"), 2);
    cal_assert_near(cal_num(crit, "accuracy/agreement_without_ties"), 0.5);
    cal_assert_near(cal_num(crit, "accuracy/kappa"), 0.0);
    cr_assert_eq(cal_num(crit, "accuracy/confusion/1/0"), 1);
    cr_assert_eq(cal_num(crit, "style/n"), 2);
    cr_assert_eq(cal_num(crit, "style/labelled"), 3);
    cal_assert_near(cal_num(crit, "style/agreement_with_ties"), 1.0);
    cal_assert_near(cal_num(crit, "style/agreement_without_ties"), 1.0);
    cal_assert_near(cal_num(crit, "style/kappa"), 1.0);
    cr_assert_str_eq(cal_at(s, "items/0/criteria/style/human")->valuestring, "2");
    cr_assert_str_eq(cal_at(s, "items/0/criteria/style/verdict")->valuestring, "2");
    cr_assert(cal_absent(s, "items/3/criteria/style/verdict"), "c4's verdict is unknown");
    cr_assert(cal_absent(s, "items/4/criteria"), "c5 has no criteria");
    cal_assert_schema(s);
    cJSON_Delete(s);
    arb_calib_set_free(set);
}

static void expect_error(const char *text, enum arb_status want, const char *msg)
{
    struct arb_calib_set *set = NULL;
    struct arb_err err = {{0}};
    enum arb_status st = arb_calib_load(cal_labels_file(text), &set, &err);

    cal_unlink();
    cr_assert_eq(st, want, "%s: got %d (%s)", text, st, err.msg);
    cr_assert_null(set);
    cr_assert(strstr(err.msg, msg), "got '%s', want '%s'", err.msg, msg);
}

Test(calibrate_procedure, should_locate_bad_criteria_and_outputs)
{
    static const char pair[] = "{\"id\": \"a\", \"output_1\": \"x\", \"output_2\": \"y\", "
                               "\"human\": \"1\", ";
    char line[512];

    snprintf(line, sizeof(line), "%s\"criteria\": {\"accuracy\": \"3\"}}\n", pair);
    expect_error(line, ARB_ESCHEMA,
                 ":1:86: /criteria/accuracy: expected \"1\", \"2\", \"tie\" or a list of them");
    snprintf(line, sizeof(line), "%s\"criteria\": {\"style\": [\"1\", \"x\"]}}\n", pair);
    expect_error(line, ARB_ESCHEMA, ":1:89: /criteria/style/1: expected \"1\", \"2\" or \"tie\"");
    snprintf(line, sizeof(line), "%s\"criteria\": {\"style\": []}}\n", pair);
    expect_error(line, ARB_ESCHEMA, ":1:83: /criteria/style: expected at least one label");
    snprintf(line, sizeof(line), "%s\"criteria\": [\"style\"]}\n", pair);
    expect_error(line, ARB_ESCHEMA, ":1:73: /criteria: expected an object");
    expect_error("{\"id\": \"a\", \"output_2\": \"y\", \"human\": \"1\"}\n", ARB_ESCHEMA,
                 ":1:1: missing \"output_1\"");
    /* An output has no RFC 8785 text when it is no double: the parser says so first. */
    expect_error("{\"id\": \"a\", \"output_1\": 1e999, \"output_2\": \"y\", \"human\": \"1\"}\n",
                 ARB_EPARSE, ":1:25: number out of range of a double at '/output_1'");
    snprintf(line, sizeof(line), "%s\"expectd\": 1}\n", pair);
    expect_error(line, ARB_ESCHEMA, ":1:61: /expectd: unknown key 'expectd'");
}
