#!/bin/sh
# The statistical strategy's figures (issue 19): the bootstrap median beside each interval,
# a mean latency per system with its interval, the one-line significance reasoning per pair;
# the trials' quality and performance (the seed's avgScore... and latency p50...), and
# pass@1 = pass^1 in markdown and HTML as in JSON.
# usage: tests/cli/statistical.sh path/to/arbiter
. "$(dirname "$0")/lib.sh"
ARB="$1"
val() { sqlite3 :memory: "SELECT json_extract(readfile('$1'), '$2')"; }
is() { got=$(val "$J" "$1"); [ "$got" = "$2" ] && ok || bad "$1 = '$got', expected '$2'"; }
near() {
    got=$(val "$J" "$1")
    awk -v g="$got" -v e="$2" 'BEGIN { exit !(g != "" && (g - e) < 1e-6 && (e - g) < 1e-6) }' &&
        ok || bad "$1 = '$got', expected $2"
}
# lo <= x <= hi for $1 (an interval) and $2 (a number)
within() {
    awk -v iv="$(val "$J" "$1")" -v x="$(val "$J" "$2")" 'BEGIN {
        gsub(/[][]/, "", iv); split(iv, b, ","); exit !(x != "" && b[1] + 0 <= x + 0 && x + 0 <= b[2] + 0) }' &&
        ok || bad "$2 = $(val "$J" "$2") outside $1 = $(val "$J" "$1")"
}
schema() {
    $ARB check '{"op":"json_schema","expected_file":"schemas/report.schema.json"}' \
        --observed-file "$J" | grep -q '"verdict":"pass"' && ok || bad "schema: $J"
}

# suite DIR: 20 cases c00..c19, a rubric criterion "right" (exact "ok": 5, else 1).
suite() {
    mkdir -p "$1"
    printf '{"name": "st", "seed": 3, "systems": {"a": "a.jsonl", "b": "b.jsonl"}, "rubric": {"content": [{"name": "right", "check": {"op": "exact", "expected": "ok"}}], "structure": []}, "cases": "cases.jsonl"}\n' >"$1/suite.json"
    : >"$1/cases.jsonl"
    : >"$1/a.jsonl"
    : >"$1/b.jsonl"
}

# 1. a always "ok" (score 5) in 1000 + 10i ms; b "ok" on even cases only, in 2000 ms
# (timing.total).  a beats b on the 10 odd cases: sign test p = 2/2^10 = 0.00195; a's score
# interval is [5, 5], b's mean 3 with an interval below 5: the intervals separate.  a's mean
# latency is 1000 + 10 * 9.5 = 1095 ms; b's 2000 exactly, interval [2000, 2000].
D="$T/sep"
suite "$D"
i=0
while [ $i -lt 20 ]; do
    printf '{"id":"c%02d"}\n' $i >>"$D/cases.jsonl"
    printf '{"id":"c%02d","output":"ok","duration":%d}\n' $i $((1000 + 10 * i)) >>"$D/a.jsonl"
    if [ $((i % 2)) -eq 0 ]; then o=ok; else o=no; fi
    printf '{"id":"c%02d","output":"%s","timing":{"total":2000}}\n' $i $o >>"$D/b.jsonl"
    i=$((i + 1))
done
$ARB run "$D/suite.json" --db "$T/sep.db" >/dev/null 2>&1 || bad "sep run"
J="$T/sep.json"
$ARB report 1 --db "$T/sep.db" --format json --strategy statistical -o "$J" || bad "sep report"
schema
near '$.systems[0].latency_ms.mean' 1095
is '$.systems[0].latency_ms.cases' 20
is '$.systems[1].latency_ms.mean' 2000
is '$.systems[1].intervals.latency_ms' '[2000,2000]'
is '$.systems[1].bootstrap_median.latency_ms' 2000
within '$.systems[0].intervals.latency_ms' '$.systems[0].bootstrap_median.latency_ms'
within '$.systems[0].intervals.latency_ms' '$.systems[0].latency_ms.mean'
is '$.systems[0].bootstrap_median.overall_score' 5
near '$.systems[1].overall_score' 3
within '$.systems[1].intervals.overall_score' '$.systems[1].bootstrap_median.overall_score'
within '$.systems[0].intervals.win_rate' '$.systems[0].bootstrap_median.win_rate'
# Two systems: b's win rate is 1 - a's, resample by resample, so is its median.
awk -v a="$(val "$J" '$.systems[0].bootstrap_median.win_rate')" \
    -v b="$(val "$J" '$.systems[1].bootstrap_median.win_rate')" \
    'BEGIN { d = a + b - 1; exit !(a != "" && d < 1e-9 && -d < 1e-9) }' && ok ||
    bad "medians of the win rates do not sum to 1"
is '$.pairs[0].significant' 1
is '$.pairs[0].intervals_separate' 1
# The paired difference is 4 on half the cases: its mean 2, the median of its resamples too
# (a resample's mean is 4 x a Binomial(20, 1/2) share: symmetric about 2).
near '$.pairs[0].paired_bootstrap.mean_diff' 2
is '$.pairs[0].paired_bootstrap.median' 2
hi=$(sqlite3 :memory: "SELECT printf('%.2f', json_extract(readfile('$J'), '\$.systems[1].intervals.overall_score[1]'))")
is '$.pairs[0].reasoning' "a's lower bound 5.00 > b's upper bound $hi; paired tests p = 0.002 (sign), 0.000 (bootstrap): a better"
$ARB report 1 --db "$T/sep.db" --strategy statistical >"$T/sep.md" || bad "sep markdown"
grep -q "^| a | 75.0% | 75.0% | \[[0-9.]*%, [0-9.]*%\] | - | - | - | 5.00 | 5.00 | \[5.00, 5.00\] | 1095 | 1[01][0-9][0-9] | \[1[01][0-9][0-9], 1[01][0-9][0-9]\] |$" "$T/sep.md" &&
    grep -q '^| b | 25.0% | 25.0% | .* | 3.00 | 3.00 | \[.*\] | 2000 | 2000 | \[2000, 2000\] |$' "$T/sep.md" &&
    ok || bad "markdown statistics rows: $(grep '^| [ab] |' "$T/sep.md" | head -2)"
grep -q '^| a | b | 10 | 0 | 10 | 0.0020 | 2.000 | 2.000 | \[[0-9.]*, [0-9.]*\] | 0.0000 | yes | yes |$' "$T/sep.md" &&
    ok || bad "markdown pairs row: $(grep '^| a | b |' "$T/sep.md")"
grep -qF -- "- a vs b: a's lower bound 5.00 > b's upper bound $hi; paired tests p = 0.002 (sign), 0.000 (bootstrap): a better" "$T/sep.md" &&
    ok || bad "markdown reasoning: $(grep -A3 'Significance per pair' "$T/sep.md")"
$ARB report 1 --db "$T/sep.db" --strategy statistical --format html -o "$T/sep.html" || bad "sep html"
grep -q 'id="stats-table"' "$T/sep.html" &&
    grep -qF '2000<br><span class="ci">median 2000</span><br><span class="ci">2000 &ndash; 2000</span>' "$T/sep.html" &&
    grep -qF "<li><strong>a vs b</strong>: a&#39;s lower bound 5.00 &gt; b&#39;s upper bound $hi;" "$T/sep.html" &&
    grep -qF '2.000 <span class="ci">median 2.000</span>' "$T/sep.html" &&
    ok || bad "html statistics card: $(grep -A12 'id="stats-table"' "$T/sep.html")"
# Without the strategy: no intervals, no medians, no reasoning.
$ARB report 1 --db "$T/sep.db" --format json -o "$T/plain.json" || bad "plain report"
[ "$(val "$T/plain.json" '$.systems[0].bootstrap_median')" = "" ] &&
    [ "$(val "$T/plain.json" '$.pairs')" = "" ] && ok || bad "medians without the strategy"

# 2. b fails one case only: the intervals overlap and the paired tests find nothing (1 win
# to 0: sign test p = 1; the bootstrap's difference is 0 in a resample without that case,
# which has chance 0.95^20 = 0.358, so p is near 2 * 0.358 = 0.717).
D="$T/overlap"
suite "$D"
i=0
while [ $i -lt 20 ]; do
    printf '{"id":"c%02d"}\n' $i >>"$D/cases.jsonl"
    printf '{"id":"c%02d","output":"ok"}\n' $i >>"$D/a.jsonl"
    if [ $i -eq 7 ]; then o=no; else o=ok; fi
    printf '{"id":"c%02d","output":"%s"}\n' $i $o >>"$D/b.jsonl"
    i=$((i + 1))
done
$ARB run "$D/suite.json" --db "$T/overlap.db" >/dev/null 2>&1 || bad "overlap run"
J="$T/overlap.json"
$ARB report 1 --db "$T/overlap.db" --format json --strategy statistical -o "$J" || bad "overlap report"
lo=$(sqlite3 :memory: "SELECT printf('%.2f', json_extract(readfile('$J'), '\$.systems[1].intervals.overall_score[0]'))")
bp=$(sqlite3 :memory: "SELECT printf('%.3f', json_extract(readfile('$J'), '\$.pairs[0].paired_bootstrap.p'))")
case "$bp" in 0.6[5-9]? | 0.7[0-8]?) ok ;; *) bad "bootstrap p $bp, expected near 0.717" ;; esac
is '$.pairs[0].significant' 0
is '$.pairs[0].intervals_separate' 0
is '$.pairs[0].reasoning' "intervals overlap (a 5.00-5.00 vs b $lo-5.00); paired tests p = 1.000 (sign), $bp (bootstrap): no significant difference"
is '$.systems[0].latency_ms.mean' ''
is '$.systems[0].latency_ms.cases' 0
is '$.systems[0].intervals.latency_ms' ''

# 3. Scores that differ in the same direction case by case: a "ok" on 14 cases, b on 8 of
# those: a wins 6, loses none (sign test p = 2/2^6 = 0.03125); the paired bootstrap agrees,
# yet the two score intervals (means 3.8 and 2.6) overlap: significant, and the line says both.
D="$T/paired"
suite "$D"
i=0
while [ $i -lt 20 ]; do
    printf '{"id":"c%02d"}\n' $i >>"$D/cases.jsonl"
    if [ $i -lt 14 ]; then o=ok; else o=no; fi
    printf '{"id":"c%02d","output":"%s"}\n' $i $o >>"$D/a.jsonl"
    if [ $i -lt 8 ]; then o=ok; else o=no; fi
    printf '{"id":"c%02d","output":"%s"}\n' $i $o >>"$D/b.jsonl"
    i=$((i + 1))
done
$ARB run "$D/suite.json" --db "$T/paired.db" >/dev/null 2>&1 || bad "paired run"
J="$T/paired.json"
$ARB report 1 --db "$T/paired.db" --format json --strategy statistical -o "$J" || bad "paired report"
near '$.pairs[0].sign_test_p' 0.03125
is '$.pairs[0].significant' 1
is '$.pairs[0].intervals_separate' 0
val "$J" '$.pairs[0].reasoning' |
    grep -q '^intervals overlap (a [0-9.]*-[0-9.]* vs b [0-9.]*-[0-9.]*); paired tests p = 0.031 (sign), 0.0[0-4][0-9] (bootstrap): a better (the paired tests compare case by case, though the intervals overlap)$' &&
    ok || bad "paired reasoning: $(val "$J" '$.pairs[0].reasoning')"

# Three systems: each Bradley-Terry rating has the median of its resampled ratings too.
$ARB run tests/data/three/suite.json --db "$T/three.db" >/dev/null 2>&1 || bad "three run"
J="$T/three.json"
$ARB report 1 --db "$T/three.db" --format json --strategy statistical -o "$J" || bad "three report"
schema
for i in 0 1 2; do
    within "\$.bradley_terry[$i].interval" "\$.bradley_terry[$i].bootstrap_median"
done
$ARB report 1 --db "$T/three.db" --strategy statistical >"$T/three.md" || bad "three markdown"
grep -q '^| a | [0-9.-]* | [0-9.-]* | \[[0-9.-]*, [0-9.-]*\] |$' "$T/three.md" && ok ||
    bad "markdown Bradley-Terry row: $(grep -A5 'Bradley-Terry' "$T/three.md")"

# 4. Trials with capture fields.  a: c1 trials in 100 and 200 ms scored 0.2 and 0.4, c2 in
# 300 and 400 ms scored 0.6 and 1.0 (score.score).  By hand, as numpy.percentile (linear):
#   durations 100 200 300 400: p50 250, p90 = 300 + 0.7 * 100 = 370, p99 = 397, mean 250,
#   min 100, max 400, total 1000;
#   scores 0.2 0.4 0.6 1.0: mean 0.55, median 0.5, p25 = 0.2 + 0.75 * 0.2 = 0.35,
#   p75 = 0.6 + 0.25 * 0.4 = 0.7.
# c: no capture fields; its trials' scores are their checks' shares: c1 "ok" 1, "no" 0; c2
# "ok" 1, "ok" 1: mean 0.75, sorted 0 1 1 1: median 1, p25 0.75, p75 1.
D="$T/trials"
mkdir -p "$D"
printf '{"name": "tr", "seed": 5, "systems": {"a": "a.jsonl", "c": "c.jsonl"}, "expectations": [{"id": "ok", "text": "says ok", "check": {"op": "contains", "expected": "ok"}}], "cases": "cases.jsonl"}\n' >"$D/suite.json"
printf '{"id":"c1"}\n{"id":"c2"}\n' >"$D/cases.jsonl"
printf '%s\n' '{"id":"c1","output":"ok","trial":0,"duration":100,"score":{"pass":false,"score":0.2}}' \
    '{"id":"c1","output":"no","trial":1,"duration":200,"score":{"pass":false,"score":0.4}}' \
    '{"id":"c2","output":"ok","trial":0,"timing":{"total":300},"score":{"pass":true,"score":0.6}}' \
    '{"id":"c2","output":"ok","trial":1,"duration":400,"score":{"pass":true,"score":1.0}}' >"$D/a.jsonl"
printf '%s\n' '{"id":"c1","output":"ok","trial":0}' '{"id":"c1","output":"no","trial":1}' \
    '{"id":"c2","output":"ok","trial":0}' '{"id":"c2","output":"ok","trial":1}' >"$D/c.jsonl"
$ARB run "$D/suite.json" --db "$T/tr.db" >/dev/null 2>&1 || bad "trials run"
J="$T/tr.json"
$ARB report 1 --db "$T/tr.db" --format json -o "$J" || bad "trials report"
schema
P='$.trials.systems[0].performance'
near "$P.latency.p50" 250
near "$P.latency.p90" 370
near "$P.latency.p99" 397
near "$P.latency.mean" 250
near "$P.latency.min" 100
near "$P.latency.max" 400
near "$P.totalDuration" 1000
is "$P.trials" 4
Q='$.trials.systems[0].quality'
near "$Q.avgScore" 0.55
near "$Q.medianScore" 0.5
near "$Q.p25Score" 0.35
near "$Q.p75Score" 0.7
is "$Q.scores_from.output" 4
is "$Q.confidenceIntervals" ''
Q='$.trials.systems[1].quality'
near "$Q.avgScore" 0.75
near "$Q.medianScore" 1
near "$Q.p25Score" 0.75
near "$Q.p75Score" 1
is "$Q.scores_from.checks" 4
is '$.trials.systems[1].performance.trials' 0
is '$.trials.systems[1].performance.latency.p50' ''
$ARB report 1 --db "$T/tr.db" >"$T/tr.md" || bad "trials markdown"
grep -q '^| a | 4 | 0.550 | - | - | 0.500 | 0.350 | 0.700 |$' "$T/tr.md" &&
    grep -q '^| c | 4 | 0.750 | - | - | 1.000 | 0.750 | 1.000 |$' "$T/tr.md" &&
    grep -q '^| a | 4 | 250 | - | - | 250 | 370 | 397 | 100 | 400 | 1000 |$' "$T/tr.md" &&
    grep -q '^| c | 0 | - | - | - | - | - | - | - | - | - |$' "$T/tr.md" &&
    ok || bad "markdown quality and performance: $(sed -n '/Quality of the trials/,/## Judge/p' "$T/tr.md")"
# With the strategy: the avgScore and latencyMean intervals and medians (seed names).
J="$T/trs.json"
$ARB report 1 --db "$T/tr.db" --format json --strategy statistical -o "$J" || bad "trials statistical"
schema
within "$P.confidenceIntervals.latencyMean" "$P.bootstrapMedian.latencyMean"
# The statistics' latency is the compared outputs' (each case's lowest trial): (100 + 300) / 2.
near '$.systems[0].latency_ms.mean' 200
is '$.systems[0].latency_ms.cases' 2
within "$P.confidenceIntervals.latencyMean" "$P.latency.mean"
Q='$.trials.systems[0].quality'
within "$Q.confidenceIntervals.avgScore" "$Q.bootstrapMedian.avgScore"
within "$Q.confidenceIntervals.avgScore" "$Q.avgScore"
within '$.trials.systems[0].k[0]."pass@k_ci"' '$.trials.systems[0].k[0]."pass@k_bootstrap_median"'
$ARB report 1 --db "$T/tr.db" --strategy statistical --format html -o "$T/tr.html" || bad "trials html"
grep -q 'id="trials-quality"' "$T/tr.html" && grep -q 'id="trials-performance"' "$T/tr.html" &&
    grep -q '<td class="n">370</td><td class="n">397</td>' "$T/tr.html" && ok ||
    bad "html quality and performance tables"

# 5. pass@1 and pass^1 get the same figure, median and interval in markdown and HTML too
# (20 cases of 3 trials passing 0 to 3 times).
D="$T/many"
mkdir -p "$D"
printf '{"name": "many", "seed": 1, "systems": {"a": "a.jsonl", "b": "b.jsonl"}, "expectations": [{"id": "ok", "text": "says ok", "check": {"op": "contains", "expected": "ok"}}], "cases": "cases.jsonl"}\n' >"$D/suite.json"
i=0
while [ $i -lt 20 ]; do
    printf '{"id":"m%d"}\n' $i >>"$D/cases.jsonl"
    printf '{"id":"m%d","output":"ok"}\n' $i >>"$D/b.jsonl"
    for t in 0 1 2; do
        if [ $t -lt $((i % 4)) ]; then o=ok; else o=no; fi
        printf '{"id":"m%d","output":"%s","trial":%d}\n' $i $o $t >>"$D/a.jsonl"
    done
    i=$((i + 1))
done
$ARB run "$D/suite.json" --db "$T/m.db" >/dev/null 2>&1 || bad "run of 20 cases"
$ARB report 1 --db "$T/m.db" --strategy statistical >"$T/m.md" || bad "markdown of 20 cases"
row=$(grep '^| a | 20 | 60 | 1 | 20 |' "$T/m.md")
at=$(printf '%s\n' "$row" | awk -F' [|] ' '{ print $6 " " $7 " " $8 }')
hat=$(printf '%s\n' "$row" | awk -F' [|] ' '{ print $9 " " $10 " " $11 }')
[ -n "$row" ] && [ "$at" = "${hat% |}" ] && case "$at" in *"["*) true ;; *) false ;; esac && ok ||
    bad "markdown pass@1 '$at' vs pass^1 '$hat'"
$ARB report 1 --db "$T/m.db" --strategy statistical --format html -o "$T/m.html" || bad "html of 20 cases"
# The k = 1 row: its pass@k and pass^k cells, each value, median and interval, are the same.
awk '/id="trials-table"/ { on = 1 } on && /<td class="n">1<\/td><td class="n">20<\/td>/ { print; exit }' "$T/m.html" |
    sed 's|</td><td class="n">|\n|g' | sed -n '4,5p' >"$T/k1.txt"
[ "$(wc -l <"$T/k1.txt")" -eq 2 ] && [ "$(sed -n 1p "$T/k1.txt")" = "$(sed -n 2p "$T/k1.txt" | sed 's|</td></tr>$||')" ] &&
    grep -q 'median' "$T/k1.txt" && ok || bad "html pass@1 vs pass^1: $(cat "$T/k1.txt")"

test_done
