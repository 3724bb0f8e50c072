/*
 * run.h - the pipeline of a run: load outputs, blind, check, resolve, decide,
 * record (DESIGN.md "Data flow", "Verdict policy").
 *
 * arb_run_execute streams the suite's cases; for each case it runs every
 * check on every system's output, stores the records, and decides each pair
 * of systems by the policy when every item is resolved ("decided"), or
 * leaves it "pending_judge", or "missing_output" when a system has no
 * output.  Records are committed in batches of cases; a run killed at any
 * moment resumes (opts.resume_run) without losing or duplicating a record.
 */
#ifndef ARBITER_RUN_H
#define ARBITER_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/select.h"
#include "arbiter/status.h"
#include "arbiter/store.h"
#include "arbiter/suite.h"

struct arb_judge_batcher;
struct arb_judge_config;
struct arb_judge_progress;

/* The most shards a run may be split into (arbiter run --shard K/N, N at most this). */
#define ARB_SHARD_MAX 1024

/*
 * Where a run's cases and outputs come from (the engine's input seam): a
 * source opens a reader of the suite's cases and, for each system of the
 * suite (by index), a reader of its outputs.  Three are built in (source.c):
 * the files the suite names (the default: arb_run_opts.source NULL), one
 * output per system for the suite's one case (`compare`), and a stored run
 * (`replay`, re-judging).  Only a source of files has inputs whose identity
 * --resume checks.
 */
struct arb_run_source {
    enum arb_status (*open_cases)(void *ctx, const struct arb_suite *s,
                                  struct arb_case_reader **out, struct arb_err *err);
    enum arb_status (*open_outputs)(void *ctx, const struct arb_suite *s, size_t system,
                                    struct arb_output_reader **out, struct arb_err *err);
    void *ctx;
    int files; /* its inputs are the suite's files (runs.inputs_json records them) */
};

/* The files the suite names: its cases (inline or a JSONL file) and each system's path. */
void arb_run_source_files(struct arb_run_source *src);

/*
 * The suite's cases (one, for a comparison), and as each system's output for
 * case_id the file or directory at the system's path (arb_output_reader_open_one).
 * case_id is borrowed.
 */
void arb_run_source_one(struct arb_run_source *src, const char *case_id);

/*
 * A stored run: its cases (their stored JSON, compiled against the suite) and
 * each system's stored outputs, the suite's systems matched by name.  st is
 * borrowed; nothing needs releasing (each reader closes what it opened).
 */
struct arb_run_source_stored {
    struct arb_run_source src;
    struct arb_store *st;
    int64_t run;
    struct arb_store_cursor *cases; /* the cursor of the case reader open now */
    char label[48];                 /* "run N", in messages */
};

void arb_run_source_stored_init(struct arb_run_source_stored *ss, struct arb_store *st,
                                int64_t run);

enum arb_run_phase {
    ARB_RUN_LOADING_CASES,   /* pass 1: storing the suite's cases */
    ARB_RUN_LOADING_OUTPUTS, /* pass 2: storing one system's outputs */
    ARB_RUN_CHECKING         /* pass 3: checks, decisions, the judge */
};

/* Where a run is, for a progress line. */
struct arb_run_progress {
    enum arb_run_phase phase;
    const char *system; /* ARB_RUN_LOADING_OUTPUTS: whose outputs */
    size_t done;        /* cases stored (1), outputs stored (2), cases checked (3) */
    size_t total;       /* ARB_RUN_CHECKING: the run's cases; 0 before */
    const struct arb_judge_progress *judge; /* NULL without a judge */
};

struct arb_run_opts {
    const struct arb_judge_config *judge; /* NULL: no judge, unresolved stays pending */
    const char *api_key;                  /* the judge's key (from the environment) */
    int no_cache;                         /* ask again even when a reply is stored */
    /* With resume_run: ask the judge_failed pairs afresh.  A resumed run otherwise takes the
     * invalid replies it stored as they were (the same retry, the same failure); a request
     * whose call got no reply is always sent again.  A new run never reuses an invalid reply. */
    int retry_failed;
    int64_t resume_run;                   /* continue this run; 0 starts a new one */
    int64_t new_run_id;       /* the id of the new run (it must not exist); 0: the next one */
    const char *systems_json; /* recorded as the systems instead of the suite's (replay
                                 --rejudge: where the outputs came from), or NULL */
    const char *version;      /* Arbiter's version, stored with the run */
    size_t batch;             /* cases per transaction; 0 means 256 */
    /* Only these cases (a new run; recorded with it, so --resume keeps to them).  NULL or
     * empty: every case.  An id the suite lacks is ARB_EUSAGE. */
    const struct arb_case_select *select;
    /* Of the selected cases, only those of shard shard_k of shard_n (1 <= shard_k <= shard_n
     * <= ARB_SHARD_MAX; the bucket is arb_blinder_shard's under the suite's seed): a new run,
     * recorded with it like the selection.  shard_n 0: no shard.  arbiter merge (merge.h)
     * makes one run of the N shards' databases. */
    unsigned shard_k, shard_n;
    /* Where the cases and outputs come from; NULL: the suite's files. */
    const struct arb_run_source *source;
    /* Where the judge looks stored replies up (replay: the database replayed, only read);
     * NULL: the run's own store.  Its judgments are recorded with the run either way. */
    struct arb_store *replies;
    /* The run in replies whose judgments answer first (replay: the run replayed): each
     * question slot it judged takes exactly the reply it used, whatever key this Arbiter
     * computes for the request; only the slots it never judged are looked up by key.  0:
     * none.  A resumed run answers from its own judgments so, whatever this says. */
    int64_t replies_run;
    /* Spend at most this many US dollars on the judge over the whole run (earlier
     * executions included; the config must have a price); 0: no cap.  What the cap holds
     * back stays pending_judge, for --resume. */
    double max_cost;
    /* Called as the run moves (after every case, output and judge reply), when not NULL;
     * the caller decides how often to print. */
    void (*progress)(void *ctx, const struct arb_run_progress *p);
    void *progress_ctx;
    /* Told what the user should see as it happens (arb_judge_set_notice: a provider's error,
     * a switch of response format, a refusal), when not NULL. */
    void (*notice)(void *ctx, const char *msg);
    void *notice_ctx;
    /* The run's kind (runs.kind): NULL or "run", or "calibration" for the run calibrate
     * makes of labelled pairs (never "latest"). */
    const char *kind;
    /* Batch mode (batch.h, arb_run_batched): where the judge routes the requests its cache
     * cannot answer instead of sending them; NULL: it sends them. */
    const struct arb_judge_batcher *batcher;
};

/* Per-system totals over every pair the system is in. */
struct arb_run_system_total {
    char *name;
    size_t wins, losses, ties;
};

struct arb_run_summary {
    int64_t run_id;
    size_t cases;         /* cases recorded */
    size_t decided;       /* cases whose every pair is decided */
    size_t pending;       /* cases with a pair pending the judge */
    size_t missing;       /* cases where some system has no output */
    size_t judge_failed;  /* cases with a pair the judge could not answer */
    size_t judge_refused; /* cases with a pair the judge refused (a refusal, a content filter;
                             not asked again), and none it could not answer */
    size_t judged;        /* cases the judge was asked about (with a judgment), failed or not */
    size_t unreachable;   /* judge calls without a reply after every retry (this execution) */
    size_t held;          /* judge requests not sent: the spending cap (this execution) */
    size_t batched;       /* judge requests left to a provider batch (this execution) */
    double judge_cost;    /* USD spent on the judge by the run, at its price (NAN: no price) */
    size_t problems;      /* duplicate outputs, outputs for unknown cases, ... */
    struct arb_run_system_total *systems;
    size_t n_systems;
};

void arb_run_summary_release(struct arb_run_summary *s);

/* Add a system at the end, with no totals, unless sum has it; ARB_ENOMEM. */
enum arb_status arb_run_summary_add_system(struct arb_run_summary *sum, const char *name);

/*
 * Execute (or resume) a run of suite into st and fill *sum from the stored
 * records.  ARB_ESCHEMA / ARB_EPARSE / ARB_EIO / ARB_ETOOBIG for bad input
 * (err names file, line, case; ARB_EIO: an input that cannot be read),
 * ARB_EUSAGE for a refused selection or a changed input on --resume, ARB_EDB
 * from the database, ARB_EREMOTE when the judge refuses the key, ARB_ENOMEM.
 */
enum arb_status arb_run_execute(struct arb_store *st, struct arb_suite *suite,
                                const struct arb_run_opts *opts, struct arb_run_summary *sum,
                                struct arb_err *err);

/*
 * The identity of suite's decision procedure under judge (NULL: none; runs.procedure_hash,
 * calibrations.procedure_hash): hex SHA-256 of the RFC 8785 text of the judge
 * config's hash, the task, the rubric (criteria with dimension, description,
 * anchors, check), the suite's own expectations and the policy
 * (db/migrations/007-procedure-identity.sql).  ARB_ENOMEM.
 */
enum arb_status arb_procedure_hash(const struct arb_suite *s, const struct arb_judge_config *judge,
                                   char hex[65], struct arb_err *err);

/* Fill *sum for an existing run from its records. */
enum arb_status arb_run_summarize(struct arb_store *st, int64_t run, struct arb_run_summary *sum,
                                  struct arb_err *err);

/*
 * The same, for a reader that wants every verdict row as well: fn (when not
 * NULL) is called on each row, with its comparison_json, in case order, from
 * the one pass that tallies them (a non-zero return stops the pass, and the
 * call returns ARB_OK: the caller keeps its own status).  begin (when not
 * NULL) is called once before the first row, with *sum holding the run's
 * systems in suite order and the counts of cases and problems; it may add
 * systems (arb_run_summary_add_system).  Systems that only verdicts name are
 * appended to sum->systems during the pass, so begin should keep the names
 * (which stay put) rather than the array.
 */
enum arb_status arb_run_summarize_rows(struct arb_store *st, int64_t run,
                                       struct arb_run_summary *sum,
                                       int (*begin)(void *ctx, struct arb_run_summary *sum),
                                       int (*fn)(void *ctx, const struct arb_verdict_row *v),
                                       void *ctx, struct arb_err *err);

#endif
