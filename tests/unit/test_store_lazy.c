/*
 * The store prepares its statements on first use (store.c: store_stmt): opening prepares only
 * the transactions' own, a statement is prepared once and kept, and one that cannot be
 * prepared (its table dropped behind the store's back) fails its call with SQLite's reason
 * instead of being stepped as NULL.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/status.h"
#include "arbiter/store.h"
#include "../../src/store/store_int.h"
#include "store_fixture.h"

static int prepared(struct arb_store *st)
{
    sqlite3_stmt *s = NULL;
    int n = 0;

    while ((s = sqlite3_next_stmt(st->db, s)) != NULL)
        n++;
    return n;
}

Test(store, should_prepare_only_the_statements_it_uses, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(ARB_STORE_UNSHARED);
    struct arb_err err = {{0}};
    int64_t run = fx_new_run(st, "[{\"name\":\"a\",\"path\":\"a\"}]");
    int at_open;

    arb_store_close(st);
    st = fx_open_store(ARB_STORE_UNSHARED);
    at_open = prepared(st);
    cr_assert_leq(at_open, Q_ROLLBACK_TO + 1, "%d statements prepared at open", at_open);
    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_put_problem(st, run, "missing_output", "c1", "a", "no output", &err),
                 ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_put_problem(st, run, "missing_output", "c2", "a", "no output", &err),
                 ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(prepared(st), at_open + 1, "the put's statement, prepared once and kept");
    arb_store_close(st);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM problems"), 2);
}

Test(store, should_fail_a_call_whose_statement_cannot_be_prepared, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(ARB_STORE_UNSHARED);
    struct arb_err err = {{0}};
    int64_t run = fx_new_run(st, "[{\"name\":\"a\",\"path\":\"a\"}]");

    fx_raw_exec("DROP TABLE problems");
    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_put_problem(st, run, "missing_output", "c1", "a", "no output", &err),
                 ARB_EDB);
    cr_assert_not_null(strstr(err.msg, "no such table"), "%s", err.msg);
    arb_store_rollback(st);
    arb_store_close(st);
}

static int64_t pragma_int(struct arb_store *st, const char *sql)
{
    sqlite3_stmt *s = NULL;
    int64_t v = -1;

    cr_assert_eq(sqlite3_prepare_v2(st->db, sql, -1, &s, NULL), SQLITE_OK);
    if (sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

/* A new file gets its schema without syncing (store.c, configure), and every store is left
 * in WAL mode with synchronous=NORMAL (1) once open: a new one and an existing one. */
Test(store, should_sync_normally_once_open, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(ARB_STORE_UNSHARED);

    cr_assert_eq(pragma_int(st, "PRAGMA synchronous"), 1, "a new store left unsynced");
    cr_assert_gt(pragma_int(st, "PRAGMA user_version"), 0, "no schema");
    arb_store_close(st);
    st = fx_open_store(ARB_STORE_UNSHARED);
    cr_assert_eq(pragma_int(st, "PRAGMA synchronous"), 1);
    arb_store_close(st);
    cr_assert_eq(fx_raw_int("SELECT journal_mode = 'wal' FROM pragma_journal_mode"), 1);
    cr_assert_eq(fx_integrity_ok(), 1);
}
