/*
 * label_opts.h - what `arbiter export --labels` and `arbiter calibrate --labels-from-db`
 * share (label_opts.c): the repeated --annotator NAME option, and the labels of a run read
 * from the database as the JSONL `calibrate --run` reads (labels.h, arb_labels_jsonl).
 */
#ifndef ARBITER_CLI_LABEL_OPTS_H
#define ARBITER_CLI_LABEL_OPTS_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/buf.h"
#include "arbiter/calibrate.h"
#include "arbiter/store.h"
#include "parse_options.h"

/* --annotator NAME, repeated: whose labels (none given: everyone's).  Names borrowed from argv. */
struct cli_annotators {
    const char *name[ARB_CALIB_MAX_ANNOTATORS];
    size_t n;
};

/* The option's callback: appends one name; '' and more than ARB_CALIB_MAX_ANNOTATORS refused. */
int cli_annotator_option(const char *cmd, const struct cli_option *opt, const char *arg);

#define CLI_OPT_ANNOTATOR(a) CLI_OPT_CALLBACK("--annotator", (a), cli_annotator_option)

/*
 * run's labels (of those annotators) as JSONL into out.  An empty out is no error: the
 * caller says what that means.  An exit code, the message printed naming cmd.
 */
int cli_labels_text(const char *cmd, struct arb_store *st, int64_t run,
                    const struct cli_annotators *a, struct arb_buf *out);

/* "run 3 has no labels" or "run 3 has no labels by alice or bob" into why[n]. */
void cli_labels_none(int64_t run, const struct cli_annotators *a, char *why, size_t n);

#endif
