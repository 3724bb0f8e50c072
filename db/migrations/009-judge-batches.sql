-- Migration 9: the judge's provider batches (issue 21; include/arbiter/batch.h,
-- src/store/store_batch.c).  A run whose judge has "mode": "batch" sends the requests the
-- cache cannot answer through OpenAI's Batch API or Anthropic's Message Batches; these tables
-- say exactly what was submitted, so a run killed at any moment resumes without losing a
-- request or submitting one twice.
--
-- judge_batches: one row per batch, written (state 'intent', with its requests) before
-- anything is sent.  token is 16 random hex digits naming the submission: OpenAI's batch
-- carries it in metadata {"arbiter_token": token}, and every custom_id starts with it.
-- state is Arbiter's:
--   intent      recorded, nothing sent (OpenAI: the input file not uploaded yet)
--   uploaded    OpenAI: input_file_id holds the uploaded file; the batch not created
--   submitting  the create request may have been sent: a resume looks for the batch at the
--               provider (OpenAI: by token in metadata; Anthropic: created at or after
--               created_at with n_requests requests, not already a row's) before sending again
--   submitted   remote_id known; polled until the provider says it ended
--   ended       the provider ended it (remote_status: completed, expired, failed, cancelled,
--               ended); its results not yet stored
--   downloaded  every request's result stored in judge_batch_requests (one transaction)
--   ingested    a pass of the run has handled the results (judge_calls, judgments, verdicts)
-- remote_status is the provider's word (validating, in_progress, finalizing, completed, ...;
-- Anthropic's processing_status); counts_json the provider's request_counts as it sent them.
-- Times are UTC, ISO 8601.  error: why the batch failed as a whole (OpenAI errors.data).
CREATE TABLE IF NOT EXISTS judge_batches (
    id             INTEGER PRIMARY KEY,
    run            INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    provider       TEXT NOT NULL CHECK (provider IN ('openai', 'anthropic')),
    token          TEXT NOT NULL UNIQUE,
    state          TEXT NOT NULL CHECK (state IN ('intent', 'uploaded', 'submitting', 'submitted',
                                                  'ended', 'downloaded', 'ingested')),
    remote_id      TEXT,
    remote_status  TEXT,
    input_file_id  TEXT,
    output_file_id TEXT,
    error_file_id  TEXT,
    results_url    TEXT,
    n_requests     INTEGER NOT NULL,
    counts_json    TEXT,
    error          TEXT,
    created_at     TEXT NOT NULL,
    submitted_at   TEXT,
    ended_at       TEXT,
    updated_at     TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS judge_batches_run ON judge_batches (run, id);
CREATE UNIQUE INDEX IF NOT EXISTS judge_batches_remote ON judge_batches (provider, remote_id)
    WHERE remote_id IS NOT NULL;

-- judge_batch_requests: the requests of a batch, written with it.  custom_id is
-- "<token>-<n>"; key is the judge_calls key the reply will be stored under; the slot
-- (case_id, system_a, system_b, ord, sample, attempt) the judgment it makes; fence the code
-- its prompt carries; request_json the body as sent (the synchronous API's body; never a key).
-- state: 'pending' until the batch's results are stored, then 'succeeded' (result_json the
-- provider's reply body), 'errored' (http_status and result_json the provider's error when it
-- gave one, error a summary), 'expired', 'canceled', or 'missing' (the ended batch had no
-- result for it).  The results are scrubbed of the key before they are stored.
CREATE TABLE IF NOT EXISTS judge_batch_requests (
    batch        INTEGER NOT NULL REFERENCES judge_batches(id) ON DELETE CASCADE,
    custom_id    TEXT NOT NULL,
    key          TEXT NOT NULL,
    case_id      TEXT NOT NULL,
    system_a     TEXT NOT NULL,
    system_b     TEXT NOT NULL,
    ord          TEXT NOT NULL,
    sample       INTEGER NOT NULL,
    attempt      INTEGER NOT NULL,
    fence        TEXT,
    request_json TEXT NOT NULL,
    state        TEXT NOT NULL DEFAULT 'pending'
                 CHECK (state IN ('pending', 'succeeded', 'errored', 'expired', 'canceled',
                                  'missing')),
    http_status  INTEGER,
    result_json  TEXT,
    error        TEXT,
    PRIMARY KEY (batch, custom_id)
);
CREATE INDEX IF NOT EXISTS judge_batch_requests_key ON judge_batch_requests (key, batch);
