-- Migration 6: what a provider said about each judge call, beyond its reply.
--
-- judge_calls.response_format: how the request asked for JSON: 'json_schema' (strict
-- structured output: OpenAI response_format json_schema with strict true; Anthropic a forced
-- tool), 'json_schema_loose' (the same, strict false), 'json_object' (OpenAI JSON mode, the
-- schema described in the prompt), 'prompt' (no response_format, the schema described in the
-- prompt, the JSON read from the text).  A server that refuses one (HTTP 400 naming the
-- response format or the schema) makes the judge switch to the next for the rest of the run:
-- the refused call keeps the mode it was sent with, the calls after it carry the new one.
-- NULL for a command judge and for calls stored before this migration.
--
-- judge_calls.stop_reason: why the model stopped, as the provider named it (OpenAI
-- choices[0].finish_reason: 'stop', 'length', 'content_filter', 'tool_calls'; Anthropic
-- stop_reason: 'end_turn', 'tool_use', 'max_tokens', 'refusal', ...); NULL when the reply
-- named none.
--
-- judge_calls.normalization: what was taken off the reply's text before it was validated, a
-- JSON array of words in the order applied: 'sse' (the body was an event stream, assembled),
-- 'bom', 'think' (a <think>...</think> block), 'fence' (a ``` code fence), 'prose' (text
-- before or after the JSON object); NULL when nothing was.  The reasoning a model returned
-- in a field of its own (reasoning_content, reasoning, thinking blocks) is never part of the
-- answer and not listed.
--
-- judge_calls.error_type, error_code, error_message: the provider's own error (OpenAI
-- {"error": {"type", "code", "message"}}, Anthropic {"type": "error", "error": {"type",
-- "message"}}, vLLM, Ollama and llama.cpp shapes), read from a failed call's reply and from a
-- 200 reply whose body is an error; for a refusal, error_type is 'refusal' or
-- 'content_filter' and error_message the model's words.  NULL when there was none.
ALTER TABLE judge_calls ADD COLUMN response_format TEXT;
ALTER TABLE judge_calls ADD COLUMN stop_reason TEXT;
ALTER TABLE judge_calls ADD COLUMN normalization TEXT;
ALTER TABLE judge_calls ADD COLUMN error_type TEXT;
ALTER TABLE judge_calls ADD COLUMN error_code TEXT;
ALTER TABLE judge_calls ADD COLUMN error_message TEXT;
ALTER TABLE judge_calls_rejected ADD COLUMN response_format TEXT;
ALTER TABLE judge_calls_rejected ADD COLUMN stop_reason TEXT;
ALTER TABLE judge_calls_rejected ADD COLUMN normalization TEXT;
ALTER TABLE judge_calls_rejected ADD COLUMN error_type TEXT;
ALTER TABLE judge_calls_rejected ADD COLUMN error_code TEXT;
ALTER TABLE judge_calls_rejected ADD COLUMN error_message TEXT;
