/*
 * Unit tests for include/arbiter/calibrate.h: labels that name a run's
 * systems (arb_calib_load_named), agreement between annotators (Cohen's and
 * Fleiss' kappa, Krippendorff's alpha, checked against published worked
 * examples), and the markdown of a study of the procedure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/calibrate.h"
#include "../../src/calibrate/calib_int.h"
#include "calib_fixture.h"

#define D "tests/data/calibrate/"

static const char *const systems[2] = {"baseline", "candidate"};

static struct arb_calib_set *load_named(const char *file)
{
    struct arb_calib_set *set = NULL;
    struct arb_err err = {{0}};

    cr_assert_eq(arb_calib_load_named(file, systems, &set, &err), ARB_OK, "%s", err.msg);
    return set;
}

/* Every item decided by the procedure: ARB_V_1 (baseline), its criteria likewise. */
static cJSON *procedure_study(struct arb_calib_set *set)
{
    struct arb_calib_opts opts = {.bootstrap = 50};
    struct arb_err err = {{0}};
    cJSON *s = NULL;

    for (size_t i = 0; i < set->n; i++) {
        set->items[i].has_final = 1;
        set->items[i].final = ARB_V_1;
        for (size_t k = 0; k < set->items[i].n_crit; k++)
            set->items[i].crit[k].verdict = ARB_V_1;
    }
    cr_assert_eq(arb_calib_study(set->items, set->n, set->kind, &opts, &s, &err), ARB_OK, "%s",
                 err.msg);
    return s;
}

/*
 * named.jsonl: case-1 candidate; case-2 baseline (with a note); case-3 tie;
 * case-4 [candidate, TIE, candidate], criteria accuracy baseline, tone [tie, candidate].
 */
Test(calibrate_named, should_map_system_names_to_numbered_labels)
{
    struct arb_calib_set *set = load_named(D "named.jsonl");
    const struct arb_calib_item *it = set->items;

    cr_assert_eq(set->kind, ARB_CALIB_PAIRWISE);
    cr_assert_eq(set->n, 4);
    cr_assert_eq(strlen(set->sha256), 64);
    cr_assert_str_eq(it[0].id, "case-1");
    cr_assert_eq(it[0].human[0], ARB_V_2);
    cr_assert_eq(it[1].human[0], ARB_V_1);
    cr_assert_eq(it[2].human[0], ARB_V_TIE);
    cr_assert_eq(it[3].n_human, 3);
    cr_assert_eq(it[3].human[0], ARB_V_2);
    cr_assert_eq(it[3].human[1], ARB_V_TIE);
    cr_assert_eq(it[3].human[2], ARB_V_2);
    cr_assert_eq(it[3].n_crit, 2);
    cr_assert_str_eq(it[3].crit[0].name, "accuracy");
    cr_assert_eq(it[3].crit[0].human[0], ARB_V_1);
    cr_assert_eq(it[3].crit[1].n_human, 2);
    cr_assert_eq(it[3].crit[1].human[1], ARB_V_2);
    cr_assert_eq(it[3].crit[1].verdict, ARB_V_ABSENT);
    for (size_t i = 0; i < set->n; i++) {
        cr_assert_null(it[i].output_1);
        cr_assert_null(it[i].output_2);
        cr_assert_eq(it[i].order_12, ARB_V_ABSENT);
        cr_assert_eq(it[i].order_21, ARB_V_ABSENT);
        cr_assert_eq(it[i].has_final, 0);
    }
    arb_calib_set_free(set);
}

/* With the procedure's verdicts filled in, a study needs neither outputs nor orders. */
Test(calibrate_named, should_study_labels_without_outputs)
{
    struct arb_calib_set *set = load_named(D "named.jsonl");
    cJSON *s = procedure_study(set);

    cr_assert_eq(arb_calib_unjudged(set), 0);
    cr_assert_str_eq(cal_at(s, "verdict")->valuestring, "procedure");
    /* Verdict 1 everywhere: right on case-2 only (case-4's majority is candidate). */
    cr_assert_eq(cal_num(s, "combined/correct"), 1);
    cr_assert_eq(cal_num(s, "length/n"), 0);
    cr_assert_eq(cal_num(s, "position/n"), 0);
    cr_assert_eq(cal_num(s, "criteria/accuracy/n"), 1);
    cal_assert_near(cal_num(s, "criteria/accuracy/agreement_with_ties"), 1.0);
    /* tone's labels [tie, candidate] split evenly: the human label is a tie. */
    cal_assert_near(cal_num(s, "criteria/tone/agreement_with_ties"), 0.0);
    cal_assert_schema(s);
    cJSON_Delete(s);
    arb_calib_set_free(set);
}

static void expect_named_error(const char *text, enum arb_status want, const char *msg)
{
    struct arb_calib_set *set = NULL;
    struct arb_err err = {{0}};
    enum arb_status st = arb_calib_load_named(cal_labels_file(text), systems, &set, &err);

    cal_unlink();
    cr_assert_eq(st, want, "%s: got %d (%s)", text, st, err.msg);
    cr_assert_null(set);
    cr_assert(strstr(err.msg, msg), "got '%s', want '%s'", err.msg, msg);
}

Test(calibrate_named, should_locate_a_label_that_names_no_system)
{
    expect_named_error(
        "{\"id\": \"a\", \"human\": \"tie\"}\n{\"id\": \"b\", \"human\": \"candidat\"}\n",
        ARB_ESCHEMA,
        ":2:22: /human: 'candidat' is not a system of this run (expected "
        "\"baseline\", \"candidate\" or \"tie\")");
    /* Names match as the suite spells them. */
    expect_named_error("{\"id\": \"a\", \"human\": [\"baseline\", \"Candidate\"]}\n", ARB_ESCHEMA,
                       ":1:35: /human/1: 'Candidate' is not a system of this run");
    expect_named_error("{\"id\": \"a\", \"human\": 2}\n", ARB_ESCHEMA,
                       ":1:22: /human: expected \"baseline\", \"candidate\", \"tie\" or a list of "
                       "them");
    expect_named_error("{\"id\": \"a\", \"human\": \"tie\", \"criteria\": {\"tone\": [\"x\"]}}\n",
                       ARB_ESCHEMA, ":1:51: /criteria/tone/0: 'x' is not a system of this run");
}

Test(calibrate_named, should_locate_what_a_line_for_a_run_cannot_hold)
{
    expect_named_error("{\"id\": \"a\", \"human\": \"tie\", \"output_1\": \"x\"}\n", ARB_ESCHEMA,
                       ":1:29: /output_1: unknown key 'output_1' (expected: id, human, criteria, "
                       "note (labels for a run))");
    expect_named_error("{\"id\": \"a\", \"human\": \"tie\"}\n{\"id\": \"a\", \"human\": \"tie\"}\n",
                       ARB_ESCHEMA, ":2:8: /id: duplicate id 'a' (first on line 1)");
    expect_named_error("{\"id\": \"a\", \"human\": \"tie\", \"note\": 3}\n", ARB_ESCHEMA,
                       ":1:37: /note: expected a string");
    expect_named_error("{\"id\": \"a\"}\n", ARB_ESCHEMA, ":1:1: missing \"human\"");
    expect_named_error("[\"a\"]\n", ARB_ESCHEMA, ":1:1: expected an object");
    expect_named_error("{\"id\": \"a\", \"human\": }\n", ARB_EPARSE, ":1:");
}

Test(calibrate_named, should_refuse_systems_it_cannot_tell_from_a_tie)
{
    const char *tie[2] = {"tie", "candidate"}, *same[2] = {"a", "a"}, *none[2] = {"a", NULL};
    struct arb_calib_set *set = NULL;
    struct arb_err err = {{0}};

    cr_assert_eq(arb_calib_load_named(D "named.jsonl", tie, &set, &err), ARB_EUSAGE);
    cr_assert(strstr(err.msg, "system 'tie' cannot be named in labels"), "%s", err.msg);
    cr_assert_eq(arb_calib_load_named(D "named.jsonl", same, &set, &err), ARB_EUSAGE);
    cr_assert_eq(arb_calib_load_named(D "named.jsonl", none, &set, &err), ARB_EUSAGE);
    cr_assert_eq(arb_calib_load_named(D "named.jsonl", NULL, &set, &err), ARB_EUSAGE);
    cr_assert_null(set);
}

/* ---- agreement between annotators --------------------------------------------------------- */

/*
 * Krippendorff, K. (2011). Computing Krippendorff's Alpha-Reliability. Annenberg School for
 * Communication, University of Pennsylvania, section C ("Nominal data, any number of
 * observers, missing data"): 4 observers, 12 units, values 1-5 (0 here: missing).
 * Alpha (nominal) = 0.743.
 */
Test(calibrate_named, should_give_krippendorffs_worked_example)
{
    static const int data[4][12] = {
        {1, 2, 3, 3, 2, 1, 4, 1, 2, 0, 0, 0},
        {1, 2, 3, 3, 2, 2, 4, 1, 2, 5, 0, 3},
        {0, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 0},
        {1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, 0},
    };
    size_t counts[12 * 5] = {0};

    for (int o = 0; o < 4; o++)
        for (int u = 0; u < 12; u++)
            if (data[o][u])
                counts[u * 5 + (size_t)(data[o][u] - 1)]++;
    cr_assert(fabs(calib_krippendorff_alpha(counts, 12, 5) - 0.743) < 0.0005, "alpha %.6f",
              calib_krippendorff_alpha(counts, 12, 5));
    /* Exactly: 1 - (40 - 1) * 4 / 608 (its coincidence table: n = 40, D_o 4/40). */
    cal_assert_near(calib_krippendorff_alpha(counts, 12, 5), 1.0 - 39.0 * 4.0 / 608.0);
}

/*
 * Wikipedia, "Fleiss' kappa", worked example: 14 raters put 10 subjects in 5 categories;
 * P-bar 0.378, P_e 0.213, kappa 0.210.
 */
Test(calibrate_named, should_give_the_fleiss_kappa_of_the_wikipedia_example)
{
    static const size_t counts[10 * 5] = {
        0, 0, 0, 0, 14, 0, 2, 6, 4, 2, 0, 0, 3, 5, 6, 0, 3, 9, 2, 0, 2, 2, 8, 1, 1,
        7, 7, 0, 0, 0,  3, 2, 6, 3, 0, 2, 5, 3, 2, 2, 6, 5, 2, 1, 0, 0, 2, 2, 3, 7,
    };

    cr_assert(fabs(calib_fleiss_kappa(counts, 10, 5) - 0.210) < 0.0005, "kappa %.6f",
              calib_fleiss_kappa(counts, 10, 5));
    cr_assert(isnan(calib_fleiss_kappa(counts, 0, 5)), "no units: undefined");
}

Test(calibrate_named, should_leave_undefined_agreement_undefined)
{
    static const size_t one_value[2 * 3] = {2, 0, 0, 3, 0, 0};
    static const size_t unequal[2 * 3] = {2, 0, 0, 1, 2, 0};
    static const size_t lone[2 * 3] = {1, 0, 0, 0, 1, 0};

    cr_assert(isnan(calib_krippendorff_alpha(one_value, 2, 3)), "one value: no disagreement");
    cr_assert(isnan(calib_fleiss_kappa(one_value, 2, 3)), "one category");
    cr_assert(isnan(calib_fleiss_kappa(unequal, 2, 3)), "Fleiss needs equal rater counts");
    cr_assert(isnan(calib_krippendorff_alpha(lone, 2, 3)), "no pairable unit");
}

/*
 * annotators.jsonl (3 annotators, 4 items): m1 [1,1,2], m2 [1,2,tie], m3 [2,2,2],
 * m4 [tie,tie,1].  Fleiss: P-bar (2/6 + 0 + 1 + 2/6) / 4 = 5/12; shares 4/12, 5/12, 3/12,
 * P_e 50/144; kappa (5/12 - 25/72) / (47/72) = 5/47.  Alpha: n 12, disagreement
 * 2 + 3 + 0 + 2 = 7, expected 4*8 + 5*7 + 3*9 = 94: 1 - 11 * 7 / 94 = 17/94.
 */
Test(calibrate_named, should_report_fleiss_kappa_and_alpha_for_three_annotators)
{
    struct arb_calib_set *set = NULL;
    struct arb_calib_opts opts = {.bootstrap = 50};
    struct arb_err err = {{0}};
    cJSON *s = NULL;

    cr_assert_eq(arb_calib_load(D "annotators.jsonl", &set, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_calib_study(set->items, set->n, set->kind, &opts, &s, &err), ARB_OK, "%s",
                 err.msg);
    cr_assert_eq(cal_num(s, "human/n_items_multi"), 4);
    cr_assert_str_eq(cal_at(s, "human/kappa_kind")->valuestring, "fleiss");
    cal_assert_near(cal_num(s, "human/kappa"), 5.0 / 47.0);
    cr_assert_eq(cal_num(s, "human/kappa_n"), 4);
    cr_assert_eq(cal_num(s, "human/kappa_annotators"), 3);
    cal_assert_near(cal_num(s, "human/alpha"), 17.0 / 94.0);
    cr_assert_eq(cal_num(s, "human/alpha_n"), 4);
    cr_assert_eq(cal_num(s, "human/majority/split"), 1);
    cal_assert_schema(s);
    cJSON_Delete(s);
    arb_calib_set_free(set);
}

/*
 * Two annotators: [1,1], [2,2], [1,2], [tie,tie], and [1] (one label, left out).  Cohen over
 * the 4: [[1,1,0],[0,1,0],[0,0,1]] -> (4*3 - 5) / (16 - 5) = 7/11.  Alpha: disagreement 2
 * (the [1,2] pair), margins 3, 3, 2 of n 8: 1 - 7 * 2 / 42 = 2/3.
 */
Test(calibrate_named, should_report_cohens_kappa_for_two_annotators)
{
    static const int labels[5][2] = {{ARB_V_1, ARB_V_1},
                                     {ARB_V_2, ARB_V_2},
                                     {ARB_V_1, ARB_V_2},
                                     {ARB_V_TIE, ARB_V_TIE},
                                     {ARB_V_1, -1}};
    struct arb_calib_item items[5];
    struct arb_err err = {{0}};
    cJSON *s = NULL;

    memset(items, 0, sizeof(items));
    for (int i = 0; i < 5; i++) {
        items[i].id = "i";
        items[i].human[0] = labels[i][0];
        items[i].human[1] = labels[i][1];
        items[i].n_human = labels[i][1] < 0 ? 1 : 2;
        items[i].has_final = 1;
        items[i].final = ARB_V_1;
        items[i].order_12 = items[i].order_21 = ARB_V_ABSENT;
    }
    cr_assert_eq(arb_calib_study(items, 5, ARB_CALIB_PAIRWISE, NULL, &s, &err), ARB_OK, "%s",
                 err.msg);
    cr_assert_str_eq(cal_at(s, "human/kappa_kind")->valuestring, "cohen");
    cal_assert_near(cal_num(s, "human/kappa"), 7.0 / 11.0);
    cal_assert_near(cal_num(s, "human/annotator_kappa/0/kappa"), 7.0 / 11.0);
    cr_assert_eq(cal_num(s, "human/kappa_n"), 4);
    cr_assert_eq(cal_num(s, "human/n_items_multi"), 4);
    cal_assert_near(cal_num(s, "human/alpha"), 2.0 / 3.0);
    cJSON_Delete(s);
}

/* Fleiss' kappa is over the items with the most common number of labels (3 here, not 2). */
Test(calibrate_named, should_take_fleiss_kappa_over_the_usual_number_of_labels)
{
    struct arb_calib_item items[3];
    struct arb_err err = {{0}};
    cJSON *s = NULL;

    memset(items, 0, sizeof(items));
    for (int i = 0; i < 3; i++) {
        items[i].id = "i";
        items[i].n_human = i == 2 ? 2 : 3;
        items[i].human[0] = items[i].human[1] = items[i].human[2] = i == 1 ? ARB_V_2 : ARB_V_1;
        items[i].has_final = 1;
        items[i].final = ARB_V_1;
        items[i].order_12 = items[i].order_21 = ARB_V_ABSENT;
    }
    cr_assert_eq(arb_calib_study(items, 3, ARB_CALIB_PAIRWISE, NULL, &s, &err), ARB_OK, "%s",
                 err.msg);
    cr_assert_eq(cal_num(s, "human/kappa_annotators"), 3);
    cr_assert_eq(cal_num(s, "human/kappa_n"), 2);
    cal_assert_near(cal_num(s, "human/kappa"), 1.0);
    cr_assert_eq(cal_num(s, "human/alpha_n"), 3);
    cal_assert_near(cal_num(s, "human/alpha"), 1.0);
    cJSON_Delete(s);
}

/* ---- markdown ------------------------------------------------------------------------------ */

Test(calibrate_named, should_say_in_markdown_what_was_measured)
{
    struct arb_calib_set *set = load_named(D "named.jsonl");
    cJSON *s = procedure_study(set);
    struct arb_buf md;
    static const char *const want[] = {
        "Verdict measured: the run's procedure",
        "## Criteria",
        "| accuracy | 1 | 1 |",
        "Agreement between annotators: Fleiss' kappa",
        "Krippendorff's alpha",
        "No item has two outputs of different lengths.",
        "- **verdict measured**",
        "- **criteria**",
    };

    arb_buf_init(&md, 0);
    cr_assert_eq(arb_calib_markdown(s, &md), ARB_OK);
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        cr_assert(strstr(md.ptr, want[i]), "no '%s' in:\n%s", want[i], md.ptr);
    cr_assert_null(strstr(md.ptr, ", policy "), "a procedure study has no policy:\n%s", md.ptr);
    arb_buf_release(&md);
    cJSON_Delete(s);
    arb_calib_set_free(set);
}
