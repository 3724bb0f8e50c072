#!/bin/sh
# make demo: run Arbiter's comparators on the bundled example checks and
# summarise the verdicts.  (The full bake-off with `arbiter run` replaces
# this once the orchestrator lands.)
set -eu
ARB="$1"
cd "$(dirname "$0")/.."
echo "== arbiter check --batch examples/checks.jsonl"
"$ARB" check --batch examples/checks.jsonl >build/demo-records.jsonl
# id from the input line, operator/score/verdict from the record (children dropped).
paste -d' ' examples/checks.jsonl build/demo-records.jsonl | sed -E \
    -e 's/,"children":.*$//' \
    -e 's/^\{"id": "([^"]*)".*\} \{"operator":"([^"]*)".*"score":([^,]*),.*"verdict":"([^"]*)".*/  \1: \2 score=\3 -> \4/'
echo
printf 'verdicts: %s pass, %s fail, %s unresolved (records in build/demo-records.jsonl)\n' \
    "$(grep -c '"verdict":"pass"' build/demo-records.jsonl || true)" \
    "$(grep -c '"verdict":"fail"' build/demo-records.jsonl || true)" \
    "$(grep -c '"verdict":"unresolved"' build/demo-records.jsonl || true)"
echo
echo "== one check on the command line"
"$ARB" check '{"op": "normalized_exact", "expected": "The answer is 42."}' \
    --observed '  the answer is 42. ' || true
