/*
 * failures.h - why the judge failed, in the summaries of `arbiter run` and
 * `arbiter replay --rejudge` (failures.c): the distinct reasons of the run's
 * failed judgments with their counts (report.h, arb_report_add_judge_failures).
 */
#ifndef ARBITER_CLI_FAILURES_H
#define ARBITER_CLI_FAILURES_H

#include <stdint.h>

#include <cjson/cJSON.h>

struct arb_store;

/*
 * Print on stdout, after a summary's counts, run's reasons of failure: a line "  why the
 * judge failed, most frequent first:", at most five reasons ("    12 judgments in 6 cases
 * (c0, c1, c2, ...): REASON", the reason on one line cut at about 160 bytes), then "    and
 * N more reasons (arbiter report RUN --db DB)" when there are more.  Nothing when no judgment
 * failed.  cmd names the command in a note on stderr when the reasons cannot be read: the
 * run's records are safe, so that is no failure.
 */
void cli_print_judge_failures(const char *cmd, struct arb_store *st, int64_t run, const char *db);

/*
 * --json: add "judge_failures" to o (at most 100 reasons, 5 case ids each, and
 * "judge_failures_more" when there are more).  0, or -1 with a note on stderr naming cmd
 * (o then lacks them).
 */
int cli_add_judge_failures(const char *cmd, struct arb_store *st, int64_t run, cJSON *o);

#endif
