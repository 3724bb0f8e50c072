#!/bin/sh
# A newcomer's smoke run and a long run's controls (issue 14): run --limit and --cases,
# the progress line under a pseudo-terminal (and nothing extra without one), the judge's
# price in the report, and --max-cost: the run stops sending at the budget, resumes with a
# higher one, and ends with exactly the records of an unlimited run.
# usage: tests/cli/budget.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
ARB="$1"
SIM="$2"
q() { sqlite3 "$@" 2>&1; }

# ---- run --limit and --cases (no judge) ----
S=examples/invoice/suite.json
$ARB run $S --db "$T/l.db" --limit 7 >"$T/out" 2>"$T/err" && ok || bad "run --limit 7: $(cat "$T/err")"
[ "$(q "$T/l.db" "select count(*) from cases")" = 7 ] && ok || bad "--limit 7 stored $(q "$T/l.db" "select count(*) from cases") cases"
[ "$(q "$T/l.db" "select group_concat(case_id) from (select case_id from cases order by seq)")" = \
  "inv-001,inv-002,inv-003,inv-004,inv-005,inv-006,inv-007" ] && ok || bad "--limit kept other cases than the first 7"
[ "$(q "$T/l.db" "select count(*) from verdicts")" = 7 ] && ok || bad "--limit: not one verdict per kept case"
[ "$(q "$T/l.db" "select count(*) from problems")" = 0 ] && ok || bad "--limit: outputs of cases left out became problems"
grep -q "^run 1: 7 cases" "$T/out" && ok || bad "--limit summary: $(head -1 "$T/out")"
[ "$(q "$T/l.db" "select scope_json from runs")" = '{"limit":7}' ] && ok || bad "scope_json not recorded"

printf 'inv-012\n\ninv-003\r\ninv-020\n' >"$T/ids"
$ARB run $S --db "$T/c.db" --cases @"$T/ids" >/dev/null 2>"$T/err" && ok || bad "run --cases @FILE: $(cat "$T/err")"
[ "$(q "$T/c.db" "select group_concat(case_id) from (select case_id from cases order by seq)")" = "inv-003,inv-012,inv-020" ] \
    && ok || bad "--cases @FILE kept $(q "$T/c.db" "select group_concat(case_id) from cases")"
$ARB run $S --db "$T/c.db" --cases inv-020,inv-003,inv-012 --limit 2 >/dev/null 2>&1 && ok || bad "run --cases with --limit"
[ "$(q "$T/c.db" "select group_concat(case_id) from (select case_id from cases where run = 2 order by seq)")" = "inv-003,inv-012" ] \
    && ok || bad "--cases with --limit 2 must keep the first two in suite order"

# The same cases and records as a full run restricted to them.
$ARB run $S --db "$T/f.db" >/dev/null 2>&1
for t in v_checks v_verdicts blinding; do
    a=$(q "$T/c.db" "select * from $t where run = 1 order by 1,2,3,4,5" | sed 's/^[0-9]*|//' | md5sum)
    b=$(q "$T/f.db" "select * from $t where case_id in ('inv-003','inv-012','inv-020') order by 1,2,3,4,5" | sed 's/^[0-9]*|//' | md5sum)
    [ "$a" = "$b" ] && ok || bad "--cases: the $t of the kept cases differ from a full run's"
done

$ARB run $S --db "$T/e.db" --cases inv-001,nope >/dev/null 2>"$T/err"
[ $? = 2 ] && ok || bad "--cases with an unknown id must exit 2"
grep -q "case 'nope' is not in the suite" "$T/err" && ok || bad "unknown --cases id message: $(cat "$T/err")"
[ "$(q "$T/e.db" "select count(*) from runs")" = 0 ] && ok || bad "a refused --cases run left a record"
for bad_arg in "--limit 0" "--limit -3" "--limit x" "--cases ," "--cases a,,b" "--cases @$T/nofile"; do
    # shellcheck disable=SC2086
    $ARB run $S --db "$T/e.db" $bad_arg >/dev/null 2>&1
    [ $? = 2 ] && ok || bad "run $bad_arg must exit 2"
done
$ARB run --resume 1 --db "$T/l.db" --limit 3 >/dev/null 2>"$T/err"
[ $? = 2 ] && ok || bad "--resume with --limit must be refused"

# A resumed limited run keeps to its selection (its first pass interrupted: simulated by
# deleting what pass 3 wrote and two of its cases).
q "$T/l.db" "delete from verdicts; delete from checks; delete from cases where case_id in ('inv-006','inv-007'); update runs set status='running'" >/dev/null
$ARB run --resume 1 --db "$T/l.db" >/dev/null 2>"$T/err" && ok || bad "resume of a limited run: $(cat "$T/err")"
[ "$(q "$T/l.db" "select count(*) || ' ' || count(distinct case_id) from verdicts")" = "7 7" ] && ok || bad "resume did not keep to --limit 7"

# ---- the progress line ----
# Without a terminal nothing extra is printed: stderr is the same with --no-progress.
$ARB run $S --db "$T/p1.db" >"$T/o1" 2>"$T/e1"
$ARB run $S --db "$T/p2.db" --no-progress >"$T/o2" 2>"$T/e2"
cmp -s "$T/e1" "$T/e2" && ok || bad "without a TTY stderr differs from --no-progress"
[ ! -s "$T/e1" ] && ok || bad "a run without a TTY printed to stderr: $(cat "$T/e1")"
# Under a pseudo-terminal (util-linux script): the line is drawn in place, with the total.
script -qec "$ARB run $S --db $T/p3.db" /dev/null >"$T/tty" 2>&1 </dev/null
tr '\r' '\n' <"$T/tty" | grep -q '^arbiter run: 30/30 cases (100%), [0-9]*/s' && ok \
    || bad "no progress line under a pty: $(head -c 400 "$T/tty" | od -c | head -5)"
grep -q "$(printf '\033')\[K" "$T/tty" && ok || bad "the progress line is not rewritten in place"
grep -q '^run 1: 30 cases' "$T/tty" && ok || bad "the summary is missing under a pty"
script -qec "$ARB run $S --db $T/p4.db --no-progress" /dev/null >"$T/tty2" 2>&1 </dev/null
grep -q 'cases (' "$T/tty2" && bad "--no-progress still drew the line" || ok
$ARB run $S --db "$T/p5.db" --progress >/dev/null 2>"$T/e5"
grep -q '30/30 cases' "$T/e5" && ok || bad "--progress without a TTY drew nothing"

# ---- the judge's price and --max-cost ----
start_sim
mkdir -p "$T/s"
awk -v n=60 -v dir="$T/s" 'BEGIN {
    for (i = 0; i < n; i++) {
        id = sprintf("k%03d", i)
        printf "{\"id\":\"%s\",\"expected\":\"answer %d\",\"expectations\":[{\"id\":\"polite\",\"text\":\"The answer is polite\"}]}\n", id, i >(dir "/cases.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"answer %d from alpha\"}\n", id, i >(dir "/alpha.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"Answer %d, beta says hi\"}\n", id, i >(dir "/beta.jsonl")
    }
}'
suite() { # PRICE_MEMBER
    cat <<JSON
{"name": "cost test", "seed": 11, "task": "Answer the question.",
 "systems": {"alpha": "alpha.jsonl", "beta": "beta.jsonl"},
 "rubric": {"content": [{"name": "correctness", "check": {"op": "icontains"}}], "structure": []},
 "judge": {"provider": "openai", "base_url": "http://127.0.0.1:$PORT/v1", "model": "sim-1",
           "api_key_env": "ARB_BUDGET_KEY", "concurrency": 4$1},
 "cases": "cases.jsonl"}
JSON
}
suite ', "price": {"input": 100, "output": 200, "cached_input": 50}' >"$T/s/suite.json"
suite '' >"$T/s/noprice.json"
export ARB_BUDGET_KEY=budget-canary
$ARB run "$T/s/suite.json" --db "$T/full.db" --json >"$T/full.out" 2>"$T/err" && ok || bad "priced run: $(cat "$T/err")"
# The cost, computed independently from the stored tokens at the price (no cached tokens here).
want=$(q "$T/full.db" "select printf('%.6f', sum(c.prompt_tokens) * 100 / 1e6 + sum(c.completion_tokens) * 200 / 1e6)
                      from judgments j join judge_calls c on c.key = j.key where j.cached = 0")
$ARB report latest --db "$T/full.db" --format json >"$T/r.json"
got=$($ARB check '{"op":"json_valid","extract":"/judge_cost/total"}' --observed-file "$T/r.json" | sed 's/.*"observed":"\([^"]*\)".*/\1/')
[ "$(printf '%.6f' "$got")" = "$want" ] && ok || bad "report total cost $got, want $want"
grep -q "\"judge_cost_usd\":$got" "$T/full.out" && ok || bad "run --json summary lacks judge_cost_usd $got: $(cat "$T/full.out")"
n_cases=$($ARB check '{"op":"json_valid","extract":"/judge_cost/judged_cases"}' --observed-file "$T/r.json" | sed 's/.*"observed":"\([^"]*\)".*/\1/')
[ "$n_cases" = 60 ] && ok || bad "judged_cases $n_cases, want 60"
k7=$(q "$T/full.db" "select printf('%.6f', sum(c.prompt_tokens) * 100 / 1e6 + sum(c.completion_tokens) * 200 / 1e6)
                    from judgments j join judge_calls c on c.key = j.key where j.case_id = 'k007'")
got7=$($ARB check '{"op":"json_valid","extract":"/judge_cost/cases/7/cost"}' --observed-file "$T/r.json" | sed 's/.*"observed":"\([^"]*\)".*/\1/')
[ "$(printf '%.6f' "$got7")" = "$k7" ] && ok || bad "per-case cost of k007 $got7, want $k7"
$ARB report latest --db "$T/full.db" | grep -q '^Judge cost: \$[0-9.]* for 120 requests' && ok || bad "markdown report lacks the judge cost"
$ARB check '{"op":"json_schema","expected_file":"schemas/report.schema.json"}' --observed-file "$T/r.json" | grep -q '"verdict":"pass"' \
    && ok || bad "report with judge_cost does not conform to schemas/report.schema.json"
# A second run answered from the cache pays nothing.
$ARB run "$T/s/suite.json" --db "$T/full.db" --json >"$T/again.out" 2>/dev/null
grep -q '"judge_cost_usd":0[,}]' "$T/again.out" && ok || bad "a run answered from the cache cost: $(cat "$T/again.out")"

# Capped: stop sending at the budget, resume with a higher one, finish unlimited.
: >"$T/sim.log"
$ARB run "$T/s/suite.json" --db "$T/cap.db" --max-cost 1.5 --json >"$T/c1" 2>"$T/c1.err"
[ $? = 0 ] && ok || bad "capped run exit: $(cat "$T/c1.err")"
grep -q 'reached --max-cost 1.5' "$T/c1.err" && ok || bad "capped run did not say it stopped: $(cat "$T/c1.err")"
sent1=$(wc -l <"$T/sim.log")
spent1=$(sed 's/.*"judge_cost_usd":\([0-9.e-]*\).*/\1/' "$T/c1")
awk -v s="$spent1" 'BEGIN { exit !(s > 0 && s <= 1.5) }' && ok || bad "capped run spent $spent1 (cap 1.5)"
[ "$sent1" -gt 0 ] && [ "$sent1" -lt 120 ] && ok || bad "capped run sent $sent1 requests"
pending=$(q "$T/cap.db" "select count(*) from verdicts where status = 'pending_judge'")
[ "$pending" -gt 0 ] && ok || bad "capped run left no case pending"
[ "$(q "$T/cap.db" "select count(*) from verdicts where status = 'judge_failed'")" = 0 ] && ok || bad "a held case became judge_failed"
$ARB run --resume latest --db "$T/cap.db" --max-cost 4 --json >"$T/c2" 2>/dev/null && ok || bad "resume with a higher cap"
spent2=$(sed 's/.*"judge_cost_usd":\([0-9.e-]*\).*/\1/' "$T/c2")
awk -v a="$spent1" -v b="$spent2" 'BEGIN { exit !(b > a && b <= 4) }' && ok || bad "second cap: spent $spent1 then $spent2 (cap 4)"
$ARB run --resume latest --db "$T/cap.db" --json >"$T/c3" 2>/dev/null && ok || bad "resume without a cap"
grep -q '"pending_judge":0' "$T/c3" && ok || bad "cases still pending after the uncapped resume"
[ "$(wc -l <"$T/sim.log")" = 120 ] && ok || bad "capped and resumed runs sent $(wc -l <"$T/sim.log") requests, want 120 (none twice)"
for db in full cap; do
    $ARB export 1 --jsonl --db "$T/$db.db" | sort >"$T/$db.jsonl"
    q "$T/$db.db" "select case_id, system_a, system_b, ord, sample, attempt, key, valid, cached, answer_json, error
                   from judgments where run = 1 order by 1, 2, 3, 4, 5, 6" >"$T/$db.judgments"
done
cmp -s "$T/full.jsonl" "$T/cap.jsonl" && ok || bad "capped+resumed records differ from the unlimited run's"
cmp -s "$T/full.judgments" "$T/cap.judgments" && ok || bad "capped+resumed judgments differ from the unlimited run's"
total_full=$($ARB report 1 --db "$T/full.db" | grep '^Judge cost')
total_cap=$($ARB report 1 --db "$T/cap.db" | grep '^Judge cost')
[ "$total_full" = "$total_cap" ] && ok || bad "the capped run's total cost differs: $total_cap vs $total_full"

# A provider that reports no usage: each reply is charged its estimate, and that charge is
# stored (judge_calls.charged_usd), so a resumed run counts it and does not spend the cap
# again (it counted such calls 0: three executions with --max-cost 1 spent about $3).
start_sim -n nousage --usage off
suite ', "price": {"input": 100, "output": 200}' >"$T/s/nousage.json"
for i in 1 2 3; do
    if [ $i = 1 ]; then set -- "$T/s/nousage.json"; else set -- --resume latest; fi
    $ARB run "$@" --db "$T/nu.db" --max-cost 1 --json >"$T/nu$i" 2>"$T/nu$i.err"
    [ $? = 0 ] && ok || bad "no-usage run $i exit: $(cat "$T/nu$i.err")"
    eval "sent_nu$i=\$(wc -l <\"\$T/nousage.log\")"
done
# shellcheck disable=SC2154
[ "$sent_nu1" -gt 0 ] && [ "$sent_nu1" -lt 120 ] && ok || bad "no-usage capped run sent $sent_nu1 requests"
# shellcheck disable=SC2154
[ "$sent_nu3" = "$sent_nu1" ] && ok ||
    bad "resumes with the same cap sent more: $sent_nu1, $sent_nu2, then $sent_nu3 requests in all"
[ "$(q "$T/nu.db" "select count(*) from judge_calls where prompt_tokens = 0 and charged_usd > 0")" = "$sent_nu1" ] &&
    ok || bad "replies without usage not charged: $(q "$T/nu.db" "select prompt_tokens, charged_usd from judge_calls limit 3")"
spent_nu=$(sed 's/.*"judge_cost_usd":\([0-9.e-]*\).*/\1/' "$T/nu3")
awk -v s="$spent_nu" 'BEGIN { exit !(s > 0.5 && s <= 1) }' && ok || bad "three executions with --max-cost 1 spent $spent_nu"
$ARB report latest --db "$T/nu.db" --format json >"$T/nu.json"
got=$($ARB check '{"op":"json_valid","extract":"/judge_cost/total"}' --observed-file "$T/nu.json" | sed 's/.*"observed":"\([^"]*\)".*/\1/')
want=$(q "$T/nu.db" "select printf('%.6f', sum(charged_usd)) from judge_calls")
[ "$(printf '%.6f' "$got")" = "$want" ] && ok || bad "report cost of replies without usage $got, want their estimates $want"
stop_sim nousage

# Refusals: a cap without a price, a price for a command judge, a bad value.
$ARB run "$T/s/noprice.json" --db "$T/n.db" --max-cost 1 >/dev/null 2>"$T/err"
[ $? = 2 ] && grep -q "needs the judge's price" "$T/err" && ok || bad "--max-cost without a price: $(cat "$T/err")"
$ARB run "$T/s/suite.json" --db "$T/n.db" --max-cost -1 >/dev/null 2>&1
[ $? = 2 ] && ok || bad "--max-cost -1 must exit 2"
printf '{"provider": "command", "command": ["true"], "price": {"input": 1, "output": 1}}' >"$T/cmd.json"
$ARB run "$T/s/suite.json" --db "$T/n.db" --judge "$T/cmd.json" >/dev/null 2>"$T/err"
[ $? = 2 ] && grep -q "a command judge reports no tokens" "$T/err" && ok || bad "price on a command judge: $(cat "$T/err")"
printf '{"provider": "openai", "model": "m", "api_key_env": "K", "price": {"input": 1}}' >"$T/p.json"
$ARB run "$T/s/suite.json" --db "$T/n.db" --judge "$T/p.json" >/dev/null 2>"$T/err"
[ $? = 2 ] && grep -q "price: missing required key 'output'" "$T/err" && ok || bad "price without output: $(cat "$T/err")"
# (That the key never reaches a database, even from a judge that echoes it: tests/cli/canary.sh.)

test_done
