#!/bin/sh
# make demo: Arbiter's main job on the bundled bake-off (examples/invoice/):
# run the suite into a fresh SQLite file, print the report, export the
# per-case comparison.json files.
set -eu
ARB="$1"
cd "$(dirname "$0")/.."
DB=build/demo.db
rm -f "$DB" "$DB-wal" "$DB-shm"
echo "== arbiter run examples/invoice/suite.json --db $DB"
"$ARB" run examples/invoice/suite.json --db "$DB"
echo
echo "== arbiter report latest --db $DB"
"$ARB" report latest --db "$DB"
echo "== arbiter export latest --comparisons build/demo-comparisons --db $DB"
rm -rf build/demo-comparisons
"$ARB" export latest --comparisons build/demo-comparisons --db "$DB"
echo "== arbiter replay latest --db $DB"
"$ARB" replay latest --db "$DB"
echo
echo "== the same bake-off with three trials per case and system (pass@k, pass^k)"
echo "== arbiter run examples/invoice/trials.json --db $DB"
"$ARB" run examples/invoice/trials.json --db "$DB"
echo "== arbiter report latest --db $DB --strategy statistical   (its trials section)"
"$ARB" report latest --db "$DB" --strategy statistical | sed -n '/^## Trials/,/^## Judge/p' | sed '$d'
echo "Look further: arbiter show latest inv-006 --db $DB   (a case left to the judge)"
echo "              sqlite3 $DB 'select * from v_system_wins'   (see db/README.md)"
