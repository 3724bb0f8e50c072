-- Migration 5: the cases a run was limited to and the inputs it read; prompt tokens served
-- from a cache; whether a stored judge reply is valid; the fence a judgment's request used.
--
-- runs.scope_json: {"limit": N, "cases": ["id", ...]} when the run was started with
-- `arbiter run --limit N` or `--cases ...` (either member may be absent), NULL for a run of
-- every case.  --resume applies the same selection.
--
-- runs.inputs_json: the identity (size and SHA-256) of every input file the run read (cases
-- file, each system's outputs), so that --resume can refuse inputs that changed; NULL for
-- runs made before this migration (their inputs cannot be checked).
--
-- judge_calls.cached_tokens: of prompt_tokens, how many the provider served from its prompt
-- cache (OpenAI usage.prompt_tokens_details.cached_tokens, Anthropic
-- usage.cache_read_input_tokens), billed at the judge's cached-input price; NULL when the
-- reply did not say (and for calls stored before this migration).
--
-- judge_calls.valid: 1 when the stored reply passed validation against the request's schema,
-- 0 when it did not (kept for audit, never used to answer again), NULL when unknown (calls
-- stored before this migration).
--
-- judgments.fence: the fence code the judgment's request wrapped the outputs in (drawn at
-- random per request), so that a replay renders the very same request; NULL before.
ALTER TABLE runs ADD COLUMN scope_json TEXT;
ALTER TABLE runs ADD COLUMN inputs_json TEXT;
ALTER TABLE judge_calls ADD COLUMN cached_tokens INTEGER;
ALTER TABLE judge_calls ADD COLUMN valid INTEGER;
ALTER TABLE judgments ADD COLUMN fence TEXT;
