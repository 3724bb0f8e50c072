/*
 * assign.h - exact linear assignment: pair rows with columns at the best total (internal to
 * src/fields/, for unordered arrays; not installed).
 *
 * The fields operator uses this to match unordered arrays: expected items are
 * rows, observed items are columns, and each entry is a cost (to minimise) or
 * a similarity (to maximise).  Building that matrix, and deciding whether a
 * matched pair is good enough, is left to the caller.
 *
 * Matrices are row-major, rows x cols, and may be rectangular: exactly
 * min(rows, cols) pairs are assigned, each row and each column at most once.
 * An infinite entry forbids its pair (+INFINITY when minimising, -INFINITY
 * when maximising).  Everything is caller-owned: the library reads the matrix,
 * writes row_to_col and *total, allocates its working space per call and
 * frees it before returning.
 *
 * Tie-breaking.  Among several optimal assignments the one returned depends
 * only on the matrix (its shape and values), never on addresses or earlier
 * calls.  The rule is that of the solver:
 *   1. when rows > cols the transposed matrix is solved (a choice made by the
 *      shape alone), so below "row" means the shorter side;
 *   2. rows are added in increasing index order, each by one shortest
 *      augmenting path;
 *   3. each shortest-path step settles the closest unsettled column; among
 *      equally close columns a still unassigned one wins, then the lowest
 *      column index; a column's predecessor changes only on a strict
 *      improvement, so the earliest row scanned keeps it.
 * For example every constant square matrix yields the identity assignment.
 */
#ifndef ARBITER_ASSIGN_H
#define ARBITER_ASSIGN_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/status.h"

/* Written to row_to_col for a row left without a column (when rows > cols). */
#define ARB_ASSIGN_NONE SIZE_MAX

/*
 * Finite entries must lie within [-ARB_ASSIGN_LIMIT, ARB_ASSIGN_LIMIT], so the
 * sums of reduced costs the solver forms can never overflow.
 */
#define ARB_ASSIGN_LIMIT 1e300

/*
 * Find the assignment of min(rows, cols) pairs with the least total cost.
 *
 * cost        rows x cols, row-major; +INFINITY forbids a pair.  May be NULL
 *             when rows or cols is 0.
 * row_to_col  rows entries (may be NULL only when rows is 0): the column given
 *             to each row, or ARB_ASSIGN_NONE.
 * total       when not NULL, the sum of the chosen entries (0 when empty).
 * err         when not NULL, receives a message on failure.
 *
 * Returns ARB_OK; ARB_ESCHEMA when the matrix is infeasible (every assignment
 * of min(rows, cols) pairs uses a forbidden entry); ARB_EUSAGE for a NaN,
 * -INFINITY or out-of-range entry or a missing pointer; ARB_ETOOBIG when the
 * matrix size overflows; ARB_ENOMEM.  On failure row_to_col and *total are
 * left untouched.  Runs in O(min(rows, cols)^2 * max(rows, cols)) time.
 */
enum arb_status arb_assign_min(const double *cost, size_t rows, size_t cols, size_t *row_to_col,
                               double *total, struct arb_err *err);

/*
 * As arb_assign_min, but finds the greatest total score; -INFINITY forbids a
 * pair and +INFINITY is an error.
 */
enum arb_status arb_assign_max(const double *score, size_t rows, size_t cols, size_t *row_to_col,
                               double *total, struct arb_err *err);

#endif
