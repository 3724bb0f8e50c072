/*
 * judge_opts.h - judge options of `run` and `compare` (judge_opts.c).
 */
#ifndef ARBITER_CLI_JUDGE_OPTS_H
#define ARBITER_CLI_JUDGE_OPTS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "arbiter/judge.h"

struct cli_judge {
    const char *file, *url, *model;
    size_t concurrency;
    int no_judge, no_cache;
    int have;                   /* cfg is set */
    struct arb_judge_config cfg;
    char *key;                  /* the API key, wiped on release */
};

/* Consume argv[*a] (and its value) when it is a judge option: 1; not one: 0; bad: -1. */
int cli_judge_option(struct cli_judge *j, const char *cmd, int argc, char **argv, int *a);

/*
 * Settle the judge: --judge FILE, else stored_json (a resumed run), else the
 * suite's object; overrides; the key from the environment.  Returns an exit
 * code (0: fine, also when there is no judge; j->have says whether there is).
 */
int cli_judge_setup(struct cli_judge *j, const char *cmd, const cJSON *suite_judge,
                    const char *stored_json);

void cli_judge_release(struct cli_judge *j);

#endif
