# hold_lock DB: another writer (the sqlite3 shell) holds DB's write lock, in the background,
# until lib/cleanup.sh kills it.  Commands go in through a fifo that a sleeping process
# keeps open, so the shell stays inside its transaction; it touches $TMP/locked once it
# holds the lock (.bail on: if it cannot take the lock, it exits and setup fails).
hold_lock() {
    command -v sqlite3 >/dev/null || { echo "no sqlite3 shell: not covered"; exit 77; }
    mkfifo "$TMP/fifo" || exit 1
    sqlite3 "$1" <"$TMP/fifo" >"$TMP/holder.out" 2>&1 &
    echo $! >"$TMP/holder.pid"
    sleep 600 >"$TMP/fifo" &
    echo $! >>"$TMP/holder.pid"
    {
        printf '.bail on\n.timeout 10000\nBEGIN EXCLUSIVE;\n'
        printf "INSERT INTO problems (run, kind, message) SELECT id, 'x', 'held' FROM runs LIMIT 1;\n"
        printf '.system touch %s/locked\n' "$TMP"
    } >"$TMP/fifo"
    i=0
    while [ $i -lt 150 ]; do
        if [ -f "$TMP/locked" ] &&
            ! sqlite3 "$1" ".timeout 0" "BEGIN IMMEDIATE; ROLLBACK;" >/dev/null 2>&1; then
            return 0
        fi
        sleep 0.1
        i=$((i + 1))
    done
    echo "the lock holder did not take the lock: $(cat "$TMP/holder.out")"
    exit 1
}
