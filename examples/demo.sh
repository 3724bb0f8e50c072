#!/bin/sh
# make demo: Arbiter's main job on the bundled bake-off (examples/invoice/),
# offline, from the checks to the judge's health:
#   run the suite with a judge into a fresh SQLite file (the checks decide what
#   they can; the judge, asked blind in both orders, decides the rest), show one
#   judged case, export and replay the run, run the three-trial suite, and end
#   with the report, whose last lines are the judge's health.
#
# The judge is tests/judge_sim in --stdio mode, a `command` judge
# (examples/invoice/demo-judge.json runs "judge_sim" from PATH): a simulator
# whose answers are made up from the request, so its verdicts mean nothing,
# which its health figures show.  A real judge is the same file with another
# provider (README.md, "The judge").
#
# Usage: sh examples/demo.sh ARBITER JUDGE_SIM   (make demo builds both)
set -eu
ARB="$1"
SIM="$2"
cd "$(dirname "$0")/.."
OUT=$(dirname "$ARB")
SIM_DIR=$(cd "$(dirname "$SIM")" && pwd)
[ -x "$SIM_DIR/judge_sim" ] || { echo "demo: no judge_sim in '$SIM_DIR'" >&2; exit 2; }
PATH="$SIM_DIR:$PATH"
export PATH
DB="$OUT/demo.db"
JUDGE=examples/invoice/demo-judge.json
CASE=inv-020
rm -f "$DB" "$DB-wal" "$DB-shm"

echo "== arbiter run examples/invoice/suite.json --judge $JUDGE --db $DB"
"$ARB" run examples/invoice/suite.json --judge "$JUDGE" --db "$DB"
echo
echo "== arbiter show latest $CASE --db $DB"
echo "   (the checks left its correctness and the free-text expectation 'no-previous-balance'"
echo "   to the judge, asked blind in both orders: each system once as Response A)"
"$ARB" show latest "$CASE" --db "$DB"
echo
echo "== arbiter export latest --comparisons $OUT/demo-comparisons --db $DB"
rm -rf "$OUT/demo-comparisons"
"$ARB" export latest --comparisons "$OUT/demo-comparisons" --db "$DB"
echo "== arbiter replay latest --db $DB   (offline: the judge's answers come from the database)"
"$ARB" replay latest --db "$DB"
echo
echo "== the same bake-off with three trials per case and system (pass@k, pass^k)"
echo "== arbiter run examples/invoice/trials.json --judge $JUDGE --db $DB"
"$ARB" run examples/invoice/trials.json --judge "$JUDGE" --db "$DB"
echo "== arbiter report latest --db $DB --strategy statistical   (its trials section)"
"$ARB" report latest --db "$DB" --strategy statistical |
    awk '/^## / { on = ($0 ~ /^## Trials/) } on'
echo "Look further: arbiter show 1 inv-004 --db $DB   (another case the judge was asked about)"
echo "              arbiter report 1 --format html -o $OUT/demo.html --db $DB"
echo "              sqlite3 $DB 'select * from v_system_wins'   (see db/README.md)"
echo "              arbiter view --db $DB   (browse it, and label pairs blind with --label)"
echo
# The report of the first run, its judge line and judge health section last.
echo "== arbiter report 1 --db $DB"
"$ARB" report 1 --db "$DB" >"$OUT/demo-report.md"
awk '/^## / { health = ($0 ~ /^## Judge health/) }
     /^Judge: / { judge = $0; next }
     health { tail = tail $0 "\n"; next }
     { print }
     END { if (judge != "") print judge; sub(/\n+$/, "\n", tail); printf "\n%s", tail }' \
    "$OUT/demo-report.md"
