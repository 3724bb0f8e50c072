/*
 * store_int.h - what the files of src/store/ share: the store handle, its
 * table of prepared statements and the bind/step/error helpers.
 *
 * Every statement the store runs is a fixed string in store.c's table,
 * prepared once at open and reused (reset and cleared after each use);
 * values only ever reach SQLite through sqlite3_bind_*.  This is the only
 * directory that includes sqlite3.h.
 */
#ifndef ARBITER_STORE_INT_H
#define ARBITER_STORE_INT_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"
#include "arbiter/store.h"

/* Indexes into the statement table (store.c, sql[]). */
enum store_stmt {
    Q_BEGIN,
    Q_COMMIT,
    Q_ROLLBACK,
    Q_SAVEPOINT,
    Q_RELEASE,
    Q_ROLLBACK_TO,
    Q_GROUP_SAVEPOINT, /* a caller's transaction in a group (store_txn.c), prepared by */
    Q_GROUP_RELEASE,   /* arb_store_group_begin */
    Q_GROUP_ROLLBACK_TO,
    Q_RUN_CREATE,
    Q_RUN_SYSTEMS,
    Q_RUN_STATUS,
    Q_RUN_LATEST,
    Q_RUN_EXISTS,
    Q_RUNS_ONE,
    Q_RUNS_ALL,
    Q_PUT_CASE,
    Q_PUT_OUTPUT,
    Q_PUT_BLINDING,
    Q_PUT_PROBLEM,
    Q_PUT_CHECK,
    Q_SET_CHECK,
    Q_PUT_CHECKS4,
    Q_PUT_CHECKS8,
    Q_PUT_TEXT,
    Q_SET_TEXT,
    Q_DEL_TEXT,
    Q_CHECK_TEXT,
    Q_PUT_VERDICT,
    Q_VERDICT_TEXT,
    Q_PUT_VTEXT,
    Q_SET_VTEXT,
    Q_DEL_VTEXT,
    Q_OUTPUTS,
    Q_OUTPUTS_BY_KEY,
    Q_PUT_TRIAL,
    Q_TRIALS_CASE,
    Q_TRIALS_ALL,
    Q_HAS_TRIALS,
    Q_PROBLEMS,
    Q_CHECKS_CASE,
    Q_CHECKS_ALL,
    Q_VERDICTS_CASE,
    Q_VERDICTS_ALL,
    Q_VERDICT_OUTCOMES,
    Q_CASE_DONE,
    Q_COUNT_CASES,
    Q_COUNT_SYSTEMS,
    Q_COUNT_OUTPUTS,
    Q_COUNT_BLINDING,
    Q_COUNT_CHECKS,
    Q_COUNT_VERDICTS,
    Q_COUNT_PROBLEMS,
    Q_COUNT_TRIALS,
    Q_COUNT_JUDGED_CASES,
    Q_SET_VERDICT,
    Q_PUT_JUDGE_CALL,
    Q_REJECT_JUDGE_CALL,
    Q_GET_JUDGE_CALL,
    Q_PUT_JUDGMENT,
    Q_JUDGMENTS_CASE,
    Q_JUDGMENTS_RUN,
    Q_JUDGE_TOTALS,
    Q_JUDGE_COSTS,
    Q_CASES_ALL,
    Q_OUTPUTS_SYSTEM,
    Q_RUN_DELETE,
    Q_PUT_CALIBRATION,
    Q_CALIBRATION_OF,
    Q_RECORDED_JUDGMENT,
    Q_REJECTED_CALLS,
    Q_N
};

struct store_ci_search;
struct store_texts;
struct store_ckpt;

/*
 * Group commit (store_txn.c, arb_store_group_begin): while on, the callers' transactions are
 * savepoints in one of the group's (open), committed when it holds GROUP_MAX of them, is
 * GROUP_MAX_MS old, or is flushed.
 */
struct store_group {
    int on;       /* holding commits */
    int open;     /* the group's transaction is open */
    int scope;    /* a caller's transaction is open in it, as a savepoint */
    unsigned n;   /* callers' transactions released into it since it began */
    double since; /* when it began, seconds (CLOCK_MONOTONIC) */
};

struct arb_store {
    sqlite3 *db;
    char *path;                /* as given to arb_store_open, for messages */
    unsigned flags;            /* enum arb_store_flags */
    sqlite3_stmt *stmt[Q_N];   /* prepared at open */
    unsigned char in_use[Q_N]; /* 1 while an iterator steps stmt[i] */
    /* owned: what the case index's search keeps (case_index_search.c), NULL until used */
    struct store_ci_search *ci_search;
    /* owned: the check record and verdict texts written lately, to refer to again
     * (store_texts.c); NULL until one is put */
    struct store_texts *texts;
    /* owned: the thread checkpointing a run's WAL (store_ckpt.c); NULL when none */
    struct store_ckpt *ckpt;
    int wal_pages;            /* checkpoint at this many pages in the log (STORE_WAL_PAGES) */
    int lock_fd;              /* the runs' lock file (store_lock.c), -1 until a run is locked */
    struct arb_buf scratch;   /* a check record's text without its observed text */
    struct store_group group; /* group commit (store_txn.c) */
};

/*
 * Enforce foreign keys on st's connection (on: 1), as every connection does from its opening;
 * a no-op inside a transaction (SQLite's rule).  Off only while a run's writer inserts.
 */
void store_foreign_keys(struct arb_store *st, int on);

/*
 * A check record's text as the store keeps it (store_checks.c, migration 10): the record, or
 * (in buf, NUL-terminated) the record with null in place of its case's expected value
 * (expected_is_case) and of its output's text (observed_is_output), at[0] and at[1] where
 * those nulls stand (-1: not cut), and the hash it is remembered by (store_text_hash).  A
 * run's writer makes it on the thread that queues the record, not on the one that writes it.
 */
struct store_check_text {
    const char *text;
    size_t len;
    int64_t at[2];
    uint64_t hash;
};
enum arb_status store_check_text(const struct arb_check_row *c, int64_t run, struct arb_buf *buf,
                                 struct store_check_text *t);

/*
 * Put the check records rows[0..n) (n <= 16) in that order, as n calls of arb_store_put_check
 * would, with fewer statements: consecutive records whose text may be shared go in by fours
 * and eights (a statement's own cost was a sixth of a check record's).  texts[k]: rows[k]'s
 * text already made (store_check_text), or texts NULL: made here.  store_checks.c.
 */
enum arb_status store_put_checks(struct arb_store *st, int64_t run,
                                 const struct arb_check_row *rows,
                                 const struct store_check_text *texts, size_t n,
                                 struct arb_err *err);

/*
 * A verdict's comparison text as the store keeps it: its length, and the hash it is remembered
 * by (store_text_hash) when it may be shared (0 for a verdict replaced later, or without a
 * text).  A run's writer makes it on the thread that queues the verdict, as a check record's.
 * store_write_verdict puts v (replace 0) or sets it (1) as arb_store_put_verdict and
 * arb_store_set_verdict do, with t made already.  store_verdicts.c.
 */
struct store_verdict_text {
    size_t len;
    uint64_t hash;
};
void store_verdict_text(const struct arb_verdict_row *v, int64_t run, struct store_verdict_text *t);
enum arb_status store_write_verdict(struct arb_store *st, int64_t run,
                                    const struct arb_verdict_row *v,
                                    const struct store_verdict_text *t, int replace,
                                    struct arb_err *err);

/*
 * The texts written lately (store_texts.c).  at[] says where a check record's text was cut
 * (-1: not cut); a verdict's text has STORE_TEXT_VERDICT in both.  store_text_recall gives the
 * id of a text remembered with the same run, at[] and bytes, or 0; store_text_remember keeps
 * one just written under id (texts over 4,096 bytes are not kept; out of memory, nothing is).
 */
#define STORE_TEXT_VERDICT (-2)
uint64_t store_text_hash(int64_t run, const int64_t at[2], const char *s, size_t len);
int64_t store_text_recall(struct arb_store *st, uint64_t h, int64_t run, const int64_t at[2],
                          const char *s, size_t len);
void store_text_remember(struct arb_store *st, uint64_t h, int64_t run, const int64_t at[2],
                         const char *s, size_t len, int64_t id);

/* Forget the texts remembered (a rollback may have taken them back). */
void store_texts_forget(struct arb_store *st);

/* Free what store_texts_forget would forget, and the memory that holds it. */
void store_texts_free(struct arb_store *st);

/*
 * A writer connection checkpoints its WAL once it holds st->wal_pages pages (STORE_WAL_PAGES;
 * SQLite's is 1,000: a page written many times between two checkpoints is copied into the
 * database once).  store_ckpt_start moves those checkpoints to a thread of their own with its
 * own connection (started when the first is due) and store_ckpt_stop, which must come before
 * st's connection closes, ends it and gives them back to st's connection (store_ckpt.c).
 * store_ckpt_runs counts the thread's checkpoints; store_ckpt_wait_idle waits until none is due
 * or running (a test's pace, whatever the machine's load); store_set_wal_pages (before a start)
 * sets st->wal_pages, for tests of a small log.
 */
#define STORE_WAL_PAGES 8192
void store_ckpt_start(struct arb_store *st);
void store_ckpt_stop(struct arb_store *st);
unsigned long store_ckpt_runs(const struct arb_store *st);
void store_ckpt_wait_idle(struct arb_store *st);
int store_set_wal_pages(struct arb_store *st, int pages);

/* Run a statement with no parameters that returns at most one integer (PRAGMA x) into *v
 * (may be NULL); an SQLite result code (store.c). */
int store_query_int(struct arb_store *st, const char *text, int64_t *v);

/* A failure while reading the file at open: "not a database" gets its own wording. */
enum arb_status store_open_fail(struct arb_store *st, int rc, struct arb_err *err,
                                const char *what);

/* BEGIN IMMEDIATE, a few attempts past the busy timeout. */
#define STORE_BEGIN_ATTEMPTS 3
enum arb_status store_begin_immediate(struct arb_store *st, struct arb_err *err);

/* At close: a caller's transaction left open in a group is undone, what the group holds
 * committed (store_txn.c). */
void store_group_close(struct arb_store *st);

/*
 * Decide what the opened file is: an Arbiter database (migrated when older and st may write),
 * an empty file (given the schema), or anything else (refused, untouched); store_migrate.c.
 */
enum arb_status store_check_and_migrate(struct arb_store *st, struct arb_err *err);

/* Release the runs this store locked (arb_store_lock_run); store_lock.c. */
void store_lock_close(struct arb_store *st);

/* Free s and what it holds (NULL: nothing); case_index_search.c. */
void store_ci_search_free(struct store_ci_search *s);

/* A judge call row from a statement selecting Q_GET_JUDGE_CALL's columns (store_judge.c). */
struct arb_judge_call_row;
void store_call_row(sqlite3_stmt *s, struct arb_judge_call_row *c);

/*
 * Record a failed SQLite call: "cannot <what> in '<path>': <sqlite message>".
 * Returns the status that rc maps to (ARB_ENOMEM, ARB_EUSAGE for constraint
 * and type errors, ARB_ETOOBIG, otherwise ARB_EDB).
 */
enum arb_status store_fail(struct arb_store *st, int rc, struct arb_err *err, const char *what, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/*
 * Bind helpers, chained through rc: each does nothing when rc is already an
 * error and returns the new code.  store_bind_text binds NULL as SQL NULL and
 * text with its explicit length (any bytes); store_bind_real binds NaN as NULL.
 */
int store_bind_text(int rc, sqlite3_stmt *s, int i, const char *t);
int store_bind_blob_text(int rc, sqlite3_stmt *s, int i, const char *t, size_t len);
int store_bind_int(int rc, sqlite3_stmt *s, int i, int64_t v);
int store_bind_real(int rc, sqlite3_stmt *s, int i, double v);

/* A text column, NULL for SQL NULL; a REAL column, NaN for SQL NULL. */
const char *store_col_text(sqlite3_stmt *s, int i);
double store_col_real(sqlite3_stmt *s, int i);

/*
 * The statement table's q, prepared on its first use (store.c; the transactions' at open):
 * NULL when it cannot be, store_errcode(st) then says why.  The binds and store_exec below take
 * a NULL statement and fail with that error.
 */
sqlite3_stmt *store_stmt(struct arb_store *st, enum store_stmt q);
int store_errcode(struct arb_store *st); /* the connection's error code, SQLITE_ERROR for none */

/*
 * Run a bound write statement to completion, then reset and clear it.  rc is
 * the result of the binds; on any error the message names what.
 */
enum arb_status store_exec(struct arb_store *st, sqlite3_stmt *s, int rc, struct arb_err *err,
                           const char *what);

/*
 * store_exec without clearing the bindings, for a statement every use of which binds all its
 * parameters: a run's inserts (clearing the check records' 64 was 1.4% of a run's writer).
 */
enum arb_status store_exec_bound(struct arb_store *st, sqlite3_stmt *s, int rc, struct arb_err *err,
                                 const char *what);

/* ARB_EUSAGE unless a transaction (arb_store_begin) is open: puts write only inside one. */
enum arb_status store_need_txn(struct arb_store *st, const char *what, struct arb_err *err);

/*
 * The statement for an iterator.  Normally the one prepared at open; when it
 * is already being stepped (a callback iterating again), a fresh copy, so
 * nested iteration is safe.  *out is NULL when preparing fails.
 */
enum arb_status store_acquire(struct arb_store *st, enum store_stmt q, sqlite3_stmt **out,
                              struct arb_err *err);

/* Reset, clear and hand back a statement from store_acquire (finalizing a copy). */
void store_release(struct arb_store *st, enum store_stmt q, sqlite3_stmt *s);

#endif
