#!/bin/sh
# The llm_judge operator (issue 19, seeds/evaluator-factories.txt): the judge is asked the
# check's template filled with the output (fenced) and the case's expected output, and its
# result_key decides: a boolean passes or fails, a number is held against the threshold.  A
# failed call or an unreadable reply leaves the check unresolved (the pair judge_failed) or,
# with on_error "fail", fails it with the error as a note.  Replies are cached (a second run
# sends nothing) and replayed offline to the same records.  Without a judge the check is
# unresolved with the note needs_judge.
# usage: tests/cli/llm_judge.sh path/to/arbiter path/to/judge_sim
#
# Part 1 uses a command judge (a shell script) that decides by markers in the request, so
# each answer is known: QQGOOD makes a boolean true, QQHIGH makes a score 0.8 (else 0.2),
# QQGARBAGE makes it answer text that is not JSON.  Part 2 uses the test judge over HTTP
# (tests/judge_sim): its answers are drawn from the request, and an outage answers 500.
. "$(dirname "$0")/lib.sh"
LC_ALL=C
export LC_ALL
ARB="$1"
SIM="$2"
[ -x "$ARB" ] || die "no binary at '$ARB'"
command -v sqlite3 >/dev/null 2>&1 || die "sqlite3 not found (make deps installs it)"
D="$T/d"
mkdir -p "$D"

cat >"$D/judge.sh" <<'EOF'
#!/bin/sh
req=$(cat)
echo call >>"$(dirname "$0")/calls.log"
case $req in
*'"winner"'*) # the pair's own question: no opinion
    printf '{"reasoning":"pairwise","criteria":{},"expectations":{},"winner":"TIE"}\n'
    exit 0 ;;
esac
case $req in *QQGARBAGE*) echo 'this is not json at all'; exit 0 ;; esac
case $req in *QQHIGH*) s=0.8 ;; *) s=0.2 ;; esac
case $req in *QQGOOD*) b=true ;; *) b=false ;; esac
case $req in
*'"correct"'*) printf '{"reasoning":"markers decide","correct":%s}\n' "$b" ;;
*) printf '{"reasoning":"markers decide","score":%s}\n' "$s" ;;
esac
EOF
calls() { if [ -f "$D/calls.log" ]; then wc -l <"$D/calls.log"; else echo 0; fi; }

printf '%s\n' '{"id":"c1","prompt":"Capital of France?","expected":"Paris"}' \
    '{"id":"c2","prompt":"Capital of Rhone?","expected":["Lyon"]}' >"$D/cases.jsonl"
printf '%s\n' '{"id":"c1","output":"QQGOOD QQHIGH it is Paris"}' \
    '{"id":"c2","output":"QQBAD it is Nice"}' >"$D/alpha.jsonl"
printf '%s\n' '{"id":"c1","output":"QQBAD it is Rome"}' \
    '{"id":"c2","output":"QQGOOD QQHIGH it is Lyon, says alphasys"}' >"$D/beta.jsonl"

# suite FILE JUDGE [ON_ERROR]: two llm_judge expectations (a boolean and a score).
suite() {
    printf '{"name":"llmj","task":"Answer the question.","seed":5,
 "systems":{"alphasys":"alpha.jsonl","betasys":"beta.jsonl"},
 "rubric":{"content":[{"name":"nonempty","check":{"op":"regex","expected":"."}}],"structure":[]},
 "expectations":[
  {"id":"right","text":"Matches the reference","check":{"op":"llm_judge","result_key":"correct"%s,
   "template":"Answer: {output}\\nReference answer: {expected_output}\\nIs the answer right? Reply {{\\"correct\\": true}} or false."}},
  {"id":"quality","text":"Good enough","check":{"op":"llm_judge","result_type":"score","threshold":0.5%s,
   "template":"Rate this answer from 0 to 1: {output}"}}
 ]%s,
 "cases":"cases.jsonl"}\n' "${3:-}" "${3:-}" "$2" >"$1"
}
CMD_JUDGE=",
 \"judge\":{\"provider\":\"command\",\"command\":[\"sh\",\"$D/judge.sh\"],\"model\":\"markers\"}"
suite "$D/suite.json" "$CMD_JUDGE"
DB="$T/a.db"

# verdict DB RUN CASE SYSTEM ITEM: the check record's verdict and score.
verdict() {
    sqlite3 "$1" "SELECT verdict || ' ' || score FROM checks WHERE run = $2 AND case_id = '$3'
                  AND system = '$4' AND item = '$5'"
}
record() {
    sqlite3 "$1" "SELECT record_json FROM v_checks WHERE run = $2 AND case_id = '$3'
                  AND system = '$4' AND item = '$5'"
}

# 1. The judge decides: a boolean result passes and fails, a number meets the threshold or not.
expect_cmd "run with a command judge" 0 "2 decided" "" -- $ARB run "$D/suite.json" --db "$DB"
# two cases: per system two llm_judge questions, and the pair's question in two orders
[ "$(calls)" -eq 12 ] && ok || bad "the judge was called $(calls) times, want 12"
[ "$(verdict "$DB" 1 c1 alphasys right)" = "pass 1.0" ] && ok || bad "c1 alphasys right: $(verdict "$DB" 1 c1 alphasys right)"
[ "$(verdict "$DB" 1 c1 betasys right)" = "fail 0.0" ] && ok || bad "c1 betasys right: $(verdict "$DB" 1 c1 betasys right)"
[ "$(verdict "$DB" 1 c2 betasys right)" = "pass 1.0" ] && ok || bad "c2 betasys right: $(verdict "$DB" 1 c2 betasys right)"
[ "$(verdict "$DB" 1 c1 alphasys quality)" = "pass 0.8" ] && ok || bad "c1 alphasys quality: $(verdict "$DB" 1 c1 alphasys quality)"
[ "$(verdict "$DB" 1 c1 betasys quality)" = "fail 0.2" ] && ok || bad "c1 betasys quality: $(verdict "$DB" 1 c1 betasys quality)"
record "$DB" 1 c1 alphasys quality | grep -qF '"threshold":0.5' && ok || bad "the score's threshold is not in its record"
record "$DB" 1 c1 alphasys right | grep -qF '"details":{"judge":{"result":true,"reasoning":"markers decide"}}' &&
    ok || bad "the judged record: $(record "$DB" 1 c1 alphasys right)"
record "$DB" 1 c1 alphasys right | grep -qF 'judged: the judge answered correct = true' && ok || bad "no note of the judge's answer"
# the verdicts take the judged expectations: alphasys passes both on c1, betasys on c2
sqlite3 "$DB" "SELECT case_id || ' ' || winner FROM verdicts WHERE run = 1 ORDER BY case_id" >"$T/w"
[ "$(tr '\n' ' ' <"$T/w")" = "c1 alphasys c2 betasys " ] && ok || bad "winners: $(cat "$T/w")"
sqlite3 "$DB" "SELECT comparison_json FROM v_verdicts WHERE run = 1 AND case_id = 'c1'" |
    grep -qF '{"id":"right","text":"Matches the reference","passed":true}' && ok || bad "comparison.json lacks the judged expectation"

expect_cmd "show names the check's own question" 0 "llm_judge:expectation:right, the output of alphasys, sample 1: valid" "" -- \
    $ARB show 1 c1 --db "$DB"

# 2. What the judge was asked: the filled template, the output fenced, the expected output in.
sqlite3 "$DB" "SELECT request_json FROM judge_calls" >"$T/requests"
grep -qF 'Answer: <<<BEGIN RESPONSE' "$T/requests" && ok || bad "the output is not fenced where {output} was"
grep -qF 'Reference answer: Paris' "$T/requests" && ok || bad "the case's expected output is not in the request"
grep -qF 'Reference answer: Lyon' "$T/requests" && ok || bad "a one-item expected list is not read as its item"
grep -qF 'Reply {\"correct\": true} or false.' "$T/requests" && ok || bad "{{ and }} are not literal braces"
grep -qF '"required":["reasoning","correct"]' "$T/requests" && ok || bad "the reply schema is not reasoning then result_key"
grep -qF '"score":{"maximum":1,"minimum":0,"type":"number"}' "$T/requests" && ok || bad "a score's schema is not a number from 0 to 1"
grep -q 'alphasys' "$T/requests" && bad "a system name reached the judge (redaction)" || ok
grep -qF '[REDACTED]' "$T/requests" && ok || bad "the system name in an output was not redacted"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM judgments WHERE run = 1 AND system_b LIKE 'llm_judge:expectation:%'")" = 8 ] &&
    ok || bad "judgments of the llm_judge questions: $(sqlite3 "$DB" 'SELECT system_a, system_b FROM judgments')"

# 3. A second run sends nothing: every reply comes from the cache, the records are the same.
expect_cmd "second run" 0 "2 decided" "" -- $ARB run "$D/suite.json" --db "$DB"
[ "$(calls)" -eq 12 ] && ok || bad "the second run called the judge $(( $(calls) - 12 )) times"
a=$(sqlite3 "$DB" "SELECT group_concat(record_json, '|') FROM (SELECT record_json FROM v_checks WHERE run = 1 ORDER BY id)")
b=$(sqlite3 "$DB" "SELECT group_concat(record_json, '|') FROM (SELECT record_json FROM v_checks WHERE run = 2 ORDER BY id)")
[ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "the cached run's records differ"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM judgments WHERE run = 2 AND cached = 1")" = 12 ] && ok || bad "run 2's judgments are not all cached"

# 4. Replay, offline (the judge gone): the same records.
mv "$D/judge.sh" "$D/judge.off"
expect_cmd "replay offline" 0 "all identical" "" -- $ARB replay 1 --db "$DB"
mv "$D/judge.off" "$D/judge.sh"
[ "$(calls)" -eq 12 ] && ok || bad "replay called the judge"

# 5. A changed template or expected output is a new request (the cache key covers them).
sed 's/Is the answer right?/Is it correct?/' "$D/suite.json" >"$D/suite2.json"
expect_cmd "run with another template" 0 "" "" -- $ARB run "$D/suite2.json" --db "$DB"
[ "$(calls)" -eq 16 ] && ok || bad "another template: $(( $(calls) - 12 )) calls, want 4 (the right questions)"
sed 's/"Paris"/"Paris, France"/' "$D/cases.jsonl" >"$D/cases2.jsonl"
sed 's/cases.jsonl/cases2.jsonl/' "$D/suite.json" >"$D/suite3.json"
expect_cmd "run with another expected output" 0 "" "" -- $ARB run "$D/suite3.json" --db "$DB"
[ "$(calls)" -eq 18 ] && ok || bad "another expected output: $(( $(calls) - 16 )) calls, want 2 (c1's right questions)"

# 6. A reply that is not JSON: unresolved by default (the pair judge_failed, naming the check),
#    a failure with the error as a note under on_error "fail".
printf '%s\n' '{"id":"c1","output":"QQGARBAGE QQGOOD it is Paris"}' '{"id":"c2","output":"QQBAD it is Nice"}' >"$D/alpha.jsonl"
suite "$D/g1.json" "$CMD_JUDGE"
suite "$D/g2.json" "$CMD_JUDGE" ',"on_error":"fail"'
$ARB run "$D/g1.json" --db "$T/g1.db" >"$T/out" 2>&1
grep -q '1 judge failed' "$T/out" && ok || bad "garbage, unresolved: $(cat "$T/out")"
[ "$(verdict "$T/g1.db" 1 c1 alphasys right)" = "unresolved 0.0" ] && ok || bad "garbage, unresolved: $(verdict "$T/g1.db" 1 c1 alphasys right)"
record "$T/g1.db" 1 c1 alphasys right | grep -qF '"notes":["needs_judge' && record "$T/g1.db" 1 c1 alphasys right | grep -qF 'judge_error: ' &&
    ok || bad "garbage, unresolved record: $(record "$T/g1.db" 1 c1 alphasys right)"
sqlite3 "$T/g1.db" "SELECT status || ' ' || json_extract(comparison_json, '$.judge.error') FROM v_verdicts WHERE case_id = 'c1'" >"$T/v"
grep -q "^judge_failed llm_judge expectation 'right' of alphasys: " "$T/v" && ok || bad "garbage, unresolved verdict: $(cat "$T/v")"
$ARB run "$D/g2.json" --db "$T/g2.db" >"$T/out" 2>&1
grep -q '2 decided' "$T/out" && ok || bad "garbage, fail: $(cat "$T/out")"
[ "$(verdict "$T/g2.db" 1 c1 alphasys right)" = "fail 0.0" ] && ok || bad "garbage, fail: $(verdict "$T/g2.db" 1 c1 alphasys right)"
record "$T/g2.db" 1 c1 alphasys right | grep -qF 'judge_error: ' && ok || bad "garbage, fail: no error note: $(record "$T/g2.db" 1 c1 alphasys right)"
# the marker is in the output: its score question got garbage too, and failed as well
[ "$(verdict "$T/g2.db" 1 c1 alphasys quality)" = "fail 0.0" ] && ok || bad "garbage, fail, score: $(verdict "$T/g2.db" 1 c1 alphasys quality)"
expect_cmd "replay of on_error fail" 0 "all identical" "" -- $ARB replay 1 --db "$T/g2.db"

# 7. Without a judge: unresolved with the note needs_judge, the pair pending the judge.
suite "$D/nojudge.json" ""
expect_cmd "run without a judge" 0 "2 pending the judge" "" -- $ARB run "$D/nojudge.json" --db "$T/n.db"
[ "$(verdict "$T/n.db" 1 c2 betasys right)" = "unresolved 0.0" ] && ok || bad "no judge: $(verdict "$T/n.db" 1 c2 betasys right)"
record "$T/n.db" 1 c2 betasys right | grep -qF 'needs_judge: ' && ok || bad "no judge: no needs_judge note"
expect_cmd "arbiter check: unresolved" 3 '"verdict":"unresolved"' "" -- \
    $ARB check '{"op":"llm_judge","template":"Is {output} right?"}' --observed 'x'
grep -qF 'needs_judge: ' "$T/out" && ok || bad "arbiter check: no needs_judge note"

# 8. Over HTTP (tests/judge_sim): its replies decide, and a second run sends nothing.
export ARB_TEST_JUDGE_KEY=llmj-key
start_sim
sim_judge() { # sim_judge [EXTRA]: the judge member for the running test judge
    printf ',\n "judge":{"provider":"openai","base_url":"http://127.0.0.1:%s/v1","model":"sim-1","api_key_env":"ARB_TEST_JUDGE_KEY"%s}' \
        "$PORT" "${1:-}"
}
suite "$D/h.json" "$(sim_judge)"
expect_cmd "run over HTTP" 0 "" "" -- $ARB run "$D/h.json" --db "$T/h.db"
n=$(wc -l <"$T/sim.log")
[ "$n" -eq 12 ] && ok || bad "HTTP: $n requests, want 12"
# each boolean record says what its reply said
sqlite3 "$T/h.db" "SELECT c.case_id, c.system, c.verdict, json_extract(json_extract(k.reply_json,
    '\$.choices[0].message.content'), '\$.correct') FROM checks c JOIN judgments j ON j.run = c.run
    AND j.case_id = c.case_id AND j.system_a = c.system AND j.system_b = 'llm_judge:expectation:right'
    JOIN judge_calls k ON k.key = j.key WHERE c.run = 1 AND c.item = 'right'" >"$T/hv"
[ "$(wc -l <"$T/hv")" -eq 4 ] && ok || bad "HTTP records with replies: $(cat "$T/hv")"
awk -F'|' '($3 == "pass") != ($4 == 1)' "$T/hv" | grep -q . && bad "a record is not its reply: $(cat "$T/hv")" || ok
expect_cmd "second run over HTTP" 0 "" "" -- $ARB run "$D/h.json" --db "$T/h.db"
[ "$(wc -l <"$T/sim.log")" -eq "$n" ] && ok || bad "the second HTTP run sent $(( $(wc -l <"$T/sim.log") - n )) requests"
expect_cmd "replay over HTTP, offline" 0 "all identical" "" -- env -u ARB_TEST_JUDGE_KEY $ARB replay 1 --db "$T/h.db"

# 9. HTTP 500 after every retry: unresolved by default, failed with the error under "fail".
start_sim --status-always 500
suite "$D/e1.json" "$(sim_judge ',"max_retries":1')"
suite "$D/e2.json" "$(sim_judge ',"max_retries":1')" ',"on_error":"fail"'
$ARB run "$D/e1.json" --db "$T/e1.db" >"$T/out" 2>&1
[ "$(verdict "$T/e1.db" 1 c1 betasys right)" = "unresolved 0.0" ] && ok || bad "500, unresolved: $(verdict "$T/e1.db" 1 c1 betasys right) $(cat "$T/out")"
record "$T/e1.db" 1 c1 betasys right | grep -q 'judge_error: .*500' && ok || bad "500, unresolved: $(record "$T/e1.db" 1 c1 betasys right)"
$ARB run "$D/e2.json" --db "$T/e2.db" >"$T/out" 2>&1
[ "$(verdict "$T/e2.db" 1 c1 betasys right)" = "fail 0.0" ] && ok || bad "500, fail: $(verdict "$T/e2.db" 1 c1 betasys right) $(cat "$T/out")"
record "$T/e2.db" 1 c1 betasys right | grep -q 'judge_error: .*500' && ok || bad "500, fail: $(record "$T/e2.db" 1 c1 betasys right)"
sqlite3 "$T/e2.db" "SELECT comparison_json FROM v_verdicts WHERE case_id = 'c1'" |
    grep -qF '{"id":"right","text":"Matches the reference","passed":false}' && ok || bad "500, fail: the expectation is not failed in comparison.json"

# 10. Once the judge answers again, --resume --retry-failed asks the unresolved checks again.
start_sim -p "$PORT"
expect_cmd "resume after the outage" 0 "2 decided" "" -- $ARB run --resume 1 --retry-failed --db "$T/e1.db"
verdict "$T/e1.db" 1 c1 betasys right | grep -q '^pass 1.0$\|^fail 0.0$' && ok ||
    bad "resumed: $(verdict "$T/e1.db" 1 c1 betasys right)"
record "$T/e1.db" 1 c1 betasys right | grep -qF 'judged: the judge answered correct = ' && ok ||
    bad "resumed record: $(record "$T/e1.db" 1 c1 betasys right)"
stop_all_sims

test_done
