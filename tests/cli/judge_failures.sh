#!/bin/sh
# What a failing judge does to a run (issue 15): an invalid reply never answers again (a new
# run and --resume --retry-failed ask afresh, a plain --resume takes it as it was); the exit
# code when judged cases failed; a command judge that exits unread (no SIGPIPE), one that
# hangs with children (its process group dies), one that pours out 50 MB (what is stored is
# capped), one that closes its output and lingers (its timeout still applies).
# usage: tests/cli/judge_failures.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
TEST_NAME=judge-failures
LC_ALL=C
export LC_ALL
ARB="$1"
SIM="$2"
MARK="30.$$"   # a sleep of 30.PID seconds: unique to this test, and gone soon if one survives
q() { sqlite3 "$1" "$2"; }
export ARB_FAIL_KEY=failures-key

# The judge's requests since start_sim (each start empties its log).  After the first start
# the judge is restarted on the port it chose (start_sim -p "$PORT"), so http.json stays valid.
requests() { wc -l <"$T/sim.log"; }

# A suite of 6 cases, each with one free-text expectation for the judge; output text $1.
mkdir -p "$T/s"
suite() { # OUTPUT_A
    awk -v dir="$T/s" -v out="$1" 'BEGIN {
        for (i = 0; i < 6; i++) {
            printf "{\"id\":\"c%d\",\"expectations\":[{\"id\":\"polite\",\"text\":\"The answer is polite\"}]}\n", i >(dir "/cases.jsonl")
            printf "{\"id\":\"c%d\",\"output\":\"%s %d\"}\n", i, out, i >(dir "/a.jsonl")
            printf "{\"id\":\"c%d\",\"output\":\"It is %d.\"}\n", i, i >(dir "/b.jsonl")
        }
    }'
    cat >"$T/s/suite.json" <<'JSON'
{"name": "failures", "seed": 9, "task": "Answer.", "systems": {"alpha": "a.jsonl", "beta": "b.jsonl"},
 "rubric": {"content": [], "structure": []},
 "cases": "cases.jsonl"}
JSON
}
suite "Answer, kindly"
http_judge() {
    printf '{"provider": "openai", "base_url": "http://127.0.0.1:%s/v1", "model": "sim", "api_key_env": "ARB_FAIL_KEY", "max_retries": 1, "timeout_s": 5}' \
        "$PORT" >"$T/http.json"
}

# 1. Every reply invalid: every judged case fails, and the run says so with exit 4.
start_sim --rate-invalid 1
http_judge
$ARB run "$T/s/suite.json" --judge "$T/http.json" --db "$T/a.db" --json >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 4 ] && ok || bad "every judged case failed: exit $rc, want 4: $(cat "$T/err")"
grep -q '"judge_failed":6' "$T/out" && grep -q '"judged":6' "$T/out" && ok || bad "all failed: $(cat "$T/out")"
grep -q "every one of the 6 cases the judge was asked about is judge_failed" "$T/err" &&
    grep -q "arbiter run --resume 1 --retry-failed" "$T/err" && ok || bad "message: $(cat "$T/err")"
[ "$(q "$T/a.db" "SELECT count(*) FROM judge_calls WHERE valid = 0")" = 24 ] && ok ||
    bad "invalid replies stored as such: $(q "$T/a.db" "SELECT valid, count(*) FROM judge_calls GROUP BY 1")"
[ "$(q "$T/a.db" "SELECT status FROM runs")" = complete ] && ok || bad "run not complete"

# 2. The judge is healthy again.  --resume takes the run's invalid replies as they were:
#    nothing is sent, nothing changes.
start_sim -p "$PORT"
$ARB run --resume 1 --db "$T/a.db" --json >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 4 ] && grep -q '"judge_failed":6' "$T/out" && ok || bad "plain resume: exit $rc: $(cat "$T/out" "$T/err")"
[ "$(requests)" = 0 ] && ok || bad "plain resume sent $(requests) requests"
# --resume --retry-failed asks exactly the failed requests again (attempt 0 of each order).
$ARB run --resume 1 --retry-failed --db "$T/a.db" --json >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 0 ] && grep -q '"decided":6,"pending_judge":0,"missing_output":0,"judge_failed":0' "$T/out" &&
    ok || bad "--retry-failed: exit $rc: $(cat "$T/out" "$T/err")"
[ "$(requests)" = 12 ] && ok || bad "--retry-failed sent $(requests) requests, want 12 (6 cases x 2 orders)"
[ "$(q "$T/a.db" "SELECT count(*) FROM judge_calls_rejected")" = 12 ] && ok ||
    bad "the invalid replies replaced are kept for audit: $(q "$T/a.db" "SELECT count(*) FROM judge_calls_rejected")"
# A new run of the same suite is answered from the cache now.
$ARB run "$T/s/suite.json" --judge "$T/http.json" --db "$T/a.db" >/dev/null 2>&1 && ok || bad "cached run"
[ "$(requests)" = 12 ] && ok || bad "a new run after the retry sent $(( $(requests) - 12 )) requests"
$ARB run "$T/s/suite.json" --db "$T/a.db" --retry-failed >/dev/null 2>"$T/err"
[ $? = 2 ] && grep -q -- "--retry-failed goes with --resume RUN" "$T/err" && ok ||
    bad "--retry-failed without --resume: $(cat "$T/err")"

# 3. A new run never takes an invalid reply: it asks again.
start_sim -p "$PORT" --rate-invalid 1
$ARB run "$T/s/suite.json" --judge "$T/http.json" --db "$T/b.db" >/dev/null 2>&1
start_sim -p "$PORT"
$ARB run "$T/s/suite.json" --judge "$T/http.json" --db "$T/b.db" --json >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 0 ] && grep -q '"judge_failed":0' "$T/out" && ok || bad "new run after invalid replies: exit $rc: $(cat "$T/out" "$T/err")"
[ "$(requests)" = 12 ] && ok || bad "the new run sent $(requests) requests, want 12"
stop_sim

# 4. Some judged cases fail (a command judge that answers invalid JSON for one output):
#    exit 0, or 1 under --fail-on-judge-errors.
cat >"$T/some.sh" <<'SH'
#!/bin/sh
in=$(cat)
case "$in" in
*BADCASE*) echo '{"reasoning": "no"}' ;;
*) echo '{"reasoning": "fine", "criteria": {}, "expectations": {"polite": {"A": true, "B": false}}, "winner": "A"}' ;;
esac
SH
chmod +x "$T/some.sh"
printf '{"provider": "command", "command": ["%s"]}' "$T/some.sh" >"$T/some.json"
sed -i 's/"output":"Answer, kindly 3"/"output":"BADCASE 3"/' "$T/s/a.jsonl"
$ARB run "$T/s/suite.json" --judge "$T/some.json" --db "$T/c.db" --json >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 0 ] && grep -q '"judge_failed":1' "$T/out" && ok || bad "one case failed: exit $rc: $(cat "$T/out" "$T/err")"
$ARB run "$T/s/suite.json" --judge "$T/some.json" --db "$T/c.db" --fail-on-judge-errors >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 1 ] && grep -q "1 of the 6 cases the judge was asked about are judge_failed or judge_refused (--fail-on-judge-errors)" "$T/err" &&
    ok || bad "--fail-on-judge-errors: exit $rc: $(cat "$T/err")"
$ARB run "$T/s/suite.json" --judge "$T/some.json" --db "$T/c2.db" --fail-on-judge-errors --limit 2 >/dev/null 2>"$T/err"
[ $? = 0 ] && ok || bad "--fail-on-judge-errors without a failure: $(cat "$T/err")"
suite "Answer, kindly"

# 5. A command judge that exits before reading its request (100 KB of it): the case is
#    judge_failed with the end of its stderr, and Arbiter is not killed by SIGPIPE.
suite "$(head -c 100000 /dev/zero | tr '\0' p)"
printf '#!/bin/sh\necho "judge: unknown flag --frobnicate" >&2\nexit 3\n' >"$T/quit.sh"
chmod +x "$T/quit.sh"
printf '{"provider": "command", "command": ["%s"]}' "$T/quit.sh" >"$T/quit.json"
$ARB run "$T/s/suite.json" --judge "$T/quit.json" --db "$T/d.db" --json >"$T/out" 2>"$T/err"
rc=$?
[ $rc = 4 ] && ok || bad "a judge that quits: exit $rc, want 4 (141 is SIGPIPE): $(head -c 300 "$T/err")"
[ "$(q "$T/d.db" "SELECT status FROM runs")" = complete ] && ok || bad "the run was left $(q "$T/d.db" "SELECT status FROM runs")"
q "$T/d.db" "SELECT json_extract(comparison_json, '\$.judge.error') FROM v_verdicts WHERE case_id = 'c0'" >"$T/e"
grep -q "exit 3" "$T/e" && grep -q "unknown flag --frobnicate" "$T/e" && ok ||
    bad "the error lacks the judge's exit or stderr: $(cat "$T/e")"
suite "Answer, kindly"

# 6. A command judge that hangs past its timeout, having started a child: the whole process
#    group is killed, nothing is left running.
printf '#!/bin/sh\ncat >/dev/null\nsleep %s &\nsleep %s\n' "$MARK" "$MARK" >"$T/hang.sh"
chmod +x "$T/hang.sh"
printf '{"provider": "command", "command": ["%s"], "timeout_s": 0.5}' "$T/hang.sh" >"$T/hang.json"
$ARB run "$T/s/suite.json" --judge "$T/hang.json" --db "$T/h.db" --limit 1 >/dev/null 2>"$T/err"
rc=$?
[ $rc = 4 ] && ok || bad "a judge that hangs: exit $rc: $(cat "$T/err")"
sleep 0.2
if pgrep -f "sleep $MARK\$" >/dev/null; then bad "the judge's children survived its timeout"; else ok; fi
q "$T/h.db" "SELECT json_extract(comparison_json, '\$.judge.error') FROM v_verdicts" | grep -q "timed out" &&
    ok || bad "the timeout is not the error"

# 7. A command judge that writes 50 MB and fails: what is stored of each reply is capped
#    (64 KiB) and said to be cut, never the 8 MB the output buffer holds.
printf '#!/bin/sh\ncat >/dev/null\nhead -c 50000000 /dev/zero | tr "\\\\0" x\nexit 1\n' >"$T/big.sh"
chmod +x "$T/big.sh"
printf '{"provider": "command", "command": ["%s"]}' "$T/big.sh" >"$T/big.json"
$ARB run "$T/s/suite.json" --judge "$T/big.json" --db "$T/g.db" --limit 1 >/dev/null 2>"$T/err"
[ "$(q "$T/g.db" "SELECT count(*) FROM judge_calls")" = 2 ] && ok || bad "calls: $(q "$T/g.db" "SELECT count(*) FROM judge_calls")"
[ "$(q "$T/g.db" "SELECT max(length(reply_json)) FROM judge_calls")" -le 65536 ] && ok ||
    bad "a failed reply stored $(q "$T/g.db" "SELECT max(length(reply_json)) FROM judge_calls") bytes"
[ "$(q "$T/g.db" "SELECT count(*) FROM judge_calls WHERE error LIKE '%cut: the first 65536 of%'")" = 2 ] &&
    ok || bad "the cut is not said: $(q "$T/g.db" "SELECT error FROM judge_calls")"
q "$T/g.db" "SELECT json_extract(comparison_json, '\$.judge.error') FROM v_verdicts" | grep -q "cut: the first" &&
    ok || bad "the verdict's error does not say the reply was cut"

# 8. A command judge that answers, closes its output and lingers: its timeout still applies
#    (Arbiter used to wait for it with no deadline once its output closed: 30 s a call).
cat >"$T/linger.sh" <<SH
#!/bin/sh
cat >/dev/null
echo '{"reasoning": "fine", "criteria": {}, "expectations": {"polite": {"A": true, "B": false}}, "winner": "A"}'
exec >&- 2>&-
sleep $MARK
SH
chmod +x "$T/linger.sh"
printf '{"provider": "command", "command": ["%s"], "timeout_s": 2}' "$T/linger.sh" >"$T/linger.json"
t0=$(date +%s)
timeout 20 $ARB run "$T/s/suite.json" --judge "$T/linger.json" --db "$T/w.db" --limit 1 >/dev/null 2>"$T/err"
rc=$?
t1=$(date +%s)
[ $rc != 124 ] && [ $((t1 - t0)) -lt 15 ] && ok ||
    bad "a judge that lingers after closing its output: exit $rc after $((t1 - t0)) s: $(cat "$T/err")"
q "$T/w.db" "SELECT error FROM judge_calls" | grep -q "timed out after 2 s" &&
    ok || bad "the lingering judge's calls: $(q "$T/w.db" "SELECT status, error FROM judge_calls")"
sleep 0.2
if pgrep -f "sleep $MARK\$" >/dev/null; then bad "the lingering judge survived its timeout"; else ok; fi

test_done
