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

#include <cjson/cJSON.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"
#include "arbiter/store.h"

/* A growable list of doubles (statistics.c, trials.c); zeroed is empty, free(v) releases. */
struct dvec {
    double *v;
    size_t n, cap;
};

/* Append x: 0, or -1 when out of memory (d is unchanged). */
int dvec_push(struct dvec *d, double x);

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
 * For each of the n cases ids[0..n) (any order, distinct), the duration of
 * system's compared output (its lowest trial's first file) into ms[k], and 1
 * into timed[k]; a case without one is left as it is.  One pass over the
 * system's stored outputs.  ARB_OK, a store status (err says which) or
 * ARB_ENOMEM.
 */
enum arb_status report_compared_durations(struct arb_store *st, int64_t run, const char *system,
                                          char *const *ids, size_t n, double *ms, double *timed,
                                          struct arb_err *err);

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
