# check helper, for input errors found after the run record exists (a system's outputs: see
# finding F1 in README.md): no run is marked complete, and stderr says how to resume.
db="$TMP/x.db"
[ -f "$db" ] || exit 0
command -v sqlite3 >/dev/null || exit 0
n=$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE status <> 'running'" 2>&1) ||
    { echo "cannot read $db: $n"; exit 1; }
[ "$n" = 0 ] || { echo "a run was marked complete"; exit 1; }
if [ "$(sqlite3 "$db" "SELECT count(*) FROM runs")" != 0 ]; then
    grep -q -- "--resume" "$ERR" || { echo "a run was left but no --resume hint printed"; exit 1; }
fi
