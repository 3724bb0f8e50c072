#!/bin/sh
# arbiter replay --rejudge JUDGE --into NEWRUN and arbiter report NEWRUN --against RUN:
# the same stored inputs judged again by another judge, and which verdicts changed.
# usage: tests/cli/rejudge.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
ARB="$1"
SIM="$2"
val() { sqlite3 :memory: "SELECT json_extract(readfile('$1'), '$2')"; }

# start_judge NAME ARGS...: a test judge named NAME (start_sim -n NAME; its requests in
# $T/NAME.log) serving model NAME, and its judge config in $T/NAME.json.
start_judge() {
    name=$1
    shift
    start_sim -n "$name" --latency-ms 2 "$@"
    cat >"$T/$name.json" <<JSON
{"provider": "openai", "base_url": "http://127.0.0.1:$PORT/v1", "model": "$name",
 "api_key_env": "REJUDGE_KEY", "concurrency": 4, "max_retries": 1}
JSON
}
start_judge fair --seed 1
start_judge partial --seed 2 --prefer-a 0.9
export REJUDGE_KEY=sk-canary-rejudge-0042

# 1. A run without a judge leaves 12 cases pending; re-judged into run 5, they are decided.
$ARB run examples/invoice/suite.json --db "$T/r.db" --no-judge >/dev/null 2>&1 || bad "run"
$ARB replay 1 --rejudge "$T/fair.json" --into 5 --db "$T/r.db" >"$T/out" 2>"$T/err"
[ $? -eq 0 ] && ok || bad "rejudge exit: $(cat "$T/out" "$T/err")"
grep -q "^run 5: run 1 re-judged: 30 cases: 29 decided, 0 pending the judge" "$T/out" && ok ||
    bad "rejudge summary: $(cat "$T/out")"
grep -q "^run 5: its [0-9]* deterministic records equal run 1's" "$T/out" && ok ||
    bad "deterministic records: $(cat "$T/out")"
# Only the escalated cases were asked, once per order: 12 cases x 2.
[ "$(wc -l <"$T/fair.log")" -eq 24 ] && ok || bad "requests sent: $(wc -l <"$T/fair.log")"
# The checks are the run's, record for record.
[ "$(sqlite3 "$T/r.db" "SELECT count(*) FROM v_checks a JOIN v_checks b ON b.run = 5 AND b.case_id = a.case_id AND b.system = a.system AND b.kind = a.kind AND b.item = a.item AND b.record_json = a.record_json WHERE a.run = 1")" = \
    "$(sqlite3 "$T/r.db" "SELECT count(*) FROM checks WHERE run = 1")" ] && ok || bad "checks copied"
# The new run records where the outputs came from, not the staging folder.
[ "$(sqlite3 "$T/r.db" "SELECT systems_json FROM runs WHERE id = 5")" = \
    "$(sqlite3 "$T/r.db" "SELECT systems_json FROM runs WHERE id = 1")" ] && ok || bad "systems_json"

# 2. report --against: the twelve pending verdicts changed, the seventeen others did not.
$ARB report 5 --against 1 --db "$T/r.db" --format json -o "$T/a.json" || bad "report --against"
[ "$(val "$T/a.json" '$.against.changed')" = 12 ] && [ "$(val "$T/a.json" '$.against.unchanged')" = 18 ] &&
    [ "$(val "$T/a.json" '$.against.compared')" = 30 ] && ok ||
    bad "against counts: $(val "$T/a.json" '$.against')"
$ARB check '{"op":"json_schema","expected_file":"schemas/report.schema.json"}' \
    --observed-file "$T/a.json" | grep -q '"verdict":"pass"' && ok || bad "schemas/report.schema.json"
[ "$(val "$T/a.json" '$.against.changes[0].before.status')" = pending_judge ] &&
    [ "$(val "$T/a.json" '$.against.changes[0].after.status')" = decided ] && ok ||
    bad "a change: $(val "$T/a.json" '$.against.changes[0]')"
$ARB report 5 --against 1 --db "$T/r.db" >"$T/a.md" || bad "report md"
grep -q '^## Changes against run 1' "$T/a.md" && grep -q '^12 of 30 verdicts changed' "$T/a.md" &&
    grep -q '^| pending_judge -> ' "$T/a.md" && ok || bad "markdown: $(sed -n '/Changes/,+12p' "$T/a.md")"
$ARB report 5 --against 1 --db "$T/r.db" --format html -o "$T/a.html" || bad "report html"
grep -q 'id="changes-table"' "$T/a.html" && grep -q '<h2>Changes against run 1</h2>' "$T/a.html" && ok ||
    bad "html against section"
$ARB report 5 --against 5 --db "$T/r.db" --format json -o "$T/same.json"
[ "$(val "$T/same.json" '$.against.changed')" = 0 ] && ok || bad "a run against itself"
$ARB report 5 --against 99 --db "$T/r.db" >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q "no run 99" "$T/err" && ok || bad "against a missing run: $(cat "$T/err")"

# 3. A second judge that prefers whatever is shown first: judge against judge.
$ARB replay 5 --rejudge "$T/partial.json" --db "$T/r.db" >"$T/out" 2>&1 || bad "second rejudge: $(cat "$T/out")"
grep -q "^run 6: run 5 re-judged" "$T/out" && ok || bad "--into defaults to the next id: $(cat "$T/out")"
$ARB report 6 --against 5 --db "$T/r.db" --format json -o "$T/b.json"
n=$(val "$T/b.json" '$.against.changed')
[ "$(val "$T/b.json" '$.against.compared')" = 30 ] && [ -n "$n" ] && [ "$n" -le 12 ] && ok ||
    bad "judge vs judge: changed '$n'"
[ "$(sqlite3 "$T/r.db" "SELECT json_extract(judge_json, '\$.model') FROM runs WHERE id = 6")" = partial ] &&
    ok || bad "run 6's judge"

# 4. The re-judged run replays offline (its replies are cached), with both judges gone.
stop_all_sims
$ARB replay 6 --db "$T/r.db" >"$T/out" 2>&1 && grep -q "all identical" "$T/out" && ok ||
    bad "replay of a re-judged run: $(cat "$T/out")"
# Re-judging again with the same judge sends nothing: every reply is cached.
$ARB replay 1 --rejudge "$T/fair.json" --db "$T/r.db" >"$T/out" 2>&1 && ok || bad "cached rejudge: $(cat "$T/out")"

# 5. Errors: --into an existing run, --into without --rejudge, a judge without its key.
$ARB replay 1 --rejudge "$T/fair.json" --into 6 --db "$T/r.db" >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q -- "--into 6: run 6 already exists in .* and is not a re-judging of run 1 by this judge" "$T/err" &&
    ok || bad "existing --into: $(cat "$T/err")"
# --into a finished re-judging of the same run by the same judge continues it: nothing new.
$ARB replay 1 --rejudge "$T/fair.json" --into 5 --db "$T/r.db" >"$T/out" 2>"$T/err"
[ $? -eq 0 ] && grep -q "continuing run 5" "$T/err" && grep -q "^run 5: run 1 re-judged" "$T/out" &&
    ok || bad "continuing a re-judging: $(cat "$T/out" "$T/err")"
$ARB replay 1 --into 9 --db "$T/r.db" >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q "go with --rejudge" "$T/err" && ok || bad "--into alone: $(cat "$T/err")"
$ARB replay 1 --rejudge "$T/fair.json" --into x --db "$T/r.db" >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q "expected a run id" "$T/err" && ok || bad "--into x: $(cat "$T/err")"
REJUDGE_KEY= $ARB replay 1 --rejudge "$T/fair.json" --db "$T/r.db" >/dev/null 2>"$T/err"
[ $? -eq 4 ] && grep -q "REJUDGE_KEY is not set" "$T/err" && ok || bad "no key: $(cat "$T/err")"
[ "$(sqlite3 "$T/r.db" "SELECT count(*) FROM runs")" = 4 ] && ok || bad "a refused rejudge made a run"
$ARB replay 1 --rejudge "$T/fair.json" --into 99999999999 --db "$T/r.db" >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q "expected a run id (1 to 2147483647)" "$T/err" && ok || bad "--into too large: $(cat "$T/err")"

# 5b. A re-judging whose judge fails (every request 503) says how to continue it, and that
# command, with the judge back on the same address, finishes the same run from the stored
# inputs (not from the files, which may have changed since).
start_sim -n down --status-always 503
DOWN_PORT=$PORT
cat >"$T/down.json" <<JSON
{"provider": "openai", "base_url": "http://127.0.0.1:$DOWN_PORT/v1", "model": "down",
 "api_key_env": "REJUDGE_KEY", "concurrency": 4, "max_retries": 1}
JSON
mkdir -p "$T/ex" && cp -r examples/invoice/* "$T/ex/"
$ARB run "$T/ex/suite.json" --db "$T/s.db" --no-judge >/dev/null 2>&1 || bad "copy run"
$ARB replay 1 --rejudge "$T/down.json" --into 8 --db "$T/s.db" >"$T/out" 2>"$T/err"
[ $? -eq 4 ] && grep -q "continue with 'arbiter replay 1 --rejudge $T/down.json --into 8 --db $T/s.db'" "$T/err" &&
    ok || bad "judge down: $(cat "$T/out" "$T/err")"
stop_sim down
start_sim -n up -p "$DOWN_PORT"
# The files change meanwhile: a new trial line, a candidate file gone.
echo '{"id": "inv-001", "output": "{}", "trial": 9}' >>"$T/ex/runs/baseline.jsonl"
rm "$T/ex/runs/candidate/inv-002.json"
$ARB replay 1 --rejudge "$T/down.json" --into 8 --db "$T/s.db" >"$T/out" 2>"$T/err"
[ $? -eq 0 ] && grep -q "^run 8: run 1 re-judged: 30 cases: 29 decided, 0 pending the judge, 0 judge failed" "$T/out" &&
    ok || bad "continued re-judging: $(cat "$T/out" "$T/err")"
[ "$(sqlite3 "$T/s.db" "SELECT group_concat(n) FROM (SELECT count(*) AS n FROM outputs GROUP BY run)")" = "59,59" ] &&
    ok || bad "run 8's outputs are the stored ones: $(sqlite3 "$T/s.db" "SELECT run, count(*) FROM outputs GROUP BY run")"
[ "$(sqlite3 "$T/s.db" "SELECT group_concat(id) FROM runs")" = "1,8" ] && ok || bad "runs after the continuation"

# 6. A deterministic record of the stored run edited: the re-derived one differs, exit 1.
# (Check records share their texts, migration 10: the edited one gets a text of its own.)
sqlite3 "$T/r.db" "INSERT INTO check_texts (run, expected_at, observed_at, body) SELECT run, expected_at, observed_at, replace(body, '\"verdict\":\"pass\"', '\"verdict\":\"fail\"') FROM check_texts WHERE id = (SELECT record FROM checks WHERE id = (SELECT min(id) FROM checks WHERE run = 1 AND case_id = 'inv-002'));
                   UPDATE checks SET record = last_insert_rowid() WHERE id = (SELECT min(id) FROM checks WHERE run = 1 AND case_id = 'inv-002')"
$ARB replay 1 --rejudge "$T/fair.json" --db "$T/r.db" >"$T/out" 2>&1
[ $? -eq 1 ] && grep -q "case 'inv-002': check .* differs" "$T/out" && grep -q "deterministic records differ" "$T/out" &&
    ok || bad "edited record: $(cat "$T/out")"

# The key never reached the database.
! grep -q "sk-canary-rejudge-0042" "$T/r.db" "$T/r.db-wal" 2>/dev/null && ok || bad "API key in the database"

test_done
