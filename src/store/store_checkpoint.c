/*
 * store_checkpoint.c - checkpointing ahead (store.h: arb_store_checkpoint_ahead): while a run
 * waits on its judge, a thread of the store's, on a connection of its own, copies the pages
 * committed to the WAL into the database file, so that closing has little left to do.
 *
 * SQLite checkpoints when the last connection closes: the WAL synced, its pages copied into
 * the database, the database synced, the WAL deleted.  A run with a judge commits every reply
 * (a call and its judgment): 500 replies left 4,672 frames (19 MB) in the WAL, never synced,
 * for the close to sync and copy after the last reply, 25-35 ms.  Here each commit that leaves
 * AHEAD_FRAMES frames or more in the WAL wakes the thread, which runs a PASSIVE checkpoint:
 * it never waits for a lock and never holds the writer up; the writer starts the WAL over at
 * its next commit once a checkpoint has copied all of it.  The checkpoints sync as the
 * connection's own would (synchronous=NORMAL: the WAL before copying, the database after), so
 * nothing committed is less durable.  Closing stops the thread before the store's last
 * checkpoint, which copies the rest.  A checkpoint that fails (busy, I/O) leaves its pages to
 * the next one or to that last one: nothing is lost, so it is not reported.
 */
#include <pthread.h>
#include <stdlib.h>

#include "store_int.h"

#define AHEAD_FRAMES 256 /* 1 MB of 4 KB pages: a round of replies or so */

struct store_ckpt {
    const char *path; /* the database's, as SQLite has it (the store's connection owns it) */
    sqlite3 *db;      /* the thread's own connection, opened and used by the thread alone */
    int autoframes;   /* the store's wal_autocheckpoint, kept by the hook meanwhile */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t wake;
    int due;  /* a commit left AHEAD_FRAMES or more frames (under mu) */
    int stop; /* under mu */
};

/* The thread's connection, opened at its first checkpoint: opening reads the schema, which
 * would compete with the run's first questions for the CPU.  0 when it cannot be opened. */
static int connected(struct store_ckpt *c)
{
    if (c->db)
        return 1;
    if (sqlite3_open_v2(c->path, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) ==
            SQLITE_OK &&
        sqlite3_exec(c->db, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL) == SQLITE_OK)
        return 1;
    sqlite3_close(c->db);
    c->db = NULL;
    return 0;
}

static void *checkpoint_thread(void *arg)
{
    struct store_ckpt *c = arg;

    pthread_mutex_lock(&c->mu);
    for (;;) {
        while (!c->due && !c->stop)
            pthread_cond_wait(&c->wake, &c->mu);
        if (c->stop)
            break;
        c->due = 0;
        pthread_mutex_unlock(&c->mu);
        if (!connected(c))
            return NULL; /* no checkpoints ahead: closing does them all */
        sqlite3_wal_checkpoint_v2(c->db, "main", SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
        pthread_mutex_lock(&c->mu);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

/* After each commit of the store's connection, on its thread: frames is the WAL's length. */
static int on_commit(void *arg, sqlite3 *db, const char *name, int frames)
{
    struct store_ckpt *c = arg;

    if (frames >= c->autoframes) /* the thread fell behind: what wal_autocheckpoint did */
        sqlite3_wal_checkpoint(db, name);
    else if (frames >= AHEAD_FRAMES) {
        pthread_mutex_lock(&c->mu);
        c->due = 1;
        pthread_cond_signal(&c->wake);
        pthread_mutex_unlock(&c->mu);
    }
    return SQLITE_OK;
}

static void ckpt_free(struct store_ckpt *c)
{
    sqlite3_close(c->db);
    pthread_cond_destroy(&c->wake);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

void arb_store_checkpoint_ahead(struct arb_store *st)
{
    struct store_ckpt *c;
    sqlite3_stmt *s = NULL;

    if (st->ckpt || (st->flags & ARB_STORE_READONLY))
        return;
    c = calloc(1, sizeof(*c));
    if (!c)
        return;
    c->autoframes = 1000; /* SQLite's default, should the pragma not answer */
    if (sqlite3_prepare_v2(st->db, "PRAGMA wal_autocheckpoint", -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int(s, 0) > 0)
        c->autoframes = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    if (pthread_mutex_init(&c->mu, NULL)) {
        free(c);
        return;
    }
    if (pthread_cond_init(&c->wake, NULL)) {
        pthread_mutex_destroy(&c->mu);
        free(c);
        return;
    }
    c->path = sqlite3_db_filename(st->db, "main");
    if (!c->path || pthread_create(&c->thread, NULL, checkpoint_thread, c)) {
        ckpt_free(c);
        return;
    }
    st->ckpt = c;
    sqlite3_wal_hook(st->db, on_commit, c);
}

void store_checkpoint_stop(struct arb_store *st)
{
    struct store_ckpt *c = st->ckpt;

    if (!c)
        return;
    pthread_mutex_lock(&c->mu);
    c->stop = 1;
    pthread_cond_signal(&c->wake);
    pthread_mutex_unlock(&c->mu);
    pthread_join(c->thread, NULL);
    sqlite3_wal_autocheckpoint(st->db, c->autoframes);
    st->ckpt = NULL;
    ckpt_free(c);
}
