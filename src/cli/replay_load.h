/*
 * replay_load.h - a stored run read back for `replay` and `replay --rejudge`
 * (replay_load.c).
 */
#ifndef ARBITER_CLI_REPLAY_LOAD_H
#define ARBITER_CLI_REPLAY_LOAD_H

#include <stdint.h>

#include "arbiter/status.h"

struct arb_run_row;
struct arb_store;
struct arb_suite;

/* What a run stored about itself (owned strings; replay_stored_run_release frees them). */
struct stored_run {
    char *suite_path, *sha256, *systems_json, *judge_json;
    uint64_t seed;
    int found;
};

/* An arb_store_runs callback: fill the struct stored_run ctx from r (once). */
int replay_read_run(void *ctx, const struct arb_run_row *r);

/*
 * Resolve the run, read it, and load its suite (which must be unchanged),
 * with the run's seed and systems.  Prints what went wrong; returns an exit
 * code.
 */
int replay_load(struct arb_store *orig, const char *run_spec, int64_t *run, struct stored_run *sr,
                struct arb_suite **suite, struct arb_err *err);

void replay_stored_run_release(struct stored_run *sr);

#endif
