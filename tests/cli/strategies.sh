#!/bin/sh
# Report strategies (seeds/comparison-graders.md): custom graders (a program ranks each case's
# runs: its stdin JSON, its answer, its failures), hybrid (weighted and custom together),
# weighted quality from the outputs' prior grader scores, and weights that do not sum to 1.
# usage: tests/cli/strategies.sh path/to/arbiter [path/to/judge_sim]
. "$(dirname "$0")/lib.sh"
ARB="$1"
# jq-free: SQLite's JSON functions read the reports
val() { sqlite3 :memory: "SELECT json_extract(readfile('$1'), '$2')"; }
near() { # what got expected
    awk -v g="$2" -v e="$3" 'BEGIN { exit !(g != "" && (g - e) < 1e-6 && (e - g) < 1e-6) }' &&
        ok || bad "$1 = '$2', expected $3"
}

# Three cases; a's outputs carry a prior grader score (score.score, as agent-eval capture
# files do) and durations, b's only one score (so quality is the rubric's for both) and a tool
# error on c2.
S="$T/s"
mkdir -p "$S"
printf '{"name": "strat", "seed": 1, "systems": {"a": "a.jsonl", "b": "b.jsonl"}, "expectations": [{"id": "total", "text": "mentions a total", "check": {"op": "icontains", "expected": "total"}}], "cases": "cases.jsonl"}\n' >"$S/suite.json"
cat >"$S/cases.jsonl" <<'EOF'
{"id":"c1","prompt":"Sum the invoice","expected":"total 5"}
{"id":"c2","prompt":"Sum it again","expected":{"total":7}}
{"id":"c3"}
EOF
cat >"$S/a.jsonl" <<'EOF'
{"id":"c1","output":"total 5","score":{"pass":true,"score":0.9},"duration":100,"trajectory":[{"type":"tool_call","name":"sum"}]}
{"id":"c2","output":"total 7","score":{"pass":true,"score":0.6},"duration":100}
{"id":"c3","output":"total 1","score":{"pass":false,"score":0.3},"duration":100}
EOF
cat >"$S/b.jsonl" <<'EOF'
{"id":"c1","output":"five","score":{"pass":false,"score":0.1},"duration":200}
{"id":"c2","output":"total seven","duration":200,"toolErrors":["timeout"]}
{"id":"c3","output":"one","duration":200}
EOF
$ARB run "$S/suite.json" --db "$T/t.db" >/dev/null 2>&1 || bad "run"

# ---- graders, as small sh programs -------------------------------------------------------
G="$T/g"
mkdir -p "$G"
# good: keeps its input, says something on stderr, ranks a first
cat >"$G/good.sh" <<EOF
#!/bin/sh
cat >"$T/last-input.json"
id=\$(sed 's/^{"id":"\\([^"]*\\)".*/\\1/' "$T/last-input.json")
echo "grader looked at \$id" >&2
printf '{"rankings":[{"run":"a","rank":1,"score":0.8},{"run":"b","rank":2,"score":0.4}],"reasoning":"a totals %s; b | does not"}\n' "\$id"
EOF
printf '#!/bin/sh\ncat >/dev/null\nprintf %s\n' "'{\"rankings\": ['" >"$G/malformed.sh"
printf '#!/bin/sh\ncat >/dev/null\necho %s\n' "'{\"rankings\":[{\"run\":\"a\",\"rank\":1}]}'" >"$G/missing.sh"
printf '#!/bin/sh\ncat >/dev/null\necho %s\n' "'{\"ranking\":[]}'" >"$G/norankings.sh"
printf '#!/bin/sh\ncat >/dev/null\necho %s\n' "'{\"rankings\":[{\"run\":\"zz\",\"rank\":1,\"score\":0.5}]}'" >"$G/unknown.sh"
printf '#!/bin/sh\ncat >/dev/null\necho %s\n' "'{\"rankings\":[{\"run\":\"a\",\"rank\":1,\"score\":1.5}]}'" >"$G/range.sh"
printf '#!/bin/sh\ncat >/dev/null\necho "cannot grade" >&2\nexit 3\n' >"$G/nonzero.sh"
printf '#!/bin/sh\ncat >/dev/null\n' >"$G/empty.sh"
printf '#!/bin/sh\nsleep 30\n' >"$G/slow.sh"
# huge: writes 300 kB (more than a pipe holds) before it reads a byte, then counts its input
cat >"$G/huge.sh" <<EOF
#!/bin/sh
head -c 300000 /dev/zero | tr '\\000' ' '
printf '{"rankings":[{"run":"b","rank":1,"score":1},{"run":"a","rank":2,"score":0}]}\n'
wc -c >>"$T/huge-count"
EOF
cp "$G/good.sh" "$G/good grader.sh"
chmod +x "$G"/*.sh

R="$ARB report 1 --db $T/t.db"

# ---- custom: a good grader ---------------------------------------------------------------
expect_cmd "custom with a good grader" 0 "" "grader looked at c3" -- \
    $R --strategy custom --grader "sh $G/good.sh" --format json -o "$T/c.json"
[ "$(grep -c 'grader looked at' "$T/err")" = 3 ] && ok || bad "grader stderr passes through, once per case"
[ "$(val "$T/c.json" '$.custom.grader')" = "[\"sh\",\"$G/good.sh\"]" ] && ok ||
    bad "custom.grader: $(val "$T/c.json" '$.custom.grader')"
[ "$(val "$T/c.json" '$.custom.cases[0].case')" = c1 ] &&
    [ "$(val "$T/c.json" '$.custom.cases[2].reasoning')" = "a totals c3; b | does not" ] &&
    [ "$(val "$T/c.json" '$.custom.cases[1].rankings[1].run')" = b ] && ok ||
    bad "custom.cases: $(val "$T/c.json" '$.custom.cases')"
near "a's mean grader score" "$(val "$T/c.json" '$.custom.systems[0].mean_score')" 0.8
near "b's mean rank" "$(val "$T/c.json" '$.custom.systems[1].mean_rank')" 2
near "a ranked first" "$(val "$T/c.json" '$.custom.systems[0].firsts')" 3
near "timeout default" "$(val "$T/c.json" '$.custom.timeout_s')" 60
# The grader's input is the seed's ComparisonGraderInput (last case: c3, no prompt).
I="$T/last-input.json"
[ "$(val "$I" '$.id')" = c3 ] && [ "$(val "$I" '$.input')" = "" ] &&
    [ "$(val "$I" '$.runs.a.output')" = "total 1" ] && [ "$(val "$I" '$.runs.b.output')" = one ] &&
    [ "$(val "$I" '$.runs.a.score.score')" = 0.3 ] && [ "$(val "$I" '$.runs.a.duration')" = 100 ] &&
    [ "$(val "$I" '$.hint')" = "" ] && ok || bad "grader input of c3: $(cat "$I")"
$R --strategy custom --grader "sh $G/good.sh" --cases c1 --format json -o "$T/c1.json" 2>/dev/null
[ "$(val "$I" '$.id')" = c1 ] && [ "$(val "$I" '$.input')" = "Sum the invoice" ] &&
    [ "$(val "$I" '$.hint')" = "total 5" ] &&
    [ "$(val "$I" '$.runs.a.trajectory[0].name')" = sum ] &&
    [ "$(val "$I" '$.runs.b.score.pass')" = 0 ] && ok || bad "grader input of c1: $(cat "$I")"
$R --strategy custom --grader "sh $G/good.sh" --cases c2 --format json -o "$T/c2.json" 2>/dev/null
[ "$(val "$I" '$.hint')" = '{"total":7}' ] && [ "$(val "$I" '$.runs.b.toolErrors')" = 1 ] &&
    [ "$(val "$I" '$.runs.a.toolErrors')" = "" ] && ok || bad "grader input of c2: $(cat "$I")"
$ARB check '{"op":"json_schema","expected_file":"schemas/report.schema.json"}' \
    --observed-file "$T/c.json" | grep -q '"verdict":"pass"' && ok || bad "custom report fits the schema"
# Words in quotes: a program path with a space in it, no shell.
expect_cmd "quoted grader path" 0 "" "" -- \
    $R --strategy custom --grader "sh '$G/good grader.sh'" --format json -o "$T/q.json"
expect_cmd "markdown shows the rankings and reasoning" 0 "| c3 | 1. a 0.800, 2. b 0.400 | a totals c3; b \\| does not |" "" -- \
    $R --strategy custom --grader "sh $G/good.sh"
grep -q '^## Custom grader (sh ' "$T/out" && grep -q '^| a | 3 | 0.800 | 1.00 | 3 |' "$T/out" && ok ||
    bad "markdown custom table: $(sed -n '/Custom grader/,+6p' "$T/out")"
expect_cmd "html shows the rankings and reasoning" 0 'id="custom-table"' "" -- \
    $R --strategy custom --grader "sh $G/good.sh" --format html
grep -q 'a totals c3; b | does not' "$T/out" && grep -q 'href="#custom"' "$T/out" && ok ||
    bad "html custom cases"

# ---- the grader's command as shown: what looks like a credential is redacted -------------
# An option or NAME=VALUE named like a credential, an HTTP header line, a URL's user-info, and
# anywhere the value of a credential variable of the environment (ARB_GRADER_TOKEN).
SEC="--api-key sk-opt-0001 --token=sk-eq-00002 'Authorization: Bearer sk-hdr-0003' https://u:sk-url-0004@example.com/v1 --model gpt-x sk-env-0005"
SHOWN="[\"sh\",\"$G/good.sh\",\"--api-key\",\"[REDACTED]\",\"--token=[REDACTED]\",\"Authorization: [REDACTED]\",\"https://[REDACTED]@example.com/v1\",\"--model\",\"gpt-x\",\"[REDACTED]\"]"
ARB_GRADER_TOKEN=sk-env-0005 expect_cmd "custom with secrets in its command" 0 "" "" -- \
    $R --strategy custom --grader "sh $G/good.sh $SEC" --format json -o "$T/sec.json"
[ "$(val "$T/sec.json" '$.custom.grader')" = "$SHOWN" ] && ok ||
    bad "custom.grader redacted: $(val "$T/sec.json" '$.custom.grader')"
ARB_GRADER_TOKEN=sk-env-0005 expect_cmd "markdown: the command redacted" 0 "--api-key [REDACTED] --token=[REDACTED]" "" -- \
    $R --strategy custom --grader "sh $G/good.sh $SEC"
cp "$T/out" "$T/sec.md"
ARB_GRADER_TOKEN=sk-env-0005 expect_cmd "html" 0 "" "" -- \
    $R --strategy custom --grader "sh $G/good.sh $SEC" --format html -o "$T/sec.html"
grep -qF "https://[REDACTED]@example.com/v1" "$T/sec.html" && ok || bad "html: the command redacted"
ARB_GRADER_TOKEN=sk-env-0005 expect_cmd "error: the command redacted" 4 "" "--api-key [REDACTED] --token=[REDACTED]" -- \
    $R --strategy custom --grader "sh $G/missing.sh $SEC"
cp "$T/err" "$T/sec.err"
! grep -l 'sk-[a-z]*-000' "$T/sec.json" "$T/sec.md" "$T/sec.html" "$T/sec.err" && ok ||
    bad "a secret of the grader's command reached a report or an error"

# ---- custom: a grader that fails (exit 4, naming the grader, the case and what) ----------
expect_cmd "malformed JSON" 4 "" "grader 'sh $G/malformed.sh', case 'c1': the answer is not JSON" -- \
    $R --strategy custom --grader "sh $G/malformed.sh"
[ ! -s "$T/out" ] && ok || bad "no report after a failed grader"
expect_cmd "missing score" 4 "" "case 'c1': answer /rankings/0/score: missing" -- \
    $R --strategy custom --grader "sh $G/missing.sh"
expect_cmd "missing rankings" 4 "" "answer /rankings: missing (expected an array" -- \
    $R --strategy custom --grader "sh $G/norankings.sh"
expect_cmd "unknown run" 4 "" "answer /rankings/0/run: 'zz' is not one of the case's runs" -- \
    $R --strategy custom --grader "sh $G/unknown.sh"
expect_cmd "score out of range" 4 "" "answer /rankings/0/score: expected a number from 0 to 1" -- \
    $R --strategy custom --grader "sh $G/range.sh"
expect_cmd "nonzero exit" 4 "" "case 'c1': exited with status 3" -- \
    $R --strategy custom --grader "sh $G/nonzero.sh"
grep -q '^cannot grade$' "$T/err" && ok || bad "the failing grader's stderr passes through"
expect_cmd "empty answer" 4 "" "case 'c1': the answer is empty" -- \
    $R --strategy custom --grader "sh $G/empty.sh"
expect_cmd "no such program" 4 "" "grader 'no-such-grader-x', case 'c1': cannot run it: No such file" -- \
    $R --strategy custom --grader no-such-grader-x
start=$(date +%s)
expect_cmd "timeout" 4 "" "grader 'sh $G/slow.sh', case 'c1': timed out after 1 s (killed)" -- \
    $R --strategy custom --grader "sh $G/slow.sh" --grader-timeout 1
[ $(($(date +%s) - start)) -lt 10 ] && ok || bad "the slow grader was not killed at its timeout"

# ---- a large input while the grader writes first: no deadlock -----------------------------
big="$T/big"
mkdir -p "$big"
cp "$S/suite.json" "$S/cases.jsonl" "$big/"
head -c 3000000 /dev/zero | tr '\000' 'x' >"$T/x"
for s in a b; do
    for c in c1 c2 c3; do printf '{"id":"%s","output":"total %s"}\n' $c "$(cat "$T/x")"; done >"$big/$s.jsonl"
done
$ARB run "$big/suite.json" --db "$T/big.db" >/dev/null 2>&1 || bad "run of large outputs"
: >"$T/huge-count"
expect_cmd "huge input, grader writes before reading" 0 "" "" -- \
    $ARB report 1 --db "$T/big.db" --strategy custom --grader "sh $G/huge.sh" --grader-timeout 60 --format json -o "$T/big.json"
[ "$(wc -l <"$T/huge-count")" = 3 ] && [ "$(sort -n "$T/huge-count" | head -1)" -gt 6000000 ] && ok ||
    bad "the grader read all of each input: $(cat "$T/huge-count")"
near "huge: b first" "$(val "$T/big.json" '$.custom.systems[1].firsts')" 3

# ---- usage ---------------------------------------------------------------------------------
expect_cmd "custom needs --grader" 2 "" "--strategy custom needs --grader CMD" -- $R --strategy custom
expect_cmd "--grader needs custom" 2 "" "--grader is for --strategy custom or hybrid" -- \
    $R --grader "sh $G/good.sh"
expect_cmd "--hybrid-weight needs hybrid" 2 "" "--hybrid-weight is for --strategy hybrid" -- \
    $R --strategy custom --grader "sh $G/good.sh" --hybrid-weight 0.3
expect_cmd "unterminated quote" 2 "" "--grader: unterminated ' quote" -- \
    $R --strategy custom --grader "sh '$G/good.sh"
expect_cmd "blank grader" 2 "" "--grader: expected a command" -- $R --strategy custom --grader "  "
expect_cmd "timeout range" 2 "" "--grader-timeout" -- \
    $R --strategy custom --grader "sh $G/good.sh" --grader-timeout 0

# ---- weighted: prior scores, weights ------------------------------------------------------
# One quality source per report: a's outputs all carry a prior score but b's do not (1 of 3),
# so both systems take the rubric's, and a notice names the systems whose scores went unused.
QN="notice: quality is the rubric's for every system: prior grader scores (score.score) came with only some outputs (a 3/3, b 1/3), and one ranking does not mix them with rubric scores"
expect_cmd "weighted" 0 "" "$QN" -- $R --strategy weighted --format json -o "$T/w.json"
[ "$(grep -c notice "$T/err")" = 1 ] && ok || bad "default weights give no weights notice: $(cat "$T/err")"
[ "$(val "$T/w.json" '$.weighted_quality.source')" = rubric ] &&
    [ "$(val "$T/w.json" '$.weighted_quality.notice')" = "${QN#notice: }" ] && ok ||
    bad "weighted_quality: $(val "$T/w.json" '$.weighted_quality')"
[ "$(val "$T/w.json" '$.weighted[0].quality_source')" = rubric ] &&
    [ "$(val "$T/w.json" '$.weighted[0].prior_scores')" = 3 ] && ok || bad "a (3 of 3 scored) from the rubric too"
# No judge ran, so no case has an overall rubric score: quality is null (its term counts 0).
[ "$(val "$T/w.json" '$.systems[0].overall_score')" = "" ] &&
    [ "$(val "$T/w.json" '$.weighted[0].quality')" = "" ] &&
    [ "$(val "$T/w.json" '$.weighted[1].quality')" = "" ] && ok ||
    bad "quality from the rubric (null without a judge): $(val "$T/w.json" '$.weighted')"
qa=0
[ "$(val "$T/w.json" '$.weighted[1].quality_source')" = rubric ] &&
    [ "$(val "$T/w.json" '$.weighted[1].prior_scores')" = 1 ] &&
    [ "$(val "$T/w.json" '$.weighted[1].outputs')" = 3 ] && ok || bad "b (1 of 3 scored) from the rubric"
near "a's weighted score" "$(val "$T/w.json" '$.weighted[0].score')" "$(awk -v q="$qa" 'BEGIN { print q * 0.5 + 1 * 0.3 + 1 * 0.2 }')"
[ "$(val "$T/w.json" '$.weights.normalized')" = 0 ] && ok || bad "weights summing to 1 are not normalized"
$ARB check '{"op":"json_schema","expected_file":"schemas/report.schema.json"}' \
    --observed-file "$T/w.json" | grep -q '"verdict":"pass"' && ok || bad "weighted report fits the schema"
expect_cmd "weighted markdown says where quality came from" 0 "| a | - | rubric (3/3 outputs scored) |" "" -- \
    $R --strategy weighted
grep -q '| b | .* | rubric (1/3 outputs scored) |' "$T/out" && ok || bad "markdown: b from the rubric"
grep -qF "Note: ${QN#notice: }." "$T/out" && ok || bad "markdown: the quality notice"
expect_cmd "weighted html" 0 "rubric (3/3 outputs scored)" "" -- $R --strategy weighted --format html
grep -q 'id="weighted-table"' "$T/out" && grep -qF "Note: quality is the rubric&#39;s for every system" "$T/out" &&
    ok || bad "html weighted table and quality notice: $(grep -o 'Note: [^<]*' "$T/out")"
# Every output of every system scored: quality is the prior scores' for all, and no notice.
P="$T/p"
mkdir -p "$P"
cp "$S/suite.json" "$S/cases.jsonl" "$S/a.jsonl" "$P/"
cat >"$P/b.jsonl" <<'EOF'
{"id":"c1","output":"five","score":{"pass":false,"score":0.2},"duration":200}
{"id":"c2","output":"total seven","score":{"pass":true,"score":0.2},"duration":200}
{"id":"c3","output":"one","score":{"pass":false,"score":0.2},"duration":200}
EOF
$ARB run "$P/suite.json" --db "$T/p.db" >/dev/null 2>&1 || bad "run, every output scored"
expect_cmd "weighted, every output scored" 0 "" "" -- \
    $ARB report 1 --db "$T/p.db" --strategy weighted --format json -o "$T/wp.json"
[ ! -s "$T/err" ] && ok || bad "no notice when every output is scored: $(cat "$T/err")"
[ "$(val "$T/wp.json" '$.weighted_quality.source')" = prior_score ] &&
    [ "$(val "$T/wp.json" '$.weighted_quality.notice')" = "" ] &&
    [ "$(val "$T/wp.json" '$.weighted[0].quality_source')" = prior_score ] &&
    [ "$(val "$T/wp.json" '$.weighted[1].quality_source')" = prior_score ] &&
    [ "$(val "$T/wp.json" '$.weighted[1].prior_scores')" = 3 ] && ok || bad "every output scored: prior scores"
near "a's quality: mean of 0.9, 0.6, 0.3" "$(val "$T/wp.json" '$.weighted[0].quality')" 0.6
near "b's quality: mean of 0.2 x 3" "$(val "$T/wp.json" '$.weighted[1].quality')" 0.2
expect_cmd "markdown, every output scored" 0 "| a | 0.600 | prior score (3/3 outputs scored) |" "" -- \
    $ARB report 1 --db "$T/p.db" --strategy weighted
! grep -q "^Note:" "$T/out" && ok || bad "markdown: no note when every output is scored"
# Without prior scores (the large run's outputs carry none) quality is the rubric's, no notice.
$ARB report 1 --db "$T/big.db" --strategy weighted --format json -o "$T/w2.json" 2>"$T/err2" || bad "weighted, no scores"
[ "$(val "$T/w2.json" '$.weighted[0].quality_source')" = rubric ] &&
    [ "$(val "$T/w2.json" '$.weighted_quality.source')" = rubric ] && [ ! -s "$T/err2" ] &&
    [ "$(val "$T/w2.json" '$.weighted[0].prior_scores')" = 0 ] && ok || bad "no prior scores: rubric"
# Weights not summing to 1: divided by their sum, with a notice on stderr and in the report.
COMPARE_QUALITY=0.7 COMPARE_LATENCY=0.7 COMPARE_RELIABILITY=0.1 \
    expect_cmd "weights summing to 1.5" 0 "" "notice: the weights given (quality 0.7, latency 0.7, reliability 0.1) sum to 1.5, not 1: divided by their sum" -- \
    $R --strategy weighted --format json -o "$T/wn.json"
[ "$(val "$T/wn.json" '$.weights.normalized')" = 1 ] && [ "$(val "$T/wn.json" '$.weights.given.quality')" = 0.7 ] &&
    ok || bad "weights.normalized/given: $(val "$T/wn.json" '$.weights')"
near "normalized quality weight" "$(val "$T/wn.json" '$.weights.quality')" "$(awk 'BEGIN { print 0.7 / 1.5 }')"
near "score with normalized weights" "$(val "$T/wn.json" '$.weighted[0].score')" "$(awk -v q="$qa" 'BEGIN { print (q * 0.7 + 0.7 + 0.1) / 1.5 }')"
COMPARE_QUALITY=0.7 COMPARE_LATENCY=0.7 COMPARE_RELIABILITY=0.1 \
    expect_cmd "markdown notes the normalization" 0 "Note: the weights given" "" -- $R --strategy weighted
COMPARE_QUALITY=0 COMPARE_LATENCY=0 COMPARE_RELIABILITY=0 \
    expect_cmd "weights summing to 0" 2 "" "sum to 0: nothing to weigh" -- $R --strategy weighted

# ---- hybrid ----------------------------------------------------------------------------------
expect_cmd "hybrid" 0 "" "" -- $R --strategy hybrid --grader "sh $G/good.sh" --format json -o "$T/h.json"
wa=$(val "$T/h.json" '$.weighted[0].score')
near "hybrid: a's weighted part" "$(val "$T/h.json" '$.hybrid.systems[0].weighted')" "$wa"
near "hybrid: a's custom part" "$(val "$T/h.json" '$.hybrid.systems[0].custom')" 0.8
near "hybrid: a's score 50/50" "$(val "$T/h.json" '$.hybrid.systems[0].score')" "$(awk -v w="$wa" 'BEGIN { print w * 0.5 + 0.8 * 0.5 }')"
$ARB check '{"op":"json_schema","expected_file":"schemas/report.schema.json"}' \
    --observed-file "$T/h.json" | grep -q '"verdict":"pass"' && ok || bad "hybrid report fits the schema"
expect_cmd "hybrid weight" 0 "" "" -- \
    $R --strategy hybrid --grader "sh $G/good.sh" --hybrid-weight 0.25 --format json -o "$T/h2.json"
wb=$(val "$T/h2.json" '$.weighted[1].score')
near "hybrid 0.25: b's score" "$(val "$T/h2.json" '$.hybrid.systems[1].score')" "$(awk -v w="$wb" 'BEGIN { print w * 0.75 + 0.4 * 0.25 }')"
near "hybrid 0.25: weighted share" "$(val "$T/h2.json" '$.hybrid.weighted_weight')" 0.75
expect_cmd "hybrid markdown" 0 "## Hybrid (weighted x 0.50 + custom grader x 0.50)" "" -- \
    $R --strategy hybrid --grader "sh $G/good.sh"
grep -q '^## Weighted' "$T/out" && grep -q '^## Custom grader' "$T/out" && ok || bad "hybrid shows both parts"
expect_cmd "hybrid html" 0 'id="hybrid-table"' "" -- $R --strategy hybrid --grader "sh $G/good.sh" --format html
expect_cmd "hybrid: a failing grader fails it" 4 "" "answer /rankings/0/score: missing" -- \
    $R --strategy hybrid --grader "sh $G/missing.sh"

test_done
