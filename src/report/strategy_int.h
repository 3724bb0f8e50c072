/*
 * strategy_int.h - what the report strategies share (weighted.c, custom.c,
 * grader_run.c, md_strategy.c, html_strategy.c): the capture fields both
 * weighted and the grader's input read, running a grader, reading its
 * answer, and the markdown and HTML sections of weighted, custom and hybrid.
 */
#ifndef ARBITER_STRATEGY_INT_H
#define ARBITER_STRATEGY_INT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"
#include "html_int.h"

/* An output's duration in ms from its capture fields (duration, timing, timing.total...), or
 * NaN when none (weighted.c). */
double strategy_duration_ms(const cJSON *meta);

/* An output's own grader score from an earlier grading step (meta's score.score, 0-1, as
 * agent-eval capture files carry it), or NaN. */
double strategy_prior_score(const cJSON *meta);

/* 1 when an output's capture fields record tool errors (toolErrors: a count > 0, a non-empty
 * list, or true); 0 otherwise (weighted.c). */
int strategy_tool_errors(const cJSON *meta);

/*
 * Run the grader argv (argv[0] searched in PATH, no shell) with input[0..len) on its standard
 * input, its standard output into out (whose cap bounds it), its standard error inherited,
 * killed with its process group after timeout_s seconds (grader_run.c).  ARB_OK when it
 * exited 0 (out NUL-terminated); else ARB_EREMOTE (could not start, timed out, killed,
 * nonzero exit), ARB_ETOOBIG (past out's cap) or ARB_ENOMEM, with err saying which.
 */
enum arb_status grader_exec(char *const *argv, const char *input, size_t len, double timeout_s,
                            struct arb_buf *out, struct arb_err *err);

/*
 * Read a grader's answer text[0..len) for one case whose runs are the members of runs (an
 * object keyed by system name): {"rankings": [{"run", "rank", "score"}...], "reasoning"?}
 * with run a key of runs (each at most once), rank an integer >= 1, score a number from 0 to
 * 1, reasoning a string when present (custom.c).  On success *out is a new object
 * {"rankings": [...], "reasoning": string or null} the caller frees.  ARB_ESCHEMA or
 * ARB_EPARSE with err naming the JSON path of what was wrong and what was expected ("the
 * answer is empty", "/rankings/1/score: expected a number from 0 to 1"), or ARB_ENOMEM.
 */
enum arb_status grader_read_answer(const char *text, size_t len, const cJSON *runs, cJSON **out,
                                   struct arb_err *err);

/* The markdown sections "Weighted", "Custom grader" and "Hybrid" of a report, those it has. */
enum arb_status md_strategies(const cJSON *report, struct arb_buf *out);

/* The same sections in the HTML report. */
void html_strategies(struct html *h, const cJSON *report);

#endif
