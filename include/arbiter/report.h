/*
 * report.h - a run's report, computed from the database only (never from the
 * inputs), as JSON or markdown.
 *
 * Per system: wins, losses, ties and win rate (ties count half; also with
 * ties dropped), expectation pass rates overall and per expectation, mean
 * rubric scores per criterion and dimension; per run: decided,
 * pending_judge and missing_output cases, and the problems found while
 * loading.  Each (case, system) counts once, however many pairs it is in.
 */
#ifndef ARBITER_REPORT_H
#define ARBITER_REPORT_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"
#include "arbiter/store.h"

/* Build the report of run as a JSON object into *out (the caller frees it). */
enum arb_status arb_report_build(struct arb_store *st, int64_t run, cJSON **out,
                                 struct arb_err *err);

/* Render a report object (from arb_report_build) as markdown into out. */
enum arb_status arb_report_markdown(const cJSON *report, struct arb_buf *out);

#endif
