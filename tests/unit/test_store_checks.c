/*
 * test_store_checks.c - check records kept with their output's text and their case's expected
 * value once, and each distinct record text of a run once (migration 10): nothing stored
 * repeats the output's text, every record reads back byte for byte as it was written (the
 * records of real checks, texts that are not UTF-8 included), in C and through v_checks, and
 * a file of version 8 reads the same after migrating.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>
#include <criterion/criterion.h>
#include <sqlite3.h>

#include "arbiter/compare.h"
#include "arbiter/status.h"
#include "arbiter/store.h"
#include "store_fixture.h"

/* The outputs: one of each kind the escaping treats apart (a NUL, bytes that are not UTF-8). */
static const char out_a[] = "{\"id\": \"INV-42\", \"total\": 12.5}\n\ttab \\ back \x01 caf\xc3\xa9";
static const char out_b[] = "Sure: {\"id\": \"INV-42\"} \xff\xfe bad \xef\xbf\xbd ok";
static const char out_c[] = "with a NUL \0 inside";
static const char expected_json[] = "{\"id\":\"INV-42\",\"total\":12.5}";

struct seen {
    size_t n;
    char *rec[16];
};

static int collect(void *ctx, const struct arb_check_row *c)
{
    struct seen *s = ctx;

    cr_assert_lt(s->n, 16);
    s->rec[s->n++] = strdup(c->record_json);
    return 0;
}

static void seen_release(struct seen *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->rec[i]);
    s->n = 0;
}

/* v_checks' record_json of check id (the caller frees). */
static char *view_record(int64_t id)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    char *v;

    cr_assert_eq(sqlite3_open_v2(fx_db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    cr_assert_eq(
        sqlite3_prepare_v2(db, "SELECT record_json FROM v_checks WHERE id = ?1", -1, &s, NULL),
        SQLITE_OK, "%s", sqlite3_errmsg(db));
    sqlite3_bind_int64(s, 1, id);
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW);
    v = strdup((const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    sqlite3_close(db);
    return v;
}

static int64_t setup_run(struct arb_store *st)
{
    struct arb_run_row r = {.suite_path = "suite.json",
                            .suite_sha256 = "00",
                            .suite_json = "{}",
                            .systems_json = "[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"}]",
                            .seed = 1,
                            .version = "t"};
    struct arb_output_row o[3] = {
        {"k1", "a", "", out_a, sizeof(out_a) - 1, 0, "00", NULL, 0},
        {"k1", "b", "", out_b, sizeof(out_b) - 1, 0, "00", NULL, 0},
        {"k1", "c", "", out_c, sizeof(out_c) - 1, 0, "00", NULL, 0},
    };
    struct arb_err err = {{0}};
    int64_t run = 0;

    cr_assert_eq(arb_store_run_create(st, &r, &run, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_put_case(st, run, "k1", 0, NULL, expected_json, "{}", &err), ARB_OK,
                 "%s", err.msg);
    for (int i = 0; i < 3; i++)
        cr_assert_eq(arb_store_put_output(st, run, &o[i], &err), ARB_OK, "%s", err.msg);
    return run;
}

/* The record a real check writes for text (the case's expected given), in *rec. */
static void record_of(const char *config, const char *text, size_t len, struct arb_buf *rec,
                      const cJSON *case_expected, const char **verdict)
{
    cJSON *cfg = cJSON_Parse(config);
    struct arb_check *c = NULL;
    struct arb_result res;
    struct arb_err err = {{0}};

    cr_assert_not_null(cfg);
    cr_assert_eq(arb_check_compile(cfg, NULL, &c, &err), ARB_OK, "%s", err.msg);
    arb_result_init(&res);
    cr_assert_eq(arb_check_run(c, text, len, case_expected, &res, &err), ARB_OK, "%s", err.msg);
    arb_buf_reset(rec);
    cr_assert_eq(arb_result_write_json(&res, rec), ARB_OK);
    *verdict = arb_verdict_name(res.verdict);
    arb_result_release(&res);
    arb_check_free(c);
    cJSON_Delete(cfg);
}

static const char *const configs[] = {
    "{\"op\": \"icontains\", \"expected\": \"inv\"}",
    "{\"op\": \"json_valid\"}",
    "{\"op\": \"json_match\", \"keys\": [\"id\"]}",
    "{\"op\": \"regex\", \"expected\": \"INV-\\\\d+\"}",
};

Test(store_checks, should_store_the_output_text_once_and_read_records_byte_for_byte,
     .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_err err = {{0}};
    int64_t run = setup_run(st);
    const char *text[3] = {out_a, out_b, out_c};
    size_t len[3] = {sizeof(out_a) - 1, sizeof(out_b) - 1, sizeof(out_c) - 1};
    const char *sys[3] = {"a", "b", "c"};
    char *want[12];
    size_t n = 0;
    struct arb_buf rec;
    struct seen got = {0};
    cJSON *case_expected = cJSON_Parse(expected_json);

    arb_buf_init(&rec, 0);
    for (int s = 0; s < 3; s++) {
        for (size_t k = 0; k < 4; k++) {
            const char *verdict;
            char item[8];
            struct arb_check_row row = {"k1", sys[s], "expectation", item, NULL, NULL, 0, 1, 0};

            record_of(configs[k], text[s], len[s], &rec, case_expected, &verdict);
            snprintf(item, sizeof(item), "e%zu", k);
            row.record_json = rec.ptr;
            row.verdict = verdict;
            row.expected_is_case = k == 2; /* json_match with no expected: the case's */
            cr_assert_eq(arb_store_put_check(st, run, &row, &err), ARB_OK, "%s", err.msg);
            want[n++] = strdup(rec.ptr);
        }
    }
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    /* No stored text holds an output's text (their first bytes, as JSON strings) nor the
     * case's expected value; each record left a null in their place. */
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM check_texts WHERE instr(body, 'INV-42\\\"') "
                            "OR instr(body, 'Sure:') OR instr(body, 'with a NUL') OR "
                            "instr(body, '\"total\":12.5')"),
                 0);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM check_texts WHERE observed_at IS NULL"), 0);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM check_texts WHERE expected_at IS NOT NULL"), 3);
    cr_assert_eq(arb_store_checks(st, run, NULL, collect, &got, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(got.n, 12);
    for (size_t i = 0; i < n; i++)
        cr_assert_str_eq(got.rec[i], want[i], "record %zu", i);
    seen_release(&got);
    cr_assert_eq(arb_store_checks(st, run, "k1", collect, &got, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(got.n, 12);
    seen_release(&got);
    /* SQL puts the same bytes back for text that is UTF-8 without NUL (system a). */
    for (size_t i = 0; i < 4; i++) {
        char *v = view_record((int64_t)i + 1);

        cr_assert_str_eq(v, want[i], "v_checks, record %zu", i);
        free(v);
    }
    arb_store_close(st);
    for (size_t i = 0; i < n; i++)
        free(want[i]);
    arb_buf_release(&rec);
    cJSON_Delete(case_expected);
}

static void put(struct arb_store *st, int64_t run, const char *sys, const char *item,
                const char *rec, const char *verdict)
{
    struct arb_check_row row = {"k1", sys, "criterion", item, rec, verdict, 1.0, 1, 0};
    struct arb_err err = {{0}};

    cr_assert_eq(arb_store_put_check(st, run, &row, &err), ARB_OK, "%s", err.msg);
}

/* A record of the shape the record writer gives, with out_a's text (no escaping needed). */
#define REC(v) "{\"operator\":\"exact\",\"expected\":\"x\",\"observed\":\"plain text\",\"v\":" v "}"

Test(store_checks, should_share_texts_keep_unresolved_ones_own_and_forget_on_rollback,
     .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_err err = {{0}};
    struct arb_output_row o = {"k1", "d", "", "plain text", 10, 0, "00", NULL, 0};
    int64_t run = setup_run(st);
    struct arb_check_row judged = {"k1", "d", "criterion", "j", REC("2"), "pass", 1.0, 0, 0};
    struct seen got = {0};

    cr_assert_eq(arb_store_put_output(st, run, &o, &err), ARB_OK, "%s", err.msg);
    put(st, run, "d", "i1", REC("1"), "pass");
    put(st, run, "d", "i2", REC("1"), "pass");      /* shares i1's text */
    put(st, run, "d", "j", REC("1"), "unresolved"); /* a text of its own */
    put(st, run, "d", "i1", REC("1"), "pass");      /* again (a resume): nothing new */
    put(st, run, "d", "j", REC("1"), "unresolved");
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM checks WHERE system = 'd'"), 3);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM check_texts WHERE instr(body, '\"v\":1')"), 2);
    /* The judge decides j: its own text is replaced, the shared one stays. */
    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_set_check(st, run, &judged, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM check_texts WHERE instr(body, '\"v\":')"), 2);
    cr_assert_eq(arb_store_checks(st, run, "k1", collect, &got, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(got.n, 3);
    cr_assert_str_eq(got.rec[0], REC("1"));
    cr_assert_str_eq(got.rec[1], REC("1"));
    cr_assert_str_eq(got.rec[2], REC("2"));
    seen_release(&got);
    /* A rolled-back text is not referred to afterwards. */
    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    put(st, run, "d", "i3", REC("3"), "pass");
    arb_store_rollback(st);
    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    put(st, run, "d", "i4", REC("3"), "pass");
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_checks(st, run, "k1", collect, &got, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(got.n, 4);
    cr_assert_str_eq(got.rec[3], REC("3"));
    seen_release(&got);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM checks c LEFT JOIN check_texts t "
                            "ON t.id = c.record WHERE t.id IS NULL"),
                 0);
    /* v_checks gives the same record in SQL. */
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM v_checks WHERE system = 'd' AND "
                            "record_json = '" REC("1") "'"),
                 2);
    /* Deleting the run deletes its texts. */
    arb_store_close(st);
    fx_raw_exec("PRAGMA foreign_keys = ON; DELETE FROM runs");
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM check_texts"), 0);
    cr_assert_eq(fx_integrity_ok(), 1);
}

Test(store_checks, should_read_records_of_a_version_8_file_the_same_after_migrating,
     .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_err err = {{0}};
    struct seen got = {0};
    int64_t run = setup_run(st);

    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    arb_store_close(st);
    /* Version 8's checks, with whole records (one of them with the output's text). */
    fx_raw_exec(UNDO_MIGRATION_11
                "DROP VIEW v_checks; DROP VIEW v_expectation_pass_rates; "
                "DROP VIEW v_system_pass_rates; DROP TABLE checks; DROP TABLE check_texts; "
                "CREATE TABLE checks (id INTEGER PRIMARY KEY, run INTEGER NOT NULL REFERENCES "
                "runs(id) ON DELETE CASCADE, case_id TEXT NOT NULL, system TEXT NOT NULL, kind "
                "TEXT NOT NULL, item TEXT NOT NULL, verdict TEXT NOT NULL CHECK (verdict = 'pass' "
                "OR verdict = 'fail' OR verdict = 'unresolved'), score REAL, record_json TEXT NOT "
                "NULL, UNIQUE (run, case_id, system, kind, item));"
                "INSERT INTO checks (id, run, case_id, system, kind, item, verdict, score, "
                "record_json) VALUES (4, 1, 'k1', 'a', 'expectation', 'e1', 'pass', 1, "
                "'{\"operator\":\"exact\",\"expected\":\"x\",\"observed\":\"plain text\"}'), "
                "(7, 1, 'k1', 'b', 'expectation', 'e1', 'fail', 0, '{\"x\":1}');"
                "CREATE VIEW v_expectation_pass_rates AS SELECT 1; "
                "CREATE VIEW v_system_pass_rates AS SELECT 1; PRAGMA user_version = 9");
    st = fx_open_store(0);
    cr_assert_eq(fx_raw_int("PRAGMA user_version"), arb_store_latest_schema());
    cr_assert_eq(arb_store_checks(st, run, NULL, collect, &got, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(got.n, 2);
    cr_assert_str_eq(got.rec[0],
                     "{\"operator\":\"exact\",\"expected\":\"x\",\"observed\":\"plain text\"}");
    cr_assert_str_eq(got.rec[1], "{\"x\":1}");
    seen_release(&got);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM check_texts WHERE observed_at IS NULL AND "
                            "expected_at IS NULL AND id IN (4, 7)"),
                 2);
    cr_assert_eq(fx_raw_int("SELECT passes FROM v_system_pass_rates WHERE system = 'a'"), 1);
    arb_store_close(st);
    cr_assert_eq(fx_integrity_ok(), 1);
}
