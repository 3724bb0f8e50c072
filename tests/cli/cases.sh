# Cases for tests/cli/run.sh (sourced): t NAME EXIT STDOUT_HAS STDERR_HAS -- ARGS...
D=tests/data/cli

# Top level.
t "help lists check" 0 "check" "" -- --help
t "version" 0 "arbiter " "" -- --version
t "no command is usage" 2 "" "usage: arbiter COMMAND" --
t "unknown command" 2 "" "unknown command 'frobnicate'" -- frobnicate
t "help check" 0 "--observed-file" "" -- help check

# Every command reads its options the same way (src/cli/parse_options.c).
t "version is the Makefile's VERSION" 0 "arbiter $(sed -n 's/^VERSION = //p' Makefile)" "" -- --version
for c in check run runs show report export compare replay calibrate migrate; do
    t "$c --help" 0 "usage: arbiter $c" "" -- $c --help
done
t "--opt=value" 0 '"verdict":"pass"' "" -- check '{"op":"exact","expected":"a"}' --observed=a
t "a value may start with a dash" 1 '"observed":"-a"' "" -- check '{"op":"exact","expected":"a"}' --observed -a
t "a missing value is named" 2 "" "arbiter check: --observed needs a value (see 'arbiter check --help')" -- check '{"op":"exact","expected":"a"}' --observed
t "a flag takes no value" 2 "" "arbiter check: --operators takes no value, got '--operators=yes'" -- check --operators=yes
t "-- ends the options" 2 "" "unexpected argument '--observed': give one CHECK" -- check '{"op":"exact","expected":"a"}' -- --observed
t "--db= is refused" 2 "" "arbiter runs: --db: expected a file name, got ''" -- runs --db=
t "an unknown option points at the command's help" 2 "" "arbiter report: unknown option '--formt' (see 'arbiter report --help')" -- report 1 --formt md

# check: verdicts and exit codes.
t "pass exits 0" 0 '"verdict":"pass"' "" -- check '{"op":"normalized_exact","expected":"The answer is 42."}' --observed 'the answer is  42.'
t "record has every member in order" 0 '{"operator":"exact","expected":"a","observed":"a","normalization":[],"notes":[],"score":1,"threshold":1,"fail_below":null,"verdict":"pass"}' "" -- check '{"op":"exact","expected":"a"}' --observed a
t "fail exits 1" 1 '"verdict":"fail"' "" -- check '{"op":"exact","expected":"a"}' --observed b
# No hidden normalization (issue 19): each conversion is named and the values compared are shown.
t "numeric names each conversion and the numbers compared" 0 '"observed":"$1,234.50","normalization":["currency_symbol","thousands_separator"],"compared":{"expected":1234.5,"observed":1234.5,"expected_steps":[],"observed_steps":["currency_symbol","thousands_separator"]},"notes":[]' "" -- check '{"op":"numeric","expected":1234.5}' --observed '$1,234.50'
t "numeric reads 12 % as 12" 1 '"normalization":["whitespace","percent_sign"],"compared":{"expected":0.12,"observed":12,' "" -- check '{"op":"numeric","expected":0.12}' --observed '12 %'
t "json_match reads an absent key as null and says so" 0 '"compared":{"expected":{"a":null},"observed":{"a":null},"expected_steps":["rfc8785"],"observed_steps":["absent_as_null","rfc8785"]},"notes":["absent_as_null: observed has no '"'a'"'' "" -- check '{"op":"json_match","expected":{"a":null}}' --observed '{}'
t "trajectories name argument canonicalization" 0 '"normalization":["json_canonical_args","arguments_text_parsed"],"compared":{"expected":[{"args":{"a":1,"b":2},"name":"f"}],"observed":[{"args":{"a":1,"b":2},"name":"f"}]' "" -- check '{"op":"trajectory_exact","expected":[{"name":"f","args":{"b":2,"a":1}}]}' --observed '{"tool_calls":[{"function":{"name":"f","arguments":"{\"a\": 1.0, \"b\": 2}"}}]}'
t "unresolved exits 3" 3 '"verdict":"unresolved"' "" -- check '{"op":"levenshtein","expected":"kitten","threshold":0.8,"fail_below":0.5}' --observed sitting
t "check --help" 0 "usage: arbiter check" "" -- check --help
t "operators listed" 0 "trajectory_any_order" "" -- check --operators
STDIN='{"a": 1}' t "observed from stdin" 0 '"score":1' "" -- check '{"op":"json_valid"}'
t "observed from file" 0 '"verdict":"pass"' "" -- check '{"op":"contains","expected":"Acme"}' --observed-file $D/out.txt
t "check from @file with expected_file relative to it" 0 '"verdict":"pass"' "" -- check @$D/check_schema_file.json --observed '{"invoiceNumber":"INV-1","total":12.5}'
t "directory output with file" 0 '"verdict":"pass"' "" -- check '{"op":"contains","expected":"hello","file":"answer.txt"}' --observed-file $D/outdir
t "directory output without file" 2 "" "is a directory" -- check '{"op":"contains","expected":"hello"}' --observed-file $D/outdir
t "invalid pattern is refused like a suite's (issue 15)" 2 "" "CHECK:1:26: /expected: invalid_regex_pattern: missing closing parenthesis" -- check '{"op":"regex","expected":"(unclosed"}' --observed x
t "invalid pattern from a batch line's expected is a note" 0 'invalid_regex_pattern' "" -- check --batch $D/regex_case_pattern.jsonl
t "not json text noted" 1 'json_parse_failed' "" -- check '{"op":"json_valid"}' --observed '{"a":'
t "fields leaf: a type mismatch is noted (issue 19)" 1 '"notes":["type mismatch: expected number, observed string"]' "" -- check '{"op":"fields","fields":{"a":"exact"},"expected":{"a":1}}' --observed '{"a":"1"}'
t "fields leaf: a numeric string read as a number is recorded" 0 '"normalization":["string_to_number"]' "" -- check '{"op":"fields","fields":{"a":"numeric"},"expected":{"a":1}}' --observed '{"a":"1.0"}'

# check: usage and input errors exit 2 with a message naming the problem.
t "missing CHECK" 2 "" "missing CHECK" -- check
t "malformed CHECK names line and column" 2 "" "CHECK:1:14: unexpected end of input" -- check '{"op":"exact"' --observed a
t "unknown operator suggests" 2 "" "/op: unknown operator 'exactt' (did you mean 'exact'?)" -- check '{"op":"exactt","expected":"a"}' --observed a
t "unknown parameter" 2 "" "/tolerence: unknown parameter 'tolerence' for operator 'within'" -- check '{"op":"within","expected":1,"tolerence":2}' --observed 1
t "no expected anywhere" 2 "" "needs an expected value" -- check '{"op":"exact"}' --observed 1
t "both observed options" 2 "" "not both" -- check '{"op":"json_valid"}' --observed a --observed-file b
t "unknown option" 2 "" "unknown option '--obs' (see 'arbiter check --help')" -- check '{"op":"json_valid"}' --obs a
t "missing observed file" 2 "" "cannot open 'no/such/file'" -- check '{"op":"json_valid"}' --observed-file no/such/file
t "missing check file" 2 "" "cannot open 'no/such.json'" -- check @no/such.json --observed a
t "two CHECKs" 2 "" "unexpected argument" -- check '{"op":"json_valid"}' '{"op":"json_valid"}' --observed a

# check --batch: one record per line, in order; bad lines reported inline.
t "batch records in order" 0 '"line":3,"error":"/check/op: unknown operator' "" -- check --batch $D/batch.jsonl
t "batch counts lines" 0 "" "" -- check --batch $D/batch.jsonl
if [ "$(wc -l <"$T/out")" -eq "$(wc -l <$D/batch.jsonl)" ]; then ok; else bad "batch writes exactly one line per input line"; fi
sed -n 1p "$T/out" | grep -q '"operator":"exact".*"verdict":"pass"' && ok || bad "batch line 1"
sed -n 2p "$T/out" | grep -q '"operator":"regex".*"verdict":"fail"' && ok || bad "batch line 2"
sed -n 4p "$T/out" | grep -q '"line":4,"error":"line 1, column' && ok || bad "batch line 4 (malformed JSON)"
sed -n 5p "$T/out" | grep -q '"line":5,"error":"/observed: missing"' && ok || bad "batch line 5 (missing observed)"
sed -n 6p "$T/out" | grep -q '"expected":"INV-1".*"verdict":"pass"' && ok || bad "batch line 6 (case expected)"
sed -n 7p "$T/out" | grep -q '"line":7,"error":"/extra: unknown key' && ok || bad "batch line 7 (unknown key)"
sed -n 8p "$T/out" | grep -q '"observed":"{\\"a\\":1}"' && ok || bad "batch line 8 (non-string observed)"
STDIN='{"check":{"op":"contains","expected":"b"},"observed":"abc"}
' t "batch from stdin" 0 '"verdict":"pass"' "" -- check --batch -
STDIN=$(printf '{"check":{"op":"exact","expected":"a"},"observed":"a"}\r\n{"check":{"op":"exact","expected":"a"},"observed":"b"}\r\n') t "batch CRLF lines" 0 '"verdict":"fail"' "" -- check --batch -
t "batch missing file" 2 "" "cannot open 'no/such.jsonl'" -- check --batch no/such.jsonl
t "batch extra argument" 2 "" "--batch takes one FILE" -- check --batch a b

# Every record a batch writes conforms to schemas/record.schema.json (checked by Arbiter itself).
$ARB check --batch tests/data/cli/batch.jsonl | grep '"operator"' >"$T/records.jsonl"
$ARB check --batch examples/checks.jsonl >>"$T/records.jsonl"
n=0
while IFS= read -r rec; do
    n=$((n + 1))
    printf '%s' "$rec" >"$T/rec.json"
    if $ARB check '{"op":"json_schema","expected_file":"schemas/record.schema.json"}' \
        --observed-file "$T/rec.json" >"$T/v.out" 2>&1; then
        ok
    else
        bad "record $n does not match schemas/record.schema.json: $(head -c 400 "$T/v.out")"
    fi
done <"$T/records.jsonl"

# run, runs, show, report, export on the bundled bake-off.
DB="$T/demo.db"
t "run the example" 0 "30 cases: " "" -- run examples/invoice/suite.json --db "$DB"
t "run prints the report command" 0 "report: arbiter report" "" -- run examples/invoice/suite.json --db "$DB"
t "run --json" 0 '"run":3,"cases":30' "" -- run examples/invoice/suite.json --db "$DB" --json
t "runs lists them" 0 "invoice-extractor bake-off" "" -- runs --db "$DB"
t "report md" 0 "| candidate |" "" -- report latest --db "$DB"
t "report json" 0 '"missing_output":' "" -- report 1 --db "$DB" --format json
t "report to a file" 0 "" "" -- report latest --db "$DB" -o "$T/report.md"
grep -q "# Arbiter report" "$T/report.md" && ok || bad "report -o wrote no report"
t "show a case" 0 "--- verdict: A = " "" -- show latest inv-006 --db "$DB"
t "show json" 0 '"kind":	"criterion"' "" -- show latest inv-006 --db "$DB" --json
t "show unknown case" 2 "" "has no case 'nope'" -- show latest nope --db "$DB"
[ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ] && ok ||
    bad "show unknown case: the error alone, got: $(cat "$T/out" "$T/err")"
t "show unknown run" 2 "" "" -- show 999 inv-006 --db "$DB"
[ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ] && ok ||
    bad "show unknown run: the error alone, got: $(cat "$T/out" "$T/err")"
# A command judge has no model or URL: the overrides are refused, not ignored.
printf '{"provider": "command", "command": ["true"]}' >"$T/cmd-judge.json"
t "judge-model refused for a command judge" 2 "" "--judge-model: a command judge has no model to override (it runs 'true')" -- run examples/invoice/suite.json --judge "$T/cmd-judge.json" --judge-model gpt-4o --db "$T/cmd.db"
t "judge-url refused for a command judge" 2 "" "--judge-url: a command judge has no URL to override" -- run examples/invoice/suite.json --judge "$T/cmd-judge.json" --judge-url http://127.0.0.1:9/v1 --db "$T/cmd.db"
t "export comparisons" 0 "" "30 comparison files" -- export latest --comparisons "$T/cmp" --db "$DB"
grep -q '"systems"' "$T/cmp/inv-001.json" && ok || bad "exported comparison lacks systems"
t "export jsonl" 0 '"kind":"expectation"' "" -- export latest --jsonl --db "$DB"
t "same suite, same seed, same verdicts" 0 "" "" -- export 1 --comparisons "$T/cmp1" --db "$DB"
t "" 0 "" "" -- export 2 --comparisons "$T/cmp2" --db "$DB"
diff -r "$T/cmp1" "$T/cmp2" >/dev/null && ok || bad "two runs of one suite differ"
t "seed changes the blinding" 0 "" "" -- run examples/invoice/suite.json --db "$DB" --seed 8
t "" 0 "" "" -- export latest --comparisons "$T/cmp8" --db "$DB"
diff -r "$T/cmp1" "$T/cmp8" >/dev/null && bad "seed 8 blinds like seed 7" || ok
t "resume a complete run changes nothing" 0 "30 cases: " "" -- run --resume 1 --db "$DB"
t "" 0 "" "" -- export 1 --comparisons "$T/cmp1b" --db "$DB"
diff -r "$T/cmp1" "$T/cmp1b" >/dev/null && ok || bad "resume changed records"

# run: bad input and environment.
t "run needs a suite" 2 "" "missing SUITE" -- run --db "$DB"
t "run suite and resume" 2 "" "not both" -- run examples/invoice/suite.json --resume 1 --db "$DB"
t "run bad --seed" 2 "" "--seed: expected a whole number" -- run examples/invoice/suite.json --seed -3 --db "$DB"
t "run unknown operator located" 2 "" "unknown_op.json:14:17: /rubric/content/0/check/op: unknown operator 'exactt' (did you mean 'exact'?)" -- run tests/data/suite/bad/unknown_op.json --db "$T/x.db"
t "run missing suite file" 2 "" "cannot open 'no/such/suite.json'" -- run no/such/suite.json --db "$T/x.db"
t "run malformed --system" 2 "" "--system expects NAME=PATH, got 'bad'" -- run tests/data/cli/hostile/suite.json --system bad --db "$T/x.db"
t "run one system only" 2 "" "at least two systems" -- run tests/data/cli/one_system.json --db "$T/x.db"
printf 'this is not a database, just text that is long enough to look like a header......' >"$T/not.db"
t "not a database" 4 "" "is not an Arbiter database" -- run examples/invoice/suite.json --db "$T/not.db"
t "resume unknown run" 2 "" "no run 99" -- run --resume 99 --db "$DB"
t "report without a database" 2 "" "no database at" -- report latest --db "$T/none.db"
t "run creates the database" 0 "" "" -- run tests/data/cli/hostile/suite.json --db "$T/fresh.db"
t "report on a database without that run" 2 "" "no run 7" -- report 7 --db "$T/fresh.db"

# Hostile case ids stay data: SQL, paths and duplicates.
t "hostile ids run" 0 "3 cases" "" -- run tests/data/cli/hostile/suite.json --db "$T/h.db"
t "hostile ids reported" 0 "unknown_case" "" -- report latest --db "$T/h.db"
t "duplicate output reported" 0 "duplicate_output" "" -- report latest --db "$T/h.db" --format json
t "runs table survives" 0 "hostile ids" "" -- runs --db "$T/h.db"
t "export keeps hostile ids inside" 0 "" "3 comparison files" -- export latest --comparisons "$T/hx" --db "$T/h.db"
[ -f "$T/hx/%2E.%2F..%2Fetc%2Fpasswd.json" ] && [ "$(ls "$T/hx" | wc -l)" -eq 3 ] && ok || bad "export file names: $(ls "$T/hx")"

# More than two systems: every pair is blinded and decided.
t "three systems" 0 '"systems":[{"name":"x","wins":3,"losses":0,"ties":1},{"name":"y","wins":1,"losses":1,"ties":2},{"name":"z","wins":0,"losses":3,"ties":1}]' "" -- run tests/data/cli/three/suite.json --db "$T/three.db" --json
t "three systems export by pair" 0 "" "6 comparison files" -- export latest --comparisons "$T/three" --db "$T/three.db"

# compare without a judge: deterministic items decided, the rest unresolved.
printf 'The capital of France is Paris.' >"$T/ca.txt"
printf 'Paris, I believe.' >"$T/cb.txt"
printf '[{"id": "paris", "text": "Names Paris", "check": {"op": "icontains", "expected": "paris"}}]' >"$T/ce.json"
t "compare without a judge" 0 "winner: none (pending_judge)" "" -- compare --task "Capital of France?" --expectations "$T/ce.json" "$T/ca.txt" "$T/cb.txt" -o "$T/cmp.json"
grep -q '"passed":	true' "$T/cmp.json" && ok || bad "compare lost the deterministic expectation"
t "compare needs a task" 2 "" "usage: arbiter compare" -- compare "$T/ca.txt" "$T/cb.txt"
t "compare missing file" 2 "" "cannot read" -- compare --task x "$T/ca.txt" "$T/none.txt"

# report: statistics, JSON schema, gates.
t "report statistical md" 0 "## Statistics (1000 bootstrap resamples, seed 7" "" -- report 1 --db "$DB" --strategy statistical
t "report statistical json" 0 "" "" -- report 1 --db "$DB" --strategy statistical --format json -o "$T/rep.json"
grep -q "\"sign_test_p\":" "$T/rep.json" && ok || bad "no sign test in the JSON report"
t "report json conforms to schemas/report.schema.json" 0 '"verdict":"pass"' "" -- check '{"op":"json_schema","expected_file":"schemas/report.schema.json"}' --observed-file "$T/rep.json"
t "report plain json conforms too" 0 "" "" -- report 1 --db "$DB" --format json -o "$T/rep0.json"
t "" 0 '"verdict":"pass"' "" -- check '{"op":"json_schema","expected_file":"schemas/report.schema.json"}' --observed-file "$T/rep0.json"
t "same report twice (seeded bootstrap)" 0 "" "" -- report 1 --db "$DB" --strategy statistical --format json -o "$T/rep2.json"
cmp -s "$T/rep.json" "$T/rep2.json" && ok || bad "two statistical reports of one run differ"
COMPARE_BOOTSTRAP_ITERATIONS=50 t "bootstrap iterations from the environment" 0 "## Statistics (50 bootstrap resamples" "" -- report 1 --db "$DB" --strategy statistical
t "gate passes" 0 "- win_rate>=0.6: passed" "" -- report 1 --db "$DB" --fail-under win_rate=0.6
t "gate missed exits 1 with one line" 1 "" "gate failed: win_rate of candidate is 0.6765, below 0.9" -- report 1 --db "$DB" --fail-under win_rate=0.9
t "pass rate gate" 1 "" "gate failed: pass_rate of baseline is 0.8254, below 0.9" -- report 1 --db "$DB" --fail-under pass_rate=0.9 --candidate baseline
t "require significant passes for the candidate" 0 "- significant_vs_a: passed" "" -- report 1 --db "$DB" --require-significant
t "require significant fails for the baseline" 1 "" "baseline is not significantly better than candidate" -- report 1 --db "$DB" --require-significant --candidate baseline
t "unknown candidate" 2 "" "--candidate: no system 'nobody'" -- report 1 --db "$DB" --fail-under win_rate=0.5 --candidate nobody
t "bad gate" 2 "" "--fail-under: expected win_rate=X or pass_rate=X" -- report 1 --db "$DB" --fail-under speed=3
t "weighted strategy" 0 "| baseline | 0.769 | rubric (0/29 outputs scored) | 2552 | 1.000 | 1.000 | 0.884 |" "" -- report 1 --db "$DB" --strategy weighted
COMPARE_QUALITY=0.8 COMPARE_LATENCY=0 t "weighted weights from the environment" 0 "| baseline | 0.769 | rubric (0/29 outputs scored) | 2552 | 1.000 | 1.000 | 0.815 |" "" -- report 1 --db "$DB" --strategy weighted
COMPARE_QUALITY=2 t "weighted bad weight" 2 "" "COMPARE_QUALITY: expected a weight from 0 to 1" -- report 1 --db "$DB" --strategy weighted
t "unknown strategy" 2 "" "--strategy: expected statistical, weighted, custom or hybrid" -- report 1 --db "$DB" --strategy vibes
t "three systems get Bradley-Terry" 0 "Bradley-Terry ratings" "" -- report latest --db "$T/three.db" --strategy statistical

# Every exported comparison.json conforms to schemas/comparison.schema.json.
for f in "$T"/cmp/*.json "$T"/hx/*.json "$T"/three/*.json "$T/cmp.json"; do
    [ -f "$f" ] || continue
    if $ARB check '{"op":"json_schema","expected_file":"schemas/comparison.schema.json"}' --observed-file "$f" >"$T/v.out" 2>&1; then
        ok
    else
        bad "$f does not match schemas/comparison.schema.json: $(head -c 400 "$T/v.out")"
    fi
done

# calibrate: an offline study on recorded verdicts (tests/data/calibrate, hand-computed in
# tests/unit/test_calibrate.c), its schema, markdown, policies and located input errors.
C=tests/data/calibrate
t "calibrate offline" 0 '"combined":{"n":6,"resolved":5,"unresolved":1,"correct":3' "" -- calibrate $C/pairs.jsonl --db "$T/cal.db"
t "calibrate S2 and first-biased" 0 '"first_biased":1,"second_biased":0' "" -- calibrate $C/pairs.jsonl --db "$T/cal.db"
t "calibrate net-vote" 0 '"policy":"net-vote"' "" -- calibrate $C/pairs.jsonl --db "$T/cal.db" --policy net-vote
grep -q '"correct":4,"accuracy":0.66666666666666663' "$T/out" && ok || bad "net-vote combined correct"
t "calibrate unparsed as tie" 0 '"unparsed":"tie"' "" -- calibrate $C/pairs.jsonl --db "$T/cal.db" --unparsed tie
t "calibrate annotators" 0 '"annotator_kappa":[{"pair":"1-2"' "" -- calibrate $C/annotators.jsonl --db "$T/cal.db"
t "calibrate expectations" 0 '"kind":"expectation"' "" -- calibrate $C/expectations.jsonl --db "$T/cal.db"
t "calibrate markdown" 0 "agreement without ties (S2, 2 items) | 1 |" "" -- calibrate $C/pairs.jsonl --db "$T/cal.db" --format md
grep -q '^- \*\*S2\*\* (agreement without ties)' "$T/out" && ok || bad "calibrate markdown lacks the definitions"
for f in pairs annotators expectations; do
    $ARB calibrate $C/$f.jsonl --db "$T/cal.db" --bootstrap 100 >"$T/cal-$f.json" 2>"$T/err"
    if $ARB check '{"op":"json_schema","expected_file":"schemas/calibration.schema.json"}' \
        --observed-file "$T/cal-$f.json" >"$T/v.out" 2>&1; then
        ok
    else
        bad "calibrate $f does not match schemas/calibration.schema.json: $(head -c 400 "$T/v.out")"
    fi
done
$ARB calibrate $C/pairs.jsonl --db "$T/cal.db" >"$T/cal1.json" 2>&1
$ARB calibrate $C/pairs.jsonl --db "$T/cal.db" >"$T/cal2.json" 2>&1
cmp -s "$T/cal1.json" "$T/cal2.json" && ok || bad "two calibrations of the same labels differ (seeded bootstrap)"
t "calibrate bad label located" 2 "" "bad_human.jsonl:2:56: /human: expected \"1\", \"2\", \"tie\" or a list of them" -- calibrate $C/bad_human.jsonl --db "$T/cal.db"
t "calibrate bad annotator label" 2 "" ":1:67: /human/2: expected" -- calibrate $C/bad_annotator.jsonl --db "$T/cal.db"
t "calibrate unknown order" 2 "" "/judge/order_13: unknown key" -- calibrate $C/bad_order.jsonl --db "$T/cal.db"
t "calibrate duplicate id" 2 "" "duplicate.jsonl:2:8: /id: duplicate id 'a' (first on line 1)" -- calibrate $C/duplicate.jsonl --db "$T/cal.db"
t "calibrate malformed line" 2 "" "malformed.jsonl:2:60: " -- calibrate $C/malformed.jsonl --db "$T/cal.db"
t "calibrate online needs a judge" 2 "" "items without recorded verdicts need a judge (--judge FILE)" -- calibrate $C/online.jsonl --db "$T/cal.db"
t "calibrate missing labels" 2 "" "cannot open labels 'no/such.jsonl'" -- calibrate no/such.jsonl --db "$T/cal.db"
t "calibrate bad policy" 2 "" "--policy: expected inconsistent-tie or net-vote" -- calibrate $C/pairs.jsonl --policy majority
t "calibrate bad bootstrap" 2 "" "--bootstrap: expected a whole number from 1 to 1000000, got '0'" -- calibrate $C/pairs.jsonl --bootstrap 0
t "calibrate needs LABELS" 2 "" "missing LABELS" -- calibrate
t "calibrate help" 0 "usage: arbiter calibrate --run RUN (LABELS | --labels-from-db" "" -- calibrate --help
t "run --require-calibrated needs a judge" 2 "" "--require-calibrated needs a judge" -- run examples/invoice/suite.json --db "$T/cal.db" --no-judge --require-calibrated 0.5
t "run --require-calibrated range" 2 "" "--require-calibrated: expected a kappa from -1 to 1" -- run examples/invoice/suite.json --db "$T/cal.db" --require-calibrated 2

# A database of an older schema (3: cases_by_seq, before migrations 4 to 9): readers refuse it
# and say how to migrate; `arbiter migrate` brings it to the current schema with its records.
$ARB report 1 --db "$DB" --format json -o "$T/rep-current.json" >/dev/null 2>&1
cp "$DB" "$T/v3.db"
# Migration 11 undone: each verdict's comparison_json in its row again; then migration 10
# (called 9 here: it came after the 9 this test was written for): each check record whole
# again (v_checks puts the kept texts back).
UNDO_MIGRATION_11="UPDATE verdicts SET comparison_inline = (SELECT t.body FROM verdict_texts t
                    WHERE t.id = verdicts.comparison) WHERE comparison IS NOT NULL;
                    DROP VIEW v_verdicts; ALTER TABLE verdicts DROP COLUMN comparison;
                    ALTER TABLE verdicts RENAME COLUMN comparison_inline TO comparison_json;
                    DROP TABLE verdict_texts;"
UNDO_MIGRATION_9="$UNDO_MIGRATION_11 CREATE TABLE checks_v8 (id INTEGER PRIMARY KEY, run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
                    case_id TEXT NOT NULL, system TEXT NOT NULL, kind TEXT NOT NULL, item TEXT NOT NULL,
                    verdict TEXT NOT NULL CHECK (verdict = 'pass' OR verdict = 'fail' OR verdict = 'unresolved'),
                    score REAL, record_json TEXT NOT NULL, UNIQUE (run, case_id, system, kind, item));
                    INSERT INTO checks_v8 SELECT id, run, case_id, system, kind, item, verdict, score, record_json FROM v_checks;
                    DROP VIEW v_checks; DROP VIEW v_expectation_pass_rates; DROP VIEW v_system_pass_rates;
                    DROP TABLE checks; DROP TABLE check_texts; ALTER TABLE checks_v8 RENAME TO checks;
                    CREATE VIEW v_expectation_pass_rates AS SELECT run, system, item AS expectation FROM checks;
                    CREATE VIEW v_system_pass_rates AS SELECT run, system FROM checks;"
sqlite3 "$T/v3.db" "$UNDO_MIGRATION_9
                    DROP INDEX cases_by_seq_id; CREATE INDEX cases_by_seq ON cases (run, seq);
                    ALTER TABLE runs DROP COLUMN scope_json;
                    ALTER TABLE runs DROP COLUMN inputs_json;
                    ALTER TABLE runs DROP COLUMN kind;
                    ALTER TABLE runs DROP COLUMN procedure_hash;
                    DROP INDEX calibrations_by_procedure;
                    ALTER TABLE calibrations DROP COLUMN procedure_hash;
                    ALTER TABLE calibrations DROP COLUMN source;
                    ALTER TABLE judge_calls DROP COLUMN cached_tokens;
                    ALTER TABLE judge_calls DROP COLUMN valid;
                    ALTER TABLE judge_calls DROP COLUMN charged_usd;
                    ALTER TABLE judge_calls DROP COLUMN response_format;
                    ALTER TABLE judge_calls DROP COLUMN stop_reason;
                    ALTER TABLE judge_calls DROP COLUMN normalization;
                    ALTER TABLE judge_calls DROP COLUMN error_type;
                    ALTER TABLE judge_calls DROP COLUMN error_code;
                    ALTER TABLE judge_calls DROP COLUMN error_message;
                    DROP TABLE judge_calls_rejected;
                    ALTER TABLE judgments DROP COLUMN fence;
                    ALTER TABLE judgments DROP COLUMN reply_sha256;
                    PRAGMA user_version = 3" || bad "sqlite3: cannot make a schema-3 database"
t "a reader refuses an older schema" 2 "" "has schema version 3 and needs migrating to 11: run 'arbiter migrate --db" -- report 1 --db "$T/v3.db"
t "migrate an older schema" 0 "v3.db: migrated to schema version 11" "" -- migrate --db "$T/v3.db"
t "migrate a current one" 0 "v3.db: already at schema version 11" "" -- migrate --db "$T/v3.db"
t "report after migrate" 0 "" "" -- report 1 --db "$T/v3.db" --format json -o "$T/rep-migrated.json"
# Identical but for the procedure's identity, which a run stored before migration 7 lacks.
sed -e '/"procedure_hash":/d' -e 's/,$//' "$T/rep-current.json" >"$T/rep-current-7.json"
sed -e 's/,$//' "$T/rep-migrated.json" >"$T/rep-migrated-7.json"
cmp -s "$T/rep-current-7.json" "$T/rep-migrated-7.json" && ok ||
    bad "the migrated database reports differently: $(diff "$T/rep-current-7.json" "$T/rep-migrated-7.json" | head -5)"
grep -q '"procedure_hash":' "$T/rep-current.json" && ok || bad "the current report names no procedure"
[ "$(sqlite3 "$T/v3.db" "SELECT count(*) FROM sqlite_master WHERE name = 'cases_by_seq_id'")" = 1 ] &&
    ok || bad "migrate did not apply migration 4"
t "migrate no database" 2 "" "no database at 'no/such.db'" -- migrate --db no/such.db
printf 'not a database at all, just text...............................................' >"$T/junk.db"
t "migrate not a database" 4 "" "is not an Arbiter database" -- migrate --db "$T/junk.db"
cp "$DB" "$T/v99.db"
sqlite3 "$T/v99.db" "PRAGMA user_version = 99" || bad "sqlite3: cannot set user_version 99"
t "migrate a newer schema" 2 "" "newer than this build of Arbiter knows (11)" -- migrate --db "$T/v99.db"
t "migrate help" 0 "usage: arbiter migrate [--db FILE]" "" -- migrate --help
t "migrate bad argument" 2 "" "unknown option '--fast' (see 'arbiter migrate --help')" -- migrate --fast
