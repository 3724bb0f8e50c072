#!/bin/sh
# Trials: several outputs per case and system ("trial": N), pass@k and pass^k.
# The small set in tests/data/trials has, for system a, 3 trials of c1 (2 pass every
# expectation) and of c2 (1 passes); b has one output per case.  By hand, over the two cases:
#   pass@1 = (2/3 + 1/3)/2 = 0.5     pass^1 = 0.5
#   pass@2 = (1 + 2/3)/2   = 0.8333  pass^2 = (1/3 + 0)/2 = 0.1667
#   pass@3 = (1 + 1)/2     = 1       pass^3 = 0
# usage: tests/cli/trials.sh path/to/arbiter
. "$(dirname "$0")/lib.sh"
ARB="$1"
# jq-free: SQLite's JSON functions read the report
val() { sqlite3 :memory: "SELECT json_extract(readfile('$1'), '$2')"; }

D=tests/data/trials
$ARB run $D/suite.json --db "$T/t.db" >/dev/null 2>&1 || bad "run"
[ "$(sqlite3 "$T/t.db" "SELECT count(*) FROM outputs WHERE system = 'a'")" = 6 ] && ok ||
    bad "a's six trials stored"
[ "$(sqlite3 "$T/t.db" "SELECT group_concat(trial || ':' || coalesce(passed, 'null'), ' ') FROM trials WHERE case_id = 'c1' AND system = 'a'")" = "0:1 1:0 2:1" ] &&
    ok || bad "c1 trials: $(sqlite3 "$T/t.db" "SELECT * FROM trials WHERE case_id = 'c1'")"
[ "$(sqlite3 "$T/t.db" "SELECT count(*) FROM trials WHERE system = 'b'")" = 0 ] && ok ||
    bad "one output per case makes no trial rows"
# The compared trial is the lowest-numbered one: its checks are c1 trial 0's.
[ "$(sqlite3 "$T/t.db" "SELECT count(*) FROM checks WHERE system = 'a' AND case_id = 'c1'")" = 2 ] &&
    [ "$(sqlite3 "$T/t.db" "SELECT group_concat(verdict) FROM checks WHERE system = 'a' AND case_id = 'c2'")" = "fail,fail" ] &&
    ok || bad "checks of the compared trial"

$ARB report 1 --db "$T/t.db" --format json -o "$T/r.json" || bad "report json"
check() { # path expected
    got=$(val "$T/r.json" "$1")
    awk -v g="$got" -v e="$2" 'BEGIN { exit !(g != "" && (g - e) < 1e-4 && (e - g) < 1e-4) }' &&
        ok || bad "$1 = '$got', expected $2"
}
check '$.trials.systems[0].k[0]."pass@k"' 0.5
check '$.trials.systems[0].k[0]."pass^k"' 0.5
check '$.trials.systems[0].k[1]."pass@k"' 0.833333
check '$.trials.systems[0].k[1]."pass^k"' 0.166667
check '$.trials.systems[0].k[2]."pass@k"' 1
check '$.trials.systems[0].k[2]."pass^k"' 0
check '$.trials.systems[0].cases' 2
check '$.trials.systems[0].trials' 6
[ "$(val "$T/r.json" '$.trials.systems[0].name')" = a ] && ok || bad "trials name"
[ "$(val "$T/r.json" '$.trials.systems[1]')" = "" ] && ok || bad "b has no trials"
# Intervals only with the statistical strategy; seeded, so two reports agree.
[ "$(val "$T/r.json" '$.trials.systems[0].k[0]."pass@k_ci"')" = "" ] && ok || bad "ci without statistics"
$ARB report 1 --db "$T/t.db" --format json --strategy statistical -o "$T/s1.json" &&
    $ARB report 1 --db "$T/t.db" --format json --strategy statistical -o "$T/s2.json" || bad "statistical"
$ARB check '{"op":"json_schema","expected_file":"schemas/report.schema.json"}' \
    --observed-file "$T/s1.json" | grep -q '"verdict":"pass"' && ok || bad "schemas/report.schema.json"
ci=$(val "$T/s1.json" '$.trials.systems[0].k[1]."pass@k_ci"')
[ -n "$ci" ] && [ "$ci" = "$(val "$T/s2.json" '$.trials.systems[0].k[1]."pass@k_ci"')" ] && ok ||
    bad "pass@k interval: '$ci'"
# pass@1 and pass^1 are the same quantity: one resampling of the cases gives them the same
# interval (20 cases of 3 trials passing 0 to 3 times, so the intervals are not [0, 1]).
mkdir -p "$T/many"
printf '{"name": "many", "seed": 1, "systems": {"a": "a.jsonl", "b": "b.jsonl"}, "expectations": [{"id": "ok", "text": "says ok", "check": {"op": "contains", "expected": "ok"}}], "cases": "cases.jsonl"}\n' >"$T/many/suite.json"
i=0
while [ $i -lt 20 ]; do
    printf '{"id":"m%d"}\n' $i >>"$T/many/cases.jsonl"
    printf '{"id":"m%d","output":"ok"}\n' $i >>"$T/many/b.jsonl"
    for t in 0 1 2; do
        if [ $t -lt $((i % 4)) ]; then o=ok; else o=no; fi
        printf '{"id":"m%d","output":"%s","trial":%d}\n' $i $o $t >>"$T/many/a.jsonl"
    done
    i=$((i + 1))
done
$ARB run "$T/many/suite.json" --db "$T/m.db" >/dev/null 2>&1 || bad "run of 20 cases"
$ARB report 1 --db "$T/m.db" --format json --strategy statistical -o "$T/m.json" || bad "report of 20 cases"
at=$(val "$T/m.json" '$.trials.systems[0].k[0]."pass@k_ci"')
hat=$(val "$T/m.json" '$.trials.systems[0].k[0]."pass^k_ci"')
[ -n "$at" ] && [ "$at" = "$hat" ] && [ "$at" != "[0.0,1.0]" ] && ok ||
    bad "pass@1 and pass^1 get different intervals: $at vs $hat"
$ARB report 1 --db "$T/t.db" >"$T/r.md" || bad "report md"
grep -q '^## Trials: pass@k and pass^k' "$T/r.md" && grep -q '^| a | 2 | 6 | 2 | 2 | 0.833 |' "$T/r.md" &&
    ok || bad "markdown trials: $(sed -n '/Trials/,+8p' "$T/r.md")"
$ARB report 1 --db "$T/t.db" --format html -o "$T/r.html" || bad "report html"
grep -q 'id="trials-chart"' "$T/r.html" && grep -q 'id="trials-table"' "$T/r.html" && ok ||
    bad "html trials section"

# Expectation pass rates per case (of the compared trial): c1 both pass 2/2; c2 a fails both.
check '$.case_pass_rates.cases' 2
check '$.case_pass_rates.items[1].systems.a.pass_rate' 0
check '$.case_pass_rates.items[1].systems.a.failed' 2
check '$.case_pass_rates.items[1].systems.b.pass_rate' 1
[ "$(val "$T/r.json" '$.case_pass_rates.items[1].case')" = c2 ] && ok || bad "per-case order"
# Up to 20 cases markdown lists them all, in case order.
grep -A5 '^## Expectations per case' "$T/r.md" | tail -2 | tr '\n' '~' |
    grep -q '^| c1 | 100% (2/2) | 100% (2/2) |~| c2 | 0% (0/2) | 100% (2/2) |~$' && ok ||
    bad "markdown per case: $(sed -n '/per case/,+8p' "$T/r.md")"

# show labels the trials and lists each one's verdict.
$ARB show 1 c1 --db "$T/t.db" >"$T/show.txt" || bad "show"
grep -q '^--- output of a, trial 2 (11 bytes)$' "$T/show.txt" && grep -q '^a trial 1: failed (1 passed, 1 failed, 0 unresolved)$' "$T/show.txt" &&
    ok || bad "show: $(cat "$T/show.txt")"

# export --jsonl streams the trials and verdicts after the check records.
$ARB export 1 --jsonl --db "$T/t.db" >"$T/all.jsonl" || bad "export"
[ "$(grep -c '"kind":"trial"' "$T/all.jsonl")" = 6 ] && [ "$(grep -c '"kind":"verdict"' "$T/all.jsonl")" = 2 ] &&
    grep -q '^{"case":"c1","system":"a","kind":"trial","trial":1,"passed":false,"records":\[' "$T/all.jsonl" &&
    ok || bad "export: $(cut -c1-120 "$T/all.jsonl")"

# Replay re-derives the trials; an edited trial is named.
$ARB replay 1 --db "$T/t.db" >"$T/out" 2>&1 && ok || bad "replay: $(cat "$T/out")"
sqlite3 "$T/t.db" "UPDATE trials SET passed = 0, n_fail = 1, n_pass = 1 WHERE case_id = 'c1' AND trial = 2"
$ARB replay 1 --db "$T/t.db" >"$T/out" 2>&1
[ $? -eq 1 ] && grep -q "case 'c1': system a trial '2' differs" "$T/out" && ok ||
    bad "edited trial: $(cat "$T/out")"

# Bad trial numbers are located; a repeated trial is a problem, not a second output.
mkdir -p "$T/bad" && cp $D/suite.json $D/cases.jsonl $D/b.jsonl "$T/bad/"
printf '{"id":"c1","output":"x","trial":-1}\n' >"$T/bad/a.jsonl"
$ARB run "$T/bad/suite.json" --db "$T/bad.db" >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q 'a.jsonl:1:[0-9]*: /trial: expected a non-negative integer' "$T/err" && ok ||
    bad "negative trial: $(cat "$T/err")"
printf '{"id":"c1","output":"x","trial":"2"}\n' >"$T/bad/a.jsonl"
$ARB run "$T/bad/suite.json" --db "$T/bad2.db" >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q '/trial: expected a non-negative integer' "$T/err" && ok || bad "string trial: $(cat "$T/err")"
printf '{"id":"c1","output":"total INV-1","trial":1}\n{"id":"c1","output":"y","trial":1}\n' >"$T/bad/a.jsonl"
$ARB run "$T/bad/suite.json" --db "$T/dup.db" >/dev/null 2>&1
[ "$(sqlite3 "$T/dup.db" "SELECT message FROM problems WHERE kind = 'duplicate_output'")" = "a second output for case 'c1', trial 1 was ignored" ] &&
    ok || bad "duplicate trial: $(sqlite3 "$T/dup.db" 'SELECT * FROM problems')"

# Free-text expectations are not part of a trial's verdict (the judge sees only the compared
# trial), a case with one output still counts (n = 1) once the system has trials, and a case
# with a trial in a check's grey band is left out whole, and counted.
mkdir -p "$T/mix"
cat >"$T/mix/suite.json" <<'JSON'
{"name": "mix", "systems": {"a": "a.jsonl", "b": "b.jsonl"},
 "expectations": [{"id": "polite", "text": "the answer is polite"},
                  {"id": "close", "text": "close to ok",
                   "check": {"op": "levenshtein", "expected": "ok", "threshold": 1, "fail_below": 0.4}}],
 "cases": "cases.jsonl"}
JSON
printf '{"id":"c1"}\n{"id":"c2"}\n{"id":"c3"}\n' >"$T/mix/cases.jsonl"
printf '%s\n' '{"id":"c1","output":"ok","trial":1}' '{"id":"c1","output":"no","trial":2}' \
    '{"id":"c2","output":"ok"}' '{"id":"c3","output":"ok","trial":1}' '{"id":"c3","output":"oK","trial":2}' \
    >"$T/mix/a.jsonl"
printf '%s\n' '{"id":"c1","output":"ok"}' '{"id":"c2","output":"ok"}' '{"id":"c3","output":"ok"}' >"$T/mix/b.jsonl"
$ARB run "$T/mix/suite.json" --db "$T/mix.db" >/dev/null 2>&1 || bad "mix run"
# c1: 1 of 2 passed; c2: one output, passed; c3: trial 2 'oK' scores 0.5, in the grey band.
[ "$(sqlite3 "$T/mix.db" "SELECT group_concat(case_id || ':' || trial || ':' || coalesce(passed, 'null'), ' ') FROM (SELECT * FROM trials WHERE system = 'a' ORDER BY case_id, trial)")" = \
    "c1:1:1 c1:2:0 c2:0:1 c3:1:1 c3:2:null" ] && ok ||
    bad "mix trials: $(sqlite3 "$T/mix.db" "SELECT case_id, trial, passed FROM trials WHERE system = 'a'")"
$ARB report 1 --db "$T/mix.db" --format json -o "$T/mix.json" || bad "mix report"
check2() { got=$(val "$T/mix.json" "$1"); [ "$got" = "$2" ] && ok || bad "mix $1 = '$got', expected $2"; }
check2 '$.trials.systems[0].cases' 2
check2 '$.trials.systems[0].unresolved_cases' 1
check2 '$.trials.systems[0].unresolved_trials' 1
check2 '$.trials.systems[0].k[0].cases' 2
check2 '$.trials.systems[0].k[0]."pass@k"' 0.75
check2 '$.trials.systems[0].k[1].cases' 1
check2 '$.trials.systems[0].k[1]."pass^k"' 0

# Systems keep the suite's order in the trials section, whatever their names' order.
mkdir -p "$T/order"
cp $D/a.jsonl $D/cases.jsonl "$T/order/"
sed 's/"systems": {"a": "a.jsonl", "b": "b.jsonl"}/"systems": {"zeta": "a.jsonl", "alpha": "a.jsonl"}/' \
    $D/suite.json >"$T/order/suite.json"
$ARB run "$T/order/suite.json" --db "$T/order.db" >/dev/null 2>&1 || bad "order run"
$ARB report 1 --db "$T/order.db" --format json -o "$T/order.json" || bad "order report"
[ "$(val "$T/order.json" '$.trials.systems[0].name')" = zeta ] && ok || bad "trials systems order"

# The example's trials bake-off: both systems get pass@k for k = 1..3.
$ARB run examples/invoice/trials.json --db "$T/ex.db" >/dev/null 2>&1 || bad "example trials run"
$ARB report latest --db "$T/ex.db" --format json -o "$T/ex.json" || bad "example report"
[ "$(val "$T/ex.json" '$.trials.systems[1].name')" = candidate ] && ok || bad "example: candidate"
[ "$(sqlite3 :memory: "SELECT json_array_length(readfile('$T/ex.json'), '\$.trials.systems[1].k')")" = 3 ] &&
    ok || bad "example: candidate's k entries"

# 30 cases: markdown lists the ones a system failed, worst first.
$ARB report latest --db "$T/ex.db" >"$T/ex.md" || bad "example md"
grep -q '^The 6 cases (of 30) where a system failed an expectation' "$T/ex.md" &&
    [ "$(grep -A4 '^| Case | baseline | candidate |' "$T/ex.md" | sed -n 3p)" = "| inv-005 | 0% (0/2) | 100% (2/2) |" ] &&
    [ "$(grep -A8 '^| Case | baseline | candidate |' "$T/ex.md" | sed -n 8p)" = "| inv-011 | 67% (2/3) | 100% (3/3) |" ] &&
    ok || bad "example per case: $(sed -n '/per case/,+12p' "$T/ex.md")"
[ "$(val "$T/ex.json" '$.case_pass_rates.listed')" = 30 ] && ok || bad "json lists every case"

test_done
