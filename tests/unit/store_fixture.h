/*
 * store_fixture.h - the fixture of the store's unit tests (test_store.c,
 * test_store_migrate.c): each test gets a new directory and fx_db_path in it.
 */
#ifndef ARBITER_TEST_STORE_FIXTURE_H
#define ARBITER_TEST_STORE_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/store.h"

extern char fx_db_path[128]; /* the test's database file (not created) */

/* .init and .fini of the tests: make, and remove with its files, the test's directory. */
void fx_setup(void);
void fx_teardown(void);

/* The whole of a file, NUL-terminated; *len its length (the caller frees). */
char *fx_read_file(const char *path, size_t *len);

/* arb_store_open on fx_db_path, asserting success. */
struct arb_store *fx_open_store(unsigned flags);

/* A run of systems_json (a JSON array of {"name", "path"}) created and committed; its id. */
int64_t fx_new_run(struct arb_store *st, const char *systems_json);

/* Through a connection of the test's own: one integer from sql, or run sql. */
int64_t fx_raw_int(const char *sql);
void fx_raw_exec(const char *sql);

/* 1 when PRAGMA integrity_check says ok. */
int fx_integrity_ok(void);

/* SQL that takes a current file back to before migration 11 (verdict texts): each verdict's
 * comparison_json in its row. */
#define UNDO_MIGRATION_11                                                                          \
    "UPDATE verdicts SET comparison_inline = (SELECT t.body FROM verdict_texts t "                \
    "WHERE t.id = verdicts.comparison) WHERE comparison IS NOT NULL; DROP VIEW v_verdicts; "       \
    "ALTER TABLE verdicts DROP COLUMN comparison; "                                                \
    "ALTER TABLE verdicts RENAME COLUMN comparison_inline TO comparison_json; "                    \
    "DROP TABLE verdict_texts; "

/* SQL that takes a current file back to before migration 10 (check texts): each record whole. */
#define UNDO_MIGRATION_10                                                                           \
    UNDO_MIGRATION_11                                                                              \
    "CREATE TABLE checks_v8 (id INTEGER PRIMARY KEY, run INTEGER NOT NULL REFERENCES runs(id) "    \
    "ON DELETE CASCADE, case_id TEXT NOT NULL, system TEXT NOT NULL, kind TEXT NOT NULL, "         \
    "item TEXT NOT NULL, verdict TEXT NOT NULL CHECK (verdict = 'pass' OR verdict = 'fail' OR "    \
    "verdict = 'unresolved'), score REAL, record_json TEXT NOT NULL, "                            \
    "UNIQUE (run, case_id, system, kind, item)); "                                                 \
    "INSERT INTO checks_v8 SELECT id, run, case_id, system, kind, item, verdict, score, "         \
    "record_json FROM v_checks; DROP VIEW v_checks; DROP VIEW v_expectation_pass_rates; "         \
    "DROP VIEW v_system_pass_rates; DROP TABLE checks; DROP TABLE check_texts; "                  \
    "ALTER TABLE checks_v8 RENAME TO checks; "

#endif
