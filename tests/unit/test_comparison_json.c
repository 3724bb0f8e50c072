/*
 * comparison.json as the verdict policy writes it (src/run/decide.c, src/run/feedback.c):
 * the seed's worked example (seeds/blind-comparator-agent.md, "Output Format") reproduced
 * from its own rubric scores and expectation results, every derived figure checked; and the
 * sentences of output_quality, built from the checks and the rubric, or the judge's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/run/run_int.h"
#include "arbiter/suite.h"

/* The example's rubric: the six default criteria, in the seed's order; its five expectations. */
static const char example_suite[] = "{\"name\": \"example\", \"cases\": [{\"id\": \"c1\"}],"
                                    " \"expectations\": ["
                                    "  {\"id\": \"name\", \"text\": \"Output includes name\"},"
                                    "  {\"id\": \"date\", \"text\": \"Output includes date\"},"
                                    "  {\"id\": \"pdf\", \"text\": \"Format is PDF\"},"
                                    "  {\"id\": \"sig\", \"text\": \"Contains signature\"},"
                                    "  {\"id\": \"read\", \"text\": \"Readable text\"}]}";

static struct arb_suite *parse(const char *text)
{
    struct arb_suite *s = NULL;
    struct arb_err err = {{0}};

    cr_assert_eq(arb_suite_parse(text, strlen(text), "test", ".", &s, &err), ARB_OK, "%s", err.msg);
    return s;
}

static double num(const cJSON *root, const char *const *path)
{
    const cJSON *x = root;

    for (; *path; path++)
        x = cJSON_GetObjectItemCaseSensitive(x, *path);
    cr_assert(cJSON_IsNumber(x), "%s... is not a number", path[-1]);
    return x->valuedouble;
}

#define NUM(root, ...) num(root, (const char *const[]){__VA_ARGS__, NULL})

static void assert_near(double got, double want, const char *what)
{
    cr_assert(fabs(got - want) < 1e-9, "%s: %.17g, want %g", what, got, want);
}

Test(comparison_json, should_reproduce_every_figure_of_the_seeds_worked_example)
{
    struct arb_suite *s = parse(example_suite);
    struct arb_case kase;
    struct items it;
    double crit_a[] = {5, 5, 4, 4, 5, 4}, crit_b[] = {3, 2, 3, 3, 2, 3};
    enum arb_verdict exp_a[] = {ARB_PASS, ARB_PASS, ARB_PASS, ARB_FAIL, ARB_PASS};
    enum arb_verdict exp_b[] = {ARB_PASS, ARB_FAIL, ARB_PASS, ARB_FAIL, ARB_PASS};
    struct side a = {.system = "alpha", .crit = crit_a, .exp = exp_a},
                b = {.system = "beta", .crit = crit_b, .exp = exp_b};
    struct decision d;
    cJSON *c = NULL;
    const cJSON *w;

    memset(&kase, 0, sizeof(kase));
    it.suite = s;
    it.kase = &kase;
    it.words = NULL;
    it.n_exp = s->n_expectations;
    cr_assert_eq(s->n_criteria, 6);
    cr_assert_eq(decide_pair(&it, &a, &b, &d, &c), ARB_OK);
    w = cJSON_GetObjectItemCaseSensitive(c, "winner");
    cr_assert(cJSON_IsString(w) && strcmp(w->valuestring, "A") == 0, "winner");
    /* "content_score": 4.7, "structure_score": 4.3, "overall_score": 9.0 */
    assert_near(NUM(c, "rubric", "A", "content_score"), 4.7, "A content_score");
    assert_near(NUM(c, "rubric", "A", "structure_score"), 4.3, "A structure_score");
    assert_near(NUM(c, "rubric", "A", "overall_score"), 9.0, "A overall_score");
    /* 2.7 + 2.7 = 5.4: the rounded averages added (the unrounded ones give 5.3) */
    assert_near(NUM(c, "rubric", "B", "content_score"), 2.7, "B content_score");
    assert_near(NUM(c, "rubric", "B", "structure_score"), 2.7, "B structure_score");
    assert_near(NUM(c, "rubric", "B", "overall_score"), 5.4, "B overall_score");
    assert_near(NUM(c, "rubric", "A", "content", "accuracy"), 4, "A accuracy");
    assert_near(NUM(c, "rubric", "B", "structure", "formatting"), 2, "B formatting");
    /* "output_quality": A "score": 9, B "score": 5 */
    assert_near(NUM(c, "output_quality", "A", "score"), 9, "A output_quality.score");
    assert_near(NUM(c, "output_quality", "B", "score"), 5, "B output_quality.score");
    /* "passed": 4, "total": 5, "pass_rate": 0.80; "passed": 3, "total": 5, "pass_rate": 0.60 */
    assert_near(NUM(c, "expectation_results", "A", "passed"), 4, "A passed");
    assert_near(NUM(c, "expectation_results", "A", "total"), 5, "A total");
    assert_near(NUM(c, "expectation_results", "A", "pass_rate"), 0.8, "A pass_rate");
    assert_near(NUM(c, "expectation_results", "B", "passed"), 3, "B passed");
    assert_near(NUM(c, "expectation_results", "B", "total"), 5, "B total");
    assert_near(NUM(c, "expectation_results", "B", "pass_rate"), 0.6, "B pass_rate");
    /* The verdict row carries the same overall scores. */
    assert_near(d.score_a, 9.0, "d.score_a");
    assert_near(d.score_b, 5.4, "d.score_b");
    cJSON_Delete(c);
    arb_suite_free(s);
}

/* Two outputs whose unrounded overall scores differ (5.33 vs 5.4) are equal as the file shows
 * them (2.7 + 2.7 and 2.7 + 2.7): the winner is decided on the figures written. */
Test(comparison_json, should_decide_on_the_rounded_figures_it_writes)
{
    struct arb_suite *s = parse("{\"cases\": [{\"id\": \"c1\"}]}");
    struct arb_case kase;
    struct items it = {s, &kase, 0, NULL};
    double crit_a[] = {3, 2, 3, 3, 2, 3}, crit_b[] = {3, 3, 2.1, 3, 2.1, 3};
    struct side a = {.system = "alpha", .crit = crit_a, .exp = NULL},
                b = {.system = "beta", .crit = crit_b, .exp = NULL};
    struct decision d;
    cJSON *c = NULL;

    memset(&kase, 0, sizeof(kase));
    cr_assert_eq(decide_pair(&it, &a, &b, &d, &c), ARB_OK);
    assert_near(NUM(c, "rubric", "B", "overall_score"), 5.4, "B overall_score");
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(c, "winner")->valuestring, "TIE");
    cJSON_Delete(c);
    arb_suite_free(s);
}

/* ---- the sentences ------------------------------------------------------------------------- */

static const char sentence_suite[] =
    "{\"cases\": [{\"id\": \"c1\"}],"
    " \"rubric\": {\"content\": ["
    "   {\"name\": \"correctness\"},"
    "   {\"name\": \"sourcing\", \"description\": \"Does it say where each fact comes from?\","
    "    \"check\": {\"op\": \"contains\", \"expected\": \"http\"}},"
    "   {\"name\": \"tone\", \"anchors\": {\"1\": \"rude\", \"5\": \"warm\"}}],"
    "  \"structure\": [{\"name\": \"layout\"}]},"
    " \"expectations\": ["
    "  {\"id\": \"e1\", \"text\": \"names the capital\"},"
    "  {\"id\": \"e2\", \"text\": \"cites a source\", \"check\": {\"op\": \"contains\","
    "   \"expected\": \"http\"}},"
    "  {\"id\": \"e3\", \"text\": \"is short\", \"check\": {\"op\": \"regex\", \"not\": true,"
    "   \"expected\": \"^#\"}},"
    "  {\"id\": \"e4\", \"text\": \"says Paris\"}]}";

static int has(const cJSON *arr, const char *want)
{
    const cJSON *s;

    cJSON_ArrayForEach(s, arr)
    {
        if (cJSON_IsString(s) && strcmp(s->valuestring, want) == 0)
            return 1;
    }
    return 0;
}

static void dump_assert(const cJSON *arr, const char *want, const char *what)
{
    char *text = cJSON_PrintUnformatted(arr);

    cr_assert(has(arr, want), "%s: no \"%s\" in %s", what, want, text);
    free(text);
}

Test(comparison_json, should_write_sentences_from_the_checks_and_the_rubric)
{
    struct arb_suite *s = parse(sentence_suite);
    struct arb_case kase;
    struct items it;
    double crit[] = {5, 1, 1.5, 3.5};
    enum arb_verdict exp[] = {ARB_PASS, ARB_FAIL, ARB_FAIL, ARB_PASS};
    struct side x = {.system = "alpha", .crit = crit, .exp = exp};
    cJSON *good = cJSON_CreateArray(), *bad = cJSON_CreateArray();
    const cJSON *e;
    size_t i;

    memset(&kase, 0, sizeof(kase));
    it.suite = s;
    it.kase = &kase;
    it.words = NULL;
    it.n_exp = s->n_expectations;
    cr_assert_eq(quality_sentences(&it, &x, NULL, good, bad), 1);
    /* A default name: its built-in anchor. */
    dump_assert(good, "Scores 5 of 5 on correctness (5 = fully correct).", "strengths");
    /* A description, and the check. */
    dump_assert(bad,
                "Scores 1 of 5 on sourcing (check: contains: expected \"http\"): Does it say "
                "where each fact comes from?",
                "weaknesses");
    /* The suite's own anchor, the nearest score's; a fraction kept. */
    dump_assert(bad, "Scores 1.5 of 5 on tone (1 = rude).", "weaknesses");
    dump_assert(good, "Meets 2 of 4 expectations: 'names the capital', 'says Paris'.", "strengths");
    dump_assert(bad,
                "Passes 2 of 4 expectations; fails 'cites a source' (contains: expected "
                "\"http\"), 'is short' (not regex: expected \"^#\").",
                "weaknesses");
    /* 3.5 is neither; nothing is a bare criterion id or expectation text. */
    cr_assert_eq(cJSON_GetArraySize(good), 2);
    cr_assert_eq(cJSON_GetArraySize(bad), 3);
    for (i = 0; i < s->n_criteria; i++)
        cr_assert(!has(good, s->criteria[i].name) && !has(bad, s->criteria[i].name));
    cJSON_ArrayForEach(e, good)
    {
        cr_assert(!has(bad, e->valuestring));
    }
    cJSON_Delete(good);
    cJSON_Delete(bad);
    arb_suite_free(s);
}

/* Everything passed: no weakness about expectations; all failed: no strength. */
Test(comparison_json, should_say_nothing_about_expectations_it_has_no_news_on)
{
    struct arb_suite *s = parse(sentence_suite);
    struct arb_case kase;
    struct items it;
    double crit[] = {NAN, 3, 3, 3};
    enum arb_verdict all[] = {ARB_PASS, ARB_PASS, ARB_PASS, ARB_UNRESOLVED};
    enum arb_verdict none[] = {ARB_FAIL, ARB_FAIL, ARB_UNRESOLVED, ARB_UNRESOLVED};
    struct side x = {.system = "alpha", .crit = crit, .exp = all},
                y = {.system = "beta", .crit = crit, .exp = none};
    cJSON *good = cJSON_CreateArray(), *bad = cJSON_CreateArray();

    memset(&kase, 0, sizeof(kase));
    it.suite = s;
    it.kase = &kase;
    it.words = NULL;
    it.n_exp = s->n_expectations;
    cr_assert_eq(quality_sentences(&it, &x, NULL, good, bad), 1);
    cr_assert_eq(cJSON_GetArraySize(bad), 0);
    dump_assert(good,
                "Meets 3 of 3 expectations: 'names the capital', 'cites a source', 'is short'.",
                "strengths");
    cJSON_Delete(good);
    cJSON_Delete(bad);
    good = cJSON_CreateArray();
    bad = cJSON_CreateArray();
    cr_assert_eq(quality_sentences(&it, &y, NULL, good, bad), 1);
    cr_assert_eq(cJSON_GetArraySize(good), 0);
    dump_assert(bad,
                "Passes 0 of 2 expectations; fails 'names the capital', 'cites a source' "
                "(contains: expected \"http\").",
                "weaknesses");
    cJSON_Delete(good);
    cJSON_Delete(bad);
    arb_suite_free(s);
}

/* The judge's sentences, when it wrote some, are the output's: copied as written, mapped by
 * the caller (the pair's A and B), not mixed with built ones. */
Test(comparison_json, should_take_the_judges_sentences_when_it_wrote_them)
{
    struct arb_suite *s = parse(sentence_suite);
    struct arb_case kase;
    struct items it;
    double crit_a[] = {5, 1, 1, 5}, crit_b[] = {1, 5, 5, 1};
    enum arb_verdict exp[] = {ARB_PASS, ARB_FAIL, ARB_PASS, ARB_PASS};
    struct side a = {.system = "alpha", .crit = crit_a, .exp = exp},
                b = {.system = "beta", .crit = crit_b, .exp = exp};
    struct judged j;
    struct decision d;
    cJSON *fb = cJSON_Parse("{\"A\": {\"strengths\": [\"Names Paris first.\"], \"weaknesses\":"
                            " []}, \"B\": {\"strengths\": [], \"weaknesses\": [\"Rambles.\","
                            " \"No source.\"]}}");
    cJSON *c = NULL;
    const cJSON *q;

    memset(&kase, 0, sizeof(kase));
    memset(&j, 0, sizeof(j));
    it.suite = s;
    it.kase = &kase;
    it.words = NULL;
    it.n_exp = s->n_expectations;
    j.winner = "A";
    j.n_orders = 2;
    j.order_winner[0] = j.order_winner[1] = 'A';
    j.feedback = fb;
    cr_assert_eq(decide_judged(&it, &a, &b, &j, &d, &c), ARB_OK);
    q = cJSON_GetObjectItemCaseSensitive(c, "output_quality");
    {
        const cJSON *ag =
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(q, "A"), "strengths");
        const cJSON *bw = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(q, "B"),
                                                           "weaknesses");

        cr_assert_eq(cJSON_GetArraySize(ag), 1);
        dump_assert(ag, "Names Paris first.", "A strengths");
        cr_assert_eq(cJSON_GetArraySize(bw), 2);
        dump_assert(bw, "No source.", "B weaknesses");
    }
    cJSON_Delete(c);
    /* A failed judge wrote nothing: the sentences are built again. */
    j.failed = 1;
    j.error = "no reply";
    cr_assert_eq(decide_judged(&it, &a, &b, &j, &d, &c), ARB_OK);
    q = cJSON_GetObjectItemCaseSensitive(c, "output_quality");
    dump_assert(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(q, "A"), "strengths"),
        "Scores 5 of 5 on correctness (5 = fully correct).", "A strengths, judge failed");
    cJSON_Delete(c);
    cJSON_Delete(fb);
    arb_suite_free(s);
}

/* ---- the memo: pairs decided with one scratch write what each pair alone writes ---------- */

static int same_number(double x, double y)
{
    return (isnan(x) && isnan(y)) || x == y;
}

Test(comparison_json, should_write_each_pairs_own_text_when_pairs_repeat)
{
    struct arb_suite *s = parse(sentence_suite);
    struct arb_case kase;
    struct items it;
    struct decide_scratch kept, fresh;
    struct arb_buf t1, t2;
    double crit[2][4];
    enum arb_verdict exp[2][4];
    struct side a = {.system = "alpha", .crit = crit[0], .exp = exp[0]};
    struct side b = {.system = "beta", .crit = crit[1], .exp = exp[1]};
    static const double scores[] = {1, 2.5, 5, NAN};
    static const enum arb_verdict verdicts[] = {ARB_PASS, ARB_FAIL, ARB_UNRESOLVED};
    unsigned seed = 7;
    size_t n, i, k;

    memset(&kase, 0, sizeof(kase));
    it.suite = s;
    it.kase = &kase;
    it.words = NULL;
    it.n_exp = s->n_expectations;
    decide_scratch_init(&kept);
    arb_buf_init(&t1, 0);
    arb_buf_init(&t2, 0);
    for (n = 0; n < 2000; n++) {
        struct decision d1, d2;

        /* each side one of six: some differ only in a score, some only in a verdict, so a
         * memo that misses either gives the wrong text; pairs repeat, slots are hit and replaced */
        for (k = 0; k < 2; k++) {
            unsigned pick;

            seed = seed * 1103515245u + 12345u;
            pick = (seed >> 16) % 6;
            for (i = 0; i < s->n_criteria; i++)
                crit[k][i] = scores[(pick + i) % 4 == 3 && pick < 3 ? 3 : (pick / 2 + i) % 3];
            for (i = 0; i < it.n_exp; i++)
                exp[k][i] = verdicts[(pick % 2 + i) % 3];
        }
        seed = seed * 1103515245u + 12345u;
        a.missing = (seed >> 16) % 16 == 0;
        arb_buf_reset(&t1);
        arb_buf_reset(&t2);
        decide_scratch_init(&fresh);
        cr_assert_eq(decide_write(&it, &a, &b, NULL, &d1, &kept, &t1), ARB_OK);
        cr_assert_eq(decide_write(&it, &a, &b, NULL, &d2, &fresh, &t2), ARB_OK);
        decide_scratch_release(&fresh);
        cr_assert_str_eq(t1.ptr, t2.ptr);
        cr_assert_str_eq(d1.status, d2.status);
        cr_assert_eq(d1.winner, d2.winner);
        cr_assert(d1.decided_by == d2.decided_by ||
                  (d1.decided_by && d2.decided_by && !strcmp(d1.decided_by, d2.decided_by)));
        cr_assert(same_number(d1.score_a, d2.score_a) && same_number(d1.score_b, d2.score_b));
        cr_assert(same_number(d1.pass_rate_a, d2.pass_rate_a) &&
                  same_number(d1.pass_rate_b, d2.pass_rate_b));
    }
    decide_scratch_release(&kept);
    arb_buf_release(&t1);
    arb_buf_release(&t2);
    arb_suite_free(s);
}
