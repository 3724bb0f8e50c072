/*
 * run_int.h - what the files of src/run/ share: one system's evaluated
 * output on a case, and the pairwise decision.
 */
#ifndef ARBITER_RUN_INT_H
#define ARBITER_RUN_INT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "arbiter/compare.h"
#include "arbiter/suite.h"

/* The items of one case: the suite's expectations, then the case's own. */
struct items {
    const struct arb_suite *suite;
    const struct arb_case *kase;
    size_t n_exp;
};

const struct arb_expectation *item_expectation(const struct items *it, size_t i);

/* One system's output on a case, as the checks judged it. */
struct side {
    const char *system;
    int missing;           /* no output for this case */
    double *crit;          /* per criterion: 1-5, or NAN when unresolved */
    enum arb_verdict *exp; /* per expectation */
};

/* The policy's decision on one pair (a is the system shown as A). */
struct decision {
    const char *status; /* "decided", "pending_judge", "missing_output" */
    char winner;        /* 'A', 'B', 'T' (tie) or 0 when not decided */
    double score_a, score_b;         /* overall scores, NAN when unknown */
    double pass_rate_a, pass_rate_b; /* expectation pass rates, NAN when none */
};

/*
 * Decide a pair by the verdict policy and build the seed's comparison.json
 * (without system names) into *comparison.  ARB_ENOMEM.
 */
enum arb_status decide_pair(const struct items *it, const struct side *a, const struct side *b,
                            struct decision *d, cJSON **comparison);

#endif
