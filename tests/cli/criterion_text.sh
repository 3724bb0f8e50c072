#!/bin/sh
# The judge sees the whole criterion (issue 18): a rubric criterion's description and its 1/3/5
# anchors, and an expectation's description (the suite's and a case's), reach every request
# that asks about them, redacted like the rest of the suite, and so judge_calls.request_json;
# a criterion without them is rendered as it always was; changing the text asks again.
# usage: tests/cli/criterion_text.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
LC_ALL=C
export LC_ALL
ARB="$1"
SIM="$2"
export ARB_TEST_JUDGE_KEY=criterion-key
q() { sqlite3 "$1" "$2"; }
# count DB WHERE: the judge_calls rows of run 1's database that satisfy WHERE.
count() { q "$1" "SELECT count(*) FROM judge_calls WHERE $2"; }

start_sim --latency-ms 2

# Six cases, every criterion for the judge alone (no checks).  Cases c0-c2 add an expectation
# with a description, c3-c5 one without.  The description names a redacted string.
mkdir -p "$T/s"
i=0
while [ $i -lt 6 ]; do
    if [ $i -lt 3 ]; then
        printf '{"id":"c%d","prompt":"Name the capital of France in one word.","expectations":[{"id":"short","text":"The answer is one word","description":"Punctuation does not count as a word"}]}\n' $i
    else
        printf '{"id":"c%d","prompt":"Name the capital of France in one word.","expectations":[{"id":"bare","text":"The answer has no greeting"}]}\n' $i
    fi >>"$T/s/cases.jsonl"
    printf '{"id":"c%d","output":"Paris"}\n' $i >>"$T/s/a.jsonl"
    printf '{"id":"c%d","output":"It is Paris, of course (case %d)."}\n' $i $i >>"$T/s/b.jsonl"
    i=$((i + 1))
done
cat >"$T/s/suite.json" <<JSON
{"name": "criterion text", "seed": 3, "task": "Answer the question.",
 "systems": {"alpha": "a.jsonl", "beta": "b.jsonl"},
 "redact": ["SECRET-MODEL-X"],
 "rubric": {
   "content": [
     {"name": "instruction_following",
      "description": "Does the response follow every instruction in the prompt, unlike SECRET-MODEL-X?",
      "anchors": {"1": "ignores the instruction", "3": "follows it partly",
                  "5": "follows every instruction"}},
     {"name": "tone", "anchors": {"5": "warm and direct"}},
     {"name": "plain"},
     {"name": "correctness"}],
   "structure": []},
 "expectations": [{"id": "cites", "text": "The answer names its source",
                   "description": "A named atlas or a link counts"}],
 "judge": {"provider": "openai", "base_url": "http://127.0.0.1:$PORT/v1", "model": "sim-1",
           "api_key_env": "ARB_TEST_JUDGE_KEY", "concurrency": 4, "timeout_s": 5},
 "cases": "cases.jsonl"}
JSON

$ARB run "$T/s/suite.json" --db "$T/a.db" --json >"$T/out" 2>"$T/err" ||
    die "judged run failed: $(cat "$T/err")"
grep -q '"pending_judge":0' "$T/out" && grep -q '"judge_failed":0' "$T/out" && ok ||
    bad "cases left undecided: $(cat "$T/out")"
# 6 cases x 2 orders, one request each.
[ "$(count "$T/a.db" 1)" = 12 ] && ok || bad "want 12 judge requests, got $(count "$T/a.db" 1)"

# The prompt is a JSON string in request_json: its line breaks are the two characters \n.
IF="- instruction_following: Does the response follow every instruction in the prompt, unlike [REDACTED]?\n  1 = ignores the instruction, 3 = follows it partly, 5 = follows every instruction\n"
asks_if=$(count "$T/a.db" "instr(request_json, '- instruction_following: ') > 0")
[ "$asks_if" = 12 ] && ok || bad "requests asking about instruction_following: $asks_if, want 12"
[ "$(count "$T/a.db" "instr(request_json, '$IF') > 0")" = "$asks_if" ] && ok ||
    bad "not every request about instruction_following holds its description and anchors: $(q "$T/a.db" "SELECT request_json FROM judge_calls LIMIT 1")"
for text in "Does the response follow every instruction in the prompt" \
    "ignores the instruction" "follows it partly" "follows every instruction"; do
    [ "$(count "$T/a.db" "instr(request_json, '- instruction_following: ') > 0 AND instr(request_json, '$text') > 0")" = "$asks_if" ] &&
        ok || bad "a request about instruction_following lacks '$text'"
done
# Redacted like the rest of the suite: nowhere in a request, nor in what the server received.
[ "$(count "$T/a.db" "instr(request_json, 'SECRET-MODEL-X') > 0")" = 0 ] && ok ||
    bad "the redacted string reached judge_calls.request_json"
grep -q SECRET-MODEL-X "$T/sim.log" && bad "the redacted string reached the judge" || ok

# One anchor given: the other two stay generic; no description, so one line as before.
[ "$(count "$T/a.db" "instr(request_json, '- tone: 1 = poor, 3 = acceptable, 5 = warm and direct\n') > 0")" = 12 ] &&
    ok || bad "tone's own anchor for 5 is missing: $(q "$T/a.db" "SELECT request_json FROM judge_calls LIMIT 1")"
# No description, no anchors: exactly the line of every earlier Arbiter (generic, or built in).
[ "$(count "$T/a.db" "instr(request_json, '- plain: 1 = poor, 3 = acceptable, 5 = excellent\n') > 0")" = 12 ] &&
    ok || bad "a criterion without text is not rendered as before"
[ "$(count "$T/a.db" "instr(request_json, '- correctness: 1 = major errors, 3 = minor errors, 5 = fully correct\n') > 0")" = 12 ] &&
    ok || bad "a default criterion without text is not rendered as before"

# Expectations: the suite's, in every request; the case's with a description, in c0-c2's.
[ "$(count "$T/a.db" "instr(request_json, '- cites: The answer names its source\n  A named atlas or a link counts\n') > 0")" = 12 ] &&
    ok || bad "the suite expectation's description is missing"
asks_short=$(count "$T/a.db" "instr(request_json, '- short: ') > 0")
[ "$asks_short" = 6 ] && ok || bad "requests asking about 'short': $asks_short, want 6"
[ "$(count "$T/a.db" "instr(request_json, '- short: The answer is one word\n  Punctuation does not count as a word\n') > 0")" = "$asks_short" ] &&
    ok || bad "a request about the case expectation 'short' lacks its description"
[ "$(count "$T/a.db" "instr(request_json, '- bare: The answer has no greeting\n') > 0")" = 6 ] &&
    [ "$(count "$T/a.db" "instr(request_json, '- bare: The answer has no greeting\n- ') > 0 OR instr(request_json, '- bare: The answer has no greeting\n\n') > 0")" = 6 ] &&
    ok || bad "an expectation without a description is not one line"
[ "$(count "$T/a.db" "instr(request_json, 'Punctuation does not count') > 0 AND instr(request_json, '- short: ') = 0")" = 0 ] &&
    ok || bad "a description reached a request that does not ask about its expectation"

# The same suite again: every reply from the cache.  Another anchor: another question, asked.
$ARB run "$T/s/suite.json" --db "$T/a.db" >/dev/null 2>"$T/err" || bad "second run: $(cat "$T/err")"
[ "$(wc -l <"$T/sim.log")" -eq 12 ] && ok || bad "the same suite asked again: $(wc -l <"$T/sim.log") requests"
sed 's/"follows it partly"/"follows most of it"/' "$T/s/suite.json" >"$T/s/other.json"
$ARB run "$T/s/other.json" --db "$T/a.db" >/dev/null 2>"$T/err" || bad "changed anchor run: $(cat "$T/err")"
[ "$(wc -l <"$T/sim.log")" -eq 24 ] && ok ||
    bad "a changed anchor should ask 12 new requests: $(wc -l <"$T/sim.log") in all"
[ "$(count "$T/a.db" "instr(request_json, '3 = follows most of it, 5 = follows every instruction') > 0")" = 12 ] &&
    ok || bad "the changed anchor is not in the new requests"

# A bad anchors value is refused before anything runs, located.
sed 's/"5": "warm and direct"/"4": "warm and direct"/' "$T/s/suite.json" >"$T/s/bad.json"
expect_cmd "an anchor for score 4" 2 "" \
    "bad.json:10:35: /rubric/content/1/anchors/4: unknown key '4' (valid: 1, 3, 5)" \
    -- "$ARB" run "$T/s/bad.json" --db "$T/b.db"

test_done
