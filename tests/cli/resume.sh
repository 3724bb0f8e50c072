#!/bin/sh
# Kill a run with SIGKILL at several points, resume it each time, and check
# that the resumed run ends with exactly the records of an uninterrupted one.
# usage: tests/cli/resume.sh path/to/arbiter
. "$(dirname "$0")/lib.sh"
ARB="$1"
N=3000

# A generated bake-off: N cases, two systems (one JSONL, one directory with
# every 11th case missing); a few outputs differ so verdicts vary.
mkdir -p "$T/b/bdir"
awk -v n="$N" -v dir="$T/b" 'BEGIN {
    for (i = 0; i < n; i++) {
        id = sprintf("c%05d", i)
        printf "{\"id\":\"%s\",\"expected\":{\"n\":%d,\"name\":\"Item %d\"}}\n", id, i, i % 97 >(dir "/cases.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"{\\\"n\\\": %d, \\\"name\\\": \\\"item %d\\\"}\"}\n", id, i + (i % 7 == 0), i % 97 >(dir "/a.jsonl")
        f = dir "/bdir/" id ".json"
        if (i % 11 != 0) { printf "{\"n\": %d, \"name\": \"Item %d\"}\n", i, i % 89 >f; close(f) }
    }
}'
cat >"$T/b/suite.json" <<'JSON'
{"name": "resume test", "seed": 3, "systems": {"a": "a.jsonl", "b": "bdir"},
 "fields": {"n": "exact", "name": "name"},
 "rubric": {"content": [{"name": "correctness", "check": {"op": "fields", "fail_below": 0.4}}],
            "structure": [{"name": "formatting", "check": {"op": "json_valid"}}]},
 "expectations": [{"id": "has-n", "text": "has n", "check": {"op": "json_match", "keys": ["n"]}},
                  {"id": "short", "text": "short", "check": {"op": "levenshtein", "expected": "{\"n\": 1}", "threshold": 0.2}}],
 "cases": "cases.jsonl"}
JSON

dump() { # db -> normalized records (no run ids or timestamps)
    $ARB export latest --jsonl --db "$1" | sort >"$2"
    rm -rf "$2.cmp"
    $ARB export latest --comparisons "$2.cmp" --db "$1" 2>/dev/null
    (cd "$2.cmp" && cat ./*) >>"$2"
}

$ARB run "$T/b/suite.json" --db "$T/ref.db" --batch 20 >"$T/ref.out" 2>&1 ||
    die "uninterrupted run: $(cat "$T/ref.out")"
dump "$T/ref.db" "$T/ref.txt"
lines=$(wc -l <"$T/ref.txt")
[ "$lines" -gt "$N" ] || die "reference dump has only $lines lines"

for delay in 0.02 0.05 0.1 0.2 0.35; do
    db="$T/k$delay.db"
    $ARB run "$T/b/suite.json" --db "$db" --batch 20 >/dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    kill -9 "$pid" 2>/dev/null && killed=1 || killed=0
    wait "$pid" 2>/dev/null
    tries=0
    # Resume until complete, killing again once along the way.
    while :; do
        tries=$((tries + 1))
        if [ "$tries" -eq 1 ] && [ "$killed" = 1 ] && $ARB runs --db "$db" 2>/dev/null | grep -q .; then
            $ARB run --resume latest --db "$db" --batch 20 >/dev/null 2>&1 &
            pid=$!
            sleep 0.05
            kill -9 "$pid" 2>/dev/null
            wait "$pid" 2>/dev/null
            continue
        fi
        # Killed before the run was even recorded: there is nothing to resume, start it.
        if ! $ARB runs --db "$db" 2>/dev/null | grep -q .; then
            $ARB run "$T/b/suite.json" --db "$db" --batch 20 >"$T/res.out" 2>&1 && break
            continue
        fi
        if $ARB run --resume latest --db "$db" --batch 20 >"$T/res.out" 2>&1; then break; fi
        if [ "$tries" -gt 5 ]; then echo "FAIL: resume after ${delay}s: $(cat "$T/res.out")"; break; fi
    done
    dump "$db" "$T/k.txt"
    if cmp -s "$T/ref.txt" "$T/k.txt"; then
        ok
    else
        bad "killed after ${delay}s (killed=$killed): records differ from the uninterrupted run"
        diff "$T/ref.txt" "$T/k.txt" | head -5
    fi
done

test_done
