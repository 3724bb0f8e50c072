#!/bin/sh
# The judge harness against a real HTTP server on 127.0.0.1 (tests/judge_sim),
# started and stopped here.  usage: tests/cli/judge.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
ARB="$1"
SIM="$2"

# The judge's requests since start_sim (each start empties its log).
requests() { wc -l <"$T/sim.log"; }

# A bake-off: N cases; the free-text expectation leaves every case with an item for the judge,
# except the cases whose id ends in 0, which have nothing unresolved (no expectations there).
make_suite() { # N [concurrency]
    n=$1
    conc=${2:-8}
    mkdir -p "$T/s"
    awk -v n="$n" -v dir="$T/s" 'BEGIN {
        for (i = 0; i < n; i++) {
            id = sprintf("k%03d", i)
            if (i % 10 == 0)
                printf "{\"id\":\"%s\",\"expected\":\"answer %d\"}\n", id, i >(dir "/cases.jsonl")
            else
                printf "{\"id\":\"%s\",\"expected\":\"answer %d\",\"expectations\":[{\"id\":\"polite\",\"text\":\"The answer is polite\"}]}\n", id, i >(dir "/cases.jsonl")
            printf "{\"id\":\"%s\",\"output\":\"answer %d from zz-canary-alpha via SECRET-MODEL-X\",\"duration\":123456}\n", id, i >(dir "/alpha.jsonl")
            printf "{\"id\":\"%s\",\"output\":\"Answer %d, zz-canary-beta says hi\",\"toolErrors\":77777}\n", id, i >(dir "/beta.jsonl")
        }
    }'
    cat >"$T/s/suite.json" <<JSON
{"name": "judge test", "seed": 11, "task": "Answer the question.",
 "systems": {"zz-canary-alpha": "alpha.jsonl", "zz-canary-beta": "beta.jsonl"},
 "redact": ["SECRET-MODEL-X"],
 "rubric": {"content": [{"name": "correctness", "check": {"op": "icontains"}}],
            "structure": [{"name": "formatting", "check": {"op": "starts_with", "expected": "answer"}}]},
 "judge": {"provider": "openai", "base_url": "http://127.0.0.1:$PORT/v1", "model": "sim-1",
           "api_key_env": "ARB_TEST_JUDGE_KEY", "concurrency": $conc, "timeout_s": 5,
           "max_retries": 4},
 "cases": "cases.jsonl"}
JSON
}

export ARB_TEST_JUDGE_KEY=canary-key-7f3a9

# 1. Exact request count, blindness, cache.
start_sim --latency-ms 5
make_suite 40
$ARB run "$T/s/suite.json" --db "$T/a.db" --json >"$T/out" 2>"$T/err" || bad "judged run failed: $(cat "$T/err")"
n=$(requests)
[ "$n" -eq 72 ] && ok || bad "expected 72 requests (36 cases x 2 orders), got $n"
grep -q '"pending_judge":0' "$T/out" && ok || bad "cases left pending: $(cat "$T/out")"
for canary in zz-canary-alpha zz-canary-beta SECRET-MODEL-X 123456 77777 canary-key-7f3a9 alpha.jsonl; do
    if grep -q -- "$canary" "$T/sim.log"; then bad "a judge request carried '$canary'"; else ok; fi
done
grep -q 'REDACTED' "$T/sim.log" && ok || bad "redaction not applied"
grep -c '"auth":true' "$T/sim.log" | grep -qx 72 && ok || bad "requests without the auth header"
for f in "$T/a.db" "$T/a.db-wal"; do
    [ -f "$f" ] || continue
    if grep -q canary-key-7f3a9 "$f"; then bad "the API key reached $f"; else ok; fi
done
$ARB run "$T/s/suite.json" --db "$T/a.db" >/dev/null 2>&1 || bad "second run failed"
[ "$(requests)" -eq 72 ] && ok || bad "the second run sent $(( $(requests) - 72 )) requests (cache)"
$ARB run "$T/s/suite.json" --db "$T/a.db" --no-cache >/dev/null 2>&1 || bad "--no-cache run failed"
[ "$(requests)" -eq 144 ] && ok || bad "--no-cache sent $(( $(requests) - 72 )), want 72"
$ARB report 2 --db "$T/a.db" --format json >"$T/rep" && ok || bad "report after judging"
grep -q '"cached":	72' "$T/rep" && ok || bad "report: the second run's 72 cached judgments are not counted"
$ARB report 1 --db "$T/a.db" | grep -q "Judge: sim-1 (config " && ok || bad "markdown report lacks the judge line"
$ARB show latest k001 --db "$T/a.db" --records | grep -q '"judge":' && ok || bad "show --records lacks the judge's record"

# 2. No judge: --no-judge, and a missing key.
$ARB run "$T/s/suite.json" --db "$T/b.db" --no-judge --json >"$T/out" 2>&1 || bad "--no-judge run failed"
grep -q '"pending_judge":36' "$T/out" && ok || bad "--no-judge: $(cat "$T/out")"
ARB_TEST_JUDGE_KEY= $ARB run "$T/s/suite.json" --db "$T/b.db" >/dev/null 2>"$T/err"
[ $? -eq 4 ] && grep -q 'ARB_TEST_JUDGE_KEY is not set' "$T/err" && ok || bad "missing key: $(cat "$T/err")"

# 3. Authentication refused: exit 4, early, with a clear message and no key in it.
ARB_TEST_JUDGE_KEY=bad-key $ARB run "$T/s/suite.json" --db "$T/c.db" >/dev/null 2>"$T/err"
[ $? -eq 4 ] && grep -q 'authentication failed (HTTP 401)' "$T/err" && ok || bad "bad key: $(cat "$T/err")"
grep -q bad-key "$T/err" && bad "the key was printed" || ok

# 4. Faults: 10% 429, 5% 500, 5% malformed, 5% schema-invalid: nothing lost or left pending.
start_sim --rate-429 0.1 --retry-after 0 --rate-500 0.05 --rate-malformed 0.05 --rate-invalid 0.05
make_suite 60
$ARB run "$T/s/suite.json" --db "$T/d.db" --json >"$T/out" 2>"$T/err"
rc=$?
grep -q '"pending_judge":0' "$T/out" && ok || bad "faults left cases pending: $(cat "$T/out") $(cat "$T/err")"
[ $rc -eq 0 ] && ok || bad "fault run exit $rc: $(cat "$T/err")"

# 4c. A 2xx reply cut short (not JSON) is retried like a 5xx, never stored, never lost: with
# 30% of replies malformed every judgment still completes (found by make bench-peers).  With
# 8 retries no request sees nine malformed replies in a row (0.3^9 each): at 4, one of the 72
# had a 16% chance to see five, and which one did hung on the draw of its body.
start_sim --rate-malformed 0.3
make_suite 40
sed -i 's/"max_retries": 4}/"max_retries": 8}/' "$T/s/suite.json"
$ARB run "$T/s/suite.json" --db "$T/dm.db" --json >"$T/out" 2>"$T/err"
grep -q '"pending_judge":0,"missing_output":0,"judge_failed":0' "$T/out" && ok ||
    bad "malformed replies lost judgments: $(cat "$T/out") $(cat "$T/err")"
grep -q '"fault":"malformed' "$T/sim.log" && ok || bad "no reply was malformed: the test tested nothing"
[ "$(sqlite3 "$T/dm.db" "SELECT count(*) FROM judge_calls WHERE json_valid(reply_json) = 0")" = 0 ] &&
    ok || bad "a reply that is not JSON was stored"

# 4b. Requests that hang past the timeout are retried, and the run still completes.
start_sim --rate-hang 0.15 --hang-ms 3000
make_suite 20
sed -e 's/"timeout_s": 5/"timeout_s": 0.4/' "$T/s/suite.json" >"$T/s/hang.json"
$ARB run "$T/s/hang.json" --db "$T/dh.db" --json >"$T/out" 2>"$T/err"
grep -q '"pending_judge":0,"missing_output":0,"judge_failed":0' "$T/out" && ok || bad "hangs: $(cat "$T/out") $(cat "$T/err")"
grep -q '"fault":"hang' "$T/sim.log" && ok || bad "no request hung: the test tested nothing"

# 5. Killed mid-judging and resumed: replies already stored are never requested again.
start_sim --latency-ms 100
make_suite 60
$ARB run "$T/s/suite.json" --db "$T/e.db" >/dev/null 2>&1 &
pid=$!
sleep 0.6
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
$ARB run --resume latest --db "$T/e.db" >/dev/null 2>"$T/err" || bad "resume after kill: $(cat "$T/err")"
# Only requests in flight at the kill (at most the concurrency, 8) may be sent again.
# Distinct questions: a request sent again after the kill draws another fence code.
uniq_bodies=$(sed -e 's/.*"body"://' -e 's/\b[0-9a-f]\{16\}\b/FENCE/g' "$T/sim.log" | sort -u | wc -l)
dups=$(( $(requests) - uniq_bodies ))
[ "$uniq_bodies" -eq 108 ] && ok || bad "kill+resume asked $uniq_bodies distinct requests, want 108"
[ "$dups" -le 8 ] && ok || bad "$dups requests were sent twice across the kill (more than were in flight)"

# 6. Wall time at concurrency C with latency L: within 1.15 x ideal + 0.2 s.
start_sim --latency-ms 200
make_suite 33 16
start=$(date +%s.%N)
$ARB run "$T/s/suite.json" --db "$T/f.db" >/dev/null 2>&1 || bad "timed run failed"
end=$(date +%s.%N)
# 29 judged cases x 2 orders = 58 requests, 200 ms each, 16 at a time: ideal 0.725 s.
awk -v s="$start" -v e="$end" 'BEGIN { ideal = 58 * 0.2 / 16; t = e - s;
    printf "judge: %.2f s for 58 requests (ideal %.2f s, ratio %.2f)\n", t, ideal, t / ideal;
    exit !(t <= 1.15 * ideal + 0.2) }' && ok || bad "judging slower than 1.15 x ideal + 0.2 s"

# 7. The Anthropic protocol (tool_use replies) against the same server.
start_sim --latency-ms 5
make_suite 20
sed -e 's/"provider": "openai"/"provider": "anthropic"/' -e "s|http://127.0.0.1:$PORT/v1|http://127.0.0.1:$PORT|" \
    "$T/s/suite.json" >"$T/s/anth.json"
$ARB run "$T/s/anth.json" --db "$T/g.db" --json >"$T/out" 2>"$T/err" || bad "anthropic run: $(cat "$T/err")"
grep -q "\"pending_judge\":0,\"missing_output\":0,\"judge_failed\":0" "$T/out" && ok || bad "anthropic: $(cat "$T/out")"
grep -q '"path":"/v1/messages"' "$T/sim.log" && ok || bad "no request reached /v1/messages"

# 8. Swap off and two samples: one order, two requests per case.
make_suite 20
sed -e 's/"max_retries": 4}/"max_retries": 4, "swap": false, "samples": 2}/' "$T/s/suite.json" >"$T/s/samples.json"
before=$(requests)
$ARB run "$T/s/samples.json" --db "$T/h.db" --json >"$T/out" 2>"$T/err" || bad "samples run: $(cat "$T/err")"
[ $(( $(requests) - before )) -eq 36 ] && ok || bad "swap off, 2 samples: $(( $(requests) - before )) requests, want 36"

# 9. arbiter compare: one blind comparison, through the same judge.
start_sim --latency-ms 5
printf 'The capital of France is Paris.' >"$T/ca.txt"
mkdir -p "$T/cb"
printf 'Paris.' >"$T/cb/answer.txt"
printf 'notes' >"$T/cb/notes.md"
printf '["Names Paris", {"id": "short", "text": "Under 40 characters", "check": {"op": "regex", "expected": "^.{0,40}$", "mode": "fullmatch", "file": "answer.txt"}}]' >"$T/ce.json"
printf '{"provider": "openai", "base_url": "http://127.0.0.1:%s/v1", "model": "sim-1", "api_key_env": "ARB_TEST_JUDGE_KEY"}' "$PORT" >"$T/judge.json"
before=$(requests)
$ARB compare --task "What is the capital of France?" --expectations "$T/ce.json" --judge "$T/judge.json" \
    "$T/ca.txt" "$T/cb" -o "$T/cmp.json" >"$T/out" 2>"$T/err" || bad "compare: $(cat "$T/err")"
grep -q '"status":	"decided"' "$T/cmp.json" && ok || bad "compare not decided: $(head -c 300 "$T/cmp.json")"
grep -q "\"A\":	\"$T/ca.txt\"" "$T/cmp.json" && ok || bad "compare: systems.A is not A_PATH"
[ $(( $(requests) - before )) -eq 2 ] && ok || bad "compare sent $(( $(requests) - before )) requests, want 2"
grep -q '=== file: answer.txt ===' "$T/sim.log" && ok || bad "a directory output did not reach the judge as files"

# 10. The command provider: a local program answers on stdout.
stop_sim
make_suite 20
sed -e "s|\"provider\": \"openai\", \"base_url\": \"http://127.0.0.1:$PORT/v1\"|\"provider\": \"command\", \"command\": [\"$SIM\", \"--stdio\"]|" \
    -e 's/"api_key_env": "ARB_TEST_JUDGE_KEY", //' "$T/s/suite.json" >"$T/s/cmd.json"
env -u ARB_TEST_JUDGE_KEY $ARB run "$T/s/cmd.json" --db "$T/i.db" --json >"$T/out" 2>"$T/err" || bad "command judge: $(cat "$T/err")"
grep -q '"pending_judge":0,"missing_output":0,"judge_failed":0' "$T/out" && ok || bad "command judge: $(cat "$T/out") $(cat "$T/err")"
# show: the judge's answer in each order, naming which system it saw as Response A.
$ARB show latest k001 --db "$T/i.db" --records >"$T/show.txt" 2>"$T/err" || bad "show k001: $(cat "$T/err")"
ab=$(sed -n 's/^order AB: Response A = \([^,]*\), Response B = \([^,]*\),.*/\1 \2/p' "$T/show.txt")
ba=$(sed -n 's/^order BA: Response A = \([^,]*\), Response B = \([^,]*\),.*/\2 \1/p' "$T/show.txt")
[ -n "$ab" ] && [ "$ab" = "$ba" ] && ok || bad "show: both orders, swapped, expected: $(grep '^order' "$T/show.txt")"
[ "$(grep -c '^    {.*"winner":' "$T/show.txt")" -ge 3 ] && ok || bad "show: each order's answer and the verdict"
sed -n '/^--- judge/,/^--- verdict/p' "$T/show.txt" | grep -q '^--- verdict' && ok || bad "show: the judge's answers before the verdict"
$ARB show latest k001 --db "$T/i.db" --json | grep -c '"order":' | grep -qx 2 && ok || bad "show --json: two judgments"
$ARB show latest k001 --db "$T/i.db" >"$T/show2.txt" 2>&1
[ "$(grep -c '^    reasoning: ' "$T/show2.txt")" -ge 2 ] && ok || bad "show: each order's reasoning: $(cat "$T/show2.txt")"
grep -q '^    expectations: polite ' "$T/show2.txt" && ok || bad "show: the judge's expectation verdicts"
grep -q '^    {' "$T/show2.txt" && bad "show without --records printed whole records" || ok
sed -e 's/"--stdio"\]/"--stdio", "--invalid"]/' "$T/s/cmd.json" >"$T/s/cmdbad.json"
$ARB run "$T/s/cmdbad.json" --db "$T/j.db" --json >"$T/out" 2>"$T/err"
grep -q '"judge_failed":18' "$T/out" && ok || bad "invalid command answers: $(cat "$T/out") $(cat "$T/err")"

# 11. arbiter calibrate: the judge on labelled pairs in both orders, cached; then the gate.
start_sim --latency-ms 5
printf '{"provider": "openai", "base_url": "http://127.0.0.1:%s/v1", "model": "sim-1", "api_key_env": "ARB_TEST_JUDGE_KEY"}' "$PORT" >"$T/cj.json"
awk 'BEGIN { for (i = 0; i < 8; i++)
    printf "{\"id\":\"p%d\",\"prompt\":\"Question %d?\",\"output_1\":\"zz-out-one %d\",\"output_2\":\"the other answer %d\",\"human\":\"%s\"}\n", i, i, i, i, (i % 3 == 0 ? "tie" : i % 2 ? "1" : "2") }' >"$T/labels.jsonl"
before=$(requests)
$ARB calibrate "$T/labels.jsonl" --judge "$T/cj.json" --db "$T/k.db" >"$T/cal.json" 2>"$T/err" || bad "calibrate: $(cat "$T/err")"
[ $(( $(requests) - before )) -eq 16 ] && ok || bad "calibrate sent $(( $(requests) - before )) requests, want 16 (8 items x 2 orders)"
grep -q '"judge_hash":"[0-9a-f]\{64\}"' "$T/cal.json" && ok || bad "calibrate: no judge_hash: $(head -c 300 "$T/cal.json")"
grep -q '"order_21":{"n":8' "$T/cal.json" && ok || bad "calibrate: order_21 missing: $(head -c 300 "$T/cal.json")"
grep -q 'output_1' "$T/sim.log" && bad "a judge request carried the name output_1" || ok
$ARB check '{"op":"json_schema","expected_file":"schemas/calibration.schema.json"}' --observed-file "$T/cal.json" >/dev/null && ok || bad "online study does not match schemas/calibration.schema.json"
before=$(requests)
$ARB calibrate "$T/labels.jsonl" --judge "$T/cj.json" --db "$T/k.db" >/dev/null 2>"$T/err" || bad "second calibrate: $(cat "$T/err")"
[ "$(requests)" -eq "$before" ] && ok || bad "the second calibrate sent $(( $(requests) - before )) requests (cache)"
# The gate looks up the run's whole procedure (judge, rubric, policy): a study of the judge's own
# winners (calibrate LABELS) is another procedure, named as the reason (tests/cli/
# calibrate_procedure.sh tests the gate on studies of the procedure).
make_suite 5
$ARB run "$T/s/suite.json" --db "$T/k.db" --judge "$T/cj.json" --require-calibrated -1 >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q 'is not calibrated in .*the judge has a study of its own winners only' "$T/err" && ok ||
    bad "a study of the judge's own winners passed the gate: $(cat "$T/err")"
sed -e 's/"model": "sim-1"/"model": "sim-2"/' "$T/s/suite.json" >"$T/s/sim2.json"
$ARB run "$T/s/sim2.json" --db "$T/k.db" --require-calibrated 0 >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q 'is not calibrated' "$T/err" && ! grep -q 'own winners' "$T/err" && ok ||
    bad "uncalibrated suite judge accepted: $(cat "$T/err")"
# A judge that always prefers what it sees first: every item first-biased.
start_sim --prefer-a 1
sed -e "s|http://127.0.0.1:[0-9]*/v1|http://127.0.0.1:$PORT/v1|" -e 's/"sim-1"/"sim-biased"/' "$T/cj.json" >"$T/cjb.json"
$ARB calibrate "$T/labels.jsonl" --judge "$T/cjb.json" --db "$T/kb.db" >"$T/calb.json" 2>"$T/err" || bad "biased calibrate: $(cat "$T/err")"
grep -q '"first_biased":8,"second_biased":0' "$T/calb.json" && ok || bad "prefer-a: $(head -c 600 "$T/calb.json")"

test_done
