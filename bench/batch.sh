#!/bin/sh
# Throughput of `arbiter check --batch` end to end: generates N JSONL lines
# mixing six operators, runs the batch, prints wall time, checks/s and peak
# memory.  usage: bench/batch.sh path/to/arbiter [N]
set -eu
ARB="$1"
N="${2:-100000}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
awk -v n="$N" 'BEGIN {
    for (i = 0; i < n; i++) {
        m = i % 6
        if (m == 0) c = "{\"op\":\"exact\",\"expected\":\"answer " i % 7 "\"}"
        else if (m == 1) c = "{\"op\":\"icontains\",\"expected\":\"ANSWER\"}"
        else if (m == 2) c = "{\"op\":\"regex\",\"expected\":\"answer \\\\d+\"}"
        else if (m == 3) c = "{\"op\":\"json_valid\"}"
        else if (m == 4) c = "{\"op\":\"json_subset\",\"expected\":{\"a\":1}}"
        else c = "{\"op\":\"levenshtein\",\"expected\":\"answer 3\",\"threshold\":0.8}"
        o = (m == 3 || m == 4) ? "{\\\"a\\\": " i % 3 ", \\\"b\\\": [1,2]}" : "the answer " i % 11
        printf "{\"check\":%s,\"observed\":\"%s\"}\n", c, o
    }
}' >"$T/in.jsonl"
start=$(date +%s.%N)
if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%M' -o "$T/mem" "$ARB" check --batch "$T/in.jsonl" >"$T/out.jsonl"
else
    "$ARB" check --batch "$T/in.jsonl" >"$T/out.jsonl"
    echo "?" >"$T/mem"
fi
end=$(date +%s.%N)
lines=$(wc -l <"$T/out.jsonl")
[ "$lines" -eq "$N" ] || { echo "batch: $lines records for $N lines"; exit 1; }
awk -v s="$start" -v e="$end" -v n="$N" -v m="$(cat "$T/mem")" 'BEGIN {
    printf "check --batch: %d lines in %.3f s = %.0f checks/s, peak RSS %s kB\n", n, e - s, n / (e - s), m
}'
