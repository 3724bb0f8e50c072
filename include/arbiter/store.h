/*
 * store.h - the SQLite record of runs (only src/store/ includes sqlite3.h).
 *
 * One file (default ./arbiter.db), WAL mode, foreign keys on, a busy
 * timeout, the schema of db/schema.sql applied by numbered migrations
 * (PRAGMA user_version).  Every statement binds its parameters.
 *
 * Writes are idempotent: each put has a natural key (run, case, system,
 * item...) and a repeated put with the same key leaves the first row alone
 * (INSERT ... ON CONFLICT DO NOTHING), so a resumed run can redo a batch
 * without duplicating a record.  Callers group puts into transactions with
 * arb_store_begin / arb_store_commit; nothing is written outside one.
 *
 * Strings returned through callbacks are borrowed for the duration of the
 * callback only.  A callback returning non-zero stops the iteration, and the
 * iterator returns ARB_OK.
 */
#ifndef ARBITER_STORE_H
#define ARBITER_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/judge.h"
#include "arbiter/status.h"

struct arb_store;

enum arb_store_flags {
    ARB_STORE_READONLY = 1 << 0, /* open an existing database for reading only */
    /* with ARB_STORE_READONLY: the reader visits each page about once, in order (a run's
     * pass over the outputs it stored): a small page cache serves it */
    ARB_STORE_STREAM = 1 << 1,
    /* one thread at a time uses the connection, and never two at once (a run's writer
     * thread, pass 3's reader): opened without SQLite's own mutex, which cost the writer a
     * twentieth of its time.  Without it a connection is serialized by SQLite, so a report's
     * callbacks may look things up while arb_store_verdicts_ahead's thread reads. */
    ARB_STORE_UNSHARED = 1 << 2
};

/*
 * SQLite's process-wide set-up, like curl_global_init: call it once, before any other store
 * function and before any thread uses one (the command line's main does).  It turns SQLite's
 * memory statistics off (a global mutex on every allocation otherwise).  ARB_OK, or
 * ARB_EINTERNAL when SQLite was already initialised (the call came too late).
 */
enum arb_status arb_store_global_init(void);

/*
 * Open (creating and migrating when needed) the database at path.  ARB_EDB
 * when it cannot be opened, is not a database, is read-only for a writer or
 * is locked past the busy timeout, with SQLite's message and the path;
 * ARB_ESCHEMA when its user_version is newer than this build knows (or, for
 * a reader, older: "needs migrating"); ARB_EUSAGE for an empty path.
 */
enum arb_status arb_store_open(const char *path, unsigned flags, struct arb_store **out,
                               struct arb_err *err);
void arb_store_close(struct arb_store *st);

/*
 * From now until a run's writer on st finishes (arb_store_writer_finish) or st closes, copy
 * what st's connection commits into the database file on a thread of the store's (a connection
 * of its own, a checkpoint whenever the WAL holds 1 MB or more; store_ckpt.c), so that closing
 * has little left to copy and sync.  For a writer that spends its time waiting on something
 * else (a run asking its judge) while committing often.  Best effort: without a thread (none
 * could be started) the committing connection checkpoints, as SQLite does.  Not for a
 * read-only store, nor while st's connection is shared with another thread (ARB_STORE_UNSHARED
 * is the caller's promise; the commits' hook runs on the committing thread).
 */
void arb_store_checkpoint_ahead(struct arb_store *st);

enum arb_status arb_store_begin(struct arb_store *st, struct arb_err *err);
enum arb_status arb_store_commit(struct arb_store *st, struct arb_err *err);
void arb_store_rollback(struct arb_store *st);

/*
 * Group commit, for a writer that commits many small transactions while it waits on
 * something else (a run storing its judge's replies as they come).  From
 * arb_store_group_begin to arb_store_group_end, each arb_store_begin .. arb_store_commit is
 * a savepoint in one transaction of the group's, and arb_store_rollback undoes that savepoint
 * alone.  The group's transaction is committed by arb_store_group_flush (before the writer
 * waits), by arb_store_group_end, at close, and on its own once it holds 64 transactions or
 * is 50 ms old.  What is durable is always a prefix of the transactions in the order they were
 * committed: a killed process loses the last ones, never one without those before it.  So a
 * transaction whose durability something outside the process relies on (a provider batch
 * submitted after it is recorded) must not be committed in a group, or must be flushed first.
 * A failed commit of the group's transaction loses every transaction it held and returns
 * the error; the next arb_store_begin starts a new one.  Not with a threaded writer on st
 * (the group is st's connection's).
 */
enum arb_status arb_store_group_begin(struct arb_store *st, struct arb_err *err);
enum arb_status arb_store_group_flush(struct arb_store *st, struct arb_err *err);
enum arb_status arb_store_group_end(struct arb_store *st, struct arb_err *err);

/* ---- runs ---------------------------------------------------------------------------- */

struct arb_run_row {
    int64_t id;
    const char *created_at; /* UTC, ISO 8601 */
    const char *status;     /* "running" or "complete" */
    const char *suite_path;
    const char *suite_name;
    const char *suite_sha256;
    const char *suite_json;   /* the suite as loaded (RFC 8785 text) */
    const char *systems_json; /* [{"name":..., "path":...}, ...] after --system overrides */
    uint64_t seed;
    const char *version;    /* Arbiter's version */
    const char *judge_json; /* judge config without secrets, or NULL */
    int64_t n_cases;        /* cases recorded so far */
    const char *scope_json; /* {"limit": N, "cases": [...]}: the cases the run was limited to
                               (arbiter run --limit/--cases), or NULL for every case */
    const char *inputs_json; /* the identity of every input file the run read (size, SHA-256;
                                see db/README.md), checked by --resume; NULL in runs stored
                                by an Arbiter that did not record it */
    const char *kind; /* "run", or "calibration" (a calibration's own run: never "latest");
                         NULL on create means "run" */
    const char *procedure_hash; /* the identity of the decision procedure (arb_procedure_hash),
                                   NULL without a judge or before migration 7 */
};

/* Create a run (status "running") with run->id, or the next id when it is 0; *id
 * receives its id. */
enum arb_status arb_store_run_create(struct arb_store *st, const struct arb_run_row *run,
                                     int64_t *id, struct arb_err *err);

/* Delete a run and every row that belongs to it (foreign keys cascade). */
enum arb_status arb_store_run_delete(struct arb_store *st, int64_t id, struct arb_err *err);

/* Set a run's status ("running", "complete"). */
enum arb_status arb_store_run_set_status(struct arb_store *st, int64_t id, const char *status,
                                         struct arb_err *err);

/*
 * Hold run's lock until st closes: one process at a time continues a run (store_lock.c).
 * ARB_EDB with a message saying so when another process (or another store of this one)
 * holds it; the kernel releases it when the holder ends, however it ends.
 */
enum arb_status arb_store_lock_run(struct arb_store *st, int64_t run, struct arb_err *err);

/*
 * Resolve "latest" (the newest run of kind "run") or a decimal id into *id.
 * ARB_EUSAGE with a message naming the database when there is no such run.
 */
enum arb_status arb_store_run_resolve(struct arb_store *st, const char *spec, int64_t *id,
                                      struct arb_err *err);

/* Call fn for one run (id) or, with id 0, every run newest first. */
enum arb_status arb_store_runs(struct arb_store *st, int64_t id,
                               int (*fn)(void *ctx, const struct arb_run_row *run), void *ctx,
                               struct arb_err *err);

/* One shard of a run to merge (arb_store_merge): its database file and the run in it. */
struct arb_store_shard {
    const char *path; /* borrowed */
    int64_t run;
};

/*
 * Make one run in st of the runs of n shard databases, shards[i] being shard i + 1 of n,
 * which the caller has checked belong together (merge.h: one suite, seed, judge, every shard
 * once, complete).  The new run has row's columns (id 0: the next id; created_at as given,
 * NULL for now; its systems from row->systems_json) and status complete, and every record
 * of the shards' runs (cases with their seq, outputs, blinding, checks, verdicts, problems,
 * trials, judgments, labels) in the order the unsharded run would have written them; the
 * judge cache of every shard database comes along (judge_calls by the store's rule: a valid
 * reply is never replaced; judge_calls_rejected; a reply that does not end up under its key
 * is kept among the rejected ones, where a replay of the run finds it).  One transaction:
 * the run is there whole or not at all.  The shards are attached one at a time (the file
 * name bound), only read, and staged in TEMP tables of st's connection, dropped at the end.
 * *run receives the new id.  ARB_EDB (with SQLite's message) for a database failure,
 * ARB_EUSAGE when st is read-only or in a transaction, ARB_ENOMEM.
 */
enum arb_status arb_store_merge(struct arb_store *st, const struct arb_run_row *row,
                                const struct arb_store_shard *shards, size_t n, int64_t *run,
                                struct arb_err *err);

/* ---- cases, outputs, blinding -------------------------------------------------------- */

/* A case of a run, in reading order (seq from 0). */
enum arb_status arb_store_put_case(struct arb_store *st, int64_t run, const char *case_id,
                                   int64_t seq, const char *prompt, const char *expected_json,
                                   const char *case_json, struct arb_err *err);

/*
 * One output file of one system for one case and trial.  file is "" for a
 * single-file output.  meta_json may be NULL.  binary outputs store content
 * NULL with their size and hash.  trial is 0 unless the outputs number
 * several trials of a case (migration 3).
 */
struct arb_output_row {
    const char *case_id;
    const char *system;
    const char *file;
    const char *content;
    size_t len;
    int binary;
    const char *sha256;
    const char *meta_json;
    int64_t trial;
};
enum arb_status arb_store_put_output(struct arb_store *st, int64_t run,
                                     const struct arb_output_row *o, struct arb_err *err);

/* Call fn for each output of (run, case_id), ordered by system, trial, then file. */
enum arb_status arb_store_outputs(struct arb_store *st, int64_t run, const char *case_id,
                                  int (*fn)(void *ctx, const struct arb_output_row *o), void *ctx,
                                  struct arb_err *err);

/*
 * The same ordered by system name (not the suite's order), trial, then file:
 * the order of the outputs' key, so SQLite reads them without sorting.
 */
enum arb_status arb_store_outputs_by_key(struct arb_store *st, int64_t run, const char *case_id,
                                         int (*fn)(void *ctx, const struct arb_output_row *o),
                                         void *ctx, struct arb_err *err);

/*
 * One trial of one system on one case, when the system has several (see
 * db/migrations/003-trials.sql): passed is 1, 0, or -1 for NULL (none failed,
 * some unresolved); records_json the array of its expectation records.
 */
struct arb_trial_row {
    const char *case_id;
    const char *system;
    int64_t trial;
    int passed;
    int64_t n_pass, n_fail, n_unresolved;
    const char *records_json;
};
enum arb_status arb_store_put_trial(struct arb_store *st, int64_t run,
                                    const struct arb_trial_row *t, struct arb_err *err);

/* *yes 1 when system has several outputs (trials) of some case of run. */
enum arb_status arb_store_has_trials(struct arb_store *st, int64_t run, const char *system,
                                     int *yes, struct arb_err *err);

/*
 * Call fn for each trial row of run: of case_id in (system position, trial)
 * order, or, with case_id NULL, of every case ordered by system position,
 * case, trial and without records_json (NULL: the counts are what a report
 * needs).
 */
enum arb_status arb_store_trials(struct arb_store *st, int64_t run, const char *case_id,
                                 int (*fn)(void *ctx, const struct arb_trial_row *t), void *ctx,
                                 struct arb_err *err);

/* The same, only each system's compared trial (its lowest-numbered one). */
enum arb_status arb_store_compared_outputs(struct arb_store *st, int64_t run, const char *case_id,
                                           int (*fn)(void *ctx, const struct arb_output_row *o),
                                           void *ctx, struct arb_err *err);

/* Which system is shown as A and which as B for a case (and the HMAC hex that chose it). */
enum arb_status arb_store_put_blinding(struct arb_store *st, int64_t run, const char *case_id,
                                       const char *system_a, const char *system_b,
                                       const char *hmac_hex, struct arb_err *err);

/* A problem found while loading: kind is "duplicate_output", "unknown_case", "missing_output"... */
enum arb_status arb_store_put_problem(struct arb_store *st, int64_t run, const char *kind,
                                      const char *case_id, const char *system, const char *message,
                                      struct arb_err *err);

struct arb_problem_row {
    const char *kind;
    const char *case_id; /* may be NULL */
    const char *system;  /* may be NULL */
    const char *message;
};

/* Call fn for each problem of a run, in insert order. */
enum arb_status arb_store_problems(struct arb_store *st, int64_t run,
                                   int (*fn)(void *ctx, const struct arb_problem_row *p), void *ctx,
                                   struct arb_err *err);

/* ---- records ------------------------------------------------------------------------- */

/*
 * One check record: for (case, system), the item it decides (kind
 * "expectation", "criterion" or "fields"; item its id or name), the full
 * result record as JSON, and its verdict and score for the views.
 *
 * observed_is_output (putting only; 0 when read): non-zero when the record's
 * "observed" member is the text of the output the case has for this system,
 * the single file ('' file) of its compared (lowest) trial, exactly as stored
 * by arb_store_put_output: the store then keeps that text once, in the
 * output, and puts it back when the record is read (db/README.md, migration 10).
 * expected_is_case, the same for the record's "expected" member: the case's
 * expected value (the check has none of its own), kept once in the case.
 */
struct arb_check_row {
    const char *case_id;
    const char *system;
    const char *kind;
    const char *item;
    const char *record_json;
    const char *verdict; /* "pass", "fail", "unresolved" */
    double score;
    int observed_is_output;
    int expected_is_case;
};
enum arb_status arb_store_put_check(struct arb_store *st, int64_t run,
                                    const struct arb_check_row *c, struct arb_err *err);

/* Replace the verdict, score and record of the check record put before (an llm_judge check
 * the judge has decided).  Inside a transaction; a record never put is left alone. */
enum arb_status arb_store_set_check(struct arb_store *st, int64_t run,
                                    const struct arb_check_row *c, struct arb_err *err);

/*
 * Call fn for each check record of (run, case_id) (NULL case_id: every case), in insert order,
 * with record_json the record's whole text, byte for byte as it was put (its output's text put
 * back in when the store kept it once).
 */
enum arb_status arb_store_checks(struct arb_store *st, int64_t run, const char *case_id,
                                 int (*fn)(void *ctx, const struct arb_check_row *c), void *ctx,
                                 struct arb_err *err);

/*
 * The verdict on one case between two systems (system_a is the one shown as
 * A).  status: "decided", "pending_judge", "missing_output".  winner: the
 * winning system's name, "TIE", or NULL when not decided.  comparison_json
 * is the seed's comparison.json (without system names); scores are the
 * overall scores (NaN when unknown); pass rates the expectation pass rates.
 */
struct arb_verdict_row {
    const char *case_id;
    const char *system_a;
    const char *system_b;
    const char *status;
    const char *winner;
    double score_a, score_b;
    double pass_rate_a, pass_rate_b;
    const char *comparison_json;
};
enum arb_status arb_store_put_verdict(struct arb_store *st, int64_t run,
                                      const struct arb_verdict_row *v, struct arb_err *err);

/*
 * A run's writes on a second thread (store_writer.c).  Start one on st
 * (inside no transaction); then begin, the puts and commit are queued and
 * executed in order by the thread, which alone uses st until
 * arb_store_writer_sync or _finish returns: read through another connection
 * meanwhile (arb_store_open with ARB_STORE_READONLY sees what is committed).
 * The rows' texts are copied; each call returns ARB_OK, or the first failure
 * so far (a failure is kept and every later write skipped).  _sync waits
 * until everything queued is done and gives that failure with its message;
 * _finish does the same and frees w (committing nothing itself: a failed
 * writer leaves the caller to roll back).  Without threaded, or when no
 * thread can be started, every call executes at once.
 */
struct arb_store_writer;
enum arb_status arb_store_writer_start(struct arb_store *st, int threaded,
                                       struct arb_store_writer **w, struct arb_err *err);
int arb_store_writer_threaded(const struct arb_store_writer *w);
enum arb_status arb_store_writer_begin(struct arb_store_writer *w, struct arb_err *err);
enum arb_status arb_store_writer_commit(struct arb_store_writer *w, struct arb_err *err);
enum arb_status arb_store_writer_put_case(struct arb_store_writer *w, int64_t run,
                                          const char *case_id, int64_t seq, const char *prompt,
                                          const char *expected_json, const char *case_json,
                                          struct arb_err *err);
enum arb_status arb_store_writer_put_output(struct arb_store_writer *w, int64_t run,
                                            const struct arb_output_row *o, struct arb_err *err);
enum arb_status arb_store_writer_put_problem(struct arb_store_writer *w, int64_t run,
                                             const char *kind, const char *case_id,
                                             const char *system, const char *message,
                                             struct arb_err *err);
enum arb_status arb_store_writer_put_check(struct arb_store_writer *w, int64_t run,
                                           const struct arb_check_row *c, struct arb_err *err);
enum arb_status arb_store_writer_put_blinding(struct arb_store_writer *w, int64_t run,
                                              const char *case_id, const char *system_a,
                                              const char *system_b, const char *hmac_hex,
                                              struct arb_err *err);
enum arb_status arb_store_writer_put_verdict(struct arb_store_writer *w, int64_t run,
                                             const struct arb_verdict_row *v, struct arb_err *err);
/* The final verdict of a pair (the judge has answered): it replaces the pending one, through
 * the same writer (arb_store_set_verdict). */
enum arb_status arb_store_writer_set_verdict(struct arb_store_writer *w, int64_t run,
                                             const struct arb_verdict_row *v, struct arb_err *err);
enum arb_status arb_store_writer_put_trial(struct arb_store_writer *w, int64_t run,
                                           const struct arb_trial_row *t, struct arb_err *err);
enum arb_status arb_store_writer_sync(struct arb_store_writer *w, struct arb_err *err);
enum arb_status arb_store_writer_finish(struct arb_store_writer *w, struct arb_err *err);

/* The schema version this build writes (PRAGMA user_version of a current file). */
int arb_store_latest_schema(void);

/* The path st was opened with. */
const char *arb_store_path(const struct arb_store *st);

/* 1 in *done when (run, case_id) already has a verdict row (resume skips it). */
enum arb_status arb_store_case_done(struct arb_store *st, int64_t run, const char *case_id,
                                    int *done, struct arb_err *err);

/*
 * The verdicts of every case without their comparison_json (NULL in the rows) and scores
 * (NaN): the outcomes, for tallies, skip the run's largest column and decode five.  A case's
 * verdicts come together, the cases in the order of their ids (not the suite's: no search
 * per case).
 */
enum arb_status arb_store_verdict_outcomes(struct arb_store *st, int64_t run,
                                           int (*fn)(void *ctx, const struct arb_verdict_row *v),
                                           void *ctx, struct arb_err *err);

/* Call fn for each verdict of a run (NULL case_id: every case), in case order. */
enum arb_status arb_store_verdicts(struct arb_store *st, int64_t run, const char *case_id,
                                   int (*fn)(void *ctx, const struct arb_verdict_row *v), void *ctx,
                                   struct arb_err *err);

/*
 * arb_store_verdicts for every case, with the rows read on a second thread
 * (a few batches ahead) while fn works on the ones already read; fn is
 * called on the caller's thread, in case order, and must not use st.  Falls
 * back to reading in line when no thread can be started.
 */
enum arb_status arb_store_verdicts_ahead(struct arb_store *st, int64_t run,
                                         int (*fn)(void *ctx, const struct arb_verdict_row *v),
                                         void *ctx, struct arb_err *err);

/* Insert or replace the verdict of (run, case, pair): the judge's decision replaces
 * "pending_judge". */
enum arb_status arb_store_set_verdict(struct arb_store *st, int64_t run,
                                      const struct arb_verdict_row *v, struct arb_err *err);

/* ---- judge calls (the cache) and judgments ------------------------------------------- */


/*
 * Store a call.  A stored valid reply is never replaced; a failed call is, and so is a reply
 * whose validity is not 1 (its row first moves to judge_calls_rejected, for audit).
 */
enum arb_status arb_store_put_judge_call(struct arb_store *st, const struct arb_judge_call_row *c,
                                         struct arb_err *err);

/* *found is 1 and fn is called when key is stored (any status). */
enum arb_status arb_store_get_judge_call(struct arb_store *st, const char *key,
                                         int (*fn)(void *ctx, const struct arb_judge_call_row *c),
                                         void *ctx, int *found, struct arb_err *err);

/*
 * What run's judgment of slot used (store_recorded.c): *found 1 and fn called once with the
 * call whose key the judgment names and whose reply hashes to its reply_sha256, from
 * judge_calls or, when a later request replaced it there, judge_calls_rejected (newest
 * first).  A judgment stored before reply_sha256 (NULL) takes the call under its key as it
 * stands.  A judgment that had no reply (reply_sha256 '', or NULL and a failed call) gives a
 * call with its key, status "failed", no reply and the judgment's error.  *found 0 when run
 * has no judgment of slot, or the reply it used is gone.
 */
enum arb_status arb_store_get_recorded_call(struct arb_store *st, int64_t run,
                                            const struct arb_judge_slot *slot,
                                            int (*fn)(void *ctx,
                                                      const struct arb_judge_call_row *c),
                                            void *ctx, int *found, struct arb_err *err);


/* Insert or replace the judgment of (run, case, pair, ord, sample, attempt). */
enum arb_status arb_store_put_judgment(struct arb_store *st, int64_t run,
                                       const struct arb_judgment_row *j, struct arb_err *err);

/*
 * The judge's cache backed by this store, for run (store_cache.c): fill sc,
 * then pass &sc->cache to arb_judge_new.  judge_calls answers every run;
 * judgments are run's.  A call and the judgment after it are committed in
 * one transaction, so no transaction may be open on st while the judge
 * drains.  sc must outlive the judge.
 */
struct arb_store_judge_cache {
    struct arb_judge_cache cache; /* what the judge is given */
    struct arb_store *st;
    int64_t run;
    int open;                  /* a put_call's transaction awaits its judgment */
    struct arb_store *replies; /* where get looks (only read); NULL: st (set after init) */
    int64_t recorded; /* the run (in replies, or st) whose judgments answer get's slots
                         first: the run replayed, or resumed; 0: none (set after init) */
};

void arb_store_judge_cache_init(struct arb_store_judge_cache *sc, struct arb_store *st,
                                int64_t run);

/* Call fn for each judgment of a run (NULL case_id: every case), in insert order. */
enum arb_status arb_store_judgments(struct arb_store *st, int64_t run, const char *case_id,
                                    int (*fn)(void *ctx, const struct arb_judgment_row *j),
                                    void *ctx, struct arb_err *err);

/* A question slot (case, pair, order, sample) of a run the judge left without a valid answer. */
struct arb_judge_failure_row {
    const char *reason; /* the judgments.error of its last attempt ("the judge gave no valid
                           reply" when it holds none) */
    int64_t n;          /* the failed slots of the run (of case_id, when given) with this reason */
    const char *case_id;
    const char *system_a, *system_b; /* the pair, as its verdict names it (system_b '' for a
                                        question about one output) */
    const char *ord;                 /* "AB" or "BA" */
    int sample, attempt;             /* the attempt whose error is the reason */
};

/*
 * Call fn for each failed slot of run (NULL case_id: every case) (store_failures.c): a slot
 * none of whose attempts is valid without an error, so a retry that then validated is no
 * failure.  The rows of one reason come together, most frequent reason first (then the one
 * seen first in case order), and within one in case order.  Reads the store as
 * arb_store_scope left it.
 */
enum arb_status arb_store_judge_failures(struct arb_store *st, int64_t run, const char *case_id,
                                         int (*fn)(void *ctx,
                                                   const struct arb_judge_failure_row *f),
                                         void *ctx, struct arb_err *err);

struct arb_judge_totals {
    int64_t judgments, cached, invalid;
    int64_t prompt_tokens, completion_tokens;
    double latency_s; /* summed over the calls behind the judgments */
};

enum arb_status arb_store_judge_totals(struct arb_store *st, int64_t run,
                                       struct arb_judge_totals *t, struct arb_err *err);

/* The judge calls a run sent itself (not answered from the cache) for one case. */
struct arb_judge_cost_row {
    const char *case_id;
    int64_t calls;
    int64_t prompt_tokens, cached_tokens, completion_tokens; /* cached_tokens: of prompt_tokens */
    double charged_usd; /* what the calls that stored a charge were charged (judge_calls) */
    int64_t uncharged_prompt, uncharged_cached, uncharged_completion; /* the tokens of the
                           calls stored without a charge (before migration 5), to be priced */
};

/* Call fn for each case of run with calls it sent itself, in case order. */
enum arb_status arb_store_judge_costs(struct arb_store *st, int64_t run,
                                      int (*fn)(void *ctx, const struct arb_judge_cost_row *c),
                                      void *ctx, struct arb_err *err);

/* Call fn for each case of a run in reading order, with its stored JSON. */
enum arb_status arb_store_cases(struct arb_store *st, int64_t run,
                                int (*fn)(void *ctx, const char *case_id, int64_t seq,
                                          const char *case_json),
                                void *ctx, struct arb_err *err);

/*
 * A stored run read back one row at a time (store_cursor.c), for the run
 * engine's stored-run source.  Open a cursor, step it (1 a row, whose
 * strings are borrowed until the next step; 0 the end; a negated status),
 * close it.  Cases come in case order with their stored JSON; outputs of
 * one system in case order, then trial, then file.
 */
struct arb_store_cursor;
enum arb_status arb_store_cases_cursor(struct arb_store *st, int64_t run,
                                       struct arb_store_cursor **out, struct arb_err *err);
int arb_store_cursor_case(struct arb_store_cursor *c, const char **case_id, const char **case_json,
                          size_t *len, struct arb_err *err);
enum arb_status arb_store_outputs_cursor(struct arb_store *st, int64_t run, const char *system,
                                         struct arb_store_cursor **out, struct arb_err *err);
int arb_store_cursor_output(struct arb_store_cursor *c, struct arb_output_row *o,
                            struct arb_err *err);
void arb_store_cursor_close(struct arb_store_cursor *c);

/* Count rows of a run in one table ("cases", "outputs", "checks", "verdicts", "problems",
 * "trials"...), or "judged_cases": its cases with a judgment (the judge was asked). */
enum arb_status arb_store_count(struct arb_store *st, int64_t run, const char *table, int64_t *n,
                                struct arb_err *err);

/* ---- a selection of cases (--limit, --cases) ----------------------------------------- */

struct arb_case_select;

/*
 * From now on, read only the cases of run that sel selects (select.h: the
 * named cases, or all, in case order, the first sel->limit of them) through
 * st: every iterator and count of this header then sees those cases' rows
 * of cases, outputs, blinding, checks, verdicts, judgments, trials and
 * problems (problems of no case stay), and other runs' rows unchanged.  One
 * place does it for every reader (store_scope.c: TEMP views named like the
 * tables, which SQLite finds before main's), so a report, its statistics
 * and an export cannot disagree about which cases they cover.  Nothing is
 * written to the database file; st may be read-only.  A second call
 * replaces the selection.
 *
 * An inactive sel (arb_case_select_active) does nothing.  ARB_EUSAGE when
 * an id is not a case of run ("case 'x' is not in run 3"); a database
 * failure as the other calls.  sel is only read during the call.
 */
enum arb_status arb_store_scope(struct arb_store *st, int64_t run,
                                const struct arb_case_select *sel, struct arb_err *err);

/*
 * Read another run (report --against) through the same selection: the case
 * ids chosen from the first run, those of them it has.  Without a selection
 * it does nothing.
 */
enum arb_status arb_store_scope_add_run(struct arb_store *st, int64_t run, struct arb_err *err);

/* ---- what a case asked (store_case_view.c) ------------------------------------------- */

/*
 * The suite's task as run stored it (its suite_json's "task"): fn called once, with NULL when
 * the suite had none; not called when there is no such run.
 */
enum arb_status arb_store_run_task(struct arb_store *st, int64_t run,
                                   int (*fn)(void *ctx, const char *task), void *ctx,
                                   struct arb_err *err);

/*
 * The prompt of case_id in run (what the systems were asked): fn called once, with NULL when
 * the case had none; not called when run has no such case.  Reads the store as
 * arb_store_scope left it.
 */
enum arb_status arb_store_case_prompt(struct arb_store *st, int64_t run, const char *case_id,
                                      int (*fn)(void *ctx, const char *prompt), void *ctx,
                                      struct arb_err *err);

/* ---- calibrations -------------------------------------------------------------------- */

/* One judge calibration study (calibrate.h). */
struct arb_calibration_row {
    const char *judge_hash; /* the judge config's hash; NULL: recorded verdicts, no judge */
    const char *labels_path;
    int64_t n;              /* labelled items */
    double kappa, accuracy; /* combined verdict vs human; NaN (stored NULL) when undefined */
    const char *study_json; /* the whole study, per-item verdicts included */
    int64_t run;            /* the run whose judgments hold the judge's calls, or whose
                               verdicts were measured (--run); 0: none */
    const char *procedure_hash; /* the procedure measured (calibrate --suite, --run); NULL:
                                   the judge's own verdicts (calibrate LABELS) */
    const char *source;         /* "labels", "suite" or "run" */
};

/* Store a study (inside a transaction, like the other puts). */
enum arb_status arb_store_put_calibration(struct arb_store *st, const struct arb_calibration_row *c,
                                          struct arb_err *err);

/* A stored pairwise study, as a run's judge health names it. */
struct arb_calibration_info {
    int64_t id, n, run;
    char created_at[32];
    char source[16];          /* "labels", "suite", "run" */
    char procedure_hash[65];  /* "" for a study of the judge's own verdicts */
    char judge_hash[65];
    char labels_path[512];    /* truncated when longer */
    double kappa, kappa_lo, kappa_hi, accuracy; /* NaN when undefined */
};

/*
 * The latest pairwise study of procedure_hash or, when it is NULL, the latest
 * study of the judge config judge_hash's own per-order verdicts (calibrate
 * LABELS).  *found 0 when there is none.
 */
enum arb_status arb_store_calibration_of(struct arb_store *st, const char *procedure_hash,
                                         const char *judge_hash,
                                         struct arb_calibration_info *info, int *found,
                                         struct arb_err *err);

#endif
