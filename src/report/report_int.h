/*
 * report_int.h - what the files of src/report/ share beyond report.h: the
 * per-case expectation counts behind "case_pass_rates" (case_rates.c).
 */
#ifndef ARBITER_REPORT_INT_H
#define ARBITER_REPORT_INT_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "arbiter/buf.h"
#include "arbiter/report.h"
#include "arbiter/status.h"
#include "arbiter/store.h"

/* A listed case: its id (owned), its place in case order and the lowest pass rate of any
 * system, NaN when none decided anything; its counts are kept beside it. */
struct case_rate {
    char *id;
    size_t i;
    double worst;
};

/*
 * Only what the listing can show is kept, so that memory does not grow with
 * the cases when the limit is small: the first limit cases (listed when
 * there are no more) and the limit worst so far (a heap, the one that would
 * be listed last on top).  Counts are per system: passed, failed, unresolved.
 */
struct case_rates {
    size_t n_sys;
    char **names; /* the systems, in the report's order */
    size_t limit;
    size_t n;                /* cases with expectations so far, the current one included */
    struct case_rate cur;    /* the current case */
    uint32_t *cur_counts;    /* n_sys * 3 */
    struct case_rate *first; /* the first min(n - 1, limit) cases, in case order */
    uint32_t *first_counts;
    size_t n_first, cap_first;
    struct case_rate *pool; /* at most limit of the failed cases, and their counts */
    uint32_t *pool_counts;
    size_t *heap; /* indexes into pool, a max-heap by (worst, i) */
    size_t n_heap;
    FILE *spill; /* borrowed: every case's entry goes here instead (arb_report_parts) */
};

/* The placeholder of the spilled entries in the report's "items" (json_out.c). */
#define CASE_SPILL_MARK '\x01'

enum arb_status case_rates_init(struct case_rates *cr, const char *const *names, size_t n_sys,
                                size_t limit);
void case_rates_release(struct case_rates *cr);

/* Add one side's counts on case_id (the same id as the last call extends that case). */
enum arb_status case_rates_add(struct case_rates *cr, const char *case_id, const char *system,
                               uint32_t passed, uint32_t failed, uint32_t unresolved);

/*
 * Add "case_pass_rates" to report: every case in case order when the limit
 * covers them all, else the cases some system failed, worst first, at most
 * limit of them.
 */
enum arb_status case_rates_emit(struct case_rates *cr, cJSON *report);

/*
 * The win matrix (matrix.c) and the statistics (statistics.c) accumulate
 * during the report's one pass over the verdicts (report.c): created with
 * the run's systems in suite order (names kept, not copied), fed every
 * verdict row (the statistics with its parsed comparison.json), then added
 * to the report.  Rows naming other systems are not counted.
 */
struct matrix_acc;
struct matrix_acc *matrix_acc_new(const char *const *names, size_t n);
void matrix_acc_verdict(struct matrix_acc *m, const struct arb_verdict_row *v);
/* Add "win_matrix" (report.h's arb_report_parts). */
enum arb_status matrix_acc_emit(const struct matrix_acc *m, cJSON *report);
void matrix_acc_free(struct matrix_acc *m);

struct stats_acc;
struct cmp_view;
/* store and run: the outputs' durations are read there, one pass per system, NULL for none. */
struct stats_acc *stats_acc_new(const char *const *names, size_t n, struct arb_store *store,
                                int64_t run, struct arb_err *err);
/* ARB_OK or ARB_ENOMEM. */
enum arb_status stats_acc_verdict(struct stats_acc *s, const struct arb_verdict_row *v,
                                  const struct cmp_view *cmp);
/* Add the intervals, "pairs", "mcnemar", "bradley_terry" and "statistics" to report. */
enum arb_status stats_acc_emit(struct stats_acc *s, const struct arb_report_opts *o, cJSON *report,
                               struct arb_err *err);
void stats_acc_free(struct stats_acc *s);

/*
 * What a report counts of a stored comparison.json (view.c), per side (0 A,
 * 1 B): the rubric's criterion values by dimension (0 content, 1 structure),
 * its three scores, and the expectation results.  Read without a JSON tree;
 * everything points into the view, valid until the next cmp_view_read.
 */
struct cmp_crit {
    const char *name;
    double value;
    int is_number; /* the value is a number (else the criterion has no score) */
    size_t name_off;
};

struct cmp_exp {
    const char *id;   /* NULL when not a string */
    const char *text; /* NULL when not a string */
    int passed;       /* 1 true, 0 false, -1 anything else */
    size_t id_off, text_off;
};

struct cmp_side {
    const struct cmp_crit *crit[2];
    size_t n_crit[2], crit_at[2];
    double score[3]; /* content_score, structure_score, overall_score; NaN if absent */
    int score_is_number[3];
    const struct cmp_exp *exp; /* expectation_results.<side>.details, in order */
    size_t n_exp, exp_at;
};

struct cmp_view {
    struct cmp_side side[2];
    struct arb_buf text; /* the decoded strings */
    struct cmp_crit *crit;
    size_t n_crit, cap_crit;
    struct cmp_exp *exp;
    size_t n_exp, cap_exp;
};

void cmp_view_init(struct cmp_view *v);
void cmp_view_release(struct cmp_view *v);
/* ARB_OK, ARB_EPARSE (not a JSON object where one is read), ARB_ENOMEM. */
enum arb_status cmp_view_read(struct cmp_view *v, const char *json);

/* win_matrix[key][i][j] of a report's "win_matrix" (matrix.c), NaN when absent or null. */
double report_matrix_at(const cJSON *m, const char *key, int i, int j);

#endif
