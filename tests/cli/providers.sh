#!/bin/sh
# The provider fixture library (tests/providers/*.json, described in its README.md): for each
# exchange, the test judge replays it (judge_sim --fixture) and `arbiter run` judges a bake-off
# of one case against it; the run must end as the fixture's "expect" says (exit code, verdict
# status, requests the judge received, stderr, stored judge calls, the wait a 429 asked for),
# and no request may fail the fixture's request checks.  One line per fixture, then the summary.
# usage: tests/cli/providers.sh path/to/arbiter path/to/judge_sim [NAME...]
#        (NAME: only these fixtures, e.g. openai-normal; default every one)
. "$(dirname "$0")/lib.sh"
LC_ALL=C
export LC_ALL
ARB="$1"
SIM="$2"
shift 2
FIXTURES="$(cd "$(dirname "$0")/../providers" && pwd)"
export ARB_TEST_KEY=provider-test-key

# SQL text: a string literal for "$1".
lit() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/''/g")"; }
# A member of the fixture $FX (a JSON path: $.expect.exit): its text, or JSON for objects.
fx() { sqlite3 :memory: "SELECT json_extract(readfile($(lit "$FX")), $(lit "$1"))"; }
# The JSON text of a member (strings quoted; null when absent).
fxjson() { sqlite3 :memory: "SELECT json_quote(json_extract(readfile($(lit "$FX")), $(lit "$1")))"; }
# The elements of an array member, one a line (as text).
fxeach() {
    sqlite3 :memory: "SELECT value FROM json_each(readfile($(lit "$FX")), $(lit "$1"))"
}
# One column of a query on the run's database; nothing when it fails (no such column yet).
db() { sqlite3 "$T/run.db" "$1" 2>/dev/null; }
# How many stored judge calls (kept or rejected) have column $1 matching COND on v ($2).
calls_count() {
    db "SELECT count(*) FROM (SELECT $1 AS v FROM judge_calls UNION ALL
        SELECT $1 FROM judge_calls_rejected) WHERE $2" ||
        db "SELECT count(*) FROM (SELECT $1 AS v FROM judge_calls) WHERE $2"
}

# The bake-off: one case whose free-text expectation only the judge can decide.
mkdir -p "$T/s"
printf '{"id":"c1","expectations":[{"id":"polite","text":"The answer is polite"}]}\n' >"$T/s/cases.jsonl"
printf '{"id":"c1","output":"Thank you for asking: it is 4."}\n' >"$T/s/a.jsonl"
printf '{"id":"c1","output":"4"}\n' >"$T/s/b.jsonl"
cat >"$T/s/suite.json" <<'JSON'
{"name": "providers", "seed": 5, "task": "What is 2 + 2?", "systems": {"alpha": "a.jsonl", "beta": "b.jsonl"},
 "rubric": {"content": [], "structure": []}, "cases": "cases.jsonl"}
JSON

# WHY accumulates what one fixture got wrong.
miss() { WHY="$WHY; $*"; }

# The judge config: the runner's, with the fixture's "judge" merged in (RFC 7396).
judge_config() { # PROVIDER
    if [ "$1" = anthropic ]; then url="http://127.0.0.1:$PORT"; else url="http://127.0.0.1:$PORT/v1"; fi
    base="{\"provider\": \"$1\", \"base_url\": \"$url\", \"model\": \"m\", \"api_key_env\": \"ARB_TEST_KEY\", \"swap\": false, \"max_retries\": 2, \"timeout_s\": 5}"
    sqlite3 :memory: "SELECT json_patch($(lit "$base"), coalesce(json_extract(readfile($(lit "$FX")), '\$.judge'), '{}'))" \
        >"$T/judge.json"
}

# expect.requests: a number, or {"min": N, "max": M}.
check_requests() {
    n=$(wc -l <"$T/sim.log" | tr -d ' ')
    want=$(fx '$.expect.requests')
    case $want in
    '') ;;
    '{'*)
        lo=$(fx '$.expect.requests.min')
        hi=$(fx '$.expect.requests.max')
        { [ -z "$lo" ] || [ "$n" -ge "$lo" ]; } && { [ -z "$hi" ] || [ "$n" -le "$hi" ]; } ||
            miss "$n requests, want ${lo:-0}..${hi:-any}"
        ;;
    *) [ "$n" = "$want" ] || miss "$n requests, want $want" ;;
    esac
}

# expect.calls: {"column": value}: some stored judge call has it.  A string with % is a LIKE
# pattern, an array any of its values, null IS NULL.
check_calls() {
    sqlite3 :memory: "SELECT key FROM json_each(readfile($(lit "$FX")), '\$.expect.calls')" |
        while read -r col; do
            case $col in '' | *[!a-z_]*) echo "bad column name '$col'"; continue ;; esac
            v=$(fxjson "\$.expect.calls.$col")
            case $v in
            null) cond="v IS NULL" ;;
            '['*) cond="v IN (SELECT value FROM json_each($(lit "$v")))" ;;
            *%*) cond="v LIKE json_extract($(lit "[$v]"), '\$[0]')" ;;
            *) cond="v = json_extract($(lit "[$v]"), '\$[0]')" ;;
            esac
            got=$(calls_count "$col" "$cond")
            if [ "${got:-0}" -lt 1 ] 2>/dev/null || [ -z "$got" ]; then
                have=$(db "SELECT group_concat(coalesce($col, 'NULL'), ', ') FROM judge_calls")
                [ -n "$have" ] || have="no such column"
                echo "calls.$col $v not stored (have: $have)"
            fi
        done >"$T/calls.miss"
    while read -r line; do miss "$line"; done <"$T/calls.miss"
}

# expect.mentions: each text in stderr or in a stored judge call's error.
check_mentions() {
    fxeach '$.expect.mentions' >"$T/mentions" 2>/dev/null
    while read -r m; do
        [ -n "$m" ] || continue
        grep -qF -- "$m" "$T/err" && continue
        n=$(calls_count error "instr(v, $(lit "$m")) > 0")
        [ "${n:-0}" -ge 1 ] && continue
        n=$(calls_count error_message "instr(v, $(lit "$m")) > 0")
        [ "${n:-0}" -ge 1 ] || miss "'$m' neither in stderr nor in a stored error"
    done <"$T/mentions"
}

# expect.wait_ms: the second request came at least that long (less 50 ms) after the first.
check_wait() {
    w=$(fx '$.expect.wait_ms')
    [ -n "$w" ] || return 0
    t1=$(sed -n '1s/^{"t":\([0-9]*\).*/\1/p' "$T/sim.log")
    t2=$(sed -n '2s/^{"t":\([0-9]*\).*/\1/p' "$T/sim.log")
    if [ -z "$t2" ]; then
        miss "no second request to time the wait of"
    elif [ $((t2 - t1)) -lt $((w - 50)) ]; then
        miss "retried after $((t2 - t1)) ms, asked to wait $w ms"
    fi
}

run_fixture() {
    name=${FX##*/}
    name=${name%.json}
    WHY=
    if [ "$(sqlite3 :memory: "SELECT json_valid(readfile($(lit "$FX")))")" != 1 ]; then
        bad "$name: not valid JSON"
        return
    fi
    provider=$(fx '$.provider')
    start_sim --fixture "$FX"
    judge_config "$provider"
    rm -f "$T/run.db"
    timeout 60 "$ARB" run "$T/s/suite.json" --judge "$T/judge.json" --db "$T/run.db" --json \
        >"$T/out" 2>"$T/err"
    rc=$?
    stop_sim
    want=$(fx '$.expect.exit')
    [ -z "$want" ] || [ "$rc" = "$want" ] || miss "exit $rc, want $want"
    want=$(fx '$.expect.status')
    got=$(db "SELECT group_concat(status) FROM verdicts")
    [ -z "$want" ] || [ "$got" = "$want" ] || miss "status '${got}', want '$want'"
    check_requests
    fxeach '$.expect.stderr' >"$T/want_err" 2>/dev/null
    while read -r s; do
        [ -z "$s" ] || grep -qF -- "$s" "$T/err" || miss "stderr lacks '$s'"
    done <"$T/want_err"
    check_mentions
    check_calls
    check_wait
    n=$(grep -c '"fault":"fixture-mismatch"' "$T/sim.log")
    [ "$n" = 0 ] ||
        miss "$n requests failed the fixture's checks ($(sed -n 's/.*"detail":"\(\([^"\\]\|\\.\)*\)".*/\1/p' "$T/sim.log" | head -1))"
    if [ -z "$WHY" ]; then
        ok
        printf 'ok   %s\n' "$name"
    else
        bad "$name:${WHY#;}
       stderr: $(head -c 300 "$T/err" | tr '\n' ' ')"
    fi
}

if [ $# -gt 0 ]; then
    for n in "$@"; do
        FX="$FIXTURES/${n%.json}.json"
        [ -f "$FX" ] || die "no fixture $FX"
        run_fixture
    done
else
    for FX in "$FIXTURES"/*.json; do
        [ -f "$FX" ] || die "no fixtures in $FIXTURES"
        run_fixture
    done
fi
test_done
