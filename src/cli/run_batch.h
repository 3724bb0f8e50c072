/*
 * run_batch.h - `arbiter run` with a judge in batch mode (run_batch.c): the options
 * --judge-batch and --no-wait, and the test hook that kills the process at a named point.
 */
#ifndef ARBITER_CLI_RUN_BATCH_H
#define ARBITER_CLI_RUN_BATCH_H

#include "arbiter/batch.h"
#include "judge_opts.h"

struct cli_batch {
    int on;      /* --judge-batch */
    int no_wait; /* --no-wait */
    /* ARBITER_TEST_KILL_AT=POINT[:N]: SIGKILL at the N-th (default 1st) checkpoint POINT
     * (batch.h: submit, posted, poll, download, ingest); for the kill tests only */
    char kill_point[32];
    long kill_at, seen;
    struct arb_batch_opts bo;
};

/* Apply --judge-batch / --no-wait to the judge (exit code; 0 fine) and set up bo. */
int cli_batch_setup(struct cli_batch *b, struct cli_judge *judge, void *progress);

#endif
