/*
 * test_store_checkpoint.c - checkpointing ahead (store_ckpt.c): what a store commits
 * reaches the database file while it is open, and closing leaves the whole record in the file.
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
