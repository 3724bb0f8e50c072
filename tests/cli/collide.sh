#!/bin/sh
# Two case ids with one 64-bit fingerprint: the sets of case ids keep fingerprints, not the
# ids (include/arbiter/fpset.h), so the suite's reader (src/suite/cases.c) confirms a repeat
# by reading the first case again, and a run's ids (src/run/case_ids.c) mark such a slot
# shared and keep its cases' ids exactly.  A collision is about 3e-8 a million ids; here it
# is made: tests/unit/test_blind.c asserts these two ids hash alike (found by undoing the
# hash's last mixing step, a bijection, for a second 16-byte id of printable characters).
# The run must keep them apart: each case its own outputs, checks and verdict, a real repeat
# still refused, a selection of one of them keeping only it.
# usage: tests/cli/collide.sh path/to/arbiter
. "$(dirname "$0")/lib.sh"
ARB="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
A=case-000aaaaaaaa
B=c0169061D9nM3rtY

cd "$T" || die "cannot enter $T"
# suite DIR CASES A_OUTPUTS B_OUTPUTS: a suite in DIR whose cases and outputs are the lines
# given ("id:text" words), a contains check of each case's expected text.
suite() {
    mkdir -p "$1"
    : >"$1/cases.jsonl"
    for c in $2; do
        printf '{"id":"%s","expected":"%s"}\n' "${c%%:*}" "${c#*:}" >>"$1/cases.jsonl"
    done
    for s in a b; do
        : >"$1/$s.jsonl"
        if [ $s = a ]; then outs=$3; else outs=$4; fi
        for o in $outs; do
            printf '{"id":"%s","output":"%s"}\n' "${o%%:*}" "${o#*:}" >>"$1/$s.jsonl"
        done
    done
    cat >"$1/suite.json" <<'JSON'
{"name": "collide", "task": "Name the word.", "systems": {"a": "a.jsonl", "b": "b.jsonl"},
 "rubric": {"content": [{"name": "has", "check": {"op": "contains"}}], "structure": []},
 "cases": "cases.jsonl"}
JSON
}

# Each case its own outputs and verdict: a wins A, b wins B.
suite one "$A:alpha $B:beta" "$A:alpha $B:nothing" "$A:nothing $B:beta"
expect_cmd "both cases are run" 0 "2 cases: 2 decided" "" -- "$ARB" run one/suite.json --db one.db
expect_cmd "no output is taken for a second one" 0 "missing an output 0." "" -- "$ARB" report 1 --db one.db
grep -q duplicate_output out && bad "a duplicate_output problem was recorded: $(grep duplicate out)" || ok
expect_cmd "the first case has its own outputs" 0 "--- output of a (5 bytes)
alpha" "" -- "$ARB" show 1 "$A" --db one.db
grep -q "decided, winner a" out && ok || bad "case $A: $(grep verdict out)"
expect_cmd "the second case has its own outputs" 0 "--- output of b (4 bytes)
beta" "" -- "$ARB" show 1 "$B" --db one.db
grep -q "decided, winner b" out && ok || bad "case $B: $(grep verdict out)"
expect_cmd "each case's records name it" 0 "" "" -- "$ARB" export 1 --jsonl --db one.db
[ "$(grep -c '"case":"'"$A"'","system":"a".*"observed":"alpha"' out)" = 1 ] &&
    [ "$(grep -c '"case":"'"$B"'","system":"b".*"observed":"beta"' out)" = 1 ] &&
    [ "$(grep -c '"case":"'"$A"'"' out)" = 3 ] && [ "$(grep -c '"case":"'"$B"'"' out)" = 3 ] &&
    ok || bad "the records: $(head -c 600 out)" # two checks and a verdict each

# A real repeat of the first id is still refused where it is, naming the first line.
suite rep "$A:alpha $B:beta $A:again" "$A:alpha $B:beta" "$A:alpha $B:beta"
expect_cmd "a repeated id is refused" 2 "" "rep/cases.jsonl:3:7: /id: duplicate case id '$A' (first at line 1)" -- \
    "$ARB" run rep/suite.json --db rep.db

# Inline cases: the reader confirms a hit against the suite's array instead of the file.
mkdir -p inline
cp one/a.jsonl one/b.jsonl inline/
cat >inline/suite.json <<JSON
{"name": "collide", "task": "Name the word.", "systems": {"a": "a.jsonl", "b": "b.jsonl"},
 "rubric": {"content": [{"name": "has", "check": {"op": "contains"}}], "structure": []},
 "cases": [{"id": "$A", "expected": "alpha"}, {"id": "$B", "expected": "beta"}]}
JSON
expect_cmd "inline cases are both run" 0 "2 cases: 2 decided" "" -- "$ARB" run inline/suite.json --db inline.db

# One system without the second case's output: that case lacks it, the first does not.
suite miss "$A:alpha $B:beta" "$A:alpha" "$A:nothing $B:beta"
expect_cmd "a missing output is the second case's" 0 "1 missing an output" "" -- "$ARB" run miss/suite.json --db miss.db
expect_cmd "the first case still has both outputs" 0 "decided, winner a" "" -- "$ARB" show 1 "$A" --db miss.db

# A second output of the second case is one, and is not the first case's.
suite dup "$A:alpha $B:beta" "$A:alpha $B:beta $B:again" "$A:nothing $B:nothing"
expect_cmd "a second output of the second case is noticed" 0 "1 problems while loading" "" -- "$ARB" run dup/suite.json --db dup.db
expect_cmd "as that case's, not the first's" 0 "duplicate_output: a second output for case '$B' was ignored (system a)" "" -- \
    "$ARB" report 1 --db dup.db
expect_cmd "the second case keeps its first output" 0 "--- output of a (4 bytes)
beta" "" -- "$ARB" show 1 "$B" --db dup.db

# A selection of one of the two keeps only it.
expect_cmd "selecting the second keeps only it" 0 "1 cases: 1 decided" "" -- "$ARB" run one/suite.json --db sel.db --cases "$B"
expect_cmd "the selected case is run" 0 "decided, winner b" "" -- "$ARB" show 1 "$B" --db sel.db
expect_cmd "the other is not" 2 "" "" -- "$ARB" show 1 "$A" --db sel.db

test_done
