#!/bin/sh
# A judged run answers a batch of cases while the next batch's requests are in
# flight (run.c's flush_batch, escalate.c's escalation_mark/_drain_marked):
# - the records are those of a run whose one batch holds every case;
# - the overlap happens: a retried request of one batch reaches the judge after
#   requests of the next batch (without it the batches arrive in order);
# - a kill and resume in the middle of overlapping batches loses nothing.
# usage: tests/cli/judge_overlap.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
TEST_NAME=judge-overlap
ARB="$1"
SIM="$2"
export ARB_OVERLAP_KEY=overlap-key-7

# 429s wait a second before their retry: the next batch's requests go out meanwhile.
start_sim --latency-ms 5 --rate-429 0.08 --retry-after 1 --rate-500 0.05 --rate-malformed 0.05

mkdir -p "$T/s"
awk -v n=120 -v dir="$T/s" 'BEGIN {
    for (i = 0; i < n; i++) {
        id = sprintf("q%03d", i)
        printf "{\"id\":\"%s\",\"expected\":\"%d\"}\n", id, i >(dir "/cases.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"The answer is %d.\"}\n", id, i >(dir "/a.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"It is %d.\"}\n", id, i + (i % 3 == 0) >(dir "/b.jsonl")
    }
}'
cat >"$T/s/suite.json" <<JSON
{"name": "overlap test", "task": "Answer.", "systems": {"alpha": "a.jsonl", "beta": "b.jsonl"},
 "rubric": {"content": [{"name": "correctness", "check": {"op": "contains"}}, {"name": "clarity"}],
            "structure": []},
 "judge": {"provider": "openai", "base_url": "http://127.0.0.1:$PORT/v1", "model": "sim",
           "api_key_env": "ARB_OVERLAP_KEY", "concurrency": 16},
 "cases": "cases.jsonl"}
JSON

dump() {
    $ARB export latest --jsonl --db "$1" | sort >"$2"
    rm -rf "$2.cmp"
    $ARB export latest --comparisons "$2.cmp" --db "$1" 2>/dev/null
    (cd "$2.cmp" && cat ./*) >>"$2"
    sqlite3 "$1" "SELECT case_id, system_a, system_b, ord, sample, attempt, valid, answer_json
                  FROM judgments ORDER BY 1, 2, 3, 4, 5, 6" >>"$2"
}

# One batch: every question asked before the first drain.
$ARB run "$T/s/suite.json" --db "$T/one.db" --batch 1000 >"$T/out" 2>&1 ||
    bad "one-batch run: $(cat "$T/out")"
dump "$T/one.db" "$T/one.txt"

# Batches of 7 cases against a fresh judge (same seed: the same replies and faults).
stop_all_sims
: >"$T/sim.log"
start_sim --latency-ms 5 --rate-429 0.08 --retry-after 1 --rate-500 0.05 --rate-malformed 0.05
sed "s/127.0.0.1:[0-9]*/127.0.0.1:$PORT/" "$T/s/suite.json" >"$T/s/suite2.json"
mv "$T/s/suite2.json" "$T/s/suite.json"
$ARB run "$T/s/suite.json" --db "$T/seven.db" --batch 7 >"$T/out" 2>&1 ||
    bad "7-case batches: $(cat "$T/out")"
dump "$T/seven.db" "$T/seven.txt"
if cmp -s "$T/one.txt" "$T/seven.txt"; then ok; else
    bad "7-case batches stored other records than one batch: $(diff "$T/one.txt" "$T/seven.txt" | head -5)"
fi

# The judge's log, one case number per request, in arrival order: some request of batch
# b arrives after one of batch b + 1 (a retry waiting while the next batch was asked).
late=$(awk '{
    if (match($0, /The answer is [0-9]+/)) {
        n = substr($0, RSTART + 14, RLENGTH - 14) + 0
        b = int(n / 7)
        if (b < max) late++
        if (b > max) max = b
    }
} END { print late + 0 }' "$T/sim.log")
[ "$late" -gt 0 ] && ok || bad "no request arrived after a later batch's: the batches did not overlap"
lines=$(wc -l <"$T/sim.log")
[ "$lines" -gt 240 ] && ok || bad "the judge saw $lines requests, want more than 240 (faults retried)"

# Killed while batches overlap, then resumed: the same records.
i=0
while [ $i -lt 3 ]; do
    if [ -f "$T/k.db" ]; then
        $ARB run --resume latest --db "$T/k.db" --batch 7 >/dev/null 2>&1 &
    else
        $ARB run "$T/s/suite.json" --db "$T/k.db" --batch 7 >/dev/null 2>&1 &
    fi
    pid=$!
    sleep 0.$((3 + i * 2))
    kill -9 "$pid" 2>/dev/null; cp "$T/k.db" "$T/k.db.$i" 2>/dev/null; cp "$T/k.db-wal" "$T/k.db.$i-wal" 2>/dev/null
    wait "$pid" 2>/dev/null
    i=$((i + 1))
done
$ARB run --resume latest --db "$T/k.db" --batch 7 >"$T/out" 2>&1 || bad "final resume: $(cat "$T/out")"
dump "$T/k.db" "$T/k.txt"
# Judgments differ only where a kill dropped a reply: compare the verdicts and records.
grep -v '^q[0-9]*|' "$T/one.txt" >"$T/one.rec"
grep -v '^q[0-9]*|' "$T/k.txt" >"$T/k.rec"
if cmp -s "$T/one.rec" "$T/k.rec"; then ok; else
    bad "killed and resumed run differs: $(diff "$T/one.rec" "$T/k.rec" | head -5)"
fi

test_done
