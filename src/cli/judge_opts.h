/*
 * judge_opts.h - the judge options of `run`, `compare`, `calibrate` and `replay --rejudge`
 * (judge_opts.c).
 */
#ifndef ARBITER_CLI_JUDGE_OPTS_H
#define ARBITER_CLI_JUDGE_OPTS_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "arbiter/judge.h"
#include "parse_options.h"

struct cli_judge {
    const char *file, *url, *model;
    size_t concurrency;
    int no_judge, no_cache;
    int have;                   /* cfg is set */
    struct arb_judge_config cfg;
    char *key;                  /* the API key, wiped on release */
};

/*
 * The judge options as rows of a command's option table (parse_options.h): the overrides
 * (--judge-url, --judge-model, --concurrency, --no-cache), which replay --rejudge takes too, and
 * with them --judge FILE and --no-judge for run, compare and calibrate.
 */
#define CLI_JUDGE_OVERRIDE_OPTIONS(j)                                                              \
    CLI_OPT_STRING("--judge-url", &(j)->url), CLI_OPT_STRING("--judge-model", &(j)->model),        \
        CLI_OPT_WHOLE("--concurrency", &(j)->concurrency, 1, 1024),                                \
        CLI_OPT_BOOL("--no-cache", &(j)->no_cache)
#define CLI_JUDGE_OPTIONS(j)                                                                       \
    CLI_OPT_STRING("--judge", &(j)->file), CLI_OPT_BOOL("--no-judge", &(j)->no_judge),             \
        CLI_JUDGE_OVERRIDE_OPTIONS(j)

/*
 * Settle the judge: --judge FILE, else stored_json (a resumed run), else the
 * suite's object; overrides; the key from the environment.  Returns an exit
 * code (0: fine, also when there is no judge; j->have says whether there is).
 */
int cli_judge_setup(struct cli_judge *j, const char *cmd, const cJSON *suite_judge,
                    const char *stored_json);

void cli_judge_release(struct cli_judge *j);

#endif
