/*
 * batch.h - the judge's provider batches (issue 21): a run whose judge config says
 * "mode": "batch" sends the requests its cache cannot answer through OpenAI's Batch API
 * (POST /v1/files with purpose "batch", POST /v1/batches, GET /v1/batches/{id}, the output
 * and error files) or Anthropic's Message Batches (POST /v1/messages/batches, polling,
 * results_url), at about half the price, answered within 24 hours.
 *
 * Three layers, each in its own files:
 *   - the record (src/store/store_batch.c; db/migrations/009-judge-batches.sql): the
 *     batches and their requests, written before anything is sent;
 *   - the protocols (src/judge/batch_*.c): one client per provider speaking the published
 *     shapes; every byte a provider sends back is scrubbed of the key before the caller sees it;
 *   - the run (src/run/batch_*.c): a pass of the run routes every uncached request
 *     (arb_judge_set_batcher) into an outbox, which becomes batches; batches are submitted,
 *     polled and their results stored; the next pass handles the results as the synchronous
 *     path handles replies (same parsing, validation, cache and judgments) and decides.
 *
 * Never twice: a batch is recorded with its requests and a random token (state 'intent')
 * before its create request is sent, and marked 'submitting' just before; a resume that
 * finds a batch 'submitting' looks for it at the provider first (OpenAI: metadata
 * {"arbiter_token": token}; Anthropic, which has no metadata: a batch created since the
 * intent with the same number of requests that no other row owns) and submits only when
 * there is none.
 */
#ifndef ARBITER_BATCH_H
#define ARBITER_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/judge.h"
#include "arbiter/run.h"
#include "arbiter/status.h"
#include "arbiter/store.h"

/* ---- the record (store_batch.c) ------------------------------------------------------ */

/* One judge_batches row (db/README.md); texts borrowed (NULL: SQL NULL). */
struct arb_batch_row {
    int64_t id, run;
    const char *provider; /* "openai" or "anthropic" */
    const char *token;    /* 16 hex digits */
    const char *state;    /* intent, uploaded, submitting, submitted, ended, downloaded, ingested */
    const char *remote_id, *remote_status;
    const char *input_file_id, *output_file_id, *error_file_id, *results_url;
    const char *counts_json, *error;
    const char *created_at, *submitted_at, *ended_at, *updated_at;
    int64_t n_requests;
};

/* One judge_batch_requests row; texts borrowed. */
struct arb_batch_request_row {
    const char *custom_id, *key;
    const char *case_id, *system_a, *system_b, *ord;
    int sample, attempt;
    const char *fence, *request_json;
    const char *state; /* pending, succeeded, errored, expired, canceled, missing */
    long http_status;  /* 0: none */
    const char *result_json, *error;
};

/*
 * Record a batch of run (state 'intent', created_at now) with its requests reqs[0..n)
 * (custom_id, key, slot, fence, request_json), in one transaction of its own; *id its row.
 */
enum arb_status arb_store_batch_create(struct arb_store *st, int64_t run, const char *provider,
                                       const char *token, const struct arb_batch_request_row *reqs,
                                       size_t n, int64_t *id, struct arb_err *err);

/* Write b's state, remote_id, remote_status, file ids, results_url, counts_json, error,
 * submitted_at and ended_at (by b->id), updated_at now: its own statement (autocommit). */
enum arb_status arb_store_batch_update(struct arb_store *st, const struct arb_batch_row *b,
                                       struct arb_err *err);

/* fn for each batch of run (0: every run's), oldest first; a non-zero return stops. */
enum arb_status arb_store_batches(struct arb_store *st, int64_t run,
                                  int (*fn)(void *ctx, const struct arb_batch_row *b), void *ctx,
                                  struct arb_err *err);

/* fn for each request of batch, in custom_id order of insertion. */
enum arb_status arb_store_batch_requests(struct arb_store *st, int64_t batch,
                                         int (*fn)(void *ctx,
                                                   const struct arb_batch_request_row *r),
                                         void *ctx, struct arb_err *err);

/* Inside a transaction: store one result (by custom_id: state, http_status, result_json,
 * error); *matched 0 when the batch has no such pending request (a foreign or repeated
 * line, ignored). */
enum arb_status arb_store_batch_put_result(struct arb_store *st, int64_t batch,
                                           const struct arb_batch_request_row *r, int *matched,
                                           struct arb_err *err);

/* Inside a transaction: the batch's requests still pending become 'missing' and the batch
 * 'downloaded'. */
enum arb_status arb_store_batch_downloaded(struct arb_store *st, int64_t batch,
                                           struct arb_err *err);

/*
 * The latest request of run under key (in its newest batch): fn called once with the row
 * and its batch's state, *submits the number of the run's batches it was put in (0 and fn
 * not called: none).
 */
enum arb_status arb_store_batch_lookup(struct arb_store *st, int64_t run, const char *key,
                                       int (*fn)(void *ctx, const struct arb_batch_request_row *r,
                                                 const char *batch_state),
                                       void *ctx, int *submits, struct arb_err *err);

/* *known 1 when some row has remote_id at provider (a batch already adopted). */
enum arb_status arb_store_batch_known(struct arb_store *st, const char *provider,
                                      const char *remote_id, int *known, struct arb_err *err);

/* The run's 'downloaded' batches become 'ingested' (a pass handled their results). */
enum arb_status arb_store_batches_ingested(struct arb_store *st, int64_t run, struct arb_err *err);

/* ---- the protocols (src/judge/batch_client.c, batch_openai.c, batch_anthropic.c) ------- */

/* A provider's batch as it describes it (fixed buffers: ids and words are short). */
struct arb_batch_remote {
    char id[256];
    char status[32]; /* OpenAI status, or Anthropic processing_status */
    int ended;       /* completed, failed, expired or cancelled; Anthropic "ended" */
    char input_file_id[256], output_file_id[256], error_file_id[256];
    char results_url[1024];
    char counts[512];    /* request_counts as the provider sent them (compact JSON), or "" */
    char error[512];     /* why the whole batch failed (OpenAI errors), or "" */
    char created_at[40]; /* UTC, ISO 8601 */
    long long total;     /* requests in it, from request_counts */
};

/* One request's result, scrubbed (borrowed for the callback). */
struct arb_batch_result_line {
    const char *custom_id;
    const char *state; /* succeeded, errored, expired, canceled */
    long http_status;  /* 200 for succeeded; the provider's for errored, when it gave one */
    const char *body;  /* the reply (succeeded) or error body, compact JSON, or NULL */
    const char *error; /* a summary when not succeeded, or NULL */
};

struct arb_batch_client;

/* A client of cfg's provider (openai or anthropic) with api_key (copied; wiped on free). */
enum arb_status arb_batch_client_new(const struct arb_judge_config *cfg, const char *api_key,
                                     struct arb_batch_client **out, struct arb_err *err);
void arb_batch_client_free(struct arb_batch_client *c);

/* A new submission token: 16 random hex digits and a NUL into out; ARB_EINTERNAL when the
 * random source fails. */
enum arb_status arb_batch_token(char out[17]);

/* 1 when the client's last request failed in a way another attempt may mend (no reply, 408,
 * 409, 429, 5xx). */
int arb_batch_client_retryable(const struct arb_batch_client *c);

/* "openai" or "anthropic". */
const char *arb_batch_client_provider(const struct arb_batch_client *c);

/*
 * What is uploaded (OpenAI: the JSONL input file) or posted (Anthropic: {"requests": [...]})
 * for requests ids[i] with bodies[i] (each a synchronous request body): *out, caller frees.
 */
enum arb_status arb_batch_payload(const struct arb_batch_client *c, const char *const *ids,
                                  const char *const *bodies, size_t n, char **out, size_t *len,
                                  struct arb_err *err);

/* OpenAI: upload payload as a file with purpose "batch"; its id into file_id (256 bytes).
 * Anthropic: ARB_EUSAGE. */
enum arb_status arb_batch_upload(struct arb_batch_client *c, const char *token, const char *payload,
                                 size_t len, char *file_id, struct arb_err *err);

/* Create the batch: OpenAI from input_file_id, with metadata {"arbiter_token": token};
 * Anthropic from payload.  *out as the provider answered.  One attempt only: a create that
 * failed may still have made the batch (a timeout), so before sending it again the caller
 * looks for it with arb_batch_find. */
enum arb_status arb_batch_create(struct arb_batch_client *c, const char *token,
                                 const char *input_file_id, const char *payload, size_t len,
                                 struct arb_batch_remote *out, struct arb_err *err);

/* The batch id now. */
enum arb_status arb_batch_get(struct arb_batch_client *c, const char *id,
                              struct arb_batch_remote *out, struct arb_err *err);

/*
 * Find the batch a create request made before a kill: OpenAI, the one whose metadata holds
 * token; Anthropic (no metadata), one created at or after since (ISO 8601 UTC, less two
 * minutes of clock skew) with n requests for which known(ctx, id) is 0, and, when it has
 * ended, whose results name custom ids "<token>-N" (a running one is taken only when it is
 * the only candidate left).  *found 1 with *out; 0 when there is none; ARB_EREMOTE when
 * several running Anthropic batches match (the message names them).
 */
enum arb_status arb_batch_find(struct arb_batch_client *c, const char *token, const char *since,
                               long long n, int (*known)(void *ctx, const char *id), void *ctx,
                               struct arb_batch_remote *out, int *found, struct arb_err *err);

/* Read an ended batch's results (OpenAI: its output and error files; Anthropic: its results),
 * calling fn for each line; a non-zero return stops with ARB_EINTERNAL. */
enum arb_status arb_batch_results(struct arb_batch_client *c, const struct arb_batch_remote *b,
                                  int (*fn)(void *ctx, const struct arb_batch_result_line *r),
                                  void *ctx, struct arb_err *err);

/* ---- the run (src/run/batch_*.c) ------------------------------------------------------ */

struct arb_batch_opts {
    int wait; /* poll until every batch ended and handle the results; 0: return pending */
    /* Called at the points a kill test names (src/run/batch_driver.c): "submit" (the batch
     * recorded submitting, its create request not sent), "posted" (sent, the reply not
     * stored), "poll" (a status stored), "download" (results stored), "ingest" (before each
     * batch result a pass handles).  NULL: none. */
    void (*checkpoint)(void *ctx, const char *point);
    void *checkpoint_ctx;
    /* Told what the user should see (a batch submitted, ended, found again), or NULL. */
    void (*notice)(void *ctx, const char *msg);
    void *notice_ctx;
};

/*
 * arb_run_execute for a run whose judge (opts->judge) is in batch mode: passes of the run
 * alternate with batches until no request is left to a batch (wait) or some batch is still
 * running (!wait: *pending 1).  A resumed run (opts->resume_run) first finishes what its
 * batches left: submits those recorded and not (surely) submitted, polls, stores results.
 * *sum is the last pass's summary.  Statuses as arb_run_execute's; ARB_EREMOTE when a
 * provider refuses the batch requests.
 */
enum arb_status arb_run_batched(struct arb_store *st, struct arb_suite *suite,
                                const struct arb_run_opts *opts, const struct arb_batch_opts *bo,
                                struct arb_run_summary *sum, int *pending, struct arb_err *err);

/*
 * Poll run's submitted batches once with cfg (a batch-mode judge) and api_key, and store the
 * results of those that have ended (`batch status --poll`); nothing is submitted and no pass
 * of the run is made.  *running: the batches not ended (or not yet submitted).
 */
enum arb_status arb_run_batches_poll(struct arb_store *st, int64_t run,
                                     const struct arb_judge_config *cfg, const char *api_key,
                                     const struct arb_batch_opts *bo, size_t *running,
                                     struct arb_err *err);

#endif
