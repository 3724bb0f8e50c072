/*
 * test_store_lock.c - one process at a time works on a run (arb_store_lock_run): a second
 * store (another process's, as far as the lock goes) is refused the run, with a message
 * saying why, until the first closes; other runs and the same store again are not refused; a
 * read-only store cannot lock.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/status.h"
#include "arbiter/store.h"
#include "store_fixture.h"

Test(store_lock, should_refuse_a_run_another_store_holds_until_it_closes, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *a = fx_open_store(0), *b = fx_open_store(0);
    struct arb_err err = {{0}};
    int64_t r1 = fx_new_run(a, "[{\"name\":\"a\"}]"), r2 = fx_new_run(a, "[{\"name\":\"a\"}]");

    cr_assert_eq(arb_store_lock_run(a, r1, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_lock_run(a, r1, &err), ARB_OK, "the holder locks again: %s", err.msg);
    cr_assert_eq(arb_store_lock_run(b, r1, &err), ARB_EDB);
    cr_assert(strstr(err.msg, "is in use by another arbiter process"), "%s", err.msg);
    cr_assert(strstr(err.msg, fx_db_path), "the message names the database: %s", err.msg);
    cr_assert_eq(arb_store_lock_run(b, r2, &err), ARB_OK, "another run is free: %s", err.msg);
    cr_assert_eq(arb_store_lock_run(a, r2, &err), ARB_EDB);
    arb_store_close(a);
    cr_assert_eq(arb_store_lock_run(b, r1, &err), ARB_OK, "released on close: %s", err.msg);
    arb_store_close(b);
}

Test(store_lock, should_not_lock_from_a_read_only_store, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *w = fx_open_store(0), *r;
    struct arb_err err = {{0}};
    int64_t run = fx_new_run(w, "[{\"name\":\"a\"}]");

    r = fx_open_store(ARB_STORE_READONLY);
    cr_assert_eq(arb_store_lock_run(r, run, &err), ARB_EUSAGE);
    cr_assert(strstr(err.msg, "read-only"), "%s", err.msg);
    arb_store_close(r);
    arb_store_close(w);
}
