#!/bin/sh
# Smoke test of the test judge: starts a built judge_sim on an ephemeral port, talks to it with
# curl, and checks determinism, schema-shaped replies, auth, faults, latency and the log.
# Builds nothing.
# usage: tests/judge_sim/smoke.sh path/to/judge_sim
. "$(dirname "$0")/../cli/lib.sh"
TEST_NAME="judge_sim smoke"
SIM="${1:-}"
[ -x "$SIM" ] || { echo "judge_sim smoke: no binary at '$SIM'"; exit 2; }
command -v curl >/dev/null || { echo "judge_sim smoke: curl is required"; exit 2; }
# A server must stop within 2 s of SIGTERM (stop_sim counts a failure otherwise).
SIM_STOP_TIMEOUT=2

# check NAME COMMAND...: passes when COMMAND succeeds (its output discarded).
check() {
    name=$1
    shift
    if "$@" >/dev/null 2>&1; then ok; else bad "$name"; fi
}

# none NAME COUNT: passes when COUNT is 0.
none() {
    if [ "$2" = 0 ]; then ok; else bad "$1"; fi
}

now_ms() {
    echo $(($(date +%s%N) / 1000000))
}

# start NAME ARGS...: a server (start_sim -n NAME: port file $T/NAME.port, its log
# $T/NAME.log); sets PORT.  stop: SIGTERM the last one started, a failure if it lingers.
start() {
    current=$1
    shift
    start_sim -n "$current" "$@"
}
stop() {
    stop_sim "$current"
}

# oa NAME BODY [CURL ARGS...]: POST to the OpenAI endpoint with key $KEY (default test-key);
# prints the status.
oa() {
    n=$1 b=$2
    shift 2
    curl -s -m 10 -o "$T/$n.body" -D "$T/$n.hdr" -w '%{http_code}' \
        -H 'Content-Type: application/json' -H "Authorization: Bearer ${KEY:-test-key}" "$@" \
        --data-binary "$b" "http://127.0.0.1:$PORT/v1/chat/completions"
}

# an NAME BODY [CURL ARGS...]: POST to the Anthropic endpoint with key and version.
an() {
    n=$1 b=$2
    shift 2
    curl -s -m 10 -o "$T/$n.body" -D "$T/$n.hdr" -w '%{http_code}' \
        -H 'Content-Type: application/json' -H "x-api-key: ${KEY:-test-key}" \
        -H 'anthropic-version: 2023-06-01' "$@" \
        --data-binary "$b" "http://127.0.0.1:$PORT/v1/messages"
}

# A judge-like schema: reasoning, scores 1-5 with required keys, winner enum, scores via $ref.
SCHEMA='{"type":"object","additionalProperties":false,"required":["reasoning","scores","winner"],
"properties":{"reasoning":{"type":"string","minLength":10},
"scores":{"$ref":"#/$defs/scores"},"winner":{"type":"string","enum":["A","B","TIE"]}},
"$defs":{"scores":{"type":"object","additionalProperties":false,
"required":["accuracy","clarity","depth"],"properties":{
"accuracy":{"type":"integer","minimum":1,"maximum":5},
"clarity":{"type":"integer","minimum":1,"maximum":5},
"depth":{"type":"integer","minimum":1,"maximum":5}}}}}'
SCHEMA=$(printf '%s' "$SCHEMA" | tr -d '\n')

oa_req() { # oa_req TAG: an OpenAI judge request whose prompt mentions TAG
    printf '{"model":"gpt-sim","messages":[{"role":"user","content":"compare %s"}],' "$1"
    printf '"response_format":{"type":"json_schema","json_schema":{"name":"verdict",'
    printf '"strict":true,"schema":%s}},"temperature":0,"max_tokens":500,"seed":1}' "$SCHEMA"
}

an_req() { # an_req TAG: an Anthropic judge request with a forced tool
    printf '{"model":"claude-sim","max_tokens":500,"system":"judge",'
    printf '"messages":[{"role":"user","content":"compare %s"}],' "$1"
    printf '"tools":[{"name":"verdict","input_schema":%s}],' "$SCHEMA"
    printf '"tool_choice":{"type":"tool","name":"verdict"}}'
}

# The judge verdict, unescaped from the OpenAI content string, conforms to SCHEMA.
OK_VERDICT='^\{"reasoning":"[^"]{10,}",'
OK_VERDICT="$OK_VERDICT"'"scores":\{"accuracy":[1-5],"clarity":[1-5],"depth":[1-5]\},'
OK_VERDICT="$OK_VERDICT"'"winner":"(A|B|TIE)"\}$'
oa_verdict() {
    sed -n 's/.*"content":"\(.*\)"},"finish_reason".*/\1/p' "$T/$1.body" | sed 's/\\"/"/g'
}
an_verdict() {
    sed -n 's/.*"input":\({.*}\)}\],"stop_reason".*/\1/p' "$T/$1.body"
}
conforms() { # conforms oa|an NAME
    "$1_verdict" "$2" | grep -Eq "$OK_VERDICT"
}

# --- one plain server: replies, determinism, auth, routes, log ---
start plain
sent=0

check "OpenAI reply is 200" test "$(oa o1 "$(oa_req one)")" = 200
check "OpenAI identical request gets identical reply" \
    sh -c "[ $(oa o2 "$(oa_req one)") = 200 ] && cmp -s '$T/o1.body' '$T/o2.body'"
P_OA='"object":"chat.completion","model":"gpt-sim","choices":\[{"index":0,'
P_OA="$P_OA"'"message":{"role":"assistant","content":'
check "OpenAI reply has the chat.completion shape" \
    grep -q "$P_OA" "$T/o1.body"
check "OpenAI usage totals" \
    grep -Eq '"usage":\{"prompt_tokens":[0-9]+,"completion_tokens":[0-9]+,"total_tokens":[0-9]+\}' \
    "$T/o1.body"
check "OpenAI different request gets a different reply" \
    sh -c "[ $(oa o3 "$(oa_req two)") = 200 ] && ! cmp -s '$T/o1.body' '$T/o3.body'"
check "Anthropic reply is 200" test "$(an a1 "$(an_req one)")" = 200
check "Anthropic identical request gets identical reply" \
    sh -c "[ $(an a2 "$(an_req one)") = 200 ] && cmp -s '$T/a1.body' '$T/a2.body'"
P_AN='"type":"message","role":"assistant","model":"claude-sim",'
P_AN="$P_AN"'"content":\[{"type":"tool_use",.*"name":"verdict","input":{'
P_AN="$P_AN"'.*"stop_reason":"tool_use"'
check "Anthropic reply is a tool_use message" \
    grep -q "$P_AN" "$T/a1.body"
check "Anthropic without tools answers a text block" \
    sh -c "[ $(an a3 '{"model":"m","max_tokens":5,"messages":[]}') = 200 ] &&
        grep -q '\"content\":\[{\"type\":\"text\",\"text\":\"{}\"}\]' '$T/a3.body'"
sent=$((sent + 6))

wrong=0
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
    [ "$(oa v$i "$(oa_req "pair $i")")" = 200 ] && conforms oa v$i || wrong=$((wrong + 1))
    [ "$(an w$i "$(an_req "pair $i")")" = 200 ] && conforms an w$i || wrong=$((wrong + 1))
done
sent=$((sent + 24))
none "24 OpenAI and Anthropic verdicts conform to the judge schema ($wrong did not)" $wrong
check "winners vary without --prefer-a" \
    sh -c "cat '$T'/v*.body | grep -o 'winner.....[A-Z]*' | sort -u | [ \$(wc -l) -ge 2 ]"

code=$(curl -s -m 5 -o "$T/n1.body" -w '%{http_code}' --data-binary "$(oa_req one)" \
    "http://127.0.0.1:$PORT/v1/chat/completions")
check "OpenAI without Authorization is 401" test "$code" = 401
check "OpenAI 401 names invalid_api_key" grep -q '"code":"invalid_api_key"' "$T/n1.body"
check "OpenAI with bad-key is 401" \
    test "$(KEY=bad-key oa n2 "$(oa_req one)")" = 401
code=$(curl -s -m 5 -o "$T/n3.body" -w '%{http_code}' -H 'anthropic-version: 2023-06-01' \
    --data-binary "$(an_req one)" "http://127.0.0.1:$PORT/v1/messages")
check "Anthropic without x-api-key is 401" test "$code" = 401
check "Anthropic 401 is an authentication_error" \
    grep -q '"type":"error","error":{"type":"authentication_error"' "$T/n3.body"
check "Anthropic with bad-key is 401" test "$(KEY=bad-key an n4 "$(an_req one)")" = 401
code=$(curl -s -m 5 -o "$T/n5.body" -w '%{http_code}' "http://127.0.0.1:$PORT/v1/models")
check "unknown endpoint is 404 JSON" sh -c "[ $code = 404 ] && grep -q '\"error\"' '$T/n5.body'"
sent=$((sent + 5))

check "log has one line per request ($sent)" test "$(wc -l <"$T/plain.log")" = "$sent"
check "log lines carry t, path, attempt, status, auth, body" \
    grep -Eq '^\{"t":[0-9]+,"path":"/v1/chat/completions","attempt":1,"status":200,"auth":true,' \
    "$T/plain.log"
check "log lines end with fault and body" grep -q '"fault":null,"body":"{' "$T/plain.log"
check "log counts the repeat as attempt 2" grep -q '"attempt":2,"status":200' "$T/plain.log"
check "log records a missing auth header" grep -q '"status":401,"auth":false' "$T/plain.log"
check "log holds request bodies" grep -q 'compare pair 12' "$T/plain.log"
check "log never holds the API key" sh -c "! grep -q 'test-key' '$T/plain.log'"
stop
check "port file removed on SIGTERM" test ! -e "$T/plain.port"

# --- determinism across runs and seeds ---
start again
oa o4 "$(oa_req one)" >/dev/null
check "a restarted server gives the same reply" cmp -s "$T/o1.body" "$T/o4.body"
stop
start seeded --seed 7
oa o5 "$(oa_req one)" >/dev/null
check "--seed changes the reply" sh -c "! cmp -s '$T/o1.body' '$T/o5.body'"
stop

# --- faults ---
start limited --rate-429 1 --retry-after 3
check "--rate-429 1 answers 429" test "$(oa r1 "$(oa_req one)")" = 429
check "429 carries Retry-After: 3" grep -qi '^Retry-After: 3' "$T/r1.hdr"
check "Anthropic 429 is a rate_limit_error" \
    sh -c "[ $(an r2 "$(an_req one)") = 429 ] && grep -q rate_limit_error '$T/r2.body'"
stop

start flaky --rate-500 0.5
codes=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
    codes="$codes $(oa f$i "$(oa_req retry)")"
done
check "--rate-500 0.5 fails some attempts of one request" sh -c "echo '$codes' | grep -q 500"
check "--rate-500 0.5 lets some retries through" sh -c "echo '$codes' | grep -q 200"
check "every successful retry gets the same reply" \
    sh -c "grep -l '\"chat.completion\"' '$T'/f*.body | xargs cat | sort -u | [ \$(wc -l) = 1 ]"
stop

start invalid --rate-invalid 1
wrong=0
for i in 1 2 3 4 5 6; do
    [ "$(oa i$i "$(oa_req "pair $i")")" = 200 ] && ! conforms oa i$i || wrong=$((wrong + 1))
done
none "--rate-invalid 1 sends 200 with schema-invalid verdicts ($wrong were not)" $wrong
stop

start malformed --rate-malformed 1
check "--rate-malformed 1 sends 200" test "$(oa m1 "$(oa_req one)")" = 200
check "malformed body is cut short" sh -c "! grep -q '\"usage\"' '$T/m1.body'"
stop

start outage --fail-first 2
c1=$(oa u1 "$(oa_req one)")
c2=$(oa u2 "$(oa_req one)")
c3=$(oa u3 "$(oa_req one)")
check "--fail-first 2: 503, 503, then 200" test "$c1 $c2 $c3" = "503 503 200"
stop

start down --status-always 503
check "--status-always 503" test "$(an d1 "$(an_req one)")" = 503
stop

start biased --prefer-a 1
wrong=0
for i in 1 2 3 4 5 6 7 8; do
    oa b$i "$(oa_req "pair $i")" >/dev/null
    oa_verdict b$i | grep -q '"winner":"A"' || wrong=$((wrong + 1))
done
none "--prefer-a 1 always answers A ($wrong did not)" $wrong
stop

start hang --rate-hang 1 --hang-ms 20000
t0=$(now_ms)
oa h1 "$(oa_req one)" -m 1 >/dev/null
check "--rate-hang holds the reply past a 1 s client timeout" test $(($(now_ms) - t0)) -ge 900
t0=$(now_ms)
stop
check "SIGTERM ends a hanging server within 2 s" test $(($(now_ms) - t0)) -lt 2000

# --- latency ---
start slow --latency-ms 300
t0=$(now_ms)
oa l1 "$(oa_req one)" >/dev/null
dt=$(($(now_ms) - t0))
check "--latency-ms 300 delays a reply by about 300 ms (took $dt)" \
    test "$dt" -ge 290 -a "$dt" -lt 1500
t0=$(now_ms)
cpids=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do
    oa c$i "$(oa_req "pair $i")" >/dev/null &
    cpids="$cpids $!"
done
wait $cpids
dt=$(($(now_ms) - t0))
check "16 concurrent requests overlap their latency (took $dt ms)" test "$dt" -lt 1500
# The latency counts from the request's arrival (its headers), as a client sees a provider's:
# a body that comes 600 ms after its headers is answered when it is in, not 300 ms after that.
t0=$(now_ms)
{
    sleep 0.6
    oa_req slow-body
} | curl -s -m 10 -o "$T/su.body" -X POST -T - -H 'Expect:' -H 'Content-Type: application/json' \
    -H "Authorization: Bearer ${KEY:-test-key}" "http://127.0.0.1:$PORT/v1/chat/completions"
dt=$(($(now_ms) - t0))
check "a slow body's reply is not delayed by a further --latency-ms (took $dt ms)" \
    test "$dt" -ge 550 -a "$dt" -lt 850
check "a slow body is answered" grep -q chat.completion "$T/su.body"
stop

# --- --fixture: a scripted exchange, replayed in arrival order ---
cat >"$T/fx.json" <<'JSON'
{"provider": "openai",
 "request": {"has": {"/model": "gpt-sim"}, "lacks": ["/stream"],
             "has_in_turn": {"3": {"/max_tokens": 500}}},
 "rules": [{"when": {"/response_format/type": "json_object"},
            "reply": {"status": 400, "json": {"error": {"message": "no JSON mode"}}}}],
 "replies": [
  {"status": 429, "headers": {"retry-after-ms": 40, "x-reset": "{{time+400ms}}"},
   "json": {"error": {"message": "slow down", "type": "requests"}}},
  {"status": 200, "json": {"model": "{{model}}", "content": "```json\n{{answer}}\n```",
   "half": "{{answer_half}}", "rest": "{{answer_rest}}", "object": "{{answer_object}}"}},
  {"status": 200, "sse": [{"delta": "{{answer_half}}"}, {"delta": "{{answer_rest}}"}, "[DONE]"]}
 ]}
JSON
start fixture --fixture "$T/fx.json"
check "--fixture: the first reply is the first scripted one (429)" test "$(oa f1 "$(oa_req one)")" = 429
check "--fixture: the fixture's headers, no Retry-After of the server's own" \
    sh -c "grep -qi '^retry-after-ms: 40' '$T/f1.hdr' && ! grep -qi '^retry-after:' '$T/f1.hdr' &&
        grep -Eqi '^x-reset: [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\.[0-9]{3}Z' '$T/f1.hdr'"
check "--fixture: the second request gets the second reply" test "$(oa f2 "$(oa_req one)")" = 200
# {{answer}} is the server's own answer to the same request: a verdict conforming to SCHEMA.
sed -n 's/.*"content":"```json\\n\(.*\)\\n```","half".*/\1/p' "$T/f2.body" | sed 's/\\"/"/g' >"$T/f2.ans"
check "--fixture: {{answer}} is a verdict from the request's schema" grep -Eq "$OK_VERDICT" "$T/f2.ans"
check "--fixture: {{model}}, and {{answer_half}} + {{answer_rest}} make {{answer}}" \
    sh -c "grep -q '\"model\":\"gpt-sim\"' '$T/f2.body' &&
        h=\$(sed -n 's/.*\"half\":\"\\(.*\\)\",\"rest\":\"\\(.*\\)\",\"object\".*/\\1\\2/p' '$T/f2.body' | sed 's/\\\\\"/\"/g') &&
        [ \"\$h\" = \"\$(cat '$T/f2.ans')\" ]"
check "--fixture: {{answer_object}} is the answer as an object" \
    sh -c "grep -q '\"object\":{\"reasoning\":\"' '$T/f2.body'"
check "--fixture: a request failing has_in_turn gets 400 naming the check" \
    sh -c "[ $(oa f3 "$(oa_req one | sed 's/"max_tokens":500/"max_tokens":9/')") = 400 ] &&
        grep -q 'fixture: request 3: /max_tokens is 9, want 500' '$T/f3.body'"
check "--fixture: and is logged as a fixture-mismatch, with why" \
    grep -q '"fault":"fixture-mismatch","detail":"fixture: request 3' "$T/fixture.log"
check "--fixture: the last reply repeats, an event stream" \
    sh -c "[ $(oa f4 "$(oa_req one)") = 200 ] && grep -qi '^content-type: text/event-stream' '$T/f4.hdr' &&
        [ \"\$(grep -c '^data: ' '$T/f4.body')\" = 3 ] && tail -2 '$T/f4.body' | grep -q '^data: \\[DONE\\]'"
check "--fixture: lacks refuses a request carrying the member" \
    sh -c "[ $(oa f5 "$(oa_req one | sed 's/^{/{"stream":true,/')") = 400 ] &&
        grep -q 'fixture: the request carries /stream' '$T/f5.body'"
check "--fixture: a rule answers the requests it matches" \
    sh -c "[ $(oa f6 "$(oa_req one | sed 's/"type":"json_schema"/"type":"json_object"/')") = 400 ] &&
        grep -q 'no JSON mode' '$T/f6.body'"
check "--fixture: has refuses another model" \
    sh -c "[ $(oa f7 "$(oa_req one | sed 's/gpt-sim/gpt-other/')") = 400 ] &&
        grep -q 'fixture: /model is \\\\\"gpt-other\\\\\", want \\\\\"gpt-sim\\\\\"' '$T/f7.body'"
check "--fixture: an Anthropic request to an OpenAI fixture is refused" test "$(an f8 "$(an_req one)")" = 400
KEY=bad-key
check "--fixture: auth is still checked" test "$(oa f9 '{}')" = 401
unset KEY
stop
printf '{"replies": [{"status": 200, "json": {}, "text": "x"}]}' >"$T/badfx.json"
"$SIM" --fixture "$T/badfx.json" >/dev/null 2>"$T/badfx.err"
check "--fixture: a bad fixture exits 2 naming what is wrong" \
    sh -c "[ $? = 2 ] && grep -q 'replies\[0\] wants at most one of' '$T/badfx.err'"

test_done
