/*
 * progress.h - the progress line of long commands (`run`, `replay
 * --rejudge`, `calibrate`): one line on standard error, rewritten in place
 * at most ten times a second, shown by default only when standard error is
 * a terminal (--progress forces it, --no-progress silences it).  Nothing
 * else is printed for it, so output piped or captured is unchanged.
 */
#ifndef ARBITER_CLI_PROGRESS_H
#define ARBITER_CLI_PROGRESS_H

#include <stddef.h>

#include "parse_options.h"

struct arb_run_progress;
struct arb_judge_progress;

enum { CLI_PROGRESS_AUTO = 0, CLI_PROGRESS_ALWAYS, CLI_PROGRESS_NEVER };

/* Zero-initialise, then set mode (CLI_PROGRESS_OPTIONS) and call cli_progress_start. */
struct cli_progress {
    const char *cmd;
    int mode;         /* CLI_PROGRESS_AUTO (0, when stderr is a terminal), _ALWAYS, _NEVER */
    int on;           /* decided by cli_progress_start */
    int show_cost;    /* the judge has a price: show what it has cost */
    int printed;      /* a line is on the screen */
    int phase;        /* the run's phase when the rate's clock started, or -1 */
    double start;     /* when the current phase started (monotonic seconds) */
    double last;      /* when the line was last drawn */
};

/* The lines of --help for the two options. */
#define CLI_PROGRESS_HELP                                                                        \
    "  --progress          show a progress line on stderr even when it is not a terminal\n"    \
    "  --no-progress       never show one (the default shows it only on a terminal)\n"

/* --progress and --no-progress as rows of a command's option table (parse_options.h). */
#define CLI_PROGRESS_OPTIONS(p)                                                                    \
    CLI_OPT_SET_INT("--progress", &(p)->mode, CLI_PROGRESS_ALWAYS),                                \
        CLI_OPT_SET_INT("--no-progress", &(p)->mode, CLI_PROGRESS_NEVER)

/* Decide whether to show the line (mode, and whether stderr is a terminal). */
void cli_progress_start(struct cli_progress *p, const char *cmd);

/* A run moved (struct arb_run_progress; ctx is the cli_progress). */
void cli_progress_run(void *ctx, const struct arb_run_progress *rp);

/* A judge moved, outside a run (calibrate; ctx is the cli_progress). */
void cli_progress_judge(void *ctx, const struct arb_judge_progress *jp);

/* Draw the last state and end the line, when one was shown. */
void cli_progress_end(struct cli_progress *p);

/* Print a judge's notice (arb_judge_set_notice; ctx is the cli_progress) on a line of its own
 * on stderr, whether or not the progress line is shown, which is then drawn again. */
void cli_progress_notice(void *ctx, const char *msg);

#endif
