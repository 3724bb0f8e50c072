-- Migration 5: the cases a run was limited to and the inputs it read; prompt tokens served
-- from a cache; whether a stored judge reply is valid; the fence a judgment's request used.
--
-- runs.scope_json: {"limit": N, "cases": ["id", ...]} when the run was started with
-- `arbiter run --limit N` or `--cases ...` (either member may be absent), NULL for a run of
-- every case.  --resume applies the same selection.
--
-- runs.inputs_json: the identity (size and SHA-256) of every input file the run read (cases
-- file, each expected_file its checks read, each system's outputs), so that --resume can
-- refuse inputs that changed (and `-o` refuses to write over them); NULL for
-- runs made before this migration (their inputs cannot be checked).
--
-- judge_calls.cached_tokens: of prompt_tokens, how many the provider served from its prompt
-- cache (OpenAI usage.prompt_tokens_details.cached_tokens, Anthropic
-- usage.cache_read_input_tokens), billed at the judge's cached-input price; NULL when the
-- reply did not say (and for calls stored before this migration).
--
-- judge_calls.charged_usd: what the call counted against the run's spending cap, in US
-- dollars at the judge's price: the cost of the usage its reply reported, or the call's
-- estimate when the reply reported none (a failed call: 0).  A resumed run (--resume) and the
-- report's judge_cost add these up, so a provider that reports no usage costs each call its
-- estimate once, not nothing.  NULL when the judge had no price, and for calls stored before
-- this migration (their cost is computed from their tokens).
--
-- judge_calls.valid: 1 when the stored reply passed validation against the request's schema,
-- 0 when it did not: kept for audit, never used to answer again (a new run, or `run --resume
-- RUN --retry-failed`, sends the request afresh; a plain --resume and a replay read it, to
-- take the same retry or failure its run took).  NULL for a failed call (no reply) and for
-- calls stored before this migration, whose validity is unknown: such a reply is validated
-- again when it is read, and asked afresh when it fails.
--
-- Rows stored by an older Arbiter keep their keys: those were computed without the judge's
-- endpoint (base_url, or a command's argv and directory), which this version hashes into
-- every key, and cannot be recomputed here (SQL has no SHA-256 of the canonical request).
-- They still answer the runs that recorded them: `arbiter replay` and `run --resume` answer
-- each question slot from the reply its run's judgment of that slot used (the judgment's
-- key, read as stored), and compute keys only for the slots the run never judged.  No other
-- run finds them (they cannot prove which judge answered them).
--
-- judge_calls_rejected: a stored reply that was not known to be valid, moved here (with the
-- time, rejected_at) when a later request with its key got a reply of its own; read by a
-- replay or a resume of the run whose judgment used it (judgments.reply_sha256 names it).
--
-- judgments.fence: the fence code the judgment's request wrapped the outputs in (16 hex
-- digits drawn at random for each request), for audit; NULL before, for a request that
-- could not be fenced, and for a judgment answered from the cache (nothing was sent: the
-- code of the request that was is in its judge_calls.request_json).  The cache key leaves
-- the code out (it is a delimiter, not part of the question), so a second run, a --resume
-- and a replay find the reply whatever code they draw.
--
-- judgments.reply_sha256: the SHA-256 (hex) of the reply the judgment was made from, as
-- stored in judge_calls.reply_json; NULL when it had none (the call failed, the outputs
-- could not be fenced) and for judgments stored before this migration.  A replay or resume
-- answers the slot from the row with the judgment's key whose reply has this hash: in
-- judge_calls, or, when a later request replaced an invalid reply there, in
-- judge_calls_rejected.
ALTER TABLE runs ADD COLUMN scope_json TEXT;
ALTER TABLE runs ADD COLUMN inputs_json TEXT;
ALTER TABLE judge_calls ADD COLUMN cached_tokens INTEGER;
ALTER TABLE judge_calls ADD COLUMN valid INTEGER;
ALTER TABLE judge_calls ADD COLUMN charged_usd REAL;
ALTER TABLE judgments ADD COLUMN fence TEXT;
ALTER TABLE judgments ADD COLUMN reply_sha256 TEXT;
CREATE TABLE IF NOT EXISTS judge_calls_rejected (
    id                INTEGER PRIMARY KEY,
    key               TEXT NOT NULL,
    provider          TEXT NOT NULL,
    model             TEXT NOT NULL,
    request_json      TEXT NOT NULL,
    reply_json        TEXT,
    http_status       INTEGER,
    attempts          INTEGER NOT NULL,
    latency_s         REAL,
    prompt_tokens     INTEGER,
    completion_tokens INTEGER,
    cached_tokens     INTEGER,
    valid             INTEGER,
    charged_usd       REAL,
    error             TEXT,
    created_at        TEXT NOT NULL,
    rejected_at       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS judge_calls_rejected_key ON judge_calls_rejected (key);
