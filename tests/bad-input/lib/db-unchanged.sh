# check helper: the database holds exactly what lib/stopped-run.sh saw (nothing was written).
sqlite3 "$TMP/x.db" .dump >"$TMP/after.sql"
cmp -s "$TMP/before.sql" "$TMP/after.sql" || { echo "the database changed: $(diff "$TMP/before.sql" "$TMP/after.sql" | head -5)"; exit 1; }
