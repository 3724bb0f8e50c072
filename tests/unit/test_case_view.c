/*
 * Unit tests for one case whole (case_view.h, src/report/case_judge.c): the judge's answers
 * of a pair told in its systems (in order BA the answer's "A" is the pair's B), a slot shown
 * by the attempt that answered it, slots in order whatever order they were stored in, the
 * orders' disagreement; and what a case asked (store_case_view.c).  The rows are made by
 * hand: tests/cli/show_case.sh drives a real judge.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/case_view.h"
#include "arbiter/store.h"
#include "store_fixture.h"

static void ok(enum arb_status rc, const struct arb_err *err)
{
    cr_assert_eq(rc, ARB_OK, "%s", err->msg);
}

static void judgment(struct arb_store *st, int64_t run, const char *b, const char *ord, int sample,
                     int attempt, int valid, const char *answer, const char *error)
{
    struct arb_err err = {{0}};
    struct arb_judgment_row j = {"k1",  "x", b,      ord,   sample, attempt, "key",
                                 valid, 0,   answer, error, NULL,   ""};

    ok(arb_store_put_judgment(st, run, &j, &err), &err);
}

#define ANSWER(w, r, sa, sb, pa, pb)                                                               \
    "{\"reasoning\": \"" r "\", \"criteria\": {\"accuracy\": {\"A\": " sa ", \"B\": " sb "}}, "    \
    "\"expectations\": {\"polite\": {\"A\": " pa ", \"B\": " pb "}}, \"winner\": \"" w "\"}"

static struct arb_store *fixture(int64_t *run)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_err err = {{0}};
    struct arb_run_row r = {
        .suite_path = "suite.json",
        .suite_name = "case view",
        .suite_sha256 = "00ff",
        .suite_json = "{\"name\":\"case view\",\"task\":\"Answer <b>kindly</b>.\"}",
        .systems_json = "[{\"name\":\"x\"},{\"name\":\"y\"},{\"name\":\"z\"}]",
        .version = "0",
    };

    *run = 0;
    ok(arb_store_begin(st, &err), &err);
    ok(arb_store_run_create(st, &r, run, &err), &err);
    ok(arb_store_put_case(st, *run, "k1", 0, "What is 2+2?", NULL, "{}", &err), &err);
    ok(arb_store_put_case(st, *run, "k2", 1, NULL, NULL, "{}", &err), &err);
    /* x/y: stored BA first; BA's first attempt did not validate, its retry did; AB's sample 1
     * has a valid attempt 0 and a stale invalid attempt 1 (asked again by a resume). */
    judgment(st, *run, "y", "BA", 0, 0, 0, "{\"reasoning\": \"half\"}", "missing winner");
    judgment(st, *run, "y", "BA", 0, 1, 1, ANSWER("A", "y is better", "5", "2", "true", "false"),
             NULL);
    judgment(st, *run, "y", "AB", 1, 1, 0, NULL, "HTTP 500");
    judgment(st, *run, "y", "AB", 1, 0, 1, ANSWER("TIE", "even", "3", "3", "true", "true"), NULL);
    judgment(st, *run, "y", "AB", 0, 0, 1, ANSWER("A", "x is better", "4", "1", "true", "false"),
             NULL);
    /* x/z: order AB failed, BA answered. */
    judgment(st, *run, "z", "AB", 0, 0, 0, NULL, "");
    judgment(st, *run, "z", "BA", 0, 0, 1, ANSWER("B", "x wins", "2", "4", "false", "true"), NULL);
    ok(arb_store_commit(st, &err), &err);
    return st;
}

static const cJSON *at(const cJSON *o, const char *path)
{
    char buf[128], *save = NULL, *k;

    strcpy(buf, path);
    for (k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
        o = cJSON_IsArray(o) ? cJSON_GetArrayItem(o, atoi(k))
                             : cJSON_GetObjectItemCaseSensitive(o, k);
    return o;
}

static const char *str(const cJSON *o, const char *path)
{
    const cJSON *v = at(o, path);

    return cJSON_IsString(v) ? v->valuestring : "(not a string)";
}

static double num(const cJSON *o, const char *path)
{
    const cJSON *v = at(o, path);

    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static cJSON *view_of(struct arb_store *st, int64_t run, const char *b, const char *cmp)
{
    struct arb_err err = {{0}};
    struct arb_verdict_row v = {"k1", "x", b, "decided", "TIE", NAN, NAN, NAN, NAN, cmp};
    cJSON *view = NULL;

    ok(arb_case_judge_read(st, run, &v, &view, &err), &err);
    return view;
}

Test(case_view, should_tell_each_order_in_the_pairs_systems, .init = fx_setup, .fini = fx_teardown)
{
    int64_t run;
    struct arb_store *st = fixture(&run);
    cJSON *v = view_of(st, run, "y", "{\"judge\": {\"winner\": \"TIE\"}}");

    cr_assert_not_null(v);
    cr_assert_eq(cJSON_GetArraySize(at(v, "orders")), 3);
    cr_assert_str_eq(str(v, "orders.0.ord"), "AB");
    cr_assert_eq(num(v, "orders.0.sample"), 0);
    cr_assert_str_eq(str(v, "orders.0.shown_first"), "x");
    cr_assert_str_eq(str(v, "orders.0.winner"), "x");
    cr_assert_str_eq(str(v, "orders.0.winner_as_shown"), "A");
    cr_assert_eq(num(v, "orders.0.criteria.accuracy.x"), 4);
    cr_assert_eq(num(v, "orders.0.criteria.accuracy.y"), 1);
    /* In order BA the judge saw y first: its "A" is y. */
    cr_assert_str_eq(str(v, "orders.2.ord"), "BA");
    cr_assert_str_eq(str(v, "orders.2.shown_first"), "y");
    cr_assert_str_eq(str(v, "orders.2.shown_second"), "x");
    cr_assert_str_eq(str(v, "orders.2.winner"), "y");
    cr_assert_str_eq(str(v, "orders.2.winner_as_shown"), "A");
    cr_assert_str_eq(str(v, "orders.2.reasoning"), "y is better");
    cr_assert_eq(num(v, "orders.2.criteria.accuracy.y"), 5);
    cr_assert_eq(num(v, "orders.2.criteria.accuracy.x"), 2);
    cr_assert(cJSON_IsTrue(at(v, "orders.2.expectations.polite.y")));
    cr_assert(cJSON_IsFalse(at(v, "orders.2.expectations.polite.x")));
    /* The pair's A is listed first in each item, whichever order. */
    cr_assert_str_eq(at(v, "orders.2.criteria.accuracy")->child->string, "x");
    cr_assert_str_eq(str(v, "winner"), "TIE");
    cJSON_Delete(v);
    arb_store_close(st);
}

Test(case_view, should_show_a_slot_by_the_attempt_that_answered_it, .init = fx_setup,
     .fini = fx_teardown)
{
    int64_t run;
    struct arb_store *st = fixture(&run);
    cJSON *v = view_of(st, run, "y", "{}");

    /* BA: the retry that validated, not the first reply; AB sample 1: the valid attempt 0,
     * not the stale failed attempt 1. */
    cr_assert_eq(num(v, "orders.2.attempt"), 1);
    cr_assert(cJSON_IsTrue(at(v, "orders.2.valid")));
    cr_assert_null(at(v, "orders.2.error"));
    cr_assert_str_eq(str(v, "orders.1.ord"), "AB");
    cr_assert_eq(num(v, "orders.1.sample"), 1);
    cr_assert_eq(num(v, "orders.1.attempt"), 0);
    cr_assert_str_eq(str(v, "orders.1.winner"), "TIE");
    cJSON_Delete(v);
    arb_store_close(st);
}

Test(case_view, should_say_why_an_order_failed, .init = fx_setup, .fini = fx_teardown)
{
    int64_t run;
    struct arb_store *st = fixture(&run);
    cJSON *v = view_of(st, run, "z", "{\"judge\": {\"error\": \"the judge gave no valid reply\"}}");

    cr_assert_eq(cJSON_GetArraySize(at(v, "orders")), 2);
    cr_assert(cJSON_IsFalse(at(v, "orders.0.valid")));
    cr_assert_str_eq(str(v, "orders.0.error"), "the judge gave no valid reply");
    cr_assert(cJSON_IsNull(at(v, "orders.0.winner")));
    cr_assert_str_eq(str(v, "orders.1.winner"), "x"); /* "B" in order BA: the pair's A */
    cr_assert_str_eq(str(v, "error"), "the judge gave no valid reply");
    /* One order has no winner: whether they disagree is unknown. */
    cr_assert(cJSON_IsNull(at(v, "position_inconsistent")));
    cJSON_Delete(v);
    arb_store_close(st);
}

Test(case_view, should_take_the_comparisons_word_on_disagreement, .init = fx_setup,
     .fini = fx_teardown)
{
    int64_t run;
    struct arb_store *st = fixture(&run);
    cJSON *v = view_of(st, run, "y",
                       "{\"judge\": {\"position_inconsistent\": true, \"sample_agreement\": 0.5}}");

    cr_assert(cJSON_IsTrue(at(v, "position_inconsistent")));
    cr_assert_eq(num(v, "sample_agreement"), 0.5);
    cJSON_Delete(v);
    /* Without it, the orders' majorities: AB x and a tie (a tie), BA y: they differ. */
    v = view_of(st, run, "y", "{}");
    cr_assert(cJSON_IsTrue(at(v, "position_inconsistent")));
    cr_assert(cJSON_IsNull(at(v, "sample_agreement")));
    cJSON_Delete(v);
    arb_store_close(st);
}

Test(case_view, should_give_nothing_for_a_pair_never_judged, .init = fx_setup, .fini = fx_teardown)
{
    int64_t run;
    struct arb_store *st = fixture(&run);

    cr_assert_null(view_of(st, run, "w", "{\"winner\": \"x\"}"));
    cr_assert_null(view_of(st, run, "w", NULL));
    arb_store_close(st);
}

struct texts {
    int calls;
    char text[64];
};

static int keep(void *ctx, const char *text)
{
    struct texts *t = ctx;

    t->calls++;
    strcpy(t->text, text ? text : "(null)");
    return 0;
}

Test(case_view, should_read_the_task_and_the_prompt, .init = fx_setup, .fini = fx_teardown)
{
    int64_t run;
    struct arb_store *st = fixture(&run);
    struct arb_err err = {{0}};
    struct texts t = {0, ""};

    ok(arb_store_run_task(st, run, keep, &t, &err), &err);
    cr_assert_eq(t.calls, 1);
    cr_assert_str_eq(t.text, "Answer <b>kindly</b>.");
    ok(arb_store_case_prompt(st, run, "k1", keep, &t, &err), &err);
    cr_assert_eq(t.calls, 2);
    cr_assert_str_eq(t.text, "What is 2+2?");
    ok(arb_store_case_prompt(st, run, "k2", keep, &t, &err), &err);
    cr_assert_eq(t.calls, 3);
    cr_assert_str_eq(t.text, "(null)");
    /* No such case, no such run: not called. */
    ok(arb_store_case_prompt(st, run, "nope", keep, &t, &err), &err);
    ok(arb_store_run_task(st, run + 1, keep, &t, &err), &err);
    cr_assert_eq(t.calls, 3);
    arb_store_close(st);
}
