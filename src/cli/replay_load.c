/*
 * replay_load.c - what `replay` and `replay --rejudge` start from: a stored
 * run read back (its suite, which must be unchanged, its systems and judge).
 * The run engine then reads the run's stored cases and outputs through a
 * stored-run source (run.h arb_run_source_stored): nothing is staged on
 * disk.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "arbiter/store.h"
#include "arbiter/suite.h"
#include "cli.h"
#include "replay_load.h"

int replay_read_run(void *ctx, const struct arb_run_row *r)
{
    struct stored_run *s = ctx;

    s->suite_path = strdup(r->suite_path ? r->suite_path : "");
    s->sha256 = strdup(r->suite_sha256 ? r->suite_sha256 : "");
    s->systems_json = strdup(r->systems_json ? r->systems_json : "[]");
    s->judge_json = r->judge_json ? strdup(r->judge_json) : NULL;
    s->seed = r->seed;
    s->found = 1;
    return 1;
}

/* The suite's systems become the run's, by name and in its order (--system overrides too). */
static int set_systems(struct arb_suite *suite, const char *systems_json, struct arb_err *err)
{
    cJSON *systems = cJSON_Parse(systems_json);
    const cJSON *s;
    int code = systems ? EXIT_PASS : EXIT_ENV;

    if (!systems)
        cli_error("replay", "the run's systems_json is not JSON");
    cJSON_ArrayForEach(s, systems)
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(s, "name");
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(s, "path");
        char spec[8400];

        if (code || !cJSON_IsString(n))
            continue;
        /* The path is a label here: the outputs come from the database. */
        snprintf(spec, sizeof(spec), "%s=%s", n->valuestring,
                 cJSON_IsString(p) && p->valuestring[0] ? p->valuestring : "(stored)");
        if (arb_suite_set_system(suite, spec, err)) {
            cli_error("replay", "%s", err->msg);
            code = EXIT_USAGE;
        }
    }
    cJSON_Delete(systems);
    return code;
}

int replay_load(struct arb_store *orig, const char *run_spec, int64_t *run, struct stored_run *sr,
                struct arb_suite **suite, struct arb_err *err)
{
    enum arb_status rs = arb_store_run_resolve(orig, run_spec, run, err);

    if (!rs)
        rs = arb_store_runs(orig, *run, replay_read_run, sr, err);
    if (rs || !sr->found || !sr->suite_path || !sr->sha256 || !sr->systems_json) {
        cli_error("replay", "%s", rs ? err->msg : "cannot read the run");
        return rs ? cli_exit_for(rs) : EXIT_ENV;
    }
    rs = arb_suite_load(sr->suite_path, suite, err);
    if (rs) {
        cli_error("replay", "run %lld's suite: %s", (long long)*run, err->msg);
        return cli_exit_for(rs);
    }
    if (strcmp((*suite)->sha256, sr->sha256) != 0) {
        cli_error("replay",
                  "the suite '%s' changed since run %lld (its SHA-256 differs): the "
                  "run cannot be re-derived from it",
                  sr->suite_path, (long long)*run);
        return EXIT_USAGE;
    }
    (*suite)->seed = sr->seed;
    return set_systems(*suite, sr->systems_json, err);
}

void replay_stored_run_release(struct stored_run *sr)
{
    free(sr->suite_path);
    free(sr->sha256);
    free(sr->systems_json);
    free(sr->judge_json);
}
