#!/bin/sh
# Smoke test of the test judge's batch routes: OpenAI's Files and Batch API and Anthropic's
# Message Batches, driven with curl. Checks the state transitions as the batch is polled, that
# a request answered in a batch gets the very bytes the synchronous route gives the same body,
# the shuffled result order, errors and retries, expiry, cancelling, listing, auth, validation
# of bad input, and the log. Builds nothing.
# usage: tests/judge_sim/batch_smoke.sh path/to/judge_sim
. "$(dirname "$0")/../cli/lib.sh"
TEST_NAME="judge_sim batch smoke"
SIM="${1:-}"
[ -x "$SIM" ] || { echo "judge_sim batch smoke: no binary at '$SIM'"; exit 2; }
command -v curl >/dev/null || { echo "judge_sim batch smoke: curl is required"; exit 2; }

# check NAME COMMAND...: passes when COMMAND succeeds (its output discarded).
check() {
    name=$1
    shift
    if "$@" >/dev/null 2>&1; then ok; else bad "$name"; fi
}

# oa NAME METHOD PATH [CURL ARGS...]: an OpenAI call with key $KEY (default test-key); the
# body goes to $T/NAME.body, headers to $T/NAME.hdr; prints the status.
oa() {
    n=$1 m=$2 p=$3
    shift 3
    curl -s -m 20 -X "$m" -o "$T/$n.body" -D "$T/$n.hdr" -w '%{http_code}' \
        -H "Authorization: Bearer ${KEY:-test-key}" "$@" "http://127.0.0.1:$PORT$p"
}

# an NAME METHOD PATH [CURL ARGS...]: an Anthropic call with key and version.
an() {
    n=$1 m=$2 p=$3
    shift 3
    curl -s -m 20 -X "$m" -o "$T/$n.body" -D "$T/$n.hdr" -w '%{http_code}' \
        -H "x-api-key: ${KEY:-test-key}" -H 'anthropic-version: 2023-06-01' "$@" \
        "http://127.0.0.1:$PORT$p"
}

# str NAME KEY: the string value of KEY in $T/NAME.body (the last one, for a flat object).
str() {
    sed -n "s/.*\"$2\":\"\\([^\"]*\\)\".*/\\1/p" "$T/$1.body" | head -1
}

# first_id NAME: the id an object's body opens with.
first_id() {
    sed -n 's/^{"id":"\([^"]*\)".*/\1/p' "$T/$1.body"
}

# A judge schema and request bodies, compact as cJSON prints them (Arbiter sends such text).
SCHEMA='{"type":"object","required":["reasoning","winner"],"properties":{"reasoning":'
SCHEMA="$SCHEMA"'{"type":"string","minLength":10},"winner":{"type":"string","enum":["A","B","TIE"]}}}'
oa_body() { # oa_body TAG
    printf '{"model":"gpt-sim","messages":[{"role":"user","content":"compare %s"}],' "$1"
    printf '"response_format":{"type":"json_schema","json_schema":{"name":"verdict",'
    printf '"strict":true,"schema":%s}},"temperature":0,"max_tokens":500}' "$SCHEMA"
}
an_body() { # an_body TAG
    printf '{"model":"claude-sim","max_tokens":500,"messages":[{"role":"user",'
    printf '"content":"compare %s"}],"tools":[{"name":"verdict","input_schema":%s}],' "$1" "$SCHEMA"
    printf '"tool_choice":{"type":"tool","name":"verdict"}}'
}

# oa_file FILE TAG...: a batch input file with one request per TAG (custom_id r-TAG).
oa_file() {
    f=$1
    shift
    : >"$f"
    for tag in "$@"; do
        printf '{"custom_id":"r-%s","method":"POST","url":"/v1/chat/completions","body":%s}\n' \
            "$tag" "$(oa_body "$tag")" >>"$f"
    done
}

# an_create NAME TAG...: creates a message batch with one request per TAG (custom_id r-TAG).
an_create() {
    n=$1
    shift
    sep=
    printf '{"requests":[' >"$T/$n.req"
    for tag in "$@"; do
        printf '%s{"custom_id":"r-%s","params":%s}' "$sep" "$tag" "$(an_body "$tag")" >>"$T/$n.req"
        sep=,
    done
    printf ']}' >>"$T/$n.req"
    an "$n" POST /v1/messages/batches --data-binary "@$T/$n.req"
}

# upload NAME FILE [PURPOSE]: uploads FILE for the batch purpose; prints the status.
upload() {
    oa "$1" POST /v1/files -F "purpose=${3:-batch}" -F "file=@$2"
}

# create NAME FILE_ID: creates an OpenAI batch of the uploaded file.
create() {
    oa "$1" POST /v1/batches -H 'Content-Type: application/json' --data-binary \
        "{\"input_file_id\":\"$2\",\"endpoint\":\"/v1/chat/completions\",\"completion_window\":\"24h\",\"metadata\":{\"run\":\"smoke\"}}"
}

# oa_status NAME BATCH: polls an OpenAI batch once; prints its status.
oa_status() {
    oa "$1" GET "/v1/batches/$2" >/dev/null
    str "$1" status
}

# an_status NAME BATCH: polls a message batch once; prints its processing_status.
an_status() {
    an "$1" GET "/v1/messages/batches/$2" >/dev/null
    str "$1" processing_status
}

# same_as_sync OUT ROUTE EXTRACT: every line of the JSONL file OUT holds, where EXTRACT (a sed
# script printing the reply of a line) finds it, the bytes the synchronous ROUTE sends for
# that line's request; the request body is rebuilt from the custom_id's tag. Prints the
# number of lines that differ.
same_as_sync() {
    diff=0
    while IFS= read -r line; do
        tag=$(printf '%s' "$line" | sed -n 's/.*"custom_id":"r-\([^"]*\)".*/\1/p')
        got=$(printf '%s' "$line" | sed -n "$3")
        if [ "$2" = oa ]; then
            oa sync POST /v1/chat/completions --data-binary "$(oa_body "$tag")" >/dev/null
        else
            an sync POST /v1/messages --data-binary "$(an_body "$tag")" >/dev/null
        fi
        [ -n "$got" ] && [ "$got" = "$(cat "$T/sync.body")" ] || diff=$((diff + 1))
    done <"$1"
    echo "$diff"
}
OA_REPLY='s/.*,"body":\(.*\)},"error":null}$/\1/p'
AN_REPLY='s/.*"result":{"type":"succeeded","message":\(.*\)}}$/\1/p'

# === OpenAI: upload, create, poll, results ===
start_sim -n oa --batch-polls 3
oa_file "$T/in.jsonl" 1 2 3 4 5 6 7 8
check "upload is 200" test "$(upload up "$T/in.jsonl")" = 200
FILE=$(first_id up)
check "the file object: id file-..., purpose batch, its bytes and name" \
    sh -c "echo '$FILE' | grep -q '^file-' &&
        grep -q '\"object\":\"file\",\"bytes\":$(wc -c <"$T/in.jsonl"),' '$T/up.body' &&
        grep -q '\"filename\":\"in.jsonl\",\"purpose\":\"batch\"' '$T/up.body'"
check "GET /v1/files/ID is the file object" \
    sh -c "[ $(oa fget GET "/v1/files/$FILE") = 200 ] && grep -q '\"id\":\"$FILE\"' '$T/fget.body'"
check "GET /v1/files/ID/content is the file's bytes" \
    sh -c "[ $(oa fcon GET "/v1/files/$FILE/content") = 200 ] && cmp -s '$T/fcon.body' '$T/in.jsonl'"
check "create is 200" test "$(create cb "$FILE")" = 200
BATCH=$(first_id cb)
check "a new batch is validating, id batch_..., with every published field" \
    sh -c "echo '$BATCH' | grep -q '^batch_' && grep -q '\"status\":\"validating\"' '$T/cb.body' &&
        for k in id object endpoint errors input_file_id completion_window status output_file_id \
            error_file_id created_at in_progress_at expires_at finalizing_at completed_at failed_at \
            expired_at cancelling_at cancelled_at request_counts metadata; do
            grep -q \"\\\"\$k\\\":\" '$T/cb.body' || exit 1; done &&
        grep -q '\"metadata\":{\"run\":\"smoke\"}' '$T/cb.body'"
s1=$(oa_status p1 "$BATCH")
s2=$(oa_status p2 "$BATCH")
s3=$(oa_status p3 "$BATCH")
check "--batch-polls 3: in_progress, finalizing, completed ($s1 $s2 $s3)" \
    test "$s1 $s2 $s3" = "in_progress finalizing completed"
check "in progress, request_counts.total is 8" grep -q '"request_counts":{"total":8,"completed":0' \
    "$T/p1.body"
check "completed: 8 completed, 0 failed, an output file and no error file" \
    sh -c "grep -q '\"request_counts\":{\"total\":8,\"completed\":8,\"failed\":0}' '$T/p3.body' &&
        grep -q '\"error_file_id\":null' '$T/p3.body' && grep -q '\"completed_at\":[0-9]' '$T/p3.body'"
check "an ended batch stays as it is" test "$(oa_status p4 "$BATCH")" = completed
OUT=$(str p3 output_file_id)
oa out GET "/v1/files/$OUT/content" >/dev/null
cp "$T/out.body" "$T/out.jsonl"
check "the output file has 8 lines of the published shape" \
    sh -c "[ \$(grep -c '^{\"id\":\"batch_req_[0-9a-z]*\",\"custom_id\":\"r-[1-8]\",\"response\":{\"status_code\":200,\"request_id\":\"[0-9a-f]*\",\"body\":{\"id\":\"chatcmpl-' '$T/out.jsonl') = 8 ]"
check "the output lines are not in input order" \
    sh -c "[ \"\$(sed 's/.*custom_id\":\"r-\([0-9]\).*/\1/' '$T/out.jsonl' | tr -d '\n')\" != 12345678 ]"
check "every reply in the batch is the synchronous reply to the same body" \
    test "$(same_as_sync "$T/out.jsonl" oa "$OA_REPLY")" = 0
check "the output file is listed with purpose batch_output" \
    sh -c "[ $(oa ofile GET "/v1/files/$OUT") = 200 ] && grep -q '\"purpose\":\"batch_output\"' '$T/ofile.body'"
check "the log has the upload's file text" \
    grep -q '"path":"/v1/files","attempt":1,"status":200,"auth":true,"fault":null,"body":"{\\"custom_id\\":\\"r-1\\"' \
    "$T/oa.log"
check "the log has one line per request processed in the batch" \
    test "$(grep -c '"path":"batch:/v1/chat/completions"' "$T/oa.log")" = 8
check "the log has one line per batch created" test "$(grep -c '"path":"/v1/batches","attempt":1,"status":200' "$T/oa.log")" = 1

# listing, newest first, pages
upload up2 "$T/in.jsonl" >/dev/null
create cb2 "$(first_id up2)" >/dev/null
BATCH2=$(first_id cb2)
check "list: newest first, has_more with limit 1" \
    sh -c "[ $(oa l1 GET '/v1/batches?limit=1') = 200 ] &&
        grep -q '^{\"object\":\"list\",\"data\":\[{\"id\":\"$BATCH2\"' '$T/l1.body' &&
        grep -q '\"first_id\":\"$BATCH2\",\"last_id\":\"$BATCH2\",\"has_more\":true}$' '$T/l1.body'"
check "list: after= gives the next page" \
    sh -c "[ $(oa l2 GET "/v1/batches?limit=1&after=$BATCH2") = 200 ] &&
        grep -q '\"first_id\":\"$BATCH\",\"last_id\":\"$BATCH\",\"has_more\":false}$' '$T/l2.body'"
check "list: a bad limit is 400" test "$(oa l3 GET '/v1/batches?limit=0')" = 400

# errors of the routes
check "cancelling a completed batch is 400" test "$(oa c1 POST "/v1/batches/$BATCH/cancel")" = 400
check "an unknown batch is 404" test "$(oa u1 GET /v1/batches/batch_nope)" = 404
check "an unknown file is 404" test "$(oa u2 GET /v1/files/file-nope/content)" = 404
check "create with an unknown input file is 404" test "$(create u3 file-nope)" = 404
check "create with completion_window 1h is 400" \
    sh -c "[ $(oa u4 POST /v1/batches --data-binary "{\"input_file_id\":\"$FILE\",\"endpoint\":\"/v1/chat/completions\",\"completion_window\":\"1h\"}") = 400 ] &&
        grep -q '\"param\":\"completion_window\"' '$T/u4.body'"
check "upload without purpose is 400" \
    test "$(oa u5 POST /v1/files -F "file=@$T/in.jsonl")" = 400
{
    printf -- '--b0undary\r\nContent-Disposition: form-data; name="file"; filename="q.jsonl"\r\n'
    printf 'Content-Type: application/octet-stream\r\n\r\n'
    cat "$T/in.jsonl"
    printf '\r\n--b0undary\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch'
    printf '\r\n--b0undary--\r\n'
} >"$T/form.txt"
code=$(oa u8 POST /v1/files -H 'Content-Type: multipart/form-data; boundary="b0undary"' \
    --data-binary "@$T/form.txt")
check "upload with a quoted boundary, the file before the purpose" \
    sh -c "[ $code = 200 ] && grep -q '\"bytes\":$(wc -c <"$T/in.jsonl"),' '$T/u8.body' &&
        grep -q '\"filename\":\"q.jsonl\"' '$T/u8.body'"
check "upload for purpose fine-tune is 400" test "$(upload u6 "$T/in.jsonl" fine-tune)" = 400
check "an upload that is not multipart is 400" \
    test "$(oa u7 POST /v1/files --data-binary @"$T/in.jsonl")" = 400
check "DELETE /v1/files/ID deletes it" \
    sh -c "[ $(oa d1 DELETE "/v1/files/$FILE") = 200 ] && grep -q '\"deleted\":true' '$T/d1.body' &&
        [ $(oa d2 GET "/v1/files/$FILE") = 404 ]"
check "no Authorization is 401 with invalid_api_key" \
    sh -c "[ \$(curl -s -o '$T/a1.body' -w '%{http_code}' http://127.0.0.1:$PORT/v1/batches) = 401 ] &&
        grep -q invalid_api_key '$T/a1.body'"
KEY=bad-key
check "bad-key is 401 on every batch route" \
    sh -c "[ $(upload a2 "$T/in.jsonl") = 401 ] && [ $(oa a3 GET "/v1/batches/$BATCH") = 401 ]"
unset KEY

# bad lines: the batch fails validation, with errors.data naming each line
{
    printf '{"custom_id":"r-1","method":"POST","url":"/v1/chat/completions","body":%s}\n' "$(oa_body 1)"
    printf '{"custom_id":"r-2", not json\n'
    printf '{"method":"POST","url":"/v1/chat/completions","body":%s}\n' "$(oa_body 3)"
    printf '{"custom_id":"r-1","method":"POST","url":"/v1/chat/completions","body":%s}\n' "$(oa_body 4)"
    printf '{"custom_id":"r-5","method":"POST","url":"/v1/embeddings","body":%s}\n' "$(oa_body 5)"
} >"$T/bad.jsonl"
upload ub "$T/bad.jsonl" >/dev/null
create cbad "$(first_id ub)" >/dev/null
BAD=$(first_id cbad)
check "a batch of bad lines is validating, then failed" \
    sh -c "grep -q '\"status\":\"validating\"' '$T/cbad.body' && [ $(oa_status pb "$BAD") = failed ]"
check "failed: errors.data names each bad line, failed_at set, no files" \
    sh -c "grep -q '\"errors\":{\"object\":\"list\",\"data\":\[' '$T/pb.body' &&
        grep -q '\"code\":\"invalid_json_line\",\"message\":\"[^\"]*\",\"param\":null,\"line\":2}' '$T/pb.body' &&
        grep -q '\"code\":\"missing_required_parameter\",\"message\":\"[^\"]*\",\"param\":\"custom_id\",\"line\":3}' '$T/pb.body' &&
        grep -q '\"code\":\"duplicate_custom_id\",\"message\":\"[^\"]*\",\"param\":\"custom_id\",\"line\":4}' '$T/pb.body' &&
        grep -q '\"code\":\"url_mismatch\",\"message\":\"[^\"]*\",\"param\":\"url\",\"line\":5}' '$T/pb.body' &&
        grep -q '\"failed_at\":[0-9]' '$T/pb.body' && grep -q '\"output_file_id\":null' '$T/pb.body'"
: >"$T/empty.jsonl"
upload ue "$T/empty.jsonl" >/dev/null
create ce "$(first_id ue)" >/dev/null
check "an empty file fails with empty_file" \
    sh -c "[ $(oa_status pe "$(first_id ce)") = failed ] && grep -q '\"code\":\"empty_file\"' '$T/pe.body'"

# cancel: after 1 of 3 polls, a third of the requests were done
oa_file "$T/in6.jsonl" a b c d e f
upload u6 "$T/in6.jsonl" >/dev/null
create c6 "$(first_id u6)" >/dev/null
B6=$(first_id c6)
oa_status x1 "$B6" >/dev/null
check "cancel is 200 and cancelling" \
    sh -c "[ $(oa x2 POST "/v1/batches/$B6/cancel") = 200 ] && grep -q '\"status\":\"cancelling\",' '$T/x2.body' &&
        grep -q '\"cancelling_at\":[0-9]' '$T/x2.body'"
check "the next poll: cancelled" test "$(oa_status x3 "$B6")" = cancelled
check "cancelled after 1 of 3 polls: 2 completed, 4 failed" \
    grep -q '"request_counts":{"total":6,"completed":2,"failed":4}' "$T/x3.body"
oa x4 GET "/v1/files/$(str x3 error_file_id)/content" >/dev/null
check "the unprocessed requests are in the error file as batch_cancelled" \
    test "$(grep -c '"response":null,"error":{"code":"batch_cancelled","message":' "$T/x4.body")" = 4
stop_sim oa

# 50,000 requests in one file are accepted; 50,001 fail with too_many_tasks
start_sim -n big --batch-polls 0
awk 'BEGIN { for (i = 0; i < 50000; i++)
    printf "{\"custom_id\":\"q%d\",\"method\":\"POST\",\"url\":\"/v1/chat/completions\",\"body\":{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"%d\"}]}}\n", i, i }' \
    >"$T/big.jsonl"
upload ubig "$T/big.jsonl" >/dev/null
create cbig "$(first_id ubig)" >/dev/null
check "--batch-polls 0: 50,000 requests, completed in the create reply" \
    grep -q '"status":"completed".*"request_counts":{"total":50000,"completed":50000,"failed":0}' \
    "$T/cbig.body"
echo '{"custom_id":"one-more","method":"POST","url":"/v1/chat/completions","body":{"model":"m"}}' \
    >>"$T/big.jsonl"
upload ubig2 "$T/big.jsonl" >/dev/null
create cbig2 "$(first_id ubig2)" >/dev/null
check "50,001 requests fail with too_many_tasks" \
    sh -c "grep -q '\"status\":\"failed\"' '$T/cbig2.body' &&
        grep -q '\"code\":\"too_many_tasks\"' '$T/cbig2.body'"
# Arbiter's fence code is masked, as on the synchronous route: a batch line and a synchronous
# request that differ only in the code get one reply.
oa_file "$T/fence.jsonl" "<<<BEGIN RESPONSE A 0123456789abcdef>>> 1"
upload ufe "$T/fence.jsonl" >/dev/null
create cfe "$(first_id ufe)" >/dev/null
oa ofe GET "/v1/files/$(str cfe output_file_id)/content" >/dev/null
oa sfe POST /v1/chat/completions --data-binary "$(oa_body "<<<BEGIN RESPONSE A fedcba9876543210>>> 1")" \
    >/dev/null
got=$(sed -n "$OA_REPLY" "$T/ofe.body")
check "a batch request's fence code is masked like a synchronous one's" \
    test -n "$got" -a "$got" = "$(cat "$T/sfe.body")"
stop_sim big

start_sim -n down --status-always 503
check "--status-always applies to the batch routes" \
    sh -c "[ $(upload dn1 "$T/in.jsonl") = 503 ] && [ $(an dn2 GET /v1/messages/batches) = 503 ]"
stop_sim down

# --batch-error-rate: failures in the error file; retried in later batches, they succeed
start_sim -n flaky --batch-polls 1 --batch-error-rate 0.5
oa_file "$T/todo.jsonl" 1 2 3 4 5 6 7 8 9 10 11 12
: >"$T/done.jsonl"
round=0 first_errors=
while [ -s "$T/todo.jsonl" ] && [ $round -lt 12 ]; do
    round=$((round + 1))
    upload fu "$T/todo.jsonl" >/dev/null
    create fc "$(first_id fu)" >/dev/null
    oa_status fp "$(first_id fc)" >/dev/null
    OUT=$(str fp output_file_id) ERR=$(str fp error_file_id)
    [ -n "$OUT" ] && oa fo GET "/v1/files/$OUT/content" >/dev/null && cat "$T/fo.body" >>"$T/done.jsonl"
    : >"$T/next.jsonl"
    if [ -n "$ERR" ]; then
        oa fe GET "/v1/files/$ERR/content" >/dev/null
        [ -n "$first_errors" ] || cp "$T/fe.body" "$T/first_errors.jsonl"
        first_errors=1
        for id in $(sed 's/.*"custom_id":"\([^"]*\)".*/\1/' "$T/fe.body"); do
            grep "\"custom_id\":\"$id\"" "$T/todo.jsonl" >>"$T/next.jsonl"
        done
    fi
    mv "$T/next.jsonl" "$T/todo.jsonl"
done
check "--batch-error-rate 0.5: some requests fail the first time" test -n "$first_errors"
check "a failed request is a 500 in the error file with OpenAI's error body" \
    grep -q '"response":{"status_code":500,"request_id":"[0-9a-f]*","body":{"error":{"message":"judge_sim: batch request failed (--batch-error-rate)","type":"server_error","param":null,"code":null}}},"error":null}' \
    "$T/first_errors.jsonl"
check "retried in later batches, every request succeeds (in $round rounds)" \
    sh -c "[ ! -s '$T/todo.jsonl' ] && [ \$(wc -l <'$T/done.jsonl') = 12 ] && [ $round -gt 1 ]"
check "and each success is the synchronous reply to its body" \
    test "$(same_as_sync "$T/done.jsonl" oa "$OA_REPLY")" = 0
check "the log counts a retried body's attempts" \
    grep -q '"path":"batch:/v1/chat/completions","attempt":2,' "$T/flaky.log"
stop_sim flaky

# --batch-expire: the batch ends expired, unprocessed requests as batch_expired
start_sim -n exp --batch-polls 1 --batch-expire 1
oa_file "$T/e.jsonl" 1 2 3
upload eu "$T/e.jsonl" >/dev/null
create ec "$(first_id eu)" >/dev/null
check "--batch-expire 1: the batch ends expired, expired_at set" \
    sh -c "[ $(oa_status ep "$(first_id ec)") = expired ] && grep -q '\"expired_at\":[0-9]' '$T/ep.body' &&
        grep -q '\"output_file_id\":null' '$T/ep.body'"
oa ee GET "/v1/files/$(str ep error_file_id)/content" >/dev/null
check "every request is a batch_expired line in the error file" \
    test "$(grep -c '"response":null,"error":{"code":"batch_expired","message":' "$T/ee.body")" = 3
stop_sim exp

start_sim -n val --batch-fail-validation on
upload vu "$T/e.jsonl" >/dev/null
create vc "$(first_id vu)" >/dev/null
check "--batch-fail-validation on: the batch fails" \
    sh -c "[ $(oa_status vp "$(first_id vc)") = failed ] && grep -q '\"code\":\"invalid_request\"' '$T/vp.body'"
stop_sim val

# === Anthropic Message Batches ===
start_sim -n an
check "create is 200, in_progress, with every published field" \
    sh -c "[ $(an_create ac 1 2 3 4 5 6 7 8) = 200 ] &&
        grep -q '^{\"id\":\"msgbatch_[0-9a-z]*\",\"type\":\"message_batch\",\"processing_status\":\"in_progress\",\"request_counts\":{\"processing\":8,\"succeeded\":0,\"errored\":0,\"canceled\":0,\"expired\":0},\"ended_at\":null,\"created_at\":\"[0-9T:.-]*Z\",\"expires_at\":\"[0-9T:.-]*Z\",\"cancel_initiated_at\":null,\"archived_at\":null,\"results_url\":null}$' '$T/ac.body'"
AB=$(first_id ac)
check "results before the end are refused" test "$(an r0 GET "/v1/messages/batches/$AB/results")" = 400
s1=$(an_status ap1 "$AB")
s2=$(an_status ap2 "$AB")
check "--batch-polls 2 (the default): in_progress, then ended ($s1 $s2)" test "$s1 $s2" = "in_progress ended"
check "ended: succeeded 8, ended_at and results_url set" \
    sh -c "grep -q '\"request_counts\":{\"processing\":0,\"succeeded\":8,\"errored\":0,\"canceled\":0,\"expired\":0},\"ended_at\":\"' '$T/ap2.body' &&
        grep -q '\"results_url\":\"http://127.0.0.1:$PORT/v1/messages/batches/$AB/results\"' '$T/ap2.body'"
RURL=$(str ap2 results_url)
code=$(curl -s -m 20 -o "$T/ar.jsonl" -D "$T/ar.hdr" -w '%{http_code}' -H 'x-api-key: k' \
    -H 'anthropic-version: 2023-06-01' "$RURL")
check "results_url gives 200 application/x-jsonl" \
    sh -c "[ $code = 200 ] && grep -qi '^content-type: application/x-jsonl' '$T/ar.hdr'"
check "8 succeeded lines, not in input order" \
    sh -c "[ \$(grep -c '^{\"custom_id\":\"r-[1-8]\",\"result\":{\"type\":\"succeeded\",\"message\":{\"id\":\"msg_' '$T/ar.jsonl') = 8 ] &&
        [ \"\$(sed 's/.*custom_id\":\"r-\([0-9]\).*/\1/' '$T/ar.jsonl' | tr -d '\n')\" != 12345678 ]"
check "every message is the synchronous reply to the same params" \
    test "$(same_as_sync "$T/ar.jsonl" an "$AN_REPLY")" = 0
check "the log has one line per request processed" \
    test "$(grep -c '"path":"batch:/v1/messages"' "$T/an.log")" = 8

an_create ac2 9 >/dev/null
AB2=$(first_id ac2)
check "list: newest first, has_more with limit 1, first_id and last_id" \
    sh -c "[ $(an al1 GET '/v1/messages/batches?limit=1') = 200 ] &&
        grep -q '^{\"data\":\[{\"id\":\"$AB2\"' '$T/al1.body' &&
        grep -q '\"has_more\":true,\"first_id\":\"$AB2\",\"last_id\":\"$AB2\"}$' '$T/al1.body'"
check "list: after_id gives the older page, before_id the newer" \
    sh -c "[ $(an al2 GET "/v1/messages/batches?limit=1&after_id=$AB2") = 200 ] &&
        grep -q '\"has_more\":false,\"first_id\":\"$AB\"' '$T/al2.body' &&
        [ $(an al3 GET "/v1/messages/batches?before_id=$AB") = 200 ] &&
        grep -q '\"first_id\":\"$AB2\",\"last_id\":\"$AB2\"' '$T/al3.body'"
check "cancel is 200 and canceling, cancel_initiated_at set" \
    sh -c "[ $(an ax1 POST "/v1/messages/batches/$AB2/cancel") = 200 ] &&
        grep -q '\"processing_status\":\"canceling\"' '$T/ax1.body' &&
        grep -q '\"cancel_initiated_at\":\"' '$T/ax1.body'"
check "the next poll: ended, the request canceled" \
    sh -c "[ $(an_status ax2 "$AB2") = ended ] && grep -q '\"canceled\":1,' '$T/ax2.body' &&
        [ $(an ax3 GET "/v1/messages/batches/$AB2/results") = 200 ] &&
        grep -q '^{\"custom_id\":\"r-9\",\"result\":{\"type\":\"canceled\"}}$' '$T/ax3.body'"
check "cancelling an ended batch is 400" test "$(an ax4 POST "/v1/messages/batches/$AB/cancel")" = 400
check "DELETE an ended batch: message_batch_deleted, then 404" \
    sh -c "[ $(an ad1 DELETE "/v1/messages/batches/$AB2") = 200 ] &&
        grep -q '\"type\":\"message_batch_deleted\"' '$T/ad1.body' &&
        [ $(an ad2 GET "/v1/messages/batches/$AB2") = 404 ] && grep -q not_found_error '$T/ad2.body'"

check "an empty requests list is 400 invalid_request_error" \
    sh -c "[ $(an v1 POST /v1/messages/batches --data-binary '{\"requests\":[]}') = 400 ] &&
        grep -q '\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\"' '$T/v1.body'"
check "a duplicate custom_id is 400" \
    test "$(an v2 POST /v1/messages/batches --data-binary '{"requests":[{"custom_id":"a","params":{}},{"custom_id":"a","params":{}}]}')" = 400
check "a custom_id outside [a-zA-Z0-9_-]{1,64} is 400" \
    test "$(an v3 POST /v1/messages/batches --data-binary '{"requests":[{"custom_id":"a b","params":{}}]}')" = 400
check "a request without params is 400" \
    test "$(an v4 POST /v1/messages/batches --data-binary '{"requests":[{"custom_id":"a"}]}')" = 400
awk 'BEGIN { printf "{\"requests\":["; for (i = 0; i <= 100000; i++)
    printf "%s{\"custom_id\":\"q%d\",\"params\":{}}", i ? "," : "", i; printf "]}" }' >"$T/huge.json"
check "100,001 requests are 400" \
    sh -c "[ $(an v5 POST /v1/messages/batches --data-binary "@$T/huge.json") = 400 ] &&
        grep -q 'at most 100000' '$T/v5.body'"
check "no x-api-key is 401 authentication_error" \
    sh -c "[ \$(curl -s -o '$T/v6.body' -w '%{http_code}' -H 'anthropic-version: 2023-06-01' \
        http://127.0.0.1:$PORT/v1/messages/batches) = 401 ] && grep -q authentication_error '$T/v6.body'"
check "no anthropic-version is 400" \
    test "$(curl -s -o /dev/null -w '%{http_code}' -H 'x-api-key: k' "http://127.0.0.1:$PORT/v1/messages/batches/$AB")" = 400
check "an unknown message batch is 404" test "$(an v7 GET /v1/messages/batches/msgbatch_nope)" = 404
stop_sim an

start_sim -n anerr --batch-polls 1 --batch-error-rate 1
an_create ae 1 2 >/dev/null
an_status ae1 "$(first_id ae)" >/dev/null
an ae2 GET "/v1/messages/batches/$(first_id ae)/results" >/dev/null
check "--batch-error-rate 1: errored results with an api_error" \
    sh -c "grep -q '\"errored\":2,' '$T/ae1.body' &&
        [ \$(grep -c '\"result\":{\"type\":\"errored\",\"error\":{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"judge_sim: batch request failed (--batch-error-rate)\"}}}}$' '$T/ae2.body') = 2 ]"
stop_sim anerr

start_sim -n anexp --batch-polls 1 --batch-expire 0.5
an_create ee 1 2 3 4 5 6 7 8 9 10 11 12 >/dev/null
an_status ee1 "$(first_id ee)" >/dev/null
an ee2 GET "/v1/messages/batches/$(first_id ee)/results" >/dev/null
n_exp=$(grep -c '"result":{"type":"expired"}}$' "$T/ee2.body")
check "--batch-expire 0.5: some requests expired ($n_exp of 12), counted as expired" \
    sh -c "[ $n_exp -gt 0 ] && [ $n_exp -lt 12 ] && grep -q '\"expired\":$n_exp}' '$T/ee1.body'"
tags=$(grep '"type":"expired"' "$T/ee2.body" | sed 's/.*"custom_id":"r-\([0-9]*\)".*/\1/')
# shellcheck disable=SC2086
an_create ee3 $tags >/dev/null
an_status ee4 "$(first_id ee3)" >/dev/null
check "resubmitted, expired requests get a fresh draw" grep -q '"succeeded":[1-9]' "$T/ee4.body"
stop_sim anexp

start_sim -n outage --batch-polls 2 --batch-outage 2
an_create ou 1 2 >/dev/null
b=$(first_id ou)
s1=$(an ou1 GET "/v1/messages/batches/$b")
s2=$(an ou2 GET "/v1/messages/batches/$b")
s3=$(an ou3 GET "/v1/messages/batches/$b")
s4=$(an ou4 GET "/v1/messages/batches/$b")
check "--batch-outage 2: read 1 answered, the next two 503 (not reads), then read 2 ends it" \
    sh -c "[ '$s1 $s2 $s3 $s4' = '200 503 503 200' ] && grep -q '\"processing_status\":\"in_progress\"' '$T/ou1.body' &&
        grep -q '\"processing_status\":\"ended\"' '$T/ou4.body' && grep -q 'batch-outage' '$T/outage.log'"
s5=$(an ou5 GET "/v1/messages/batches/$b/results")
s6=$(an ou6 GET "/v1/messages/batches/$b/results")
s7=$(an ou7 GET "/v1/messages/batches/$b/results")
check "--batch-outage 2: then the first two results downloads 503" \
    sh -c "[ '$s5 $s6 $s7' = '503 503 200' ] && [ \$(grep -c '\"custom_id\"' '$T/ou7.body') = 2 ]"
stop_sim outage

test_done
