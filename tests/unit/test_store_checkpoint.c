/*
 * test_store_checkpoint.c - checkpointing ahead (store_ckpt.c): what a store commits
 * reaches the database file while it is open, and closing leaves the whole record in the file;
 * the copying waits for the commits to pause (a round of a judge's replies), but not forever.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <criterion/criterion.h>

#include "arbiter/judge.h"
#include "arbiter/status.h"
#include "arbiter/store.h"
#include "../../src/store/store_int.h"
#include "store_fixture.h"

static long file_size(const char *path)
{
    struct stat sb;

    return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

/* Commit n judge calls of 3 KB from number from on, each its own transaction, as a run's
 * replies are (a few WAL frames each). */
static void put_calls(struct arb_store *st, int from, int n)
{
    struct arb_judge_call_row c;
    struct arb_err err = {{0}};
    char key[32], *body = malloc(3001);

    cr_assert_not_null(body);
    memset(body, 'x', 3000);
    body[3000] = '\0';
    memset(&c, 0, sizeof(c));
    c.key = key;
    c.provider = "openai";
    c.model = "m";
    c.request_json = body;
    c.reply_json = "{}";
    c.status = "ok";
    c.attempts = 1;
    c.valid = 1;
    for (int i = from; i < from + n; i++) {
        snprintf(key, sizeof(key), "key-%d", i);
        cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
        cr_assert_eq(arb_store_put_judge_call(st, &c, &err), ARB_OK, "%s", err.msg);
        cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    }
    free(body);
}

/* The database file's size once it has grown past before, or after about two seconds. */
static long size_after_growing(long before)
{
    struct timespec tick = {0, 10 * 1000 * 1000};

    for (int i = 0; i < 200 && file_size(fx_db_path) <= before; i++)
        nanosleep(&tick, NULL);
    return file_size(fx_db_path);
}

static void assert_whole_file(int calls)
{
    char wal[160];

    snprintf(wal, sizeof(wal), "%s-wal", fx_db_path);
    cr_assert_eq(file_size(wal), -1, "the WAL outlived the store");
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM judge_calls"), calls);
    cr_assert_eq(fx_integrity_ok(), 1);
}

Test(store, should_copy_commits_into_the_database_while_open_when_checkpointing_ahead,
     .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(ARB_STORE_UNSHARED);
    long before = file_size(fx_db_path);

    arb_store_checkpoint_ahead(st);
    arb_store_checkpoint_ahead(st); /* again: still the one thread */
    put_calls(st, 0, 300);
    cr_assert_gt(size_after_growing(before), before,
                 "nothing was copied into the database while the store was open");
    put_calls(st, 300, 20); /* left in the WAL for closing */
    arb_store_close(st);
    assert_whole_file(320);
}

Test(store, should_leave_commits_to_closing_without_checkpointing_ahead, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(ARB_STORE_UNSHARED);
    long before = file_size(fx_db_path);
    struct timespec wait = {0, 200 * 1000 * 1000};

    put_calls(st, 0, 300);
    nanosleep(&wait, NULL);
    cr_assert_eq(file_size(fx_db_path), before, "the WAL was checkpointed before closing");
    arb_store_close(st);
    assert_whole_file(300);
}

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

Test(store, should_wait_for_a_pause_in_the_commits_to_checkpoint_ahead, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(ARB_STORE_UNSHARED);
    struct timespec pause = {0, 150 * 1000 * 1000};
    unsigned long during, bound;
    double t0;

    arb_store_checkpoint_ahead(st);
    /* 2,000 commits back to back, about 12 MB: copying every megabyte as it filled (as before
     * the pause was waited for) ran a dozen checkpoints or more; waiting for a pause, only the
     * latest wait (a quarter second) may force one, and a stall of the machine (slack: 3). */
    t0 = now_s();
    put_calls(st, 0, 2000);
    during = store_ckpt_runs(st);
    bound = (unsigned long)((now_s() - t0) / 0.25) + 3;
    cr_assert_leq(during, bound, "%lu checkpoints while the commits poured in (%.2f s)", during,
                  now_s() - t0);
    nanosleep(&pause, NULL);
    cr_assert_gt(store_ckpt_runs(st), during, "no checkpoint once the commits paused");
    arb_store_close(st);
    assert_whole_file(2000);
}

Test(store, should_checkpoint_ahead_even_when_the_commits_never_pause, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(ARB_STORE_UNSHARED);
    double until = now_s() + 1.0;
    int n = 0;

    arb_store_checkpoint_ahead(st);
    /* a second of commits without a pause: the copy is due within a quarter of it */
    while (now_s() < until) {
        put_calls(st, n, 5);
        n += 5;
    }
    cr_assert_gt(store_ckpt_runs(st), 0, "no checkpoint in a second of commits (%d)", n);
    arb_store_close(st);
    assert_whole_file(n);
}
