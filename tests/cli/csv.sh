#!/bin/sh
# CSV (`export --csv`, `report --format csv`) read back by a real CSV reader, the sqlite3
# shell's `.import --csv`, and compared with the run's own verdicts table; hostile case ids and
# system names (commas, quotes, CR, LF, a leading '=') through the round trip; and --limit and
# --cases on report (md, json) and export (--jsonl, --comparisons, --csv), every figure checked
# against sqlite3 queries on the run database restricted to the same cases.
# usage: tests/cli/csv.sh path/to/arbiter
. "$(dirname "$0")/lib.sh"
ARB="$1"
# same WHAT GOT EXPECTED
same() { [ "$2" = "$3" ] && ok || bad "$1: '$2', expected '$3'"; }
# Import CSV file $1 as table t of a fresh database $2 (header row: the column names).
import() { rm -f "$2" && sqlite3 "$2" ".import --csv $1 t"; }
# One value from the imported table $1 with the run database $2 attached as r.
both() { sqlite3 "$1" "ATTACH '$2' AS r; $3"; }
val() { sqlite3 :memory: "SELECT json_extract(readfile('$1'), '$2')"; }
CR=$(printf '\r')
HEADER="run,case_id,seq,system_a,system_b,status,winner,score_a,score_b,pass_rate_a,pass_rate_b,judged,position_inconsistent,unresolved"

# Rows of t that differ from the verdicts of run 1 in r (or have none): every column, numbers
# compared as doubles (exactly: they must round-trip), NULL as the empty field.
MISMATCH="SELECT count(*) FROM t LEFT JOIN r.v_verdicts v ON v.run = 1 AND v.case_id = t.case_id
    AND v.system_a = t.system_a AND v.system_b = t.system_b
    LEFT JOIN r.cases c ON c.run = 1 AND c.case_id = t.case_id
    WHERE v.id IS NULL OR t.run <> '1' OR CAST(t.seq AS INTEGER) IS NOT c.seq
    OR t.status IS NOT v.status OR t.winner IS NOT coalesce(v.winner, '')
    OR CAST(nullif(t.score_a, '') AS REAL) IS NOT v.score_a
    OR CAST(nullif(t.score_b, '') AS REAL) IS NOT v.score_b
    OR CAST(nullif(t.pass_rate_a, '') AS REAL) IS NOT v.pass_rate_a
    OR CAST(nullif(t.pass_rate_b, '') AS REAL) IS NOT v.pass_rate_b
    OR CAST(t.judged AS INTEGER) IS NOT (json_type(v.comparison_json, '\$.judge') IS NOT NULL)
    OR CAST(nullif(t.unresolved, '') AS INTEGER)
       IS NOT json_array_length(v.comparison_json, '\$.unresolved')"

# ---- the invoice bake-off: 30 cases, no judge ------------------------------------------------
DB="$T/x.db"
$ARB run examples/invoice/suite.json --db "$DB" >/dev/null 2>&1 || bad "run"
$ARB export 1 --csv --db "$DB" -o "$T/x.csv" || bad "export --csv -o"
same "header row" "$(head -n 1 "$T/x.csv")" "$HEADER$CR"
same "lines ending in CRLF" "$(grep -c "$CR\$" "$T/x.csv")" 31
import "$T/x.csv" "$T/c.db" || bad "sqlite3 .import --csv"
same "rows" "$(both "$T/c.db" "$DB" "SELECT count(*) FROM t")" \
    "$(sqlite3 "$DB" "SELECT count(*) FROM verdicts WHERE run = 1")"
same "rows unlike the verdicts" "$(both "$T/c.db" "$DB" "$MISMATCH")" 0
same "case order" "$(sqlite3 "$T/c.db" "SELECT group_concat(case_id) FROM t")" \
    "$(sqlite3 "$DB" "SELECT group_concat(case_id) FROM (SELECT case_id FROM cases WHERE run = 1
                                                        ORDER BY seq)")"
same "two thirds kept exactly" "$(grep -c '0\.6666666666666666,' "$T/x.csv")" 3
same "missing output: empty scores" "$(grep '^1,inv-023,' "$T/x.csv")" \
    "1,inv-023,22,baseline,candidate,missing_output,,,,,,0,,$CR"
$ARB export 1 --csv --db "$DB" >"$T/stdout.csv" || bad "export --csv to standard output"
cmp -s "$T/x.csv" "$T/stdout.csv" && ok || bad "-o and standard output differ"
$ARB report 1 --format csv --db "$DB" -o "$T/r.csv" || bad "report --format csv"
cmp -s "$T/x.csv" "$T/r.csv" && ok || bad "report --format csv is not export --csv"

# -o: never the database (under any name), never a partial file.
cp "$DB" "$T/before.db"
$ARB export 1 --csv --db "$DB" -o "$DB" 2>"$T/err"
[ $? -eq 2 ] && grep -q "is the database" "$T/err" && ok || bad "-o the database: $(cat "$T/err")"
ln -s "$DB" "$T/link.db"
$ARB report 1 --format csv --db "$DB" -o "$T/link.db" 2>"$T/err"
[ $? -eq 2 ] && grep -q "is the database" "$T/err" && ok || bad "-o a link to the database"
$ARB report 1 --db "$DB" -o "$DB-wal" 2>"$T/err"
[ $? -eq 2 ] && ok || bad "-o the database's -wal file: $(cat "$T/err")"
cmp -s "$DB" "$T/before.db" && ok || bad "the database changed"
mkdir "$T/ro" && echo old >"$T/ro/out.csv" && chmod 0555 "$T/ro"
if [ ! -w "$T/ro" ]; then
    $ARB export 1 --csv --db "$DB" -o "$T/ro/out.csv" 2>"$T/err"
    [ $? -eq 4 ] && [ "$(cat "$T/ro/out.csv")" = old ] && ok ||
        bad "an unwritable directory: $(cat "$T/err")"
fi
chmod 0755 "$T/ro"
[ -z "$(find "$T" -name '*.tmp')" ] && ok || bad "temporary files left: $(find "$T" -name '*.tmp')"
$ARB export 1 --jsonl --db "$DB" -o "$T/j" 2>"$T/err"
[ $? -eq 2 ] && grep -q -- "-o goes with --csv" "$T/err" && ok || bad "-o with --jsonl"
$ARB export 1 --jsonl --csv --db "$DB" >/dev/null 2>&1
[ $? -eq 2 ] && ok || bad "--jsonl and --csv together"

# ---- hostile ids and names --------------------------------------------------------------------
mkdir "$T/h"
sqlite3 :memory: "SELECT json_object('id', 'plain') UNION ALL SELECT json_object('id', 'a,b')
    UNION ALL SELECT json_object('id', 'say \"hi\"')
    UNION ALL SELECT json_object('id', 'line1' || char(10) || 'line2')
    UNION ALL SELECT json_object('id', 'cr' || char(13))
    UNION ALL SELECT json_object('id', '=1+1') UNION ALL SELECT json_object('id', '-2')
    UNION ALL SELECT json_object('id', ' spaced ')
    UNION ALL SELECT json_object('id', '\"\"' || char(13, 10) || ',')" >"$T/h/cases.jsonl"
sed 's/}$/,"output":"ok"}/' "$T/h/cases.jsonl" >"$T/h/a.jsonl"
awk 'NR % 2 { sub(/}$/, ",\"output\":\"no\"}") } !(NR % 2) { sub(/}$/, ",\"output\":\"ok\"}") } 1' \
    "$T/h/cases.jsonl" >"$T/h/b.jsonl"
cat >"$T/h/suite.json" <<'JSON'
{"name": "hostile", "systems": {"sys,one \"q\"": "a.jsonl", "=two\nlines": "b.jsonl"},
 "rubric": {"content": [{"name": "right", "check": {"op": "exact", "expected": "ok"}}],
            "structure": []},
 "expectations": [{"id": "e1", "text": "says ok", "check": {"op": "exact", "expected": "ok"}}],
 "cases": "cases.jsonl"}
JSON
HDB="$T/h.db"
$ARB run "$T/h/suite.json" --db "$HDB" >/dev/null 2>&1 || bad "hostile run"
$ARB export 1 --csv --db "$HDB" -o "$T/h.csv" || bad "hostile export"
import "$T/h.csv" "$T/hc.db" || bad "hostile .import"
same "hostile rows" "$(sqlite3 "$T/hc.db" "SELECT count(*) FROM t")" 9
same "hostile rows unlike the verdicts" "$(both "$T/hc.db" "$HDB" "$MISMATCH")" 0
same "hostile ids byte for byte" \
    "$(both "$T/hc.db" "$HDB" "SELECT count(*) FROM t JOIN r.cases c ON c.case_id = t.case_id")" 9
same "hostile system names" \
    "$(both "$T/hc.db" "$HDB" "SELECT count(DISTINCT t.system_a) FROM t JOIN r.systems s
                               ON s.name = t.system_a")" 2
same "the winner a hostile name" \
    "$(sqlite3 "$T/hc.db" "SELECT count(*) FROM t WHERE winner = 'sys,one \"q\"'")" 5
same "'=1+1' not altered" "$(sqlite3 "$T/hc.db" "SELECT seq FROM t WHERE case_id = '=1+1'")" 5
# An id with a comma can be named in a file (commas separate ids on the command line).
printf 'a,b\n\n=1+1\n' >"$T/ids.txt"
$ARB export 1 --csv --cases @"$T/ids.txt" --db "$HDB" -o "$T/hs.csv" || bad "--cases @FILE"
import "$T/hs.csv" "$T/hs.db"
same "--cases @FILE rows" "$(sqlite3 "$T/hs.db" "SELECT group_concat(case_id, '|') FROM t")" \
    "a,b|=1+1"

# ---- --limit and --cases ----------------------------------------------------------------------
SEL="inv-030,inv-005,inv-010,inv-023,inv-011,inv-005"
IDS="'inv-005','inv-010','inv-011','inv-023','inv-030'"
# Expected figures, straight from the run database, over the cases in $1 (an SQL list).
exp_q() { sqlite3 "$DB" "SELECT $2 FROM verdicts WHERE run = 1 AND case_id IN ($1)"; }
wins() { exp_q "$1" "count(*) FILTER (WHERE winner = '$2')"; }
passes() {
    sqlite3 "$DB" "SELECT sum(verdict = 'pass') || '/' || sum(verdict <> 'unresolved') FROM checks
                   WHERE run = 1 AND kind = 'expectation' AND system = '$2' AND case_id IN ($1)"
}
check_report() { # $1 JSON report, $2 the cases as an SQL list, $3 what
    same "$3: cases" "$(val "$1" '$.cases')" "$(exp_q "$2" "count(*)")"
    same "$3: decided" "$(val "$1" '$.decided')" "$(exp_q "$2" "count(*) FILTER (WHERE status = 'decided')")"
    same "$3: pending" "$(val "$1" '$.pending_judge')" \
        "$(exp_q "$2" "count(*) FILTER (WHERE status = 'pending_judge')")"
    same "$3: missing" "$(val "$1" '$.missing_output')" \
        "$(exp_q "$2" "count(*) FILTER (WHERE status = 'missing_output')")"
    same "$3: candidate wins" "$(val "$1" '$.systems[1].wins')" "$(wins "$2" candidate)"
    same "$3: ties" "$(val "$1" '$.systems[0].ties')" "$(wins "$2" TIE)"
    same "$3: baseline passes" \
        "$(val "$1" '$.systems[0].expectations.passed')/$(($(val "$1" '$.systems[0].expectations.passed') + $(val "$1" '$.systems[0].expectations.failed')))" \
        "$(passes "$2" baseline)"
    same "$3: case pass rates" "$(sqlite3 :memory: "SELECT json_array_length(readfile('$1'),
                                                    '\$.case_pass_rates.items')")" \
        "$(sqlite3 "$DB" "SELECT count(DISTINCT case_id) FROM checks WHERE run = 1
                          AND kind = 'expectation' AND case_id IN ($2)")"
}
$ARB report 1 --db "$DB" --format json --cases "$SEL" -o "$T/sel.json" || bad "report --cases"
check_report "$T/sel.json" "$IDS" "--cases"
same "--cases: scope" "$(val "$T/sel.json" '$.scope.cases')" \
    '["inv-030","inv-005","inv-010","inv-023","inv-011","inv-005"]'
$ARB check '{"op":"json_schema","expected_file":"schemas/report.schema.json"}' \
    --observed-file "$T/sel.json" | grep -q '"verdict":"pass"' && ok || bad "schemas/report.schema.json"
# With --limit: the first 3 of them in case order (inv-005, inv-010, inv-011).
$ARB report 1 --db "$DB" --format json --cases "$SEL" --limit 3 -o "$T/sel3.json" || bad "--limit"
check_report "$T/sel3.json" "'inv-005','inv-010','inv-011'" "--cases --limit 3"
$ARB report 1 --db "$DB" --format json --limit 12 -o "$T/l12.json" || bad "report --limit"
FIRST12=$(sqlite3 "$DB" "SELECT group_concat(quote(case_id)) FROM (SELECT case_id FROM cases
                         WHERE run = 1 ORDER BY seq LIMIT 12)")
check_report "$T/l12.json" "$FIRST12" "--limit 12"
$ARB report 1 --db "$DB" --format json --limit 100 -o "$T/l100.json" || bad "--limit over the run"
same "--limit over the run's size" "$(val "$T/l100.json" '$.cases')" 30
# The statistics and the trials follow the scope.
$ARB report 1 --db "$DB" --format json --limit 12 --strategy statistical -o "$T/st.json" ||
    bad "--limit --strategy statistical"
same "sign test over 12 cases" \
    "$(val "$T/st.json" '$.pairs[0].a_wins') $(val "$T/st.json" '$.pairs[0].b_wins') $(val "$T/st.json" '$.pairs[0].ties')" \
    "$(wins "$FIRST12" baseline) $(wins "$FIRST12" candidate) $(wins "$FIRST12" TIE)"
$ARB run examples/invoice/trials.json --db "$T/tr.db" >/dev/null 2>&1 || bad "trials run"
$ARB report 1 --db "$T/tr.db" --format json --limit 5 -o "$T/tr.json" || bad "trials --limit"
FIRST5=$(sqlite3 "$T/tr.db" "SELECT group_concat(quote(case_id)) FROM (SELECT case_id FROM cases
                             WHERE run = 1 ORDER BY seq LIMIT 5)")
same "trials over 5 cases" "$(val "$T/tr.json" '$.trials.systems[0].trials')" \
    "$(sqlite3 "$T/tr.db" "SELECT count(*) FROM trials WHERE system = 'baseline'
                           AND case_id IN ($FIRST5)")"
same "pass@1 over 5 cases" \
    "$(sqlite3 :memory: "SELECT printf('%.9f', json_extract(readfile('$T/tr.json'),
                                              '\$.trials.systems[0].k[0].pass@k'))")" \
    "$(sqlite3 "$T/tr.db" "SELECT printf('%.9f', avg(1.0 * c / n)) FROM v_case_trials
                           WHERE system = 'baseline' AND case_id IN ($FIRST5)")"
# --against: the same case ids of the other run.
$ARB run examples/invoice/suite.json --db "$DB" --seed 3 >/dev/null 2>&1 || bad "second run"
$ARB report 2 --db "$DB" --format json --against 1 --cases "$SEL" -o "$T/ag.json" ||
    bad "--against --cases"
same "--against compared" "$(val "$T/ag.json" '$.against.compared')" 5
same "--against only in either" \
    "$(val "$T/ag.json" '$.against.only_in_this_run')$(val "$T/ag.json" '$.against.only_in_other_run')" 00
# Markdown says so, and counts the same.
$ARB report 1 --db "$DB" --cases "$SEL" >"$T/sel.md" || bad "markdown --cases"
grep -q "^Cases: 5 - decided $(exp_q "$IDS" "count(*) FILTER (WHERE status = 'decided')")," \
    "$T/sel.md" && ok || bad "markdown counts: $(grep '^Cases' "$T/sel.md")"
grep -q "^A selection of the run's cases: 6 named (--cases); every figure below is of these 5" \
    "$T/sel.md" && ok || bad "markdown note: $(grep -i selection "$T/sel.md")"
# Export: every format of exactly those cases.
$ARB export 1 --csv --db "$DB" --cases "$SEL" --limit 4 -o "$T/s.csv" || bad "export --csv --cases"
import "$T/s.csv" "$T/s.db"
same "export --csv --cases --limit" "$(sqlite3 "$T/s.db" "SELECT group_concat(case_id) FROM t")" \
    "inv-005,inv-010,inv-011,inv-023"
same "export --csv --cases: values" "$(both "$T/s.db" "$DB" "$MISMATCH")" 0
$ARB export 1 --jsonl --db "$DB" --cases "$SEL" >"$T/s.jsonl" || bad "export --jsonl --cases"
same "export --jsonl: cases" "$(sed 's/^{"case":"\([^"]*\)".*/\1/' "$T/s.jsonl" | sort -u | tr '\n' ' ')" \
    "inv-005 inv-010 inv-011 inv-023 inv-030 "
same "export --jsonl: records" "$(wc -l <"$T/s.jsonl" | tr -d ' ')" \
    "$(($(sqlite3 "$DB" "SELECT count(*) FROM checks WHERE run = 1 AND case_id IN ($IDS)") +
        $(exp_q "$IDS" "count(*)")))"
$ARB export 1 --comparisons "$T/cmp" --db "$DB" --limit 7 2>/dev/null || bad "export --comparisons --limit"
same "export --comparisons --limit 7" "$(ls "$T/cmp" | tr '\n' ' ')" \
    "inv-001.json inv-002.json inv-003.json inv-004.json inv-005.json inv-006.json inv-007.json "

# Errors: an unknown id (exit 2, naming it and the run), a bad --limit, an empty @FILE.
$ARB report 1 --db "$DB" --cases inv-001,nope >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q "case 'nope' is not in run 1" "$T/err" && ok ||
    bad "report with an unknown case: $(cat "$T/err")"
$ARB export 1 --csv --db "$DB" --cases nope -o "$T/nope.csv" 2>"$T/err"
[ $? -eq 2 ] && grep -q "case 'nope' is not in run 1" "$T/err" && [ ! -e "$T/nope.csv" ] && ok ||
    bad "export with an unknown case: $(cat "$T/err")"
$ARB export 1 --jsonl --db "$DB" --cases nope >"$T/out" 2>"$T/err"
[ $? -eq 2 ] && [ ! -s "$T/out" ] && ok || bad "export --jsonl with an unknown case printed records"
for v in 0 -1 abc 1.5 ""; do
    $ARB report 1 --db "$DB" --limit "$v" >/dev/null 2>"$T/err"
    [ $? -eq 2 ] && grep -q -- "--limit: expected a whole number" "$T/err" && ok ||
        bad "report --limit '$v': $(cat "$T/err")"
    $ARB export 1 --csv --db "$DB" --limit "$v" >/dev/null 2>&1
    [ $? -eq 2 ] && ok || bad "export --limit '$v'"
done
: >"$T/empty.txt"
$ARB export 1 --csv --db "$DB" --cases @"$T/empty.txt" >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q "names no case" "$T/err" && ok || bad "an empty @FILE: $(cat "$T/err")"
$ARB report 1 --db "$DB" --format xls >/dev/null 2>"$T/err"
[ $? -eq 2 ] && grep -q "expected md, json, html or csv" "$T/err" && ok || bad "--format xls"

test_done
