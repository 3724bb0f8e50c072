#!/bin/sh
# Whole runs against a provider that behaves one way for every request (judge_sim --fixture,
# tests/providers/README.md), on a bake-off of 12 cases that all need the judge:
# - a server that answers 400 to everything stops the run after a few requests (not one per
#   case), exit 4, with the provider's message on stderr and what to change;
# - a server that wraps every reply in <think> and a ``` fence decides every case, and
#   records what was cleaned off.
# usage: tests/cli/provider_runs.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
ARB="$1"
SIM="$2"
export ARB_TEST_KEY=provider-test-key

mkdir -p "$T/s"
: >"$T/s/cases.jsonl"
: >"$T/s/a.jsonl"
: >"$T/s/b.jsonl"
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
    printf '{"id":"c%s","expectations":[{"id":"polite","text":"The answer is polite"}]}\n' "$i" >>"$T/s/cases.jsonl"
    printf '{"id":"c%s","output":"Thank you for asking: it is %s."}\n' "$i" "$i" >>"$T/s/a.jsonl"
    printf '{"id":"c%s","output":"%s"}\n' "$i" "$i" >>"$T/s/b.jsonl"
done
cat >"$T/s/suite.json" <<'JSON'
{"name": "provider-runs", "seed": 5, "task": "Answer.", "systems": {"alpha": "a.jsonl", "beta": "b.jsonl"},
 "rubric": {"content": [], "structure": []}, "cases": "cases.jsonl"}
JSON

# start_fixture FILE: judge_sim replaying it; PORT and SIM_PID set.
start_fixture() {
    rm -f "$T/port" "$T/sim.log"
    "$SIM" --port 0 --port-file "$T/port" --log "$T/sim.log" --fixture "$1" >/dev/null &
    SIM_PID=$!
    n=0
    while [ ! -s "$T/port" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
    PORT=$(cat "$T/port")
    printf '{"provider": "openai", "base_url": "http://127.0.0.1:%s/v1", "model": "m", "api_key_env": "ARB_TEST_KEY", "concurrency": 2, "max_retries": 1, "timeout_s": 5}\n' "$PORT" >"$T/judge.json"
}
stop_fixture() { kill "$SIM_PID" 2>/dev/null; wait "$SIM_PID" 2>/dev/null; }

# 1. 400 to every request (OpenAI's shape for a parameter the model does not take).
cat >"$T/bad.json" <<'JSON'
{"title": "every request: 400 unsupported_parameter",
 "source": "OpenAI API error shape {error: {message, type, param, code}} (openai-openapi.yaml ErrorResponse); the message OpenAI's o-series models send for max_tokens",
 "provider": "openai",
 "replies": [{"status": 400, "json": {"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}}}]}
JSON
start_fixture "$T/bad.json"
"$ARB" run "$T/s/suite.json" --db "$T/bad.db" --judge "$T/judge.json" >"$T/out" 2>"$T/err"
rc=$?
stop_fixture
[ "$rc" = 4 ] && ok || bad "400 everywhere: exit $rc, want 4"
n=$(wc -l <"$T/sim.log" | tr -d ' ')
# 24 requests were due (12 cases, both orders); the third identical failure stops the run,
# with at most the concurrency (2) more in flight.
[ "$n" -ge 3 ] && [ "$n" -le 5 ] && ok || bad "400 everywhere: $n requests reached the server, want 3..5"
grep -q "Unsupported parameter: 'max_tokens' is not supported with this model" "$T/err" && ok ||
    bad "400 everywhere: the provider's message is not on stderr: $(cat "$T/err")"
grep -q "unsupported_parameter" "$T/err" && grep -q "max_completion_tokens" "$T/err" && ok ||
    bad "400 everywhere: stderr names neither the code nor what to change"
grep -q -- "--resume [0-9]* --db [^ ]*'" "$T/err" &&
    bad "400 everywhere: stderr suggests a plain --resume, which fails the same way" || ok
grep -q -- "--judge CHANGED.json" "$T/err" && ok || bad "400 everywhere: no word on continuing with a changed judge"
[ "$(sqlite3 "$T/bad.db" "SELECT count(*) FROM judge_calls WHERE error_code = 'unsupported_parameter' AND error_type = 'invalid_request_error'")" -ge 3 ] &&
    ok || bad "400 everywhere: the provider's error is not stored with the calls"

# 2. <think> and a fence around every reply (a reasoning model on a local server).
cat >"$T/think.json" <<'JSON'
{"title": "every reply: <think>...</think> then the JSON in a ```json fence",
 "source": "OpenAI chat completion shape (openai-openapi.yaml CreateChatCompletionResponse) as Ollama and llama.cpp serve it; DeepSeek-R1/Qwen3 write their thinking inline and fence JSON",
 "provider": "openai",
 "replies": [{"status": 200, "json": {"id": "chatcmpl-1", "object": "chat.completion", "created": 1732270300, "model": "{{model}}",
   "choices": [{"index": 0, "message": {"role": "assistant", "content": "<think>\nA thanks the asker; B is terse.\n</think>\n\nHere is my judgment:\n```json\n{{answer}}\n```"}, "finish_reason": "stop"}],
   "usage": {"prompt_tokens": 300, "completion_tokens": 80, "total_tokens": 380}}}]}
JSON
start_fixture "$T/think.json"
"$ARB" run "$T/s/suite.json" --db "$T/think.db" --judge "$T/judge.json" >"$T/out" 2>"$T/err"
rc=$?
stop_fixture
[ "$rc" = 0 ] && ok || bad "think+fence: exit $rc: $(cat "$T/err")"
[ "$(sqlite3 "$T/think.db" "SELECT count(*) FROM verdicts WHERE status = 'decided'")" = 12 ] && ok ||
    bad "think+fence: not every case decided: $(sqlite3 "$T/think.db" "SELECT status, count(*) FROM verdicts GROUP BY 1")"
[ "$(sqlite3 "$T/think.db" "SELECT count(*) FROM judge_calls WHERE normalization = '[\"think\",\"fence\",\"prose\"]' AND valid = 1")" = 24 ] &&
    ok || bad "think+fence: the cleaning is not recorded on every call: $(sqlite3 "$T/think.db" "SELECT normalization, count(*) FROM judge_calls GROUP BY 1")"

test_done
