#!/bin/sh
# `arbiter view` over HTTP, without a browser (tests/browser/ drives it in chromium): the
# options and their errors, every page's status and content type, the checks a request
# passes before any page (Host, token, Origin, method), escaping of hostile text, a
# read-only database left byte for byte as it was, and labels written only with --label,
# through the token, blind until saved.
# usage: tests/cli/view.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
ARB="$1"
SIM="$2"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SIM_DIR=$(cd "$(dirname "$SIM")" && pwd)
PATH="$SIM_DIR:$PATH"
export PATH
command -v curl >/dev/null || die "curl not found (make deps installs it)"
command -v sqlite3 >/dev/null || die "sqlite3 not found (make deps installs it)"

# ---- options --------------------------------------------------------------------------------
expect_cmd "view --help" 0 "usage: arbiter view" "" -- "$ARB" view --help
expect_cmd "view, no database" 2 "" "no database at" -- "$ARB" view --db "$T/none.db"
expect_cmd "view --port 70000" 2 "" "--port" -- "$ARB" view --port 70000 --db "$T/none.db"
expect_cmd "view --annotator without --label" 2 "" "only with --label" -- \
    "$ARB" view --annotator x --db "$T/none.db"
expect_cmd "view, stray argument" 2 "" "unexpected argument" -- "$ARB" view extra

# ---- a judged run, and a run of hostile text -------------------------------------------------
DB="$T/v.db"
"$ARB" run "$ROOT/examples/invoice/suite.json" --judge "$ROOT/examples/invoice/demo-judge.json" \
    --db "$DB" >"$T/run.out" 2>&1 || die "the judged run failed: $(cat "$T/run.out")"

PAY='<script>window.__pwned=1</script><img src=x onerror="window.__pwned=1">'
mkdir -p "$T/x"
cat >"$T/x/suite.json" <<EOF
{"name": "xss <b>suite</b>", "task": "say hi", "seed": 1,
 "systems": {"alpha": "a.jsonl", "beta": "b.jsonl"},
 "expectations": [{"id": "hi", "text": "says hi", "check": {"op": "icontains", "expected": "hi"}}],
 "cases": [{"id": "c<1>\"x", "prompt": "p $(printf '%s' "$PAY" | sed 's/"/\\"/g')"},
           {"id": "c2", "prompt": "plain"}, {"id": "p%41c", "prompt": "a per cent sign"}]}
EOF
printf '{"id": "c<1>\\"x", "output": "hi %s alpha"}\n{"id": "c2", "output": "hi"}\n' \
    "$(printf '%s' "$PAY" | sed 's/"/\\"/g')" >"$T/x/a.jsonl"
printf '{"id": "c<1>\\"x", "output": "hi [x](javascript:window.__pwned=1) beta"}\n{"id": "c2", "output": "bye"}\n' \
    >"$T/x/b.jsonl"
printf '%s\n' '{"id": "p%41c", "output": "hi"}' >>"$T/x/a.jsonl"
printf '%s\n' '{"id": "p%41c", "output": "hi there"}' >>"$T/x/b.jsonl"
"$ARB" run "$T/x/suite.json" --db "$DB" >"$T/run2.out" 2>&1 ||
    die "the hostile run failed: $(cat "$T/run2.out")"

sum_before=$(sha256sum "$DB" | cut -d' ' -f1)

# ---- the server -------------------------------------------------------------------------------
VIEW_PID=
start_view() {
    rm -f "$T/view.port"
    "$ARB" view --db "$DB" --port 0 --port-file "$T/view.port" "$@" 2>"$T/view.err" &
    VIEW_PID=$!
    i=0
    while [ ! -s "$T/view.port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
    [ -s "$T/view.port" ] || die "arbiter view wrote no port file: $(cat "$T/view.err")"
    VPORT=$(cat "$T/view.port")
    BASE="http://127.0.0.1:$VPORT"
}
stop_view() {
    [ -n "$VIEW_PID" ] || return 0
    kill "$VIEW_PID" 2>/dev/null
    wait "$VIEW_PID"
    rc=$?
    [ "$rc" -eq 0 ] && ok || bad "arbiter view exited $rc after SIGTERM"
    [ ! -e "$T/view.port" ] && ok || bad "the port file is left after exit"
    VIEW_PID=
}
# lib.sh's own EXIT trap (lib_cleanup: the test judges, $T) is replaced here, so it is called
# here too (it was not: every run left its directory in /tmp).
trap 'if [ -n "$VIEW_PID" ]; then kill "$VIEW_PID" 2>/dev/null; fi; lib_cleanup' EXIT

# get NAME WANT_STATUS PATH [CURL_ARG...]: the body in $T/body, headers in $T/head
get() {
    name=$1 want=$2 path=$3
    shift 3
    code=$(curl -s -o "$T/body" -D "$T/head" -w '%{http_code}' "$@" "$BASE$path")
    [ "$code" = "$want" ] && ok || bad "$name: status $code, want $want"
}
has() { grep -qF -- "$2" "$T/body" && ok || bad "$1: the body lacks '$2'"; }
lacks() { grep -qF -- "$2" "$T/body" && bad "$1: the body holds '$2'" || ok; }
header() { grep -qi -- "$2" "$T/head" && ok || bad "$1: no header '$2'"; }

start_view
get "runs list" 200 /
has "runs list" 'id="runs"'
has "runs list" 'data-run="1"'
has "runs list" 'data-run="2"'
has "runs list" 'invoice'
has "runs list" 'xss &lt;b&gt;suite&lt;/b&gt;'
lacks "runs list" '<b>suite</b>'
header "runs list" "content-security-policy: default-src 'none'; style-src 'self' 'unsafe-inline'; script-src 'self';"
header "runs list" 'content-type: text/html; charset=utf-8'
TOKEN=$(sed -n 's/.*name="arbiter-token" content="\([0-9a-f]*\)".*/\1/p' "$T/body")
[ ${#TOKEN} -eq 64 ] && ok || bad "no 64-hex session token in the page ('$TOKEN')"

get "run page" 200 /runs/1
has "run page" 'id="panel-wins"'
has "run page" 'id="panel-pass"'
has "run page" 'id="panel-judge"'
has "run page" 'id="report-link"'
get "static report" 200 /runs/1/report
has "static report" 'Arbiter report'
header "static report" "content-security-policy: default-src 'none'; style-src 'unsafe-inline'"

get "cases" 200 /runs/1/cases
has "cases" 'id="cases"'
has "cases" 'class="case-row"'
n_all=$(sqlite3 "$DB" "select count(*) from verdicts where run = 1")
has "cases" "<span id=\"total\">$n_all</span>"
n_pi=$(sqlite3 "$DB" "select count(*) from v_verdicts where run = 1 and
    json_extract(comparison_json, '\$.judge.position_inconsistent') = 1")
get "cases, position-inconsistent" 200 '/runs/1/cases?flag=pi'
has "cases, position-inconsistent" "<span id=\"total\">$n_pi</span>"
get "cases, decided, sorted by id descending" 200 '/runs/1/cases?status=decided&sort=id&dir=desc&per=5'
n_dec=$(sqlite3 "$DB" "select count(*) from verdicts where run = 1 and status = 'decided'")
has "cases, decided" "<span id=\"total\">$n_dec</span>"
first=$(sqlite3 "$DB" "select case_id from verdicts where run = 1 and status = 'decided'
    order by case_id desc limit 1")
[ "$(grep -o 'data-case="[^"]*"' "$T/body" | head -1)" = "data-case=\"$first\"" ] && ok ||
    bad "sorted by id descending: first row is not '$first'"
[ "$(grep -c 'class="case-row"' "$T/body")" -eq 5 ] && ok || bad "per=5 shows other than 5 rows"
get "search" 200 '/runs/1/cases?q=inv-02'
n_q=$(sqlite3 "$DB" "select count(distinct v.case_id) from verdicts v join cases c
    on c.run = v.run and c.case_id = v.case_id where v.run = 1 and (v.case_id like '%inv-02%'
    or c.prompt like '%inv-02%' or exists (select 1 from outputs o where o.run = 1 and
    o.case_id = v.case_id and o.content like '%inv-02%'))")
has "search" "<span id=\"total\">$n_q</span>"
get "bad flag" 400 '/runs/1/cases?flag=nope'
has "bad flag" 'flag: expected'
get "bad per" 400 '/runs/1/cases?per=0'

get "one case" 200 /runs/1/cases/inv-020
has "one case" 'class="output output-a"'
has "one case" 'class="output output-b"'
has "one case" 'id="judge"'
has "one case" 'id="checks"'
has "one case" 'id="verdict"'
has "one case" 'id="back-to-list"'
get "no such case" 404 /runs/1/cases/nope
get "no such run" 404 /runs/99
get "no such page" 404 /nope
get "favicon" 204 /favicon.ico
header "referrer policy" 'referrer-policy: same-origin'
get "css" 200 /assets/view.css
header "css" 'content-type: text/css'
get "js" 200 /assets/view.js
header "js" 'content-type: text/javascript'

# Hostile text is text, wherever it is shown.
get "hostile cases" 200 /runs/2/cases
lacks "hostile cases" '<script>window'
has "hostile cases" 'c&lt;1&gt;&quot;x'
get "hostile case" 200 '/runs/2/cases/c%3C1%3E%22x'
lacks "hostile case" '<script>window'
lacks "hostile case" '<img src=x'
has "hostile case" '&lt;script&gt;window.__pwned=1&lt;/script&gt;'
has "hostile case" 'javascript:window.__pwned=1'
lacks "hostile case" 'href="javascript:'

# A path is decoded once: a case id's own %41 is not an A.  Text that is not UTF-8, %00 (which
# would cut the text short) and too many arguments are refused, never dropped or cut.
get "case id with a per cent sign" 200 '/runs/2/cases/p%2541c'
has "case id with a per cent sign" '<h1 id="case-id">p%41c</h1>'
get "%00 in the path" 400 '/runs/2/cases/c2%00junk'
get "%00 in an argument" 400 '/runs/1/cases?status=decided%00junk'
get "an argument not UTF-8" 400 '/runs/1/cases?q=%FF'
get "65 arguments" 400 "/runs/1/cases?$(printf 'flag=pi&%.0s' $(seq 64))flag=pi"
get "64 arguments" 200 "/runs/1/cases?$(printf 'flag=pi&%.0s' $(seq 63))flag=pi"
get "+ is a space in a query" 200 '/runs/1/cases?q=a+b%2Bc'
has "+ is a space in a query" 'name="q" value="a b+c"'

# The checks before any page.
get "another Host" 403 / -H 'Host: evil.example'
get "localhost" 200 / -H "Host: localhost:$VPORT"
get "DELETE" 405 / -X DELETE
get "POST without a token" 403 /runs/1/label -d 'case=inv-001&pair=0&choice=A&annotator=x'
get "%00 in a form" 400 /runs/1/label -d "token=$TOKEN&case=inv-001%00x&pair=0&choice=A&annotator=x"
get "POST with the token, read-only" 403 /runs/1/label \
    -d "token=$TOKEN&case=inv-001&pair=0&choice=A&annotator=x"
get "label page, read-only" 200 /runs/1/label
has "label page, read-only" 'id="label-disabled"'
expect_cmd "view, the port taken" 4 "" "Address already in use" -- \
    "$ARB" view --db "$DB" --port "$VPORT" --no-warm
stop_view

# --bind spells an address as it likes; a browser sends it in its own form ([::1]).
rm -f "$T/v6.port"
"$ARB" view --db "$DB" --bind 0:0::1 --port 0 --port-file "$T/v6.port" --no-warm 2>"$T/v6.err" &
V6_PID=$!
i=0
while [ ! -s "$T/v6.port" ] && [ $i -lt 100 ] && kill -0 $V6_PID 2>/dev/null; do
    sleep 0.05
    i=$((i + 1))
done
if [ -s "$T/v6.port" ]; then
    P6=$(cat "$T/v6.port")
    code=$(curl -s -o /dev/null -w '%{http_code}' -g "http://[::1]:$P6/")
    [ "$code" = 200 ] && ok || bad "--bind 0:0::1, Host [::1]:$P6: status $code"
    code=$(curl -s -o /dev/null -w '%{http_code}' -g -H "Host: localhost:$P6" "http://[::1]:$P6/")
    [ "$code" = 200 ] && ok || bad "--bind 0:0::1, Host localhost:$P6: status $code"
    kill $V6_PID
    wait $V6_PID
else
    wait $V6_PID # no IPv6 loopback here: nothing to test
fi
# Bound to every address, the server is reached under any name other machines use: any Host
# naming its port (writes still need the token); another port is still refused.
rm -f "$T/any.port"
"$ARB" view --db "$DB" --bind 0.0.0.0 --port 0 --port-file "$T/any.port" --no-warm 2>"$T/any.err" &
ANY_PID=$!
i=0
while [ ! -s "$T/any.port" ] && [ $i -lt 100 ] && kill -0 $ANY_PID 2>/dev/null; do
    sleep 0.05
    i=$((i + 1))
done
if [ -s "$T/any.port" ]; then
    PA=$(cat "$T/any.port")
    code=$(curl -s -o /dev/null -w '%{http_code}' -H "Host: arbiter-box.example:$PA" "http://127.0.0.1:$PA/")
    [ "$code" = 200 ] && ok || bad "--bind 0.0.0.0, Host arbiter-box.example:$PA: status $code"
    code=$(curl -s -o /dev/null -w '%{http_code}' -H "Host: arbiter-box.example:1" "http://127.0.0.1:$PA/")
    [ "$code" = 403 ] && ok || bad "--bind 0.0.0.0, Host of another port: status $code"
    code=$(curl -s -o /dev/null -w '%{http_code}' -H "Host: <x>:$PA" "http://127.0.0.1:$PA/")
    [ "$code" = 403 ] && ok || bad "--bind 0.0.0.0, a Host that is no name: status $code"
    kill $ANY_PID
    wait $ANY_PID
else
    bad "--bind 0.0.0.0 did not listen: $(cat "$T/any.err")"
    wait $ANY_PID
fi
[ "$(sha256sum "$DB" | cut -d' ' -f1)" = "$sum_before" ] && ok ||
    bad "a read-only view changed the database file"
[ "$(sqlite3 "$DB" 'select count(*) from labels')" = 0 ] && ok || bad "labels written read-only"

# ---- labelling ---------------------------------------------------------------------------------
# A run whose task, prompt and outputs' file names spell its systems, and whose redaction list
# is long: the labelling page hides them all, as the judge had them hidden.
mkdir -p "$T/dir/a/d1" "$T/dir/b/d1" "$T/dir/a/d2" "$T/dir/b/d2"
printf 'hello secret01 and secret60\n' >"$T/dir/a/d1/alpha_sys.md"
printf 'hello there\n' >"$T/dir/b/d1/beta_sys.md"
awk 'BEGIN { for (i = 0; i < 150000; i++) printf "lorem ipsum\n" }' >"$T/dir/a/d2/out.txt"
printf 'short\n' >"$T/dir/b/d2/out.txt"
redact=$(awk 'BEGIN { for (i = 1; i <= 60; i++) printf "%s\"secret%02d\"", (i > 1 ? ", " : ""), i }')
cat >"$T/dir/suite.json" <<EOF
{"name": "dirs", "task": "Greet; alpha_sys and beta_sys answer", "seed": 3,
 "systems": {"alpha_sys": "a", "beta_sys": "b"}, "redact": [$redact],
 "expectations": [{"id": "hi", "text": "says hello", "check": {"op": "icontains", "expected": "hello"}}],
 "cases": [{"id": "d1", "prompt": "greet as beta_sys would"}, {"id": "d2", "prompt": "long"}]}
EOF
"$ARB" run "$T/dir/suite.json" --db "$DB" >"$T/run3.out" 2>&1 ||
    die "the directory run failed: $(cat "$T/run3.out")"

# A run of three systems (three pairs a case) whose first case id is 4 KB long.
LONG=$(awk 'BEGIN { for (i = 0; i < 4096; i++) printf "L" }')
mkdir -p "$T/three"
cat >"$T/three/suite.json" <<EOF
{"name": "three", "task": "t", "seed": 5,
 "systems": {"s_one": "1.jsonl", "s_two": "2.jsonl", "s_three": "3.jsonl"},
 "expectations": [{"id": "hi", "text": "says hi", "check": {"op": "icontains", "expected": "hi"}}],
 "cases": [{"id": "$LONG", "prompt": "p"}, {"id": "k2", "prompt": "p"}, {"id": "k3", "prompt": "p"}]}
EOF
for s in 1 2 3; do
    for c in "$LONG" k2 k3; do
        printf '{"id": "%s", "output": "hi %s"}\n' "$c" "$s"
    done >"$T/three/$s.jsonl"
done
"$ARB" run "$T/three/suite.json" --db "$DB" >"$T/run4.out" 2>&1 ||
    die "the three-system run failed: $(cat "$T/run4.out")"

start_view --label
get "label queue, a case id of 4 KB" 200 '/runs/4/label?annotator=w'
has "label queue, a case id of 4 KB" "name=\"case\" value=\"$LONG\""
TOKEN=$(sed -n 's/.*name="arbiter-token" content="\([0-9a-f]*\)".*/\1/p' "$T/body")
get "label a case id of 4 KB" 303 /runs/4/label -d "token=$TOKEN&case=$LONG&pair=0&choice=A&annotator=w"
header "label a case id of 4 KB" "location: /runs/4/label/$LONG?pair=0&annotator=w"
get "reveal a case id of 4 KB" 200 "/runs/4/label/$LONG?pair=0&annotator=w"
has "reveal a case id of 4 KB" 'id="revealed"'

# The link to a neighbour whose id is 4 KB long holds it whole.
get "the case after a case id of 4 KB" 200 /runs/4/cases/k2
prev=$(sed -n 's/.*id="prev-case" href="\([^"]*\)".*/\1/p' "$T/body")
[ "$prev" = "/runs/4/cases/$LONG" ] && ok ||
    bad "the link to the case before k2 is ${#prev} bytes long, not $((14 + ${#LONG}))"

# Three pairs on one case page, and no element id twice.
get "a case of three pairs" 200 /runs/4/cases/k3
has "a case of three pairs" 'id="outputs-3"'
dup=$(grep -o ' id="[^"]*"' "$T/body" | sort | uniq -d | head -3 | tr '\n' ' ')
[ -z "$dup" ] && ok || bad "a case of three pairs: ids given twice: $dup"

# A pair without a verdict yet (a run still running) is labelled as the pair it was shown as:
# the form's pair is a position among the case's blinding rows, not among its verdicts.
first=$(sqlite3 -separator '|' "$DB" "select b.system_a, b.system_b from blinding b
    join systems sa on sa.run = b.run and sa.name = b.system_a
    join systems sb on sb.run = b.run and sb.name = b.system_b where b.run = 4 and b.case_id = 'k2'
    order by min(sa.position, sb.position), max(sa.position, sb.position) limit 1")
sqlite3 "$DB" "delete from verdicts where run = 4 and case_id = 'k2' and
    system_a = '${first%|*}' and system_b = '${first#*|}'"
i=0
while [ $i -lt 12 ]; do
    curl -s -o "$T/q" "$BASE/runs/4/label?annotator=w"
    grep -q 'id="queue-done"' "$T/q" && break
    c=$(sed -n 's/.*name="case" value="\([^"]*\)".*/\1/p' "$T/q")
    k=$(sed -n 's/.*name="pair" value="\([^"]*\)".*/\1/p' "$T/q")
    code=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/runs/4/label" \
        -d "token=$TOKEN&case=$c&pair=$k&choice=B&annotator=w")
    [ "$code" = 303 ] && ok || bad "label pair $k of a case of run 4: status $code"
    i=$((i + 1))
done
grep -q 'id="queue-done"' "$T/q" && ok || bad "the queue of run 4 never ends (a pair labelled as another)"
n=$(sqlite3 "$DB" "select count(*) from labels l join blinding b on b.run = l.run and
    b.case_id = l.case_id and b.system_a = l.system_a and b.system_b = l.system_b
    where l.run = 4 and l.annotator = 'w'")
[ "$n" = 9 ] && ok || bad "run 4 has $n labels of w on its 9 pairs"
get "reveal a pair without a verdict" 200 '/runs/4/label/k2?pair=0&annotator=w'
has "reveal a pair without a verdict" "Response A was <strong class=\"system-a\">${first%|*}</strong>"
has "reveal a pair without a verdict" 'not decided this pair yet'
get "reveal, a pair that is no number" 404 '/runs/4/label/k2?pair=0x&annotator=w'
get "label queue, directory outputs" 200 '/runs/3/label?annotator=z'
lacks "label queue, file names" 'alpha_sys'
lacks "label queue, file names" 'beta_sys'
lacks "label queue, the 60th redacted string" 'secret60'
lacks "label queue, the first redacted string" 'secret01'
has "label queue, file names" '[REDACTED].md'
TOKEN=$(sed -n 's/.*name="arbiter-token" content="\([0-9a-f]*\)".*/\1/p' "$T/body")
get "label the directory pair" 303 /runs/3/label -d "token=$TOKEN&case=d1&pair=0&choice=tie&annotator=z"
get "label queue, a 1.8 MB output" 200 '/runs/3/label?annotator=z'
has "label queue, a 1.8 MB output" 'more bytes not shown]'
get "label page asks a name" 200 /runs/1/label
has "label page asks a name" 'id="annotator"'
# A C1 control character (U+0085, C2 85) in a name is refused when it is asked, not on save.
get "a name with a C1 control" 200 '/runs/1/label?annotator=a%C2%85b'
has "a name with a C1 control" 'A name has 1 to 100 characters'
lacks "a name with a C1 control" 'id="label-form"'
get "label queue" 200 '/runs/1/label?annotator=ann%201'
has "label queue" 'id="label-form"'
has "label queue" 'id="response-a"'
has "label queue" 'id="response-b"'
lacks "label queue (blind)" 'baseline'
lacks "label queue (blind)" 'candidate'
lacks "label queue: no link to the cases" 'href="/runs/1/cases"'
lacks "label queue: no link to the labels" 'href="/runs/1/labels"'
lacks "label queue: no link to the report" 'href="/runs/1/report"'
lacks "label queue: no link to the run" 'href="/runs/1"'
TOKEN=$(sed -n 's/.*name="arbiter-token" content="\([0-9a-f]*\)".*/\1/p' "$T/body")
case_id=$(sed -n 's/.*name="case" value="\([^"]*\)".*/\1/p' "$T/body")
pair=$(sed -n 's/.*name="pair" value="\([^"]*\)".*/\1/p' "$T/body")
[ -n "$case_id" ] && [ "$pair" = 0 ] && ok || bad "the form names no case and pair ('$case_id' '$pair')"
first_case=$(sqlite3 "$DB" "select case_id from cases c where run = 1 and
    (select count(*) from outputs o where o.run = 1 and o.case_id = c.case_id) >= 2
    order by seq limit 1")
[ "$case_id" = "$first_case" ] && ok || bad "the queue starts at '$case_id', want '$first_case'"
get "POST a token of another session" 403 /runs/1/label \
    -d "token=$(printf '%064d' 0)&case=$case_id&pair=0&choice=A&annotator=ann+1"
get "POST from another origin" 403 /runs/1/label -H 'Origin: http://evil.example' \
    -d "token=$TOKEN&case=$case_id&pair=0&choice=A&annotator=ann+1"
get "POST with Origin null" 403 /runs/1/label -H 'Origin: null' \
    -d "token=$TOKEN&case=$case_id&pair=0&choice=A&annotator=ann+1"
get "POST a bad choice" 400 /runs/1/label -d "token=$TOKEN&case=$case_id&pair=0&choice=C&annotator=ann+1"
get "POST a label" 303 /runs/1/label -H "Origin: $BASE" \
    -d "token=$TOKEN&case=$case_id&pair=0&choice=A&crit.correctness=B&note=close+call&annotator=ann+1"
header "POST a label" "location: /runs/1/label/$case_id?pair=0&annotator=ann%201"
row=$(sqlite3 -separator '|' "$DB" "select annotator, choice, winner, shown_first, criteria_json, note
    from labels where run = 1 and case_id = '$case_id'")
shown=$(sqlite3 "$DB" "select system_a from blinding where run = 1 and case_id = '$case_id'")
[ "$row" = "ann 1|A|$shown|$shown|{\"correctness\":\"B\"}|close call" ] && ok ||
    bad "the stored label is '$row' (A was shown as '$shown')"
get "reveal" 200 "/runs/1/label/$case_id?pair=0&annotator=ann%201"
has "reveal" 'id="revealed"'
has "reveal" "$shown"
has "reveal" 'id="label-next"'
get "reveal to another annotator" 403 "/runs/1/label/$case_id?pair=0&annotator=ann%202"
get "queue moves on" 200 '/runs/1/label?annotator=ann%201'
next_case=$(sed -n 's/.*name="case" value="\([^"]*\)".*/\1/p' "$T/body")
[ -n "$next_case" ] && [ "$next_case" != "$case_id" ] && ok || bad "the queue did not move on"
get "labels page" 200 /runs/1/labels
has "labels page" 'id="labels"'
has "labels page" 'ann 1'
stop_view

test_done
