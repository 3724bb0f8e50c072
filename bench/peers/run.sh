#!/bin/sh
# make bench-peers: the same deterministic workload through promptfoo and through
# Arbiter, side by side.  10,000 cases x 6 assertions (equals, icontains, regex, is-json,
# JSON subset, levenshtein): promptfoo with its echo provider (without and with its
# SQLite write), `arbiter check --batch`, and `arbiter run` storing to SQLite.
# Prints wall time and peak memory of each, and the ratios.
# usage: bench/peers/run.sh path/to/arbiter [N]
set -eu
ARB="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
N="${2:-10000}"
HERE="$(cd "$(dirname "$0")" && pwd)"
sh "$HERE/install.sh" >/dev/null
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1 HOME="$T/home"
mkdir -p "$HOME"

# The cases: an output and its expected value; some outputs differ so checks vary.
awk -v n="$N" -v dir="$T" 'BEGIN {
    print "output,expected" >(dir "/tests.csv")
    for (i = 0; i < n; i++) {
        a = i % 3; b = (i % 7 == 0) ? a + 1 : a
        printf "\"{\"\"a\"\": %d, \"\"answer\"\": \"\"answer %d\"\"}\",\"{\"\"a\"\": %d, \"\"answer\"\": \"\"answer %d\"\"}\"\n", b, i, a, i >(dir "/tests.csv")
        out = sprintf("{\\\"a\\\": %d, \\\"answer\\\": \\\"answer %d\\\"}", b, i)
        etxt = sprintf("{\\\"a\\\": %d, \\\"answer\\\": \\\"answer %d\\\"}", a, i)
        ejson = sprintf("{\"a\": %d, \"answer\": \"answer %d\"}", a, i)
        id = sprintf("c%05d", i)
        printf "{\"id\":\"%s\",\"expected\":%s}\n", id, ejson >(dir "/cases.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"%s\"}\n", id, out >(dir "/a.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"%s\"}\n", id, out >(dir "/b.jsonl")
        printf "{\"check\":{\"op\":\"exact\"},\"expected\":\"%s\",\"observed\":\"%s\"}\n", etxt, out >(dir "/batch.jsonl")
        printf "{\"check\":{\"op\":\"icontains\",\"expected\":\"ANSWER\"},\"observed\":\"%s\"}\n", out >(dir "/batch.jsonl")
        printf "{\"check\":{\"op\":\"regex\",\"expected\":\"answer \\\\d+\"},\"observed\":\"%s\"}\n", out >(dir "/batch.jsonl")
        printf "{\"check\":{\"op\":\"json_valid\"},\"observed\":\"%s\"}\n", out >(dir "/batch.jsonl")
        printf "{\"check\":{\"op\":\"json_subset\"},\"expected\":%s,\"observed\":\"%s\"}\n", ejson, out >(dir "/batch.jsonl")
        printf "{\"check\":{\"op\":\"levenshtein\",\"max_distance\":5},\"expected\":\"%s\",\"observed\":\"%s\"}\n", etxt, out >(dir "/batch.jsonl")
    }
}'
cat >"$T/pf.yaml" <<'YAML'
prompts: ["{{output}}"]
providers: ["echo"]
defaultTest:
  assert:
    - type: equals
      value: "{{expected}}"
    - type: icontains
      value: "ANSWER"
    - type: regex
      value: "answer \\d+"
    - type: is-json
    - type: javascript
      value: "JSON.parse(output).a === JSON.parse(context.vars.expected).a"
    - type: levenshtein
      value: "{{expected}}"
      threshold: 5
tests: file://tests.csv
YAML
cat >"$T/suite.json" <<'JSON'
{"name": "peers", "systems": {"a": "a.jsonl", "b": "b.jsonl"},
 "rubric": {"content": [], "structure": []},
 "expectations": [
   {"id": "equals", "text": "equals", "check": {"op": "exact", "expected_file": "none"}}
 ],
 "cases": "cases.jsonl"}
JSON
# The suite's six checks, as expectations (the case's expected value feeds exact and subset).
cat >"$T/suite.json" <<'JSON'
{"name": "peers", "systems": {"a": "a.jsonl", "b": "b.jsonl"},
 "rubric": {"content": [], "structure": []},
 "expectations": [
   {"id": "equals", "text": "equals", "check": {"op": "json_canonical"}},
   {"id": "icontains", "text": "icontains", "check": {"op": "icontains", "expected": "ANSWER"}},
   {"id": "regex", "text": "regex", "check": {"op": "regex", "expected": "answer \\d+"}},
   {"id": "is-json", "text": "is-json", "check": {"op": "json_valid"}},
   {"id": "subset", "text": "JSON subset", "check": {"op": "json_subset"}},
   {"id": "levenshtein", "text": "levenshtein", "check": {"op": "json_distance", "threshold": 0.8}}
 ],
 "cases": "cases.jsonl"}
JSON

measure() { # label command...
    label=$1
    shift
    start=$(date +%s.%N)
    # promptfoo exits 100 when some assertions fail, as some do here on purpose.
    rc=0
    /usr/bin/time -f '%M' -o "$T/mem" "$@" >"$T/last.out" 2>"$T/last.err" || rc=$?
    if [ $rc -ne 0 ] && ! grep -q "Successes:" "$T/last.out"; then
        echo "bench-peers: $label failed (exit $rc):"; tail -n 5 "$T/last.err"; tail -n 5 "$T/last.out"
        exit 1
    fi
    end=$(date +%s.%N)
    secs=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }')
    mb=$(awk -v k="$(tail -n 1 "$T/mem")" 'BEGIN { printf "%.1f", k / 1024 }')
    printf '%-44s %9s s %9s MB\n' "$label" "$secs" "$mb"
    echo "$label|$secs|$mb" >>"$T/results"
}

echo "workload 1: $N cases x 6 deterministic assertions (wall time on this machine; node $(node --version))"
cd "$T"
measure "promptfoo eval --no-write (no database)" \
    "$HERE/node_modules/.bin/promptfoo" eval -c pf.yaml --no-cache --no-write --no-progress-bar
measure "promptfoo eval (writes its SQLite)" \
    "$HERE/node_modules/.bin/promptfoo" eval -c pf.yaml --no-cache --no-progress-bar
measure "arbiter check --batch ($((N * 6)) lines)" "$ARB" check --batch batch.jsonl
measure "arbiter run (2 systems, into SQLite)" "$ARB" run suite.json --db run.db
awk -F'|' '
    { t[NR] = $2; m[NR] = $3; l[NR] = $1 }
    END {
        printf "\nratios (promptfoo / arbiter, time):\n"
        printf "  check --batch vs promptfoo without database: %.0fx faster, %.0fx less memory\n", t[1] / t[3], m[1] / m[3]
        printf "  run (2 systems!) vs promptfoo with its SQLite: %.0fx faster, %.0fx less memory\n", t[2] / t[4], m[2] / m[4]
    }' "$T/results"
echo
sh "$HERE/statistics.sh" "$ARB" "$N" 1000
