#!/bin/sh
# Three systems: the pairwise win matrix, and paired tests each against --baseline NAME.
# tests/data/three: six cases, one criterion (exact "ok"); a answers ok everywhere, b in cases
# 1-3, c in case 1.  By hand, row against column (wins-losses-ties, win rate ties half):
#   a: b 3-0-3 (0.75)   c 5-0-1 (0.9167)
#   b: a 0-3-3 (0.25)   c 2-0-4 (0.6667)
#   c: a 0-5-1 (0.0833) b 0-2-4 (0.3333)
# usage: tests/cli/matrix.sh path/to/arbiter
. "$(dirname "$0")/lib.sh"
ARB="$1"
val() { sqlite3 :memory: "SELECT json_extract(readfile('$1'), '$2')"; }
is() { got=$(val "$T/r.json" "$1"); [ "$got" = "$2" ] && ok || bad "$1 = '$got', expected $2"; }
near() {
    got=$(val "$T/r.json" "$1")
    awk -v g="$got" -v e="$2" 'BEGIN { exit !(g != "" && (g - e) < 1e-4 && (e - g) < 1e-4) }' &&
        ok || bad "$1 = '$got', expected $2"
}

$ARB run tests/data/three/suite.json --db "$T/t.db" >/dev/null 2>&1 || bad "run"
$ARB report 1 --db "$T/t.db" --format json -o "$T/r.json" || bad "report"
is '$.win_matrix.systems' '["a","b","c"]'
is '$.win_matrix.wins' '[[0,3,5],[0,0,2],[0,0,0]]'
is '$.win_matrix.losses' '[[0,0,0],[3,0,0],[5,2,0]]'
is '$.win_matrix.ties' '[[0,3,1],[3,0,4],[1,4,0]]'
is '$.win_matrix.win_rate[0][0]' ''
near '$.win_matrix.win_rate[0][2]' 0.916667
near '$.win_matrix.win_rate[2][1]' 0.333333
$ARB check '{"op":"json_schema","expected_file":"schemas/report.schema.json"}' \
    --observed-file "$T/r.json" | grep -q '"verdict":"pass"' && ok || bad "schemas/report.schema.json"
$ARB report 1 --db "$T/t.db" >"$T/r.md" || bad "report md"
grep -q '^| b | 0-3-3 (25.0%) | - | 2-0-4 (66.7%) |$' "$T/r.md" && ok ||
    bad "markdown matrix: $(sed -n '/Pairwise wins/,+9p' "$T/r.md")"

# Every pair by default; with --baseline a, only a's pairs (the same numbers for those).
$ARB report 1 --db "$T/t.db" --format json --strategy statistical -o "$T/all.json" || bad "statistical"
$ARB report 1 --db "$T/t.db" --format json --strategy statistical --baseline a -o "$T/r.json" ||
    bad "--baseline"
[ "$(sqlite3 :memory: "SELECT json_array_length(readfile('$T/all.json'), '\$.pairs')")" = 3 ] &&
    ok || bad "three pairs without a baseline"
[ "$(sqlite3 :memory: "SELECT json_array_length(readfile('$T/r.json'), '\$.pairs')")" = 2 ] && ok ||
    bad "two pairs against the baseline"
is '$.pairs[1].a' a
is '$.pairs[1].b' c
is '$.statistics.baseline' a
# The seed's rule beside the paired tests: a's interval [5, 5] clears b's and c's.
is '$.pairs[0].intervals_separate' 1
is '$.pairs[0].significant' 0
[ "$(val "$T/r.json" '$.pairs[0].paired_bootstrap')" = "$(val "$T/all.json" '$.pairs[0].paired_bootstrap')" ] &&
    ok || bad "the a-b test changed with --baseline"
# Bradley-Terry still uses every game.
[ "$(val "$T/r.json" '$.bradley_terry')" = "$(val "$T/all.json" '$.bradley_terry')" ] && ok ||
    bad "Bradley-Terry changed with --baseline"
$ARB report 1 --db "$T/t.db" --strategy statistical --baseline zz >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q "\-\-baseline: 'zz' is not a system of run 1" "$T/err" && ok ||
    bad "unknown baseline: $(cat "$T/err")"
# Without the paired tests, --baseline would do nothing: refused.
$ARB report 1 --db "$T/t.db" --baseline a >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q "\-\-baseline chooses the paired tests" "$T/err" && ok || bad "lone --baseline: $(cat "$T/err")"
# The gate judges the candidate against the baseline only (a vs c: sign test p = 0.0625).
$ARB report 1 --db "$T/t.db" --candidate a --require-significant >/dev/null 2>"$T/err"
[ $? -eq 1 ] && grep -q "than b " "$T/err" && grep -q "than c " "$T/err" && ok ||
    bad "gate against every system: $(cat "$T/err")"
$ARB report 1 --db "$T/t.db" --candidate a --baseline c --require-significant >/dev/null 2>"$T/err"
[ $? -eq 1 ] && grep -q "a is not significantly better than c " "$T/err" && ! grep -q "than b " "$T/err" &&
    ok || bad "gate with a baseline: $(cat "$T/err")"

# A fourth system with no outputs, named to sort first ("0"): every pair with it is
# missing_output; the others' score intervals must not lose cases to those pairs.
mkdir -p "$T/four"
cp tests/data/three/*.jsonl "$T/four/"
: >"$T/four/empty.jsonl"
cat >"$T/four/suite.json" <<'JSON'
{"name": "four", "systems": {"a": "a.jsonl", "b": "b.jsonl", "c": "c.jsonl", "0": "empty.jsonl"},
 "rubric": {"content": [{"name": "right", "check": {"op": "exact", "expected": "ok"}}], "structure": []},
 "cases": "cases.jsonl"}
JSON
$ARB run "$T/four/suite.json" --db "$T/four.db" >/dev/null 2>&1 || bad "four run"
$ARB report 1 --db "$T/four.db" --format json --strategy statistical -o "$T/r.json" || bad "four report"
is '$.systems[0].intervals.overall_score' '[5,5]'
is '$.pairs[0].intervals_separate' 1
is '$.win_matrix.win_rate[0][3]' ''

# A database edited so that the run no longer lists c, whose verdicts remain: c is still
# counted everywhere (its totals, scores, matrix row, intervals, pairs), as before the
# report read the verdicts in one pass.  (This also once read freed memory in the tally.)
cp "$T/t.db" "$T/edited.db"
sqlite3 "$T/edited.db" "UPDATE runs SET systems_json = json_remove(systems_json, '\$[2]');
                        DELETE FROM systems WHERE name = 'c'" || bad "edit the database"
$ARB report 1 --db "$T/edited.db" --format json --strategy statistical -o "$T/r.json" ||
    bad "report on the edited database"
is '$.systems[2].name' 'c'
is '$.systems[0].ties' 4
is '$.win_matrix.systems' '["a","b","c"]'
is '$.win_matrix.wins' '[[0,3,5],[0,0,2],[0,0,0]]'
is '$.systems[2].overall_score' "$(val "$T/all.json" '$.systems[2].overall_score')"
is '$.systems[2].intervals.overall_score' "$(val "$T/all.json" '$.systems[2].intervals.overall_score')"
is '$.pairs' "$(val "$T/all.json" '$.pairs')"
is '$.bradley_terry' "$(val "$T/all.json" '$.bradley_terry')"
$ARB report 1 --db "$T/edited.db" >"$T/r.md" || bad "markdown on the edited database"
grep -q '^| c | 0-5-1 (8.3%) | 0-2-4 (33.3%) | - |$' "$T/r.md" && ok ||
    bad "markdown matrix of the edited database: $(sed -n '/Pairwise wins/,+9p' "$T/r.md")"

test_done
