/*
 * stats_int.h - what the statistical parts of a report share beyond
 * report_int.h: the durations read from the outputs' capture fields
 * (duration.c) and the one-line significance reasoning of a pair
 * (reasoning.c), used by statistics.c and trials.c, and their markdown
 * sections (md_stats.c).
 */
#ifndef ARBITER_STATS_INT_H
#define ARBITER_STATS_INT_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "arbiter/buf.h"
#include "arbiter/stats.h"
#include "arbiter/status.h"
#include "arbiter/store.h"
#include "arbiter/store_report.h"

/* A growable list of doubles (statistics.c, trials.c); zeroed is empty, free(v) releases. */
struct dvec {
    double *v;
    size_t n, cap;
};

/* Append x: 0, or -1 when out of memory (d is unchanged). */
int dvec_push(struct dvec *d, double x);

/*
 * One value per case, compactly (column.c): 1- or 2-byte codes into a
 * dictionary of the distinct values while there are at most 65,536 of
 * them, else the doubles.  Exact: col_at gives back the double pushed, bit
 * for bit.  Zeroed is empty; col_release frees.
 */
struct col {
    unsigned char *data; /* n values of width bytes */
    size_t n, cap;       /* values held, and room */
    unsigned width;      /* 0 (nothing yet), 1, 2 or 8 */
    double *dict;        /* the distinct values, codes index it */
    size_t n_dict;
    uint32_t *slot; /* hash of dict: 0 empty, else code + 1 */
    size_t n_slots;
};

/* Room for n values (0, or -1 when out of memory): a column whose length is known grows once. */
int col_reserve(struct col *c, size_t n);

/* Append x: 0, or -1 when out of memory. */
int col_push(struct col *c, double x);

/* Value i (< n), the sum of every value in order, and the view the bootstrap reads (borrowed). */
double col_at(const struct col *c, size_t i);
double col_sum(const struct col *c);
struct arb_column col_view(const struct col *c);

void col_release(struct col *c);

/*
 * An output's duration in milliseconds from its stored meta_json, as the
 * weighted strategy reads it (strategy_duration_ms: "duration", else
 * "timing", a number or an object's "total" or "duration"); NaN when absent,
 * negative or not a number, or meta_json NULL or not JSON.
 */
double report_output_ms(const char *meta_json);

/*
 * An output's own grader score from its meta_json (agent-eval's GraderResult:
 * "score": {"score": 0..1}, as weighted.c reads it); NaN when absent or outside 0-1.
 */
double report_output_score(const char *meta_json);

/*
 * The duration (ms) of system's compared output of case_id (its lowest
 * trial's first file), read with q; NaN when it has none or the case has no
 * output of system.  On a store failure *st is set (err says which).
 */
double report_compared_ms(struct arb_store_first_output *q, const char *case_id, const char *system,
                          enum arb_status *st, struct arb_err *err);

/* The figures of one pair of systems behind its reasoning (borrowed names). */
struct pair_figures {
    const char *name[2];
    double lo[2], hi[2];   /* each system's 95% overall-score interval; NaN: none */
    double sign_p, boot_p; /* boot_p NaN: no case had both scores */
    double mean_diff;      /* mean overall score of a minus b, over the paired cases */
    double a_wins, b_wins;
    int significant; /* the pair's "significant" */
};

/*
 * One line into buf (cut to len): the intervals' evidence (the seed's rule)
 * and the conclusion of the paired tests, consistent with "significant".
 */
void stats_pair_reasoning(char *buf, size_t len, const struct pair_figures *f);

/* The markdown sections "Statistics" and "Trials" (md_stats.c), when the report has them. */
enum arb_status md_statistics(const cJSON *report, struct arb_buf *out);
enum arb_status md_trials(const cJSON *report, struct arb_buf *out);

#endif
