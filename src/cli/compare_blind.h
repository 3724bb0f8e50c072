/*
 * compare_blind.h - what `arbiter compare` does about blinding (compare_blind.c): which
 * names of its two paths it keeps from the judge, and how it labels its comparison.json
 * (A = A_PATH, B = B_PATH, whichever path the blinding showed the judge as "Response A").
 * Used by cmd_compare.c only.
 */
#ifndef ARBITER_CLI_COMPARE_BLIND_H
#define ARBITER_CLI_COMPARE_BLIND_H

#include <cjson/cJSON.h>

/*
 * Append to out (a JSON array, borrowed) the names that tell A_PATH and B_PATH apart, for the
 * suite's "redact" list: every component of either path (as given and resolved by realpath),
 * with its stems before its first and last dot, that the other path lacks (ASCII case
 * ignored) and that has at least 3 bytes (as for system names: "a" or "v2" would eat words).
 * What both paths share ("/home/me/evals", "answer.txt") names neither system.
 * Returns 0, or -1 out of memory.
 */
int compare_redact_names(const char *a_path, const char *b_path, cJSON *out);

/*
 * Relabel cmp, a stored verdict's comparison.json, in place: the verdict names the system the
 * judge saw as "Response A" in its first order "A"; compare's file names A_PATH "A".  When
 * swapped (the blinding showed B_PATH as "A"), the structured members are swapped: winner,
 * judge.winner, and the A/B members of rubric, output_quality and expectation_results.  The
 * judge's reasoning (its first order's words) is kept verbatim, and judge.positions states
 * what its "A" and "B" stand for in this file ({"A": "B", "B": "A"} when swapped, else
 * {"A": "A", "B": "B"}); Arbiter's own reasoning (no judge answered) is one of the verdict
 * policy's fixed sentences, which name the sides only as the words "A" and "B", so it is
 * rewritten.  Returns 0, or -1 out of memory.
 */
int compare_relabel(cJSON *cmp, int swapped);

#endif
