/*
 * store_txn.c - transactions (include/arbiter/store.h: arb_store_begin,
 * arb_store_commit, arb_store_rollback) and group commit (arb_store_group_*).
 *
 * A run that asks a judge stores every reply as it comes, two transactions a
 * reply (the call with its judgment, then the pair's verdict), and each commit
 * writes the pages it touched to the WAL again: page 1, the leaves and the
 * interior pages of every table and index the rows went into.  A group holds
 * those commits as savepoints of one transaction of its own, which the writer
 * commits before it waits, so a burst of replies costs one commit and each
 * page is written once.  SQLite commits the group's transaction atomically,
 * so what survives a kill is always the transactions up to some point in the
 * order they were released: the same state as a kill a little earlier would
 * have left.
 */
#include <time.h>

#include "store_int.h"

/* What a group holds at most before it commits on its own: transactions, and age. */
#define GROUP_MAX    64
#define GROUP_MAX_MS 50.0

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static enum arb_status step_once(struct arb_store *st, enum store_stmt q, const char *what,
                                 struct arb_err *err)
{
    sqlite3_stmt *s = store_stmt(st, q);
    enum arb_status ret;
    int rc;

    if (!s)
        return store_fail(st, store_errcode(st), err, "%s", what);
    rc = sqlite3_step(s);
    ret = rc == SQLITE_DONE ? ARB_OK : store_fail(st, rc, err, "%s", what);
    sqlite3_reset(s);
    return ret;
}

static enum arb_status begin_immediate(struct arb_store *st, struct arb_err *err)
{
    sqlite3_stmt *s = store_stmt(st, Q_BEGIN);
    enum arb_status ret;
    int rc = SQLITE_BUSY;

    /* The busy timeout already waits; a few more attempts ride out a long writer. */
    for (int i = 0; i < STORE_BEGIN_ATTEMPTS && (rc & 0xff) == SQLITE_BUSY; i++) {
        if (i > 0)
            sqlite3_reset(s);
        rc = sqlite3_step(s);
    }
    ret = rc == SQLITE_DONE ? ARB_OK : store_fail(st, rc, err, "begin a transaction");
    sqlite3_reset(s);
    return ret;
}

static void rollback_all(struct arb_store *st)
{
    sqlite3_stmt *s;

    st->group.open = st->group.scope = 0;
    if (sqlite3_get_autocommit(st->db))
        return;
    s = store_stmt(st, Q_ROLLBACK); /* prepared at open */
    sqlite3_step(s);
    sqlite3_reset(s);
}

/* Commit the group's transaction; when that fails, everything it held is undone. */
static enum arb_status group_commit(struct arb_store *st, struct arb_err *err)
{
    enum arb_status ret = step_once(st, Q_COMMIT, "commit", err);

    if (ret)
        rollback_all(st);
    st->group.open = 0;
    return ret;
}

/* A caller's transaction in the group: a savepoint, in the group's transaction begun if need be. */
static enum arb_status group_scope_begin(struct arb_store *st, struct arb_err *err)
{
    enum arb_status ret;
    int began = 0;

    if (!st->group.open) {
        ret = begin_immediate(st, err);
        if (ret)
            return ret;
        st->group.open = began = 1;
        st->group.n = 0;
        st->group.since = now_ms();
    }
    ret = step_once(st, Q_GROUP_SAVEPOINT, "start a savepoint", err);
    if (ret) {
        if (began)
            rollback_all(st);
        return ret;
    }
    st->group.scope = 1;
    return ARB_OK;
}

/* Undo the caller's savepoint alone; the transactions before it stay in the group. */
static void group_scope_rollback(struct arb_store *st)
{
    st->group.scope = 0;
    if (step_once(st, Q_GROUP_ROLLBACK_TO, "roll back a savepoint", NULL) ||
        step_once(st, Q_GROUP_RELEASE, "release a savepoint", NULL)) {
        rollback_all(st); /* cannot undo it alone: undo the group */
        return;
    }
    store_texts_forget(st); /* no rollback hook for a savepoint's */
}

enum arb_status arb_store_begin(struct arb_store *st, struct arb_err *err)
{
    if (st->flags & ARB_STORE_READONLY)
        return arb_err_set(err, ARB_EUSAGE, "cannot write to '%s': opened read-only", st->path);
    if (st->group.scope || (!st->group.open && !sqlite3_get_autocommit(st->db)))
        return arb_err_set(err, ARB_EUSAGE, "cannot begin a transaction in '%s': one is open",
                           st->path);
    if (st->group.on || st->group.open)
        return group_scope_begin(st, err);
    return begin_immediate(st, err);
}

enum arb_status arb_store_commit(struct arb_store *st, struct arb_err *err)
{
    enum arb_status ret;

    if (st->group.open) {
        if (!st->group.scope)
            return arb_err_set(err, ARB_EUSAGE, "cannot commit in '%s': no transaction is open",
                               st->path);
        ret = step_once(st, Q_GROUP_RELEASE, "release a savepoint", err);
        if (ret) {
            group_scope_rollback(st);
            return ret;
        }
        st->group.scope = 0;
        st->group.n++;
        if (!st->group.on || st->group.n >= GROUP_MAX || now_ms() - st->group.since >= GROUP_MAX_MS)
            return group_commit(st, err);
        return ARB_OK;
    }
    if (sqlite3_get_autocommit(st->db))
        return arb_err_set(err, ARB_EUSAGE, "cannot commit in '%s': no transaction is open",
                           st->path);
    return step_once(st, Q_COMMIT, "commit", err);
}

void arb_store_rollback(struct arb_store *st)
{
    if (!st)
        return;
    if (st->group.open) {
        if (st->group.scope)
            group_scope_rollback(st);
        /* After the group's end, what it still held is committed with the last one out. */
        if (st->group.open && !st->group.on)
            group_commit(st, NULL);
        return;
    }
    rollback_all(st);
}

enum arb_status arb_store_group_begin(struct arb_store *st, struct arb_err *err)
{
    static const enum store_stmt q[] = {Q_GROUP_SAVEPOINT, Q_GROUP_RELEASE, Q_GROUP_ROLLBACK_TO};

    if (st->flags & ARB_STORE_READONLY)
        return arb_err_set(err, ARB_EUSAGE, "cannot write to '%s': opened read-only", st->path);
    if (st->group.on)
        return ARB_OK;
    if (!st->group.open && !sqlite3_get_autocommit(st->db))
        return arb_err_set(err, ARB_EUSAGE,
                           "cannot group the commits of '%s': a transaction is open", st->path);
    /* Ready before they are needed, so a rollback never waits on preparing one. */
    for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
        if (!store_stmt(st, q[i]))
            return store_fail(st, store_errcode(st), err, "prepare a savepoint");
    }
    st->group.on = 1;
    return ARB_OK;
}

enum arb_status arb_store_group_flush(struct arb_store *st, struct arb_err *err)
{
    if (!st->group.open || st->group.scope)
        return ARB_OK; /* a caller's transaction still open goes with a later flush */
    return group_commit(st, err);
}

enum arb_status arb_store_group_end(struct arb_store *st, struct arb_err *err)
{
    st->group.on = 0;
    return arb_store_group_flush(st, err);
}

void store_group_close(struct arb_store *st)
{
    st->group.on = 0;
    if (st->group.scope)
        arb_store_rollback(st);
    else if (st->group.open)
        group_commit(st, NULL);
}
