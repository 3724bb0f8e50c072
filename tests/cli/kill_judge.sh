#!/bin/sh
# A 500-case run with judge calls, killed with SIGKILL at 20 random points and
# resumed each time: it must end with exactly the records of an uninterrupted
# run, and no request whose reply was stored is ever sent again (only those in
# flight at a kill may be).  Also: the API key appears in no artifact.
# usage: tests/cli/kill_judge.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
TEST_NAME=kill-judge
ARB="$1"
SIM="$2"
KEY=canary-key-kill-4242
export ARB_KILL_KEY=$KEY

start_sim --latency-ms 15

mkdir -p "$T/s"
awk -v n=500 -v dir="$T/s" 'BEGIN {
    for (i = 0; i < n; i++) {
        id = sprintf("q%03d", i)
        printf "{\"id\":\"%s\",\"expected\":\"%d\"}\n", id, i >(dir "/cases.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"The answer is %d.\"}\n", id, i >(dir "/a.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"It is %d.\"}\n", id, i + (i % 3 == 0) >(dir "/b.jsonl")
    }
}'
cat >"$T/s/suite.json" <<JSON
{"name": "kill test", "task": "Answer.", "systems": {"alpha": "a.jsonl", "beta": "b.jsonl"},
 "rubric": {"content": [{"name": "correctness", "check": {"op": "contains"}}, {"name": "clarity"}],
            "structure": []},
 "judge": {"provider": "openai", "base_url": "http://127.0.0.1:$PORT/v1", "model": "sim",
           "api_key_env": "ARB_KILL_KEY", "concurrency": 8},
 "cases": "cases.jsonl"}
JSON

dump() {
    $ARB export latest --jsonl --db "$1" | sort >"$2"
    rm -rf "$2.cmp"
    $ARB export latest --comparisons "$2.cmp" --db "$1" 2>/dev/null
    (cd "$2.cmp" && cat ./*) >>"$2"
}

# The uninterrupted run (its requests fill the cache of a.db only).
$ARB run "$T/s/suite.json" --db "$T/a.db" --batch 25 >"$T/out" 2>&1 || bad "uninterrupted run: $(cat "$T/out")"
dump "$T/a.db" "$T/ref.txt"
reference_requests=$(wc -l <"$T/sim.log")
[ "$reference_requests" -eq 1000 ] && ok || bad "uninterrupted run sent $reference_requests requests, want 1000"

# Killed 20 times at random points, resumed each time.
: >"$T/sim.log"
kills=0
seedr=12345
while [ $kills -lt 20 ]; do
    seedr=$(( (seedr * 1103515245 + 12345) % 2147483648 ))
    delay_ms=$(( 30 + seedr % 400 ))
    if $ARB runs --db "$T/k.db" 2>/dev/null | grep -q .; then
        $ARB run --resume latest --db "$T/k.db" --batch 25 >/dev/null 2>&1 &
    else
        $ARB run "$T/s/suite.json" --db "$T/k.db" --batch 25 >/dev/null 2>&1 &
    fi
    pid=$!
    sleep "$(awk -v m=$delay_ms 'BEGIN { printf "%.3f", m / 1000 }')"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    kills=$((kills + 1))
done
if $ARB runs --db "$T/k.db" 2>/dev/null | grep -q .; then
    $ARB run --resume latest --db "$T/k.db" --batch 25 >"$T/out" 2>&1 || bad "final resume: $(cat "$T/out")"
else
    $ARB run "$T/s/suite.json" --db "$T/k.db" --batch 25 >"$T/out" 2>&1 || bad "final run: $(cat "$T/out")"
fi
dump "$T/k.db" "$T/k.txt"
cmp -s "$T/ref.txt" "$T/k.txt" && ok || { bad "records after 20 kills differ from the uninterrupted run"; diff "$T/ref.txt" "$T/k.txt" | head -4; }
sent=$(wc -l <"$T/sim.log")
# Distinct questions: a request sent again after a kill draws another fence code.
distinct=$(sed -e 's/.*"body"://' -e 's/\b[0-9a-f]\{16\}\b/FENCE/g' "$T/sim.log" | sort -u | wc -l)
[ "$distinct" -eq 1000 ] && ok || bad "the killed run asked $distinct distinct requests, want 1000"
# At most the requests in flight at each kill (concurrency 8) may be sent twice.
[ $((sent - distinct)) -le $((20 * 8)) ] && ok || bad "$((sent - distinct)) requests sent again (more than were in flight)"

# The key in no artifact: database files, reports in every format, exports, logs, messages.
$ARB report latest --db "$T/k.db" >"$T/r.md" 2>"$T/r.err"
$ARB report latest --db "$T/k.db" --format json >"$T/r.json" 2>>"$T/r.err"
$ARB report latest --db "$T/k.db" --format html >"$T/r.html" 2>>"$T/r.err"
$ARB export latest --jsonl --db "$T/k.db" >"$T/e.jsonl" 2>>"$T/r.err"
$ARB show latest q001 --db "$T/k.db" --json >"$T/show.json" 2>>"$T/r.err"
for f in "$T"/a.db* "$T"/k.db* "$T/r.md" "$T/r.json" "$T/r.html" "$T/e.jsonl" "$T/show.json" \
    "$T/r.err" "$T/out" "$T/sim.log" "$T"/ref.txt.cmp/*; do
    [ -f "$f" ] || continue
    if grep -q -- "$KEY" "$f"; then bad "the API key reached $(basename "$f")"; else ok; fi
done

test_done
