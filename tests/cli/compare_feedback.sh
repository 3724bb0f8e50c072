#!/bin/sh
# comparison.json's output_quality (issue 19): the strengths and weaknesses are the judge's
# sentences when it was asked for them (compare asks by default; --no-feedback, or the config's
# "feedback": false, does not), mapped to the output they are about whichever order it was
# shown in; without the judge's, sentences built from the checks and the rubric, never a bare
# criterion id.  compare --rubric FILE takes the task's own criteria, errors located in FILE.
# A run whose judge config does not ask for feedback sends the requests it always sent.
# usage: tests/cli/compare_feedback.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
ARB="$1"
SIM="$2"

val() { sqlite3 :memory: "SELECT json_extract(readfile('$1'), '$2')"; }
same() { # WHAT GOT WANT
    [ "$2" = "$3" ] && ok || bad "$1: '$2', want '$3'"
}

mkdir -p "$T/o"
printf 'ZZALPHA: Paris, see http://example.org\n' >"$T/o/alpha.txt"
printf 'ZZBETA: Lyon\n' >"$T/o/beta.txt"
printf '{"content": [{"name": "clarity", "description": "Is it easy to follow?"}], "structure": []}\n' \
    >"$T/r.json"

# A command judge that tells the outputs apart by their words: the one it was shown first
# (as "Response A") gets "shown first", the other "shown second"; it answers "feedback" only
# when the request asks for it (an unasked member would not validate), and logs each request.
cat >"$T/judge.sh" <<'SH'
#!/bin/sh
in=$(cat)
printf '%s\n' "$in" >>"$0.log"
rest=${in#*ZZALPHA}
case $rest in
*ZZBETA*) first=ZZALPHA second=ZZBETA ;;
*) first=ZZBETA second=ZZALPHA ;;
esac
case $in in
*'"feedback"'*)
    fb=$(printf '"feedback": {"A": {"strengths": ["Says %s, shown first."], "weaknesses": ["Short."]}, "B": {"strengths": ["Says %s, shown second."], "weaknesses": ["Short.", "Came second."]}},' "$first" "$second") ;;
*) fb= ;;
esac
printf '{"reasoning": "Both are short.", "criteria": {"clarity": {"A": 3, "B": 3}}, "expectations": {}, %s "winner": "TIE"}\n' "$fb"
SH
chmod +x "$T/judge.sh"
printf '{"provider": "command", "command": ["%s"]}' "$T/judge.sh" >"$T/j.json"
printf '{"provider": "command", "command": ["%s"], "swap": false}' "$T/judge.sh" >"$T/j1.json"
printf '{"provider": "command", "command": ["%s"], "feedback": false}' "$T/judge.sh" >"$T/j0.json"

cmp_run() { # OUT [ARG...]
    co=$1
    shift
    $ARB compare --task "Which city is the capital of France?" --rubric "$T/r.json" "$@" \
        "$T/o/alpha.txt" "$T/o/beta.txt" -o "$co" >"$T/out" 2>"$T/err"
}

# 1. The judge's sentences, under both blindings (--seed 0 shows B_PATH first, --seed 1
# A_PATH): each output's from the order that showed it first, then the other's, repeats once.
for seed in 0 1; do
    f="$T/s$seed.json"
    cmp_run "$f" --judge "$T/j.json" --seed "$seed" && ok ||
        bad "compare --seed $seed: $(head -c 300 "$T/err")"
    same "seed $seed: the judge's A" "$(val "$f" '$.judge.positions.A')" \
        "$([ "$seed" = 0 ] && echo B || echo A)"
    same "seed $seed: A_PATH's strengths" "$(val "$f" '$.output_quality.A.strengths')" \
        '["Says ZZALPHA, shown first.","Says ZZALPHA, shown second."]'
    same "seed $seed: A_PATH's weaknesses" "$(val "$f" '$.output_quality.A.weaknesses')" \
        '["Short.","Came second."]'
    same "seed $seed: B_PATH's strengths" "$(val "$f" '$.output_quality.B.strengths')" \
        '["Says ZZBETA, shown first.","Says ZZBETA, shown second."]'
    same "seed $seed: B_PATH's weaknesses" "$(val "$f" '$.output_quality.B.weaknesses')" \
        '["Short.","Came second."]'
    # --rubric: the task's criterion, told to the judge with its description; the seed's gone.
    same "seed $seed: the rubric's criterion" "$(val "$f" '$.rubric.A.content.clarity')" 3
    same "seed $seed: no default criterion" "$(val "$f" '$.rubric.A.content.correctness')" ""
done
grep -q -- '- clarity: Is it easy to follow?' "$T/judge.sh.log" && ok ||
    bad "the judge was not told the --rubric criterion"
grep -q 'strengths and its weaknesses' "$T/judge.sh.log" && ok ||
    bad "the judge was not asked for strengths and weaknesses"

# One order only ("swap": false; seed 0 shows B_PATH first): each output has that order's.
cmp_run "$T/one.json" --judge "$T/j1.json" && ok || bad "compare, one order: $(cat "$T/err")"
same "one order: A_PATH's strengths" "$(val "$T/one.json" '$.output_quality.A.strengths')" \
    '["Says ZZALPHA, shown second."]'
same "one order: B_PATH's weaknesses" "$(val "$T/one.json" '$.output_quality.B.weaknesses')" \
    '["Short."]'

# 2. --no-feedback (and "feedback": false in the config): not asked, and the sentences are
# built from the checks; the rubric's middling scores make none.
printf '[{"id": "cites", "text": "cites a source", "check": {"op": "contains", "expected": "http"}}]' \
    >"$T/e.json"
: >"$T/judge.sh.log"
for how in --no-feedback config; do
    if [ "$how" = config ]; then
        cmp_run "$T/nf.json" --judge "$T/j0.json" --expectations "$T/e.json"
    else
        cmp_run "$T/nf.json" --judge "$T/j.json" --no-feedback --expectations "$T/e.json"
    fi
    [ $? = 0 ] && ok || bad "compare, $how: $(head -c 300 "$T/err")"
    same "$how: A_PATH's strengths" "$(val "$T/nf.json" '$.output_quality.A.strengths')" \
        '["Meets 1 of 1 expectation: '"'"'cites a source'"'"'."]'
    same "$how: B_PATH's weaknesses" "$(val "$T/nf.json" '$.output_quality.B.weaknesses')" \
        '["Passes 0 of 1 expectation; fails '"'"'cites a source'"'"' (contains: expected \"http\")."]'
done
if grep -q 'feedback\|strengths' "$T/judge.sh.log"; then
    bad "a request without feedback asked for it"
else
    ok
fi

# 3. No judge: the checks decide, and their sentences name the criterion with its check and
# description, never the bare id.
cat >"$T/rc.json" <<'JSON'
{"content": [{"name": "mentions_alpha", "description": "Names the alpha marker.",
              "check": {"op": "contains", "expected": "ZZALPHA"}}],
 "structure": []}
JSON
expect_cmd "compare without a judge" 0 "winner: A (decided)" "" -- \
    $ARB compare --task "Capital?" --rubric "$T/rc.json" --expectations "$T/e.json" \
    "$T/o/alpha.txt" "$T/o/beta.txt" -o "$T/nj.json"
same "no judge: A_PATH's strengths" "$(val "$T/nj.json" '$.output_quality.A.strengths')" \
    '["Scores 5 of 5 on mentions_alpha (check: contains: expected \"ZZALPHA\"): Names the alpha marker.","Meets 1 of 1 expectation: '"'"'cites a source'"'"'."]'
same "no judge: B_PATH's weaknesses" "$(val "$T/nj.json" '$.output_quality.B.weaknesses')" \
    '["Scores 1 of 5 on mentions_alpha (check: contains: expected \"ZZALPHA\"): Names the alpha marker.","Passes 0 of 1 expectation; fails '"'"'cites a source'"'"' (contains: expected \"http\")."]'
same "no judge: overall_score" "$(val "$T/nj.json" '$.rubric.A.overall_score')" 5

# 4. --rubric errors are the file's, located in it; nothing is written.
printf '{"content": [{"name": "x", "check": {"op": "nosuchop"}}]}' >"$T/bad1.json"
expect_cmd "--rubric with a bad check" 2 "" "$T/bad1.json:1:44: /content/0/check/op: unknown operator" -- \
    $ARB compare --task "Capital?" --rubric "$T/bad1.json" "$T/o/alpha.txt" "$T/o/beta.txt" \
    -o "$T/bad.json"
printf '[{"name": "x"}]' >"$T/bad2.json"
expect_cmd "--rubric not an object" 2 "" "--rubric $T/bad2.json: expected a JSON object" -- \
    $ARB compare --task "Capital?" --rubric "$T/bad2.json" "$T/o/alpha.txt" "$T/o/beta.txt" \
    -o "$T/bad.json"
printf '{"content": [{"name": "x"}], "contents": []}' >"$T/bad3.json"
expect_cmd "--rubric with an unknown member" 2 "" "$T/bad3.json:" -- \
    $ARB compare --task "Capital?" --rubric "$T/bad3.json" "$T/o/alpha.txt" "$T/o/beta.txt" \
    -o "$T/bad.json"
[ ! -e "$T/bad.json" ] && ok || bad "a comparison was written for a bad --rubric"

# 5. A run's judge config without "feedback" asks exactly what it asked before: the same
# requests (cache keys) and judge hash as "feedback": false; "feedback": true asks otherwise.
mkdir -p "$T/run"
printf '{"id": "c1", "output": "Paris."}\n' >"$T/run/one.jsonl"
printf '{"id": "c1", "output": "Lyon."}\n' >"$T/run/two.jsonl"
printf '{"name": "fb", "task": "Capital of France?", "systems": {"one": "one.jsonl", "two": "two.jsonl"}, "cases": [{"id": "c1"}]}\n' \
    >"$T/run/suite.json"
export ARB_TEST_JUDGE_KEY=compare-feedback-key
start_sim
for fb in none false true; do
    extra=
    [ "$fb" = none ] || extra=", \"feedback\": $fb"
    printf '{"provider": "openai", "base_url": "http://127.0.0.1:%s/v1", "model": "sim-1", "api_key_env": "ARB_TEST_JUDGE_KEY"%s}' \
        "$PORT" "$extra" >"$T/run/j-$fb.json"
    $ARB run "$T/run/suite.json" --judge "$T/run/j-$fb.json" --db "$T/run/$fb.db" \
        >"$T/run/$fb.out" 2>"$T/run/$fb.err" && ok || bad "run, feedback $fb: $(cat "$T/run/$fb.err")"
    sqlite3 "$T/run/$fb.db" "SELECT key FROM judge_calls ORDER BY key" >"$T/run/$fb.keys"
    sqlite3 "$T/run/$fb.db" "SELECT json_extract(judge_json, '$.hash') FROM runs" >"$T/run/$fb.hash"
done
[ -s "$T/run/none.keys" ] && cmp -s "$T/run/none.keys" "$T/run/false.keys" &&
    cmp -s "$T/run/none.hash" "$T/run/false.hash" && ok ||
    bad "\"feedback\": false changed the requests or the judge hash"
if cmp -s "$T/run/none.keys" "$T/run/true.keys" || cmp -s "$T/run/none.hash" "$T/run/true.hash"; then
    bad "\"feedback\": true asked the same requests under the same hash"
else
    ok
fi
n=$(sqlite3 "$T/run/none.db" "SELECT count(*) FROM judge_calls WHERE request_json LIKE '%feedback%' OR request_json LIKE '%strengths%'")
same "requests without feedback that mention it" "$n" 0
n=$(sqlite3 "$T/run/true.db" "SELECT count(*) FROM judge_calls WHERE request_json LIKE '%\"feedback\"%'")
same "requests with feedback that ask for it" "$n" 2

test_done
