/*
 * batch_int.h - what the run's batch files share: the outbox a pass of a batch-mode run
 * fills (batch_outbox.c: the judge's batcher) and the driver that turns it into batches and
 * waits for them (batch_driver.c, batch_submit.c).  Internal to src/run/.
 */
#ifndef ARBITER_RUN_BATCH_INT_H
#define ARBITER_RUN_BATCH_INT_H

#include "arbiter/batch.h"
#include "arbiter/strset.h"

/* A request a pass left to the next batch (owned copies). */
struct outbox_entry {
    char key[65];
    char fence[17];
    char ord[3];
    int sample, attempt;
    char *body, *case_id, *system_a, *system_b;
};

#define RESULT_RING 8

struct batch_outbox {
    struct arb_judge_batcher batcher; /* what the judge is given (ctx: this) */
    struct arb_store *st;
    int64_t run; /* the run, once it exists: a new run's first pass has no batches */
    const struct arb_judge_config *cfg;
    const struct arb_batch_opts *bo;
    struct outbox_entry *v;
    size_t n, cap;
    struct arb_strset keys; /* the keys in v */
    size_t answered, waiting;
    /* The results handed to the judge last, in a ring: a result's handling may route another
     * request (the re-ask of an invalid reply, a switch of response format) while its own
     * reply is still being read, so a result stays valid for RESULT_RING more routes. */
    struct outbox_result {
        char *body, *request, *error;
        char fence[17];
    } ring[RESULT_RING];
    size_t ring_at;
};

void outbox_init(struct batch_outbox *o, struct arb_store *st, const struct arb_judge_config *cfg,
                 const struct arb_batch_opts *bo);
void outbox_clear(struct batch_outbox *o); /* forget the entries (after they are recorded) */
void outbox_release(struct batch_outbox *o);

/* Record the outbox as batches of run (at most cfg->batch_max_requests requests each, state
 * 'intent'), then clear it (batch_submit.c). */
enum arb_status outbox_record(struct batch_outbox *o, int64_t run, struct arb_err *err);

/*
 * Take every batch of run forward (batch_submit.c): submit those recorded and not
 * submitted (finding, for one marked submitting, the batch a kill left unrecorded), poll
 * those running (until every one has ended when wait > 0, else once), store the results of
 * those ended.  wait < 0: poll and store only, submit nothing.  *running: how many have not
 * ended (or are not submitted).
 */
enum arb_status batches_advance(struct arb_store *st, int64_t run, struct arb_batch_client *c,
                                const struct arb_judge_config *cfg, const struct arb_batch_opts *bo,
                                int wait, size_t *running, struct arb_err *err);

/* Call the checkpoint hook, when there is one. */
void batch_checkpoint(const struct arb_batch_opts *bo, const char *point);

/* Tell the user, when there is a notice hook. */
void batch_notice(const struct arb_batch_opts *bo, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
