#!/bin/sh
# One case, whole (issue 18): `arbiter show RUN CASE`, text and --json, gives what the case
# asked (the suite's task, the case's prompt), and for each order the judge was asked (and
# each sample) who was shown first, that order's winner (a system, and the judge's own A/B),
# its reasoning, its scores and expectations per output in system names, or why it failed;
# then whether the orders disagreed, the sample agreement and the verdict.  A case whose
# orders disagree names both winners and both reasonings, not "winner TIE" with the first
# order's reasoning alone.
# usage: tests/cli/show_case.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
LC_ALL=C
export LC_ALL
ARB="$1"
SIM="$2"
q() { sqlite3 "$1" "$2"; }
# json FILE PATH: one value of a JSON file (sqlite's json_extract; arrays and objects as JSON).
json() { sqlite3 :memory: "SELECT json_extract(readfile('$1'), '$2')"; }
# answer DB CASE ORD PATH: one value of the judge's stored answer in that order (as it said
# it: its A is the system it was shown first).
answer() {
    q "$1" "SELECT json_extract(answer_json, '$4') FROM judgments WHERE case_id = '$2' AND ord = '$3'
            AND sample = 0 ORDER BY attempt DESC LIMIT 1"
}
export ARB_SHOW_KEY=show-key

# Three cases with a prompt and a free-text expectation, rubric criteria only the judge scores.
mkdir -p "$T/s"
cat >"$T/s/cases.jsonl" <<'EOF'
{"id":"k1","prompt":"What is the capital of France? (zz-prompt-k1)","expectations":[{"id":"polite","text":"The answer is polite"}]}
{"id":"k2","prompt":"Say hello. (zz-prompt-k2)","expectations":[{"id":"polite","text":"The answer is polite"}]}
{"id":"k3","prompt":"Count to three. (zz-prompt-k3)","expectations":[{"id":"polite","text":"The answer is polite"}]}
EOF
cat >"$T/s/alpha.jsonl" <<'EOF'
{"id":"k1","output":"ALPHATXT Paris."}
{"id":"k2","output":"ALPHATXT Hello there."}
{"id":"k3","output":"ALPHATXT one two three"}
EOF
cat >"$T/s/beta.jsonl" <<'EOF'
{"id":"k1","output":"BETATXT The capital is Paris."}
{"id":"k2","output":"BETATXT hi"}
{"id":"k3","output":"BETATXT 1 2 3"}
EOF
suite() { # NAME JUDGE_JSON
    cat >"$T/s/$1.json" <<JSON
{"name": "show case", "seed": 4, "task": "Answer the user's question kindly (zz-task).",
 "systems": {"alpha": "alpha.jsonl", "beta": "beta.jsonl"},
 "rubric": {"content": [{"name": "accuracy"}], "structure": [{"name": "clarity"}]},
 "judge": $2,
 "cases": "cases.jsonl"}
JSON
}

# ---- 1. A judge that always prefers the output it was shown first: every case is
#      position-inconsistent (judge_sim --prefer-a 1 answers "A" in both orders).
start_sim --prefer-a 1
suite sim "{\"provider\": \"openai\", \"base_url\": \"http://127.0.0.1:$PORT/v1\", \"model\": \"sim\",
            \"api_key_env\": \"ARB_SHOW_KEY\", \"timeout_s\": 5}"
$ARB run "$T/s/sim.json" --db "$T/a.db" >"$T/out" 2>"$T/err" || die "run: $(cat "$T/err")"
[ "$(q "$T/a.db" "SELECT json_extract(comparison_json, '\$.judge.position_inconsistent') FROM v_verdicts WHERE case_id = 'k1'")" = 1 ] &&
    ok || die "the test needs k1 position-inconsistent: $(q "$T/a.db" "SELECT comparison_json FROM v_verdicts WHERE case_id = 'k1'")"
SA=$(q "$T/a.db" "SELECT system_a FROM verdicts WHERE case_id = 'k1'")
SB=$(q "$T/a.db" "SELECT system_b FROM verdicts WHERE case_id = 'k1'")
R_AB=$(answer "$T/a.db" k1 AB '$.reasoning')
R_BA=$(answer "$T/a.db" k1 BA '$.reasoning')
[ -n "$R_AB" ] && [ -n "$R_BA" ] && [ "$R_AB" != "$R_BA" ] && ok ||
    bad "the test needs two reasonings: '$R_AB' '$R_BA'"
[ "$(answer "$T/a.db" k1 AB '$.winner')" = A ] && [ "$(answer "$T/a.db" k1 BA '$.winner')" = A ] && ok ||
    bad "judge_sim --prefer-a 1 did not answer A in both orders"

# Text.
$ARB show 1 k1 --db "$T/a.db" >"$T/show.txt" 2>"$T/err" || bad "show k1: $(cat "$T/err")"
grep -qx -- "--- task (the suite's)" "$T/show.txt" &&
    grep -qx "Answer the user's question kindly (zz-task)." "$T/show.txt" &&
    grep -qx -- "--- prompt (the case's)" "$T/show.txt" &&
    grep -qx "What is the capital of France? (zz-prompt-k1)" "$T/show.txt" && ok ||
    bad "show: the task and the prompt: $(head -8 "$T/show.txt")"
grep -qx "    judge, order AB ($SA shown first): winner $SA (Response A)" "$T/show.txt" &&
    grep -qx "    judge, order BA ($SB shown first): winner $SB (Response A)" "$T/show.txt" && ok ||
    bad "show: both orders' winners: $(sed -n '/^--- verdict/,$p' "$T/show.txt")"
grep -q "^    judge: position-inconsistent (its orders disagree on the winner), sample agreement 0" "$T/show.txt" &&
    ok || bad "show: position-inconsistent: $(sed -n '/^--- verdict/,$p' "$T/show.txt")"
grep -qxF "    reasoning, order AB ($SA shown first): $R_AB" "$T/show.txt" &&
    grep -qxF "    reasoning, order BA ($SB shown first): $R_BA" "$T/show.txt" && ok ||
    bad "show: both reasonings under the verdict: $(sed -n '/^--- verdict/,$p' "$T/show.txt")"
# Under the verdict, no single reasoning stands for both orders.
sed -n '/^--- verdict/,$p' "$T/show.txt" | grep -q '^    reasoning: ' &&
    bad "show: one reasoning given as the verdict's: $(sed -n '/^--- verdict/,$p' "$T/show.txt")" || ok
# Each order's scores and expectations in the names of the systems: in order BA the judge's
# "A" is the pair's B.
line="    scores (1-5): accuracy $SB $(answer "$T/a.db" k1 BA '$.criteria.accuracy.A'), $SA $(answer "$T/a.db" k1 BA '$.criteria.accuracy.B')"
grep -qF -- "$line;" "$T/show.txt" && ok || bad "show: order BA's scores ('$line'): $(cat "$T/show.txt")"
pass() { [ "$1" = 1 ] && echo pass || echo fail; }
line="    expectations: polite $SA $(pass "$(answer "$T/a.db" k1 AB '$.expectations.polite.A')"), $SB $(pass "$(answer "$T/a.db" k1 AB '$.expectations.polite.B')")"
grep -qxF -- "$line" "$T/show.txt" && ok || bad "show: order AB's expectations ('$line'): $(cat "$T/show.txt")"
# The records as before: the judge's answers before the verdict, the verdict line.
grep -q "^--- verdict: A = $SA, B = $SB: decided, winner TIE$" "$T/show.txt" &&
    [ "$(grep -c '^order [AB][AB]: Response A = ' "$T/show.txt")" = 2 ] && ok ||
    bad "show: the judgments and the verdict line: $(cat "$T/show.txt")"
grep -q "^    policy: .*decided_by position_inconsistent" "$T/show.txt" || {
    # An Arbiter whose comparison names no policy prints none; one that does, prints it.
    [ "$(q "$T/a.db" "SELECT json_type(comparison_json, '\$.policy') FROM v_verdicts WHERE case_id = 'k1'")" = "" ]
} && ok || bad "show: the policy the comparison names: $(sed -n '/^--- verdict/,$p' "$T/show.txt")"

# --json: the same as members.
$ARB show 1 k1 --db "$T/a.db" --json >"$T/show.json" 2>"$T/err" || bad "show --json: $(cat "$T/err")"
J="$T/show.json"
[ "$(json "$J" '$.task.suite')" = "Answer the user's question kindly (zz-task)." ] &&
    [ "$(json "$J" '$.task.prompt')" = "What is the capital of France? (zz-prompt-k1)" ] && ok ||
    bad "show --json: task: $(json "$J" '$.task')"
V='$.verdicts[0].judge'
[ "$(json "$J" "$V.orders[0].ord")" = AB ] && [ "$(json "$J" "$V.orders[0].shown_first")" = "$SA" ] &&
    [ "$(json "$J" "$V.orders[0].shown_second")" = "$SB" ] &&
    [ "$(json "$J" "$V.orders[0].winner")" = "$SA" ] && [ "$(json "$J" "$V.orders[0].winner_as_shown")" = A ] &&
    [ "$(json "$J" "$V.orders[0].reasoning")" = "$R_AB" ] && ok ||
    bad "show --json: order AB: $(json "$J" "$V.orders[0]")"
[ "$(json "$J" "$V.orders[1].ord")" = BA ] && [ "$(json "$J" "$V.orders[1].shown_first")" = "$SB" ] &&
    [ "$(json "$J" "$V.orders[1].winner")" = "$SB" ] && [ "$(json "$J" "$V.orders[1].winner_as_shown")" = A ] &&
    [ "$(json "$J" "$V.orders[1].reasoning")" = "$R_BA" ] && ok ||
    bad "show --json: order BA: $(json "$J" "$V.orders[1]")"
[ "$(json "$J" "$V.orders[1].criteria.accuracy.$SB")" = "$(answer "$T/a.db" k1 BA '$.criteria.accuracy.A')" ] &&
    [ "$(json "$J" "$V.orders[1].criteria.clarity.$SA")" = "$(answer "$T/a.db" k1 BA '$.criteria.clarity.B')" ] &&
    [ "$(json "$J" "$V.orders[0].criteria.accuracy.$SA")" = "$(answer "$T/a.db" k1 AB '$.criteria.accuracy.A')" ] &&
    ok || bad "show --json: scores in system names: $(json "$J" "$V.orders")"
[ "$(json "$J" "$V.orders[1].expectations.polite.$SB")" = "$(answer "$T/a.db" k1 BA '$.expectations.polite.A')" ] &&
    [ "$(json "$J" "$V.orders[1].expectations.polite.$SA")" = "$(answer "$T/a.db" k1 BA '$.expectations.polite.B')" ] &&
    [ "$(json "$J" "$V.orders[0].expectations.polite.$SA")" = "$(answer "$T/a.db" k1 AB '$.expectations.polite.A')" ] &&
    ok || bad "show --json: expectations in system names: $(json "$J" "$V.orders")"
[ "$(json "$J" "$V.position_inconsistent")" = 1 ] && [ "$(json "$J" "$V.sample_agreement")" = 0 ] &&
    [ "$(json "$J" "$V.winner")" = TIE ] && [ "$(json "$J" '$.verdicts[0].reasoning')" = "$R_AB" ] &&
    [ "$(json "$J" "$V.orders[0].error")" = "" ] && ok ||
    bad "show --json: the orders together: $(json "$J" "$V")"
# The members that were there stay as they were.
[ "$(json "$J" '$.case')" = k1 ] && [ "$(json "$J" '$.verdicts[0].A')" = "$SA" ] &&
    [ "$(json "$J" '$.verdicts[0].status')" = decided ] && [ "$(json "$J" '$.verdicts[0].winner')" = TIE ] &&
    [ "$(sqlite3 :memory: "SELECT json_array_length(readfile('$J'), '\$.judgments')")" = 2 ] &&
    [ "$(json "$J" '$.judge_failures')" = '[]' ] &&
    [ "$(json "$J" '$.verdicts[0].comparison.judge.position_inconsistent')" = 1 ] &&
    [ "$(grep -c '"order":' "$J")" = 2 ] && ok || bad "show --json: the older members: $(head -c 1500 "$J")"

# Samples: each order asked twice, each sample its own entry, order AB's first.
suite sim2 "{\"provider\": \"openai\", \"base_url\": \"http://127.0.0.1:$PORT/v1\", \"model\": \"sim\",
             \"api_key_env\": \"ARB_SHOW_KEY\", \"timeout_s\": 5, \"samples\": 2}"
$ARB run "$T/s/sim2.json" --db "$T/b.db" --cases k2 >"$T/out" 2>"$T/err" || bad "run, 2 samples: $(cat "$T/err")"
$ARB show 1 k2 --db "$T/b.db" --json >"$T/show2.json" 2>"$T/err"
[ "$(sqlite3 :memory: "SELECT group_concat(json_extract(value, '\$.ord') || json_extract(value, '\$.sample'), ' ')
        FROM json_each(readfile('$T/show2.json'), '\$.verdicts[0].judge.orders')")" = "AB0 AB1 BA0 BA1" ] &&
    ok || bad "show --json, 2 samples: $(json "$T/show2.json" '$.verdicts[0].judge.orders')"
S2A=$(q "$T/b.db" "SELECT system_a FROM verdicts WHERE case_id = 'k2'")
$ARB show 1 k2 --db "$T/b.db" >"$T/show2.txt" 2>"$T/err"
grep -qx "    judge, order AB ($S2A shown first), sample 2: winner $S2A (Response A)" "$T/show2.txt" && ok ||
    bad "show, 2 samples: $(sed -n '/^--- verdict/,$p' "$T/show2.txt")"
stop_sim

# ---- 2. A command judge that answers when alpha's output is shown first and fails when
#      beta's is: one order with its winner and reasoning, the other with why it failed.
#      k3 it answers in both orders, for alpha both times: position-consistent.
GOOD_AB='{"reasoning": "zz-reason-alpha-first: the first response is better", "criteria": {"accuracy": {"A": 5, "B": 2}, "clarity": {"A": 4, "B": 3}}, "expectations": {"polite": {"A": true, "B": false}}, "winner": "A"}'
GOOD_BA='{"reasoning": "zz-reason-beta-first: the second response is better", "criteria": {"accuracy": {"A": 2, "B": 5}, "clarity": {"A": 3, "B": 4}}, "expectations": {"polite": {"A": false, "B": true}}, "winner": "B"}'
cat >"$T/judge.sh" <<SH
#!/bin/sh
in=\$(cat)
case "\$in" in
*ALPHATXT*BETATXT*) echo '$GOOD_AB' ;;
*"BETATXT 1 2 3"*) echo '$GOOD_BA' ;;
*) echo "judge: zz-no-answer when beta goes first" >&2; exit 3 ;;
esac
SH
chmod +x "$T/judge.sh"
suite cmd "{\"provider\": \"command\", \"command\": [\"$T/judge.sh\"]}"
$ARB run "$T/s/cmd.json" --db "$T/c.db" >"$T/out" 2>"$T/err"
[ "$(q "$T/c.db" "SELECT status FROM verdicts WHERE case_id = 'k1'")" = judge_failed ] && ok ||
    bad "the test needs k1 judge_failed: $(cat "$T/out" "$T/err")"
CA=$(q "$T/c.db" "SELECT system_a FROM verdicts WHERE case_id = 'k1'")
REASON=$(q "$T/c.db" "SELECT error FROM judgments WHERE case_id = 'k1' AND valid = 0 ORDER BY attempt DESC LIMIT 1")
case $REASON in *zz-no-answer*) ok ;; *) bad "the stored reason: '$REASON'" ;; esac
BAD_ORD=$(q "$T/c.db" "SELECT ord FROM judgments WHERE case_id = 'k1' AND valid = 0 LIMIT 1")
GOOD_ORD=$(q "$T/c.db" "SELECT ord FROM judgments WHERE case_id = 'k1' AND valid = 1 LIMIT 1")
$ARB show 1 k1 --db "$T/c.db" >"$T/show.txt" 2>"$T/err" || bad "show k1 (failed): $(cat "$T/err")"
grep -qx "    judge, order $GOOD_ORD (alpha shown first): winner alpha (Response A)" "$T/show.txt" &&
    grep -qx "    judge, order $BAD_ORD (beta shown first): no valid answer" "$T/show.txt" &&
    grep -qF "    judge failed, order $BAD_ORD, sample 1, attempt 1: $REASON" "$T/show.txt" && ok ||
    bad "show, a failed order: $(sed -n '/^--- verdict/,$p' "$T/show.txt")"
grep -q "^order $GOOD_ORD: .*winner A = alpha" "$T/show.txt" &&
    grep -qx "    reasoning: zz-reason-alpha-first: the first response is better" "$T/show.txt" && ok ||
    bad "show, the order that answered: $(cat "$T/show.txt")"
$ARB show 1 k1 --db "$T/c.db" --json >"$T/show.json" 2>"$T/err"
J="$T/show.json"
i_bad=$([ "$BAD_ORD" = AB ] && echo 0 || echo 1)
i_good=$((1 - i_bad))
[ "$(json "$J" "\$.verdicts[0].judge.orders[$i_bad].error")" = "$REASON" ] &&
    [ "$(json "$J" "\$.verdicts[0].judge.orders[$i_bad].valid")" = 0 ] &&
    [ "$(json "$J" "\$.verdicts[0].judge.orders[$i_bad].winner")" = "" ] &&
    [ "$(json "$J" "\$.verdicts[0].judge.orders[$i_good].winner")" = alpha ] &&
    [ "$(json "$J" "\$.verdicts[0].judge.orders[$i_good].criteria.accuracy.alpha")" = 5 ] &&
    [ "$(json "$J" "\$.verdicts[0].judge.orders[$i_good].criteria.accuracy.beta")" = 2 ] &&
    [ "$(json "$J" "\$.verdicts[0].judge.orders[$i_good].expectations.polite.beta")" = 0 ] &&
    [ "$(json "$J" '$.verdicts[0].judge.error')" != "" ] &&
    [ "$(json "$J" '$.judge_failures[0].reason')" = "$REASON" ] && ok ||
    bad "show --json, a failed order: $(json "$J" '$.verdicts[0].judge')"
# k3: both orders answered, both for alpha: consistent, the verdict's reasoning as before.
$ARB show 1 k3 --db "$T/c.db" >"$T/show.txt" 2>"$T/err"
[ "$(q "$T/c.db" "SELECT winner FROM verdicts WHERE case_id = 'k3'")" = alpha ] && ok ||
    bad "the test needs k3 won by alpha: $(q "$T/c.db" "SELECT status, winner, comparison_json FROM v_verdicts WHERE case_id = 'k3'")"
grep -q "^    judge: position-consistent, sample agreement 1, its own winner alpha$" "$T/show.txt" &&
    [ "$(grep -c '^    judge, order [AB][AB] (.* shown first): winner alpha (Response [AB])$' "$T/show.txt")" = 2 ] &&
    sed -n '/^--- verdict/,$p' "$T/show.txt" | grep -q '^    reasoning: zz-reason-' &&
    ! grep -q 'reasoning, order' "$T/show.txt" && ok || bad "show k3: $(sed -n '/^--- verdict/,$p' "$T/show.txt")"
$ARB show 1 k3 --db "$T/c.db" --json >"$T/show.json" 2>"$T/err"
[ "$(json "$T/show.json" '$.verdicts[0].judge.position_inconsistent')" = 0 ] &&
    [ "$(json "$T/show.json" '$.verdicts[0].judge.orders[1].criteria.accuracy.alpha')" = 5 ] &&
    [ "$(json "$T/show.json" '$.verdicts[0].judge.orders[0].criteria.accuracy.alpha')" = 5 ] && ok ||
    bad "show --json k3: $(json "$T/show.json" '$.verdicts[0].judge')"

# ---- 3. A case the judge never saw: "judge" is null, no judge lines; an unknown case is
#      still one error line.
printf '{"id":"k1","prompt":"p"}\n' >"$T/s/plain.jsonl"
cat >"$T/s/plain.json" <<'JSON'
{"name": "plain", "systems": {"alpha": "alpha.jsonl", "beta": "beta.jsonl"},
 "rubric": {"content": [{"name": "exact", "check": {"op": "contains", "expected": "Paris"}}]},
 "cases": "plain.jsonl"}
JSON
$ARB run "$T/s/plain.json" --db "$T/d.db" >"$T/out" 2>"$T/err" || bad "plain run: $(cat "$T/err")"
$ARB show 1 k1 --db "$T/d.db" --json >"$T/show.json" 2>"$T/err"
[ "$(json "$T/show.json" '$.verdicts[0].judge')" = "" ] &&
    [ "$(json "$T/show.json" '$.task.suite')" = "" ] && [ "$(json "$T/show.json" '$.task.prompt')" = p ] &&
    ok || bad "show --json, no judge: $(cat "$T/show.json")"
$ARB show 1 k1 --db "$T/d.db" >"$T/show.txt" 2>"$T/err"
grep -q "^--- judge\|^    judge" "$T/show.txt" && bad "show, no judge: $(cat "$T/show.txt")" || ok
grep -q -- "--- task" "$T/show.txt" && bad "show: a task the suite lacks: $(cat "$T/show.txt")" || ok
expect_cmd "show an unknown case" 2 "" "run 1 has no case 'nope'" -- $ARB show 1 nope --db "$T/d.db"
[ -s "$T/out" ] && bad "show an unknown case printed: $(cat "$T/out")" || ok

test_done
