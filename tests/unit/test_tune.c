/*
 * Unit tests for the grey-band tuner (calibrate.h, "tuning a check's grey
 * band"): small searches computed by hand, a brute-force cross-check, and the
 * labels file end to end.
 *
 * Cut values: the shortest decimal strictly between two neighbouring distinct
 * scores, nearest their midpoint: 0.35 between 0.3 and 0.4, 0.8 between 0.75
 * and 1 (the threshold may sit above the highest score when it is below 1).
 *
 * tests/data/tune/labels.jsonl, levenshtein against "kitten" (P should pass, F fail):
 *   dog 0 F, sitting 4/7 F, kitty 2/3 P, kitchen 5/7 F, mitten 5/6 P, bitten 5/6 F,
 *   kitten. 6/7 P, kitten 1 P.
 *   Target 0.95: every auto-decision must be right (8/9 < 0.95), so auto-fail the
 *   pure-F prefix {0, 4/7} (fail_below between 4/7 and 2/3: 0.6) and auto-pass the
 *   pure-P suffix {6/7, 1} (threshold between 5/6 and 6/7: 0.85): 4 of 8 escalated.
 *   Single thresholds: 0.6, 0.8 and 0.85 each agree on 6 of 8; the higher wins: 0.85
 *   (auto-pass 2 P; auto-fail 2 P, 4 F).  Target 0.75: that single reaches it, 0 escalated.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/calibrate.h"
#include "arbiter/json.h"

#define D "tests/data/tune/"

#define assert_near(actual, expected)                                                              \
    cr_assert(fabs((double)(actual) - (double)(expected)) <= 1e-9, "%s = %.17g, expected %.17g",   \
              #actual, (double)(actual), (double)(expected))

static struct arb_tune_result search(const double *s, const int *h, size_t n, double target)
{
    struct arb_tune_result r;
    struct arb_err err = {{0}};

    cr_assert_eq(arb_tune_search(s, h, n, target, &r, &err), ARB_OK, "%s", err.msg);
    return r;
}

static size_t escalated(const struct arb_tune_band *b)
{
    return b->escalated[0] + b->escalated[1];
}

Test(tune, should_find_a_clean_cut_when_the_labels_separate)
{
    double s[] = {0.8, 0.2, 0.6, 0.4};
    int h[] = {1, 0, 1, 0};
    struct arb_tune_result r = search(s, h, 4, 0.95);

    cr_assert(r.reached);
    cr_assert_eq(r.n, 4);
    cr_assert_eq(r.human_pass, 2);
    cr_assert_eq(r.human_fail, 2);
    assert_near(r.band.threshold, 0.5);
    assert_near(r.band.fail_below, 0.5);
    assert_near(r.band.agreement, 1.0);
    assert_near(r.band.escalation, 0.0);
    cr_assert_eq(r.band.pass[1], 2);
    cr_assert_eq(r.band.fail[0], 2);
    cr_assert_eq(r.band.pass[0] + r.band.fail[1], 0);
    assert_near(r.single.threshold, 0.5);
    assert_near(r.single.agreement, 1.0);
}

/* 0.1 F, 0.2 F, 0.3 F, 0.4 P, 0.5 F, 0.6 P, 0.7 F, 0.8 P, 0.9 P, 1 P */
static const double overlap_s[] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
static const int overlap_h[] = {0, 0, 0, 1, 0, 1, 0, 1, 1, 1};

Test(tune, should_escalate_the_overlap_to_reach_the_target)
{
    struct arb_tune_result r = search(overlap_s, overlap_h, 10, 0.95);

    /* 9 of 10 is 0.9: every decision must be right; the longest pure prefix of F
     * and suffix of P are 3 each, so 0.4 .. 0.7 are escalated */
    cr_assert(r.reached);
    assert_near(r.band.fail_below, 0.35);
    assert_near(r.band.threshold, 0.75);
    assert_near(r.band.agreement, 1.0);
    assert_near(r.band.escalation, 0.4);
    cr_assert_eq(r.band.pass[1], 3);
    cr_assert_eq(r.band.pass[0], 0);
    cr_assert_eq(r.band.fail[0], 3);
    cr_assert_eq(r.band.fail[1], 0);
    cr_assert_eq(r.band.escalated[1], 2);
    cr_assert_eq(r.band.escalated[0], 2);
    /* singles: 0.35, 0.55 and 0.75 each get 8 of 10 right; the highest wins */
    assert_near(r.single.threshold, 0.75);
    assert_near(r.single.fail_below, 0.75);
    assert_near(r.single.agreement, 0.8);
    cr_assert_eq(r.single.pass[1], 3);
    cr_assert_eq(r.single.fail[1], 2);
    cr_assert_eq(r.single.fail[0], 5);
}

Test(tune, should_take_no_grey_band_when_a_single_threshold_reaches_the_target)
{
    struct arb_tune_result r = search(overlap_s, overlap_h, 10, 0.8);

    cr_assert(r.reached);
    cr_assert_eq(escalated(&r.band), 0);
    assert_near(r.band.threshold, 0.75);
    assert_near(r.band.fail_below, 0.75);
    assert_near(r.band.agreement, 0.8);
}

Test(tune, should_prefer_higher_agreement_among_bands_escalating_as_little)
{
    /* target 0.7: 0.45 and 0.65 (7 of 10) reach it too, without escalating; 8 of 10 wins */
    struct arb_tune_result r = search(overlap_s, overlap_h, 10, 0.7);

    cr_assert_eq(escalated(&r.band), 0);
    assert_near(r.band.agreement, 0.8);
    assert_near(r.band.threshold, 0.75);
}

Test(tune, should_prefer_the_narrower_band_when_escalation_and_agreement_tie)
{
    /* 0.2 F, 0.4 P, 0.6 F, 0.7 P, 0.8 F, 0.9 P, target 0.75.  No single threshold gets
     * more than 4 of 6, no band escalating one output more than 3 of 5.  Escalating two,
     * [0.3, 0.65) and [0.65, 0.85) both get 3 of 4 right; the second is narrower. */
    double s[] = {0.2, 0.4, 0.6, 0.7, 0.8, 0.9};
    int h[] = {0, 1, 0, 1, 0, 1};
    struct arb_tune_result r = search(s, h, 6, 0.75);

    cr_assert(r.reached);
    cr_assert_eq(escalated(&r.band), 2);
    assert_near(r.band.agreement, 0.75);
    assert_near(r.band.fail_below, 0.65);
    assert_near(r.band.threshold, 0.85);
}

Test(tune, should_say_when_the_target_cannot_be_reached)
{
    /* two outputs score 1 and disagree: any threshold passes both */
    double s[] = {1.0, 1.0, 0.5};
    int h[] = {1, 0, 0};
    struct arb_tune_result r = search(s, h, 3, 0.95);

    cr_assert_not(r.reached);
    assert_near(r.band.agreement, 2.0 / 3.0);
    assert_near(r.band.threshold, 0.8);
    assert_near(r.band.fail_below, 0.8);
    cr_assert_eq(escalated(&r.band), 0);
    assert_near(r.single.agreement, 2.0 / 3.0);
}

Test(tune, should_let_nothing_pass_when_every_output_should_fail)
{
    /* the threshold can sit above the highest score when that is below 1 */
    double s[] = {0.3, 0.6};
    int h[] = {0, 0};
    struct arb_tune_result r = search(s, h, 2, 1.0);

    cr_assert(r.reached);
    assert_near(r.band.threshold, 0.8);
    cr_assert_eq(r.band.fail[0], 2);
    cr_assert_eq(escalated(&r.band), 0);
}

Test(tune, should_refuse_bad_arguments)
{
    double s[] = {0.5, 1.5}, nan_s[] = {NAN};
    int h[] = {1, 0};
    struct arb_tune_result r;
    struct arb_err err = {{0}};

    cr_assert_eq(arb_tune_search(s, h, 0, 0.9, &r, &err), ARB_EUSAGE);
    cr_assert_eq(arb_tune_search(s, h, 1, 0.0, &r, &err), ARB_EUSAGE);
    cr_assert_eq(arb_tune_search(s, h, 1, 1.01, &r, &err), ARB_EUSAGE);
    cr_assert_eq(arb_tune_search(s, h, 2, 0.9, &r, &err), ARB_EUSAGE);
    cr_assert(strstr(err.msg, "(item 1) not in [0, 1]"), "%s", err.msg);
    cr_assert_eq(arb_tune_search(nan_s, h, 1, 0.9, &r, &err), ARB_EUSAGE);
}

/* ---- brute force: every cut the issue names (distinct scores, midpoints) ---------------- */

static uint32_t lcg(uint32_t *x)
{
    *x = *x * 1664525u + 1013904223u;
    return *x >> 8;
}

struct brute {
    int reached;
    size_t esc, agree, dec; /* of the best band (least escalation when reached) */
    size_t s_agree;         /* of the best single threshold (n decided) */
};

/* Agreement a/d better than b/e?  Compare exactly. */
static int frac_gt(size_t a, size_t d, size_t b, size_t e)
{
    return (uint64_t)a * e > (uint64_t)b * d;
}

static struct brute brute_force(const double *s, const int *h, size_t n, double target)
{
    double cand[64];
    size_t nc = 0, i, j, x;
    struct brute b = {0, SIZE_MAX, 0, 1, 0};
    double hi = 0;

    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++) {
            double m = (s[i] + s[j]) / 2;

            for (x = 0; x < nc && cand[x] != m; x++)
                ;
            if (x == nc && nc < 64)
                cand[nc++] = m; /* i == j: the scores themselves */
        }
        hi = s[i] > hi ? s[i] : hi;
    }
    if (hi < 1)
        cand[nc++] = 1.0; /* a threshold above every score */
    for (i = 0; i < nc; i++) {
        for (j = 0; j < nc; j++) {
            double t = cand[i], fb = cand[j];
            size_t pass[2] = {0, 0}, fail[2] = {0, 0}, esc, agree, dec;

            if (!(t > 0) || fb > t)
                continue;
            for (x = 0; x < n; x++) {
                if (s[x] >= t)
                    pass[h[x]]++;
                else if (s[x] < fb)
                    fail[h[x]]++;
            }
            agree = pass[1] + fail[0];
            dec = pass[0] + pass[1] + fail[0] + fail[1];
            esc = n - dec;
            if (!dec)
                continue;
            if (fb == t && agree > b.s_agree)
                b.s_agree = agree;
            if ((double)agree / (double)dec >= target) {
                if (!b.reached || esc < b.esc ||
                    (esc == b.esc && frac_gt(agree, dec, b.agree, b.dec))) {
                    b.esc = esc;
                    b.agree = agree;
                    b.dec = dec;
                }
                b.reached = 1;
            } else if (!b.reached && (frac_gt(agree, dec, b.agree, b.dec) ||
                                      (!frac_gt(b.agree, b.dec, agree, dec) && esc < b.esc))) {
                b.esc = esc;
                b.agree = agree;
                b.dec = dec;
            }
        }
    }
    return b;
}

Test(tune, should_match_a_brute_force_search_over_scores_and_midpoints)
{
    static const double grid[] = {0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1.0};
    static const double targets[] = {0.6, 0.75, 0.9, 1.0};
    uint32_t seed = 12345;
    int seen[2] = {0, 0};

    for (int round = 0; round < 400; round++) {
        double s[12];
        int h[12];
        size_t n = 1 + lcg(&seed) % 12;
        double target = targets[lcg(&seed) % 4];
        struct arb_tune_result r;
        struct brute b;
        size_t dec;

        for (size_t i = 0; i < n; i++) {
            s[i] = grid[lcg(&seed) % 9];
            h[i] = (int)(lcg(&seed) % 2);
        }
        r = search(s, h, n, target);
        b = brute_force(s, h, n, target);
        dec = n - escalated(&r.band);
        cr_assert_eq(r.reached, b.reached, "round %d", round);
        cr_assert_eq(escalated(&r.band), b.esc, "round %d: escalated", round);
        cr_assert_eq((uint64_t)(r.band.pass[1] + r.band.fail[0]) * b.dec, (uint64_t)b.agree * dec,
                     "round %d: agreement", round);
        cr_assert_eq(r.single.pass[1] + r.single.fail[0], b.s_agree, "round %d: single", round);
        cr_assert(r.band.fail_below <= r.band.threshold);
        cr_assert(r.band.threshold > 0 && r.band.threshold <= 1);
        seen[r.reached]++;
    }
    cr_assert(seen[0] > 10 && seen[1] > 10, "reached %d, not reached %d", seen[1], seen[0]);
}

/* ---- the labels file and the check, end to end ------------------------------------------ */

static cJSON *parse(const char *text)
{
    cJSON *v = NULL;
    struct arb_err err = {{0}};

    cr_assert_eq(arb_json_parse(text, strlen(text), 0, &v, &err), ARB_OK, "%s", err.msg);
    return v;
}

static double num(const cJSON *o, const char *a, const char *b)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, a);

    if (b)
        v = cJSON_GetObjectItemCaseSensitive(v, b);
    cr_assert(cJSON_IsNumber(v), "%s/%s is not a number", a, b ? b : "");
    return v->valuedouble;
}

static cJSON *tune_file(const char *check, const char *labels, double target)
{
    struct arb_tune_set *set = NULL;
    struct arb_err err = {{0}};
    cJSON *cfg = parse(check), *out = NULL;

    cr_assert_eq(arb_tune_load(labels, &set, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_tune_run(cfg, NULL, set, target, &out, &err), ARB_OK, "%s", err.msg);
    cJSON_Delete(cfg);
    arb_tune_set_free(set);
    return out;
}

Test(tune, should_tune_levenshtein_on_the_labels_file)
{
    cJSON *t = tune_file("{\"op\": \"levenshtein\", \"expected\": \"kitten\", \"threshold\": 0.5}",
                         D "labels.jsonl", 0.95);
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(t, "items");
    const cJSON *bitten = cJSON_GetArrayItem(items, 5);
    char *check = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(t, "suggested_check"));

    cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "reached")));
    assert_near(num(t, "n", NULL), 8);
    assert_near(num(t, "human_pass", NULL), 4);
    assert_near(num(t, "band", "threshold"), 0.85);
    assert_near(num(t, "band", "fail_below"), 0.6);
    assert_near(num(t, "band", "escalation"), 0.5);
    assert_near(num(t, "band", "agreement"), 1.0);
    assert_near(num(t, "single", "threshold"), 0.85);
    assert_near(num(t, "single", "agreement"), 0.75);
    cr_assert_str_eq(check, "{\"op\":\"levenshtein\",\"expected\":\"kitten\",\"threshold\":0.85,"
                            "\"fail_below\":0.6}");
    /* the blank line 6 counts: bitten is on line 7 */
    assert_near(num(bitten, "line", NULL), 7);
    assert_near(num(bitten, "score", NULL), 5.0 / 6.0);
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(bitten, "verdict")->valuestring,
                     "unresolved");
    cJSON_free(check);
    cJSON_Delete(t);
}

/* The suggested check, run as a suite would run it, gives every item its reported verdict. */
Test(tune, should_suggest_a_check_that_gives_the_reported_verdicts)
{
    cJSON *t =
        tune_file("{\"op\": \"levenshtein\", \"expected\": \"kitten\"}", D "labels.jsonl", 0.95);
    struct arb_tune_set *set = NULL;
    struct arb_check *c = NULL;
    struct arb_result res;
    struct arb_err err = {{0}};
    const cJSON *item;
    size_t i = 0;

    cr_assert_eq(arb_tune_load(D "labels.jsonl", &set, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(
        arb_check_compile(cJSON_GetObjectItemCaseSensitive(t, "suggested_check"), NULL, &c, &err),
        ARB_OK, "%s", err.msg);
    arb_result_init(&res);
    cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(t, "items"))
    {
        const struct arb_tune_item *it = &set->items[i++];

        cr_assert_eq(arb_check_run(c, it->output, it->output_len, it->expected, &res, &err),
                     ARB_OK);
        cr_assert_str_eq(arb_verdict_name(res.verdict),
                         cJSON_GetObjectItemCaseSensitive(item, "verdict")->valuestring, "%s",
                         it->id);
    }
    arb_result_release(&res);
    arb_check_free(c);
    arb_tune_set_free(set);
    cJSON_Delete(t);
}

Test(tune, should_score_json_outputs_with_the_case_expected)
{
    cJSON *t = tune_file("{\"op\": \"fields\", \"fields\": {\"vendor\": \"name\", \"total\": "
                         "\"numeric\"}}",
                         D "fields_labels.jsonl", 0.95);

    cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "reached")));
    assert_near(num(t, "band", "escalation"), 0.0);
    assert_near(num(t, "band", "agreement"), 1.0);
    /* vendor 1 (ACME = Acme Corp), total 0: 0.5 fails; the typo still passes */
    assert_near(
        num(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(t, "items"), 2), "score", NULL),
        0.5);
    cJSON_Delete(t);
}

static void expect_run_error(const char *check, const char *labels, enum arb_status want,
                             const char *msg)
{
    struct arb_tune_set *set = NULL;
    struct arb_err err = {{0}};
    cJSON *cfg = parse(check), *out = NULL;

    cr_assert_eq(arb_tune_load(labels, &set, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_tune_run(cfg, NULL, set, 0.95, &out, &err), want, "%s", err.msg);
    cr_assert_null(out);
    cr_assert(strstr(err.msg, msg), "'%s' lacks '%s'", err.msg, msg);
    cJSON_Delete(cfg);
    arb_tune_set_free(set);
}

Test(tune, should_refuse_checks_without_a_graded_score)
{
    expect_run_error("{\"op\": \"exact\", \"expected\": \"kitten\"}", D "labels.jsonl", ARB_EUSAGE,
                     "/op: operator 'exact' scores only 1 or 0");
    expect_run_error("{\"op\": \"levenshtein\", \"expected\": \"kitten\", \"max_distance\": 1}",
                     D "labels.jsonl", ARB_EUSAGE, "/max_distance: ");
    expect_run_error("{\"op\": \"levenshtein\", \"expected\": \"kitten\", \"not\": true}",
                     D "labels.jsonl", ARB_EUSAGE, "/not: a negated check cannot be tuned");
    expect_run_error("{\"op\": \"levenshtien\"}", D "labels.jsonl", ARB_ESCHEMA,
                     "did you mean 'levenshtein'");
    expect_run_error("{\"op\": \"levenshtein\"}", D "no_expected.jsonl", ARB_ESCHEMA,
                     "no_expected.jsonl:1: id 'a': operator 'levenshtein' needs an expected value");
}

static void expect_load_error(const char *file, const char *msg)
{
    struct arb_tune_set *set = NULL;
    struct arb_err err = {{0}};

    cr_assert_neq(arb_tune_load(file, &set, &err), ARB_OK, "%s loaded", file);
    cr_assert_null(set);
    cr_assert(strstr(err.msg, msg), "'%s' lacks '%s'", err.msg, msg);
}

Test(tune, should_locate_errors_in_the_labels)
{
    expect_load_error(D "bad_human.jsonl", "bad_human.jsonl:2:42: /human: expected true or false");
    expect_load_error(D "malformed.jsonl", "malformed.jsonl:2:46: ");
    expect_load_error(D "duplicate.jsonl", "duplicate.jsonl:2:8: /id: duplicate id 'a' (first on "
                                           "line 1)");
    expect_load_error(D "unknown_key.jsonl", "unknown_key.jsonl:1:48: /judge: unknown key 'judge'");
    expect_load_error(D "no-such-file.jsonl", "cannot open labels");
}
