#!/bin/sh
# Calibration measures the run's own decision procedure (issue 18): policy.decide_by gives its
# three documented outcomes on pairs whose rubric means tie while the judge is consistent;
# `calibrate --run` and `calibrate --suite` measure the procedure's verdicts (the same figures,
# equal to the share of the run's verdicts that match the labels, computed here apart); the
# study is stored under the procedure's identity, where --require-calibrated and the report's
# judge health find it; a calibration's run is never "latest".
# usage: tests/cli/calibrate_procedure.sh path/to/arbiter [path/to/judge_sim (unused)]
#
# The judge is a command judge (a shell script, below) that decides by markers in the outputs,
# so each case's answer is known: the response holding QQGOOD wins in both orders; with QQFLIP
# the response shown first wins (the orders disagree); QQHIGH scores 5 on helpfulness, every
# other score is 3 (so the rubric means tie unless QQHIGH is there).
. "$(dirname "$0")/lib.sh"
ARB="$1"
[ -x "$ARB" ] || die "no binary at '$ARB'"
command -v sqlite3 >/dev/null 2>&1 || die "sqlite3 not found (make deps installs it)"
D="$T/d"
DB="$T/c.db"
mkdir -p "$D"

cat >"$D/judge.sh" <<'EOF'
#!/bin/sh
req=$(cat)
pos() { printf '%s' "$req" | awk -v m="$1" '{ i = index($0, m); if (i) { print NR * 1000000 + i; exit } }'; }
g=$(pos QQGOOD); b=$(pos QQBAD); f=$(pos QQFLIP); h=$(pos QQHIGH)
if [ -n "$f" ]; then w=A
elif [ -n "$g" ] && [ -n "$b" ] && [ "$g" -lt "$b" ]; then w=A
elif [ -n "$g" ]; then w=B
else w=TIE; fi
sa=3; sb=3
if [ -n "$h" ] && [ -n "$g" ]; then if [ "$h" -lt "$g" ]; then sa=5; else sb=5; fi; fi
printf '{"reasoning":"markers decide","criteria":{"helpfulness":{"A":%s,"B":%s},"organization":{"A":3,"B":3},"formatting":{"A":3,"B":3},"usability":{"A":3,"B":3}},"expectations":{},"winner":"%s"}\n' "$sa" "$sb" "$w"
EOF
i=0
for pair in "QQBAD answer|QQGOOD reply" "QQGOOD answer|QQBAD reply" "QQFLIP answer|QQFLIP reply" \
            "QQBAD answer|QQGOOD reply" "QQGOOD answer|QQBAD reply" "QQGOOD answer|QQHIGH QQBAD reply" \
            "QQFLIP answer|QQFLIP reply" "QQFLIP answer|QQFLIP reply" "QQFLIP answer|QQFLIP reply" \
            "QQFLIP answer|QQFLIP reply"; do
    i=$((i + 1))
    printf '{"id":"c%d","prompt":"Question %d?"}\n' $i $i >>"$D/cases.jsonl"
    printf '{"id":"c%d","output":"%s %d"}\n' $i "${pair%%|*}" $i >>"$D/base.jsonl"
    printf '{"id":"c%d","output":"%s %d"}\n' $i "${pair#*|}" $i >>"$D/cand.jsonl"
done
suite() { # suite NAME DECIDE_BY
    printf '{"name":"cal","task":"Answer the question.","seed":3,
 "systems":{"baseline":"base.jsonl","candidate":"cand.jsonl"},
 "rubric":{"content":[{"name":"helpfulness","description":"Does it help?","anchors":{"1":"no help","5":"full help"}}]},
 "judge":{"provider":"command","command":["sh","%s/judge.sh"],"model":"markers"},
 "policy":{"decide_by":"%s"}, "cases":"cases.jsonl"}\n' "$D" "$2" >"$D/$1.json"
}
suite rubric rubric
suite judge judge
suite then rubric_then_judge
sed -e 's/"decide_by":"rubric_then_judge"/"decide_by":"rubric_then_judge","position_inconsistent":"unresolved"/' "$D/then.json" >"$D/then-unres.json"
sed -e 's/,"policy":{"decide_by":"rubric_then_judge"}//' -e 's/"policy":{"decide_by":"rubric_then_judge"}, //' "$D/then.json" >"$D/default.json"
grep -q decide_by "$D/default.json" && bad "the default suite still names decide_by"

winners() { # winners RUN: "c1=W c2=W ..." in case order
    sqlite3 "$DB" "SELECT group_concat(case_id || '=' || coalesce(winner, '-'), ' ') FROM
        (SELECT v.case_id, v.winner FROM verdicts v JOIN cases c ON c.run = v.run AND
         c.case_id = v.case_id WHERE v.run = $1 ORDER BY c.seq)"
}
run_suite() { # run_suite NAME: the new run's id in $R
    "$ARB" run "$D/$1.json" --db "$DB" --json >"$T/run-$1.json" 2>"$T/run-$1.err" ||
        bad "run $1: $(cat "$T/run-$1.err")"
    R=$(sqlite3 "$DB" "SELECT max(id) FROM runs WHERE kind = 'run'")
}

# 1. The three policies on the same pairs.  c1, c2, c4, c5: equal rubric means, the judge
# consistent; c3, c7-c10: the orders disagree; c6: the rubric prefers the candidate, the judge
# the baseline in both orders.
run_suite rubric; r_rubric=$R
run_suite judge; r_judge=$R
run_suite then; r_then=$R
run_suite then-unres; r_unres=$R
run_suite default; r_default=$R
[ "$(winners "$r_rubric")" = "c1=TIE c2=TIE c3=TIE c4=TIE c5=TIE c6=candidate c7=TIE c8=TIE c9=TIE c10=TIE" ] && ok ||
    bad "decide_by rubric: $(winners "$r_rubric")"
[ "$(winners "$r_judge")" = "c1=candidate c2=baseline c3=TIE c4=candidate c5=baseline c6=baseline c7=TIE c8=TIE c9=TIE c10=TIE" ] && ok ||
    bad "decide_by judge: $(winners "$r_judge")"
[ "$(winners "$r_then")" = "c1=candidate c2=baseline c3=TIE c4=candidate c5=baseline c6=candidate c7=TIE c8=TIE c9=TIE c10=TIE" ] && ok ||
    bad "decide_by rubric_then_judge: $(winners "$r_then")"
[ "$(winners "$r_unres")" = "c1=candidate c2=baseline c3=- c4=candidate c5=baseline c6=candidate c7=- c8=- c9=- c10=-" ] && ok ||
    bad "position_inconsistent unresolved: $(winners "$r_unres")"
[ "$(winners "$r_default")" = "$(winners "$r_then")" ] && ok || bad "the default is not rubric_then_judge: $(winners "$r_default")"
[ "$(sqlite3 "$DB" "SELECT status FROM verdicts WHERE run = $r_unres AND case_id = 'c3'")" = position_inconsistent ] && ok ||
    bad "c3 under position_inconsistent unresolved is not position_inconsistent"
# Every verdict records its policy and what decided it.
for r in "$r_rubric:rubric" "$r_judge:judge" "$r_then:rubric_then_judge"; do
    n=$(sqlite3 "$DB" "SELECT count(*) FROM v_verdicts WHERE run = ${r%%:*} AND
        json_extract(comparison_json, '\$.policy.decide_by') = '${r#*:}'")
    [ "$n" = 10 ] && ok || bad "run ${r%%:*}: $n of 10 verdicts record decide_by ${r#*:}"
done
by() { sqlite3 "$DB" "SELECT json_extract(comparison_json, '\$.policy.decided_by') FROM v_verdicts WHERE run = $1 AND case_id = '$2'"; }
[ "$(by "$r_then" c1)" = judge ] && [ "$(by "$r_then" c6)" = rubric ] && [ "$(by "$r_then" c3)" = position_inconsistent ] &&
    [ "$(by "$r_rubric" c1)" = rubric ] && ok || bad "decided_by: $(by "$r_then" c1) $(by "$r_then" c6) $(by "$r_then" c3) $(by "$r_rubric" c1)"
sqlite3 "$DB" "SELECT json_extract(comparison_json, '\$.judge.order_winners') FROM v_verdicts WHERE run = $r_then AND case_id = 'c3'" |
    grep -qx '\["A","B"\]' && ok || bad "c3 does not record both orders' winners"
sqlite3 "$DB" "SELECT json_extract(comparison_json, '\$.policy.why') FROM v_verdicts WHERE run = $r_then AND case_id = 'c1'" |
    grep -q "Equal overall rubric scores (6.0).*the judge's winner, the same in both orders: " && ok ||
    bad "c1's why: $(sqlite3 "$DB" "SELECT comparison_json FROM v_verdicts WHERE run = $r_then AND case_id = 'c1'")"

# 2. The procedure's identity: the same suite gives the same hash; another policy another.
proc() { sqlite3 "$DB" "SELECT procedure_hash FROM runs WHERE id = $1"; }
[ "$(proc "$r_then")" = "$(proc "$r_default")" ] && ok || bad "the default and an explicit rubric_then_judge differ in identity"
[ "$(proc "$r_then")" != "$(proc "$r_rubric")" ] && [ "$(proc "$r_then")" != "$(proc "$r_unres")" ] && ok ||
    bad "other policies share an identity"
sed -e 's/"description":"Does it help?"/"description":"Is it useful?"/' "$D/then.json" >"$D/then-desc.json"
run_suite then-desc; r_desc=$R
[ "$(proc "$r_desc")" != "$(proc "$r_then")" ] && ok || bad "a criterion's description is not part of the identity"
echo "$(proc "$r_then")" | grep -qx '[0-9a-f]\{64\}' && ok || bad "procedure_hash: $(proc "$r_then")"

# 3. calibrate --run: labels naming the systems, one with three annotators (majority baseline).
cat >"$D/labels-run.jsonl" <<'EOF'
{"id":"c1","human":"candidate"}
{"id":"c2","human":"baseline"}
{"id":"c3","human":"tie"}
{"id":"c4","human":"baseline","note":"the judge is wrong here"}
{"id":"c5","human":["baseline","baseline","candidate"]}
{"id":"c6","human":"candidate","criteria":{"helpfulness":"candidate"}}
{"id":"c7","human":"tie"}
{"id":"c8","human":"tie"}
{"id":"c9","human":"tie"}
{"id":"c10","human":"tie"}
EOF
"$ARB" calibrate --run "$r_then" "$D/labels-run.jsonl" --db "$DB" >"$T/cal-run.json" 2>"$T/err" ||
    bad "calibrate --run: $(cat "$T/err")"
# The share of the run's verdicts that match the labels, computed apart: sqlite over the
# verdicts, the labels' majorities written out by hand.
want=$(sqlite3 "$DB" "WITH l(id, h) AS (VALUES ('c1','candidate'),('c2','baseline'),('c3','TIE'),
    ('c4','baseline'),('c5','baseline'),('c6','candidate'),('c7','TIE'),('c8','TIE'),('c9','TIE'),
    ('c10','TIE'))
    SELECT printf('%d/%d', sum(coalesce(v.winner, '') = l.h), count(*)) FROM l JOIN verdicts v
    ON v.case_id = l.id AND v.run = $r_then")
[ "$want" = 9/10 ] && ok || bad "the hand count is $want, not 9/10"
got=$(sqlite3 "$DB" "SELECT json_extract(study_json, '\$.combined.correct') || '/' ||
      json_extract(study_json, '\$.combined.n') FROM calibrations ORDER BY id DESC LIMIT 1")
[ "$got" = "$want" ] && ok || bad "calibrate --run agreement $got, the verdicts' $want"
grep -q '"verdict":"procedure"' "$T/cal-run.json" && grep -q '"source":"run"' "$T/cal-run.json" && ok ||
    bad "the study does not say it measured the procedure of a run: $(head -c 400 "$T/cal-run.json")"
grep -q "\"procedure_hash\":\"$(proc "$r_then")\"" "$T/cal-run.json" && ok || bad "the study names another procedure"
[ "$(sqlite3 "$DB" "SELECT source || ' ' || procedure_hash || ' ' || run FROM calibrations ORDER BY id DESC LIMIT 1")" = "run $(proc "$r_then") $r_then" ] &&
    ok || bad "stored study: $(sqlite3 "$DB" "SELECT source, procedure_hash, run FROM calibrations")"
grep -q '"criteria":{"helpfulness":{"n":1' "$T/cal-run.json" && ok || bad "per-criterion agreement missing"
"$ARB" check '{"op":"json_schema","expected_file":"schemas/calibration.schema.json"}' --observed-file "$T/cal-run.json" >/dev/null &&
    ok || bad "the study does not match schemas/calibration.schema.json"
# Each order's own winner, in the labels' numbering whichever system was shown as A: the
# judge always picks what it is shown first on the five QQFLIP cases, so each is
# first-biased (order_12 "1", order_21 "2"), and at least one has the candidate as A.
flip_a=$(sqlite3 "$DB" "SELECT count(*) FROM blinding WHERE run = $r_then AND
    case_id IN ('c3','c7','c8','c9','c10') AND system_a = 'candidate'")
[ "$flip_a" -ge 1 ] && [ "$flip_a" -le 4 ] && ok || bad "test setup: $flip_a of 5 flips show the candidate as A (want both ways)"
grep -q '"first_biased":5,"second_biased":0,' "$T/cal-run.json" && ok ||
    bad "position figures: $(grep -o '"position":{[^}]*' "$T/cal-run.json")"
grep -q '"order_12":{"n":10,"correct":3,' "$T/cal-run.json" && grep -q '"order_21":{"n":10,"correct":3,' "$T/cal-run.json" && ok ||
    bad "order figures: $(grep -o '"orders":{[^}]*}[^}]*}' "$T/cal-run.json")"
# The rubric-only run, measured: 6 of 10 (c3, c6, c7-c10).
"$ARB" calibrate --run "$r_rubric" "$D/labels-run.jsonl" --db "$DB" >"$T/cal-rubric.json" 2>"$T/err" || bad "calibrate --run rubric: $(cat "$T/err")"
grep -q '"combined":{"n":10,"resolved":10,"unresolved":0,"correct":6,' "$T/cal-rubric.json" && ok ||
    bad "rubric run: $(grep -o '"combined":{[^}]*' "$T/cal-rubric.json")"

# 4. calibrate --suite: the labelled pairs through the suite's own procedure.
i=0
while IFS= read -r line; do
    i=$((i + 1))
    b=$(sed -n "${i}p" "$D/base.jsonl" | sed 's/.*"output":"\([^"]*\)".*/\1/')
    c=$(sed -n "${i}p" "$D/cand.jsonl" | sed 's/.*"output":"\([^"]*\)".*/\1/')
    h=$(printf '%s' "$line" | sed -n 's/.*"human":\(\[[^]]*\]\|"[a-z]*"\).*/\1/p' |
        sed -e 's/"baseline"/"1"/g' -e 's/"candidate"/"2"/g')
    crit=$(printf '%s' "$line" | grep -q criteria && echo ',"criteria":{"helpfulness":"2"}' || true)
    printf '{"id":"c%d","prompt":"Question %d?","output_1":"%s","output_2":"%s","human":%s%s}\n' \
        $i $i "$b" "$c" "$h" "$crit" >>"$D/labels-pairs.jsonl"
done <"$D/labels-run.jsonl"
"$ARB" calibrate --suite "$D/then.json" "$D/labels-pairs.jsonl" --db "$DB" >"$T/cal-suite.json" 2>"$T/err" ||
    bad "calibrate --suite: $(cat "$T/err")"
r_cal=$(sqlite3 "$DB" "SELECT max(id) FROM runs WHERE kind = 'calibration'")
[ -n "$r_cal" ] && [ "$(proc "$r_cal")" = "$(proc "$r_then")" ] && ok || bad "the calibration run's procedure differs from the suite's run"
[ "$(winners "$r_cal")" = "$(winners "$r_then")" ] && ok || bad "the calibration run decided otherwise: $(winners "$r_cal")"
# The same figures as --run of the user's run (everything but where they came from).
same=$(sqlite3 "$DB" "SELECT json_remove(a.study_json, '\$.source', '\$.run') = json_remove(b.study_json, '\$.source', '\$.run')
    FROM calibrations a, calibrations b WHERE a.source = 'suite' AND b.source = 'run' AND b.run = $r_then
    ORDER BY a.id DESC, b.id DESC LIMIT 1")
[ "$same" = 1 ] && ok || bad "calibrate --suite and --run differ: $(head -c 600 "$T/cal-suite.json")"
# --run on the calibration run itself gives them too.
"$ARB" calibrate --run "$r_cal" "$D/labels-run.jsonl" --db "$DB" >"$T/cal-cal.json" 2>"$T/err" || bad "calibrate --run of the calibration run: $(cat "$T/err")"
same=$(sqlite3 "$DB" "SELECT json_extract(a.study_json, '\$.combined') = json_extract(b.study_json, '\$.combined')
    AND json_extract(a.study_json, '\$.position') = json_extract(b.study_json, '\$.position')
    FROM calibrations a, calibrations b WHERE a.source = 'suite' AND b.run = $r_cal AND b.source = 'run'")
[ "$same" = 1 ] && ok || bad "--run of the calibration run differs from --suite"

# 5. A calibration is not a run: latest is the user's last run.
"$ARB" report latest --db "$DB" --format json 2>"$T/err" | tr -d ' \t\n' >"$T/latest.json" || bad "report latest: $(cat "$T/err")"
grep -q "\"run\":{\"id\":$r_desc," "$T/latest.json" && ok || bad "report latest is not run $r_desc: $(head -c 200 "$T/latest.json")"
"$ARB" runs --db "$DB" | grep "^ *$r_cal " | grep -q "calibration" && ok || bad "runs does not mark the calibration run"

# 6. The report's judge health names the study of the run's procedure, or says why none applies.
"$ARB" report "$r_then" --db "$DB" >"$T/rep.md" 2>"$T/err" || bad "report: $(cat "$T/err")"
grep -q "| calibration | procedure $(proc "$r_then" | cut -c1-12), n 10, kappa 0\.[0-9][0-9] \[" "$T/rep.md" && ok ||
    bad "report: $(grep calibration "$T/rep.md")"
"$ARB" report "$r_then" --db "$DB" --format json 2>/dev/null | tr -d ' \t\n' >"$T/rep.json"
grep -q '"calibration_study":{"id":[0-9]*,"procedure_hash":"'"$(proc "$r_then")"'","source":"\(run\|suite\)","labels":' "$T/rep.json" && ok ||
    bad "report json: $(grep -o '"calibration[^}]*' "$T/rep.json" | head -3)"
"$ARB" report "$r_judge" --db "$DB" >"$T/rep2.md" 2>&1
grep -q "| calibration | uncalibrated: no study of procedure $(proc "$r_judge" | cut -c1-12) " "$T/rep2.md" && ok ||
    bad "another procedure's report: $(grep calibration "$T/rep2.md")"
"$ARB" report "$r_then" --db "$DB" --format html -o "$T/rep.html" 2>/dev/null
grep -q "procedure $(proc "$r_then" | cut -c1-12), n 10" "$T/rep.html" && ok || bad "the HTML report does not name the study"

# 7. --require-calibrated looks the procedure up.
kappa=$(sqlite3 "$DB" "SELECT printf('%.4f', CAST(kappa * 10000 AS INTEGER) / 10000.0) FROM calibrations WHERE procedure_hash = '$(proc "$r_then")' ORDER BY id DESC LIMIT 1")
expect_cmd "require-calibrated at its kappa" 0 "" "" -- "$ARB" run "$D/then.json" --db "$DB" --require-calibrated "$kappa"
expect_cmd "require-calibrated above its kappa" 2 "" "has calibration kappa" -- "$ARB" run "$D/then.json" --db "$DB" --require-calibrated 0.99
expect_cmd "require-calibrated, another procedure" 2 "" "is not calibrated in" -- "$ARB" run "$D/judge.json" --db "$DB" --require-calibrated 0

# 8. Refused, with what to fix.
printf '{"id":"c1","human":"winner"}\n' >"$D/bad-name.jsonl"
expect_cmd "a label naming no system" 2 "" "bad-name.jsonl:1:20: /human: 'winner' is not a system" -- "$ARB" calibrate --run "$r_then" "$D/bad-name.jsonl" --db "$DB"
printf '{"id":"c1","human":"tie"}\n{"id":"nope","human":"tie"}\n' >"$D/bad-id.jsonl"
expect_cmd "a label for a case the run lacks" 2 "" "1 labelled cases have no verdict of baseline vs candidate in run $r_then (first: 'nope')" -- "$ARB" calibrate --run "$r_then" "$D/bad-id.jsonl" --db "$DB"
printf '{"id":"c1","human":"tie","criteria":{"kindness":"tie"}}\n' >"$D/bad-crit.jsonl"
expect_cmd "a criterion the rubric lacks" 2 "" "labels criterion 'kindness', which run $r_then's rubric does not have" -- "$ARB" calibrate --run "$r_then" "$D/bad-crit.jsonl" --db "$DB"
expect_cmd "--run and --suite" 2 "" "give --run RUN or --suite SUITE, not both" -- "$ARB" calibrate --run 1 --suite "$D/then.json" "$D/labels-run.jsonl" --db "$DB"
expect_cmd "--policy with --run" 2 "" "the run's own policy decides each verdict" -- "$ARB" calibrate --run 1 --policy net-vote "$D/labels-run.jsonl" --db "$DB"
sqlite3 "$DB" "UPDATE runs SET procedure_hash = NULL WHERE id = $r_rubric"
expect_cmd "a run stored before identities" 2 "" "was stored before procedures had an identity" -- "$ARB" calibrate --run "$r_rubric" "$D/labels-run.jsonl" --db "$DB"
"$ARB" report "$r_rubric" --db "$DB" 2>/dev/null | grep -q "uncalibrated: the run was stored before procedures had an identity" && ok ||
    bad "an old run's report does not say why it is uncalibrated"

# 9. A judge that asks one order (swap off): the other order was never asked, not failed.
sed -e 's/"model":"markers"}/"model":"markers","swap":false}/' "$D/then.json" >"$D/noswap.json"
grep -q '"swap":false' "$D/noswap.json" || bad "test setup: no swap in noswap.json"
run_suite noswap; r_noswap=$R
"$ARB" calibrate --run "$r_noswap" "$D/labels-run.jsonl" --db "$DB" >"$T/cal-noswap.json" 2>"$T/err" || bad "calibrate --run (no swap): $(cat "$T/err")"
n12=$(sed -n 's/.*"order_12":{"n":\([0-9]*\),"correct":[0-9]*,"accuracy":[^,]*,"unresolved":\([0-9]*\)}.*/\1 \2/p' "$T/cal-noswap.json")
n21=$(sed -n 's/.*"order_21":{"n":\([0-9]*\),"correct":[0-9]*,"accuracy":[^,]*,"unresolved":\([0-9]*\)}.*/\1 \2/p' "$T/cal-noswap.json")
[ "${n12#* }" = 0 ] && [ "${n21#* }" = 0 ] && [ $(( ${n12% *} + ${n21% *} )) -eq 10 ] && ok ||
    bad "one order per case: order_12 '$n12', order_21 '$n21' (n unresolved)"

# 10. A case with one output missing: its criterion label counts as unresolved, not as a
# criterion the rubric lacks.
grep -v '"id":"c1"' "$D/base.jsonl" >"$D/base-missing.jsonl"
sed -e 's/"base.jsonl"/"base-missing.jsonl"/' "$D/then.json" >"$D/missing.json"
run_suite missing; r_missing=$R
printf '{"id":"c1","human":"candidate","criteria":{"helpfulness":"candidate"}}\n{"id":"c2","human":"baseline"}\n' >"$D/labels-missing.jsonl"
"$ARB" calibrate --run "$r_missing" "$D/labels-missing.jsonl" --db "$DB" >"$T/cal-missing.json" 2>"$T/err" &&
    grep -q '"criteria":{"helpfulness":{"n":1,"labelled":1,"unresolved":1,' "$T/cal-missing.json" && ok ||
    bad "a missing output's criterion label: $(cat "$T/err") $(grep -o '"criteria":{[^}]*' "$T/cal-missing.json")"

# 11. A relative TMPDIR: the labelled pairs are written where the suite's copy can find them.
mkdir -p "$T/rel/tmp"
arb_abs=$(cd "$(dirname "$ARB")" && pwd)/$(basename "$ARB")
(cd "$T/rel" && TMPDIR=tmp "$arb_abs" calibrate --suite "$D/then.json" "$D/labels-pairs.jsonl" --db "$DB" >/dev/null 2>"$T/err") &&
    ok || bad "calibrate --suite with a relative TMPDIR: $(cat "$T/err")"
[ -z "$(ls "$T/rel/tmp")" ] && ok || bad "calibrate --suite left files in TMPDIR: $(ls "$T/rel/tmp")"

test_done
