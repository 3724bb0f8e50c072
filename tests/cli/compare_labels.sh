#!/bin/sh
# arbiter compare against the test judge: one labelling throughout comparison.json (A is A_PATH
# whichever path the blinding showed first, the judge's own positions stated), the paths' names
# kept from the judge, and a fence code of its own for every request.
# usage: tests/cli/compare_labels.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
ARB="$1"
SIM="$2"

val() { sqlite3 :memory: "SELECT json_extract(readfile('$1'), '$2')"; }
typ() { sqlite3 :memory: "SELECT json_type(readfile('$1'), '$2')"; }
same() { # WHAT GOT WANT
    [ "$2" = "$3" ] && ok || bad "$1: '$2', want '$3'"
}

export ARB_TEST_JUDGE_KEY=compare-labels-key-1
start_sim
judge_config() { # FILE: a judge config for the judge start_sim started last
    printf '{"provider": "openai", "base_url": "http://127.0.0.1:%s/v1", "model": "sim-1", %s}' \
        "$PORT" '"api_key_env": "ARB_TEST_JUDGE_KEY"' >"$1"
}
judge_config "$T/judge.json"

# 1. Labels.  The blinding is HMAC-SHA256(seed, "compare"): the default seed 0 shows B_PATH as
# the judge's "Response A" in its first order (swapped), --seed 1 shows A_PATH (not swapped).
# The task's wording is one for which this judge's two orders agree on a winner and its scores
# pick the same one, so the file's winner, judge.winner and scores can be held to each other:
# "(form 8)" is one, found unswapped (where nothing is relabelled); should the prompt change,
# the next such wording is looked for.  (The outputs hold neither a path's name nor
# "first"/"second": what the judge is sent is the same with or without the redaction below.)
L="$T/l"
mkdir -p "$L/zz-alpha-run" "$L/zz-beta-run"
printf 'Paris is the capital of France.\n' >"$L/zz-alpha-run/answer.txt"
printf 'The capital of France is Paris, on the Seine.\n' >"$L/zz-beta-run/answer.txt"
printf '["Names the capital city"]' >"$L/e.json"
labelled() { # FORM OUT [ARG...]
    lf=$1
    lo=$2
    shift 2
    $ARB compare --task "Which city is the capital of France? (form $lf)" \
        --expectations "$L/e.json" --judge "$T/judge.json" "$@" \
        "$L/zz-alpha-run" "$L/zz-beta-run" -o "$lo" >"$T/out" 2>"$T/err"
}
form=
for i in 8 $(seq 1 40); do
    labelled "$i" "$T/u.json" --seed 1 || break
    case $(val "$T/u.json" '$.status'),$(val "$T/u.json" '$.judge.position_inconsistent'),$(
        val "$T/u.json" '$.winner'),$(val "$T/u.json" '$.judge.winner') in
    decided,0,A,A | decided,0,B,B) form=$i; break ;;
    esac
done
if [ -n "$form" ]; then
    ok
else
    bad "no wording gave a consistent judge, unswapped: $(head -c 300 "$T/err")"
fi
labelled "${form:-8}" "$T/s.json" && ok || bad "compare, swapped: $(head -c 300 "$T/err")"
before=$(wc -l <"$T/sim.log" | tr -d ' ')
labelled "${form:-8}" "$T/u.json" --seed 1 && ok ||
    bad "compare, unswapped: $(head -c 300 "$T/err")"
[ "$(wc -l <"$T/sim.log" | tr -d ' ')" = $((before + 2)) ] && ok ||
    bad "the unswapped comparison did not ask both orders"

# The swapped comparison agrees with itself: the winner is the judge's winner and the side
# with the higher overall score, and each side's quality score is its rubric's.
f="$T/s.json"
same "swapped: systems.A" "$(val "$f" '$.systems.A')" "$L/zz-alpha-run"
same "swapped: status" "$(val "$f" '$.status')" decided
same "swapped: the judge's orders agree" "$(val "$f" '$.judge.position_inconsistent')" 0
w=$(val "$f" '$.winner')
jw=$(val "$f" '$.judge.winner')
sa=$(val "$f" '$.rubric.A.overall_score')
sb=$(val "$f" '$.rubric.B.overall_score')
by_score=$(awk -v a="$sa" -v b="$sb" 'BEGIN { print (a > b ? "A" : a < b ? "B" : "TIE") }')
# output_quality.score: the overall score as a whole 1-10 rating (the seed's 5.4 is a 5)
whole() { awk -v x="$1" 'BEGIN { printf "%d", x + 0.5 }'; }
{ [ "$w" = "$jw" ] && [ "$w" = "$by_score" ] &&
    [ "$(val "$f" '$.output_quality.A.score')" = "$(whole "$sa")" ] &&
    [ "$(val "$f" '$.output_quality.B.score')" = "$(whole "$sb")" ]; } && ok ||
    bad "swapped: comparison.json contradicts itself: winner $w, judge.winner $jw," \
        "overall A $sa B $sb"
same "swapped: the judge's A is B_PATH" "$(val "$f" '$.judge.positions.A')" B
same "swapped: the judge's B is A_PATH" "$(val "$f" '$.judge.positions.B')" A

# The unswapped comparison states the other mapping and says the same about each path: the
# judge was asked the same two questions, only in the other order.
f="$T/u.json"
same "unswapped: the judge's A is A_PATH" "$(val "$f" '$.judge.positions.A')" A
same "unswapped: the judge's B is B_PATH" "$(val "$f" '$.judge.positions.B')" B
for m in winner judge.winner rubric output_quality expectation_results systems; do
    same "unswapped vs swapped: $m" "$(val "$f" "\$.$m")" "$(val "$T/s.json" "\$.$m")"
done

# 2. Redaction: the names of the paths (directories, files and their stems) never reach the
# judge; the outputs' other words do, "First" and "Second" included.
R="$T/r"
mkdir -p "$R/out/zz-gamma-model"
printf 'First, Paris. Written by zz-gamma-model.\n' >"$R/out/zz-gamma-model/answer.txt"
printf 'log of a zz-gamma-model session\n' >"$R/out/zz-gamma-model/zz-gamma-model.log"
printf 'Second thoughts: Paris (zz-delta-skill v2).\n' >"$R/zz-delta-skill.txt"
start_sim -n red
judge_config "$T/red.json"
expect_cmd "compare with named paths" 0 "written to" "" -- \
    $ARB compare --task "Capital of France?" --judge "$T/red.json" \
    "$R/out/zz-gamma-model" "$R/zz-delta-skill.txt" -o "$T/r.json"
same "requests with named paths" "$(wc -l <"$T/red.log" | tr -d ' ')" 2
for name in zz-gamma-model zz-delta-skill; do
    if grep -q -- "$name" "$T/red.log"; then
        bad "a judge request carried the path name '$name'"
    else
        ok
    fi
done
grep -q 'Written by \[REDACTED\]\.' "$T/red.log" && ok ||
    bad "the name in an output was not redacted"
grep -q '=== file: \[REDACTED\]\.log ===' "$T/red.log" && ok ||
    bad "the name of a file in A_PATH was not redacted"
for words in 'First, Paris' 'Second thoughts: Paris'; do
    grep -q -- "$words" "$T/red.log" && ok || bad "the judge was not sent '$words'"
done

# 3. Fences: every request has a code of its own (two orders per comparison, in as many
# comparisons as were made above), and a response's fences share it.
cat "$T/sim.log" "$T/red.log" >"$T/all.log"
n=$(wc -l <"$T/all.log" | tr -d ' ')
[ "$n" -ge 6 ] && ok || bad "only $n requests"
codes=$(grep -o 'BEGIN RESPONSE A [0-9a-f]*' "$T/all.log" | sort -u | wc -l | tr -d ' ')
same "distinct fence codes in $n requests" "$codes" "$n"
while IFS= read -r line; do
    a=$(printf '%s\n' "$line" | grep -o 'BEGIN RESPONSE A [0-9a-f]*' | cut -d' ' -f4)
    b=$(printf '%s\n' "$line" | grep -o 'END RESPONSE B [0-9a-f]*' | cut -d' ' -f4)
    [ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "a request's fences differ: '$a' and '$b'"
done <"$T/all.log"

# 4. Arbiter's own reasoning (no judge) is in the file's labels too: B_PATH, an empty
# directory, is the missing output, under the default (swapped) blinding.
mkdir -p "$T/m/empty"
printf 'Paris.\n' >"$T/m/one.txt"
expect_cmd "compare with a missing output" 0 "winner: none (missing_output)" "" -- \
    $ARB compare --task "Capital of France?" "$T/m/one.txt" "$T/m/empty" -o "$T/m.json"
same "missing output: reasoning" "$(val "$T/m.json" '$.reasoning')" \
    "Output B does not exist for this case."
same "missing output: the rubric's sides" "$(typ "$T/m.json" '$.rubric.A')/$(typ "$T/m.json" \
    '$.rubric.B')" object/

test_done
