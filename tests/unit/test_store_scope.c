/*
 * Unit tests for a selection of a run's cases (store_scope.c: arb_store_scope):
 * two runs of five cases, with a row of each per-case table per case, read
 * through a read-only store before and after the selection.  The counts
 * before it run the statements prepared at open, so the counts after it show
 * that SQLite prepared them again against the selection's views.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/select.h"
#include "arbiter/status.h"
#include "arbiter/store.h"
#include "store_fixture.h"

/* Case ids in case order: not in alphabetical order, so the order is seq's. */
static const char *const ids[] = {"e", "d", "c", "b", "a"};
#define N_CASES 5

static void ok(enum arb_status rc, const struct arb_err *err)
{
    cr_assert_eq(rc, ARB_OK, "%s", err->msg);
}

static int64_t new_run(struct arb_store *st)
{
    struct arb_run_row r = {
        .suite_path = "suite.json",
        .suite_name = "scope",
        .suite_sha256 = "00ff",
        .suite_json = "{}",
        .systems_json = "[{\"name\":\"x\"},{\"name\":\"y\"}]",
        .version = "0",
    };
    struct arb_err err = {{0}};
    int64_t id = 0;

    ok(arb_store_run_create(st, &r, &id, &err), &err);
    return id;
}

/* One row of every per-case table for case i of run. */
static void put_case(struct arb_store *st, int64_t run, int i)
{
    const char *c = ids[i];
    struct arb_err err = {{0}};
    struct arb_output_row o = {c, "x", "", "out", 3, 0, "h", NULL, 0};
    struct arb_check_row k = {c, "x", "expectation", "e1", "{}", "pass", 1.0, 0, 0};
    struct arb_verdict_row v = {c, "x", "y", "decided", "TIE", 10, 10, 1, 1, "{}"};
    struct arb_trial_row t = {c, "x", 0, 1, 1, 0, 0, "[]"};
    struct arb_judgment_row j = {c, "x", "y", "AB", 0, 0, "key", 1, 0, "{}", NULL, NULL, NULL};

    ok(arb_store_put_case(st, run, c, i, "p", NULL, "{}", &err), &err);
    ok(arb_store_put_output(st, run, &o, &err), &err);
    ok(arb_store_put_blinding(st, run, c, "x", "y", "ab", &err), &err);
    ok(arb_store_put_check(st, run, &k, &err), &err);
    ok(arb_store_put_verdict(st, run, &v, &err), &err);
    ok(arb_store_put_trial(st, run, &t, &err), &err);
    ok(arb_store_put_judgment(st, run, &j, &err), &err);
    ok(arb_store_put_problem(st, run, "duplicate_output", c, "x", "m", &err), &err);
}

/* Runs 1 and 2 with the same five cases, and a problem of no case each; then read-only. */
static struct arb_store *two_runs(void)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_err err = {{0}};

    ok(arb_store_begin(st, &err), &err);
    for (int r = 0; r < 2; r++) {
        int64_t run = new_run(st);

        for (int i = 0; i < N_CASES; i++)
            put_case(st, run, i);
        ok(arb_store_put_problem(st, run, "unknown_case_file", "", "", "m", &err), &err);
    }
    ok(arb_store_commit(st, &err), &err);
    arb_store_close(st);
    return fx_open_store(ARB_STORE_READONLY);
}

static int64_t count(struct arb_store *st, int64_t run, const char *table)
{
    struct arb_err err = {{0}};
    int64_t n = -1;

    ok(arb_store_count(st, run, table, &n, &err), &err);
    return n;
}

struct seen {
    char ids[16];
    size_t n;
};

static int seen_verdict(void *ctx, const struct arb_verdict_row *v)
{
    struct seen *s = ctx;

    s->ids[s->n++] = v->case_id[0];
    return 0;
}

static int seen_judgment(void *ctx, const struct arb_judgment_row *j)
{
    (*(int *)ctx)++;
    return 0;
}

static int seen_run(void *ctx, const struct arb_run_row *r)
{
    *(int64_t *)ctx = r->n_cases;
    return 1;
}

static int seen_problem(void *ctx, const struct arb_problem_row *p)
{
    struct seen *s = ctx;

    s->ids[s->n++] = p->case_id && p->case_id[0] ? p->case_id[0] : '-';
    return 0;
}

static const char *const tables[] = {"cases",    "outputs",  "blinding", "checks",
                                     "verdicts", "problems", "trials"};

Test(store_scope, should_show_every_reader_only_the_selected_cases, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = two_runs();
    struct arb_err err = {{0}};
    const char *named[] = {"a", "c", "e", "c"};
    struct arb_case_select sel = {2, named, 4};
    struct seen s = {{0}, 0};
    int64_t n_cases = 0;
    int judgments = 0;

    /* Before: every row, through the statements prepared at open. */
    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
        cr_assert_eq(count(st, 1, tables[i]), N_CASES + (strcmp(tables[i], "problems") == 0), "%s",
                     tables[i]);
    ok(arb_store_scope(st, 1, &sel, &err), &err);

    /* a, c, e named (c twice); in case order e, c, a; the first two: e and c. */
    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
        cr_assert_eq(count(st, 1, tables[i]), 2 + (strcmp(tables[i], "problems") == 0), "%s",
                     tables[i]);
    ok(arb_store_verdicts(st, 1, NULL, seen_verdict, &s, &err), &err);
    cr_assert_str_eq(s.ids, "ec");
    s.n = 0;
    memset(s.ids, 0, sizeof(s.ids));
    ok(arb_store_verdicts_ahead(st, 1, seen_verdict, &s, &err), &err);
    cr_assert_str_eq(s.ids, "ec", "the reading thread shares the connection and its views");
    s.n = 0;
    memset(s.ids, 0, sizeof(s.ids));
    ok(arb_store_problems(st, 1, seen_problem, &s, &err), &err);
    cr_assert_str_eq(s.ids, "ec-", "a problem of no case stays");
    ok(arb_store_judgments(st, 1, NULL, seen_judgment, &judgments, &err), &err);
    cr_assert_eq(judgments, 2);
    ok(arb_store_runs(st, 1, seen_run, &n_cases, &err), &err);
    cr_assert_eq(n_cases, 2);

    /* Another run is untouched until it is added; then it has the same case ids. */
    cr_assert_eq(count(st, 2, "verdicts"), N_CASES);
    ok(arb_store_scope_add_run(st, 2, &err), &err);
    for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
        cr_assert_eq(count(st, 2, tables[i]), 2 + (strcmp(tables[i], "problems") == 0), "%s",
                     tables[i]);
    arb_store_close(st);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM verdicts"), 2 * N_CASES,
                 "nothing reaches the file");
}

Test(store_scope, should_take_the_first_cases_without_ids, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = two_runs();
    struct arb_err err = {{0}};
    struct arb_case_select first3 = {3, NULL, 0}, first1 = {1, NULL, 0};
    struct seen s = {{0}, 0};

    ok(arb_store_scope(st, 1, &first3, &err), &err);
    ok(arb_store_verdicts(st, 1, NULL, seen_verdict, &s, &err), &err);
    cr_assert_str_eq(s.ids, "edc");
    ok(arb_store_scope(st, 1, &first1, &err), &err);
    cr_assert_eq(count(st, 1, "verdicts"), 1, "a second call replaces the selection");
    arb_store_close(st);
}

Test(store_scope, should_refuse_an_id_the_run_lacks, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = two_runs();
    struct arb_err err = {{0}};
    const char *named[] = {"a", "zz"};
    struct arb_case_select sel = {0, named, 2};

    cr_assert_eq(arb_store_scope(st, 1, &sel, &err), ARB_EUSAGE);
    cr_assert_str_eq(err.msg, "case 'zz' is not in run 1");
    arb_store_close(st);
}

Test(store_scope, should_change_nothing_without_a_selection, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = two_runs();
    struct arb_err err = {{0}};
    struct arb_case_select none = {0, NULL, 0};

    ok(arb_store_scope(st, 1, &none, &err), &err);
    ok(arb_store_scope_add_run(st, 2, &err), &err);
    cr_assert_eq(count(st, 1, "verdicts"), N_CASES);
    cr_assert_eq(count(st, 2, "verdicts"), N_CASES);
    arb_store_close(st);
}
