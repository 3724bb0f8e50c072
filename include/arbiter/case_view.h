/*
 * case_view.h - one case, whole: what the judge answered about a case and pair in each order
 * it was asked, told in the pair's systems, and what the pair's verdict made of it.  `arbiter
 * show` and the HTML report's case view both read it here, so they cannot tell it differently.
 *
 * The judge saw "Response A" (the output shown first) and "Response B"; in order AB the
 * pair's A is shown first, in order BA its B, so in that order the answer's "A" is the pair's
 * B (src/judge/combine.c reads it so).  Everything below is turned back into system names.
 */
#ifndef ARBITER_CASE_VIEW_H
#define ARBITER_CASE_VIEW_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "arbiter/status.h"
#include "arbiter/store.h"

/*
 * The judge's part of verdict v of run (src/report/case_judge.c), from the pair's judgments
 * and v->comparison_json, as a new object in *out that the caller frees with cJSON_Delete;
 * NULL in *out when the pair never went to the judge (no judgment of it and no "judge" in its
 * comparison).  Members:
 *
 *   "orders"    one entry per question slot of the pair (order and sample), order AB first,
 *               then BA, samples in turn; a slot's entry is its valid attempt (the latest, when
 *               several are), else its last attempt:
 *     "ord"               "AB" (the pair's A shown first) or "BA" (its B shown first)
 *     "shown_first"       the system the judge saw as Response A; "shown_second" as Response B
 *     "sample", "attempt" from 0 (attempt 1: asked again with the validation error)
 *     "valid"             true when this is a valid answer; "cached" it came from the cache
 *     "winner"            the system the answer names, "TIE", or null (none, or no answer)
 *     "winner_as_shown"   the answer's own word, "A" (the one shown first), "B", "TIE", or null
 *     "reasoning"         the answer's reasoning, or null
 *     "criteria"          {name: {SYSTEM: score, SYSTEM: score}}, the pair's A first; a score
 *                         that is not a number is null
 *     "expectations"      {id: {SYSTEM: true/false, SYSTEM: true/false}} as the answer decided
 *     "error"             only on a slot without a valid answer: why (its last attempt's error,
 *                         "the judge gave no valid reply" when that is empty)
 *     "answer"            only when the stored answer is not a JSON object: its text
 *   "position_inconsistent"  true when the orders disagreed on the winner: the comparison's
 *               word, else the orders' majorities compared; null when unknown
 *   "sample_agreement"  the comparison's (share of answers naming the judge's winner), or null
 *   "winner"    the judge's own winner over all its answers (a system, "TIE"), or null
 *   "error"     only when the judge failed or refused the pair: the comparison's reason
 *
 * ARB_ENOMEM, or the store's failure with err set.
 */
enum arb_status arb_case_judge_read(struct arb_store *st, int64_t run,
                                    const struct arb_verdict_row *v, cJSON **out,
                                    struct arb_err *err);

#endif
