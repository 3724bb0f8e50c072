/*
 * Unit tests for the SQLite store on real files in a mkdtemp directory under
 * /tmp (store_fixture.c; removed after each test): reopening; idempotent
 * puts; iteration orders; run resolution; refusing garbage files, newer
 * schemas and writes to a read-only store; transactions; a child killed with
 * SIGKILL between batches; and every example query of db/README.md against a
 * small populated run.  The migrations are in test_store_migrate.c.
 *
 * The tests open their own SQLite connection to inspect the file (pragmas,
 * integrity_check, the README's queries): that checks the on-disk format
 * rather than the store's own reading of it.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <sqlite3.h>

#include "arbiter/labels.h"
#include "arbiter/status.h"
#include "arbiter/store.h"
#include "store_fixture.h"

static int64_t new_run(struct arb_store *st, const char *name)
{
    struct arb_run_row r = {
        .suite_path = "suite.json",
        .suite_name = name,
        .suite_sha256 = "00ff",
        .suite_json = "{}",
        .systems_json = "[{\"name\":\"baseline\",\"path\":\"b.jsonl\"},"
                        "{\"name\":\"candidate\",\"path\":\"c/\"}]",
        .seed = 18446744073709551615u,
        .version = "0.1.0",
    };
    struct arb_err err = {{0}};
    int64_t id = 0;

    cr_assert_eq(arb_store_run_create(st, &r, &id, &err), ARB_OK, "%s", err.msg);
    cr_assert_gt(id, 0);
    return id;
}

static void begin(struct arb_store *st)
{
    struct arb_err err = {{0}};

    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
}

static void commit(struct arb_store *st)
{
    struct arb_err err = {{0}};

    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
}

static void put_check(struct arb_store *st, int64_t run, const char *case_id, const char *system,
                      const char *kind, const char *item, const char *verdict, double score)
{
    struct arb_check_row c = {case_id, system, kind, item, "{\"operator\":\"exact\"}",
                              verdict, score, 0, 0};
    struct arb_err err = {{0}};

    cr_assert_eq(arb_store_put_check(st, run, &c, &err), ARB_OK, "%s", err.msg);
}

static void put_verdict(struct arb_store *st, int64_t run, const char *case_id, const char *status,
                        const char *winner)
{
    struct arb_verdict_row v = {case_id, "candidate", "baseline", status, winner,
                                7.5,     6.0,         1.0,        0.5,    "{\"winner\":\"A\"}"};
    struct arb_err err = {{0}};

    cr_assert_eq(arb_store_put_verdict(st, run, &v, &err), ARB_OK, "%s", err.msg);
}

static int64_t count(struct arb_store *st, int64_t run, const char *table)
{
    struct arb_err err = {{0}};
    int64_t n = -1;

    cr_assert_eq(arb_store_count(st, run, table, &n, &err), ARB_OK, "%s", err.msg);
    return n;
}

/* ---- opening ----------------------------------------------------------------------------- */

Test(store, should_keep_data_after_reopening, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    int64_t run = new_run(st, "keep");

    begin(st);
    put_check(st, run, "c1", "baseline", "expectation", "e1", "pass", 1.0);
    commit(st);
    arb_store_close(st);
    st = fx_open_store(0);
    cr_assert_eq(count(st, run, "checks"), 1);
    cr_assert_eq(count(st, run, "systems"), 2);
    arb_store_close(st);
}

Test(store, should_refuse_a_file_that_is_not_a_database, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = (struct arb_store *)1;
    struct arb_err err = {{0}};
    char junk[4096];
    FILE *f = fopen(fx_db_path, "wb");

    cr_assert_not_null(f);
    for (size_t i = 0; i < sizeof(junk); i++)
        junk[i] = (char)('a' + i % 26);
    fwrite(junk, 1, sizeof(junk), f);
    fclose(f);
    cr_assert_eq(arb_store_open(fx_db_path, 0, &st, &err), ARB_EDB);
    cr_assert_null(st);
    cr_assert(strstr(err.msg, "is not an Arbiter database (file is not a database)"), "%s",
              err.msg);
    cr_assert(strstr(err.msg, fx_db_path), "%s", err.msg);
    cr_assert_eq(arb_store_open(fx_db_path, ARB_STORE_READONLY, &st, &err), ARB_EDB);
    cr_assert(strstr(err.msg, "not a database"), "%s", err.msg);
}

Test(store, should_refuse_another_applications_database, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = NULL;
    struct arb_err err = {{0}};

    fx_raw_exec("CREATE TABLE notes (x TEXT)");
    cr_assert_eq(arb_store_open(fx_db_path, 0, &st, &err), ARB_EDB);
    cr_assert(strstr(err.msg, "is not an Arbiter database"), "%s", err.msg);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM sqlite_master"), 1, "the file was changed");
}

Test(store, should_refuse_a_newer_schema, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = NULL;
    struct arb_err err = {{0}};

    arb_store_close(fx_open_store(0));
    fx_raw_exec("PRAGMA user_version = 99");
    cr_assert_eq(arb_store_open(fx_db_path, 0, &st, &err), ARB_ESCHEMA);
    cr_assert(strstr(err.msg, "schema version 99"), "%s", err.msg);
    cr_assert_null(st);
    cr_assert_eq(arb_store_open(fx_db_path, ARB_STORE_READONLY, &st, &err), ARB_ESCHEMA);
}

Test(store, should_refuse_writes_when_read_only, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = NULL;
    struct arb_run_row r = {
        .suite_path = "s", .suite_sha256 = "0", .suite_json = "{}", .version = "0"};
    struct arb_err err = {{0}};
    int64_t run, id = 0;

    /* A reader never creates the file. */
    cr_assert_eq(arb_store_open(fx_db_path, ARB_STORE_READONLY, &st, &err), ARB_EDB);
    cr_assert(strstr(err.msg, fx_db_path), "%s", err.msg);
    st = fx_open_store(0);
    run = new_run(st, "ro");
    arb_store_close(st);
    st = fx_open_store(ARB_STORE_READONLY);
    cr_assert_eq(arb_store_begin(st, &err), ARB_EUSAGE);
    cr_assert(strstr(err.msg, "read-only"), "%s", err.msg);
    cr_assert_eq(arb_store_put_case(st, run, "c1", 0, "p", NULL, NULL, &err), ARB_EUSAGE);
    cr_assert_eq(arb_store_run_create(st, &r, &id, &err), ARB_EUSAGE);
    cr_assert_eq(arb_store_run_set_status(st, run, "complete", &err), ARB_EUSAGE);
    cr_assert_eq(count(st, run, "systems"), 2, "reading still works");
    arb_store_close(st);
    /* A read-only file stops a writer; root writes through permissions, so only check as a user. */
    if (geteuid() != 0) {
        cr_assert_eq(chmod(fx_db_path, 0444), 0);
        cr_assert_eq(arb_store_open(fx_db_path, 0, &st, &err), ARB_EDB);
        cr_assert(strstr(err.msg, "read-only"), "%s", err.msg);
    }
}

/* ---- writes ------------------------------------------------------------------------------- */

Test(store, should_ignore_a_repeated_put, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_output_row o = {"c1", "baseline", "", "hello", 5, 0, "2cf2", NULL, 0};
    struct arb_check_row c2 = {"c1",   "baseline", "expectation", "e1", "{\"second\":1}",
                               "fail", 0.0, 0, 0};
    struct arb_err err = {{0}};
    int64_t run = new_run(st, "twice");
    int seen = 0;

    begin(st);
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(arb_store_put_case(st, run, "c1", 0, "p", "{}", "{}", &err), ARB_OK);
        cr_assert_eq(arb_store_put_output(st, run, &o, &err), ARB_OK, "%s", err.msg);
        cr_assert_eq(arb_store_put_blinding(st, run, "c1", "candidate", "baseline", "ab", &err),
                     ARB_OK);
        cr_assert_eq(arb_store_put_problem(st, run, "missing_output", NULL, "candidate", "m", &err),
                     ARB_OK);
        put_check(st, run, "c1", "baseline", "expectation", "e1", "pass", 1.0);
        put_verdict(st, run, "c1", "decided", "TIE");
    }
    cr_assert_eq(arb_store_put_check(st, run, &c2, &err), ARB_OK);
    commit(st);
    cr_assert_eq(count(st, run, "cases"), 1);
    cr_assert_eq(count(st, run, "outputs"), 1);
    cr_assert_eq(count(st, run, "blinding"), 1);
    cr_assert_eq(count(st, run, "problems"), 1, "NULL case ids must not defeat the key");
    cr_assert_eq(count(st, run, "checks"), 1);
    cr_assert_eq(count(st, run, "verdicts"), 1);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM checks WHERE verdict = 'pass'"), 1,
                 "the first record is kept");
    cr_assert_eq(arb_store_case_done(st, run, "c1", &seen, &err), ARB_OK);
    cr_assert_eq(seen, 1);
    cr_assert_eq(arb_store_case_done(st, run, "c2", &seen, &err), ARB_OK);
    cr_assert_eq(seen, 0);
    arb_store_close(st);
}

Test(store, should_refuse_puts_outside_a_transaction, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_err err = {{0}};
    int64_t run = new_run(st, "notx");

    cr_assert_eq(arb_store_put_case(st, run, "c1", 0, "p", NULL, NULL, &err), ARB_EUSAGE);
    cr_assert(strstr(err.msg, "outside a transaction"), "%s", err.msg);
    cr_assert_eq(arb_store_commit(st, &err), ARB_EUSAGE);
    arb_store_close(st);
}

Test(store, should_report_constraint_failures_with_the_table, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_check_row c = {"c1", "baseline", "expectation", "e1", "{}", "maybe", 0.5, 0, 0};
    struct arb_err err = {{0}};
    int64_t run = new_run(st, "bad");

    begin(st);
    cr_assert_eq(arb_store_put_check(st, run, &c, &err), ARB_EUSAGE);
    cr_assert(strstr(err.msg, "cannot put a check in"), "%s", err.msg);
    cr_assert(strstr(err.msg, "CHECK constraint failed"), "%s", err.msg);
    cr_assert_eq(arb_store_put_case(st, run + 1, "c1", 0, "p", NULL, NULL, &err), ARB_EUSAGE);
    cr_assert(strstr(err.msg, "FOREIGN KEY"), "%s", err.msg);
    arb_store_rollback(st);
    arb_store_close(st);
}

Test(store, should_forget_a_rolled_back_transaction, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    int64_t run = new_run(st, "tx");

    begin(st);
    put_check(st, run, "c1", "baseline", "expectation", "kept", "pass", 1.0);
    commit(st);
    begin(st);
    put_check(st, run, "c1", "baseline", "expectation", "dropped", "pass", 1.0);
    arb_store_rollback(st);
    cr_assert_eq(count(st, run, "checks"), 1);
    /* A transaction left open at close is not committed. */
    begin(st);
    put_check(st, run, "c1", "baseline", "expectation", "open", "pass", 1.0);
    arb_store_close(st);
    st = fx_open_store(0);
    cr_assert_eq(count(st, run, "checks"), 1);
    arb_store_close(st);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM checks WHERE item = 'kept'"), 1);
}

Test(store, should_undo_a_failed_run_create_alone, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_run_row r = {.suite_path = "s",
                            .suite_sha256 = "0",
                            .suite_json = "{}",
                            .systems_json = "[{\"name\": \"a\"}, {\"path\": \"no name\"}]",
                            .version = "0"};
    struct arb_err err = {{0}};
    int64_t run = new_run(st, "first"), id = 0;

    begin(st);
    put_check(st, run, "c1", "baseline", "expectation", "e1", "pass", 1.0);
    cr_assert_eq(arb_store_run_create(st, &r, &id, &err), ARB_EUSAGE);
    cr_assert(strstr(err.msg, "systems.name"), "%s", err.msg);
    commit(st);
    cr_assert_eq(count(st, run, "checks"), 1, "the caller's writes stay");
    arb_store_close(st);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM runs"), 1);
}

/* ---- reading ------------------------------------------------------------------------------ */

struct seen {
    char text[16][64];
    size_t n;
    int nested;
    struct arb_store *st;
    int64_t run;
};

static int seen_check(void *ctx, const struct arb_check_row *c)
{
    struct seen *s = ctx;

    snprintf(s->text[s->n++], sizeof(s->text[0]), "%s/%s/%s", c->case_id, c->system, c->item);
    return 0;
}

static int count_check(void *ctx, const struct arb_check_row *c)
{
    (*(int *)ctx)++;
    return 0;
}

/* Iterating checks again from inside a callback must not disturb the outer iteration. */
static int nested_check(void *ctx, const struct arb_check_row *c)
{
    struct seen *s = ctx;
    int inner = 0;

    cr_assert_eq(arb_store_checks(s->st, s->run, c->case_id, count_check, &inner, NULL), ARB_OK);
    s->nested += inner;
    return seen_check(ctx, c);
}

static int seen_verdict(void *ctx, const struct arb_verdict_row *v)
{
    struct seen *s = ctx;

    snprintf(s->text[s->n++], sizeof(s->text[0]), "%s:%s", v->case_id, v->winner ? v->winner : "-");
    return 0;
}

static int seen_output(void *ctx, const struct arb_output_row *o)
{
    struct seen *s = ctx;

    snprintf(s->text[s->n++], sizeof(s->text[0]), "%s/%s/%zu/%s", o->system, o->file, o->len,
             o->content ? "text" : "null");
    return 0;
}

static int seen_problem(void *ctx, const struct arb_problem_row *p)
{
    struct seen *s = ctx;

    snprintf(s->text[s->n++], sizeof(s->text[0]), "%s/%s/%s", p->kind,
             p->case_id ? p->case_id : "NULL", p->system ? p->system : "NULL");
    return 0;
}

static int stop_at_first(void *ctx, const struct arb_verdict_row *v)
{
    (*(int *)ctx)++;
    return 1;
}

Test(store, should_iterate_in_the_documented_orders, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_err err = {{0}};
    struct seen s = {.st = st};
    int64_t run = new_run(st, "order");
    const char *cases[] = {"zeta", "alpha", "mid"};
    struct arb_output_row outs[] = {
        {"alpha", "candidate", "b.txt", "bb", 2, 0, "h1", NULL, 0},
        {"alpha", "baseline", "", "a\0b", 3, 0, "h2", "{\"timing\":1}", 0},
        {"alpha", "candidate", "a.png", NULL, 1234, 1, "h3", NULL, 0},
    };
    int calls = 0;

    s.run = run;
    begin(st);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(arb_store_put_case(st, run, cases[i], i, "p", NULL, NULL, &err), ARB_OK);
    /* Verdicts arrive out of case order; checks in an order of their own. */
    put_verdict(st, run, "mid", "decided", "baseline");
    put_verdict(st, run, "zeta", "decided", "TIE");
    put_verdict(st, run, "alpha", "pending_judge", NULL);
    put_check(st, run, "mid", "candidate", "expectation", "e2", "pass", 1.0);
    put_check(st, run, "alpha", "baseline", "expectation", "e1", "fail", 0.0);
    put_check(st, run, "mid", "baseline", "criterion", "c1", "unresolved", NAN);
    for (size_t i = 0; i < 3; i++)
        cr_assert_eq(arb_store_put_output(st, run, &outs[i], &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_put_problem(st, run, "unknown_case", "ghost", NULL, "m", &err), ARB_OK);
    cr_assert_eq(arb_store_put_problem(st, run, "duplicate_output", "zeta", "baseline", "m", &err),
                 ARB_OK);
    commit(st);

    cr_assert_eq(arb_store_checks(st, run, NULL, nested_check, &s, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(s.n, 3);
    cr_assert_str_eq(s.text[0], "mid/candidate/e2");
    cr_assert_str_eq(s.text[1], "alpha/baseline/e1");
    cr_assert_str_eq(s.text[2], "mid/baseline/c1");
    cr_assert_eq(s.nested, 2 + 1 + 2);

    s.n = 0;
    cr_assert_eq(arb_store_verdicts(st, run, NULL, seen_verdict, &s, &err), ARB_OK);
    cr_assert_eq(s.n, 3);
    cr_assert_str_eq(s.text[0], "zeta:TIE");
    cr_assert_str_eq(s.text[1], "alpha:-");
    cr_assert_str_eq(s.text[2], "mid:baseline");
    s.n = 0;
    cr_assert_eq(arb_store_verdicts(st, run, "mid", seen_verdict, &s, &err), ARB_OK);
    cr_assert_eq(s.n, 1);
    cr_assert_eq(arb_store_verdicts(st, run, NULL, stop_at_first, &calls, &err), ARB_OK);
    cr_assert_eq(calls, 1, "a non-zero return stops the iteration");

    /* Outputs by the suite's system order (baseline first), then file; exact lengths. */
    s.n = 0;
    cr_assert_eq(arb_store_outputs(st, run, "alpha", seen_output, &s, &err), ARB_OK);
    cr_assert_eq(s.n, 3);
    cr_assert_str_eq(s.text[0], "baseline//3/text");
    cr_assert_str_eq(s.text[1], "candidate/a.png/1234/null");
    cr_assert_str_eq(s.text[2], "candidate/b.txt/2/text");

    s.n = 0;
    cr_assert_eq(arb_store_problems(st, run, seen_problem, &s, &err), ARB_OK);
    cr_assert_eq(s.n, 2);
    cr_assert_str_eq(s.text[0], "unknown_case/ghost/NULL");
    cr_assert_str_eq(s.text[1], "duplicate_output/zeta/baseline");
    arb_store_close(st);
}

static int keep_scores(void *ctx, const struct arb_check_row *c)
{
    *(double *)ctx = c->score;
    return 0;
}

static int keep_content(void *ctx, const struct arb_output_row *o)
{
    memcpy(ctx, o->content, o->len);
    return 0;
}

Test(store, should_round_trip_any_bytes_and_unknown_scores, .init = fx_setup, .fini = fx_teardown)
{
    static const char bytes[] = "ok\0\xff\xfe bad utf-8 \xc3";
    struct arb_store *st = fx_open_store(0);
    struct arb_output_row o = {"c", "baseline", "", bytes, sizeof(bytes) - 1, 0, "h", NULL, 0};
    struct arb_err err = {{0}};
    int64_t run = new_run(st, "bytes");
    char back[sizeof(bytes)] = {0};
    double score = 0.0;

    begin(st);
    cr_assert_eq(arb_store_put_output(st, run, &o, &err), ARB_OK, "%s", err.msg);
    put_check(st, run, "c", "baseline", "criterion", "x", "unresolved", NAN);
    commit(st);
    cr_assert_eq(arb_store_outputs(st, run, "c", keep_content, back, &err), ARB_OK);
    cr_assert(memcmp(back, bytes, sizeof(bytes) - 1) == 0);
    cr_assert_eq(arb_store_checks(st, run, "c", keep_scores, &score, &err), ARB_OK);
    cr_assert(isnan(score));
    arb_store_close(st);
}

static int keep_run(void *ctx, const struct arb_run_row *r)
{
    int64_t *ids = ctx;

    ids[ids[0] + 1] = r->id;
    ids[0]++;
    cr_assert_eq(r->seed, 18446744073709551615u);
    cr_assert_str_eq(r->status, r->id == 1 ? "complete" : "running");
    cr_assert_eq(r->n_cases, r->id == 1 ? 1 : 0);
    cr_assert_not_null(r->created_at);
    cr_assert_eq(strlen(r->created_at), 20, "%s", r->created_at);
    return 0;
}

Test(store, should_resolve_runs, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_err err = {{0}};
    int64_t id = 0, ids[4] = {0};

    cr_assert_eq(arb_store_run_resolve(st, "latest", &id, &err), ARB_EUSAGE);
    cr_assert(strstr(err.msg, "no runs in '"), "%s", err.msg);
    cr_assert_eq(new_run(st, "one"), 1);
    cr_assert_eq(new_run(st, "two"), 2);
    begin(st);
    cr_assert_eq(arb_store_put_case(st, 1, "c", 0, "p", NULL, NULL, &err), ARB_OK);
    commit(st);
    cr_assert_eq(arb_store_run_set_status(st, 1, "complete", &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_run_set_status(st, 9, "complete", &err), ARB_EUSAGE);
    cr_assert_eq(arb_store_run_set_status(st, 1, "weird", &err), ARB_EUSAGE);
    cr_assert_eq(arb_store_run_resolve(st, "latest", &id, &err), ARB_OK);
    cr_assert_eq(id, 2);
    cr_assert_eq(arb_store_run_resolve(st, "1", &id, &err), ARB_OK);
    cr_assert_eq(id, 1);
    cr_assert_eq(arb_store_run_resolve(st, "42", &id, &err), ARB_EUSAGE);
    cr_assert(strstr(err.msg, "no run 42 in '"), "%s", err.msg);
    cr_assert_eq(arb_store_run_resolve(st, "-1", &id, &err), ARB_EUSAGE);
    cr_assert_eq(arb_store_run_resolve(st, "1x", &id, &err), ARB_EUSAGE);
    cr_assert_eq(id, 1, "untouched on failure");
    cr_assert_eq(arb_store_runs(st, 0, keep_run, ids, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(ids[0], 2);
    cr_assert_eq(ids[1], 2, "newest first");
    cr_assert_eq(ids[2], 1);
    ids[0] = 0;
    cr_assert_eq(arb_store_runs(st, 1, keep_run, ids, &err), ARB_OK);
    cr_assert_eq(ids[0], 1);
    cr_assert_eq(arb_store_count(st, 1, "runs; DROP TABLE runs", &id, &err), ARB_EUSAGE);
    arb_store_close(st);
}

/* ---- crash safety ------------------------------------------------------------------------- */

#define MAX_BATCHES 1000000
#define PER_BATCH   10

/*
 * The child: commit batches of PER_BATCH checks until killed, reporting each
 * commit on fd.  It never runs out before the parent kills it, so the kill
 * lands while it is writing.
 */
static int child_writer(int fd, int64_t run)
{
    struct arb_store *st = NULL;
    char case_id[32], item[32], record[2048];

    memset(record, 'x', sizeof(record) - 1);
    record[0] = '"';
    record[sizeof(record) - 2] = '"';
    record[sizeof(record) - 1] = '\0';
    if (arb_store_open(fx_db_path, 0, &st, NULL) != ARB_OK)
        return 2;
    for (int b = 1; b <= MAX_BATCHES; b++) {
        if (arb_store_begin(st, NULL) != ARB_OK)
            return 3;
        for (int i = 0; i < PER_BATCH; i++) {
            struct arb_check_row c = {case_id, "baseline", "expectation", item, record,
                                      "pass",  1.0, 0, 0};

            snprintf(case_id, sizeof(case_id), "batch-%d", b);
            snprintf(item, sizeof(item), "e%d", i);
            if (arb_store_put_check(st, run, &c, NULL) != ARB_OK)
                return 4;
        }
        if (arb_store_commit(st, NULL) != ARB_OK)
            return 5;
        if (write(fd, &b, sizeof(b)) != (ssize_t)sizeof(b))
            return 6;
    }
    arb_store_close(st);
    return 0;
}

/* Fork a writer into run, SIGKILL it once it reports kill_at commits; return the last seen. */
static int kill_writer(int64_t run, int kill_at)
{
    int fds[2], done = 0, status = 0;
    pid_t pid;

    cr_assert_eq(pipe(fds), 0);
    pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        close(fds[0]);
        _exit(child_writer(fds[1], run));
    }
    close(fds[1]);
    while (done < kill_at && read(fds[0], &done, sizeof(done)) == (ssize_t)sizeof(done))
        ;
    kill(pid, SIGKILL);
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    close(fds[0]);
    cr_assert(WIFSIGNALED(status), "the writer exited by itself (status %d)", status);
    cr_assert_geq(done, kill_at);
    return done;
}

Test(store, should_keep_every_committed_batch_after_sigkill, .init = fx_setup, .fini = fx_teardown)
{
    static const int kill_at[] = {1, 20, 100};

    for (size_t r = 0; r < sizeof(kill_at) / sizeof(kill_at[0]); r++) {
        struct arb_store *st = fx_open_store(0);
        int64_t run = new_run(st, "crash"), n;
        int done;

        arb_store_close(st);
        done = kill_writer(run, kill_at[r]);
        cr_assert(fx_integrity_ok());
        st = fx_open_store(0);
        n = count(st, run, "checks");
        arb_store_close(st);
        cr_assert_geq(n, (int64_t)done * PER_BATCH, "%lld checks after %d batches", (long long)n,
                      done);
        cr_assert_eq(n % PER_BATCH, 0, "a partial batch survived: %lld checks", (long long)n);
    }
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM (SELECT run, case_id FROM checks "
                            "GROUP BY run, case_id HAVING count(*) <> 10)"),
                 0);
}

/* ---- views and the README's queries ------------------------------------------------------- */

/*
 * A small run: five cases, two systems, expectations, a criterion, verdicts, a problem, two
 * labels.
 */
static int64_t populate(struct arb_store *st)
{
    static const char *const systems[] = {"baseline", "candidate"};
    /* Winner per case: candidate, TIE, baseline, pending, candidate. */
    static const char *const winners[] = {"candidate", "TIE", "baseline", NULL, "candidate"};
    struct arb_err err = {{0}};
    int64_t run = new_run(st, "readme");
    char case_id[16], record[128];

    begin(st);
    for (int i = 0; i < 5; i++) {
        snprintf(case_id, sizeof(case_id), "inv-%03d", i + 1);
        cr_assert_eq(arb_store_put_case(st, run, case_id, i, "extract", "{}", "{}", &err), ARB_OK);
        cr_assert_eq(arb_store_put_blinding(st, run, case_id, systems[i % 2], systems[1 - i % 2],
                                            "ab12", &err),
                     ARB_OK);
        for (int k = 0; k < 2; k++) {
            struct arb_output_row o = {case_id, systems[k], "", "{\"total\": 1}", 12, 0,
                                       "h",     NULL,       0};
            struct arb_check_row c = {case_id, systems[k], "expectation", "valid-json", record,
                                      "pass",  1.0, 0, 0};
            struct arb_check_row r = {case_id, systems[k], "criterion", "correctness",
                                      record,  "pass",     4.0 + k, 0, 0};

            cr_assert_eq(arb_store_put_output(st, run, &o, &err), ARB_OK);
            if (k == 0 && i == 0)
                c.verdict = "fail";
            if (k == 0 && i == 1)
                c.verdict = "unresolved";
            snprintf(record, sizeof(record),
                     "{\"operator\":\"json_valid\",\"observed\":\"%s\",\"notes\":[]}", systems[k]);
            put_check(st, run, case_id, systems[k], "expectation", "vendor", "pass", 1.0);
            cr_assert_eq(arb_store_put_check(st, run, &c, &err), ARB_OK);
            cr_assert_eq(arb_store_put_check(st, run, &r, &err), ARB_OK);
        }
        struct arb_verdict_row v = {case_id,
                                    systems[i % 2],
                                    systems[1 - i % 2],
                                    winners[i] ? "decided" : "pending_judge",
                                    winners[i],
                                    7.0,
                                    6.0,
                                    1.0,
                                    0.5,
                                    "{\"winner\":\"A\",\"reasoning\":\"A is complete\"}"};
        cr_assert_eq(arb_store_put_verdict(st, run, &v, &err), ARB_OK, "%s", err.msg);
    }
    {
        struct arb_output_row bin = {"inv-001", "candidate", "chart.png", NULL, 4096,
                                     1,         "h",         NULL,        0};
        cr_assert_eq(arb_store_put_output(st, run, &bin, &err), ARB_OK);
    }
    /* Three trials of the candidate on inv-001: two passed. */
    for (int t = 0; t < 3; t++) {
        struct arb_trial_row tr = {"inv-001", "candidate", t, t != 1, t != 1, t == 1, 0, "[]"};

        cr_assert_eq(arb_store_put_trial(st, run, &tr, &err), ARB_OK, "%s", err.msg);
    }
    cr_assert_eq(arb_store_put_problem(st, run, "unknown_case", "inv-999", "candidate",
                                       "output for a case the suite does not have", &err),
                 ARB_OK);
    commit(st);
    /* An annotator's blind labels of two cases (each in its own transaction). */
    for (int i = 0; i < 2; i++) {
        struct arb_label_row l = {.run = run,
                                  .case_id = i ? "inv-002" : "inv-001",
                                  .system_a = systems[i % 2],
                                  .system_b = systems[1 - i % 2],
                                  .annotator = "ana",
                                  .shown_first = systems[i % 2],
                                  .choice = i ? "tie" : "B"};

        cr_assert_eq(arb_store_put_label(st, &l, &err), ARB_OK, "%s", err.msg);
    }
    return run;
}

Test(store, should_keep_trials_and_sum_them_per_case, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_err err = {{0}};
    int64_t n = 0;

    populate(st);
    cr_assert_eq(arb_store_count(st, 1, "trials", &n, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(n, 3);
    arb_store_close(st);
    cr_assert_eq(fx_raw_int("SELECT n * 10 + c FROM v_case_trials WHERE case_id = 'inv-001'"), 32);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM trials WHERE passed IS NULL"), 0);
}

Test(store, should_count_wins_and_pass_rates_in_the_views, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);

    populate(st);
    arb_store_close(st);
    cr_assert_eq(fx_raw_int("SELECT wins * 100 + losses * 10 + ties FROM v_system_wins "
                            "WHERE system = 'candidate'"),
                 211);
    cr_assert_eq(fx_raw_int("SELECT wins * 100 + losses * 10 + ties FROM v_system_wins "
                            "WHERE system = 'baseline'"),
                 121);
    cr_assert_eq(fx_raw_int("SELECT win_rate * 1000 FROM v_system_wins WHERE system = 'candidate'"),
                 625);
    cr_assert_eq(fx_raw_int("SELECT passes * 100 + fails * 10 + unresolved "
                            "FROM v_expectation_pass_rates "
                            "WHERE system = 'baseline' AND expectation = 'valid-json'"),
                 311);
    cr_assert_eq(fx_raw_int("SELECT pass_rate * 1000 FROM v_expectation_pass_rates "
                            "WHERE system = 'baseline' AND expectation = 'valid-json'"),
                 750);
    cr_assert_eq(fx_raw_int("SELECT pass_rate * 1000 FROM v_system_pass_rates "
                            "WHERE system = 'baseline'"),
                 888);
    cr_assert_eq(fx_raw_int("SELECT n_cases * 100 + n_verdicts * 10 + n_problems FROM v_runs"),
                 551);
}

/* Run every statement of text; return how many rows they produced, or -1 on an error. */
static long run_queries(sqlite3 *db, const char *text)
{
    const char *tail = text;
    long rows = 0;

    while (tail && *tail) {
        sqlite3_stmt *s = NULL;
        int rc;

        if (sqlite3_prepare_v2(db, tail, -1, &s, &tail) != SQLITE_OK)
            return -1;
        if (!s)
            break;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW)
            rows++;
        sqlite3_finalize(s);
        if (rc != SQLITE_DONE)
            return -1;
    }
    return rows;
}

Test(store, should_run_every_example_query_of_db_readme, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    size_t len, blocks = 0;
    char *readme = fx_read_file("db/README.md", &len);
    char *at = readme;
    sqlite3 *db = NULL;

    cr_assert_eq(populate(st), 1, "the README's queries use run 1");
    arb_store_close(st);
    cr_assert_eq(sqlite3_open_v2(fx_db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    /* Each ```sql fence up to the next ``` line is one example. */
    while ((at = strstr(at, "\n```sql\n")) != NULL) {
        char *block = at + strlen("\n```sql\n");
        char *end = strstr(block, "\n```\n");
        long rows;

        cr_assert_not_null(end, "unclosed sql block in db/README.md");
        end[1] = '\0';
        rows = run_queries(db, block);
        cr_assert_geq(rows, 0, "query failed: %s\n%s", sqlite3_errmsg(db), block);
        cr_assert_gt(rows, 0, "query returned nothing on the sample run:\n%s", block);
        blocks++;
        at = end + 2;
    }
    cr_assert_geq(blocks, 10, "found only %zu sql blocks in db/README.md", blocks);
    sqlite3_close(db);
    free(readme);
}
