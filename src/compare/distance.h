/*
 * distance.h - string distances over Unicode code points (internal to src/compare/; not
 * installed).
 *
 * All functions take code point arrays (see arb_utf8_to_cps) so that callers
 * decode once.  The quadratic algorithms refuse inputs whose length product
 * exceeds a cap instead of running for hours: they return ARB_ETOOBIG.
 */
#ifndef ARBITER_DISTANCE_H
#define ARBITER_DISTANCE_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/status.h"

/* Largest n*m (after trimming the common prefix and suffix) the DP algorithms accept. */
#define ARB_DISTANCE_MAX_CELLS ((size_t)400 * 1000 * 1000)

/*
 * Levenshtein distance (insert, delete, substitute; each cost 1) between a and
 * b.  When max_distance >= 0 the computation may stop early once the distance
 * is known to exceed it, and then *d is max_distance + 1.  Pass -1 for none.
 * ARB_ETOOBIG past ARB_DISTANCE_MAX_CELLS, ARB_ENOMEM on allocation failure.
 */
enum arb_status arb_levenshtein(const uint32_t *a, size_t n, const uint32_t *b, size_t m,
                                long max_distance, size_t *d);

/*
 * Unrestricted Damerau-Levenshtein distance (adjacent transpositions count 1,
 * and substrings may be edited after transposition), as rapidfuzz's
 * DamerauLevenshtein used by LangChain's json_edit_distance.
 * ARB_ETOOBIG past ARB_DISTANCE_MAX_CELLS / 4 cells, ARB_ENOMEM.
 */
enum arb_status arb_damerau_levenshtein(const uint32_t *a, size_t n, const uint32_t *b, size_t m,
                                        size_t *d);

/*
 * Jaro-Winkler similarity in [0, 1] with prefix scale 0.1 and a common prefix
 * of at most 4, as jellyfish and the Winkler paper define it.  Two empty
 * strings are 1.0; one empty string against a non-empty one is 0.0.
 * ARB_ENOMEM on allocation failure.
 */
enum arb_status arb_jaro_winkler(const uint32_t *a, size_t n, const uint32_t *b, size_t m,
                                 double *sim);

#endif
