#!/bin/sh
# Issue 15's smaller promises and limits: redaction of every text the judge sees (plain and
# JSON-escaped names), terminal control bytes escaped on a terminal, a regex resource limit
# never a verdict, a tournament of 30 systems, and range errors for numeric options.
# usage: tests/cli/promises.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
ARB="$1"
SIM="$2"
q() { sqlite3 "$@" 2>&1; }

# ---- 1. redaction covers the task, the prompt, expectation texts and escaped spellings ----
start_sim
mkdir -p "$T/r"
# The names: the configured "Ghostwriter-9x" and the system "quokka-seven". Every spelling below
# keeps "hostwriter" or "okka" literal, so one grep of those finds any that got through (in the
# log, the request body is JSON inside JSON: an escape there has three or more backslashes).
cat >"$T/r/cases.jsonl" <<'EOF'
{"id": "c1", "prompt": "Ask Ghostwriter-9x (or G\\u0068ostwriter\\u002d9x) about quokka-seven", "expectations": [{"id": "e1", "text": "Says it is not Ghostwriter-9x nor quokka\\u002dseven"}]}
EOF
cat >"$T/r/a.jsonl" <<'EOF'
{"id": "c1", "output": "I am Ghostwriter\\u002d9x; {\"by\": \"ghostwriter\\\\u002D9X\"} and \\u0071uokka-seven"}
EOF
cat >"$T/r/b.jsonl" <<'EOF'
{"id": "c1", "output": "{\"model\": \"QUOKKA-SEVEN\", \"alias\": \"\\\\u0047hostwriter-9x\"}"}
EOF
cat >"$T/r/suite.json" <<JSON
{"name": "redact", "seed": 3, "task": "Compare what Ghostwriter-9x and quokka-seven say",
 "systems": {"quokka-seven": "a.jsonl", "other-sys": "b.jsonl"},
 "redact": ["Ghostwriter-9x"],
 "judge": {"provider": "openai", "base_url": "http://127.0.0.1:$PORT/v1", "model": "sim-1",
           "api_key_env": "ARB_TEST_JUDGE_KEY", "timeout_s": 5},
 "cases": "cases.jsonl"}
JSON
ARB_TEST_JUDGE_KEY=k $ARB run "$T/r/suite.json" --db "$T/r.db" >"$T/out" 2>"$T/err" \
    && ok || bad "redaction run failed: $(cat "$T/err")"
[ "$(wc -l <"$T/sim.log")" -eq 2 ] && ok || bad "expected 2 judge requests, got $(wc -l <"$T/sim.log")"
if grep -qi 'hostwriter\|okka' "$T/sim.log"; then
    bad "a name reached the judge: $(grep -io '.\{40\}\(hostwriter\|okka\).\{20\}' "$T/sim.log" | head -3)"
else ok; fi
[ "$(grep -o 'REDACTED' "$T/sim.log" | wc -l)" -ge 18 ] && ok \
    || bad "redactions in the requests: $(grep -o 'REDACTED' "$T/sim.log" | wc -l), want 9 per order"
stop_sim

# ---- 2. on a terminal, control bytes in outputs, ids and names are shown, not obeyed ----
# Under a pseudo-terminal (util-linux script; it turns LF into CR LF): the raw bytes printed by
# run, runs, show and report hold no ESC, BEL, backspace, lone CR or C1 CSI, and show escapes.
mkdir -p "$T/y"
ID='c1\u001b]0;PWNED\u0007x'
printf '{"id": "%s", "expected": "a"}\n{"id": "c2", "expected": "b"}\n' "$ID" >"$T/y/cases.jsonl"
# c2's output: 9,999 two-byte characters and one three-byte one, so stdio's buffers cut some.
long=$(awk 'BEGIN { for (i = 0; i < 9999; i++) printf "\303\251"; printf "\342\202\254" }')
printf '{"id": "%s", "output": "evil \\u001b[2J clear\\rCR\\bBS \\u009b31m \\u00e9 end"}\n{"id": "c2", "output": "%s"}\n' \
    "$ID" "$long" >"$T/y/a.jsonl"
printf '{"id": "%s", "output": "a"}\n{"id": "c2", "output": "b"}\n' "$ID" >"$T/y/b.jsonl"
cat >"$T/y/suite.json" <<'JSON'
{"name": "tty\u001b[5m", "systems": {"sys\u001b[31mred": "a.jsonl", "b": "b.jsonl"},
 "rubric": {"content": [{"name": "correctness", "check": {"op": "exact"}}]},
 "cases": "cases.jsonl"}
JSON
raw_id=$(printf 'c1\033]0;PWNED\007x')
script -qec "$ARB run $T/y/suite.json --db $T/y.db --no-progress" /dev/null >"$T/y/run" 2>&1 </dev/null
script -qec "$ARB runs --db $T/y.db" /dev/null >"$T/y/runs" 2>&1 </dev/null
script -qec "$ARB show 1 '$raw_id' --db $T/y.db" /dev/null >"$T/y/show" 2>&1 </dev/null
script -qec "$ARB report 1 --db $T/y.db" /dev/null >"$T/y/report" 2>&1 </dev/null
for f in run runs show report; do
    [ -s "$T/y/$f" ] && ok || bad "$f printed nothing under a pty"
    for b in '\033' '\007' '\010' '\302\233'; do
        if LC_ALL=C grep -q "$(printf "$b")" "$T/y/$f"; then bad "$f printed the byte $b raw to a terminal"; else ok; fi
    done
    if sed 's/\r$//' "$T/y/$f" | LC_ALL=C grep -q "$(printf '\r')"; then bad "$f printed a lone CR to a terminal"; else ok; fi
done
grep -q 'sys\\x1b\[31mred' "$T/y/run" && ok || bad "run: the system name is not shown escaped: $(cat -v "$T/y/run")"
grep -q 'tty\\x1b\[5m' "$T/y/runs" && ok || bad "runs: the suite name is not shown escaped: $(cat -v "$T/y/runs")"
grep -q 'case c1\\x1b\]0;PWNED\\x07x' "$T/y/show" && ok || bad "show: the case id is not shown escaped: $(head -2 "$T/y/show" | cat -v)"
grep -q 'evil \\x1b\[2J clear\\rCR\\bBS \\u009b31m é end' "$T/y/show" && ok || bad "show: the output is not shown escaped: $(cat -v "$T/y/show")"
grep -q '| sys\\x1b\[31mred |' "$T/y/report" && ok || bad "report: the system name is not shown escaped"
script -qec "$ARB show 1 c2 --db $T/y.db" /dev/null >"$T/y/long" 2>&1 </dev/null
if grep -q '\\x[89a-f][0-9a-f]' "$T/y/long"; then bad "show: UTF-8 cut between two writes was escaped"; else ok; fi
[ "$(LC_ALL=C grep -o "$(printf '\303\251')" "$T/y/long" | wc -l)" -eq 9999 ] && ok || bad "show: the long output lost characters"
# The progress line (standard error) names the system escaped too; its own ESC [K stays.
script -qec "$ARB run $T/y/suite.json --db $T/y2.db" /dev/null >"$T/y/prog" 2>&1 </dev/null
grep -qF "loading outputs of 'sys\\x1b[31mred'" "$T/y/prog" && ok || bad "progress: the system name is not escaped"
if sed "s/$(printf '\033')\[K//g" "$T/y/prog" | LC_ALL=C grep -q "$(printf '\033')"; then
    bad "progress: an ESC other than the line's own erase reached the terminal"
else ok; fi
# Not a terminal: the bytes as stored.
$ARB show 1 "$raw_id" --db "$T/y.db" >"$T/y/pipe" 2>&1
LC_ALL=C grep -q "$(printf 'evil \033\[2J clear\rCR')" "$T/y/pipe" && ok || bad "show into a pipe changed the output"
$ARB report 1 --db "$T/y.db" -o "$T/y/r.md" >/dev/null 2>&1
LC_ALL=C grep -q "$(printf 'sys\033\[31mred')" "$T/y/r.md" && ok || bad "report -o FILE changed a name"

# ---- 3. a regex that reaches PCRE2's limit is unresolved, never a verdict ----
# Python's re.fullmatch matches "a"*26+"c" (after 2^26 steps); PCRE2 stops at its match limit.
# The other system's "ac" matches at once: the case used to be decided against the first.
mkdir -p "$T/x"
A=aaaaaaaaaaaaaaaaaaaaaaaaaac
printf '{"id": "c1"}\n' >"$T/x/cases.jsonl"
printf '{"id": "c1", "output": "%s"}\n' "$A" >"$T/x/a.jsonl"
printf '{"id": "c1", "output": "ac"}\n' >"$T/x/b.jsonl"
cat >"$T/x/suite.json" <<'JSON'
{"name": "limit", "systems": {"matches": "a.jsonl", "other": "b.jsonl"},
 "rubric": {"content": [{"name": "correctness", "check": {"op": "contains", "expected": "c"}}],
            "structure": [{"name": "formatting", "check": {"op": "contains", "expected": "a"}}]},
 "expectations": [{"id": "code", "text": "a's then c",
                   "check": {"op": "regex", "mode": "fullmatch", "expected": "^(?:(a+)+b|a+c)$"}}],
 "cases": "cases.jsonl"}
JSON
$ARB run "$T/x/suite.json" --db "$T/x.db" >/dev/null 2>"$T/err" && ok || bad "limit run: $(cat "$T/err")"
[ "$(q "$T/x.db" "select status || ',' || coalesce(winner, '') from verdicts")" = "pending_judge," ] && ok \
    || bad "a regex limit decided the case: $(q "$T/x.db" "select status, winner from verdicts")"
q "$T/x.db" "select record_json from v_checks where system = 'matches' and item = 'code'" | grep -q '"verdict":"unresolved"' \
    && ok || bad "the limited check is not unresolved: $(q "$T/x.db" "select record_json from v_checks")"
q "$T/x.db" "select record_json from v_checks where system = 'matches' and item = 'code'" | grep -q 'regex_match_limit: PCRE2' \
    && ok || bad "the limited check does not name the limit"

# ---- 4a. a tournament of 30 systems: 435 pairs, past the 256 bits of one HMAC ----
mkdir -p "$T/t"
printf '{"id": "c1", "expected": "answer 1"}\n{"id": "c2", "expected": "answer 2"}\n' >"$T/t/cases.jsonl"
systems=
i=1
while [ $i -le 30 ]; do
    printf '{"id": "c1", "output": "answer %d"}\n{"id": "c2", "output": "answer 2"}\n' $i >"$T/t/s$i.jsonl"
    systems="$systems${systems:+, }\"sys$i\": \"s$i.jsonl\""
    i=$((i + 1))
done
cat >"$T/t/suite.json" <<JSON
{"name": "thirty", "systems": {$systems},
 "rubric": {"content": [{"name": "correctness", "check": {"op": "exact"}}],
            "structure": [{"name": "formatting", "check": {"op": "starts_with", "expected": "answer"}}]},
 "cases": "cases.jsonl"}
JSON
$ARB run "$T/t/suite.json" --db "$T/t.db" >"$T/out" 2>"$T/err" && ok || bad "30 systems: $(cat "$T/err")"
[ "$(q "$T/t.db" "select status from runs")" = complete ] && ok || bad "30 systems: run left $(q "$T/t.db" "select status from runs")"
[ "$(q "$T/t.db" "select count(*) || ',' || count(distinct system_a || system_b) from verdicts where case_id = 'c1'")" = "435,435" ] \
    && ok || bad "30 systems: not one verdict per pair: $(q "$T/t.db" "select count(*) from verdicts")"
grep -q '^  sys1  *29 wins, 0 losses, 29 ties' "$T/out" && ok || bad "30 systems: summary $(head -3 "$T/out")"
$ARB replay 1 --db "$T/t.db" >/dev/null 2>&1 && ok || bad "30 systems: replay differs"
# (--strategy statistical is left out: Bradley-Terry on 30 systems, one of them unbeaten, takes
# minutes at 1,000 resamples.)
$ARB report 1 --db "$T/t.db" --format json >"$T/t.json" 2>&1 && ok || bad "30 systems: report failed"
grep -q '"sys30"' "$T/t.json" && ok || bad "30 systems: the report lacks sys30"

test_done
