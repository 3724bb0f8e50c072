/*
 * run_batch.c - the batch side of `arbiter run` and `arbiter batch wait`: --judge-batch
 * turns the judge's "mode" to "batch" (stored with the run, so --resume keeps it), --no-wait
 * returns once the batches are submitted, and ARBITER_TEST_KILL_AT lets the kill tests stop
 * the process, with SIGKILL, exactly where a kill hurts most (tests/cli/judge_batch.sh).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "progress.h"
#include "run_batch.h"

static void checkpoint(void *ctx, const char *point)
{
    struct cli_batch *b = ctx;

    if (!b->kill_point[0] || strcmp(b->kill_point, point) != 0)
        return;
    if (++b->seen >= b->kill_at) {
        fflush(NULL);
        raise(SIGKILL);
    }
}

int cli_batch_setup(struct cli_batch *b, struct cli_judge *judge, void *progress)
{
    const char *kill_at = getenv("ARBITER_TEST_KILL_AT");
    struct arb_err err = {{0}};

    if ((b->on || b->no_wait) && !judge->have) {
        cli_error("run", "%s sends the judge's requests in batches, and this run has no judge",
                  b->on ? "--judge-batch" : "--no-wait");
        return EXIT_USAGE;
    }
    if (b->on && judge->cfg.provider == ARB_JUDGE_COMMAND) {
        cli_error("run", "--judge-batch needs a provider with a batch API (\"openai\" or "
                         "\"anthropic\"), not a command judge");
        return EXIT_USAGE;
    }
    if (b->on && !judge->cfg.batch) {
        judge->cfg.batch = 1;
        if (arb_judge_config_rehash(&judge->cfg, &err)) {
            cli_error("run", "%s", err.msg);
            return EXIT_ENV;
        }
    }
    if (b->no_wait && !judge->cfg.batch) {
        cli_error("run", "--no-wait goes with a judge in batch mode (--judge-batch, or \"mode\": "
                         "\"batch\" in its config)");
        return EXIT_USAGE;
    }
    if (kill_at && kill_at[0]) {
        const char *colon = strchr(kill_at, ':');
        size_t n = colon ? (size_t)(colon - kill_at) : strlen(kill_at);

        snprintf(b->kill_point, sizeof(b->kill_point), "%.*s", (int)n, kill_at);
        b->kill_at = colon ? strtol(colon + 1, NULL, 10) : 1;
        b->bo.checkpoint = checkpoint;
        b->bo.checkpoint_ctx = b;
    }
    b->bo.wait = !b->no_wait;
    b->bo.notice = cli_progress_notice;
    b->bo.notice_ctx = progress;
    return EXIT_PASS;
}
