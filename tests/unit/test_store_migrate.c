/*
 * test_store_migrate.c - the schema: the embedded migrations are the files
 * of db/ byte for byte, a new file gets every migration, and a file of each
 * older version is migrated keeping its data.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <sqlite3.h>

#include "arbiter/status.h"
#include "arbiter/store.h"
#include "../../src/store/schema_sql.h"
#include "store_fixture.h"

/* ---- opening and migrating ---------------------------------------------------------------- */

/* The embedded literals joined must be the file byte for byte. */
static void assert_embedded(const char *path, const char *const *parts)
{
    size_t len, at = 0;
    char *file = fx_read_file(path, &len);

    for (size_t i = 0; parts[i]; i++) {
        size_t k = strlen(parts[i]);

        cr_assert_lt(k, 4095, "literal %zu is %zu bytes", i, k);
        cr_assert_leq(at + k, len, "the embedded copy is longer than %s", path);
        cr_assert(memcmp(file + at, parts[i], k) == 0,
                  "the embedded copy of %s differs in part %zu: run "
                  "sh src/store/gen_schema_sql.sh",
                  path, i);
        at += k;
    }
    cr_assert_eq(at, len,
                 "the embedded copy is shorter than %s: run sh src/store/gen_schema_sql.sh", path);
    free(file);
}

Test(store, should_embed_db_schema_sql_byte_for_byte)
{
    assert_embedded("db/schema.sql", store_schema_sql_parts);
    assert_embedded("db/migrations/002-judge-calibration.sql", store_migration2_sql_parts);
    assert_embedded("db/migrations/003-trials.sql", store_migration3_sql_parts);
    assert_embedded("db/migrations/004-fast-inserts.sql", store_migration4_sql_parts);
    assert_embedded("db/migrations/005-scope-cached-tokens.sql", store_migration5_sql_parts);
    assert_embedded("db/migrations/006-provider-replies.sql", store_migration6_sql_parts);
    assert_embedded("db/migrations/007-procedure-identity.sql", store_migration7_sql_parts);
    assert_embedded("db/migrations/008-labels.sql", store_migration8_sql_parts);
    assert_embedded("db/migrations/009-judge-batches.sql", store_migration9_sql_parts);
    assert_embedded("db/migrations/010-check-texts.sql", store_migration10_sql_parts);
    assert_embedded("db/migrations/011-verdict-texts.sql", store_migration11_sql_parts);
    assert_embedded("db/schema-fresh.sql", store_fresh_schema_sql_parts);
}

/* SQL that takes a current file back to before migration 8 (labels). */
#define UNDO_MIGRATION_8 UNDO_MIGRATION_10 "DROP TABLE labels; "

/* SQL that takes a current file back to before migration 7 (procedure identity). */
#define UNDO_MIGRATION_7                                                                           \
    "DROP INDEX calibrations_by_procedure; ALTER TABLE calibrations DROP COLUMN procedure_hash; "  \
    "ALTER TABLE calibrations DROP COLUMN source; ALTER TABLE runs DROP COLUMN kind; "            \
    "ALTER TABLE runs DROP COLUMN procedure_hash; "

Test(store, should_migrate_a_version_7_file_adding_labels, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = NULL;
    struct arb_err err = {{0}};

    arb_store_close(fx_open_store(0));
    fx_raw_exec(UNDO_MIGRATION_8
                "INSERT INTO runs (id, created_at, suite_path, suite_sha256, suite_json, "
                "systems_json, seed, version) VALUES (1, 'now', 's', 'h', '{}', '[]', 1, 'v');"
                "PRAGMA user_version = 7");
    /* A reader (arbiter view without --label, report) names the migration it needs. */
    cr_assert_eq(arb_store_open(fx_db_path, ARB_STORE_READONLY, &st, &err), ARB_ESCHEMA);
    cr_assert(strstr(err.msg, "has schema version 7 and needs migrating to"), "%s", err.msg);
    cr_assert_null(st);
    arb_store_close(fx_open_store(0));
    cr_assert_eq(fx_raw_int("PRAGMA user_version"), arb_store_latest_schema());
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM runs WHERE id = 1"), 1);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM pragma_table_info('labels')"), 13);
    /* The natural key, and the rules on choice, shown_first and winner, hold in SQL too. */
    fx_raw_exec("INSERT INTO labels (run, case_id, system_a, system_b, annotator, shown_first, "
                "choice, winner, created_at, updated_at) VALUES (1, 'c1', 'a', 'b', 'ann', 'b', "
                "'A', 'b', 'now', 'now')");
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM labels"), 1);
    arb_store_close(fx_open_store(ARB_STORE_READONLY));
    fx_raw_exec("PRAGMA foreign_keys = ON; DELETE FROM runs WHERE id = 1");
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM labels"), 0, "a run's labels outlive it");
    cr_assert_eq(fx_integrity_ok(), 1);
}

Test(store, should_migrate_a_version_6_file_marking_calibration_runs, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st;
    struct arb_err err = {{0}};
    int64_t id = 0;

    /* A version-6 file with a run and, after it, the run an older calibrate made. */
    arb_store_close(fx_open_store(0));
    fx_raw_exec(UNDO_MIGRATION_8 UNDO_MIGRATION_7
                "INSERT INTO runs (id, created_at, suite_path, suite_sha256, suite_json, "
                "systems_json, seed, version) VALUES (1, 'now', 's', 'h', '{\"name\":\"x\"}', "
                "'[]', 1, 'v'), (2, 'now', 'labels.jsonl', 'h', "
                "'{\"calibration\":\"labels.jsonl\",\"items\":3}', '[]', 0, 'v');"
                "INSERT INTO calibrations (judge_hash, created_at, labels_path, n, study_json, run) "
                "VALUES ('j', 'now', 'labels.jsonl', 3, '{\"kind\":\"pairwise\"}', 2);"
                "PRAGMA user_version = 6");
    st = fx_open_store(0);
    cr_assert_eq(fx_raw_int("PRAGMA user_version"), arb_store_latest_schema());
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM runs WHERE id = 1 AND kind = 'run'"), 1);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM runs WHERE id = 2 AND kind = 'calibration'"), 1);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM calibrations WHERE procedure_hash IS NULL AND "
                            "source IS NULL"),
                 1);
    /* "latest" is the user's run, not the calibration's. */
    cr_assert_eq(arb_store_run_resolve(st, "latest", &id, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(id, 1);
    arb_store_close(st);
    cr_assert_eq(fx_integrity_ok(), 1);
}

Test(store, should_migrate_a_version_5_file_adding_what_providers_said, .init = fx_setup,
     .fini = fx_teardown)
{
    static const char *const cols[] = {"response_format", "stop_reason",  "normalization",
                                       "error_type",      "error_code",   "error_message"};

    /* A database as version 5 left it: the judge-call tables without migration 6's columns. */
    arb_store_close(fx_open_store(0));
    fx_raw_exec("INSERT INTO judge_calls (key, provider, model, request_json, reply_json, status, "
                "attempts, created_at) VALUES ('k', 'openai', 'm', '{}', '{}', 'ok', 1, 'now')");
    for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
        char sql[200];

        snprintf(sql, sizeof(sql),
                 "ALTER TABLE judge_calls DROP COLUMN %s; "
                 "ALTER TABLE judge_calls_rejected DROP COLUMN %s;",
                 cols[i], cols[i]);
        fx_raw_exec(sql);
    }
    fx_raw_exec(UNDO_MIGRATION_8 UNDO_MIGRATION_7 "PRAGMA user_version = 5");
    arb_store_close(fx_open_store(0));
    cr_assert_eq(fx_raw_int("PRAGMA user_version"), arb_store_latest_schema());
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM pragma_table_info('judge_calls') WHERE name IN "
                            "('response_format', 'stop_reason', 'normalization', 'error_type', "
                            "'error_code', 'error_message')"),
                 6);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM pragma_table_info('judge_calls_rejected') WHERE "
                            "name IN ('response_format', 'stop_reason', 'normalization', "
                            "'error_type', 'error_code', 'error_message')"),
                 6);
    /* The call stored before keeps its reply, and says nothing of what it did not record. */
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM judge_calls WHERE key = 'k' AND "
                            "response_format IS NULL AND reply_json = '{}'"),
                 1);
    cr_assert_eq(fx_integrity_ok(), 1);
}

Test(store, should_create_and_migrate_a_new_file, .init = fx_setup, .fini = fx_teardown)
{
    arb_store_close(fx_open_store(0));
    cr_assert_eq(fx_raw_int("PRAGMA user_version"), arb_store_latest_schema());
    cr_assert_eq(fx_raw_int("PRAGMA application_id"), 0x41524249);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                            "('runs', 'systems', 'cases', 'outputs', 'blinding', 'checks', "
                            "'verdicts', 'problems', 'judge_calls', 'judgments', 'calibrations', "
                            "'trials', 'labels')"),
                 13);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM sqlite_master WHERE type = 'view'"), 8);
    cr_assert_eq(fx_raw_int("SELECT journal_mode = 'wal' FROM pragma_journal_mode"), 1);
    /* Opening again migrates nothing and keeps the version. */
    arb_store_close(fx_open_store(0));
    cr_assert_eq(fx_raw_int("PRAGMA user_version"), arb_store_latest_schema());
}

Test(store, should_migrate_a_version_1_file_to_2, .init = fx_setup, .fini = fx_teardown)
{
    /* A database at version 1 (before the judge and calibration tables) gains them. */
    arb_store_close(fx_open_store(0));
    fx_raw_exec(UNDO_MIGRATION_10
                "DROP TABLE labels; DROP TABLE calibrations; DROP TABLE judgments; DROP TABLE judge_calls; "
                "DROP TABLE judge_calls_rejected; "
                "DROP VIEW v_case_trials; DROP TABLE trials; ALTER TABLE runs DROP COLUMN "
                "scope_json; ALTER TABLE runs DROP COLUMN inputs_json; ALTER TABLE runs DROP COLUMN "
                "kind; ALTER TABLE runs DROP COLUMN procedure_hash; PRAGMA user_version = 1");
    arb_store_close(fx_open_store(0));
    cr_assert_eq(fx_raw_int("PRAGMA user_version"), arb_store_latest_schema());
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                            "('judge_calls', 'judgments', 'calibrations', "
                            "'judge_calls_rejected')"),
                 4);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM pragma_table_info('judge_calls') WHERE name = "
                            "'charged_usd'"),
                 1);
}

/* The text of a migration's literals, joined (the caller frees). */
static char *joined(const char *const *parts)
{
    size_t n = 0, at = 0;
    char *s;

    for (size_t i = 0; parts[i]; i++)
        n += strlen(parts[i]);
    s = malloc(n + 1);
    cr_assert_not_null(s);
    for (size_t i = 0; parts[i]; i++) {
        memcpy(s + at, parts[i], strlen(parts[i]));
        at += strlen(parts[i]);
    }
    s[at] = '\0';
    return s;
}

/* One text of a database's schema: every row of sqlite_schema in order, and its stamps. */
static char *schema_text(sqlite3 *db)
{
    sqlite3_stmt *s = NULL;
    char *text;

    cr_assert_eq(sqlite3_prepare_v2(db,
                                    "SELECT 'application_id ' || (SELECT application_id FROM "
                                    "pragma_application_id) || ', user_version ' || (SELECT "
                                    "user_version FROM pragma_user_version) || char(10) || "
                                    "group_concat(type || ' ' || name || ' on ' || tbl_name || "
                                    "': ' || coalesce(sql, '(no sql)'), char(10)) FROM (SELECT "
                                    "* FROM sqlite_schema ORDER BY rowid)",
                                    -1, &s, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(s), SQLITE_ROW);
    text = strdup((const char *)sqlite3_column_text(s, 0));
    cr_assert_not_null(text);
    sqlite3_finalize(s);
    return text;
}

/* A database made by the migrations one by one, as an older file gets them (the caller closes). */
static sqlite3 *migrated_one_by_one(void)
{
    char path[160];
    sqlite3 *db = NULL;
    int latest = arb_store_latest_schema();

    snprintf(path, sizeof(path), "%.*s/stepwise.db", (int)(strrchr(fx_db_path, '/') - fx_db_path),
             fx_db_path);
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL),
                 SQLITE_OK);
    for (int v = 1; v <= latest; v++) {
        const char *const *parts = store_migration_sql(v);
        char stamp[96];
        char *sql;

        cr_assert_not_null(parts, "no migration %d", v);
        sql = joined(parts);
        cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK, "migration %d: %s", v,
                     sqlite3_errmsg(db));
        free(sql);
        snprintf(stamp, sizeof(stamp), "PRAGMA application_id = %d; PRAGMA user_version = %d",
                 0x41524249, v);
        cr_assert_eq(sqlite3_exec(db, stamp, NULL, NULL, NULL), SQLITE_OK);
    }
    cr_assert_null(store_migration_sql(latest + 1));
    return db;
}

Test(store, should_give_a_new_file_the_schema_of_every_migration_in_one_step, .init = fx_setup,
     .fini = fx_teardown)
{
    sqlite3 *fresh = NULL, *stepwise;
    char *want, *got;

    cr_assert_eq(store_fresh_schema_version, arb_store_latest_schema(),
                 "db/schema-fresh.sql ends with migration %d, the store's last is %d: run sh "
                 "src/store/gen_schema_sql.sh",
                 store_fresh_schema_version, arb_store_latest_schema());
    arb_store_close(fx_open_store(0));
    cr_assert_eq(sqlite3_open_v2(fx_db_path, &fresh, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    stepwise = migrated_one_by_one();
    want = schema_text(stepwise);
    got = schema_text(fresh);
    /* Tables, indexes (SQLite's own for UNIQUE included) and views, each with its SQL as the
     * ALTERs left it, in the order they were made; application_id and user_version. */
    cr_assert_str_eq(got, want,
                     "a new file's schema differs from the migrations applied one by one: run sh "
                     "src/store/gen_schema_sql.sh");
    free(want);
    free(got);
    sqlite3_close(fresh);
    sqlite3_close(stepwise);
    cr_assert_eq(fx_integrity_ok(), 1);
}

Test(store, should_migrate_a_version_2_file_keeping_its_outputs, .init = fx_setup,
     .fini = fx_teardown)
{
    char *m1 = joined(store_schema_sql_parts), *m2 = joined(store_migration2_sql_parts);

    /* A database as version 2 left it, with one output stored. */
    fx_raw_exec(m1);
    fx_raw_exec(m2);
    fx_raw_exec("PRAGMA application_id = 1095909961; PRAGMA user_version = 2;"
                "INSERT INTO runs (id, created_at, suite_path, suite_sha256, suite_json, "
                "systems_json, seed, version) VALUES (1, 'now', 's', 'h', '{}', '[]', 1, 'v');"
                "INSERT INTO outputs (run, case_id, system, file, content, size, binary, sha256) "
                "VALUES (1, 'c1', 'a', '', 'hello', 5, 0, 'x')");
    free(m1);
    free(m2);
    arb_store_close(fx_open_store(0));
    cr_assert_eq(fx_raw_int("PRAGMA user_version"), arb_store_latest_schema());
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM outputs WHERE case_id = 'c1' AND trial = 0 AND "
                            "content = 'hello'"),
                 1);
    /* The key now has the trial: a second trial of the same file is a new row. */
    fx_raw_exec("INSERT INTO outputs (run, case_id, system, trial, file, content, size, binary, "
                "sha256) VALUES (1, 'c1', 'a', 1, '', 'again', 5, 0, 'y')");
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM outputs"), 2);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM trials"), 0);
    cr_assert_eq(fx_integrity_ok(), 1);
}

/*
 * How many OpenEphemeral (temporary b-tree) steps the statement's program has
 * (on a read-write connection: a read-only one compiles no CHECK constraints).
 */
static int ephemeral_steps(const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    char *explain = malloc(strlen(sql) + 9);
    int n = 0;

    cr_assert_not_null(explain);
    memcpy(explain, "EXPLAIN ", 8);
    memcpy(explain + 8, sql, strlen(sql) + 1);
    cr_assert_eq(sqlite3_open_v2(fx_db_path, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(db, explain, -1, &s, NULL), SQLITE_OK, "%s",
                 sqlite3_errmsg(db));
    while (sqlite3_step(s) == SQLITE_ROW)
        n += strcmp((const char *)sqlite3_column_text(s, 1), "OpenEphemeral") == 0;
    sqlite3_finalize(s);
    sqlite3_close(db);
    free(explain);
    return n;
}

Test(store, should_migrate_a_version_3_file_keeping_its_checks, .init = fx_setup,
     .fini = fx_teardown)
{
    char *m[3] = {joined(store_schema_sql_parts), joined(store_migration2_sql_parts),
                  joined(store_migration3_sql_parts)};
    const char *insert = "INSERT INTO checks (run, case_id, system, kind, item, verdict, score, "
                         "record_json) VALUES (1, 'c9', 'a', 'expectation', 'e1', 'pass', 1, "
                         "'{}') ON CONFLICT DO NOTHING";
    struct arb_store *st;
    struct arb_err err = {{0}};
    struct arb_check_row bad = {"c1", "a", "expectation", "e3", "{}", "maybe", 1.0, 0, 0};

    /* A database as version 3 left it, with check records whose ids are not 1, 2, 3. */
    for (int i = 0; i < 3; i++) {
        fx_raw_exec(m[i]);
        free(m[i]);
    }
    fx_raw_exec("PRAGMA application_id = 1095909961; PRAGMA user_version = 3;"
                "INSERT INTO runs (id, created_at, suite_path, suite_sha256, suite_json, "
                "systems_json, seed, version) VALUES (1, 'now', 's', 'h', '{}', '[]', 1, 'v');"
                "INSERT INTO cases (run, case_id, seq) VALUES (1, 'c1', 0), (1, 'c2', 1);"
                "INSERT INTO checks (id, run, case_id, system, kind, item, verdict, score, "
                "record_json) VALUES (5, 1, 'c1', 'a', 'expectation', 'e1', 'pass', 1, '{}'), "
                "(9, 1, 'c2', 'a', 'expectation', 'e1', 'fail', 0, '{\"x\":1}'), "
                "(12, 1, 'c2', 'a', 'expectation', 'e2', 'unresolved', NULL, '{}')");
    cr_assert_gt(ephemeral_steps(insert), 0, "version 3 checked IN (...) with a temporary b-tree");
    arb_store_close(fx_open_store(0));
    insert = "INSERT INTO checks (run, case_id, system, kind, item, verdict, score, record) "
             "VALUES (1, 'c9', 'a', 'expectation', 'e1', 'pass', 1, 5) ON CONFLICT DO NOTHING";
    cr_assert_eq(fx_raw_int("PRAGMA user_version"), arb_store_latest_schema());
    cr_assert_eq(ephemeral_steps(insert), 0, "an insert into checks still builds a b-tree");
    /* The rows, their ids (the insert order), and what the views make of them. */
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM checks"), 3);
    cr_assert_eq(fx_raw_int("SELECT (SELECT group_concat(id || ':' || verdict) FROM "
                            "(SELECT id, verdict FROM checks ORDER BY id)) = "
                            "'5:pass,9:fail,12:unresolved'"),
                 1);
    cr_assert_eq(fx_raw_int("SELECT record_json = '{\"x\":1}' FROM v_checks WHERE id = 9"), 1);
    cr_assert_eq(fx_raw_int("SELECT passes * 100 + fails * 10 + unresolved FROM "
                            "v_system_pass_rates WHERE run = 1 AND system = 'a'"),
                 111);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM v_expectation_pass_rates"), 2);
    /* Case order now comes from an index that holds the ids. */
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM sqlite_master WHERE name = 'cases_by_seq_id'"),
                 1);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM sqlite_master WHERE name = 'cases_by_seq'"), 0);
    /* The rule on verdict still holds, and a new record goes after the old ones. */
    st = fx_open_store(0);
    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_neq(arb_store_put_check(st, 1, &bad, &err), ARB_OK, "'maybe' was accepted");
    arb_store_rollback(st);
    arb_store_close(st);
    fx_raw_exec(insert);
    cr_assert_eq(fx_raw_int("SELECT id > 12 FROM checks WHERE case_id = 'c9'"), 1);
    cr_assert_eq(fx_integrity_ok(), 1);
}

/* ---- judge_calls.charged_usd (migration 5) ------------------------------------------------ */

struct seen_costs {
    int n;
    struct arb_judge_cost_row rows[2];
    char ids[2][8]; /* rows[i].case_id is borrowed for the call only */
};

static int see_cost(void *ctx, const struct arb_judge_cost_row *c)
{
    struct seen_costs *s = ctx;

    if (s->n < 2) {
        s->rows[s->n] = *c;
        snprintf(s->ids[s->n], sizeof(s->ids[0]), "%s", c->case_id);
    }
    s->n++;
    return 0;
}

static void put_call(struct arb_store *st, const char *key, int64_t prompt, int64_t cached,
                     int64_t completion, double charged)
{
    struct arb_judge_call_row c;
    struct arb_err err = {{0}};

    memset(&c, 0, sizeof(c));
    c.key = key;
    c.provider = "openai";
    c.model = "m";
    c.request_json = "{}";
    c.reply_json = "{}";
    c.status = "ok";
    c.attempts = 1;
    c.prompt_tokens = prompt;
    c.cached_tokens = cached;
    c.completion_tokens = completion;
    c.charged_usd = charged;
    c.valid = 1;
    cr_assert_eq(arb_store_put_judge_call(st, &c, &err), ARB_OK, "%s", err.msg);
}

Test(store, should_cost_a_run_by_what_its_calls_were_charged, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_err err = {{0}};
    struct seen_costs seen;

    fx_raw_exec("INSERT INTO runs (id, created_at, suite_path, suite_sha256, suite_json, "
                "systems_json, seed, version) VALUES (1, 'now', 's', 'h', '{}', '[]', 1, 'v');"
                "INSERT INTO cases (run, case_id, seq) VALUES (1, 'c1', 0), (1, 'c2', 1)");
    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    put_call(st, "k1", 0, 0, 0, 0.25);       /* a reply without usage: charged its estimate */
    put_call(st, "k2", 1000, 100, 200, NAN); /* a judge without a price: no charge stored */
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(fx_raw_int("SELECT charged_usd = 0.25 FROM judge_calls WHERE key = 'k1'"), 1);
    cr_assert_eq(fx_raw_int("SELECT charged_usd IS NULL FROM judge_calls WHERE key = 'k2'"), 1);
    /* c2 also read k1 from the cache: paid for by its first use, not again. */
    fx_raw_exec("INSERT INTO judgments (run, case_id, system_a, system_b, ord, sample, attempt, "
                "key, valid, cached) VALUES (1, 'c1', 'a', 'b', 'AB', 0, 0, 'k1', 1, 0), "
                "(1, 'c2', 'a', 'b', 'AB', 0, 0, 'k2', 1, 0), "
                "(1, 'c2', 'a', 'b', 'BA', 0, 0, 'k1', 1, 1)");
    memset(&seen, 0, sizeof(seen));
    cr_assert_eq(arb_store_judge_costs(st, 1, see_cost, &seen, &err), ARB_OK, "%s", err.msg);
    arb_store_close(st);
    cr_assert_eq(seen.n, 2);
    cr_assert_str_eq(seen.ids[0], "c1");
    cr_assert_str_eq(seen.ids[1], "c2");
    cr_assert_eq(seen.rows[0].calls, 1);
    cr_assert_float_eq(seen.rows[0].charged_usd, 0.25, 1e-12);
    cr_assert_eq(seen.rows[0].uncharged_prompt + seen.rows[0].uncharged_completion, 0);
    cr_assert_eq(seen.rows[1].calls, 1);
    cr_assert_float_eq(seen.rows[1].charged_usd, 0.0, 1e-12);
    cr_assert_eq(seen.rows[1].prompt_tokens, 1000);
    cr_assert_eq(seen.rows[1].uncharged_prompt, 1000);
    cr_assert_eq(seen.rows[1].uncharged_cached, 100);
    cr_assert_eq(seen.rows[1].uncharged_completion, 200);
}
