#!/bin/sh
# Secrets never leave (issue 15): a judge that echoes the API key in every kind of body (error
# bodies of 400, 401 and 500, the reasoning of a 200 reply), plainly and spelled with JSON
# escapes (sk\u002d..., as a server writes them or as a model writes them inside its answer),
# and in a response header, behind a base_url carrying user-info credentials; the same through
# the Anthropic protocol; and a command judge (which inherits the environment) that prints
# the key in its answer and on stderr.  After runs, reports in every format, exports, show,
# runs and a .dump of every database, neither the key (in any spelling) nor the credentials
# (nor their Basic-auth base64) appear anywhere.
# usage: tests/cli/canary.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
ARB="$1"
SIM="$2"

KEY=sk-canary-7f3a9c1e5b2d4a60
USERPASS=canuser:CanaryPass-91f0e2
PASS=CanaryPass-91f0e2
B64=$(printf '%s' "$USERPASS" | base64 | tr -d '\n')
# A password holding a raw '@' and percent-escapes: the user-info ends at the LAST '@' (it was
# cut at the first, and 'ss-Canary...' stored), and libcurl would send it decoded.
ATUSERPASS='can%75ser:p@ss-Canary%2FSecret77'
ATTAIL=Secret77
ATB64=$(printf '%s' 'canuser:p@ss-Canary/Secret77' | base64 | tr -d '\n')
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
suite() { # NAME [JUDGE_OBJECT]
    judge=${2:-'{"provider": "openai", "base_url": "http://'$USERPASS'@127.0.0.1:'$PORT'/v1",
           "model": "sim", "api_key_env": "ARB_CANARY_KEY", "max_retries": 1, "timeout_s": 5}'}
    cat >"$T/s/$1.json" <<JSON
{"name": "canary $1", "task": "Answer.", "systems": {"alpha": "a.jsonl", "beta": "b.jsonl"},
 "rubric": {"content": [{"name": "correctness", "check": {"op": "icontains"}}], "structure": []},
 "judge": $judge,
 "cases": "cases.jsonl"}
JSON
}
# A command judge that answers as judge_sim --stdio would, with the key (from its environment)
# at the start of its reasoning, and for one case fails saying the key on stderr.
cat >"$T/cmd.sh" <<SH
#!/bin/sh
req=\$(cat)
if printf '%s' "\$req" | grep -q 'answer 3'; then
    echo "upstream said: invalid api key \$ARB_CANARY_KEY" >&2
    exit 1
fi
printf '%s' "\$req" | "$SIM" --stdio | sed "s/\"reasoning\":\"/\"reasoning\":\"\$ARB_CANARY_KEY /"
SH

# The server works, but repeats the key in every reply's reasoning and in a header.
start_sim --echo-key on
suite ok
$ARB run "$T/s/ok.json" --db "$T/x.db" >"$T/run-ok.out" 2>"$T/run-ok.err"
[ $? = 0 ] && ok || bad "run against the echoing judge: $(cat "$T/run-ok.err")"
[ "$(sqlite3 "$T/x.db" "select count(*) from judgments where valid = 1")" -ge 6 ] && ok \
    || bad "the echoing judge's replies were not used"
sqlite3 "$T/x.db" "select answer_json from judgments" | grep -q 'REDACTED' && ok \
    || bad "the echoed key was not replaced by [REDACTED] in the answers"
# The same key spelled with JSON escapes, by the server and inside the model's answer (run 2),
# and through the Anthropic protocol (run 3); a command judge (run 4).
start_sim --echo-key escaped
suite escaped
$ARB run "$T/s/escaped.json" --db "$T/x.db" --no-cache >"$T/run-esc.out" 2>"$T/run-esc.err"
[ $? = 0 ] && ok || bad "run against the escaping judge: $(cat "$T/run-esc.err")"
suite anthropic '{"provider": "anthropic", "base_url": "http://'$USERPASS'@127.0.0.1:'$PORT'",
                  "model": "sim", "api_key_env": "ARB_CANARY_KEY", "max_retries": 1}'
$ARB run "$T/s/anthropic.json" --db "$T/x.db" --no-cache >"$T/run-anth.out" 2>"$T/run-anth.err"
[ $? = 0 ] && ok || bad "run against the escaping Anthropic judge: $(cat "$T/run-anth.err")"
suite command '{"provider": "command", "command": ["sh", "'$T'/cmd.sh"], "api_key_env": "ARB_CANARY_KEY"}'
$ARB run "$T/s/command.json" --db "$T/x.db" >"$T/run-cmd.out" 2>"$T/run-cmd.err"
[ $? -le 4 ] && ok || bad "run against the echoing command judge: $(cat "$T/run-cmd.err")"
[ "$(sqlite3 "$T/x.db" "select count(*) from judgments where run = 4 and valid = 1")" -ge 4 ] && ok \
    || bad "the command judge's replies were not used"
sqlite3 "$T/x.db" "select error from judge_calls where error like '%upstream said%'" | grep -q 'REDACTED' \
    && ok || bad "the command judge's stderr was not kept, scrubbed"
# The password with a raw '@', into a database of its own.
suite at '{"provider": "openai", "base_url": "http://'$ATUSERPASS'@127.0.0.1:'$PORT'/v1",
          "model": "sim", "api_key_env": "ARB_CANARY_KEY", "max_retries": 1, "timeout_s": 5}'
$ARB run "$T/s/at.json" --db "$T/a.db" >"$T/run-at.out" 2>"$T/run-at.err"
[ $? -le 4 ] && ok || bad "run with an '@' in the URL's password: $(cat "$T/run-at.err")"
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

# Everything a user can print, export or dump: every run of every database, every format.
[ "$(sqlite3 "$T/x.db" "select count(*) from runs")" = 4 ] && ok || bad "x.db does not hold 4 runs"
for db in x e400 e500 e401 a; do
    runs=$(sqlite3 "$T/$db.db" "select id from runs order by id")
    for r in $runs; do
        a="$T/art-$db-$r"
        mkdir -p "$a"
        for f in md json html csv; do
            $ARB report $r --db "$T/$db.db" --format $f >"$a/report.$f" 2>>"$T/all.err"
        done
        $ARB export $r --jsonl --db "$T/$db.db" >"$a/export.jsonl" 2>>"$T/all.err"
        $ARB export $r --csv --db "$T/$db.db" >"$a/export.csv" 2>>"$T/all.err"
        $ARB export $r --comparisons "$a/cmp" --db "$T/$db.db" >/dev/null 2>>"$T/all.err"
        for c in c1 c3; do
            $ARB show $r $c --db "$T/$db.db" >"$a/show-$c.txt" 2>>"$T/all.err"
            $ARB show $r $c --db "$T/$db.db" --records >"$a/show-$c.rec" 2>>"$T/all.err"
            $ARB show $r $c --db "$T/$db.db" --json >"$a/show-$c.json" 2>>"$T/all.err"
        done
    done
    $ARB runs --db "$T/$db.db" >"$T/runs-$db.txt" 2>>"$T/all.err"
    sqlite3 "$T/$db.db" .dump >"$T/dump-$db.sql"
done
grep -q 'REDACTED' "$T/art-x-1/report.html" && ok || bad "the HTML report does not show the redacted reasoning"
grep -q 'REDACTED' "$T/art-x-2/report.html" && ok || bad "the escaped key did not come out redacted"
# The key's tail catches every spelling of it (plain, or with escaped punctuation before it).
TAIL=7f3a9c1e5b2d4a60
n=0
for f in "$T"/*.out "$T"/*.err "$T"/runs-* "$T"/dump-* "$T"/*.db "$T"/*.db-wal "$T"/art-*/* \
    "$T"/art-*/cmp/*; do
    [ -f "$f" ] || continue
    [ -s "$f" ] && n=$((n + 1))
    for secret in "$TAIL" "$PASS" "$USERPASS" "$B64" "$ATTAIL" "$ATB64"; do
        if grep -qF -- "$secret" "$f"; then bad "'$secret' reached ${f#"$T"/}"; else ok; fi
    done
done
[ "$n" -ge 100 ] && ok || bad "only $n non-empty artifacts were checked"
# The stored config says that the URL had credentials, without them, and a resume asks for them.
sqlite3 "$T/x.db" "select judge_json from runs where id = 1" | grep -q '"base_url":"http://127.0.0.1:[0-9]*/v1"' \
    && ok || bad "base_url stored with user-info: $(sqlite3 "$T/x.db" "select judge_json from runs where id = 1")"
sqlite3 "$T/x.db" "select judge_json from runs where id = 1" | grep -q '"base_url_credentials":true' \
    && ok || bad "the stored config does not say its URL had credentials"
for col in judge_json suite_json; do
    sqlite3 "$T/a.db" "select $col from runs" | grep -q '"base_url":"http://127.0.0.1:[0-9]*/v1"' \
        && ok || bad "a.db: base_url stored with part of its password in $col"
done
sqlite3 "$T/x.db" "update runs set status = 'running' where id = 1"
$ARB run --resume 1 --db "$T/x.db" >/dev/null 2>"$T/resume.err"
[ $? = 2 ] && grep -q "base_url carried credentials, which are never stored" "$T/resume.err" && ok \
    || bad "resume of a run whose URL had credentials: $(cat "$T/resume.err")"

test_done
