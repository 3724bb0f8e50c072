/*
 * batch_driver.c - a run whose judge is in batch mode (include/arbiter/batch.h:
 * arb_run_batched).  Passes of the ordinary run engine (arb_run_execute) alternate with
 * the batches between them:
 *
 *   [resume: finish the batches recorded before: submit, poll, store results]
 *   pass: every uncached request goes to the outbox (batch_outbox.c); what earlier batches
 *         answered is handled as replies, and those pairs are decided; the rest stay
 *         pending_judge
 *   the outbox becomes batches (recorded, then submitted), which are polled until they end
 *   and their results stored; then the next pass, until a pass leaves nothing to a batch.
 *
 * Without wait, it returns as soon as the batches are submitted (*pending 1); `run --resume`
 * or `batch wait` continues.  A pass never sends a request to the provider's synchronous API
 * unless batch_retry "sync" asks for it (a request a batch did not answer).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "batch_int.h"

/* Every batch of the run ended and its results stored, or (!wait) no more to do now. */
static enum arb_status settle(struct arb_store *st, int64_t run, struct arb_batch_client *c,
                              const struct arb_judge_config *cfg, const struct arb_batch_opts *bo,
                              size_t *running, struct arb_err *err)
{
    return batches_advance(st, run, c, cfg, bo, bo->wait, running, err);
}

enum arb_status arb_run_batched(struct arb_store *st, struct arb_suite *suite,
                                const struct arb_run_opts *opts, const struct arb_batch_opts *bo,
                                struct arb_run_summary *sum, int *pending, struct arb_err *err)
{
    struct arb_run_opts ro = *opts;
    struct batch_outbox o;
    struct arb_batch_client *c = NULL;
    int64_t run = opts->resume_run;
    size_t running = 0, passes = 0;
    enum arb_status rs;

    *pending = 0;
    memset(sum, 0, sizeof(*sum));
    sum->judge_cost = NAN;
    if (!opts->judge || !opts->judge->batch)
        return arb_run_execute(st, suite, opts, sum, err);
    if (opts->max_cost > 0)
        return arb_err_set(err, ARB_EUSAGE,
                           "--max-cost does not apply to judge batches (a batch's cost is known "
                           "only once it has ended): run without it, or with the judge in sync "
                           "mode");
    rs = arb_batch_client_new(opts->judge, opts->api_key, &c, err);
    if (rs)
        return rs;
    outbox_init(&o, st, opts->judge, bo);
    if (run)
        rs = settle(st, run, c, opts->judge, bo, &running, err);
    while (!rs && !running) {
        arb_run_summary_release(sum);
        ro.resume_run = run;
        ro.batcher = &o.batcher;
        o.run = run;
        rs = arb_run_execute(st, suite, &ro, sum, err);
        run = sum->run_id;
        passes++;
        if (!rs)
            rs = arb_store_batches_ingested(st, run, err);
        if (rs || (!o.n && !o.waiting))
            break;
        if (o.n)
            rs = outbox_record(&o, run, err);
        o.waiting = 0;
        if (!rs)
            rs = settle(st, run, c, opts->judge, bo, &running, err);
    }
    if (!rs && running) {
        *pending = 1;
        if (!sum->run_id) {
            /* A resume that found its batches still running: the counts as they stand. */
            rs = arb_run_summarize(st, run, sum, err);
        }
    }
    if (rs && !sum->run_id)
        sum->run_id = run;
    (void)passes;
    outbox_release(&o);
    arb_batch_client_free(c);
    return rs;
}

enum arb_status arb_run_batches_poll(struct arb_store *st, int64_t run,
                                     const struct arb_judge_config *cfg, const char *api_key,
                                     const struct arb_batch_opts *bo, size_t *running,
                                     struct arb_err *err)
{
    struct arb_batch_client *c = NULL;
    enum arb_status rs;

    *running = 0;
    if (!cfg->batch)
        return ARB_OK;
    rs = arb_store_lock_run(st, run, err);
    if (!rs)
        rs = arb_batch_client_new(cfg, api_key, &c, err);
    if (!rs)
        rs = batches_advance(st, run, c, cfg, bo, -1, running, err);
    arb_batch_client_free(c);
    return rs;
}
