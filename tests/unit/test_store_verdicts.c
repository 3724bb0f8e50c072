/*
 * test_store_verdicts.c - each distinct comparison.json of a run stored once (migration 11):
 * verdicts with the same text share one row of verdict_texts, every verdict reads back byte
 * for byte as it was put (in C, case by case and whole, and through v_verdicts), a pending
 * verdict's own text is replaced in place by the judge's verdict, a put that finds its verdict
 * there leaves no text behind, a rollback does not leave the store referring to a text it
 * took back, and a file of version 10 reads the same after migrating.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/status.h"
#include "arbiter/store.h"
#include "store_fixture.h"

static const char cmp_a[] = "{\"winner\":\"A\",\"status\":\"decided\",\"reasoning\":\"A \\u00e9\"}";
static const char cmp_b[] = "{\"winner\":\"B\",\"status\":\"decided\"}";
static const char cmp_pending[] = "{\"winner\":null,\"status\":\"pending_judge\"}";
static const char cmp_judged[] = "{\"winner\":\"A\",\"status\":\"decided\",\"judge\":{}}";

struct seen {
    size_t n;
    char *cmp[16];
    char *status[16];
};

static int collect(void *ctx, const struct arb_verdict_row *v)
{
    struct seen *s = ctx;

    cr_assert_lt(s->n, 16);
    s->cmp[s->n] = v->comparison_json ? strdup(v->comparison_json) : NULL;
    s->status[s->n++] = strdup(v->status);
    return 0;
}

static void seen_release(struct seen *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->cmp[i]);
        free(s->status[i]);
    }
    s->n = 0;
}

static int64_t setup_run(struct arb_store *st, int cases)
{
    struct arb_err err = {{0}};
    int64_t run = fx_new_run(st, "[{\"name\":\"a\"},{\"name\":\"b\"}]");

    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    for (int i = 0; i < cases; i++) {
        char id[16];

        snprintf(id, sizeof(id), "k%d", i);
        cr_assert_eq(arb_store_put_case(st, run, id, i, NULL, NULL, "{}", &err), ARB_OK, "%s",
                     err.msg);
    }
    return run;
}

static void put(struct arb_store *st, int64_t run, const char *case_id, const char *status,
                const char *cmp, int replace)
{
    struct arb_verdict_row v = {case_id, "a", "b", status, NULL, 1, 2, 1, 0.5, cmp};
    struct arb_err err = {{0}};
    enum arb_status ret = replace ? arb_store_set_verdict(st, run, &v, &err)
                                  : arb_store_put_verdict(st, run, &v, &err);

    cr_assert_eq(ret, ARB_OK, "%s", err.msg);
}

/* The run's verdicts through the store, in case order. */
static void read_all(struct arb_store *st, int64_t run, struct seen *got)
{
    struct arb_err err = {{0}};

    cr_assert_eq(arb_store_verdicts(st, run, NULL, collect, got, &err), ARB_OK, "%s", err.msg);
}

/* v_verdicts' comparison_json of case_id, as quote() gives it: NULL reads "NULL". */
static int view_is(const char *case_id, const char *cmp)
{
    char sql[512];

    if (!cmp) {
        snprintf(sql, sizeof(sql),
                 "SELECT comparison_json IS NULL FROM v_verdicts WHERE case_id = '%s'", case_id);
        return fx_raw_int(sql) == 1;
    }
    snprintf(sql, sizeof(sql),
             "SELECT comparison_json = '%s' FROM v_verdicts WHERE case_id = '%s'", cmp, case_id);
    return fx_raw_int(sql) == 1;
}

Test(store_verdicts, should_store_each_distinct_text_once_and_read_every_verdict_back,
     .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_err err = {{0}};
    struct seen got = {0};
    int64_t run = setup_run(st, 6);

    put(st, run, "k0", "decided", cmp_a, 0);
    put(st, run, "k1", "decided", cmp_b, 0);
    put(st, run, "k2", "decided", cmp_a, 0);
    put(st, run, "k3", "decided", cmp_a, 0);
    put(st, run, "k4", "missing_output", NULL, 0);
    put(st, run, "k5", "decided", cmp_b, 0);
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM verdict_texts"), 2);
    cr_assert_eq(fx_raw_int("SELECT count(DISTINCT comparison) FROM verdicts"), 2);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM verdicts WHERE comparison_inline IS NOT NULL"),
                 0);
    read_all(st, run, &got);
    cr_assert_eq(got.n, 6);
    cr_assert_str_eq(got.cmp[0], cmp_a);
    cr_assert_str_eq(got.cmp[1], cmp_b);
    cr_assert_str_eq(got.cmp[2], cmp_a);
    cr_assert_str_eq(got.cmp[3], cmp_a);
    cr_assert_null(got.cmp[4]);
    cr_assert_str_eq(got.cmp[5], cmp_b);
    seen_release(&got);
    /* One case's verdicts, and the view, the same. */
    cr_assert_eq(arb_store_verdicts(st, run, "k2", collect, &got, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(got.n, 1);
    cr_assert_str_eq(got.cmp[0], cmp_a);
    seen_release(&got);
    cr_assert(view_is("k0", cmp_a));
    cr_assert(view_is("k4", NULL));
    cr_assert(view_is("k5", cmp_b));
    arb_store_close(st);
}

Test(store_verdicts, should_replace_a_pending_verdicts_own_text_in_place, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_err err = {{0}};
    struct seen got = {0};
    int64_t run = setup_run(st, 3), own;

    /* Two pending verdicts of the same text: each has a text of its own. */
    put(st, run, "k0", "pending_judge", cmp_pending, 0);
    put(st, run, "k1", "pending_judge", cmp_pending, 0);
    put(st, run, "k2", "decided", cmp_a, 0);
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM verdict_texts"), 3);
    own = fx_raw_int("SELECT comparison FROM verdicts WHERE case_id = 'k0'");
    /* The judge decides k0: its text is replaced where it stands; k1 keeps its own. */
    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    put(st, run, "k0", "decided", cmp_judged, 1);
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM verdict_texts"), 3);
    cr_assert_eq(fx_raw_int("SELECT comparison FROM verdicts WHERE case_id = 'k0'"), own);
    read_all(st, run, &got);
    cr_assert_str_eq(got.status[0], "decided");
    cr_assert_str_eq(got.cmp[0], cmp_judged);
    cr_assert_str_eq(got.status[1], "pending_judge");
    cr_assert_str_eq(got.cmp[1], cmp_pending);
    cr_assert_str_eq(got.cmp[2], cmp_a);
    seen_release(&got);
    /* Replacing a decided verdict (its text shared) leaves the shared text as it was. */
    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    put(st, run, "k3", "decided", cmp_a, 0);
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    put(st, run, "k2", "decided", cmp_b, 1);
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    cr_assert(view_is("k2", cmp_b));
    cr_assert(view_is("k3", cmp_a));
    /* A pending verdict decided without a text leaves none of its own behind. */
    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    put(st, run, "k1", "missing_output", NULL, 1);
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    cr_assert(view_is("k1", NULL));
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM verdict_texts t WHERE NOT EXISTS (SELECT 1 "
                            "FROM verdicts v WHERE v.comparison = t.id)"),
                 0);
    arb_store_close(st);
}

Test(store_verdicts, should_leave_no_text_when_the_verdict_was_there, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_err err = {{0}};
    int64_t run = setup_run(st, 1);

    put(st, run, "k0", "decided", cmp_a, 0);
    /* A resumed run puts it again with another text (and a pending one): the first stays. */
    put(st, run, "k0", "decided", cmp_b, 0);
    put(st, run, "k0", "pending_judge", cmp_pending, 0);
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM verdict_texts"), 1);
    cr_assert(view_is("k0", cmp_a));
    arb_store_close(st);
}

Test(store_verdicts, should_not_refer_to_a_text_a_rollback_took_back, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_err err = {{0}};
    struct seen got = {0};
    int64_t run = setup_run(st, 2);

    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    put(st, run, "k0", "decided", cmp_a, 0);
    arb_store_rollback(st);
    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    put(st, run, "k1", "decided", cmp_a, 0);
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    read_all(st, run, &got);
    cr_assert_eq(got.n, 1);
    cr_assert_not_null(got.cmp[0], "k1's text was taken back by the rollback");
    cr_assert_str_eq(got.cmp[0], cmp_a);
    seen_release(&got);
    arb_store_close(st);
}

Test(store_verdicts, should_read_verdicts_of_a_version_10_file_the_same_after_migrating,
     .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_err err = {{0}};
    struct seen got = {0};
    int64_t run = setup_run(st, 3);

    put(st, run, "k0", "decided", cmp_a, 0);
    put(st, run, "k1", "pending_judge", cmp_pending, 0);
    put(st, run, "k2", "decided", cmp_a, 0);
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    arb_store_close(st);
    /* Version 10: each verdict's text in its row. */
    fx_raw_exec(UNDO_MIGRATION_11 "PRAGMA user_version = 10");
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM verdicts WHERE comparison_json IS NOT NULL"), 3);
    st = fx_open_store(0);
    cr_assert_eq(fx_raw_int("PRAGMA user_version"), arb_store_latest_schema());
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM verdicts WHERE comparison_inline IS NOT NULL"),
                 3);
    read_all(st, run, &got);
    cr_assert_eq(got.n, 3);
    cr_assert_str_eq(got.cmp[0], cmp_a);
    cr_assert_str_eq(got.cmp[1], cmp_pending);
    cr_assert_str_eq(got.cmp[2], cmp_a);
    seen_release(&got);
    cr_assert(view_is("k1", cmp_pending));
    /* The judge decides the pending one: its text moves to verdict_texts. */
    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    put(st, run, "k1", "decided", cmp_judged, 1);
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(
        fx_raw_int("SELECT comparison_inline IS NULL AND comparison IS NOT NULL FROM verdicts "
                   "WHERE case_id = 'k1'"),
        1);
    cr_assert(view_is("k1", cmp_judged));
    cr_assert_eq(fx_integrity_ok(), 1);
    arb_store_close(st);
}
