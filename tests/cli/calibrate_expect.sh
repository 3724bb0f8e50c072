#!/bin/sh
# arbiter calibrate on expectation labels without recorded verdicts: the judge is asked, one
# single-output question per item, against a real HTTP server on 127.0.0.1 (tests/judge_sim).
# usage: tests/cli/calibrate_expect.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
LC_ALL=C
export LC_ALL
ARB="$1"
SIM="$2"

# The judge's requests since start_sim (each start empties its log).
requests() { wc -l <"$T/sim.log"; }

# judge_config FILE [EXTRA]: an OpenAI-protocol judge on the running server.
judge_config() {
    printf '{"provider": "openai", "base_url": "http://127.0.0.1:%s/v1", "model": "sim-1", "api_key_env": "ARB_TEST_JUDGE_KEY"%s}' \
        "$PORT" "${2:-}" >"$1"
}

# verdicts DB RUN: "id pass" per item, the majority of that run's valid judgments (pass is 1 or 0).
verdicts() {
    sqlite3 "$1" "SELECT j.case_id, CASE WHEN 2 * SUM(json_extract(json_extract(c.reply_json,
        '\$.choices[0].message.content'), '\$.expectations.expectation.pass')) > COUNT(*)
        THEN 1 ELSE 0 END FROM judgments j JOIN judge_calls c ON c.key = j.key
        WHERE j.run = $2 AND j.valid = 1 GROUP BY j.case_id ORDER BY j.case_id"
}

# expect_counts STUDY VERDICTS: check the study's items and counts against the judge's replies
# (VERDICTS, from verdicts) and the human labels of $T/labels.jsonl.
expect_counts() {
    awk -F'"' '{ for (i = 1; i < NF; i++) if ($i == "id") id = $(i + 2);
                 h = ($0 ~ /"human":true/) ? 1 : 0; print id, h }' "$T/labels.jsonl" | sort >"$T/human"
    sort "$2" | tr '|' ' ' >"$T/judge"
    join "$T/human" "$T/judge" >"$T/both"
    n=$(wc -l <"$T/both")
    correct=$(awk '$2 == $3' "$T/both" | wc -l)
    tt=$(awk '$2 == 1 && $3 == 1' "$T/both" | wc -l)
    tf=$(awk '$2 == 1 && $3 == 0' "$T/both" | wc -l)
    ft=$(awk '$2 == 0 && $3 == 1' "$T/both" | wc -l)
    ff=$(awk '$2 == 0 && $3 == 0' "$T/both" | wc -l)
    [ "$n" -eq 10 ] && ok || bad "$n judged items in the database, want 10"
    grep -q "\"resolved\":10,\"unresolved\":0,\"correct\":$correct," "$1" && ok ||
        bad "study counts, want 10 resolved and $correct correct: $(head -c 400 "$1")"
    grep -q "\"confusion\":\[\[$tt,$tf\],\[$ft,$ff\]\]" "$1" && ok ||
        bad "confusion, want [[$tt,$tf],[$ft,$ff]]: $(head -c 400 "$1")"
    while read -r id h j; do
        jv=$([ "$j" = 1 ] && echo true || echo false)
        grep -q "{\"id\":\"$id\",\"human\":[a-z]*,\"judge\":$jv}" "$1" ||
            { bad "item $id: the study's verdict is not the judge's reply ($jv)"; return; }
    done <"$T/both"
    ok
}

export ARB_TEST_JUDGE_KEY=canary-key-5e1b9

# Ten expectation labels, no recorded verdicts; ids and outputs carry canaries.
awk 'BEGIN { for (i = 0; i < 10; i++)
    printf "{\"id\":\"zz-label-%d\",\"output\":\"The capital of France is %s (answer %d).\",\"expectation\":\"The answer names Paris\",\"human\":%s}\n",
        i, (i % 3 ? "Paris" : "Lyon"), i, (i % 3 ? "true" : "false") }' >"$T/labels.jsonl"

# 1. Online: one request per item (no swap for one output), the study on the judge's verdicts.
start_sim --latency-ms 5
judge_config "$T/judge.json"
$ARB calibrate "$T/labels.jsonl" --judge "$T/judge.json" --db "$T/a.db" >"$T/cal.json" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "calibrate exit $rc: $(cat "$T/err")"
[ "$(requests)" -eq 10 ] && ok || bad "calibrate sent $(requests) requests, want 10 (one per item)"
grep -q '10 items on their one output' "$T/err" && ok || bad "stderr: $(cat "$T/err")"
grep -q '^{"kind":"expectation","n":10,"unparsed":"unresolved","judge_hash":"[0-9a-f]\{64\}"' "$T/cal.json" &&
    ok || bad "study header: $(head -c 300 "$T/cal.json")"
verdicts "$T/a.db" 1 >"$T/v1"
expect_counts "$T/cal.json" "$T/v1"
$ARB check '{"op":"json_schema","expected_file":"schemas/calibration.schema.json"}' \
    --observed-file "$T/cal.json" >/dev/null && ok || bad "the study does not match schemas/calibration.schema.json"
# Blind and fenced: the one output and the expectation reach the judge, label ids do not.
grep -q 'The answer names Paris' "$T/sim.log" && ok || bad "the expectation did not reach the judge"
grep -q 'BEGIN RESPONSE [0-9a-f]\{16\}' "$T/sim.log" && ok || bad "the output is not fenced"
grep -q 'RESPONSE A\|RESPONSE B' "$T/sim.log" && bad "a single-output request shows A or B" || ok
grep -q 'zz-label' "$T/sim.log" && bad "a label id reached the judge" || ok
grep -q '\\"required\\":\[\\"pass\\"\]' "$T/sim.log" && ok || bad "the request schema does not require pass"
# Stored like a pairwise study: under the judge's hash, with the run that holds its records.
hash=$(sed 's/.*"judge_hash":"\([0-9a-f]*\)".*/\1/' "$T/cal.json")
[ "$(sqlite3 "$T/a.db" "SELECT COUNT(*) FROM calibrations WHERE judge_hash = '$hash' AND n = 10 AND run = 1")" = 1 ] &&
    ok || bad "the study is not stored under the judge's hash with its run"
[ "$(sqlite3 "$T/a.db" "SELECT COUNT(*) FROM judgments WHERE run = 1 AND ord = 'AB' AND system_a = 'output'")" = 10 ] &&
    ok || bad "judgments not recorded: $(sqlite3 "$T/a.db" 'SELECT case_id, ord, system_a FROM judgments')"

# 2. Again: every reply comes from the cache, and the study is the same.
before=$(requests)
$ARB calibrate "$T/labels.jsonl" --judge "$T/judge.json" --db "$T/a.db" >"$T/cal2.json" 2>"$T/err" ||
    bad "second calibrate: $(cat "$T/err")"
[ "$(requests)" -eq "$before" ] && ok || bad "the second calibrate sent $(( $(requests) - before )) requests (cache)"
cmp -s "$T/cal.json" "$T/cal2.json" && ok || bad "the cached study differs from the first"
$ARB calibrate "$T/labels.jsonl" --judge "$T/judge.json" --db "$T/a.db" --format md >"$T/cal.md" 2>"$T/err" &&
    grep -q 'expectation' "$T/cal.md" && ok || bad "markdown study: $(cat "$T/err")"
[ "$(requests)" -eq "$before" ] && ok || bad "--format md sent requests"

# 3. Three samples: the first sample's requests are cached, the majority is the verdict.
judge_config "$T/judge3.json" ', "samples": 3'
before=$(requests)
$ARB calibrate "$T/labels.jsonl" --judge "$T/judge3.json" --db "$T/a.db" >"$T/cal3.json" 2>"$T/err" ||
    bad "samples 3: $(cat "$T/err")"
[ $(( $(requests) - before )) -eq 20 ] && ok || bad "samples 3 sent $(( $(requests) - before )) requests, want 20 (sample 0 cached)"
run=$(sqlite3 "$T/a.db" "SELECT MAX(id) FROM runs")
verdicts "$T/a.db" "$run" >"$T/v3"
expect_counts "$T/cal3.json" "$T/v3"

# 4. Mixed, into a new database: items with recorded verdicts are not asked.
sed -e '1,3s/}$/,"judge":true}/' "$T/labels.jsonl" >"$T/mixed.jsonl"
before=$(requests)
$ARB calibrate "$T/mixed.jsonl" --judge "$T/judge.json" --db "$T/m.db" >"$T/calm.json" 2>"$T/err" ||
    bad "mixed: $(cat "$T/err")"
[ $(( $(requests) - before )) -eq 7 ] && ok || bad "mixed: $(( $(requests) - before )) requests, want 7"
grep -q '"n":10' "$T/calm.json" && grep -q '{"id":"zz-label-0","human":false,"judge":true}' "$T/calm.json" &&
    ok || bad "mixed study: $(head -c 300 "$T/calm.json")"

# 5. Schema-invalid replies are asked again once; the study still covers every item.
start_sim --rate-invalid 0.4
judge_config "$T/judge.json"
$ARB calibrate "$T/labels.jsonl" --judge "$T/judge.json" --db "$T/b.db" >"$T/calb.json" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && grep -q '"n":10' "$T/calb.json" && ok || bad "invalid replies: exit $rc $(cat "$T/err")"
grep -q '"fault":"invalid"' "$T/sim.log" && ok || bad "no reply was invalid: the test tested nothing"
[ "$(requests)" -gt 10 ] && ok || bad "invalid replies were not asked again"

# 6. The Anthropic protocol (a tool_use reply) answers the same question.
start_sim
judge_config "$T/judge.json"
sed -e 's/"provider": "openai"/"provider": "anthropic"/' -e "s|/v1\"|\"|" "$T/judge.json" >"$T/anth.json"
$ARB calibrate "$T/labels.jsonl" --judge "$T/anth.json" --db "$T/c.db" >"$T/calc.json" 2>"$T/err" &&
    grep -q '"unresolved":0' "$T/calc.json" && ok || bad "anthropic: $(cat "$T/err") $(head -c 300 "$T/calc.json")"
grep -q '"path":"/v1/messages"' "$T/sim.log" && ok || bad "no request reached /v1/messages"

# 7. No judge: refused, naming what is missing.
$ARB calibrate "$T/labels.jsonl" --db "$T/d.db" >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q '10 items without recorded verdicts need a judge (--judge FILE)' "$T/err" &&
    ok || bad "no judge: $(cat "$T/err")"

# 7b. An expectation study measures the single-output prompt, not the pairwise one that runs
# use: it does not calibrate the judge for run --require-calibrated.
$ARB run examples/invoice/suite.json --db "$T/c.db" --judge "$T/anth.json" --require-calibrated -1 \
    >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q 'is not calibrated in' "$T/err" && ok ||
    bad "an expectation study passed --require-calibrated: $(cat "$T/err")"

# 8. The API key never reaches a database, an output or the judge's log.
for f in "$T"/*.db "$T"/*.db-wal "$T"/cal*.json "$T/cal.md" "$T/err" "$T/sim.log"; do
    [ -f "$f" ] || continue
    if grep -q canary-key-5e1b9 "$f"; then bad "the API key reached $f"; else ok; fi
done

test_done
