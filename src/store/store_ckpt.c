/*
 * store_ckpt.c - a run's WAL checkpointed on a thread of its own (store_int.h:
 * store_ckpt_start, store_ckpt_stop).
 *
 * In WAL mode every page a run writes goes into the -wal file first and is copied into the
 * database by a checkpoint.  SQLite's automatic checkpoint runs on the connection that
 * commits, so the writer thread of a run (store_writer.c) spent a quarter of its time copying
 * pages (issue 21: at 1,000,000 cases the writer is the run's longer thread).  Here the
 * writer's connection only says, after a commit that leaves STORE_WAL_PAGES pages or more in the
 * log, that a checkpoint is due (a WAL hook, in place of the automatic checkpoint); a thread
 * with a connection of its own then runs a passive checkpoint, which copies what is committed
 * while the writer goes on appending, and again while the last round had much to copy (what
 * the writer appended meanwhile).  The writer copies the rest itself, between transactions,
 * and once the log has been copied whole its next transaction starts it again from its
 * beginning, so it stays about as long as before.
 *
 * A run that waits on its judge commits every reply and is otherwise idle: checkpointing ahead
 * (store.h: arb_store_checkpoint_ahead) makes the thread copy every megabyte, so that the close
 * after the last reply has little left to sync and copy (500 replies left 19 MB, 25-35 ms).
 * It copies once the replies pause: copying while a round of replies arrives ran a checkpoint
 * (two syncs) after nearly every commit, 100-230 of them in a 1.6 s run at concurrency 64,
 * on the cores the judge's next requests need.
 *
 * Nothing changes what a kill keeps: every commit is in the log before the hook runs, and a
 * checkpoint only copies committed pages.  The thread and its connection start on the first
 * checkpoint due (a small run never starts them).  When they cannot start, the hook
 * checkpoints on the writer's connection, as SQLite's automatic checkpoint would.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store_int.h"

/* Checkpointing ahead: a megabyte of 4 KB pages, a round of a judge's replies or so, copied
 * once the replies have paused for AHEAD_QUIET_MS, or at the latest AHEAD_WAIT_MS after it was
 * due: not while they pour in, when the judge's next requests and the test judge (on the same
 * two cores, in the benchmarks) want the processor. */
#define AHEAD_PAGES    256
#define AHEAD_QUIET_MS 10
#define AHEAD_WAIT_MS  250

/* Checkpoints again while the last copied more than this many pages, at most so many times. */
#define CATCH_UP_PAGES  512
#define CATCH_UP_ROUNDS 4
#define CATCH_UP_LOG    2 /* ... while the log is shorter than this many times ck->pages */

struct store_ckpt {
    char *path; /* the database file, for the thread's connection */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t due_cv;
    /* under mu: */
    int pages;   /* a checkpoint is due at this many pages in the log (st->wal_pages) */
    int tail_at; /* the writer copies the rest itself from this many (pages; ahead: more) */
    int started; /* the thread was created (joined by stop) */
    int failed;  /* it could not open its connection: checkpoint on the writer's */
    int due;     /* a checkpoint is due */
    int running; /* the thread is checkpointing */
    int copied;  /* it checkpointed since the writer's connection last did */
    int stop;    /* end the thread */
    int ahead;   /* checkpointing ahead: wait for a pause in the commits */
    struct timespec last; /* ahead: when the writer last committed (CLOCK_MONOTONIC) */
    unsigned long runs;   /* checkpoints the thread ran */
};

static struct timespec after_ms(struct timespec t, long ms)
{
    t.tv_sec += ms / 1000;
    t.tv_nsec += (ms % 1000) * 1000000L;
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec++;
        t.tv_nsec -= 1000000000L;
    }
    return t;
}

static int earlier(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Ahead: wait (under mu) until the commits pause, the latest wait is over, or stop. */
static void wait_for_pause(struct store_ckpt *ck)
{
    struct timespec now, until, latest;

    clock_gettime(CLOCK_MONOTONIC, &now);
    latest = after_ms(now, AHEAD_WAIT_MS);
    while (!ck->stop) {
        until = after_ms(ck->last, AHEAD_QUIET_MS);
        if (earlier(&latest, &until))
            until = latest;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (!earlier(&now, &until))
            return;
        pthread_cond_timedwait(&ck->due_cv, &ck->mu, &until);
    }
}

/*
 * Passive checkpoints, again while the last one had much to copy: what the writer committed
 * during a checkpoint is the tail it copies itself before the log can start again, and another
 * round here leaves it only what it committed during that shorter one (the writer's copying
 * went from 6% to 2% of its samples at 200,000 cases; at a million, its CPU from 19.7-20.8 s
 * to 19.3 s, this thread's from 2.5-2.9 s to 3.5 s).  Not once the log has grown to
 * CATCH_UP_LOG times pages (a checkpoint is due at pages): the writer then outpaces the
 * copying (a busy machine), and the log would only grow.  An SQLite result code.
 */
static int catch_up(sqlite3 *db, int pages)
{
    int log = 0, done = 0, before = 0, rc;

    for (int round = 0;; round++) {
        rc = sqlite3_wal_checkpoint_v2(db, "main", SQLITE_CHECKPOINT_PASSIVE, &log, &done);
        if (rc != SQLITE_OK || round + 1 == CATCH_UP_ROUNDS || done - before <= CATCH_UP_PAGES ||
            log >= CATCH_UP_LOG * pages)
            return rc;
        before = done;
    }
}

static void *ckpt_thread(void *arg)
{
    struct store_ckpt *ck = arg;
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(ck->path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
    int pages;

    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL);
    pthread_mutex_lock(&ck->mu);
    if (rc != SQLITE_OK)
        ck->failed = 1;
    while (!ck->failed) {
        while (!ck->due && !ck->stop)
            pthread_cond_wait(&ck->due_cv, &ck->mu);
        if (!ck->due)
            break;
        if (ck->ahead)
            wait_for_pause(ck);
        if (ck->stop)
            break;
        ck->due = 0;
        ck->running = 1;
        pages = ck->pages;
        pthread_mutex_unlock(&ck->mu);
        /* Busy (the writer copying its tail, restarting the log): the next one due copies
         * what this one did not. */
        rc = catch_up(db, pages);
        pthread_mutex_lock(&ck->mu);
        ck->running = 0;
        ck->runs++;
        ck->copied = rc == SQLITE_OK;
    }
    pthread_mutex_unlock(&ck->mu);
    sqlite3_close_v2(db);
    return NULL;
}

/*
 * The writer's connection committed, leaving pages pages in its log.  Past ck->pages, the
 * thread and the writer take turns: the thread copies the log while the writer goes on; at
 * the writer's next commit past it, the writer copies what it committed meanwhile, between
 * its transactions.  A log copied whole is started again by the next transaction only if it
 * was whole when that transaction began, which a thread copying while the writer commits
 * back to back would never see; so the log stays about ck->pages and what the writer commits
 * during one of the thread's checkpoints.  Checkpointing ahead (a run waiting on its judge, a
 * commit per reply, the writer idle between them), the thread copies every AHEAD_PAGES and
 * the log starts again when the writer next begins, as it is idle then; the writer copies
 * itself only should the log reach st->wal_pages.
 */
static int on_wal(void *arg, sqlite3 *db, const char *name, int pages)
{
    struct store_ckpt *ck = arg;
    int tail = 0;

    pthread_mutex_lock(&ck->mu);
    if (ck->ahead)
        clock_gettime(CLOCK_MONOTONIC, &ck->last);
    if (pages >= ck->pages && !ck->running && !ck->due) {
        if (!ck->started && !ck->failed)
            ck->started = pthread_create(&ck->thread, NULL, ckpt_thread, ck) == 0;
        if (!ck->started)
            ck->failed = 1;
        if (ck->failed || (ck->copied && pages >= ck->tail_at)) {
            tail = 1;
            ck->copied = 0;
        } else {
            ck->due = 1;
            pthread_cond_signal(&ck->due_cv);
        }
    }
    pthread_mutex_unlock(&ck->mu);
    if (tail)
        sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
    return SQLITE_OK;
}

/* A condition variable whose timed waits count on CLOCK_MONOTONIC: 1, or 0. */
static int cond_init_monotonic(pthread_cond_t *cv)
{
    pthread_condattr_t a;
    int ok;

    if (pthread_condattr_init(&a) != 0)
        return 0;
    ok = pthread_condattr_setclock(&a, CLOCK_MONOTONIC) == 0 && pthread_cond_init(cv, &a) == 0;
    pthread_condattr_destroy(&a);
    return ok;
}

void store_ckpt_start(struct arb_store *st)
{
    const char *path = sqlite3_db_filename(st->db, "main");
    struct store_ckpt *ck;

    if (st->ckpt || !path || !*path)
        return; /* already, or no file of its own (checkpointed as SQLite does) */
    ck = calloc(1, sizeof(*ck));
    if (!ck)
        return;
    ck->path = arb_memdup0(path, strlen(path));
    if (!ck->path || pthread_mutex_init(&ck->mu, NULL) != 0) {
        free(ck->path);
        free(ck);
        return;
    }
    if (!cond_init_monotonic(&ck->due_cv)) {
        pthread_mutex_destroy(&ck->mu);
        free(ck->path);
        free(ck);
        return;
    }
    ck->pages = ck->tail_at = st->wal_pages;
    st->ckpt = ck;
    sqlite3_wal_hook(st->db, on_wal, ck);
}

void arb_store_checkpoint_ahead(struct arb_store *st)
{
    if (st->flags & ARB_STORE_READONLY)
        return;
    store_ckpt_start(st);
    if (!st->ckpt)
        return; /* no memory: closing copies it all, as SQLite does */
    pthread_mutex_lock(&st->ckpt->mu);
    st->ckpt->pages = AHEAD_PAGES < st->wal_pages ? AHEAD_PAGES : st->wal_pages;
    st->ckpt->tail_at = st->wal_pages;
    st->ckpt->ahead = 1;
    clock_gettime(CLOCK_MONOTONIC, &st->ckpt->last);
    pthread_mutex_unlock(&st->ckpt->mu);
}

void store_ckpt_stop(struct arb_store *st)
{
    struct store_ckpt *ck = st->ckpt;

    if (!ck)
        return;
    /* The writer's connection checkpoints again by itself (this replaces the hook). */
    sqlite3_wal_autocheckpoint(st->db, st->wal_pages);
    pthread_mutex_lock(&ck->mu);
    ck->stop = 1;
    pthread_cond_signal(&ck->due_cv);
    pthread_mutex_unlock(&ck->mu);
    if (ck->started)
        pthread_join(ck->thread, NULL);
    pthread_cond_destroy(&ck->due_cv);
    pthread_mutex_destroy(&ck->mu);
    free(ck->path);
    free(ck);
    st->ckpt = NULL;
}

unsigned long store_ckpt_runs(const struct arb_store *st)
{
    unsigned long n = 0;

    if (st->ckpt) {
        pthread_mutex_lock(&st->ckpt->mu);
        n = st->ckpt->runs;
        pthread_mutex_unlock(&st->ckpt->mu);
    }
    return n;
}

void store_ckpt_wait_idle(struct arb_store *st)
{
    struct store_ckpt *ck = st->ckpt;
    const struct timespec ms = {0, 1000000L};
    int busy = 1;

    while (ck && busy) {
        pthread_mutex_lock(&ck->mu);
        busy = ck->started && !ck->failed && !ck->stop && (ck->due || ck->running);
        pthread_mutex_unlock(&ck->mu);
        if (busy)
            nanosleep(&ms, NULL);
    }
}

int store_set_wal_pages(struct arb_store *st, int pages)
{
    if (st->ckpt || pages < 4)
        return -1;
    st->wal_pages = pages;
    return sqlite3_wal_autocheckpoint(st->db, pages) == SQLITE_OK ? 0 : -1;
}
