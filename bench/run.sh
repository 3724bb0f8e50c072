#!/bin/sh
# End-to-end throughput of `arbiter run`: N cases x 2 systems x 6 checks into
# a fresh SQLite file, then `arbiter report` of it in every format (markdown, JSON,
# HTML, CSV; markdown, JSON and HTML also with the statistical strategy and its default
# 1,000 resamples, markdown with the weighted one).  Prints wall time and peak memory,
# and the database's size per case (the file and its -wal after the run, over N).
# usage: bench/run.sh path/to/arbiter [N ...]   (default: 10000 100000)
set -eu
ARB="$1"
shift
[ $# -gt 0 ] || set -- 10000 100000
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for N in "$@"; do
    rm -rf "$T/b" "$T/run.db"*
    mkdir -p "$T/b/bdir"
    awk -v n="$N" -v dir="$T/b" 'BEGIN {
        for (i = 0; i < n; i++) {
            id = sprintf("case-%06d", i)
            printf "{\"id\":\"%s\",\"expected\":{\"id\":\"INV-%06d\",\"vendor\":\"Acme Corp\",\"total\":%d.5}}\n", id, i, i % 1000 >(dir "/cases.jsonl")
            printf "{\"id\":\"%s\",\"output\":\"{\\\"id\\\": \\\"INV-%06d\\\", \\\"vendor\\\": \\\"ACME Corporation\\\", \\\"total\\\": %d.5}\",\"duration\":%d}\n", id, i, i % 1000 + (i % 13 == 0), 100 + i % 50 >(dir "/a.jsonl")
            printf "{\"id\":\"%s\",\"output\":\"Sure: {\\\"id\\\": \\\"INV-%06d\\\", \\\"vendor\\\": \\\"Acme\\\", \\\"total\\\": %d.5}\"}\n", id, i, i % 1000 >(dir "/b.jsonl")
        }
    }'
    cat >"$T/b/suite.json" <<'JSON'
{"name": "bench", "seed": 1, "systems": {"a": "a.jsonl", "b": "b.jsonl"},
 "rubric": {"content": [{"name": "correctness", "check": {"op": "json_match", "keys": ["id", "total"]}},
                        {"name": "vendor", "check": {"op": "name", "expected": "Acme", "extract": "/vendor"}}],
            "structure": [{"name": "formatting", "check": {"op": "json_valid"}}]},
 "expectations": [
   {"id": "no-prose", "text": "only JSON", "check": {"op": "regex", "expected": "^\\s*\\{", "mode": "match"}},
   {"id": "has-total", "text": "has a total", "check": {"op": "icontains", "expected": "\"total\""}},
   {"id": "number", "text": "invoice number", "check": {"op": "regex", "expected": "INV-\\d{6}"}}],
 "cases": "cases.jsonl"}
JSON
    start=$(date +%s.%N)
    /usr/bin/time -f '%M %U %S' -o "$T/mem" "$ARB" run "$T/b/suite.json" --db "$T/run.db" >"$T/out"
    end=$(date +%s.%N)
    # CPU time (user + system, both threads) beside the wall time: on a shared machine the
    # wall time also counts the waiting for a core.
    awk -v s="$start" -v e="$end" -v n="$N" -v m="$(cat "$T/mem")" 'BEGIN {
        split(m, v, " ")
        printf "run: %d cases x 2 systems x 6 checks in %.2f s (%.0f cases/s; %.1f s CPU), peak RSS %.1f MB\n", n, e - s, n / (e - s), v[2] + v[3], v[1] / 1024
    }'
    awk -v n="$N" -v db="$(wc -c <"$T/run.db")" -v wal="$( [ -f "$T/run.db-wal" ] && wc -c <"$T/run.db-wal" || echo 0)" 'BEGIN {
        printf "database: %.1f MB (+ %.1f MB WAL), %.0f bytes per case\n", db / 1e6, wal / 1e6, (db + wal) / n
    }'
    sed 's/^/    /' "$T/out" | head -3
    # The reports of that run, read back from the database only: every format (markdown,
    # JSON, HTML, CSV) and the strategies that read more (statistical, weighted).
    for rep in md md:statistical md:weighted json json:statistical html html:statistical csv; do
        fmt=${rep%%:*}
        strat=${rep#"$fmt"}
        strat=${strat#:}
        start=$(date +%s.%N)
        /usr/bin/time -f '%M' -o "$T/mem" "$ARB" report 1 --db "$T/run.db" --format "$fmt" \
            ${strat:+--strategy "$strat"} >/dev/null
        end=$(date +%s.%N)
        awk -v s="$start" -v e="$end" -v n="$N" -v m="$(cat "$T/mem")" -v w="$fmt${strat:+, $strat}" 'BEGIN {
            printf "report (%s): %d cases in %.2f s, peak RSS %.1f MB\n", w, n, e - s, m / 1024
        }'
    done
    # The CSV table as `export --csv` writes it (the same table as the csv report).
    start=$(date +%s.%N)
    /usr/bin/time -f '%M' -o "$T/mem" "$ARB" export 1 --csv --db "$T/run.db" >/dev/null
    end=$(date +%s.%N)
    awk -v s="$start" -v e="$end" -v n="$N" -v m="$(cat "$T/mem")" 'BEGIN {
        printf "export (csv): %d cases in %.2f s, peak RSS %.1f MB\n", n, e - s, m / 1024
    }'
done
