/*
 * show_verdict.h - the text `arbiter show` prints under a pair's verdict (show_verdict.c),
 * and its one-line texts.  Everything goes to stdout; nothing here reads the store.
 */
#ifndef ARBITER_CLI_SHOW_VERDICT_H
#define ARBITER_CLI_SHOW_VERDICT_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* Bytes of a reasoning shown (--records shows it whole). */
#define REASONING_SHOWN 4000

/* "    LABEL: text" cut at about max bytes (on a UTF-8 boundary), newlines as spaces. */
void cli_show_text(const char *label, const char *text, size_t max);

/*
 * The judge's answers of a pair put together (view as arb_case_judge_read gives it; NULL:
 * nothing): a line per order and sample, "    judge, order AB (NAME shown first): winner
 * NAME (Response A)" (or "a tie", "no valid answer", "no winner named"), then "    judge:
 * position-inconsistent (...)" or "position-consistent", the sample agreement and the
 * judge's own winner, as far as they are known.
 */
void cli_show_judge_view(const cJSON *view);

/*
 * What decided the verdict, when its comparison (cmp, may be NULL) says: "    decided by:
 * X" for a "decided_by" member, "    policy: KEY VALUE, ..." for each member of "policy"
 * but its "why", which gets "    why: TEXT".  Nothing for a comparison with neither.
 */
void cli_show_policy(const cJSON *cmp);

/*
 * The verdict's reasoning ("    reasoning: TEXT" from cmp); when view says the orders were
 * position-inconsistent, each order's own instead ("    reasoning, order AB (NAME shown
 * first): TEXT"), since the comparison keeps only the first order's.
 */
void cli_show_reasoning(const cJSON *cmp, const cJSON *view);

#endif
