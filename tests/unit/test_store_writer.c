/*
 * test_store_writer.c - arb_store_writer: writes on a second thread leave
 * exactly the records of the same writes made at once; a failure stops every
 * later write and comes back with its message; what was committed is what a
 * second connection reads.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <sqlite3.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"
#include "arbiter/store.h"
#include "store_fixture.h"

#define N_CASES 700 /* ~ 20 writes a case: many chunks, more than the queue holds */

static int64_t new_run(struct arb_store *st)
{
    return fx_new_run(st, "[{\"name\":\"a\",\"path\":\"a\"},{\"name\":\"b\",\"path\":\"b\"}]");
}

/* Every kind of write, with NULLs, NaN, NUL bytes in an output, and a commit every 64 cases. */
static void write_all(struct arb_store_writer *w, int64_t run)
{
    struct arb_err err = {{0}};
    char id[32], rec[64], content[] = "x\0y binary-ish";

    cr_assert_eq(arb_store_writer_begin(w, &err), ARB_OK, "%s", err.msg);
    for (int i = 0; i < N_CASES; i++) {
        struct arb_output_row o = {id,      i % 2 ? "a" : "b",   i % 3 ? "" : "f.txt",
                                   content, sizeof(content) - 1, i % 5 == 0,
                                   "h",     i % 4 ? NULL : "{}", i % 6};
        struct arb_verdict_row v = {id,  "a", "b",  i % 3 ? "decided" : "pending_judge", NULL, 1.5,
                                    NAN, 0.5, 0.25, i % 7 ? "{\"winner\":\"A\"}" : NULL};
        struct arb_trial_row t = {id, "a", i % 3, i % 2, 2, 1, i % 4, "[]"};

        snprintf(id, sizeof(id), "c%04d", i);
        snprintf(rec, sizeof(rec), "{\"case\":%d}", i);
        v.winner = i % 3 ? (i % 2 ? "a" : "TIE") : NULL;
        cr_assert_eq(arb_store_writer_put_case(w, run, id, i, i % 2 ? "p" : NULL, NULL, "{}", &err),
                     ARB_OK, "%s", err.msg);
        cr_assert_eq(arb_store_writer_put_output(w, run, &o, &err), ARB_OK, "%s", err.msg);
        if (i % 50 == 0)
            cr_assert_eq(arb_store_writer_put_problem(w, run, "unknown_case", id, NULL, "m", &err),
                         ARB_OK, "%s", err.msg);
        for (int k = 0; k < 12; k++) {
            char item[8];
            struct arb_check_row c = {id,
                                      k % 2 ? "a" : "b",
                                      "expectation",
                                      item,
                                      rec,
                                      k % 3 ? "pass" : "unresolved",
                                      k % 3 ? 1.0 / (k + 1) : NAN, 0, 0};

            snprintf(item, sizeof(item), "e%d", k);
            cr_assert_eq(arb_store_writer_put_check(w, run, &c, &err), ARB_OK, "%s", err.msg);
        }
        cr_assert_eq(arb_store_writer_put_blinding(w, run, id, "a", "b", "ff", &err), ARB_OK);
        cr_assert_eq(arb_store_writer_put_verdict(w, run, &v, &err), ARB_OK, "%s", err.msg);
        cr_assert_eq(arb_store_writer_put_trial(w, run, &t, &err), ARB_OK, "%s", err.msg);
        if (i % 64 == 63) {
            cr_assert_eq(arb_store_writer_commit(w, &err), ARB_OK, "%s", err.msg);
            cr_assert_eq(arb_store_writer_begin(w, &err), ARB_OK, "%s", err.msg);
        }
    }
    cr_assert_eq(arb_store_writer_commit(w, &err), ARB_OK, "%s", err.msg);
}

/* Every table's rows as text, in id or key order. */
static char *dump(const char *path)
{
    static const char *const q[] = {
        "SELECT case_id, seq, prompt, expected_json, case_json FROM cases ORDER BY seq",
        "SELECT id, case_id, system, trial, file, hex(content), size, binary, sha256, meta_json "
        "FROM outputs ORDER BY id",
        "SELECT id, kind, case_id, system, message FROM problems ORDER BY id",
        "SELECT id, case_id, system, kind, item, verdict, quote(score), record_json FROM v_checks "
        "ORDER BY id",
        "SELECT case_id, system_a, system_b, hmac FROM blinding ORDER BY rowid",
        "SELECT id, case_id, status, winner, quote(score_a), quote(score_b), pass_rate_a, "
        "pass_rate_b, comparison_json FROM v_verdicts ORDER BY id",
        "SELECT case_id, system, trial, passed, n_pass, n_fail, n_unresolved, records_json FROM "
        "trials ORDER BY rowid"};
    sqlite3 *db = NULL;
    struct arb_buf out;

    arb_buf_init(&out, 0);
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    for (size_t k = 0; k < sizeof(q) / sizeof(q[0]); k++) {
        sqlite3_stmt *s = NULL;

        cr_assert_eq(sqlite3_prepare_v2(db, q[k], -1, &s, NULL), SQLITE_OK, "%s",
                     sqlite3_errmsg(db));
        while (sqlite3_step(s) == SQLITE_ROW) {
            for (int c = 0; c < sqlite3_column_count(s); c++) {
                const unsigned char *t = sqlite3_column_text(s, c);

                cr_assert_eq(arb_buf_adds(&out, t ? (const char *)t : "NULL"), ARB_OK);
                cr_assert_eq(arb_buf_addc(&out, '|'), ARB_OK);
            }
            cr_assert_eq(arb_buf_addc(&out, '\n'), ARB_OK);
        }
        sqlite3_finalize(s);
    }
    sqlite3_close(db);
    return out.ptr;
}

static char *write_with(int threaded, int *was_threaded)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_store_writer *w = NULL;
    struct arb_err err = {{0}};
    int64_t run = new_run(st);
    char *text;

    cr_assert_eq(arb_store_writer_start(st, threaded, &w, &err), ARB_OK, "%s", err.msg);
    *was_threaded = arb_store_writer_threaded(w);
    write_all(w, run);
    cr_assert_eq(arb_store_writer_finish(w, &err), ARB_OK, "%s", err.msg);
    arb_store_close(st);
    text = dump(fx_db_path);
    cr_assert_gt(strlen(text), 100000);
    fx_teardown();
    fx_setup();
    return text;
}

Test(store_writer, should_store_exactly_what_writing_at_once_stores, .init = fx_setup,
     .fini = fx_teardown)
{
    int threaded = 0, in_line = 1;
    char *a = write_with(1, &threaded), *b = write_with(0, &in_line);

    cr_assert(threaded, "no thread was started");
    cr_assert(!in_line);
    cr_assert_eq(strlen(a), strlen(b));
    cr_assert(strcmp(a, b) == 0, "the writer thread stored other records than writing at once");
    free(a);
    free(b);
}

Test(store_writer, should_stop_at_the_first_failure_and_give_its_message, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0), *rd;
    struct arb_store_writer *w = NULL;
    struct arb_err err = {{0}};
    int64_t run = new_run(st), n = -1;
    struct arb_check_row good = {"c1", "a", "expectation", "e1", "{}", "pass", 1.0, 0, 0};
    struct arb_check_row bad = {"c1", "a", "expectation", "e2", "{}", "maybe", 1.0, 0, 0};
    struct arb_check_row later = {"c1", "a", "expectation", "e3", "{}", "pass", 1.0, 0, 0};
    enum arb_status rc = ARB_OK;

    cr_assert_eq(arb_store_writer_start(st, 1, &w, &err), ARB_OK);
    cr_assert(arb_store_writer_threaded(w));
    /* A committed batch, then one that fails part-way. */
    cr_assert_eq(arb_store_writer_begin(w, &err), ARB_OK);
    cr_assert_eq(arb_store_writer_put_check(w, run, &good, &err), ARB_OK);
    cr_assert_eq(arb_store_writer_commit(w, &err), ARB_OK);
    cr_assert_eq(arb_store_writer_sync(w, &err), ARB_OK, "%s", err.msg);
    /* What was committed, a second connection reads. */
    cr_assert_eq(arb_store_open(fx_db_path, ARB_STORE_READONLY, &rd, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_count(rd, run, "checks", &n, &err), ARB_OK);
    cr_assert_eq(n, 1);
    cr_assert_eq(arb_store_writer_begin(w, &err), ARB_OK);
    arb_store_writer_put_check(w, run, &bad, &err);
    /* Later calls return the failure, with its message, once the thread has met it. */
    memset(&err, 0, sizeof(err));
    for (int i = 0; i < 200000 && !rc; i++)
        rc = arb_store_writer_put_check(w, run, &later, &err);
    cr_assert_neq(rc, ARB_OK, "the failure never came back");
    cr_assert(strstr(err.msg, "cannot put a check"), "a write's failure without its message: '%s'",
              err.msg);
    memset(&err, 0, sizeof(err));
    cr_assert_neq(arb_store_writer_sync(w, &err), ARB_OK);
    cr_assert(strstr(err.msg, "cannot put a check") && strstr(err.msg, "CHECK constraint"),
              "the message does not say what failed: %s", err.msg);
    cr_assert_neq(arb_store_writer_commit(w, &err), ARB_OK, "a commit after a failure");
    memset(&err, 0, sizeof(err));
    cr_assert_neq(arb_store_writer_finish(w, &err), ARB_OK);
    cr_assert(err.msg[0], "finish gave no message");
    arb_store_rollback(st);
    /* Nothing of the failed batch: not the rows before the failure, nor after. */
    cr_assert_eq(arb_store_count(rd, run, "checks", &n, &err), ARB_OK);
    cr_assert_eq(n, 1);
    arb_store_close(rd);
    arb_store_close(st);
    cr_assert_eq(fx_integrity_ok(), 1);
}

Test(store_writer, should_write_at_once_without_a_thread, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_store_writer *w = NULL;
    struct arb_err err = {{0}};
    int64_t run = new_run(st), n = -1;
    struct arb_check_row bad = {"c1", "a", "expectation", "e2", "{}", "maybe", 1.0, 0, 0};

    cr_assert_eq(arb_store_writer_start(st, 0, &w, &err), ARB_OK);
    cr_assert(!arb_store_writer_threaded(w));
    cr_assert_eq(arb_store_writer_begin(w, &err), ARB_OK);
    cr_assert_eq(arb_store_writer_put_blinding(w, run, "c1", "a", "b", "ff", &err), ARB_OK);
    /* In line, the row is there at once, and a failure comes back from its own call. */
    cr_assert_eq(arb_store_count(st, run, "blinding", &n, &err), ARB_OK);
    cr_assert_eq(n, 1);
    cr_assert_neq(arb_store_writer_put_check(w, run, &bad, &err), ARB_OK);
    cr_assert(strstr(err.msg, "cannot put a check"), "%s", err.msg);
    cr_assert_eq(arb_store_writer_finish(w, &err), ARB_OK, "in line, finish has nothing to report");
    arb_store_rollback(st);
    arb_store_close(st);
}
