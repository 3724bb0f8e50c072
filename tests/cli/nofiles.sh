#!/bin/sh
# replay, replay --rejudge and compare read their inputs through the run engine's sources
# and write nothing but their output (issue 16): every file or directory they create, as
# strace sees the system calls, must be their -o output (and its temporary file beside it)
# or their --db database (with SQLite's -wal, -shm and -journal files, and the runs' -lock).
# No staging folder, no copied database, no temporary suite.
# usage: tests/cli/nofiles.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
ARB="$1"
SIM="$2"
command -v strace >/dev/null || { bad "strace is not installed (make deps installs it)"; test_done; }

# watch NAME ALLOWED_REGEX -- COMMAND...: run COMMAND under strace; every path it creates
# (open with O_CREAT, creat, mkdir, the target of a rename or link) must match ALLOWED_REGEX.
watch() {
    name=$1 allowed=$2
    shift 3
    # LeakSanitizer stops the world with ptrace at exit, which a traced process cannot: under
    # a sanitizer build its leak check is left to the other tests here.
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        strace -f -qq -o "$T/trace" -e trace=open,openat,creat,mkdir,mkdirat,rename,renameat,renameat2,link,linkat,symlink,symlinkat \
        "$@" >"$T/out" 2>"$T/err"
    rc=$?
    [ $rc -le 1 ] && ok || bad "$name: exit $rc: $(head -c 400 "$T/err")"
    grep -v ' = -1 ' "$T/trace" |
        sed -n -e 's/.*open[at]*([^"]*"\([^"]*\)", [^)]*O_CREAT.*/\1/p' \
               -e 's/.*creat("\([^"]*\)".*/\1/p' \
               -e 's/.*mkdir[at]*([^"]*"\([^"]*\)".*/\1/p' \
               -e 's/.*rename[at2]*([^"]*"[^"]*", [^"]*"\([^"]*\)".*/\1/p' \
               -e 's/.*link[at]*([^"]*"[^"]*", [^"]*"\([^"]*\)".*/\1/p' >"$T/created"
    grep -q . "$T/trace" && ok || bad "$name: strace saw no system call at all"
    others=$(grep -v -E "$allowed" "$T/created")
    [ -z "$others" ] && ok || bad "$name created files outside its output: $(echo "$others" | head -5)"
}

DB="$T/runs.db"
$ARB run examples/invoice/suite.json --db "$DB" >/dev/null 2>&1 || bad "the run to replay failed"
start_sim
cat >"$T/judge.json" <<JSON
{"provider": "openai", "base_url": "http://127.0.0.1:$PORT/v1", "model": "sim",
 "api_key_env": "ARB_NOFILES_KEY"}
JSON
export ARB_NOFILES_KEY=nofiles-key
dbre=$(printf '%s' "$DB" | sed 's/[.[\*^$()+?{|]/\\&/g')
watch "replay" "^$dbre(-wal|-shm|-journal|-lock)?\$" -- $ARB replay 1 --db "$DB"
grep -q 'all identical' "$T/out" && ok || bad "replay did not re-derive the run: $(cat "$T/out")"
watch "replay --rejudge" "^$dbre(-wal|-shm|-journal|-lock)?\$" -- $ARB replay 1 --rejudge "$T/judge.json" --db "$DB"
grep -q 'deterministic records equal run 1' "$T/out" && ok || bad "rejudge: $(cat "$T/out")"
printf 'The capital is Paris.\n' >"$T/a.txt"
mkdir -p "$T/bdir/sub"
printf 'Paris\n' >"$T/bdir/answer.txt"
printf 'notes\n' >"$T/bdir/sub/notes.md"
out="$T/cmp.json"
outre=$(printf '%s' "$out" | sed 's/[.[\*^$()+?{|]/\\&/g')
watch "compare" "^$outre(\\.[0-9]+\\.[0-9]+\\.tmp)?\$" -- $ARB compare --task "Capital of France?" \
    --judge "$T/judge.json" -o "$out" "$T/a.txt" "$T/bdir"
[ -s "$out" ] && ok || bad "compare wrote no comparison"
grep -q '"winner"' "$out" && ok || bad "compare's comparison has no winner member"
watch "compare --db" "^($outre(\\.[0-9]+\\.[0-9]+\\.tmp)?|$dbre(-wal|-shm|-journal|-lock)?)\$" -- \
    $ARB compare --task "Capital of France?" --judge "$T/judge.json" --db "$DB" -o "$out" \
    "$T/a.txt" "$T/bdir"
test_done
