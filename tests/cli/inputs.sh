#!/bin/sh
# The identity of a run's inputs (issue 15): a run records the size and SHA-256 of its cases
# file and of each system's outputs (a directory: a digest over its listing and contents),
# and --resume refuses an input that changed since, naming it, before writing anything.
# usage: tests/cli/inputs.sh path/to/arbiter
. "$(dirname "$0")/lib.sh"
ARB="$1"
case "$ARB" in /*) ;; *) ARB="$(pwd)/$ARB" ;; esac
N=400

# A bake-off: N cases in a cases file, system a as JSONL, system b as a directory.
mkdir -p "$T/b/bdir"
awk -v n="$N" -v dir="$T/b" 'BEGIN {
    for (i = 0; i < n; i++) {
        id = sprintf("c%04d", i)
        printf "{\"id\":\"%s\",\"expected\":\"v%d\"}\n", id, i % 5 >(dir "/cases.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"v%d\"}\n", id, i % 3 >(dir "/a.jsonl")
        f = dir "/bdir/" id ".txt"
        printf "v%d", i % 4 >f
        close(f)
    }
}'
cat >"$T/b/suite.json" <<'JSON'
{"name": "inputs", "seed": 5, "systems": {"a": "a.jsonl", "b": "bdir"},
 "rubric": {"content": [{"name": "correctness", "check": {"op": "exact"}}]},
 "expectations": [{"id": "same", "text": "the expected value", "check": {"op": "exact"}}],
 "cases": "cases.jsonl"}
JSON
cp -R "$T/b" "$T/orig"

dump() { # db -> every record, normalized
    $ARB export latest --jsonl --db "$1" | sort
}
# a run as if stopped: complete it, then mark it running again
stopped() {
    rm -f "$1"
    $ARB run "$T/b/suite.json" --db "$1" --batch 20 >/dev/null 2>&1 &&
        sqlite3 "$1" "UPDATE runs SET status = 'running'" && sqlite3 "$1" .dump >"$1.before"
}
unchanged() { sqlite3 "$1" .dump | cmp -s - "$1.before"; }
restore() { rm -rf "$T/b" && cp -R "$T/orig" "$T/b"; }
# refused NAME DB MESSAGE: --resume exits 2, the first stderr line has MESSAGE, nothing written
refused() {
    $ARB run --resume latest --db "$2" >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" != 2 ]; then
        bad "$1: exit $rc, want 2 ($(head -c 300 "$T/err"))"
    elif ! head -n 1 "$T/err" | grep -qF -- "$3"; then
        bad "$1: stderr lacks '$3': $(head -n 1 "$T/err")"
    elif ! unchanged "$2"; then
        bad "$1: the database changed"
    elif grep -q -- "continue with" "$T/err"; then
        bad "$1: told to resume a run it refused to resume"
    else
        ok
    fi
}

$ARB run "$T/b/suite.json" --db "$T/ref.db" >/dev/null 2>&1 || die "reference run"
dump "$T/ref.db" >"$T/ref.txt"

# The record: every input with its size and SHA-256; paths absolute.
got=$(sqlite3 "$T/ref.db" "SELECT json_extract(inputs_json, '\$.cases.size'),
    json_extract(inputs_json, '\$.cases.sha256') = '$(sha256sum "$T/b/cases.jsonl" | cut -c1-64)',
    json_extract(inputs_json, '\$.systems.a.sha256') = '$(sha256sum "$T/b/a.jsonl" | cut -c1-64)',
    json_extract(inputs_json, '\$.systems.b.kind'), json_extract(inputs_json, '\$.systems.b.entries'),
    json_extract(inputs_json, '\$.systems.a.path') = '$(cd "$T/b" && pwd -P)/a.jsonl' FROM runs")
[ "$got" = "$(wc -c <"$T/b/cases.jsonl" | tr -d ' ')|1|1|directory|$N|1" ] && ok || bad "inputs_json: $got"

# Unchanged inputs resume, from another directory, to the records of an uninterrupted run.
stopped "$T/s.db"
(cd / && $ARB run --resume latest --db "$T/s.db" >/dev/null 2>"$T/err") && ok || bad "unchanged resume: $(cat "$T/err")"
dump "$T/s.db" | cmp -s - "$T/ref.txt" && ok || bad "unchanged resume: other records"
# A timestamp is not content.
stopped "$T/s.db"
touch "$T/b/a.jsonl" "$T/b/bdir/c0001.txt"
$ARB run --resume latest --db "$T/s.db" >/dev/null 2>"$T/err" && ok || bad "touched inputs: $(cat "$T/err")"

# A JSONL file: one byte, same size; then one more line.
stopped "$T/s.db"
sed 's/"v1"}$/"v2"}/' "$T/orig/a.jsonl" >"$T/b/a.jsonl"
refused "a.jsonl same size" "$T/s.db" "resume: the outputs of system 'a' ('$(cd "$T/b" && pwd -P)/a.jsonl') changed since run 1 started: same size, different content (SHA-256); start a new run"
echo '{"id":"c9999","output":"v0"}' >>"$T/b/a.jsonl"
refused "a.jsonl longer" "$T/s.db" "bytes then, $(wc -c <"$T/b/a.jsonl" | tr -d ' ') now"
# Put back as it was, the run resumes and ends as an uninterrupted one.
restore
$ARB run --resume latest --db "$T/s.db" >/dev/null 2>"$T/err" && ok || bad "restored: $(cat "$T/err")"
dump "$T/s.db" | cmp -s - "$T/ref.txt" && ok || bad "restored: other records"

# A directory: a file's content (same size), a renamed file, a new file, a file removed.
stopped "$T/s.db"
printf 'v9' >"$T/b/bdir/c0007.txt"
refused "bdir content" "$T/s.db" "resume: the outputs of system 'b' ('$(cd "$T/b" && pwd -P)/bdir') changed since run 1 started: same entries and size, different content (SHA-256)"
restore
mv "$T/b/bdir/c0007.txt" "$T/b/bdir/c0007.json"
refused "bdir renamed" "$T/s.db" "same entries and size, different content (SHA-256)"
restore
printf 'v0' >"$T/b/bdir/c9999.txt"
refused "bdir new file" "$T/s.db" "$N entries and"
restore
rm "$T/b/bdir/c0003.txt"
refused "bdir file removed" "$T/s.db" "then, $((N - 1)) entries and"
restore
# A hidden file is not an output: the reader skips it, and so does the identity.
printf 'x' >"$T/b/bdir/.DS_Store"
$ARB run --resume latest --db "$T/s.db" >/dev/null 2>"$T/err" && ok || bad "hidden file: $(cat "$T/err")"
restore

# The cases file (the suite's own SHA-256 is unchanged).
stopped "$T/s.db"
sed 's/"c0002","expected":"v2"/"c0002","expected":"v3"/' "$T/orig/cases.jsonl" >"$T/b/cases.jsonl"
refused "cases file" "$T/s.db" "resume: the cases file ('$(cd "$T/b" && pwd -P)/cases.jsonl') changed since run 1 started: same size, different content (SHA-256)"
restore
# An outputs file that is gone, or became a directory.
rm "$T/b/a.jsonl"
refused "a.jsonl gone" "$T/s.db" "resume: the outputs of system 'a': cannot open outputs"
mkdir "$T/b/a.jsonl"
refused "a.jsonl a directory" "$T/s.db" "was a file, is now a directory"
restore

# A run stored before inputs were recorded resumes unchecked, and says so.
stopped "$T/s.db"
sqlite3 "$T/s.db" "UPDATE runs SET inputs_json = NULL"
$ARB run --resume latest --db "$T/s.db" >/dev/null 2>"$T/err" && ok || bad "no inputs_json: $(cat "$T/err")"
grep -q "note: run 1 was recorded without the identity of its input files" "$T/err" && ok ||
    bad "no inputs_json: no note: $(cat "$T/err")"

# Killed while loading, then changed: refused; put back: resumed to the same records.
rm -f "$T/k.db"
$ARB run "$T/b/suite.json" --db "$T/k.db" --batch 5 >/dev/null 2>&1 &
pid=$!
sleep 0.05
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
if [ "$(sqlite3 "$T/k.db" "SELECT count(*) FROM runs" 2>/dev/null)" = 1 ]; then
    sqlite3 "$T/k.db" .dump >"$T/k.db.before"
    printf 'v9' >"$T/b/bdir/c0399.txt"
    refused "killed, then changed" "$T/k.db" "changed since run 1 started"
    restore
    $ARB run --resume latest --db "$T/k.db" >/dev/null 2>"$T/err" && ok || bad "killed: $(cat "$T/err")"
else
    $ARB run "$T/b/suite.json" --db "$T/k.db" >/dev/null 2>&1 && ok || bad "killed before the run existed"
fi
dump "$T/k.db" | cmp -s - "$T/ref.txt" && ok || bad "killed: other records"

test_done
