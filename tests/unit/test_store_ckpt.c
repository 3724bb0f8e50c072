/*
 * test_store_ckpt.c - a run's WAL checkpointed on a thread of its own (store_ckpt.c): the
 * thread copies the log into the database while the writer goes on, the log stays about as
 * long as the checkpoint interval (the writer copies the tail so that it starts again), every
 * record is there afterwards, and the connection checkpoints by itself once the writer ends.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <criterion/criterion.h>

#include "arbiter/status.h"
#include "arbiter/store.h"
#include "../../src/store/store_int.h"
#include "store_fixture.h"

#define N_CASES   6000 /* 12 MB of outputs */
#define WAL_PAGES 32 /* a checkpoint due every 32 pages: many of them in a small test */

static long long file_size(const char *suffix)
{
    char path[160];
    struct stat sb;

    snprintf(path, sizeof(path), "%s%s", fx_db_path, suffix);
    return stat(path, &sb) == 0 ? (long long)sb.st_size : 0;
}

/* The log's checkpoint sequence number (its header's bytes 12-15): how often it started again. */
static unsigned long wal_restarts(void)
{
    char path[160];
    unsigned char h[16] = {0};
    FILE *f;

    snprintf(path, sizeof(path), "%s-wal", fx_db_path);
    f = fopen(path, "rb");
    cr_assert_not_null(f);
    cr_assert_eq(fread(h, 1, sizeof(h), f), sizeof(h));
    fclose(f);
    return (unsigned long)h[12] << 24 | (unsigned long)h[13] << 16 | (unsigned long)h[14] << 8 |
           h[15];
}

static int64_t new_run(struct arb_store *st)
{
    return fx_new_run(st, "[{\"name\":\"a\",\"path\":\"a\"}]");
}

Test(store_ckpt, should_checkpoint_on_its_thread_and_keep_the_log_short, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(ARB_STORE_UNSHARED);
    struct arb_store_writer *w = NULL;
    struct arb_err err = {{0}};
    char id[32], content[2000];
    long long wal_max = 0;
    int64_t run;

    cr_assert_eq(store_set_wal_pages(st, WAL_PAGES), 0);
    run = new_run(st);
    memset(content, 'x', sizeof(content));
    cr_assert_eq(arb_store_writer_start(st, 1, &w, &err), ARB_OK, "%s", err.msg);
    cr_assert(arb_store_writer_threaded(w), "no writer thread: nothing to test");
    cr_assert_eq(arb_store_writer_begin(w, &err), ARB_OK, "%s", err.msg);
    for (int i = 0; i < N_CASES; i++) {
        struct arb_output_row o = {id, "a", "", content, sizeof(content), 0, "h", NULL, 0};

        snprintf(id, sizeof(id), "c%05d", i);
        content[0] = (char)('a' + i % 26); /* every output its own */
        cr_assert_eq(arb_store_writer_put_output(w, run, &o, &err), ARB_OK, "%s", err.msg);
        if (i % 16 == 15) {
            cr_assert_eq(arb_store_writer_commit(w, &err), ARB_OK, "%s", err.msg);
            if (i % 256 == 255) {
                long long n;

                cr_assert_eq(arb_store_writer_sync(w, &err), ARB_OK, "%s", err.msg);
                n = file_size("-wal");
                wal_max = n > wal_max ? n : wal_max;
                /* The writer waits for the thread every 256 cases: the log's bound below
                 * holds however busy the machine is (a timed bound did not). */
                store_ckpt_wait_idle(st);
            }
            cr_assert_eq(arb_store_writer_begin(w, &err), ARB_OK, "%s", err.msg);
        }
    }
    cr_assert_eq(arb_store_writer_commit(w, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_writer_sync(w, &err), ARB_OK, "%s", err.msg);
    /* The thread checkpointed (the writer's connection no longer does it alone), and the
     * database file holds most of the 12 MB written while the writer is still open. */
    cr_assert_gt(store_ckpt_runs(st), 0, "no checkpoint on the thread");
    cr_assert_gt(file_size(""), 6000000, "the database file has %lld bytes", file_size(""));
    /* The log started again, again and again: it holds the interval and what the writer
     * committed during one of the thread's checkpoints, here about the 256 cases (0.5 MB of
     * outputs) between two of the test's waits and a commit left over from the one before,
     * never the 12 MB written. */
    cr_assert_gt(wal_restarts(), 2, "the log started again %lu times", wal_restarts());
    cr_assert_lt(wal_max, 2000000, "the log grew to %lld bytes", wal_max);
    cr_assert_eq(arb_store_writer_finish(w, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(store_ckpt_runs(st), 0, "the thread still runs after the writer's finish");
    arb_store_close(st);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM outputs"), N_CASES);
    cr_assert_eq(fx_raw_int("SELECT count(DISTINCT content) FROM outputs"), 26);
    cr_assert_eq(fx_integrity_ok(), 1);
}

Test(store_ckpt, should_leave_a_small_run_to_the_connection, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(ARB_STORE_UNSHARED);
    struct arb_store_writer *w = NULL;
    struct arb_err err = {{0}};
    int64_t run = new_run(st);
    struct arb_output_row o = {"c1", "a", "", "text", 4, 0, "h", NULL, 0};

    cr_assert_eq(arb_store_writer_start(st, 1, &w, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_writer_begin(w, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_writer_put_output(w, run, &o, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_writer_commit(w, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_writer_sync(w, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(store_ckpt_runs(st), 0);
    cr_assert_eq(arb_store_writer_finish(w, &err), ARB_OK, "%s", err.msg);
    arb_store_close(st);
    /* Closed: the log was copied and removed as SQLite does on the last close. */
    cr_assert_eq(file_size("-wal"), 0);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM outputs"), 1);
}
