#!/bin/sh
# The HTML report in a real browser: Debian's chromium, headless.
# usage: tests/report/html.sh path/to/arbiter path/to/judge_sim   (CHROMIUM=... for another
#        browser binary)
#
# Runs the example suite into a temporary database, writes report.html, and checks that
# the file is self-contained (no script, no remote reference), that chromium renders it
# (a screenshot of real size), that the DOM has the expected elements, and that the page
# logs nothing to the console.  A suite of hostile ids and outputs checks the escaping.
#
# Console messages: chromium 156 with --enable-logging=stderr --v=0 prints every message
# the page logs, whatever its level, as "[pid:tid:time:INFO:CONSOLE:LINE] "text", source:
# URL (LINE)" (older releases: "INFO:CONSOLE(LINE)").  The page has no script, so any such
# line (an uncaught exception, a Content-Security-Policy refusal, a failed load) is a
# failure.  The detector checks itself first: a copy of the page with a throwing inline
# script (and the CSP removed, so that it runs) must produce "Uncaught TypeError".
#
# What a reader sees: a copy of a page with a probe script (the CSP removed the same way)
# writes the rendered text (innerText, after CSS) of every table header, the judge's line,
# the first line of each output and, per case, what it asked, its headings and the judge's
# answer in each order into the DOM, where the checks read it.
. "$(dirname "$0")/../cli/lib.sh"
ARB="$1"
SIM="${2:-}"
[ -x "$ARB" ] || { echo "html: no binary at '$ARB'"; exit 2; }
[ -x "$SIM" ] || { echo "html: no judge_sim at '$SIM' (the second argument)"; exit 2; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CHROMIUM=${CHROMIUM:-chromium}

check() { # check NAME COMMAND...: passes when COMMAND succeeds
    name=$1
    shift
    if "$@"; then ok; else bad "$name"; fi
}

command -v "$CHROMIUM" >/dev/null 2>&1 ||
    die "'$CHROMIUM' not found (apt-get install chromium; make deps installs it)"

# browse PROFILE_NAME ARGS... : a fresh profile each time, stderr to $T/PROFILE_NAME.err.
browse() {
    prof=$1
    shift
    "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --no-first-run --disable-background-networking --disable-component-update \
        --disable-sync --user-data-dir="$T/profile-$prof" --enable-logging=stderr --v=0 \
        "$@" 2>"$T/$prof.err"
}

# The page's console messages in a chromium log (see the header).
console_lines() {
    grep -E '^\[[^]]*:CONSOLE[:(]' "$1"
}

has() { grep -qF -- "$2" "$1"; }
hasnt() { ! grep -qiF -- "$2" "$1"; }

# probe PAGE NAME [CSS]: render a copy of PAGE with the probe script (and CSS added, for the
# detector's own check); its lines go to $T/NAME.probe:
#   th: TEXT          each table header as rendered
#   th-differ: N      headers whose rendered text differs from their source text
#   judge: TEXT       the judge panel's first line
#   output: TEXT      the first line of each output shown
#   asked: ID | TEXT  a case's task and prompt (ID its anchor; lines joined by " | ")
#   heading: ID | TEXT  each heading of a case
#   order: ID | TEXT  each order's answer in a case: who was shown first, winner, reasoning...
#   judge-sum: ID | TEXT  what the orders made together
probe() {
    cat >"$T/probe.js" <<'JS'
var o = [], th = document.querySelectorAll("th"), bad = 0, i;
for (i = 0; i < th.length; i++) {
    o.push("th: " + th[i].innerText.trim());
    if (th[i].innerText.trim() !== th[i].textContent.trim()) bad++;
}
o.push("th-differ: " + bad);
var j = document.querySelector("#judge .note");
o.push("judge: " + (j ? j.innerText.trim() : ""));
var pre = document.querySelectorAll("pre.output");
for (i = 0; i < pre.length; i++) o.push("output: " + pre[i].textContent.split("\n")[0]);
function seen(sel, name) {
    var e = document.querySelectorAll(sel), k, c, lines;
    for (k = 0; k < e.length; k++) {
        c = e[k].closest(".case");
        lines = e[k].innerText.split("\n").map(function (l) { return l.trim(); })
            .filter(function (l) { return l !== ""; });
        o.push(name + ": " + (c ? c.id : "") + " | " + lines.join(" | "));
    }
}
seen(".case .asked", "asked");
seen(".case h4", "heading");
seen(".judge-order", "order");
seen(".judge-sum", "judge-sum");
var p = document.createElement("pre");
p.id = "probe";
p.textContent = o.join("\n");
document.body.appendChild(p);
JS
    awk -v css="${3:-}" -v js="$T/probe.js" '
        /<meta http-equiv="Content-Security-Policy"/ { sub(/<meta http-equiv="Content-Security-Policy"[^>]*>/, "") }
        /<\/head>/ { sub(/<\/head>/, "<style>" css "</style></head>") }
        /<\/main>/ { printf "<script>\n"; while ((getline l < js) > 0) print l; printf "</script>\n" }
        { print }' "$1" >"$T/$2.html"
    browse "$2" --dump-dom "file://$T/$2.html" |
        sed -n '/<pre id="probe">/,/<\/pre>/p' | sed -e 's|.*<pre id="probe">||' -e 's|</pre>.*||' \
            -e 's/&lt;/</g' -e 's/&gt;/>/g' -e 's/&amp;/\&/g' >"$T/$2.probe"
}

# --- The example suite -------------------------------------------------------------------
(cd "$ROOT" && "$ARB" run examples/invoice/suite.json --db "$T/run.db" >"$T/run.out" 2>&1) ||
    bad "example run: $(tail -3 "$T/run.out")"
check "report --format html" "$ARB" report latest --db "$T/run.db" --format html \
    -o "$T/report.html"
"$ARB" report latest --db "$T/run.db" --format json >"$T/report.json" 2>/dev/null
H="$T/report.html"
[ -s "$H" ] || die "no report.html"

# Self-contained: one document, no script, no remote or relative reference.
check "one <html> element" [ "$(grep -o '<html' "$H" | wc -l)" -eq 1 ]
check "no <script> in the file" hasnt "$H" "<script"
check "no src= or href= to http(s) or //" \
    sh -c "! grep -Eiq '(src|href|action)[[:space:]]*=[[:space:]]*[\"'\'']?[[:space:]]*(https?:|//)' '$H'"
check "no src= attribute at all" sh -c "! grep -Eiq '[[:space:]]src[[:space:]]*=' '$H'"
check "style loads nothing (no url( or @import)" \
    sh -c "sed -n '/<style>/,/<\/style>/p' '$H' | grep -Eiq 'url\(|@import' && exit 1 || exit 0"
check "no <link> but the data: icon" \
    sh -c "grep -o '<link[^>]*>' '$H' | grep -vq 'href=\"data:' && exit 1 || exit 0"

# (a) A screenshot: chromium renders the page.
browse shot --screenshot="$T/shot.png" --window-size=1280,2000 "file://$H" >/dev/null
check "screenshot written" [ -s "$T/shot.png" ]
check "screenshot is a PNG" sh -c "head -c 8 '$T/shot.png' | od -An -c | grep -q 'P   N   G'"
check "screenshot is non-trivial (> 20 KB)" \
    [ "$(wc -c <"$T/shot.png" 2>/dev/null || echo 0)" -gt 20480 ]
[ -n "${HTML_SHOT:-}" ] && cp "$T/shot.png" "$HTML_SHOT"

# (b) The DOM chromium built, and (c) its console.
browse dom --dump-dom "file://$H" >"$T/dom.html"
D="$T/dom.html"
check "dom: systems table" has "$D" 'id="systems-table"'
check "dom: an <svg> chart" has "$D" '<svg class="chart"'
check "dom: systems chart" has "$D" 'id="systems-chart"'
check "dom: expectations chart" has "$D" 'id="expectations-chart"'
check "dom: rubric chart" has "$D" 'id="rubric-chart"'
check "dom: pairs chart" has "$D" 'id="pairs-chart"'
check "dom: judge panel" has "$D" 'id="judge"'
check "dom: bars with tooltips" has "$D" '<title>baseline'
check "dom: suite name as title" has "$D" '<h1 id="report-title">invoice-extractor bake-off</h1>'
check "dom: cases table" has "$D" 'id="cases-table"'
check "dom: link to a case" has "$D" 'href="#case-inv-001"'
check "dom: case details anchor" has "$D" 'id="case-inv-001"'
check "dom: check records collapsible" has "$D" '<details class="check">'
if console_lines "$T/dom.err" >"$T/console.txt"; then
    bad "console messages from the page:"
    sed 's/^/    /' "$T/console.txt"
else
    ok
fi
# The detector detects: a copy with a throwing script, its CSP removed so the script runs.
sed -e 's|<meta http-equiv="Content-Security-Policy"[^>]*>||' \
    -e 's|</main>|<script>null.canary();</script></main>|' "$H" >"$T/canary.html"
browse canary --dump-dom "file://$T/canary.html" >/dev/null
check "console detector catches an uncaught error" \
    sh -c "grep -E '^\[[^]]*:CONSOLE[:(]' '$T/canary.err' | grep -q 'Uncaught TypeError'"

# --- Trials and a comparison against another run -----------------------------------------
# The example's three-trial bake-off, reported --against the first run: the trials chart
# and table, and the changes table, rendered with no console message.
(cd "$ROOT" && "$ARB" run examples/invoice/trials.json --db "$T/run.db" >"$T/run2.out" 2>&1) ||
    bad "trials run: $(tail -3 "$T/run2.out")"
check "trials report --format html" "$ARB" report 2 --against 1 --db "$T/run.db" \
    --strategy statistical --format html -o "$T/trials.html"
browse trials --screenshot="$T/trials.png" --window-size=1280,4000 "file://$T/trials.html" \
    >/dev/null
check "trials: screenshot is non-trivial (> 20 KB)" \
    [ "$(wc -c <"$T/trials.png" 2>/dev/null || echo 0)" -gt 20480 ]
browse trialsdom --dump-dom "file://$T/trials.html" >"$T/trials.dom"
TD="$T/trials.dom"
check "trials dom: trials section" has "$TD" '<h2>Trials: pass@k and pass^k</h2>'
check "trials dom: pass@k chart" has "$TD" 'id="trials-chart"'
check "trials dom: pass@k table" has "$TD" 'id="trials-table"'
check "trials dom: a point with its tooltip" has "$TD" '<title>candidate pass@k, k = 3:'
check "trials dom: against section" has "$TD" '<h2>Changes against run 1</h2>'
check "trials dom: nav links trials" has "$TD" 'href="#trials"'
check "trials dom: trials performance table" has "$TD" 'id="trials-performance"'
check "trials dom: statistics card" has "$TD" 'id="stats-table"'
check "trials dom: a reasoning per pair" has "$TD" '<ul id="pair-reasoning">'
check "trials dom: nav links statistics" has "$TD" 'href="#statistics"'
check "trials dom: bootstrap medians in the trials table" has "$TD" '<span class="ci">median '
if console_lines "$T/trialsdom.err" >"$T/console.txt"; then
    bad "trials: console messages from the page:"
    sed 's/^/    /' "$T/console.txt"
else
    ok
fi

# --- Three systems: the pairwise win matrix -----------------------------------------------
(cd "$ROOT" && "$ARB" run tests/data/three/suite.json --db "$T/three.db" >/dev/null 2>&1) ||
    bad "three systems run"
check "three systems report --format html" "$ARB" report 1 --db "$T/three.db" \
    --strategy statistical --format html -o "$T/three.html"
browse three --dump-dom "file://$T/three.html" >"$T/three.dom"
check "three dom: win matrix table" has "$T/three.dom" 'id="matrix-table"'
check "three dom: a cell with wins-losses-ties" has "$T/three.dom" '5–0–1'
check "three dom: Bradley-Terry ratings table" has "$T/three.dom" 'id="bt-table"'
check "three dom: Bradley-Terry bootstrap medians" has "$T/three.dom" \
    '<th class="n">Rating</th><th class="n">Median</th><th class="n">95% interval</th>'
if console_lines "$T/three.err" >"$T/console.txt"; then
    bad "three: console messages from the page:"
    sed 's/^/    /' "$T/console.txt"
else
    ok
fi

# --- As written: headers, the judge's config, a directory output's files -------------------
# Headers are not upper-cased by CSS ("pass@k", not "PASS@K"), the pair test's column names
# its rule, the judge's config is a 12-digit hash and one full stop, and every file of a
# directory output is shown under its name, the first one too.
probe "$T/trials.html" trialsprobe
P="$T/trialsprobe.probe"
check "as written: the probe ran" has "$P" "th-differ: "
check "as written: a pass@k header reads pass@k" grep -qx 'th: pass@k' "$P"
check "as written: the statistics' latency header" grep -qx 'th: Latency (ms)' "$P"
check "as written: the trials' p99 header" grep -qx 'th: p99' "$P"
check "as written: the pairs header names the rule" grep -qx 'th: 95% intervals do not overlap' "$P"
check "as written: no header reads other than written" grep -qx 'th-differ: 0' "$P"
check "as written: no CIs jargon" hasnt "$T/trials.html" "CIs apart"
probe "$T/trials.html" upperprobe "th{text-transform:uppercase}"
check "as written: the probe sees upper-casing" grep -qx 'th: PASS@K' "$T/upperprobe.probe"
R="$T/dirout"
mkdir -p "$R/d/c1" "$R/d/c2"
for c in c1 c2; do
    printf 'the answer for %s\n' "$c" >"$R/d/$c/answer.txt"
    printf '# notes on %s\n' "$c" >"$R/d/$c/notes.md"
    printf '{"id": "%s", "output": "the answer for %s"}\n' "$c" "$c" >>"$R/a.jsonl"
done
cat >"$R/suite.json" <<JSON
{"name": "directory output", "task": "Answer.", "seed": 3,
 "systems": {"jsonl": "a.jsonl", "dir": "d"},
 "expectations": [{"id": "polite", "text": "The answer is polite"}],
 "judge": {"provider": "command", "command": ["$SIM", "--stdio"], "timeout_s": 30},
 "cases": [{"id": "c1"}, {"id": "c2"}]}
JSON
"$ARB" run "$R/suite.json" --db "$T/dirout.db" >"$T/dirout.out" 2>&1 ||
    bad "directory-output run: $(tail -3 "$T/dirout.out")"
check "directory output report --format html" "$ARB" report latest --db "$T/dirout.db" \
    --format html -o "$T/dirout.html"
probe "$T/dirout.html" dirprobe
P="$T/dirprobe.probe"
check "as written: the judge's command and config, one full stop" \
    grep -Eqx 'judge: Command .*judge_sim --stdio, config [0-9a-f]{12}\.' "$P"
check "as written: no ellipsis after the config" sh -c "! grep -q '…\|\.\.\.' '$P'"
check "as written: a directory output's first file under its name" \
    grep -qx 'output: === file: answer.txt ===' "$P"
check "as written: its other file under its name" has "$T/dirout.html" "=== file: notes.md ==="
check "as written: a JSONL output has no file header" grep -qx 'output: the answer for c1' "$P"
check "as written: no header of the directory report upper-cased" grep -qx 'th-differ: 0' "$P"

# --- One case whole: a judge whose orders disagree ----------------------------------------
# judge_sim --prefer-a 1 names the output it was shown first in both orders, so the case is
# position-inconsistent: its view must show both orders, each with who was shown first, its
# winner and its reasoning, and what the case asked, not "tie" with one reasoning.
PI="$T/pi"
mkdir -p "$PI"
printf '{"id": "k1", "output": "Paris."}\n' >"$PI/a.jsonl"
printf '{"id": "k1", "output": "The capital of France is Paris."}\n' >"$PI/b.jsonl"
export ARB_HTML_KEY=html-key
start_sim --prefer-a 1
cat >"$PI/suite.json" <<JSON
{"name": "orders disagree", "task": "Answer briefly (zz-task).", "seed": 2,
 "systems": {"alpha": "a.jsonl", "beta": "b.jsonl"},
 "rubric": {"content": [{"name": "accuracy"}], "structure": []},
 "expectations": [{"id": "polite", "text": "The answer is polite"}],
 "judge": {"provider": "openai", "base_url": "http://127.0.0.1:$PORT/v1", "model": "sim",
           "api_key_env": "ARB_HTML_KEY", "timeout_s": 5},
 "cases": [{"id": "k1", "prompt": "What is the capital of France? (zz-prompt)"}]}
JSON
"$ARB" run "$PI/suite.json" --db "$T/pi.db" >"$T/pi.out" 2>&1 ||
    bad "position-inconsistent run: $(tail -3 "$T/pi.out")"
stop_sim
pq() { sqlite3 "$T/pi.db" "$1"; }
PA=$(pq "SELECT system_a FROM verdicts")
PB=$(pq "SELECT system_b FROM verdicts")
R_AB=$(pq "SELECT json_extract(answer_json, '\$.reasoning') FROM judgments WHERE ord = 'AB'")
R_BA=$(pq "SELECT json_extract(answer_json, '\$.reasoning') FROM judgments WHERE ord = 'BA'")
if [ "$(pq "SELECT json_extract(comparison_json, '\$.judge.position_inconsistent') FROM v_verdicts")" = 1 ] &&
    [ -n "$R_AB" ] && [ -n "$R_BA" ] && [ "$R_AB" != "$R_BA" ]; then
    ok
else
    bad "orders disagree: the test needs a position-inconsistent case with two reasonings"
fi
check "orders disagree: report --format html" "$ARB" report latest --db "$T/pi.db" --format html \
    -o "$T/pi.html"
check "orders disagree: no <script> in the file" hasnt "$T/pi.html" "<script"
check "orders disagree: a CSP" has "$T/pi.html" '<meta http-equiv="Content-Security-Policy"'
probe "$T/pi.html" piprobe
P="$T/piprobe.probe"
check "orders disagree: order AB shown with its first system, winner and reasoning" \
    grep -qF "order: case-k1 | Order AB: $PA shown first | Response A was $PA, Response B $PB. | Winner: $PA (Response A) | $R_AB" "$P"
check "orders disagree: order BA shown with its first system, winner and reasoning" \
    grep -qF "order: case-k1 | Order BA: $PB shown first | Response A was $PB, Response B $PA. | Winner: $PB (Response A) | $R_BA" "$P"
check "orders disagree: each order's scores and expectations" \
    sh -c "[ \"\$(grep -c '^order: case-k1 | .* | Criterion (1-5)	$PA	$PB | accuracy	[1-5]	[1-5] | Expectation	$PA	$PB | polite	\(pass\|fail\)	\(pass\|fail\)\$' '$P')\" = 2 ]"
check "orders disagree: said so, with the sample agreement" \
    grep -q '^judge-sum: case-k1 | position-inconsistent its orders disagree on the winner; sample agreement 0%' "$P"
check "orders disagree: the heading says so" grep -qx "heading: case-k1 | The judge's orders disagree" "$P"
check "orders disagree: no single reasoning for both orders" \
    sh -c "! grep -q \"^heading: case-k1 | The judge's reasoning\" '$P'"
check "orders disagree: the task and the prompt" \
    grep -qx 'asked: case-k1 | Task | Answer briefly (zz-task). | Prompt | What is the capital of France? (zz-prompt)' "$P"
check "orders disagree: no header of the page upper-cased" grep -qx 'th-differ: 0' "$P"
browse pidom --dump-dom "file://$T/pi.html" >/dev/null
if console_lines "$T/pidom.err" >"$T/console.txt"; then
    bad "orders disagree: console messages from the page:"
    sed 's/^/    /' "$T/console.txt"
else
    ok
fi

# --- Hostile ids, names and outputs ------------------------------------------------------
S="$T/hostile"
mkdir -p "$S"
cat >"$S/suite.json" <<'EOF'
{
  "name": "hostile <b>suite</b> & 'q'",
  "task": "Echo.",
  "seed": 1,
  "systems": {"a<i>x</i>": "a.jsonl", "b": "b.jsonl"},
  "expectations": [
    {"id": "<img src=x onerror=alert(3)>", "text": "</svg><script>alert(4)</script>",
     "check": {"op": "contains", "expected": "alert"}}
  ],
  "cases": "cases.jsonl"
}
EOF
cat >"$S/cases.jsonl" <<'EOF'
{"id": "<script>x</script>", "prompt": "say </pre><script>alert(1)</script>"}
{"id": "plain \"1\" & 'one'", "prompt": "hello"}
EOF
cat >"$S/a.jsonl" <<'EOF'
{"id": "<script>x</script>", "output": "</pre><script>alert(1)</script>"}
{"id": "plain \"1\" & 'one'", "output": "<b>bold</b> </details></section><script>alert(5)</script>"}
EOF
cat >"$S/b.jsonl" <<'EOF'
{"id": "<script>x</script>", "output": "<img src=x onerror=alert(2)>"}
{"id": "plain \"1\" & 'one'", "output": "javascript:alert(6) https://example.invalid/x.js"}
EOF
"$ARB" run "$S/suite.json" --db "$T/hostile.db" >"$T/hostile.out" 2>&1 ||
    bad "hostile run: $(tail -3 "$T/hostile.out")"
check "hostile report --format html" "$ARB" report latest --db "$T/hostile.db" --format html \
    -o "$T/hostile.html"
browse hostile --dump-dom "file://$T/hostile.html" >"$T/hostile.dom"
HD="$T/hostile.dom"
check "hostile: no <script> element in the DOM" hasnt "$HD" "<script"
check "hostile: no <img> element in the DOM" hasnt "$HD" "<img"
check "hostile: no <b> or <i> element from names" \
    sh -c "! grep -Eq '<(b|i)>' '$HD'"
check "hostile: suite name shown as text" has "$HD" "hostile &lt;b&gt;suite&lt;/b&gt; &amp; 'q'"
check "hostile: expectation id shown as text" has "$HD" "&lt;img src=x onerror=alert(3)&gt;"
check "hostile: no remote reference in the file" \
    sh -c "! grep -Eiq '(src|href)[[:space:]]*=[[:space:]]*[\"'\'']?[[:space:]]*(https?:|//|javascript:)' '$T/hostile.html'"
if grep -q 'id="cases-table"' "$HD"; then
    check "hostile: case id shown as text" has "$HD" "&lt;script&gt;x&lt;/script&gt;"
    check "hostile: output shown as text" has "$HD" "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;"
    check "hostile: anchor encoded" has "$HD" 'id="case-_3Cscript_3Ex_3C_2Fscript_3E"'
fi
if console_lines "$T/hostile.err" >"$T/console.txt"; then
    bad "hostile: console messages from the page:"
    sed 's/^/    /' "$T/console.txt"
else
    ok
fi

test_done
