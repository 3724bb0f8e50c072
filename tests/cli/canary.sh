#!/bin/sh
# Secrets never leave (issue 15): a judge that echoes the API key in every kind of body (error
# bodies of 400, 401 and 500, the reasoning of a 200 reply) and in a response header, behind a
# base_url carrying user-info credentials.  After runs, reports in every format, exports,
# show, runs and a .dump of the database, neither the key nor the credentials (nor their
# Basic-auth base64) appear anywhere.
# usage: tests/cli/canary.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
ARB="$1"
SIM="$2"

KEY=sk-canary-7f3a9c1e5b2d4a60
USERPASS=canuser:CanaryPass-91f0e2
PASS=CanaryPass-91f0e2
B64=$(printf '%s' "$USERPASS" | base64 | tr -d '\n')
export ARB_CANARY_KEY=$KEY

mkdir -p "$T/s"
awk -v n=6 -v dir="$T/s" 'BEGIN {
    for (i = 0; i < n; i++) {
        id = sprintf("c%d", i)
        printf "{\"id\":\"%s\",\"expected\":\"answer %d\",\"expectations\":[{\"id\":\"polite\",\"text\":\"The answer is polite\"}]}\n", id, i >(dir "/cases.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"answer %d\"}\n", id, i >(dir "/a.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"Answer %d!\"}\n", id, i >(dir "/b.jsonl")
    }
}'
suite() { # NAME
    cat >"$T/s/$1.json" <<JSON
{"name": "canary $1", "task": "Answer.", "systems": {"alpha": "a.jsonl", "beta": "b.jsonl"},
 "rubric": {"content": [{"name": "correctness", "check": {"op": "icontains"}}], "structure": []},
 "judge": {"provider": "openai", "base_url": "http://$USERPASS@127.0.0.1:$PORT/v1",
           "model": "sim", "api_key_env": "ARB_CANARY_KEY", "max_retries": 1, "timeout_s": 5},
 "cases": "cases.jsonl"}
JSON
}

# The server works, but repeats the key in every reply's reasoning and in a header.
start_sim --echo-key on
suite ok
$ARB run "$T/s/ok.json" --db "$T/x.db" >"$T/run-ok.out" 2>"$T/run-ok.err"
[ $? = 0 ] && ok || bad "run against the echoing judge: $(cat "$T/run-ok.err")"
[ "$(sqlite3 "$T/x.db" "select count(*) from judgments where valid = 1")" -ge 6 ] && ok \
    || bad "the echoing judge's replies were not used"
sqlite3 "$T/x.db" "select answer_json from judgments" | grep -q 'REDACTED' && ok \
    || bad "the echoed key was not replaced by [REDACTED] in the answers"
# Error bodies that quote the key: 400 (a refused request), 500 (retried, then failed), 401;
# each into a database of its own, whose cache holds no reply for the requests yet.
for code in 400 500 401; do
    start_sim --echo-key on --status-always $code
    suite "s$code"
    $ARB run "$T/s/s$code.json" --db "$T/e$code.db" >"$T/run-$code.out" 2>"$T/run-$code.err"
    rc=$?
    [ $rc -le 4 ] && ok || bad "run against HTTP $code crashed (exit $rc)"
    [ "$(sqlite3 "$T/e$code.db" "select count(*) from judge_calls where reply_json like '%REDACTED%'")" -gt 0 ] \
        && ok || bad "HTTP $code: the error bodies were not stored, scrubbed"
done
stop_sim

# Everything a user can print, export or dump.
for r in 1 2 3 4; do
    for f in md json html csv; do
        $ARB report $r --db "$T/x.db" --format $f >"$T/report-$r.$f" 2>>"$T/all.err"
    done
    $ARB export $r --jsonl --db "$T/x.db" >"$T/export-$r.jsonl" 2>>"$T/all.err"
    $ARB export $r --csv --db "$T/x.db" >"$T/export-$r.csv" 2>>"$T/all.err"
    $ARB export $r --comparisons "$T/cmp-$r" --db "$T/x.db" >/dev/null 2>>"$T/all.err"
    for c in c1 c2; do
        $ARB show $r $c --db "$T/x.db" >"$T/show-$r-$c.txt" 2>>"$T/all.err"
        $ARB show $r $c --db "$T/x.db" --records >"$T/show-$r-$c.rec" 2>>"$T/all.err"
        $ARB show $r $c --db "$T/x.db" --json >"$T/show-$r-$c.json" 2>>"$T/all.err"
    done
done
$ARB runs --db "$T/x.db" >"$T/runs.txt" 2>>"$T/all.err"
for db in x e400 e500 e401; do
    sqlite3 "$T/$db.db" .dump >"$T/dump-$db.sql"
    $ARB report 1 --db "$T/$db.db" --format json >"$T/report-$db.json" 2>>"$T/all.err"
    $ARB show 1 c1 --db "$T/$db.db" --json >"$T/show-$db.json" 2>>"$T/all.err"
done
grep -q 'REDACTED' "$T/report-1.html" && ok || bad "the HTML report does not show the redacted reasoning"
n=0
for f in "$T"/*.out "$T"/*.err "$T"/report-* "$T"/export-* "$T"/show-* "$T/runs.txt" "$T"/dump-* \
    "$T"/*.db "$T"/*.db-wal "$T"/cmp-*/*; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    for secret in "$KEY" "$PASS" "$USERPASS" "$B64"; do
        if grep -qF -- "$secret" "$f"; then bad "'$secret' reached $(basename "$f")"; else ok; fi
    done
done
[ "$n" -ge 40 ] && ok || bad "only $n artifacts were checked"
# The stored config says that the URL had credentials, without them, and a resume asks for them.
sqlite3 "$T/x.db" "select judge_json from runs where id = 1" | grep -q '"base_url":"http://127.0.0.1:[0-9]*/v1"' \
    && ok || bad "base_url stored with user-info: $(sqlite3 "$T/x.db" "select judge_json from runs where id = 1")"
sqlite3 "$T/x.db" "select judge_json from runs where id = 1" | grep -q '"base_url_credentials":true' \
    && ok || bad "the stored config does not say its URL had credentials"
sqlite3 "$T/x.db" "update runs set status = 'running' where id = 1"
$ARB run --resume 1 --db "$T/x.db" >/dev/null 2>"$T/resume.err"
[ $? = 2 ] && grep -q "base_url carried credentials, which are never stored" "$T/resume.err" && ok \
    || bad "resume of a run whose URL had credentials: $(cat "$T/resume.err")"

test_done
