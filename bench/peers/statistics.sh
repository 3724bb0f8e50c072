#!/bin/sh
# Workload 2 of make bench-peers: the statistical comparison of two runs' scores.
# agent-eval-harness `compare --strategy statistical` (under Bun) on two capture files of
# N scores each, and `arbiter report --strategy statistical` on a run with the same
# per-case scores (a graded criterion whose score is m/10, so overall = 1 + 4 * score).
# Prints the times and both tools' 95% intervals of each system's mean score.
# usage: bench/peers/statistics.sh path/to/arbiter [N] [RESAMPLES]
set -eu
ARB="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
N="${2:-10000}"
B="${3:-1000}"
HERE="$(cd "$(dirname "$0")" && pwd)"
sh "$HERE/install.sh" >/dev/null
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T"
awk -v n="$N" 'BEGIN {
    srand(3)
    for (s = 0; s < 2; s++) {
        f = (s ? "b" : "a") ".jsonl"; g = (s ? "ob" : "oa") ".jsonl"
        for (i = 0; i < n; i++) {
            m = int(rand() * 11)
            if (s == 1 && rand() < 0.3 && m < 10) m++
            sc = m / 10
            printf "{\"id\":\"c%05d\",\"input\":\"q\",\"output\":\"o\",\"trajectory\":[],\"metadata\":{},\"timing\":{\"start\":0,\"end\":100,\"sessionCreation\":0,\"total\":100},\"toolErrors\":false,\"score\":{\"pass\":%s,\"score\":%.1f}}\n", i, (sc >= 0.5 ? "true" : "false"), sc >f
            printf "{\"id\":\"c%05d\",\"output\":\"%s\"}\n", i, substr("xxxxxxxxxx", 1, m) substr("yyyyyyyyyy", 1, 10 - m) >g
        }
    }
    for (i = 0; i < n; i++) printf "{\"id\":\"c%05d\",\"expected\":\"xxxxxxxxxx\"}\n", i >"cases.jsonl"
}'
cat >suite.json <<'JSON'
{"name": "scores", "systems": {"a": "oa.jsonl", "b": "ob.jsonl"},
 "rubric": {"content": [{"name": "quality", "graded": true,
                         "check": {"op": "levenshtein", "threshold": 0.5}}], "structure": []},
 "cases": "cases.jsonl"}
JSON
"$ARB" run suite.json --db s.db >/dev/null
export COMPARE_BOOTSTRAP_ITERATIONS="$B"
s0=$(date +%s.%N)
"$HERE/node_modules/.bin/bun" "$HERE/node_modules/.bin/agent-eval-harness" compare \
    --strategy statistical a.jsonl b.jsonl >harness.json 2>/dev/null
s1=$(date +%s.%N)
"$ARB" report latest --db s.db --strategy statistical --format json >arbiter.json
s2=$(date +%s.%N)
awk -v a="$s0" -v b="$s1" -v c="$s2" -v n="$N" -v r="$B" 'BEGIN {
    printf "workload 2: %d cases x 2 runs, %d resamples\n", n, r
    printf "  agent-eval-harness compare --strategy statistical (bun): %.2f s\n", b - a
    printf "  arbiter report --strategy statistical:                  %.2f s  (%.1fx faster)\n", c - b, (b - a) / (c - b)
}'
# The intervals of the mean score, side by side (Arbiter's overall = 1 + 4 * score).
node -e '
const h = require("./harness.json").quality, a = require("./arbiter.json");
for (const s of a.systems) {
    const x = s.intervals.overall_score.map(v => (v - 1) / 4), y = h[s.name].confidenceIntervals.avgScore;
    console.log(`  system ${s.name}: harness [${y.map(v => v.toFixed(4)).join(", ")}]   ` +
                `arbiter [${x.map(v => v.toFixed(4)).join(", ")}]`);
}'
