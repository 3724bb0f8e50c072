-- Migration 5: the cases a run was limited to, and prompt tokens served from a cache.
--
-- runs.scope_json: {"limit": N, "cases": ["id", ...]} when the run was started with
-- `arbiter run --limit N` or `--cases ...` (either member may be absent), NULL for a run of
-- every case.  --resume applies the same selection.
--
-- judge_calls.cached_tokens: of prompt_tokens, how many the provider served from its prompt
-- cache (OpenAI usage.prompt_tokens_details.cached_tokens, Anthropic
-- usage.cache_read_input_tokens), billed at the judge's cached-input price; NULL when the
-- reply did not say (and for calls stored before this migration).
ALTER TABLE runs ADD COLUMN scope_json TEXT;
ALTER TABLE judge_calls ADD COLUMN cached_tokens INTEGER;
