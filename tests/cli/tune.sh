#!/bin/sh
# arbiter calibrate --tune: a graded check's threshold and fail_below from labelled outputs
# (tests/data/tune, hand-computed in tests/unit/test_tune.c), its schema, markdown, storage,
# exit codes and located input errors.
# usage: tests/cli/tune.sh path/to/arbiter
. "$(dirname "$0")/lib.sh"
ARB="$1"
[ -x "$ARB" ] || { echo "tune tests: no binary at '$ARB'"; exit 2; }
D=tests/data/tune

# expect NAME EXIT STDOUT_HAS STDERR_HAS -- ARGS...: run `arbiter calibrate ARGS` and check all
# three (expect_cmd; its output stays in $T/out and $T/err).
expect() {
    e_name=$1 e_rc=$2 e_out=$3 e_err=$4
    shift 5
    expect_cmd "$e_name" "$e_rc" "$e_out" "$e_err" -- $ARB calibrate "$@"
}

# 1. The chosen band, the best single threshold and the check to paste (target 0.95).
expect "tune a check from @FILE" 0 '"reached":true,"band":{"threshold":0.85,"fail_below":0.6,"agreement":1,"escalation":0.5' "" -- --tune @$D/check.json $D/labels.jsonl
cp "$T/out" "$T/tune.json"
grep -qF '"single":{"threshold":0.85,"fail_below":0.85,"agreement":0.75' "$T/tune.json" && ok || bad "single threshold: $(cat "$T/tune.json")"
grep -qF '"confusion":{"auto_pass":{"human_pass":2,"human_fail":0},"auto_fail":{"human_pass":0,"human_fail":2},"escalated":{"human_pass":2,"human_fail":2}}' "$T/tune.json" && ok || bad "band confusion: $(cat "$T/tune.json")"
grep -qF '"suggested_check":{"op":"levenshtein","expected":"kitten","threshold":0.85,"fail_below":0.6}' "$T/tune.json" && ok || bad "suggested check: $(cat "$T/tune.json")"
grep -qF '{"id":"bitten","line":7,"score":0.83333333333333337,"human":false,"verdict":"unresolved"}' "$T/tune.json" && ok || bad "per-item verdict: $(cat "$T/tune.json")"

# The output conforms to schemas/tune.schema.json (checked by Arbiter itself).
$ARB check '{"op":"json_schema","expected_file":"schemas/tune.schema.json"}' --observed-file "$T/tune.json" >"$T/v.out" 2>&1 && ok || bad "tuning does not match schemas/tune.schema.json: $(head -c 400 "$T/v.out")"

# The suggested check, pasted as is, gives the reported verdicts: bitten escalated, kitten. passes.
sed 's/.*"suggested_check":\({[^}]*}\).*/\1/' "$T/tune.json" >"$T/suggested.json"
$ARB check @"$T/suggested.json" --observed bitten >/dev/null 2>&1
[ $? -eq 3 ] && ok || bad "the suggested check does not leave 'bitten' unresolved"
$ARB check @"$T/suggested.json" --observed kitten. >/dev/null 2>&1 && ok || bad "the suggested check does not pass 'kitten.'"

# 2. A lower target needs no grey band; the same tuning twice is the same bytes.
expect "target 0.75: a single threshold" 0 '"target":0.75,"reached":true,"band":{"threshold":0.85,"fail_below":0.85,"agreement":0.75,"escalation":0' "" -- --tune @$D/check.json $D/labels.jsonl --target 0.75
expect "no fail_below without a grey band" 0 '"suggested_check":{"op":"levenshtein","expected":"kitten","threshold":0.85},' "" -- --tune @$D/check.json $D/labels.jsonl --target 0.75
$ARB calibrate --tune @$D/check.json $D/labels.jsonl >"$T/again.json" 2>&1
cmp -s "$T/tune.json" "$T/again.json" && ok || bad "two tunings of the same labels differ"

# 3. The case's expected value, inline CHECK; an unreachable target exits 1 and says so.
expect "unreachable target" 1 '"reached":false' "" -- --tune '{"op":"levenshtein"}' $D/unreachable.jsonl
grep -qF '"agreement":0.66666666666666663' "$T/out" && ok || bad "best achievable agreement: $(cat "$T/out")"
expect "unreachable in markdown" 1 "No band reaches agreement 0.95; the best achievable is 0.667" "" -- --tune '{"op":"levenshtein"}' $D/unreachable.jsonl --format md

# 4. Markdown.
expect "markdown" 0 "The target is reached: auto-pass at score >= 0.85, auto-fail below 0.6, escalate the rest." "" -- --tune @$D/check.json $D/labels.jsonl --format md
grep -qF '| escalated | 2 | 2 |' "$T/out" && ok || bad "markdown confusion: $(cat "$T/out")"
grep -qF '{"op":"levenshtein","expected":"kitten","threshold":0.85,"fail_below":0.6}' "$T/out" && ok || bad "markdown suggested check"
grep -q '^- \*\*agreement\*\*' "$T/out" && ok || bad "markdown lacks the definitions"

# 5. Stored only with --db, as a calibration row without a judge.
expect "stored with --db" 0 '"reached":true' "" -- --tune @$D/check.json $D/labels.jsonl --db "$T/t.db"
if command -v sqlite3 >/dev/null 2>&1; then
    [ "$(sqlite3 "$T/t.db" "SELECT n, accuracy, judge_hash IS NULL, json_extract(study_json, '\$.kind') FROM calibrations")" = "8|1.0|1|tune" ] && ok || bad "stored row: $(sqlite3 "$T/t.db" 'SELECT n, accuracy, judge_hash FROM calibrations')"
fi
case "$ARB" in /*) abs=$ARB ;; *) abs=$PWD/$ARB ;; esac
(cd "$T" && "$abs" calibrate --tune '{"op":"levenshtein","expected":"kitten"}' "$OLDPWD/$D/labels.jsonl" >/dev/null 2>&1)
[ ! -e "$T/arbiter.db" ] && ok || bad "a database was created without --db"

# 6. Input errors exit 2 and say where.
expect "missing labels file" 2 "" "cannot open labels 'no/such.jsonl'" -- --tune '{"op":"levenshtein"}' no/such.jsonl
expect "missing check file" 2 "" "cannot open 'no/such.json'" -- --tune @no/such.json $D/labels.jsonl
expect "malformed check" 2 "" "CHECK: line 1, column 20: unexpected end of input" -- --tune '{"op":"levenshtein"' $D/labels.jsonl
expect "unknown operator" 2 "" "CHECK: /op: unknown operator 'levenshtien' (did you mean 'levenshtein'?)" -- --tune '{"op":"levenshtien"}' $D/labels.jsonl
expect "not graded" 2 "" "CHECK: /op: operator 'exact' scores only 1 or 0: there is no grey band to tune" -- --tune '{"op":"exact","expected":"kitten"}' $D/labels.jsonl
expect "not graded with max_distance" 2 "" "/max_distance: levenshtein with max_distance scores only 1 or 0" -- --tune '{"op":"levenshtein","expected":"kitten","max_distance":2}' $D/labels.jsonl
expect "negated" 2 "" "/not: a negated check cannot be tuned" -- --tune '{"op":"name","expected":"Acme","not":true}' $D/labels.jsonl
expect "bad label line located" 2 "" "bad_human.jsonl:2:42: /human: expected true or false" -- --tune @$D/check.json $D/bad_human.jsonl
expect "malformed label line located" 2 "" "malformed.jsonl:2:46: unexpected end of input" -- --tune @$D/check.json $D/malformed.jsonl
expect "duplicate id located" 2 "" "duplicate.jsonl:2:8: /id: duplicate id 'a' (first on line 1)" -- --tune @$D/check.json $D/duplicate.jsonl
expect "unknown key located" 2 "" "unknown_key.jsonl:1:48: /judge: unknown key 'judge' (expected: id, output, expected, human (check labels))" -- --tune @$D/check.json $D/unknown_key.jsonl
expect "no expected value" 2 "" "no_expected.jsonl:1: id 'a': operator 'levenshtein' needs an expected value" -- --tune '{"op":"levenshtein"}' $D/no_expected.jsonl
expect "bad target" 2 "" "--target: expected a number, above 0 and at most 1, got '1.5'" -- --tune @$D/check.json $D/labels.jsonl --target 1.5
expect "bad format" 2 "" "--format: expected json or md, got 'html'" -- --tune @$D/check.json $D/labels.jsonl --format html
expect "missing LABELS" 2 "" "missing LABELS" -- --tune @$D/check.json
expect "two LABELS" 2 "" "unexpected argument 'x'" -- --tune @$D/check.json $D/labels.jsonl x
expect "help" 0 "usage: arbiter calibrate --tune CHECK LABELS" "" -- --tune --help
expect "calibrate --help mentions --tune" 0 "arbiter calibrate --tune CHECK LABELS" "" -- --help

test_done
