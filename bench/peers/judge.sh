#!/bin/sh
# make bench-peers, workload 3: judge throughput.  N single-order judgments (default 500)
# against the test judge (tests/judge_sim) answering after a fixed latency (default 200 ms),
# at concurrency 4, 16 and 64, through promptfoo (an llm-rubric assertion on its echo
# provider, graded by an openai:chat provider pointed at the test judge, -j N) and through
# `arbiter run` (two systems, a rubric criterion only the judge can score, swap off, so one
# request per case).  Then the same at concurrency 16 with faults: 5% 429, 5% 500 and 5%
# truncated replies.  Prints wall time, the ideal N x latency / concurrency, the ratio, the
# judgments each tool completed and its exit code.
# usage: bench/peers/judge.sh path/to/arbiter path/to/judge_sim [N] [latency_ms]
set -eu
ARB="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
SIM="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
N="${3:-500}"
LAT="${4:-200}"
HERE="$(cd "$(dirname "$0")" && pwd)"
PF="$HERE/node_modules/.bin/promptfoo"
sh "$HERE/install.sh" >/dev/null
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
export PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 HOME="$T/home"
export ARB_BENCH_KEY=bench PF_BENCH_KEY=bench
mkdir -p "$HOME"

# start_sim ARGS...: a fresh test judge on an ephemeral port (so attempt counts start at
# zero for every measurement); sets PORT.
start_sim() {
    stop_sim
    rm -f "$T/port"
    "$SIM" --port 0 --port-file "$T/port" --latency-ms "$LAT" "$@" >/dev/null 2>"$T/sim.err" &
    SIM_PID=$!
    i=0
    while [ ! -s "$T/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    PORT=$(cat "$T/port" 2>/dev/null || true)
    [ -n "$PORT" ] || { echo "bench-peers: judge_sim did not start: $(cat "$T/sim.err")"; exit 1; }
}

# The cases: a question's answer from two systems; promptfoo grades system a's.
awk -v n="$N" -v dir="$T" 'BEGIN {
    print "output" >(dir "/tests.csv")
    for (i = 0; i < n; i++) {
        id = sprintf("q%05d", i)
        printf "The answer is %d.\n", i >(dir "/tests.csv")
        printf "{\"id\":\"%s\",\"expected\":\"%d\"}\n", id, i >(dir "/cases.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"The answer is %d.\"}\n", id, i >(dir "/a.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"It is %d, I think.\"}\n", id, i >(dir "/b.jsonl")
    }
}'

now() { date +%s.%N; }
elapsed() { awk -v s="$1" -v e="$2" 'BEGIN { printf "%.2f", e - s }'; }

# run_promptfoo CONCURRENCY SIM-ARGS...: writes "seconds judgments exit-code" to $T/res.
run_promptfoo() {
    conc=$1
    shift
    start_sim --reply-format promptfoo-rubric "$@"
    cat >"$T/pf.yaml" <<YAML
prompts: ["{{output}}"]
providers: ["echo"]
evaluateOptions:
  maxConcurrency: $conc
defaultTest:
  options:
    provider:
      id: openai:chat:judge-sim
      config:
        apiBaseUrl: http://127.0.0.1:$PORT/v1
        apiKeyEnvar: PF_BENCH_KEY
  assert:
    - type: llm-rubric
      value: "The answer states a number."
tests: file://tests.csv
YAML
    rm -f "$T/pf.json"
    rc=0
    start=$(now)
    (cd "$T" && "$PF" eval -c pf.yaml --no-cache --no-progress-bar -j "$conc" -o pf.json \
        >"$T/pf.out" 2>"$T/pf.err") || rc=$?
    end=$(now)
    stop_sim
    # A completed judgment: the llm-rubric component carries the judge's verdict (the test
    # judge always passes; a provider error or an unparsable reply fails the assertion).
    done_n=$(node -e '
        let n = 0;
        try {
            for (const r of require(process.argv[1]).results.results)
                for (const c of (r.gradingResult || {}).componentResults || [])
                    if (c.assertion && c.assertion.type === "llm-rubric" && c.pass === true) n++;
        } catch (e) { n = 0; }
        console.log(n);' "$T/pf.json")
    if [ "$done_n" -eq 0 ]; then
        echo "bench-peers: promptfoo completed no judgment (exit $rc):" >&2
        tail -n 5 "$T/pf.err" >&2
        tail -n 5 "$T/pf.out" >&2
    fi
    echo "$(elapsed "$start" "$end") $done_n $rc" >"$T/res"
}

# run_arbiter CONCURRENCY SIM-ARGS...: writes "seconds judgments exit-code" to $T/res.
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
    rm -f "$T/run.db"
    rc=0
    start=$(now)
    "$ARB" run "$T/suite.json" --db "$T/run.db" >"$T/arb.out" 2>"$T/arb.err" || rc=$?
    end=$(now)
    stop_sim
    done_n=$(sqlite3 "$T/run.db" \
        "SELECT count(DISTINCT case_id) FROM judgments WHERE valid = 1" 2>/dev/null || echo 0)
    if [ "$rc" -ne 0 ]; then
        echo "bench-peers: arbiter run exited $rc:" >&2
        tail -n 5 "$T/arb.err" >&2
    fi
    echo "$(elapsed "$start" "$end") $done_n $rc" >"$T/res"
}

# row TOOL CONCURRENCY [SIM-ARGS...]: runs run_TOOL (in this shell, so the EXIT trap knows
# the test judge's pid) and prints its line of the table.
row() {
    tool=$1
    c=$2
    shift 2
    "run_$tool" "$c" "$@"
    read -r secs judged code <"$T/res"
    awk -v tool="$tool" -v c="$c" -v t="$secs" -v d="$judged" -v rc="$code" -v n="$N" -v l="$LAT" '
    BEGIN {
        ideal = n * l / 1000 / c
        printf "| %-9s | %5d | %7.2f s | %6.2f s | %6.3f | %4d/%d | %3d |\n", tool, c, t, ideal, t / ideal, d, n, rc
    }'
}

echo
echo "workload 3: $N single-order judgments, test judge latency $LAT ms" \
    "(node $(node --version), promptfoo $("$PF" --version 2>/dev/null | tail -n 1))"
echo
echo "| tool      | conc. | wall time |  ideal |  ratio | judgments | exit |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for c in 4 16 64; do
    row promptfoo "$c"
    row arbiter "$c"
done

FAULTS="--rate-429 0.05 --rate-500 0.05 --rate-malformed 0.05"
echo
echo "with faults ($FAULTS), concurrency 16:"
echo
echo "| tool      | conc. | wall time |  ideal |  ratio | judgments | exit |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
# shellcheck disable=SC2086 # FAULTS is a list of flags
row promptfoo 16 $FAULTS
# shellcheck disable=SC2086
row arbiter 16 $FAULTS
