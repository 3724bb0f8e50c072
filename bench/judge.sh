#!/bin/sh
# Judge throughput: N escalated cases, swap on (2 requests each), against the
# test judge with a fixed latency, at a given concurrency.  Prints the wall
# time and its ratio to the ideal N*2*latency/concurrency.
# usage: bench/judge.sh path/to/arbiter path/to/judge_sim [N] [latency_ms] [concurrency]
set -eu
ARB="$1"
SIM="$2"
N="${3:-1000}"
LAT="${4:-200}"
CONC="${5:-32}"
T=$(mktemp -d)
"$SIM" --port 0 --port-file "$T/port" --latency-ms "$LAT" >/dev/null 2>&1 &
SIM_PID=$!
trap 'kill $SIM_PID 2>/dev/null; rm -rf "$T"' EXIT
i=0
while [ ! -s "$T/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
PORT=$(cat "$T/port")
awk -v n="$N" -v dir="$T" 'BEGIN {
    for (i = 0; i < n; i++) {
        id = sprintf("q%05d", i)
        printf "{\"id\":\"%s\",\"expected\":\"%d\"}\n", id, i >(dir "/cases.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"The answer is %d.\"}\n", id, i >(dir "/a.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"It is %d, I think.\"}\n", id, i >(dir "/b.jsonl")
    }
}'
cat >"$T/suite.json" <<JSON
{"name": "judge bench", "task": "Answer the question.", "systems": {"a": "a.jsonl", "b": "b.jsonl"},
 "rubric": {"content": [{"name": "correctness", "check": {"op": "contains"}}, {"name": "clarity"}],
            "structure": []},
 "judge": {"provider": "openai", "base_url": "http://127.0.0.1:$PORT/v1", "model": "sim",
           "api_key_env": "ARB_BENCH_KEY", "concurrency": $CONC, "max_retries": 0},
 "cases": "cases.jsonl"}
JSON
start=$(date +%s.%N)
ARB_BENCH_KEY=bench "$ARB" run "$T/suite.json" --db "$T/run.db" >"$T/out" 2>/dev/null
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" -v n="$N" -v l="$LAT" -v c="$CONC" 'BEGIN {
    ideal = n * 2 * l / 1000 / c; t = e - s
    printf "judge: %d cases x 2 orders, %d ms latency, concurrency %d: %.2f s (ideal %.2f s, ratio %.3f)\n", n, l, c, t, ideal, t / ideal
}'
sed 's/^/    /' "$T/out" | head -1
