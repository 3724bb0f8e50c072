/*
 * runner.h - the state of one run's execution, shared by run.c (pass 3 and
 * the run as a whole) and load.c (passes 1 and 2 and the connections they
 * write through).  Internal to src/run/.
 */
#ifndef ARBITER_RUN_RUNNER_H
#define ARBITER_RUN_RUNNER_H

#include "arbiter/blind.h"
#include "arbiter/buf.h"
#include "arbiter/run.h"
#include "arbiter/fpset.h"
#include "arbiter/strset.h"
#include "arbiter/suite.h"
#include "run_int.h"

/* One system's stored output files for the current case: files[0..n) are the compared
 * (lowest-numbered) trial, files[n..n_all) the other trials, ordered by trial then file. */
struct sysout {
    struct file_row *files;
    size_t n, n_all, cap;
};

/* The case ids a run remembers (case_ids.c), by fingerprint. */
struct case_ids {
    struct arb_fpset fps;       /* every case id of the suite (from case_ids_finish) */
    struct arb_strset shared;   /* an id whose fingerprint another id has -> keep */
    struct arb_strset seen;     /* the system being loaded: its outputs with a file or a trial */
    struct arb_strset trial_of; /* ... and the first trial of a case of a shared fingerprint */
    /* pass 1: each case's fingerprint and keep, in reading order, until case_ids_finish */
    uint64_t *pending;
    unsigned char *keep;
    size_t n, cap;
    int collided; /* case_ids_finish found fingerprints shared: case_ids_shared_id each case */
};

void case_ids_init(struct case_ids *ids);
void case_ids_release(struct case_ids *ids);

/* Remember the next case of the suite (ids the case reader let through: never a repeat). */
enum arb_status case_ids_add(struct case_ids *ids, const char *id, int keep);

/*
 * After the last case_ids_add (and once the case reader, with its own set of the ids, is
 * gone): the table of every id, made at its final size.  When two ids share a fingerprint
 * (about 3e-8 for a million ids), ids->collided is set: the caller reads the cases again and
 * hands each to case_ids_shared_id, in the same order, then calls case_ids_finish again.
 */
enum arb_status case_ids_finish(struct case_ids *ids);
enum arb_status case_ids_shared_id(struct case_ids *ids, size_t seq, const char *id);

/* 1 when the suite has the case, with *keep 1 when the run keeps it; else 0. */
int case_ids_get(const struct case_ids *ids, const char *id, int *keep);

/* Forget the outputs of the system loaded last, before the next one's. */
void case_ids_next_system(struct case_ids *ids);

/* An output of a case the suite has: *first 1 unless an output of that key came before. */
enum arb_status case_ids_output(struct case_ids *ids, const struct arb_output *o, int *first);

/* An output stored: *trials set to 1 when its case had one of another trial. */
enum arb_status case_ids_stored(struct case_ids *ids, const struct arb_output *o, int *trials);

struct runner {
    const struct arb_run_opts *opts;
    const struct arb_run_source *source; /* opts->source, or the suite's files */
    struct arb_run_source files;
    struct arb_run_progress prog;
    struct run_scope scope;
    struct case_ids ids; /* every case id of the suite, and whether the run keeps it */
    struct arb_store *st;
    struct arb_store *rd;        /* pass 3 reads: st, or a second connection with a writer */
    struct arb_store_writer *w;  /* pass 3 writes */
    int resuming;                /* the run existed: some cases may be decided already */
    struct arb_blinder *blinder; /* the suite's seed, keyed once */
    struct arb_suite *s;
    int64_t run;
    struct arb_err *err;
    struct arb_strset systems; /* name -> index */
    struct sysout *outs;       /* per system, current case */
    int *has_trials;           /* per system: several outputs of some case in this run */
    struct side *sides;        /* per system, current case */
    size_t exp_cap;
    struct arb_result res;
    struct arb_buf rec;
    struct escalation *esc; /* NULL without a judge */
    size_t unreachable;     /* judge calls that got no reply */
    struct arb_case *batch; /* the cases of the batch being read (the judge needs them) */
    struct items *batch_items;
    size_t n_batch;
    struct arb_case *prev; /* the batch before, whose judge questions are still in flight */
    struct items *prev_items;
    size_t n_prev;
    struct arb_buf text[2];   /* output texts for the judge */
    struct check_words words; /* the suite's checks described for the sentences */
    struct decide_scratch ds;
    struct arb_buf cmp;              /* a pair's comparison.json */
    struct arb_observed *obs;        /* the output file the checks run on, shared by them */
    const struct file_row *obs_file; /* which file obs holds; NULL: none of this case */
    struct arb_record_memo memo;     /* this case's records: its expected values, outputs */
};

/* Report the run's progress to the caller's callback, when it gave one. */
void run_moved(struct runner *r);

/*
 * The run's connections (load.c): without a judge the writes go to a writer
 * thread and pass 3 reads through a second, read-only connection.
 */
enum arb_status run_open_writer(struct runner *r, int threaded);

/* Wait for the writer, free it and close the reading connection; st is the status so far. */
enum arb_status run_close_writer(struct runner *r, enum arb_status st);

/* After a failure: let the writer stop, and undo the transaction in flight. */
void run_abort_writes(struct runner *r);

/* Pass 1: store the suite's cases (those the selection keeps), batch cases a transaction. */
enum arb_status run_load_cases(struct runner *r, size_t batch);

/* Pass 2: store one system's outputs, recording duplicates and unknown cases as problems. */
enum arb_status run_load_outputs(struct runner *r, const struct arb_system *sys);

#endif
