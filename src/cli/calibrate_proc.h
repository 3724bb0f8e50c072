/*
 * calibrate_proc.h - what cmd_calibrate.c and calibrate_proc.c share: the
 * options of `calibrate --run` and `calibrate --suite`, and storing and
 * printing a study.
 */
#ifndef ARBITER_CLI_CALIBRATE_PROC_H
#define ARBITER_CLI_CALIBRATE_PROC_H

#include <cjson/cJSON.h>

#include "arbiter/calibrate.h"
#include "arbiter/store.h"
#include "cli.h"
#include "judge_opts.h"
#include "label_opts.h"
#include "progress.h"

struct cal_proc {
    const char *labels, *db, *format; /* labels: NULL with from_db */
    const char *run;                  /* --run RUN (an id or "latest"), or NULL */
    const char *suite;                /* --suite SUITE, or NULL */
    struct arb_calib_opts opts;
    struct cli_judge *judge;
    struct cli_progress *progress;
    int from_db;                             /* --labels-from-db: the run's labels in the DB */
    const struct cli_annotators *annotators; /* --annotator: whose (none: everyone's) */
};

/*
 * calibrate --run: the run's stored verdicts against labels naming its systems, from the
 * LABELS file or (from_db) the labels people made of the run's first pair in the database,
 * read as the text `export --labels` writes through the same parser.
 */
int cli_calibrate_run(struct cal_proc *cp);

/* calibrate --suite: the labelled pairs run through the suite's procedure, then measured. */
int cli_calibrate_suite(struct cal_proc *cp);

/*
 * Store study (one transaction) with the labels' path, the run it measured or whose
 * judgments it holds (0: none), the procedure it measured (NULL: the judge's own winners)
 * and its source ("labels", "suite", "run").  An exit code.
 */
int cli_calib_store(struct arb_store *st, const char *labels, const cJSON *study, int64_t run,
                    const char *procedure_hash, const char *source);

/* Print study as one JSON line or markdown (format "json" or "md").  An exit code. */
int cli_calib_print(const cJSON *study, const char *format);

#endif
