# check helper: the failed command left no run record in $TMP/x.db (the file may not exist).
db="$TMP/x.db"
[ -f "$db" ] || exit 0
command -v sqlite3 >/dev/null || exit 0
n=$(sqlite3 "$db" "SELECT count(*) FROM runs" 2>&1) || { echo "cannot read $db: $n"; exit 1; }
[ "$n" = 0 ] || { echo "a run record was written: $(sqlite3 "$db" 'SELECT id, status FROM runs')"; exit 1; }
