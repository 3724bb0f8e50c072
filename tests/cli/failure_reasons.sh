#!/bin/sh
# Failures that explain themselves: why the judge failed, as the distinct reasons of a run's
# failed judgments with their counts, in the summary of `arbiter run` (text and --json) and
# of `arbiter replay --rejudge`, in the report (JSON, markdown, HTML, scoped by --cases) and
# in `arbiter show`.  A judgment's reason is the error of the last attempt of its slot: a
# schema retry that then validated, and a slot asked again with success, are no failure.
# usage: tests/cli/failure_reasons.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
LC_ALL=C
export LC_ALL
ARB="$1"
SIM="$2"
q() { sqlite3 "$1" "$2"; }
# json FILE PATH: one value of a JSON file (sqlite's json_extract; arrays and objects as JSON).
json() { sqlite3 :memory: "SELECT json_extract(readfile('$1'), '$2')"; }
export ARB_REASONS_KEY=reasons-key

# A suite of 8 cases, one free-text expectation each for the judge.  alpha's output carries a
# word that tells the command judge below how to fail; beta's is plain.
mkdir -p "$T/s"
words="QUIT QUIT BADJSON RETRYOK UNIQ4 UNIQ5 UNIQ6 UNIQ7"
i=0
for w in $words; do
    printf '{"id":"c%d","expectations":[{"id":"polite","text":"The answer is polite"}]}\n' $i >>"$T/s/cases.jsonl"
    printf '{"id":"c%d","output":"%s answer %d"}\n' $i "$w" $i >>"$T/s/a.jsonl"
    printf '{"id":"c%d","output":"It is %d."}\n' $i $i >>"$T/s/b.jsonl"
    i=$((i + 1))
done
cat >"$T/s/suite.json" <<'JSON'
{"name": "reasons", "seed": 5, "task": "Answer.", "systems": {"alpha": "a.jsonl", "beta": "b.jsonl"},
 "rubric": {"content": [], "structure": []}, "cases": "cases.jsonl"}
JSON

# The command judge: QUIT quits with the same words every time; BADJSON never follows the
# schema; RETRYOK follows it only when asked again; UNIQn quits with words of its own.
GOOD='{"reasoning": "fine", "criteria": {}, "expectations": {"polite": {"A": true, "B": false}}, "winner": "A"}'
cat >"$T/judge.sh" <<SH
#!/bin/sh
in=\$(cat)
case "\$in" in
*QUIT*) echo "judge: quota exhausted" >&2; exit 3 ;;
*BADJSON*) echo '{"reasoning": "no"}' ;;
*RETRYOK*"did not follow the schema"*) echo '$GOOD' ;;
*RETRYOK*) echo '{"reasoning": "first try"}' ;;
*UNIQ*) w=\$(printf '%s' "\$in" | grep -o 'UNIQ[0-9]' | head -1); echo "judge: no \$w today" >&2; exit 3 ;;
*) echo '$GOOD' ;;
esac
SH
chmod +x "$T/judge.sh"
printf '{"provider": "command", "command": ["%s"], "concurrency": 2}' "$T/judge.sh" >"$T/cmd.json"

# The reason of each failed slot, straight from the table (not through Arbiter): its last
# attempt's error, for the slots with no valid attempt.
reason_of() { # DB CASE ORDER
    q "$1" "SELECT error FROM judgments WHERE run = 1 AND case_id = '$2' AND ord = '$3' AND valid = 0
            AND sample = 0 ORDER BY attempt DESC LIMIT 1"
}

# 1. A run whose judge fails in six ways.
$ARB run "$T/s/suite.json" --judge "$T/cmd.json" --db "$T/a.db" --json >"$T/out.json" 2>"$T/err"
rc=$?
# Judge requests without a reply make the exit 4 (continue with --resume).
[ $rc = 4 ] && ok || bad "mixed failures: exit $rc, want 4: $(cat "$T/err")"
[ "$(json "$T/out.json" '$.judge_failed')" = 7 ] && [ "$(json "$T/out.json" '$.decided')" = 1 ] &&
    [ "$(json "$T/out.json" '$.judge_refused')" = 0 ] && ok || bad "counts: $(cat "$T/out.json")"
RQ=$(reason_of "$T/a.db" c0 AB)
RS=$(reason_of "$T/a.db" c2 AB)
R4=$(reason_of "$T/a.db" c4 AB)
R7=$(reason_of "$T/a.db" c7 BA)
case $RQ in *"quota exhausted"*) ok ;; *) bad "the stored reason of a judge that quits: '$RQ'" ;; esac
[ -n "$RS" ] && [ "$RS" != "$RQ" ] && [ "$R4" != "$RQ" ] && [ "$R4" != "$R7" ] && ok ||
    bad "the test needs distinct reasons: '$RQ' '$RS' '$R4' '$R7'"
# The schema retry that validated left an invalid attempt 0 behind: it is no failure.
[ "$(q "$T/a.db" "SELECT count(*) FROM judgments WHERE case_id = 'c3' AND attempt = 0 AND valid = 0")" = 2 ] &&
    [ "$(q "$T/a.db" "SELECT status FROM verdicts WHERE case_id = 'c3'")" = decided ] && ok ||
    bad "c3's first replies should be invalid and its retries valid: $(q "$T/a.db" "SELECT attempt, valid FROM judgments WHERE case_id = 'c3'")"

# --json: every reason, most frequent first (then by the case it first failed), with its
# judgments, cases and first case ids.
[ "$(json "$T/out.json" '$.judge_failures[0].count')" = 4 ] &&
    [ "$(json "$T/out.json" '$.judge_failures[0].cases')" = 2 ] &&
    [ "$(json "$T/out.json" '$.judge_failures[0].case_ids')" = '["c0","c1"]' ] &&
    [ "$(json "$T/out.json" '$.judge_failures[0].reason')" = "$RQ" ] && ok ||
    bad "--json: the most frequent reason: $(json "$T/out.json" '$.judge_failures[0]')"
[ "$(json "$T/out.json" '$.judge_failures[1].reason')" = "$RS" ] &&
    [ "$(json "$T/out.json" '$.judge_failures[1].count')" = 2 ] &&
    [ "$(json "$T/out.json" '$.judge_failures[1].case_ids')" = '["c2"]' ] &&
    [ "$(json "$T/out.json" '$.judge_failures[2].reason')" = "$R4" ] &&
    [ "$(json "$T/out.json" '$.judge_failures[5].reason')" = "$R7" ] &&
    [ "$(json "$T/out.json" '$.judge_failures[5].count')" = 2 ] && ok ||
    bad "--json: the other reasons: $(json "$T/out.json" '$.judge_failures')"
[ "$(sqlite3 :memory: "SELECT json_array_length(readfile('$T/out.json'), '\$.judge_failures')")" = 6 ] &&
    [ "$(sqlite3 :memory: "SELECT sum(json_extract(value, '\$.count')) FROM json_each(readfile('$T/out.json'), '\$.judge_failures')")" = 14 ] &&
    ok || bad "--json: 6 reasons for 14 failed judgments (7 cases, 2 orders): $(json "$T/out.json" '$.judge_failures')"
[ "$(json "$T/out.json" '$.judge_failures_more')" = "" ] && ok || bad "--json: nothing is left off"

# The text summary: after the counts, five reasons at most and where the rest are.
$ARB run --resume 1 --db "$T/a.db" >"$T/out" 2>"$T/err"
sed -n 1p "$T/out" | grep -q "^run 1: 8 cases: 1 decided, 0 pending the judge, 7 judge failed, 0 judge refused, 0 missing an output$" &&
    ok || bad "summary counts: $(cat "$T/out")"
sed -n 2p "$T/out" | grep -q "^  why the judge failed, most frequent first:$" && ok || bad "summary: $(cat "$T/out")"
line=$(sed -n 3p "$T/out")
case $line in "    4 judgments in 2 cases (c0, c1): $(printf '%s' "$RQ" | cut -c1-100)"*) ok ;;
*) bad "summary, first reason: '$line'" ;; esac
line=$(sed -n 4p "$T/out")
case $line in "    2 judgments in 1 case (c2): $(printf '%s' "$RS" | cut -c1-100)"*) ok ;;
*) bad "summary, second reason: '$line'" ;; esac
[ "$(grep -c '^    [0-9]* judgments* in' "$T/out")" = 5 ] && ok || bad "summary: five reasons: $(cat "$T/out")"
grep -q "^    and 1 more reason (arbiter report 1 --db $T/a.db)$" "$T/out" && ok || bad "summary: the rest: $(cat "$T/out")"
grep -q "UNIQ7" "$T/out" && bad "summary: the sixth reason is printed: $(cat "$T/out")" || ok
awk 'length > 200 { exit 1 }' "$T/out" && ok || bad "summary: a reason longer than a line: $(cat "$T/out")"

# 2. The report lists every reason, and a selection of cases only theirs.
$ARB report 1 --db "$T/a.db" --format json >"$T/r.json" 2>"$T/err" || bad "report: $(cat "$T/err")"
[ "$(json "$T/r.json" '$.judge_health.judge_failures[0].reason')" = "$RQ" ] &&
    [ "$(json "$T/r.json" '$.judge_health.judge_failures[0].count')" = 4 ] &&
    [ "$(json "$T/r.json" '$.judge_health.judge_failures[5].reason')" = "$R7" ] &&
    [ "$(json "$T/r.json" '$.judge_health.judge_refused')" = 0 ] &&
    [ "$(json "$T/r.json" '$.judge_refused')" = 0 ] && ok ||
    bad "report JSON: $(json "$T/r.json" '$.judge_health')"
$ARB check '{"op":"json_schema","expected_file":"schemas/report.schema.json"}' \
    --observed-file "$T/r.json" | grep -q '"verdict":"pass"' && ok || bad "the report does not follow schemas/report.schema.json"
$ARB report 1 --db "$T/a.db" --format json --cases c1,c2,c3 >"$T/r.json" 2>"$T/err" || bad "report --cases: $(cat "$T/err")"
[ "$(json "$T/r.json" '$.judge_health.judge_failures')" = \
    "$(sqlite3 :memory: "SELECT json_array(json_object('reason', '$(printf '%s' "$RQ" | sed "s/'/''/g")', 'count', 2, 'cases', 1, 'case_ids', json_array('c1')), json_object('reason', '$(printf '%s' "$RS" | sed "s/'/''/g")', 'count', 2, 'cases', 1, 'case_ids', json_array('c2')))")" ] &&
    ok || bad "report --cases c1,c2,c3: $(json "$T/r.json" '$.judge_health.judge_failures')"
$ARB report 1 --db "$T/a.db" --format md >"$T/r.md" 2>"$T/err" || bad "report md: $(cat "$T/err")"
grep -q "^### Judge failures$" "$T/r.md" && grep -q "^| Reason | Judgments | Cases (first few) |$" "$T/r.md" &&
    ok || bad "markdown: no table of failures: $(cat "$T/r.md")"
grep -qF "| $(printf '%s' "$RQ" | sed 's/|/\\|/g') | 4 | 2: c0, c1 |" "$T/r.md" &&
    grep -qF "| 2 | 1: c7 |" "$T/r.md" && ok || bad "markdown rows: $(grep -A9 'Judge failures' "$T/r.md")"
grep -qF "Most frequent reason the judge failed: $RQ (4 judgments in 2 cases)" "$T/r.md" && ok ||
    bad "markdown: the most frequent reason under the counts: $(head -12 "$T/r.md")"
$ARB report 1 --db "$T/a.db" --format html >"$T/r.html" 2>"$T/err" || bad "report html: $(cat "$T/err")"
grep -q '<table id="judge-failures">' "$T/r.html" && grep -qF "quota exhausted" "$T/r.html" &&
    grep -qF '<a href="#case-c0">c0</a>' "$T/r.html" && grep -q "Why the judge failed" "$T/r.html" &&
    ok || bad "html: no table of failures"

# 3. show: under the pair's verdict, each failed judgment with its order, sample, attempt and
#    reason; none for a case whose retry validated.
$ARB show 1 c2 --db "$T/a.db" >"$T/out" 2>"$T/err" || bad "show: $(cat "$T/err")"
grep -qF "    judge failed, order AB, sample 1, attempt 2: $RS" "$T/out" &&
    grep -qF "    judge failed, order BA, sample 1, attempt 2: $(reason_of "$T/a.db" c2 BA)" "$T/out" &&
    ok || bad "show c2: $(cat "$T/out")"
grep -A1 "^--- verdict:" "$T/out" | grep -q "judge failed, order AB" && ok || bad "show: the reasons are not under the verdict: $(cat "$T/out")"
$ARB show 1 c0 --db "$T/a.db" >"$T/out" 2>"$T/err"
[ "$(grep -c "^    judge failed, order [AB][AB], sample 1, attempt 1: .*quota exhausted" "$T/out")" = 2 ] && ok ||
    bad "show c0: $(cat "$T/out")"
$ARB show 1 c3 --db "$T/a.db" >"$T/out" 2>"$T/err"
grep -q "judge failed" "$T/out" && bad "show c3: a retry that validated is shown failed: $(cat "$T/out")" || ok
$ARB show 1 c2 --db "$T/a.db" --json >"$T/s.json" 2>"$T/err"
[ "$(json "$T/s.json" '$.judge_failures[0].order')" = AB ] && [ "$(json "$T/s.json" '$.judge_failures[0].attempt')" = 1 ] &&
    [ "$(json "$T/s.json" '$.judge_failures[0].reason')" = "$RS" ] &&
    [ "$(json "$T/s.json" '$.judge_failures[1].order')" = BA ] && ok || bad "show --json: $(json "$T/s.json" '$.judge_failures')"
$ARB show 1 c3 --db "$T/a.db" --json >"$T/s.json" 2>"$T/err"
[ "$(json "$T/s.json" '$.judge_failures')" = '[]' ] && ok || bad "show c3 --json: $(json "$T/s.json" '$.judge_failures')"

# 4. replay --rejudge prints the reasons of the new run.
$ARB replay 1 --rejudge "$T/cmd.json" --into 2 --db "$T/a.db" >"$T/out" 2>"$T/err"
grep -q "^run 2: run 1 re-judged: 8 cases: 1 decided, 0 pending the judge, 7 judge failed, 0 judge refused" "$T/out" &&
    grep -q "^    4 judgments in 2 cases (c0, c1): .*quota exhausted" "$T/out" &&
    grep -q "^    and 1 more reason (arbiter report 2 --db $T/a.db)$" "$T/out" && ok ||
    bad "replay --rejudge: $(cat "$T/out" "$T/err")"

# 5. Asked again of a judge that answers: no reason is left, though the invalid second
#    attempts of c2 stay in the table (--retry-failed asks attempt 0 again).
printf '#!/bin/sh\ncat >/dev/null\necho '"'%s'"'\n' "$GOOD" >"$T/judge.sh"
$ARB run --resume 1 --retry-failed --db "$T/a.db" --json >"$T/out.json" 2>"$T/err"
[ "$(json "$T/out.json" '$.judge_failed')" = 0 ] && [ "$(json "$T/out.json" '$.judge_failures')" = '[]' ] && ok ||
    bad "after --retry-failed: $(cat "$T/out.json" "$T/err")"
[ "$(q "$T/a.db" "SELECT count(*) FROM judgments WHERE run = 1 AND case_id = 'c2' AND attempt = 1 AND valid = 0")" = 2 ] &&
    ok || bad "the test needs c2's stale second attempts: $(q "$T/a.db" "SELECT attempt, valid FROM judgments WHERE run = 1 AND case_id = 'c2'")"
$ARB report 1 --db "$T/a.db" --format json >"$T/r.json" 2>"$T/err"
[ "$(json "$T/r.json" '$.judge_health.judge_failures')" = '[]' ] && ok || bad "report after the retry: $(json "$T/r.json" '$.judge_health.judge_failures')"
$ARB show 1 c2 --db "$T/a.db" >"$T/out" 2>"$T/err"
grep -q "judge failed" "$T/out" && bad "show c2 after the retry: $(cat "$T/out")" || ok

# 6. An HTTP judge that answers 500 to everything: one reason, every judgment, exit 4.
start_sim --status-always 500
printf '{"provider": "openai", "base_url": "http://127.0.0.1:%s/v1", "model": "sim", "api_key_env": "ARB_REASONS_KEY", "max_retries": 1, "timeout_s": 5}' \
    "$PORT" >"$T/http.json"
$ARB run "$T/s/suite.json" --judge "$T/http.json" --db "$T/h.db" --limit 3 >"$T/out" 2>"$T/err"
rc=$?
R500=$(q "$T/h.db" "SELECT DISTINCT error FROM judgments")
[ $rc = 4 ] && [ "$(q "$T/h.db" "SELECT count(DISTINCT error) FROM judgments")" = 1 ] && ok ||
    bad "HTTP 500: exit $rc, reasons: $(q "$T/h.db" "SELECT DISTINCT error FROM judgments")"
case $R500 in *500*) ok ;; *) bad "the reason does not name the status: '$R500'" ;; esac
grep -qF "    6 judgments in 3 cases (c0, c1, c2): $(printf '%s' "$R500" | cut -c1-100)" "$T/out" && ok ||
    bad "HTTP 500 summary: $(cat "$T/out")"
$ARB run "$T/s/suite.json" --judge "$T/http.json" --db "$T/h.db" --limit 6 --json >"$T/out.json" 2>"$T/err"
[ "$(json "$T/out.json" '$.judge_failures[0].count')" = 12 ] && [ "$(json "$T/out.json" '$.judge_failures[0].cases')" = 6 ] &&
    [ "$(json "$T/out.json" '$.judge_failures[0].case_ids')" = '["c0","c1","c2","c3","c4"]' ] &&
    [ "$(json "$T/out.json" '$.judge_failures[0].reason')" = "$R500" ] && ok ||
    bad "HTTP 500 --json: $(cat "$T/out.json")"
stop_sim

test_done
