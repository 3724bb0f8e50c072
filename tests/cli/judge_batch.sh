#!/bin/sh
# The judge's provider batches (issue 21) against the test judge's OpenAI Batch and Anthropic
# Message Batches endpoints: a batch-mode run ends with exactly the records of the synchronous
# run; killed while submitting, polling, downloading and ingesting, it resumes to the same
# records and never submits a request twice (judge_sim's log); --no-wait and `batch
# status|wait`; requests a batch fails or lets expire, retried as batch_retry says; several
# batches under batch_max_requests; bad batch config; the API key in no artifact.
# usage: tests/cli/judge_batch.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
ARB="$1"
SIM="$2"
KEY=canary-key-batch-7171
export ARB_BATCH_KEY=$KEY
unset ARBITER_TEST_KILL_AT

mkdir -p "$T/s"
awk -v n=30 -v dir="$T/s" 'BEGIN {
    for (i = 0; i < n; i++) {
        id = sprintf("q%03d", i)
        printf "{\"id\":\"%s\",\"expected\":\"%d\"}\n", id, i >(dir "/cases.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"The answer is %d.\"}\n", id, i >(dir "/a.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"It is %d.\"}\n", id, i + (i % 3 == 0) >(dir "/b.jsonl")
    }
}'
cat >"$T/s/suite.json" <<'JSON'
{"name": "batch test", "task": "Answer.", "systems": {"alpha": "a.jsonl", "beta": "b.jsonl"},
 "rubric": {"content": [{"name": "correctness", "check": {"op": "contains"}}, {"name": "clarity"}],
            "structure": []},
 "expectations": [{"id": "polite", "text": "The answer is polite"}],
 "cases": "cases.jsonl"}
JSON
# 30 cases, each asked in both orders: 60 requests.
N_REQ=60

# judge_json PROVIDER [EXTRA]: a judge config for the sim on $PORT into $T/judge.json.
judge_json() {
    case $1 in
    openai) url="http://127.0.0.1:$PORT/v1" ;;
    *) url="http://127.0.0.1:$PORT" ;;
    esac
    printf '{"provider": "%s", "base_url": "%s", "model": "sim", "api_key_env": "ARB_BATCH_KEY", "batch_poll_s": 0.02%s}\n' \
        "$1" "$url" "${2:+, $2}" >"$T/judge.json"
}

# dump DB OUT: every record a run's outcome is made of, without what differs by design
# between executions (fence codes, the cache flag, timings).
dump() {
    $ARB export latest --jsonl --db "$1" | sort >"$2"
    rm -rf "$2.cmp"
    $ARB export latest --comparisons "$2.cmp" --db "$1" 2>/dev/null
    (cd "$2.cmp" && cat ./*) >>"$2"
    sqlite3 "$1" "SELECT case_id, system_a, system_b, ord, sample, attempt, valid, answer_json,
                  coalesce(error, '') FROM judgments ORDER BY 1, 2, 3, 4, 5, 6" >>"$2"
    sqlite3 "$1" "SELECT key, status, valid, reply_json FROM judge_calls ORDER BY key" >>"$2"
    $ARB report latest --db "$1" 2>/dev/null | grep -v '^Run [0-9]' >>"$2"
}

# dump_core DB OUT: the judgments, the cache and the verdicts' outcomes, not their texts: when
# both orders of a pair fail, the pair's error names the one that failed last, which depends on
# the order replies arrive in, in a synchronous run too.
dump_core() {
    sqlite3 "$1" "SELECT case_id, system_a, system_b, ord, sample, attempt, valid, answer_json,
                  coalesce(error, '') FROM judgments ORDER BY 1, 2, 3, 4, 5, 6" >"$2"
    sqlite3 "$1" "SELECT key, status, valid, reply_json FROM judge_calls ORDER BY key" >>"$2"
    sqlite3 "$1" "SELECT case_id, system_a, system_b, status, winner, score_a, score_b
                  FROM verdicts ORDER BY 1, 2, 3" >>"$2"
}

# batch_lines: the requests the sim processed inside batches (one log line each).
batch_lines() {
    grep -c '"path":"batch:' "$T/sim.log"
}
# creates PATH: how many batches were created (a POST to PATH, with a body: not the list).
creates() {
    grep "\"path\":\"$1\"" "$T/sim.log" | grep -c -v '"body":""}$'
}
# no_repeats: no request body was processed twice in batches.
no_repeats() {
    grep '"path":"batch:' "$T/sim.log" | sed -e 's/.*"body"://' -e 's/\b[0-9a-f]\{16\}\b/FENCE/g' |
        sort | uniq -d | wc -l
}

start_sim --batch-polls 3
PORT0=$PORT # the judge's identity (and every cache key) has its port: later sims reuse it

for P in openai anthropic; do
    if [ $P = openai ]; then CREATE=/v1/batches; else CREATE=/v1/messages/batches; fi
    judge_json $P

    # ---- the synchronous reference ----
    $ARB run "$T/s/suite.json" --judge "$T/judge.json" --db "$T/$P-sync.db" >"$T/out" 2>&1 ||
        bad "$P: synchronous run: $(cat "$T/out")"
    dump "$T/$P-sync.db" "$T/$P-ref.txt"
    grep -q '"kind":"verdict"' "$T/$P-ref.txt" && ok || bad "$P: the reference has no verdicts"

    # ---- batch mode, waited for: the same records, every request once in one batch ----
    : >"$T/sim.log"
    expect_cmd "$P: run --judge-batch" 0 "30 decided" "submitted" -- \
        $ARB run "$T/s/suite.json" --judge "$T/judge.json" --judge-batch --db "$T/$P-b.db"
    dump "$T/$P-b.db" "$T/$P-b.txt"
    cmp -s "$T/$P-ref.txt" "$T/$P-b.txt" && ok ||
        { bad "$P: batch-mode records differ from the synchronous run's"; diff "$T/$P-ref.txt" "$T/$P-b.txt" | head -6; }
    [ "$(batch_lines)" -eq $N_REQ ] && ok || bad "$P: $(batch_lines) requests processed in batches, want $N_REQ"
    [ "$(creates $CREATE)" -eq 1 ] && ok || bad "$P: $(creates $CREATE) batches created, want 1"
    grep -q '"path":"/v1/chat/completions"\|"path":"/v1/messages"' "$T/sim.log" &&
        bad "$P: batch mode sent a synchronous request" || ok
    expect_cmd "$P: batch status" 0 "ingested" "" -- $ARB batch status latest --db "$T/$P-b.db"
    expect_cmd "$P: batch status --json" 0 '"requests":60' "" -- \
        $ARB batch status latest --db "$T/$P-b.db" --json
    [ "$(sqlite3 "$T/$P-b.db" "SELECT json_extract(judge_json, '\$.mode') FROM runs")" = batch ] && ok ||
        bad "$P: the stored judge config does not say batch"

    # ---- --no-wait, then batch wait ----
    : >"$T/sim.log"
    expect_cmd "$P: --no-wait exits 5" 5 "30 pending the judge" "batch status" -- \
        $ARB run "$T/s/suite.json" --judge "$T/judge.json" --judge-batch --no-wait --db "$T/$P-nw.db"
    expect_cmd "$P: batch status while running" 5 "submitted" "" -- \
        $ARB batch status latest --db "$T/$P-nw.db"
    expect_cmd "$P: run --resume --no-wait polls once" 5 "30 pending the judge" "" -- \
        $ARB run --resume latest --no-wait --db "$T/$P-nw.db"
    # Read 1 was the resume's; read 2 leaves it running (judge_sim --batch-polls 3), read 3 ends it.
    expect_cmd "$P: batch status --poll, still running" 5 "submitted" "" -- \
        $ARB batch status latest --poll --db "$T/$P-nw.db"
    # Every batch ended and its results stored, and no pass has decided the cases yet: 5.
    expect_cmd "$P: batch status --poll stores the results" 5 "30 cases pending the judge" "results stored" -- \
        $ARB batch status latest --poll --db "$T/$P-nw.db"
    expect_cmd "$P: batch wait" 0 "30 decided" "" -- $ARB batch wait latest --db "$T/$P-nw.db"
    dump "$T/$P-nw.db" "$T/$P-nw.txt"
    cmp -s "$T/$P-ref.txt" "$T/$P-nw.txt" && ok || bad "$P: --no-wait then batch wait: records differ"
    [ "$(creates $CREATE)" -eq 1 ] && [ "$(batch_lines)" -eq $N_REQ ] && ok ||
        bad "$P: --no-wait/wait created $(creates $CREATE) batches, processed $(batch_lines)"

    # ---- killed at each point, resumed: the same records, nothing submitted twice ----
    for point in submit posted poll download ingest:5 ingest:40; do
        : >"$T/sim.log"
        db="$T/$P-k-${point%%:*}${point##*:}.db"
        ARBITER_TEST_KILL_AT=$point $ARB run "$T/s/suite.json" --judge "$T/judge.json" \
            --judge-batch --db "$db" >"$T/out" 2>&1
        rc=$?
        [ $rc -eq 137 ] && ok || bad "$P: kill at $point: exit $rc, want 137 (SIGKILL): $(tail -c 300 "$T/out")"
        if [ "$point" = ingest:5 ]; then
            # Every batch has ended, and no pass has decided their cases: not done.
            expect_cmd "$P: batch status after a kill while ingesting" 5 "cases pending the judge" "" -- \
                $ARB batch status latest --db "$db"
        fi
        $ARB run --resume latest --db "$db" >"$T/out" 2>&1 ||
            bad "$P: resume after a kill at $point: $(cat "$T/out")"
        dump "$db" "$T/k.txt"
        cmp -s "$T/$P-ref.txt" "$T/k.txt" && ok ||
            { bad "$P: kill at $point: records differ after the resume"; diff "$T/$P-ref.txt" "$T/k.txt" | head -6; }
        [ "$(creates $CREATE)" -eq 1 ] && ok || bad "$P: kill at $point: $(creates $CREATE) batches created, want 1"
        [ "$(batch_lines)" -eq $N_REQ ] && [ "$(no_repeats)" -eq 0 ] && ok ||
            bad "$P: kill at $point: $(batch_lines) requests processed, $(no_repeats) twice"
        if [ "$point" = posted ]; then
            grep -q "found .* at the provider" "$T/out" && ok ||
                bad "$P: the resume after a kill at posted did not say it found the batch"
        fi
    done
done

# ---- killed at random moments (SIGKILL from outside), resumed until it completes ----
for P in openai anthropic; do
    if [ $P = openai ]; then CREATE=/v1/batches; else CREATE=/v1/messages/batches; fi
    judge_json $P
    : >"$T/sim.log"
    db="$T/$P-random.db"
    seedr=4242
    kills=0
    while [ $kills -lt 8 ]; do
        seedr=$(( (seedr * 1103515245 + 12345) % 2147483648 ))
        delay_ms=$(( 20 + seedr % 150 ))
        if [ -f "$db" ] && $ARB runs --db "$db" 2>/dev/null | grep -q .; then
            $ARB run --resume latest --db "$db" >/dev/null 2>&1 &
        else
            $ARB run "$T/s/suite.json" --judge "$T/judge.json" --judge-batch --db "$db" >/dev/null 2>&1 &
        fi
        pid=$!
        sleep "$(awk -v m=$delay_ms 'BEGIN { printf "%.3f", m / 1000 }')"
        kill -9 $pid 2>/dev/null
        wait $pid 2>/dev/null
        kills=$((kills + 1))
    done
    if [ -f "$db" ] && $ARB runs --db "$db" 2>/dev/null | grep -q .; then
        $ARB run --resume latest --db "$db" >"$T/out" 2>&1 || bad "$P: final resume: $(cat "$T/out")"
    else
        $ARB run "$T/s/suite.json" --judge "$T/judge.json" --judge-batch --db "$db" >"$T/out" 2>&1 ||
            bad "$P: final run: $(cat "$T/out")"
    fi
    dump "$db" "$T/random.txt"
    cmp -s "$T/$P-ref.txt" "$T/random.txt" && ok || bad "$P: after 8 random kills the records differ"
    [ "$(no_repeats)" -eq 0 ] && [ "$(batch_lines)" -eq $N_REQ ] && ok ||
        bad "$P: after 8 random kills: $(batch_lines) requests processed in batches, $(no_repeats) twice"
    [ "$(creates $CREATE)" -eq "$(sqlite3 "$db" "SELECT count(*) FROM judge_batches")" ] && ok ||
        bad "$P: $(creates $CREATE) batches created, $(sqlite3 "$db" "SELECT count(*) FROM judge_batches") recorded"
done

# ---- failures and expiry, retried as batch_retry says (OpenAI and Anthropic) ----
start_sim -p $PORT0 --batch-polls 2 --batch-error-rate 0.2 --batch-expire 0.15
for P in openai anthropic; do
    if [ $P = openai ]; then SYNC=/v1/chat/completions; else SYNC=/v1/messages; fi
    judge_json $P '"batch_retry": "sync"'
    : >"$T/sim.log"
    $ARB run "$T/s/suite.json" --judge "$T/judge.json" --judge-batch --db "$T/$P-rs.db" >"$T/out" 2>&1 ||
        bad "$P: batch_retry sync: $(cat "$T/out")"
    dump "$T/$P-rs.db" "$T/rs.txt"
    cmp -s "$T/$P-ref.txt" "$T/rs.txt" && ok || bad "$P: batch_retry sync: records differ"
    n_sync=$(grep -c "\"path\":\"$SYNC\"" "$T/sim.log")
    [ "$n_sync" -gt 0 ] && [ $(( n_sync + $(grep -c '"path":"batch:.*"status":200' "$T/sim.log") )) -ge $N_REQ ] &&
        ok || bad "$P: batch_retry sync sent $n_sync requests alone"

    judge_json $P '"batch_retry": "none"'
    expect_cmd "$P: batch_retry none" 4 "judge failed" "got no reply" -- \
        $ARB run "$T/s/suite.json" --judge "$T/judge.json" --judge-batch --db "$T/$P-rn.db"
    nf=$(sqlite3 "$T/$P-rn.db" "SELECT count(*) FROM judgments WHERE error LIKE '%in the batch%'")
    [ "$nf" -gt 0 ] && ok || bad "$P: batch_retry none recorded no failure from the batch"
    nb=$(sqlite3 "$T/$P-rn.db" "SELECT count(*) FROM judge_batches")
    [ "$nb" -eq 1 ] && ok || bad "$P: batch_retry none made $nb batches, want 1"
done

# A request is put in at most 3 batches: rates low enough that every one gets its answer.
start_sim -p $PORT0 --batch-polls 2 --batch-error-rate 0.1 --batch-expire 0.1
for P in openai anthropic; do
    if [ $P = openai ]; then SYNC=/v1/chat/completions; else SYNC=/v1/messages; fi
    judge_json $P '"batch_retry": "batch"'
    : >"$T/sim.log"
    $ARB run "$T/s/suite.json" --judge "$T/judge.json" --judge-batch --db "$T/$P-rb.db" >"$T/out" 2>&1 ||
        bad "$P: batch_retry batch: $(cat "$T/out")"
    dump "$T/$P-rb.db" "$T/rb.txt"
    cmp -s "$T/$P-ref.txt" "$T/rb.txt" && ok || bad "$P: batch_retry batch: records differ"
    nb=$(sqlite3 "$T/$P-rb.db" "SELECT count(*) FROM judge_batches")
    [ "$nb" -ge 2 ] && ok || bad "$P: batch_retry batch made $nb batches, want a retry batch"
    grep -q "\"path\":\"$SYNC\"" "$T/sim.log" && bad "$P: batch_retry batch sent a request alone" || ok

done

# ---- invalid replies: asked again once, in the next batch, as the synchronous run does ----
for P in openai anthropic; do
    judge_json $P
    start_sim -p $PORT0 --batch-polls 1 --rate-invalid 0.3
    $ARB run "$T/s/suite.json" --judge "$T/judge.json" --db "$T/$P-inv-sync.db" >"$T/out" 2>&1 ||
        bad "$P: synchronous run with invalid replies: $(cat "$T/out")"
    dump_core "$T/$P-inv-sync.db" "$T/inv-ref.txt"
    start_sim -p $PORT0 --batch-polls 1 --rate-invalid 0.3
    $ARB run "$T/s/suite.json" --judge "$T/judge.json" --judge-batch --db "$T/$P-inv.db" >"$T/out" 2>&1 ||
        bad "$P: batch run with invalid replies: $(cat "$T/out")"
    dump_core "$T/$P-inv.db" "$T/inv.txt"
    cmp -s "$T/inv-ref.txt" "$T/inv.txt" && ok ||
        { bad "$P: invalid replies: batch records differ from the synchronous run's"; diff "$T/inv-ref.txt" "$T/inv.txt" | head -4; }
    n1=$(sqlite3 "$T/$P-inv.db" "SELECT count(*) FROM judgments WHERE attempt = 1")
    nb=$(sqlite3 "$T/$P-inv.db" "SELECT count(*) FROM judge_batches")
    [ "$n1" -gt 0 ] && [ "$nb" -eq 2 ] && ok || bad "$P: invalid replies: $n1 re-asks in $nb batches, want some in 2"
    [ "$(sqlite3 "$T/$P-inv.db" "SELECT count(*) FROM judge_batch_requests r JOIN judge_batches b
        ON b.id = r.batch WHERE b.id = 2 AND r.attempt = 1")" -eq "$n1" ] && ok ||
        bad "$P: the second batch is not the re-asks"
done

# ---- several batches under batch_max_requests ----
start_sim -p $PORT0 --batch-polls 1
judge_json openai '"mode": "batch", "batch_max_requests": 25'
: >"$T/sim.log"
$ARB run "$T/s/suite.json" --judge "$T/judge.json" --db "$T/many.db" >"$T/out" 2>&1 ||
    bad "batch_max_requests: $(cat "$T/out")"
dump "$T/many.db" "$T/many.txt"
cmp -s "$T/openai-ref.txt" "$T/many.txt" && ok || bad "batch_max_requests 25: records differ"
[ "$(sqlite3 "$T/many.db" "SELECT group_concat(n_requests) FROM judge_batches")" = "25,25,10" ] && ok ||
    bad "batch_max_requests 25: batches of $(sqlite3 "$T/many.db" "SELECT group_concat(n_requests) FROM judge_batches")"

# ---- an outage while the batch is polled and while its results are downloaded (503s past the
# retries): waited out, not fatal ----
start_sim -p $PORT0 --batch-polls 3 --batch-outage 6
for P in openai anthropic; do
    if [ $P = openai ]; then CREATE=/v1/batches; else CREATE=/v1/messages/batches; fi
    judge_json $P '"max_retries": 1'
    : >"$T/sim.log"
    expect_cmd "$P: polls through an outage" 0 "30 decided" "trying again at the next poll" -- \
        $ARB run "$T/s/suite.json" --judge "$T/judge.json" --judge-batch --db "$T/$P-outage.db"
    dump "$T/$P-outage.db" "$T/outage.txt"
    cmp -s "$T/$P-ref.txt" "$T/outage.txt" && ok || bad "$P: an outage while polling: records differ"
    [ "$(grep -c '"fault":"batch-outage"' "$T/sim.log")" -eq 12 ] && [ "$(creates $CREATE)" -eq 1 ] && ok ||
        bad "$P: outage: $(grep -c '"fault":"batch-outage"' "$T/sim.log") 503s, $(creates $CREATE) batches created"
done

# ---- Anthropic, killed before its create was sent, while another client's batch of the same
# size runs: that batch is the lone candidate and is taken; its results name other requests,
# so it is let go and this batch looked for again and, not found, submitted ----
start_sim -p $PORT0 --batch-polls 2
judge_json anthropic
db="$T/anthropic-foreign.db"
ARBITER_TEST_KILL_AT=submit $ARB run "$T/s/suite.json" --judge "$T/judge.json" --judge-batch \
    --db "$db" >"$T/out" 2>&1
[ $? -eq 137 ] && ok || bad "foreign batch: the kill at submit did not happen"
awk -v n=$N_REQ 'BEGIN { printf "{\"requests\":["
    for (i = 0; i < n; i++)
        printf "%s{\"custom_id\":\"other-%d\",\"params\":{\"model\":\"m\",\"max_tokens\":9,\"messages\":[{\"role\":\"user\",\"content\":\"x%d\"}]}}", i ? "," : "", i, i
    printf "]}" }' >"$T/foreign.json"
curl -s -o /dev/null -H "x-api-key: other" -H 'anthropic-version: 2023-06-01' \
    --data-binary "@$T/foreign.json" "http://127.0.0.1:$PORT/v1/messages/batches"
: >"$T/sim.log"
expect_cmd "anthropic: a foreign batch taken after a kill is let go" 0 "30 decided" "not this batch" -- \
    $ARB run --resume latest --db "$db"
dump "$db" "$T/foreign.txt"
cmp -s "$T/anthropic-ref.txt" "$T/foreign.txt" && ok || bad "foreign batch: records differ"
[ "$(creates /v1/messages/batches)" -eq 1 ] && [ "$(no_repeats)" -eq 0 ] && ok ||
    bad "foreign batch: $(creates /v1/messages/batches) batches created by the resume, want 1"

# The same, with the foreign batch's end seen by `batch status --poll`, which submits nothing:
# the batch is let go and left for the next run, which looks for it again and submits it.
db="$T/anthropic-foreign2.db"
ARBITER_TEST_KILL_AT=submit $ARB run "$T/s/suite.json" --judge "$T/judge.json" --judge-batch \
    --db "$db" >"$T/out" 2>&1
curl -s -o /dev/null -H "x-api-key: other" -H 'anthropic-version: 2023-06-01' \
    --data-binary "@$T/foreign.json" "http://127.0.0.1:$PORT/v1/messages/batches"
: >"$T/sim.log"
expect_cmd "anthropic: the foreign batch taken, polled once" 5 "" "found" -- \
    $ARB run --resume latest --no-wait --db "$db"
expect_cmd "anthropic: batch status --poll, the foreign batch running" 5 "submitted" "" -- \
    $ARB batch status latest --poll --db "$db"
expect_cmd "anthropic: batch status --poll lets the foreign batch go" 5 "submitting" "not this batch" -- \
    $ARB batch status latest --poll --db "$db"
[ "$(creates /v1/messages/batches)" -eq 0 ] && ok || bad "batch status --poll submitted a batch"
expect_cmd "anthropic: batch wait after the let-go" 0 "30 decided" "" -- $ARB batch wait latest --db "$db"
dump "$db" "$T/foreign.txt"
cmp -s "$T/anthropic-ref.txt" "$T/foreign.txt" && ok || bad "foreign batch (status --poll): records differ"
[ "$(creates /v1/messages/batches)" -eq 1 ] && [ "$(no_repeats)" -eq 0 ] && ok ||
    bad "foreign batch (status --poll): $(creates /v1/messages/batches) batches created, want 1"

# ---- resumed with a judge of the other provider: its batches are left alone, not polled
# at the wrong provider (a 404 on every resume) ----
start_sim -p $PORT0 --batch-polls 3
judge_json anthropic
$ARB run "$T/s/suite.json" --judge "$T/judge.json" --judge-batch --no-wait --db "$T/switch.db" >"$T/out" 2>&1
[ $? -eq 5 ] && ok || bad "provider switch: the --no-wait run: $(cat "$T/out")"
judge_json openai '"mode": "batch"'
expect_cmd "resumed with the other provider's judge" 0 "30 decided" "left as it is" -- \
    $ARB run --resume latest --judge "$T/judge.json" --db "$T/switch.db"

# ---- an OpenAI batch that fails validation as a whole: its requests asked alone ----
start_sim -p $PORT0 --batch-polls 1 --batch-fail-validation on
judge_json openai '"batch_retry": "sync"'
$ARB run "$T/s/suite.json" --judge "$T/judge.json" --judge-batch --db "$T/failed.db" >"$T/out" 2>&1 ||
    bad "a batch failing validation: $(cat "$T/out")"
dump "$T/failed.db" "$T/failed.txt"
cmp -s "$T/openai-ref.txt" "$T/failed.txt" && ok || bad "a batch failing validation: records differ"
expect_cmd "batch status names the validation error" 0 "invalid_request" "" -- \
    $ARB batch status latest --db "$T/failed.db"
judge_json openai '"price": {"input": 1, "output": 2}'
expect_cmd "--max-cost with batches" 2 "" "--max-cost does not apply to judge batches" -- \
    $ARB run "$T/s/suite.json" --judge "$T/judge.json" --judge-batch --max-cost 1 --db "$T/bad.db"

# ---- bad config and options ----
judge_json openai '"mode": "fast"'
expect_cmd "mode fast" 2 "" "mode: expected \"sync\" or \"batch\"" -- \
    $ARB run "$T/s/suite.json" --judge "$T/judge.json" --db "$T/bad.db"
judge_json openai '"batch_retry": "later"'
expect_cmd "batch_retry later" 2 "" "batch_retry" -- \
    $ARB run "$T/s/suite.json" --judge "$T/judge.json" --db "$T/bad.db"
judge_json openai '"batch_poll_s": 0'
expect_cmd "batch_poll_s 0" 2 "" "batch_poll_s" -- \
    $ARB run "$T/s/suite.json" --judge "$T/judge.json" --db "$T/bad.db"
judge_json openai '"batch_max_requests": 50001'
expect_cmd "batch_max_requests over OpenAI's limit" 2 "" "from 1 to 50000" -- \
    $ARB run "$T/s/suite.json" --judge "$T/judge.json" --db "$T/bad.db"
printf '{"provider": "command", "command": ["%s", "--stdio"], "mode": "batch"}\n' "$SIM" >"$T/cmd.json"
expect_cmd "a command judge in batch mode" 2 "" "not a command judge" -- \
    $ARB run "$T/s/suite.json" --judge "$T/cmd.json" --db "$T/bad.db"
judge_json openai
expect_cmd "--no-wait without batch mode" 2 "" "--no-wait goes with" -- \
    $ARB run "$T/s/suite.json" --judge "$T/judge.json" --no-wait --db "$T/bad.db"
expect_cmd "--judge-batch without a judge" 2 "" "has no judge" -- \
    $ARB run "$T/s/suite.json" --no-judge --judge-batch --db "$T/bad.db"
expect_cmd "batch without a subcommand" 2 "" "expected 'status RUN'" -- $ARB batch latest
expect_cmd "batch wait --poll" 2 "" "--poll goes with" -- $ARB batch wait latest --poll
expect_cmd "batch --help" 0 "arbiter batch status RUN" "" -- $ARB batch --help
expect_cmd "run --help names --judge-batch" 0 "--judge-batch" "" -- $ARB run --help

# ---- a provider that repeats the key in its replies (results, error lines, error bodies) ----
for E in on escaped; do
    start_sim -p $PORT0 --batch-polls 1 --batch-error-rate 0.3 --echo-key $E
    for P in openai anthropic; do
        judge_json $P '"batch_retry": "none"'
        db="$T/$P-echo-$E.db"
        $ARB run "$T/s/suite.json" --judge "$T/judge.json" --judge-batch --db "$db" >"$T/echo.txt" 2>&1
        rid=$(sqlite3 "$db" "SELECT remote_id FROM judge_batches")
        if [ $P = openai ]; then
            f=$(sqlite3 "$db" "SELECT output_file_id FROM judge_batches")
            curl -s -H "Authorization: Bearer $KEY" "http://127.0.0.1:$PORT/v1/files/$f/content" >"$T/echo.res"
        else
            curl -s -H "x-api-key: $KEY" -H 'anthropic-version: 2023-06-01' \
                "http://127.0.0.1:$PORT/v1/messages/batches/$rid/results" >"$T/echo.res"
        fi
        # The provider's results do hold the key (so what follows can fail)...
        grep -qF canary "$T/echo.res" && ok || bad "$P: --echo-key $E: the results do not repeat the key"
        # ...and what was stored of them does not, in any spelling (the key is canary-...).
        n=$(sqlite3 "$db" "SELECT count(*) FROM judge_batch_requests WHERE result_json IS NOT NULL")
        sqlite3 "$db" "SELECT result_json, error FROM judge_batch_requests" >"$T/echo.stored"
        [ "$n" -gt 0 ] && ! grep -qF canary "$T/echo.stored" "$T/echo.txt" && ok ||
            bad "$P: --echo-key $E: the key reached the stored results or the output ($n results)"
    done
done
rm -f "$T/echo.res"
# A refused batch call whose error message repeats the key: the message, scrubbed.
start_sim -p $PORT0 --batch-polls 1 --status-always 400 --echo-key on
for P in openai anthropic; do
    judge_json $P
    $ARB run "$T/s/suite.json" --judge "$T/judge.json" --judge-batch --db "$T/echo-err.db" >"$T/echo-err.txt" 2>&1
    grep -q "status-always" "$T/echo-err.txt" && ! grep -qF "canary" "$T/echo-err.txt" && ok ||
        bad "$P: --echo-key with a 400: $(cat "$T/echo-err.txt")"
done

# ---- the key in no artifact ----
for f in "$T"/*.db* "$T"/*.txt "$T/out" "$T/err" "$T/sim.log"; do
    [ -f "$f" ] || continue
    if grep -q -- "$KEY" "$f"; then bad "the API key reached $(basename "$f")"; else ok; fi
done

test_done
