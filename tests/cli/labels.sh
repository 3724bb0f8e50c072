#!/bin/sh
# Human labels in the database (issue 20): `arbiter export RUN --labels` writes the labels of
# the run's first pair as the JSONL `calibrate --run` reads (one line per labelled case, one
# label per annotator in name order, criteria and notes gathered), and `calibrate --run RUN
# --labels-from-db` gives exactly the figures of `calibrate --run RUN` on that file (the labels
# round trip), --annotator included; a run without labels, and misuse, are said plainly.
# usage: tests/cli/labels.sh path/to/arbiter
#
# The labels are put with the sqlite3 shell as the store writes them (src/store/store_labels.c:
# the pair as its blinding row names it, the choice as shown, the winner it means), since the
# page that makes them is `arbiter view --label`'s.  The judge is a command judge deciding by
# markers: the response holding QQGOOD wins in both orders; with QQFLIP the one shown first.
. "$(dirname "$0")/lib.sh"
ARB="$1"
[ -x "$ARB" ] || die "no binary at '$ARB'"
command -v sqlite3 >/dev/null 2>&1 || die "sqlite3 not found (make deps installs it)"
D="$T/d"
DB="$T/l.db"
mkdir -p "$D"

cat >"$D/judge.sh" <<'EOF'
#!/bin/sh
req=$(cat)
pos() { printf '%s' "$req" | awk -v m="$1" '{ i = index($0, m); if (i) { print NR * 1000000 + i; exit } }'; }
g=$(pos QQGOOD); b=$(pos QQBAD); f=$(pos QQFLIP)
if [ -n "$f" ]; then w=A
elif [ -n "$g" ] && [ -n "$b" ] && [ "$g" -lt "$b" ]; then w=A
elif [ -n "$g" ]; then w=B
else w=TIE; fi
printf '{"reasoning":"markers decide","criteria":{"helpfulness":{"A":3,"B":3},"organization":{"A":3,"B":3},"formatting":{"A":3,"B":3},"usability":{"A":3,"B":3}},"expectations":{},"winner":"%s"}\n' "$w"
EOF
# c6: the candidate has no output (missing_output); c7 is labelled by nobody.
i=0
for pair in "QQBAD a|QQGOOD b" "QQGOOD a|QQBAD b" "QQFLIP a|QQFLIP b" "QQBAD a|QQGOOD b" \
            "QQGOOD a|QQBAD b" "QQGOOD a|-" "QQBAD a|QQGOOD b"; do
    i=$((i + 1))
    printf '{"id":"c%d","prompt":"Question %d?"}\n' $i $i >>"$D/cases.jsonl"
    printf '{"id":"c%d","output":"%s %d"}\n' $i "${pair%%|*}" $i >>"$D/base.jsonl"
    [ "${pair#*|}" = - ] || printf '{"id":"c%d","output":"%s %d"}\n' $i "${pair#*|}" $i >>"$D/cand.jsonl"
done
printf '{"name":"lab","task":"Answer the question.","seed":5,
 "systems":{"baseline":"base.jsonl","candidate":"cand.jsonl"},
 "rubric":{"content":[{"name":"helpfulness","description":"Does it help?"}]},
 "judge":{"provider":"command","command":["sh","%s/judge.sh"],"model":"markers"},
 "cases":"cases.jsonl"}\n' "$D" >"$D/suite.json"
"$ARB" run "$D/suite.json" --db "$DB" --json >"$T/run.json" 2>"$T/err" || die "run: $(cat "$T/err")"
R=$(sqlite3 "$DB" "SELECT max(id) FROM runs")
"$ARB" run "$D/suite.json" --db "$DB" --json >/dev/null 2>"$T/err" || die "second run: $(cat "$T/err")"
R2=$(sqlite3 "$DB" "SELECT max(id) FROM runs")
[ "$(sqlite3 "$DB" "SELECT status FROM verdicts WHERE run = $R AND case_id = 'c6'")" = missing_output ] && ok ||
    bad "test setup: c6 is not missing an output"

# label ANNOTATOR CASE CHOSEN SHOWN [CRITERION_CHOSEN] [NOTE]: CHOSEN a system or tie, SHOWN
# system_a or system_b (the blinding row's column shown as "Response A").
label() {
    sqlite3 "$DB" "INSERT INTO labels (run, case_id, system_a, system_b, annotator, shown_first,
        choice, winner, criteria_json, note, created_at, updated_at)
        SELECT run, case_id, system_a, system_b, '$1', $4,
            CASE '$3' WHEN 'tie' THEN 'tie' WHEN $4 THEN 'A' ELSE 'B' END,
            CASE '$3' WHEN 'tie' THEN 'TIE' ELSE '$3' END,
            CASE '${5:-}' WHEN '' THEN NULL ELSE json_object('helpfulness',
                CASE '${5:-}' WHEN 'tie' THEN 'tie' WHEN $4 THEN 'A' ELSE 'B' END) END,
            nullif('${6:-}', ''), '2026-11-25T10:00:00Z', '2026-11-25T10:00:00Z'
        FROM blinding WHERE run = $R AND case_id = '$2'" || bad "sqlite3: cannot label $2 for $1"
}
# alice saw the blind order, bob the other; carol labelled c3 only.
label alice c1 candidate system_a candidate clear
label alice c2 baseline system_a
label alice c3 tie system_a
label alice c4 baseline system_a
label alice c5 baseline system_a
label bob c1 candidate system_b "" "both fine"
label bob c2 tie system_b tie
label bob c4 candidate system_b
label bob c5 baseline system_b "" "close call"
label carol c3 candidate system_a
n_a=$(sqlite3 "$DB" "SELECT count(DISTINCT system_a) FROM blinding WHERE run = $R AND case_id IN ('c1','c2','c3','c4','c5')")
[ "$n_a" = 2 ] && ok || bad "test setup: the labelled cases show one system first in every blind order"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM labels WHERE choice = 'B'")" -ge 1 ] && ok || bad "test setup: no label chose B"

# 1. The export, exactly.
cat >"$T/want.jsonl" <<'EOF'
{"id":"c1","human":["candidate","candidate"],"criteria":{"helpfulness":["candidate"]},"note":"alice: clear\nbob: both fine"}
{"id":"c2","human":["baseline","tie"],"criteria":{"helpfulness":["tie"]}}
{"id":"c3","human":["tie","candidate"]}
{"id":"c4","human":["baseline","candidate"]}
{"id":"c5","human":["baseline","baseline"],"note":"bob: close call"}
EOF
expect_cmd "export --labels" 0 "" "labels of 5 cases" -- "$ARB" export "$R" --labels --db "$DB"
cmp -s "$T/out" "$T/want.jsonl" && ok || bad "export --labels wrote:
$(cat "$T/out")"
expect_cmd "export --labels -o" 0 "" "" -- "$ARB" export "$R" --labels -o "$T/labels.jsonl" --db "$DB"
cmp -s "$T/labels.jsonl" "$T/want.jsonl" && [ ! -s "$T/out" ] && ok || bad "export --labels -o wrote: $(cat "$T/labels.jsonl")"
printf '%s\n' '{"id":"c1","human":["candidate"],"criteria":{"helpfulness":["candidate"]},"note":"alice: clear"}' \
    '{"id":"c2","human":["baseline"]}' '{"id":"c3","human":["tie"]}' '{"id":"c4","human":["baseline"]}' \
    '{"id":"c5","human":["baseline"]}' >"$T/want-alice.jsonl"
expect_cmd "export --labels --annotator alice" 0 "" "" -- "$ARB" export "$R" --labels --annotator alice -o "$T/alice.jsonl" --db "$DB"
cmp -s "$T/alice.jsonl" "$T/want-alice.jsonl" && ok || bad "export --annotator alice wrote: $(cat "$T/alice.jsonl")"
expect_cmd "export --labels, two annotators named" 0 "" "" -- "$ARB" export "$R" --labels --annotator carol --annotator alice --db "$DB"
[ "$(sed -n 3p "$T/out")" = '{"id":"c3","human":["tie","candidate"]}' ] && [ "$(wc -l <"$T/out")" = 5 ] && ok ||
    bad "export --annotator carol --annotator alice: $(cat "$T/out")"
expect_cmd "export --labels --cases" 0 "" "" -- "$ARB" export "$R" --labels --cases c4,c2 --db "$DB"
[ "$(cat "$T/out")" = "$(sed -n 2p "$T/want.jsonl")
$(sed -n 4p "$T/want.jsonl")" ] && ok || bad "export --labels --cases c4,c2: $(cat "$T/out")"

# 2. The round trip: --labels-from-db measures exactly what the exported file does.
roundtrip() { # roundtrip NAME FORMAT [--annotator X ...]: the file's study, then the database's
    name=$1 format=$2
    shift 2
    "$ARB" export "$R" --labels "$@" -o "$T/rt-$name.jsonl" --db "$DB" 2>"$T/err" || bad "export $name: $(cat "$T/err")"
    "$ARB" calibrate --run "$R" "$T/rt-$name.jsonl" --format "$format" --db "$DB" >"$T/file-$name.out" 2>"$T/err" ||
        bad "calibrate --run FILE ($name): $(cat "$T/err")"
    "$ARB" calibrate --run "$R" --labels-from-db "$@" --format "$format" --db "$DB" >"$T/db-$name.out" 2>"$T/err" ||
        bad "calibrate --labels-from-db ($name): $(cat "$T/err")"
    [ -s "$T/db-$name.out" ] && cmp -s "$T/file-$name.out" "$T/db-$name.out" && ok ||
        bad "calibrate --labels-from-db ($name) differs from the exported file's study:
$(diff "$T/file-$name.out" "$T/db-$name.out" | head -20)"
}
roundtrip all json
roundtrip all-md md
roundtrip alice json --annotator alice
roundtrip bob-carol json --annotator bob --annotator carol
grep -q '"combined":{"n":5,' "$T/db-all.out" && grep -q '"n_items_multi":5' "$T/db-all.out" && ok ||
    bad "the study of the database's labels: $(head -c 600 "$T/db-all.out")"
grep -q '"criteria":{"helpfulness":{"n":2,' "$T/db-all.out" && ok || bad "per-criterion figures: $(grep -o '"criteria":{[^}]*' "$T/db-all.out")"
# Stored under the run's procedure, named for where the labels came from.
[ "$(sqlite3 "$DB" "SELECT labels_path || '|' || source || '|' || run FROM calibrations ORDER BY id DESC LIMIT 1")" = "labels of run $R in $DB|run|$R" ] &&
    ok || bad "stored study: $(sqlite3 "$DB" "SELECT labels_path, source, run FROM calibrations ORDER BY id DESC LIMIT 1")"
same=$(sqlite3 "$DB" "SELECT count(*) FROM calibrations a JOIN calibrations b ON b.id = a.id + 1
    WHERE a.labels_path = '$T/rt-all.jsonl' AND a.study_json = b.study_json AND b.labels_path = 'labels of run $R in $DB'")
[ "$same" = 1 ] && ok || bad "the stored studies of the file and of the database differ"

# 3. An error in the database's labels names them: a criterion the rubric lacks.
sqlite3 "$DB" "INSERT INTO labels (run, case_id, system_a, system_b, annotator, shown_first, choice,
    winner, criteria_json, created_at, updated_at) SELECT run, case_id, system_a, system_b, 'dave',
    system_a, 'tie', 'TIE', '{\"kindness\":\"A\"}', 'now', 'now' FROM blinding WHERE run = $R AND case_id = 'c2'"
expect_cmd "a stored criterion the rubric lacks" 2 "" "labels of run $R in $DB: case 'c2' labels criterion 'kindness', which run $R's rubric does not have" -- \
    "$ARB" calibrate --run "$R" --labels-from-db --annotator dave --db "$DB"

# 4. No labels: export writes nothing and says so (exit 0); calibrate refuses.
expect_cmd "export --labels of a run without labels" 0 "" "run $R2 has no labels: nothing to export" -- "$ARB" export "$R2" --labels --db "$DB"
[ ! -s "$T/out" ] && ok || bad "export of no labels printed: $(cat "$T/out")"
echo stale >"$T/none.jsonl"
expect_cmd "export --labels -o of a run without labels" 0 "" "has no labels" -- "$ARB" export "$R2" --labels -o "$T/none.jsonl" --db "$DB"
[ -f "$T/none.jsonl" ] && [ ! -s "$T/none.jsonl" ] && ok || bad "export -o of no labels left: $(cat "$T/none.jsonl")"
expect_cmd "export --labels --annotator nobody" 0 "" "run $R has no labels by 'nobody': nothing to export" -- "$ARB" export "$R" --labels --annotator nobody --db "$DB"
expect_cmd "calibrate --labels-from-db without labels" 2 "" "run $R2 has no labels in '$DB': label its pairs with 'arbiter view --label'" -- \
    "$ARB" calibrate --run "$R2" --labels-from-db --db "$DB"
expect_cmd "calibrate --labels-from-db --annotator nobody" 2 "" "run $R has no labels by 'nobody' in '$DB'" -- \
    "$ARB" calibrate --run "$R" --labels-from-db --annotator nobody --db "$DB"

# 5. Misuse, said plainly.
expect_cmd "export --labels of a missing run" 2 "" "no run 99 in" -- "$ARB" export 99 --labels --db "$DB"
expect_cmd "export --labels and --csv" 2 "" "usage: arbiter export RUN (--comparisons DIR | --jsonl | --csv | --labels)" -- "$ARB" export "$R" --labels --csv --db "$DB"
expect_cmd "export --annotator without --labels" 2 "" "--annotator goes with --labels" -- "$ARB" export "$R" --csv --annotator alice --db "$DB"
expect_cmd "export --annotator ''" 2 "" "--annotator: expected an annotator's name, got ''" -- "$ARB" export "$R" --labels --annotator '' --db "$DB"
expect_cmd "export --labels -o onto the database" 2 "" "" -- "$ARB" export "$R" --labels -o "$DB" --db "$DB"
expect_cmd "calibrate LABELS and --labels-from-db" 2 "" "give LABELS or --labels-from-db, not both" -- \
    "$ARB" calibrate --run "$R" "$T/labels.jsonl" --labels-from-db --db "$DB"
expect_cmd "calibrate --labels-from-db without --run" 2 "" "--labels-from-db goes with --run RUN" -- "$ARB" calibrate --labels-from-db --db "$DB"
expect_cmd "calibrate --annotator without --labels-from-db" 2 "" "--annotator goes with --labels-from-db" -- \
    "$ARB" calibrate --run "$R" "$T/labels.jsonl" --annotator alice --db "$DB"
expect_cmd "export --help" 0 "arbiter export RUN --labels [-o FILE] [--annotator NAME ...]" "" -- "$ARB" export --help
expect_cmd "calibrate --help" 0 "--labels-from-db" "" -- "$ARB" calibrate --help

test_done
