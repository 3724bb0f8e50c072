/*
 * store_scope.c - a report or export of some of a run's cases (`--limit N`,
 * `--cases ID,ID|@FILE`): store.h, arb_store_scope.
 *
 * The selection is made once, here, and not in each reader: the chosen case
 * ids go into a TEMP table, and a TEMP VIEW named like each per-case table
 * (cases, outputs, blinding, checks, verdicts, problems, judgments, trials, labels)
 * shows only the rows of those cases for the scoped runs.  SQLite looks up an
 * unqualified name in the temp schema before main, so every statement of
 * the store, the ones prepared at open included (SQLite prepares them again
 * after the schema change), reads the scope without knowing of it: counts,
 * wins, pass rates, statistics, trials, judge health and every export
 * follow, and a reader added later cannot forget to.  The views of
 * db/schema.sql (v_system_wins...) are bound to main's tables by SQLite and
 * are not scoped; nothing in the store reads them.
 *
 * The temp schema belongs to this connection alone and is writable on a
 * read-only one; nothing reaches the database file.  These statements name
 * temp tables that do not exist when the store opens, and run once per
 * command, so they are prepared here, each a fixed string with its values
 * bound, rather than in store.c's table.
 */
#include <stdint.h>

#include "arbiter/select.h"
#include "store_int.h"

/* A row is in scope when its run is not scoped, or its case is selected. */
#define IN_SCOPE                                                                                   \
    "run NOT IN (SELECT run FROM temp.arb_scope_runs) "                                            \
    "OR case_id IN (SELECT case_id FROM temp.arb_scope)"
#define SCOPED(t) "CREATE TEMP VIEW IF NOT EXISTS " t " AS SELECT * FROM main." t " WHERE " IN_SCOPE

/* The tables, emptied: a second call replaces the first selection. */
static const char *const setup_sql[] = {
    "CREATE TEMP TABLE IF NOT EXISTS arb_scope_ids (case_id TEXT PRIMARY KEY)",
    "CREATE TEMP TABLE IF NOT EXISTS arb_scope (case_id TEXT PRIMARY KEY)",
    "CREATE TEMP TABLE IF NOT EXISTS arb_scope_runs (run INTEGER PRIMARY KEY)",
    "DELETE FROM temp.arb_scope_ids",
    "DELETE FROM temp.arb_scope",
    "DELETE FROM temp.arb_scope_runs",
};

/* Every table with a case_id column (db/schema.sql, db/migrations/).  A problem of no case
 * (case_id '') stays in every scope. */
static const char *const view_sql[] = {
    SCOPED("cases"),
    SCOPED("outputs"),
    SCOPED("blinding"),
    SCOPED("checks"),
    SCOPED("verdicts"),
    SCOPED("judgments"),
    SCOPED("trials"),
    SCOPED("labels"),
    "CREATE TEMP VIEW IF NOT EXISTS problems AS SELECT * FROM main.problems "
    "WHERE case_id = '' OR " IN_SCOPE,
};

static const char sql_has_case[] =
    "SELECT EXISTS (SELECT 1 FROM main.cases WHERE run = ?1 AND case_id = ?2)";
static const char sql_put_id[] = "INSERT OR IGNORE INTO temp.arb_scope_ids (case_id) VALUES (?1)";
/* ?2: 1 selects every case (no ids); ?3: the limit, -1 for none. */
static const char sql_select[] =
    "INSERT INTO temp.arb_scope (case_id) SELECT case_id FROM main.cases WHERE run = ?1 "
    "AND (?2 OR case_id IN (SELECT case_id FROM temp.arb_scope_ids)) ORDER BY seq LIMIT ?3";
static const char sql_put_run[] = "INSERT OR IGNORE INTO temp.arb_scope_runs (run) VALUES (?1)";
static const char sql_is_scoped[] =
    "SELECT EXISTS (SELECT 1 FROM temp.sqlite_master WHERE name = 'arb_scope_runs')";

static enum arb_status prepare(struct arb_store *st, const char *sql, sqlite3_stmt **s,
                               struct arb_err *err)
{
    int rc = sqlite3_prepare_v2(st->db, sql, -1, s, NULL);

    if (rc == SQLITE_OK)
        return ARB_OK;
    sqlite3_finalize(*s);
    *s = NULL;
    return store_fail(st, rc, err, "prepare a query of a selection");
}

/*
 * Step s once (rc: its binds' result) and reset it; *row (when not NULL)
 * receives the first column of a row, 0 without one.
 */
static enum arb_status step(struct arb_store *st, sqlite3_stmt *s, int rc, int64_t *row,
                            const char *what, struct arb_err *err)
{
    enum arb_status ret = ARB_OK;

    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (row)
        *row = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        ret = store_fail(st, rc, err, "%s", what);
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return ret;
}

/* Prepare sql, bind run as ?1 (when run > 0), step it once and finalize it. */
static enum arb_status exec_once(struct arb_store *st, const char *sql, int64_t run, int64_t *row,
                                 const char *what, struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum arb_status ret = prepare(st, sql, &s, err);

    if (!ret)
        ret =
            step(st, s, run > 0 ? store_bind_int(SQLITE_OK, s, 1, run) : SQLITE_OK, row, what, err);
    sqlite3_finalize(s);
    return ret;
}

static enum arb_status exec_all(struct arb_store *st, const char *const *sql, size_t n,
                                const char *what, struct arb_err *err)
{
    enum arb_status ret = ARB_OK;

    for (size_t i = 0; !ret && i < n; i++)
        ret = exec_once(st, sql[i], 0, NULL, what, err);
    return ret;
}

/* Each named id must be a case of run; it goes into arb_scope_ids. */
static enum arb_status put_ids(struct arb_store *st, int64_t run, const struct arb_case_select *sel,
                               struct arb_err *err)
{
    sqlite3_stmt *has = NULL, *put = NULL;
    enum arb_status ret = prepare(st, sql_has_case, &has, err);

    if (!ret)
        ret = prepare(st, sql_put_id, &put, err);
    for (size_t i = 0; !ret && i < sel->n_ids; i++) {
        int64_t yes = 0;
        int rc = store_bind_int(SQLITE_OK, has, 1, run);

        rc = store_bind_text(rc, has, 2, sel->ids[i]);
        ret = step(st, has, rc, &yes, "look up a selected case", err);
        if (!ret && !yes)
            ret = arb_err_set(err, ARB_EUSAGE, "case '%s' is not in run %lld", sel->ids[i],
                              (long long)run);
        if (!ret)
            ret = step(st, put, store_bind_text(SQLITE_OK, put, 1, sel->ids[i]), NULL,
                       "select a case", err);
    }
    sqlite3_finalize(has);
    sqlite3_finalize(put);
    return ret;
}

/* The selected cases of run, in case order, at most sel->limit of them. */
static enum arb_status pick(struct arb_store *st, int64_t run, const struct arb_case_select *sel,
                            struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    enum arb_status ret = prepare(st, sql_select, &s, err);
    int64_t limit = sel->limit && sel->limit <= (size_t)INT64_MAX ? (int64_t)sel->limit : -1;

    if (!ret) {
        int rc = store_bind_int(SQLITE_OK, s, 1, run);

        rc = store_bind_int(rc, s, 2, sel->ids == NULL);
        rc = store_bind_int(rc, s, 3, limit);
        ret = step(st, s, rc, NULL, "select the cases", err);
    }
    sqlite3_finalize(s);
    return ret;
}

enum arb_status arb_store_scope(struct arb_store *st, int64_t run,
                                const struct arb_case_select *sel, struct arb_err *err)
{
    enum arb_status ret;

    if (!arb_case_select_active(sel))
        return ARB_OK;
    if (sel->ids && sel->n_ids == 0)
        return arb_err_set(err, ARB_EUSAGE, "a selection of run %lld names no case",
                           (long long)run);
    ret = exec_all(st, setup_sql, sizeof(setup_sql) / sizeof(setup_sql[0]), "set up a selection",
                   err);
    if (!ret && sel->ids)
        ret = put_ids(st, run, sel, err);
    if (!ret)
        ret = pick(st, run, sel, err);
    if (!ret)
        ret = exec_once(st, sql_put_run, run, NULL, "select the cases", err);
    if (!ret)
        ret = exec_all(st, view_sql, sizeof(view_sql) / sizeof(view_sql[0]),
                       "create the views of a selection", err);
    return ret;
}

enum arb_status arb_store_scope_add_run(struct arb_store *st, int64_t run, struct arb_err *err)
{
    int64_t scoped = 0;
    enum arb_status ret = exec_once(st, sql_is_scoped, 0, &scoped, "look up a selection", err);

    if (!ret && scoped)
        ret = exec_once(st, sql_put_run, run, NULL, "select the cases", err);
    return ret;
}
