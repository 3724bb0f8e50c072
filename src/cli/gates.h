/*
 * gates.h - CI gates of `arbiter report` (gates.c).
 */
#ifndef ARBITER_CLI_GATES_H
#define ARBITER_CLI_GATES_H

#include <stddef.h>

#include <cjson/cJSON.h>

#define CLI_MAX_GATES 16

struct cli_gates {
    const char *metric[CLI_MAX_GATES]; /* "win_rate" or "pass_rate" */
    double threshold[CLI_MAX_GATES];
    size_t n;
    int require_significant;
    const char *candidate; /* NULL: the second system */
};

/* Add a --fail-under METRIC=VALUE gate; -1 (message printed) when malformed. */
int cli_gate_parse(struct cli_gates *g, const char *spec);

/* Judge the gates on a report, record them in it; returns how many were missed (-1: error). */
int cli_gates_apply(const struct cli_gates *g, cJSON *report);

#endif
