/*
 * report_int.h - what the files of src/report/ share beyond report.h: the
 * per-case expectation counts behind "case_pass_rates" (case_rates.c).
 */
#ifndef ARBITER_REPORT_INT_H
#define ARBITER_REPORT_INT_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "arbiter/status.h"

struct case_rates {
    size_t n_sys;
    char **names; /* the systems, in the report's order */
    char **ids;   /* the cases with expectations, in case order */
    size_t n, cap;
    uint32_t *counts; /* per case, per system: passed, failed, unresolved */
};

enum arb_status case_rates_init(struct case_rates *cr, const char *const *names, size_t n_sys);
void case_rates_release(struct case_rates *cr);

/* Add one side's counts on case_id (the same id as the last call extends that case). */
enum arb_status case_rates_add(struct case_rates *cr, const char *case_id, const char *system,
                               uint32_t passed, uint32_t failed, uint32_t unresolved);

/*
 * Add "case_pass_rates" to report: every case in case order when limit
 * covers them all, else the cases some system failed, worst first, at most
 * limit of them.
 */
enum arb_status case_rates_emit(const struct case_rates *cr, size_t limit, cJSON *report);

/*
 * Parse only the members a report reads of a stored comparison.json: a new
 * object holding "rubric" and "expectation_results" (those present), the
 * other members (reasoning, output_quality...) skipped without building them.
 * Falls back to a full parse when the text is not the flat object expected.
 * The skipped members are only delimited, not validated: the text is what
 * cJSON wrote into the database, and bad JSON inside a skipped member may
 * pass.  NULL when out of memory or when what is read is not JSON.  The
 * caller frees it (cJSON_Delete).
 */
cJSON *report_parse_comparison(const char *json);

/* win_matrix[key][i][j] of a report's "win_matrix" (matrix.c), NaN when absent or null. */
double report_matrix_at(const cJSON *m, const char *key, int i, int j);

#endif
