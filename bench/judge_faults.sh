#!/bin/sh
# Arbiter's side of bench/peers/judge.sh (workload 3), without promptfoo: N single-order
# judgments (default 500) against the test judge answering after a fixed latency (default
# 200 ms), at concurrency 16 and 64, then at 16 with 5% 429, 5% 500 and 5% truncated replies;
# the same suite, judge config and counts as bench/peers/judge.sh.  Each figure is measured
# R times (default 3) on a fresh test judge; prints every run, then the best ratio to the
# ideal N x latency / concurrency and the range.  With LOG_DIR set, the test judge's request
# log of each run is kept there (LOG_DIR/<label>-<k>.log) for a look at where the time went;
# ARB_RUN_ARGS is added to `arbiter run`'s arguments (e.g. "--batch 1000").
# usage: bench/judge_faults.sh path/to/arbiter path/to/judge_sim [N] [latency_ms] [R]
set -eu
ARB="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
SIM="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
N="${3:-500}"
LAT="${4:-200}"
R="${5:-3}"
T=$(mktemp -d)
SIM_PID=
stop_sim() {
    if [ -n "$SIM_PID" ]; then
        kill "$SIM_PID" 2>/dev/null || true
        wait "$SIM_PID" 2>/dev/null || true
    fi
    SIM_PID=
}
trap 'stop_sim; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
export ARB_BENCH_KEY=bench

# start_sim LOG ARGS...: a fresh test judge (attempt counts start at zero); sets PORT.
start_sim() {
    log=$1
    shift
    stop_sim
    rm -f "$T/port"
    if [ -n "$log" ]; then
        set -- --log "$log" "$@"
    fi
    "$SIM" --port 0 --port-file "$T/port" --latency-ms "$LAT" "$@" >/dev/null 2>"$T/sim.err" &
    SIM_PID=$!
    i=0
    while [ ! -s "$T/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    PORT=$(cat "$T/port" 2>/dev/null || true)
    [ -n "$PORT" ] || { echo "judge_faults: judge_sim did not start: $(cat "$T/sim.err")"; exit 1; }
}

awk -v n="$N" -v dir="$T" 'BEGIN {
    for (i = 0; i < n; i++) {
        id = sprintf("q%05d", i)
        printf "{\"id\":\"%s\",\"expected\":\"%d\"}\n", id, i >(dir "/cases.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"The answer is %d.\"}\n", id, i >(dir "/a.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"It is %d, I think.\"}\n", id, i >(dir "/b.jsonl")
    }
}'

now() { date +%s.%N; }

# run_arbiter CONCURRENCY LOG SIM-ARGS...: prints "seconds judgments exit-code".
run_arbiter() {
    conc=$1
    shift
    start_sim "$@"
    cat >"$T/suite.json" <<JSON
{"name": "judge throughput", "task": "Answer the question.",
 "systems": {"a": "a.jsonl", "b": "b.jsonl"},
 "rubric": {"content": [{"name": "correctness", "check": {"op": "contains"}},
                        {"name": "clarity"}],
            "structure": []},
 "judge": {"provider": "openai", "base_url": "http://127.0.0.1:$PORT/v1", "model": "judge-sim",
           "api_key_env": "ARB_BENCH_KEY", "swap": false, "concurrency": $conc,
           "max_retries": 4},
 "cases": "cases.jsonl"}
JSON
    rm -f "$T/run.db" "$T/run.db-wal" "$T/run.db-shm"
    rc=0
    start=$(now)
    # shellcheck disable=SC2086 # ARB_RUN_ARGS is a list of arguments
    "$ARB" run "$T/suite.json" --db "$T/run.db" ${ARB_RUN_ARGS:-} >"$T/arb.out" 2>"$T/arb.err" || rc=$?
    end=$(now)
    stop_sim
    done_n=$(sqlite3 "$T/run.db" \
        "SELECT count(DISTINCT case_id) FROM judgments WHERE valid = 1" 2>/dev/null || echo 0)
    if [ "$rc" -ne 0 ]; then
        echo "judge_faults: arbiter run exited $rc:" >&2
        tail -n 5 "$T/arb.err" >&2
    fi
    awk -v s="$start" -v e="$end" -v d="$done_n" -v rc="$rc" \
        'BEGIN { printf "%.3f %d %d\n", e - s, d, rc }'
}

# figure LABEL CONCURRENCY [SIM-ARGS...]: R runs, each printed, then the best and the range.
figure() {
    label=$1
    c=$2
    shift 2
    : >"$T/ratios"
    k=1
    while [ "$k" -le "$R" ]; do
        log=
        if [ -n "${LOG_DIR:-}" ]; then
            mkdir -p "$LOG_DIR"
            log="$LOG_DIR/$label-$k.log"
            rm -f "$log"
        fi
        run_arbiter "$c" "$log" "$@" >"$T/res"
        read -r secs judged code <"$T/res"
        awk -v label="$label" -v c="$c" -v t="$secs" -v d="$judged" -v rc="$code" -v n="$N" \
            -v l="$LAT" -v k="$k" 'BEGIN {
            ideal = n * l / 1000 / c
            printf "  %-7s run %d: conc. %2d  %6.2f s  ideal %5.2f s  ratio %.3f  %d/%d judged  exit %d\n",
                label, k, c, t, ideal, t / ideal, d, n, rc
            printf "%.3f %.2f\n", t / ideal, t >"/dev/stderr"
        }' 2>>"$T/ratios"
        k=$((k + 1))
    done
    sort -n "$T/ratios" | awk -v label="$label" '
        NR == 1 { best = $1; bt = $2 } { last = $1 }
        END { printf "%-7s best %.3f (%.2f s), range %.3f-%.3f over %d runs\n", label, best, bt, best, last, NR }'
}

echo "judge throughput: $N single-order judgments, test judge latency $LAT ms, $R runs each"
figure c16 16
figure c64 64
figure faults 16 --rate-429 0.05 --rate-500 0.05 --rate-malformed 0.05
