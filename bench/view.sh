#!/bin/sh
# `arbiter view` on a large judged run: N cases (default 100,000), two systems, one rubric
# criterion without a check so every case goes to the test judge (tests/judge_sim on
# 127.0.0.1) in both orders, then the time each page takes to answer over HTTP (curl's
# time_total): the first request of a kind (which builds what the server keeps: the case
# index, the run's report, the search index) and the best of 5 after it.
# usage: bench/view.sh path/to/arbiter path/to/judge_sim [N]
set -eu
ARB="$1"
SIM="$2"
N="${3:-100000}"
T=$(mktemp -d)
SIM_PID=
VIEW_PID=
cleanup() {
    [ -z "$VIEW_PID" ] || kill "$VIEW_PID" 2>/dev/null || true
    [ -z "$SIM_PID" ] || kill "$SIM_PID" 2>/dev/null || true
    rm -rf "$T"
}
trap cleanup EXIT

# wait_port FILE: its port, once written (at most 5 minutes: the view prepares a run first).
wait_port() {
    i=0
    while [ ! -s "$1" ] && [ $i -lt 6000 ]; do sleep 0.05; i=$((i + 1)); done
    [ -s "$1" ] || { echo "bench/view.sh: no port in $1" >&2; exit 1; }
    cat "$1"
}

awk -v n="$N" -v dir="$T" 'BEGIN {
    split("plainly carefully roughly exactly quickly honestly", w, " ")
    for (i = 0; i < n; i++) {
        id = sprintf("c%06d", i); y = (i * 7) % 13; s = i + y
        printf "{\"id\":\"%s\",\"prompt\":\"What is %d plus %d?\"}\n", id, i, y >(dir "/cases.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"The sum of %d and %d is %d, computed %s.\"}\n", id, i, y, s, w[i % 6 + 1] >(dir "/a.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"I think %d plus %d gives %d, said %s.\"}\n", id, i, y, (i % 3 == 0) ? s + 1 : s, w[(i + 2) % 6 + 1] >(dir "/b.jsonl")
    }
}'
"$SIM" --port 0 --port-file "$T/sim.port" >/dev/null 2>"$T/sim.err" &
SIM_PID=$!
SPORT=$(wait_port "$T/sim.port")
cat >"$T/suite.json" <<EOF
{"name": "view-bench", "seed": 7, "task": "Add the two numbers and say the sum.",
 "systems": {"alpha": "a.jsonl", "beta": "b.jsonl"},
 "rubric": {"content": [{"name": "correctness", "description": "the sum is right"}], "structure": []},
 "expectations": [{"id": "number", "text": "says a number", "check": {"op": "regex", "expected": "[0-9]"}}],
 "judge": {"provider": "openai", "base_url": "http://127.0.0.1:$SPORT/v1", "model": "sim-1",
           "api_key_env": "ARB_BENCH_KEY", "concurrency": 32, "timeout_s": 30, "max_retries": 4},
 "cases": "cases.jsonl"}
EOF
start=$(date +%s.%N)
ARB_BENCH_KEY=sk-bench "$ARB" run "$T/suite.json" --db "$T/v.db" --no-progress >"$T/run.out"
end=$(date +%s.%N)
kill "$SIM_PID"
wait "$SIM_PID" 2>/dev/null || true
SIM_PID=
awk -v s="$start" -v e="$end" -v n="$N" 'BEGIN {
    printf "view: a judged run of %d cases (%d judge requests) made in %.1f s\n", n, 2 * n, e - s }'

start=$(date +%s.%N)
"$ARB" view --db "$T/v.db" --port 0 --port-file "$T/view.port" 2>"$T/view.err" &
VIEW_PID=$!
VPORT=$(wait_port "$T/view.port")
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" 'BEGIN {
    printf "view: listening after %.2f s (the latest run prepared: its case index and report)\n", e - s }'
BASE="http://127.0.0.1:$VPORT"
mid=$(printf 'c%06d' $((N / 2)))
deep=$((N / 50 - 10))
[ "$deep" -ge 2 ] || deep=2

# time NAME PATH: the first request, then the best of 5.
measure() {
    first=$(curl -s -o "$T/body" -w '%{http_code} %{time_total}' "$BASE$2")
    code=${first% *}
    [ "$code" = 200 ] || { echo "bench/view.sh: $2 answered $code" >&2; exit 1; }
    best=
    for _ in 1 2 3 4 5; do
        t=$(curl -s -o /dev/null -w '%{time_total}' "$BASE$2")
        best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (a == "" || b < a) ? b : a }')
    done
    awk -v n="$1" -v f="${first#* }" -v b="$best" -v s="$(wc -c <"$T/body")" 'BEGIN {
        printf "  %-44s first %7.1f ms   then best of 5 %6.1f ms   (%d bytes)\n", n, f * 1000, b * 1000, s }'
}
echo "view: pages of that run over HTTP (curl time_total; 'first' builds what is kept)"
measure "runs list /" /
measure "case table, first page" /runs/1/cases
measure "case table, position-inconsistent" '/runs/1/cases?flag=pi'
measure "case table, page $deep (deep)" "/runs/1/cases?page=$deep"
measure "case table, sorted by margin, descending" '/runs/1/cases?sort=margin&dir=desc'
measure "case table, search 'plus 12'" '/runs/1/cases?q=plus+12'
measure "case table, search 'c0999', pi" '/runs/1/cases?q=c0999&flag=pi'
measure "one case (with neighbours under pi)" "/runs/1/cases/$mid?flag=pi"
measure "run page (the report's panels)" /runs/1
measure "labels page" /runs/1/labels
measure "static report (2,000 cases' details)" /runs/1/report
kill "$VIEW_PID"
wait "$VIEW_PID" 2>/dev/null || true
VIEW_PID=
