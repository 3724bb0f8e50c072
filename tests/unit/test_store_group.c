/*
 * Group commit (store_txn.c, arb_store_group_begin): the callers' transactions are savepoints
 * of one transaction of the group's, committed by a flush, by the end, at close, and on their
 * own after 64 of them or 50 ms; a rollback undoes one alone; what a killed process leaves is
 * the transactions up to some point, in the order they were committed; a failed commit of the
 * group loses what it held and says so.  Each checks what another connection sees.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "arbiter/status.h"
#include "arbiter/store.h"
#include "../../src/store/store_int.h"
#include "store_fixture.h"

static int commits;

static int count_commit(void *arg)
{
    (void)arg;
    commits++;
    return 0;
}

/* One transaction of the caller's: a problem for case id, committed or (undo) rolled back. */
static void one(struct arb_store *st, int64_t run, const char *id, int undo)
{
    struct arb_err err = {{0}};

    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_put_problem(st, run, "missing_output", id, "a", "no output", &err),
                 ARB_OK, "%s", err.msg);
    if (undo)
        arb_store_rollback(st);
    else
        cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
}

static void ones(struct arb_store *st, int64_t run, int from, int n)
{
    char id[16];

    for (int i = from; i < from + n; i++) {
        snprintf(id, sizeof(id), "c%d", i);
        one(st, run, id, 0);
    }
}

static int64_t problems(void)
{
    return fx_raw_int("SELECT count(*) FROM problems");
}

static struct arb_store *open_counted(int64_t *run)
{
    struct arb_store *st = fx_open_store(ARB_STORE_UNSHARED);

    *run = fx_new_run(st, "[{\"name\":\"a\",\"path\":\"a\"}]");
    commits = 0;
    sqlite3_commit_hook(st->db, count_commit, NULL);
    return st;
}

/* open_counted, with its commits grouped. */
static struct arb_store *open_grouped(int64_t *run)
{
    struct arb_store *st = open_counted(run);
    struct arb_err err = {{0}};

    cr_assert_eq(arb_store_group_begin(st, &err), ARB_OK, "%s", err.msg);
    return st;
}

Test(store_group, should_commit_the_transactions_of_a_group_as_one, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_err err = {{0}};
    int64_t run;
    struct arb_store *st = open_grouped(&run);

    ones(st, run, 0, 10);
    cr_assert_eq(problems(), 0, "committed before the flush");
    cr_assert_eq(commits, 0);
    cr_assert_eq(arb_store_group_flush(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(problems(), 10);
    cr_assert_eq(commits, 1, "%d commits for one group", commits);
    ones(st, run, 10, 5);
    cr_assert_eq(arb_store_group_end(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(problems(), 15);
    cr_assert_eq(commits, 2);
    /* After the end, each commits again. */
    ones(st, run, 15, 1);
    cr_assert_eq(problems(), 16);
    cr_assert_eq(commits, 3);
    arb_store_close(st);
}

Test(store_group, should_undo_a_rolled_back_transaction_alone, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_err err = {{0}};
    int64_t run;
    struct arb_store *st = open_grouped(&run);

    one(st, run, "c1", 0);
    one(st, run, "c2", 1);
    one(st, run, "c3", 0);
    cr_assert_eq(arb_store_group_end(st, &err), ARB_OK, "%s", err.msg);
    arb_store_close(st);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM problems WHERE case_id IN ('c1', 'c3')"), 2);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM problems WHERE case_id = 'c2'"), 0);
}

Test(store_group, should_commit_on_its_own_when_full_or_old, .init = fx_setup, .fini = fx_teardown)
{
    struct timespec pause = {0, 60 * 1000000L};
    struct arb_err err = {{0}};
    int64_t run;
    struct arb_store *st = open_grouped(&run);

    ones(st, run, 0, 63);
    cr_assert_eq(problems(), 0);
    ones(st, run, 63, 1);
    cr_assert_eq(problems(), 64, "64 transactions held and not committed");
    ones(st, run, 64, 1);
    cr_assert_eq(problems(), 64);
    nanosleep(&pause, NULL);
    ones(st, run, 65, 1);
    cr_assert_eq(problems(), 66, "a group 60 ms old not committed");
    cr_assert_eq(commits, 2);
    cr_assert_eq(arb_store_group_end(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(commits, 2, "an empty group committed");
    arb_store_close(st);
}

/* A transaction still open at the end or the close: its commit keeps what the group held,
 * its rollback undoes it alone; the close commits what is held. */
Test(store_group, should_finish_what_is_open_at_the_end, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_err err = {{0}};
    int64_t run;
    struct arb_store *st = open_grouped(&run);

    one(st, run, "c1", 0);
    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_put_problem(st, run, "missing_output", "c2", "a", "x", &err), ARB_OK);
    cr_assert_eq(arb_store_group_end(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(problems(), 0, "committed in the middle of a transaction");
    arb_store_rollback(st);
    cr_assert_eq(problems(), 1, "the rollback lost what the group held");

    cr_assert_eq(arb_store_group_begin(st, &err), ARB_OK, "%s", err.msg);
    one(st, run, "c3", 0);
    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_put_problem(st, run, "missing_output", "c4", "a", "x", &err), ARB_OK);
    cr_assert_eq(arb_store_group_end(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(problems(), 3);

    cr_assert_eq(arb_store_group_begin(st, &err), ARB_OK, "%s", err.msg);
    one(st, run, "c5", 0);
    arb_store_close(st);
    cr_assert_eq(problems(), 4, "the close lost what the group held");
}

Test(store_group, should_refuse_to_group_inside_a_transaction, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_err err = {{0}};
    int64_t run;
    struct arb_store *st = open_counted(&run);

    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_group_begin(st, &err), ARB_EUSAGE);
    cr_assert_not_null(strstr(err.msg, "a transaction is open"), "%s", err.msg);
    arb_store_rollback(st);
    cr_assert_eq(arb_store_group_begin(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_begin(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_begin(st, &err), ARB_EUSAGE, "a transaction in a transaction");
    arb_store_rollback(st);
    cr_assert_eq(arb_store_commit(st, &err), ARB_EUSAGE, "a commit with none open");
    arb_store_close(st);
}

/* Killed with a group held: the transactions up to the last flush survive, in whole. */
Test(store_group, should_leave_the_flushed_transactions_when_killed, .init = fx_setup,
     .fini = fx_teardown)
{
    int status = 0;
    pid_t pid = fork();

    cr_assert_geq(pid, 0);
    if (pid == 0) {
        struct arb_err err = {{0}};
        int64_t run;
        struct arb_store *st = open_counted(&run);

        if (arb_store_group_begin(st, &err))
            _exit(3);
        ones(st, run, 0, 10);
        if (arb_store_group_flush(st, &err))
            _exit(4);
        ones(st, run, 10, 5);
        raise(SIGKILL);
        _exit(5);
    }
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status %d", status);
    cr_assert_eq(problems(), 10);
    cr_assert_eq(fx_integrity_ok(), 1);
}

/* The group's commit fails (a foreign key checked at commit): everything it held is lost,
 * the caller is told, and the next transaction starts a new group transaction. */
Test(store_group, should_lose_the_group_when_its_commit_fails, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_err err = {{0}};
    int64_t run;
    struct arb_store *st = open_grouped(&run);

    one(st, run, "c1", 0);
    cr_assert_eq(sqlite3_exec(st->db, "PRAGMA defer_foreign_keys = ON", NULL, NULL, NULL),
                 SQLITE_OK);
    one(st, run + 1000, "c2", 0); /* no such run: fails only at the commit */
    cr_assert_neq(arb_store_group_flush(st, &err), ARB_OK);
    cr_assert_not_null(strstr(err.msg, "cannot commit"), "%s", err.msg);
    cr_assert_not_null(strstr(err.msg, "FOREIGN KEY"), "%s", err.msg);
    cr_assert_eq(problems(), 0);
    one(st, run, "c3", 0);
    cr_assert_eq(arb_store_group_end(st, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(problems(), 1);
    arb_store_close(st);
}
