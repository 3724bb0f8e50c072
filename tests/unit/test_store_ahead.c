/*
 * test_store_ahead.c - arb_store_verdicts_ahead gives exactly the rows of
 * arb_store_verdicts, in the same order, across many batches, and stops
 * where the callback stops it, leaving the store usable.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"
#include "arbiter/store.h"
#include "store_fixture.h"

#define N_CASES 1500 /* more than the queue holds (4 batches of 128) */

/* A run whose verdicts vary every field: NULL winners and comparisons, NaN scores, long texts. */
static struct arb_store *filled_store(int64_t *run)
{
    struct arb_store *st = NULL;
    struct arb_err err = {{0}};
    struct arb_run_row r = {.suite_path = "s.json",
                            .suite_name = "ahead",
                            .suite_sha256 = "00",
                            .suite_json = "{}",
                            .systems_json = "[{\"name\":\"a\",\"path\":\"a\"},"
                                            "{\"name\":\"b\",\"path\":\"b\"}]",
                            .seed = 1,
                            .version = "0"};
    char id[32], *json = malloc(20000);

    cr_assert_not_null(json);
    cr_assert_eq(arb_store_open(fx_db_path, 0, &st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_run_create(st, &r, run, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    for (int i = 0; i < N_CASES; i++) {
        size_t len = (size_t)(i % 7 == 0 ? 15000 : 20 + i % 50);
        struct arb_verdict_row v = {id,
                                    "a",
                                    "b",
                                    i % 5 == 0 ? "pending_judge" : "decided",
                                    i % 5 == 0 ? NULL : (i % 3 ? "a" : "TIE"),
                                    i % 11 ? i * 0.5 : NAN,
                                    -i,
                                    i % 13 ? 1.0 / (i + 1) : NAN,
                                    0.25,
                                    i % 9 == 0 ? NULL : json};

        /* Case ids whose text order differs from the case order. */
        snprintf(id, sizeof(id), "c%d", (i * 7919) % 100003);
        memset(json, 'x', len);
        json[0] = (char)('A' + i % 26);
        json[len] = '\0';
        cr_assert_eq(arb_store_put_case(st, *run, id, i, "p", NULL, NULL, &err), ARB_OK, "%s",
                     err.msg);
        cr_assert_eq(arb_store_put_verdict(st, *run, &v, &err), ARB_OK, "%s", err.msg);
    }
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    free(json);
    return st;
}

struct trace {
    struct arb_buf text; /* every row, field by field */
    int n, stop_after;   /* stop_after 0: never */
};

static void add_text(struct arb_buf *b, const char *s)
{
    cr_assert_eq(s ? arb_buf_adds(b, s) : arb_buf_adds(b, "(null)"), ARB_OK);
    cr_assert_eq(arb_buf_addc(b, '|'), ARB_OK);
}

static int record(void *ctx, const struct arb_verdict_row *v)
{
    struct trace *t = ctx;
    char num[128];

    add_text(&t->text, v->case_id);
    add_text(&t->text, v->system_a);
    add_text(&t->text, v->system_b);
    add_text(&t->text, v->status);
    add_text(&t->text, v->winner);
    add_text(&t->text, v->comparison_json);
    snprintf(num, sizeof(num), "%.17g/%.17g/%.17g/%.17g\n", v->score_a, v->score_b, v->pass_rate_a,
             v->pass_rate_b);
    add_text(&t->text, num);
    return ++t->n == t->stop_after;
}

Test(store_ahead, should_give_the_rows_of_arb_store_verdicts_in_order, .init = fx_setup,
     .fini = fx_teardown)
{
    int64_t run = 0;
    struct arb_store *st = filled_store(&run);
    struct arb_err err = {{0}};
    struct trace in_line = {.stop_after = 0}, ahead = {.stop_after = 0};

    arb_buf_init(&in_line.text, 0);
    arb_buf_init(&ahead.text, 0);
    cr_assert_eq(arb_store_verdicts(st, run, NULL, record, &in_line, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_verdicts_ahead(st, run, record, &ahead, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(in_line.n, N_CASES);
    cr_assert_eq(ahead.n, N_CASES);
    cr_assert_eq(ahead.text.len, in_line.text.len);
    cr_assert(memcmp(ahead.text.ptr, in_line.text.ptr, in_line.text.len) == 0,
              "the rows read ahead differ from the rows read in line");
    arb_buf_release(&in_line.text);
    arb_buf_release(&ahead.text);
    arb_store_close(st);
}

Test(store_ahead, should_stop_where_the_callback_stops_and_leave_the_store_usable, .init = fx_setup,
     .fini = fx_teardown)
{
    int64_t run = 0, n = 0;
    struct arb_store *st = filled_store(&run);
    struct arb_err err = {{0}};
    /* Inside the first batch, at its end, just past it, with the queue full, near the end. */
    int stops[] = {1, 128, 129, 700, N_CASES - 1};

    for (size_t k = 0; k < sizeof(stops) / sizeof(stops[0]); k++) {
        struct trace in_line = {.stop_after = stops[k]}, ahead = {.stop_after = stops[k]};

        arb_buf_init(&in_line.text, 0);
        arb_buf_init(&ahead.text, 0);
        cr_assert_eq(arb_store_verdicts(st, run, NULL, record, &in_line, &err), ARB_OK);
        cr_assert_eq(arb_store_verdicts_ahead(st, run, record, &ahead, &err), ARB_OK, "%s",
                     err.msg);
        cr_assert_eq(ahead.n, stops[k], "stopped after %d rows, not %d", ahead.n, stops[k]);
        cr_assert_eq(ahead.text.len, in_line.text.len);
        cr_assert(memcmp(ahead.text.ptr, in_line.text.ptr, in_line.text.len) == 0);
        arb_buf_release(&in_line.text);
        arb_buf_release(&ahead.text);
        /* The reader has finished with the connection. */
        cr_assert_eq(arb_store_count(st, run, "verdicts", &n, &err), ARB_OK, "%s", err.msg);
        cr_assert_eq(n, N_CASES);
    }
    arb_store_close(st);
}

Test(store_ahead, should_give_nothing_for_a_run_without_verdicts, .init = fx_setup,
     .fini = fx_teardown)
{
    int64_t run = 0;
    struct arb_store *st = filled_store(&run);
    struct arb_err err = {{0}};
    struct trace t = {.stop_after = 0};

    arb_buf_init(&t.text, 0);
    cr_assert_eq(arb_store_verdicts_ahead(st, run + 1, record, &t, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(t.n, 0);
    arb_buf_release(&t.text);
    arb_store_close(st);
}
