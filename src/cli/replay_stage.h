/*
 * replay_stage.h - a stored run read back and its inputs staged for the
 * pipeline (replay_stage.c), shared by `replay` and `replay --rejudge`.
 */
#ifndef ARBITER_CLI_REPLAY_STAGE_H
#define ARBITER_CLI_REPLAY_STAGE_H

#include <stdint.h>

#include <cjson/cJSON.h>

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
 * Resolve the run, read it, load its suite (which must be unchanged), and
 * write its stored cases and outputs into a new temporary folder made from
 * tmpl (*dir, removed by the caller).  Prints what went wrong; returns an
 * exit code.
 */
int replay_prepare(struct arb_store *orig, const char *run_spec, int64_t *run,
                   struct stored_run *sr, struct arb_suite **suite, cJSON **systems, char *tmpl,
                   const char **dir, struct arb_err *err);

void replay_stored_run_release(struct stored_run *sr);

#endif
