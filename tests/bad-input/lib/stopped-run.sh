# setup helper: copy the suite folder $1 (default ../lib/ok) into $TMP, run it into $TMP/x.db,
# mark the run 'running' as if it had been stopped, and keep a dump of the database in
# $TMP/before.sql for lib/db-unchanged.sh.
src="${1:-../lib/ok}"
cp -R "$src"/. "$TMP"/
$ARB run "$TMP/suite.json" --db "$TMP/x.db" >/dev/null || exit 1
sqlite3 "$TMP/x.db" "UPDATE runs SET status = 'running'" || exit 1
sqlite3 "$TMP/x.db" .dump >"$TMP/before.sql"
