#!/bin/sh
# arbiter replay: every record re-derived offline; an edited record is named.
# usage: tests/cli/replay.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
ARB="$1"
SIM="$2"

# 1. The example bake-off replays identically, and the database is left alone.
$ARB run examples/invoice/suite.json --db "$T/a.db" >/dev/null 2>&1 || bad "run"
# Each output's text is stored once (migration 10): no stored record text holds it, yet the
# records of v_checks do, as their observed member.
kept=$(sqlite3 "$T/a.db" "SELECT count(*) FROM checks c JOIN check_texts t ON t.id = c.record
    JOIN outputs o ON o.run = c.run AND o.case_id = c.case_id AND o.system = c.system AND o.file = ''
    WHERE t.observed_at IS NOT NULL AND length(o.content) > 20
    AND instr(t.body, substr(json_quote(o.content), 2, length(json_quote(o.content)) - 2)) > 0")
whole=$(sqlite3 "$T/a.db" "SELECT count(*) FROM v_checks c JOIN outputs o ON o.run = c.run
    AND o.case_id = c.case_id AND o.system = c.system AND o.file = ''
    WHERE json_extract(c.record_json, '$.observed') = o.content")
[ "$kept" = 0 ] && [ "$whole" -gt 100 ] && ok ||
    bad "output texts kept in check records: $kept; records observing their output: $whole"
before=$(md5sum <"$T/a.db")
$ARB replay 1 --db "$T/a.db" >"$T/out" 2>&1 && ok || bad "replay of an untouched run: $(cat "$T/out")"
grep -q "all identical" "$T/out" && ok || bad "replay output: $(cat "$T/out")"
[ "$(md5sum <"$T/a.db")" = "$before" ] && ok || bad "replay modified the database"

# 2. One stored record edited: exit 1, naming the case and the item.
# (Check records share their texts, migration 10: the edited one gets a text of its own.)
sqlite3 "$T/a.db" "INSERT INTO check_texts (run, expected_at, observed_at, body) SELECT run, expected_at, observed_at, replace(body, '\"score\":1', '\"score\":0.5') FROM check_texts WHERE id = (SELECT record FROM checks WHERE id = (SELECT min(id) FROM checks WHERE case_id = 'inv-007' AND kind = 'criterion'));
                   UPDATE checks SET record = last_insert_rowid() WHERE id = (SELECT min(id) FROM checks WHERE case_id = 'inv-007' AND kind = 'criterion')" || bad "sqlite3 edit"
$ARB replay latest --db "$T/a.db" >"$T/out" 2>&1
[ $? -eq 1 ] && ok || bad "replay after an edit did not exit 1: $(cat "$T/out")"
grep -q "case 'inv-007': check .* differs from the stored record" "$T/out" && ok || bad "the edit is not named: $(cat "$T/out")"
grep -q "1 of .* records differ" "$T/out" && ok || bad "count of differences: $(cat "$T/out")"

# 3. A verdict edited.
sqlite3 "$T/a.db" "UPDATE verdicts SET winner = 'baseline' WHERE case_id = 'inv-015'"
$ARB replay latest --db "$T/a.db" >"$T/out" 2>&1
grep -q "case 'inv-015': the verdict" "$T/out" && ok || bad "edited verdict not named: $(cat "$T/out")"

# 4. A changed suite cannot be replayed: exit 2.
mkdir -p "$T/s" && cp -r examples/invoice/* "$T/s/"
$ARB run "$T/s/suite.json" --db "$T/b.db" >/dev/null 2>&1
sed -i 's/"seed": 7/"seed": 8/' "$T/s/suite.json"
$ARB replay latest --db "$T/b.db" >"$T/out" 2>&1
[ $? -eq 2 ] && grep -q "changed since run 1" "$T/out" && ok || bad "changed suite: $(cat "$T/out")"

# 5. A judged run replays offline, with the judge gone.
start_sim
mkdir -p "$T/j"
cp -r examples/invoice/* "$T/j/"
sed -i "s|\"policy\"|\"judge\": {\"provider\": \"openai\", \"base_url\": \"http://127.0.0.1:$PORT/v1\", \"model\": \"sim\", \"api_key_env\": \"ARB_REPLAY_KEY\"},\n  \"policy\"|" "$T/j/suite.json"
ARB_REPLAY_KEY=k $ARB run "$T/j/suite.json" --db "$T/c.db" >"$T/out" 2>&1 || bad "judged run: $(cat "$T/out")"
stop_sim
env -u ARB_REPLAY_KEY $ARB replay latest --db "$T/c.db" >"$T/out" 2>&1 && ok || bad "offline replay of a judged run: $(cat "$T/out")"
sqlite3 "$T/c.db" "DELETE FROM judge_calls WHERE key = (SELECT key FROM judgments WHERE case_id = 'inv-006' LIMIT 1)"
$ARB replay latest --db "$T/c.db" >"$T/out" 2>&1
[ $? -eq 2 ] && grep -q "case 'inv-006': the judge request is not in the cache" "$T/out" && ok || bad "missing cache entry: $(cat "$T/out")"

# 7. A directory output of single files, one binary and one whose case id has a dot: staged
# as a directory again (JSONL cannot carry a binary output), replayed identically.
mkdir -p "$T/bin/out"
printf '{"id":"c1"}\n{"id":"c.2"}\n' >"$T/bin/cases.jsonl"
printf '\000\001\377' >"$T/bin/out/c1.bin"
printf 'hello' >"$T/bin/out/c.2.txt"
printf '{"id":"c1","output":"x"}\n{"id":"c.2","output":"hello"}\n' >"$T/bin/a.jsonl"
cat >"$T/bin/suite.json" <<'JSON'
{"name": "bin", "systems": {"a": "a.jsonl", "b": "out"}, "cases": "cases.jsonl",
 "expectations": [{"id": "e", "text": "says h", "check": {"op": "contains", "expected": "h"}}]}
JSON
$ARB run "$T/bin/suite.json" --db "$T/bin.db" >/dev/null 2>&1 || bad "binary run"
$ARB replay 1 --db "$T/bin.db" >"$T/out" 2>&1 && grep -q "all identical" "$T/out" && ok ||
    bad "replay of a binary single-file output: $(cat "$T/out")"

test_done
