/*
 * store_report.h - what a report reads of a stored run beyond store.h, one
 * case at a time, so that it need not hold the run's case ids
 * (src/store/store_report_read.c).  Kept apart from store.h, whose readers
 * are shared with the run engine.
 */
#ifndef ARBITER_STORE_REPORT_H
#define ARBITER_STORE_REPORT_H

#include <stdint.h>

#include "arbiter/status.h"
#include "arbiter/store.h"

/* A prepared look-up of one case's compared output (owned; close it). */
struct arb_store_first_output;

/*
 * Prepare the look-up for run into *out.  ARB_OK, or a store status (err
 * says which) with *out NULL.
 */
enum arb_status arb_store_first_output_open(struct arb_store *st, int64_t run,
                                            struct arb_store_first_output **out,
                                            struct arb_err *err);

/*
 * The meta_json (capture fields) of system's compared output of case_id: its
 * lowest trial's first file, as arb_store_outputs_cursor orders them.  1 and
 * *meta_json (NULL when the output has none; valid until the next call or
 * close) when the case has an output of system, 0 when it has none, or a
 * negated status (err says which).
 */
int arb_store_first_output_meta(struct arb_store_first_output *q, const char *case_id,
                                const char *system, const char **meta_json, struct arb_err *err);

/* Finalize the look-up (NULL: nothing). */
void arb_store_first_output_close(struct arb_store_first_output *q);

#endif
