#!/bin/sh
# Replay and --resume answer each question slot from the reply its run recorded there: a run
# recorded by an older Arbiter (whose keys this one never computes) replays and resumes
# without a request; a reply that a later run replaced under the same key is still the one
# used; a recorded failure replays as a failure.  A judgment answered from the cache has no
# fence code (none was sent).
# usage: tests/cli/recorded.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
ARB="$1"
SIM="$2"

q() { sqlite3 "$1" "$2"; }

# Six cases, each with a free-text expectation: every pair goes to the judge.  A case whose
# id ends in 9 says "FAILME" in both outputs (the failing judge below refuses it).
mkdir -p "$T/s"
for i in 1 2 3 4 5 9; do
    printf '{"id":"c%s","expected":"answer %s","expectations":[{"id":"polite","text":"The answer is polite"}]}\n' "$i" "$i" >>"$T/s/cases.jsonl"
    printf '{"id":"c%s","output":"answer %s, alpha%s"}\n' "$i" "$i" "$([ $i = 9 ] && echo ' FAILME')" >>"$T/s/alpha.jsonl"
    printf '{"id":"c%s","output":"Answer %s from beta%s"}\n' "$i" "$i" "$([ $i = 9 ] && echo ' FAILME')" >>"$T/s/beta.jsonl"
done
cat >"$T/s/suite.json" <<'JSON'
{"name": "recorded", "seed": 3, "task": "Answer the question.",
 "systems": {"alpha": "alpha.jsonl", "beta": "beta.jsonl"},
 "rubric": {"content": [{"name": "correctness"}], "structure": [{"name": "formatting"}]},
 "cases": "cases.jsonl"}
JSON

# Command judges (judge_sim --stdio), each logging one line per request to $T/NAME.log.
#   valid   every reply follows the schema
#   flaky   the first reply to each request (fence codes masked) is off-schema; a retry
#           carrying the validation error, and the same request asked again, get valid ones
#   failing exits 1 on a request about FAILME (no reply) while $T/fail-on exists, else valid
mkdir -p "$T/seen"
for name in valid flaky failing; do
    cat >"$T/$name.sh" <<EOF
#!/bin/sh
in=\$(cat)
echo x >>"$T/$name.log"
mode=$name
if [ \$mode = failing ] && [ -e "$T/fail-on" ] && printf '%s' "\$in" | grep -q FAILME; then
    echo 'refused' >&2
    exit 1
fi
if [ \$mode = flaky ] && ! printf '%s' "\$in" | grep -q 'did not follow the schema'; then
    k=\$(printf '%s' "\$in" | sed -E 's/[0-9a-f]{16}/#/g' | sha256sum | cut -c1-64)
    if [ ! -e "$T/seen/\$k" ]; then
        : >"$T/seen/\$k"
        printf '%s' "\$in" | exec "$SIM" --stdio --invalid
    fi
fi
printf '%s' "\$in" | exec "$SIM" --stdio
EOF
    printf '{"provider": "command", "command": ["sh", "%s/%s.sh"], "model": "m"}' "$T" "$name" >"$T/$name.json"
    : >"$T/$name.log"
done
sent() { wc -l <"$T/$1.log" | tr -d ' '; }

# The verdicts of a run, to compare before and after.
verdicts() { q "$1" "SELECT case_id, status, winner, comparison_json FROM v_verdicts WHERE run = $2 ORDER BY case_id"; }

# Mark every judged pair of run 1 pending again, as if it had been killed before its verdicts:
# --resume asks the judge about them again.
pend() {
    q "$1" "UPDATE verdicts SET status = 'pending_judge' WHERE run = 1; UPDATE runs SET status = 'running' WHERE id = 1"
}

# 1. A run recorded by an older Arbiter: its judge_calls and judgments keyed by another
#    formula (no key this Arbiter computes finds them), no validity, no fence, no reply hash.
$ARB run "$T/s/suite.json" --judge "$T/valid.json" --db "$T/old.db" >/dev/null 2>"$T/err" || bad "run: $(cat "$T/err")"
verdicts "$T/old.db" 1 >"$T/old.v"
q "$T/old.db" "UPDATE judge_calls SET key = 'old-' || substr(key, 5), valid = NULL, cached_tokens = NULL;
    UPDATE judgments SET key = 'old-' || substr(key, 5), fence = NULL, reply_sha256 = NULL"
expect_cmd "old keys: replay" 0 "all identical" "" -- $ARB replay 1 --db "$T/old.db"
pend "$T/old.db"
n=$(sent valid)
expect_cmd "old keys: resume" 0 "" "" -- $ARB run --resume 1 --db "$T/old.db"
[ "$(sent valid)" = "$n" ] && ok || bad "old keys: the resume sent $(( $(sent valid) - n )) requests, want 0"
verdicts "$T/old.db" 1 | cmp -s - "$T/old.v" && ok || bad "old keys: the resume changed verdicts"
[ "$(q "$T/old.db" "SELECT count(*) FROM judgments WHERE run = 1 AND key NOT LIKE 'old-%'")" = 0 ] &&
    ok || bad "old keys: a resumed judgment no longer names the call it used"
expect_cmd "old keys: replay after resume" 0 "all identical" "" -- $ARB replay 1 --db "$T/old.db"
# A slot the run never judged is still asked (by its key): exactly one request.
pend "$T/old.db"
q "$T/old.db" "DELETE FROM judgments WHERE id = (SELECT min(id) FROM judgments WHERE run = 1)"
n=$(sent valid)
expect_cmd "old keys: resume with a slot unjudged" 0 "" "" -- $ARB run --resume 1 --db "$T/old.db"
[ "$(sent valid)" = "$((n + 1))" ] && ok || bad "unjudged slot: $(( $(sent valid) - n )) requests, want 1"

# 2. A reply replaced under its key: run 1 took an off-schema first reply and its valid
#    retry; run 2 asked the same requests afresh (an invalid reply never answers a new run)
#    and got valid replies, which replaced run 1's under the same keys.
$ARB run "$T/s/suite.json" --judge "$T/flaky.json" --db "$T/f.db" >/dev/null 2>"$T/err" || bad "flaky run 1: $(cat "$T/err")"
[ "$(q "$T/f.db" "SELECT count(*) FROM judgments WHERE run = 1 AND attempt = 1 AND valid = 1")" -gt 0 ] &&
    ok || bad "flaky: run 1 took no retry: the test would test nothing"
verdicts "$T/f.db" 1 >"$T/f1.v"
q "$T/f.db" "SELECT id, fence FROM judgments WHERE run = 1 ORDER BY id" >"$T/f1.fences"
$ARB run "$T/s/suite.json" --judge "$T/flaky.json" --db "$T/f.db" >/dev/null 2>"$T/err" || bad "flaky run 2: $(cat "$T/err")"
[ "$(q "$T/f.db" "SELECT count(*) FROM judge_calls_rejected")" -gt 0 ] && ok ||
    bad "flaky: run 2 replaced no reply: the test would test nothing"
expect_cmd "replaced reply: replay run 1" 0 "all identical" "" -- $ARB replay 1 --db "$T/f.db"
expect_cmd "replaced reply: replay run 2" 0 "all identical" "" -- $ARB replay 2 --db "$T/f.db"
pend "$T/f.db"
n=$(sent flaky)
expect_cmd "replaced reply: resume run 1" 0 "" "" -- $ARB run --resume 1 --db "$T/f.db"
[ "$(sent flaky)" = "$n" ] && ok || bad "replaced reply: the resume sent $(( $(sent flaky) - n )) requests, want 0"
verdicts "$T/f.db" 1 | cmp -s - "$T/f1.v" && ok || bad "replaced reply: the resume changed run 1's verdicts"

# 3. judgments.fence: the code sent; NULL for an answer from the cache.  A resumed slot
#    answered from its recorded reply keeps the code its run sent.
q "$T/f.db" "SELECT id, fence FROM judgments WHERE run = 1 ORDER BY id" | cmp -s - "$T/f1.fences" && ok ||
    bad "fence: the resume changed run 1's fence codes"
[ "$(q "$T/f.db" "SELECT count(*) FROM judgments WHERE run = 1 AND (fence IS NULL) <> (cached = 1)")" = 0 ] &&
    ok || bad "fence: run 1 has a sent judgment without a code or a cached one with a code"
$ARB run "$T/s/suite.json" --judge "$T/flaky.json" --db "$T/f.db" >/dev/null 2>"$T/err" || bad "flaky run 3: $(cat "$T/err")"
[ "$(q "$T/f.db" "SELECT count(*) FROM judgments WHERE run = 3 AND cached = 0")" = 0 ] && ok ||
    bad "fence: run 3 sent requests: the test would test nothing"
[ "$(q "$T/f.db" "SELECT count(*) FROM judgments WHERE run = 3 AND fence IS NOT NULL")" = 0 ] && ok ||
    bad "fence: a judgment answered from the cache records a code that was never sent"

# 4. A recorded failure (the judge gave no reply) replays as that failure, even after a later
#    run got a reply for the same request.
: >"$T/fail-on"
$ARB run "$T/s/suite.json" --judge "$T/failing.json" --db "$T/x.db" >/dev/null 2>&1
[ "$(q "$T/x.db" "SELECT status FROM verdicts WHERE run = 1 AND case_id = 'c9'")" = judge_failed ] && ok ||
    bad "failing: c9 is not judge_failed: the test would test nothing"
expect_cmd "failure: replay" 0 "all identical" "" -- $ARB replay 1 --db "$T/x.db"
rm "$T/fail-on"
$ARB run "$T/s/suite.json" --judge "$T/failing.json" --db "$T/x.db" >/dev/null 2>"$T/err" || bad "failing run 2: $(cat "$T/err")"
[ "$(q "$T/x.db" "SELECT status FROM verdicts WHERE run = 2 AND case_id = 'c9'")" != judge_failed ] && ok ||
    bad "failing: run 2 got no reply for c9: the test would test nothing"
expect_cmd "failure: replay after a later reply" 0 "all identical" "" -- $ARB replay 1 --db "$T/x.db"

test_done
