#!/bin/sh
# The cache key names the judge (issue 16): two judges that answer differently, one database.
# compare, run, replay --rejudge and calibrate with judge B, after judge A filled the cache,
# must return exactly what judge B returns on a database of its own.  Twice: two command
# judges (tests/judge_sim --stdio with different seeds; and one relative script in two
# directories), and two HTTP judges (tests/judge_sim on two ports, the same model name).
# usage: tests/cli/identity.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
LC_ALL=C
export LC_ALL
ARB="$1"
SIM="$2"
case "$ARB" in /*) ;; *) ARB="$PWD/$ARB" ;; esac
case "$SIM" in /*) ;; *) SIM="$PWD/$SIM" ;; esac
q() { sqlite3 "$1" "$2"; }
export ARB_ID_KEY=identity-canary-key

# The inputs: a suite of 8 cases whose free-text expectation only a judge decides, two
# outputs for compare, and 6 labelled pairs for calibrate.
mkdir -p "$T/s"
awk -v dir="$T/s" 'BEGIN {
    for (i = 0; i < 8; i++) {
        id = sprintf("c%d", i)
        printf "{\"id\":\"%s\",\"expectations\":[{\"id\":\"polite\",\"text\":\"The answer is polite\"}]}\n", id >(dir "/cases.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"Answer %d, kindly.\"}\n", id, i >(dir "/a.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"It is %d.\"}\n", id, i >(dir "/b.jsonl")
        printf "{\"id\":\"p%d\",\"prompt\":\"Q%d\",\"output_1\":\"one %d\",\"output_2\":\"two %d\",\"human\":\"1\"}\n", i, i, i, i >(dir "/labels.jsonl")
    }
}'
cat >"$T/s/suite.json" <<'JSON'
{"name": "identity", "seed": 5, "task": "Answer the question.",
 "systems": {"alpha": "a.jsonl", "beta": "b.jsonl"},
 "cases": "cases.jsonl"}
JSON
printf 'Paris, if I may.' >"$T/ca.txt"
printf 'Paris.' >"$T/cb.txt"
printf '["Answers politely"]' >"$T/ce.json"

# verdicts DB RUN: the run's verdicts, whole.
verdicts() {
    q "$1" "SELECT case_id, system_a, system_b, status, winner, comparison_json FROM v_verdicts
            WHERE run = $2 ORDER BY case_id"
}

# items FILE: a calibration study's per-item verdicts.
items() {
    q :memory: "SELECT json_extract(readfile('$1'), '\$.items')"
}

# check_pair NAME A.json B.json: judge B after judge A, on one database, against judge B alone.
check_pair() {
    name=$1
    ja=$2
    jb=$3
    d="$T/$name"
    mkdir -p "$d"
    # compare
    $ARB compare --task "Capital of France?" --expectations "$T/ce.json" --judge "$ja" \
        --db "$d/x.db" -o "$d/cmp-a.json" "$T/ca.txt" "$T/cb.txt" >/dev/null 2>"$d/err" ||
        bad "$name: compare A: $(cat "$d/err")"
    $ARB compare --task "Capital of France?" --expectations "$T/ce.json" --judge "$jb" \
        --db "$d/x.db" -o "$d/cmp-b.json" "$T/ca.txt" "$T/cb.txt" >/dev/null 2>"$d/err" ||
        bad "$name: compare B: $(cat "$d/err")"
    $ARB compare --task "Capital of France?" --expectations "$T/ce.json" --judge "$jb" \
        --db "$d/b.db" -o "$d/cmp-b-alone.json" "$T/ca.txt" "$T/cb.txt" >/dev/null 2>"$d/err" ||
        bad "$name: compare B alone: $(cat "$d/err")"
    if cmp -s "$d/cmp-a.json" "$d/cmp-b-alone.json"; then
        bad "$name: the two judges answer alike: the test would test nothing"
    else ok; fi
    cmp -s "$d/cmp-b.json" "$d/cmp-b-alone.json" && ok ||
        bad "$name: compare with judge B returned judge A's answers"
    # run
    $ARB run "$T/s/suite.json" --judge "$ja" --db "$d/x.db" >/dev/null 2>"$d/err" ||
        bad "$name: run A: $(cat "$d/err")"
    ra=$(q "$d/x.db" "SELECT max(id) FROM runs")
    $ARB run "$T/s/suite.json" --judge "$jb" --db "$d/x.db" >/dev/null 2>"$d/err" ||
        bad "$name: run B: $(cat "$d/err")"
    rb=$(q "$d/x.db" "SELECT max(id) FROM runs")
    $ARB run "$T/s/suite.json" --judge "$jb" --db "$d/b.db" >/dev/null 2>"$d/err" ||
        bad "$name: run B alone: $(cat "$d/err")"
    rb_alone=$(q "$d/b.db" "SELECT max(id) FROM runs")
    [ "$(verdicts "$d/x.db" "$ra")" != "$(verdicts "$d/b.db" "$rb_alone")" ] && ok ||
        bad "$name: the two judges' runs agree: the test would test nothing"
    [ "$(verdicts "$d/x.db" "$rb")" = "$(verdicts "$d/b.db" "$rb_alone")" ] && ok ||
        bad "$name: run with judge B returned judge A's answers"
    [ "$(q "$d/x.db" "SELECT count(*) FROM judgments WHERE run = $rb AND cached = 1")" = 0 ] &&
        ok || bad "$name: judge B's run was answered from judge A's replies"
    # replay --rejudge: run A re-judged by B
    $ARB replay "$ra" --rejudge "$jb" --db "$d/x.db" >"$d/out" 2>"$d/err" ||
        bad "$name: rejudge: $(cat "$d/out" "$d/err")"
    rr=$(q "$d/x.db" "SELECT max(id) FROM runs")
    [ "$(verdicts "$d/x.db" "$rr")" = "$(verdicts "$d/b.db" "$rb_alone")" ] && ok ||
        bad "$name: replay --rejudge with judge B did not return judge B's answers"
    $ARB report "$rr" --against "$ra" --db "$d/x.db" --format json -o "$d/against.json" 2>"$d/err" ||
        bad "$name: report --against: $(cat "$d/err")"
    [ "$(q :memory: "SELECT json_extract(readfile('$d/against.json'), '\$.against.changed')")" != 0 ] &&
        ok || bad "$name: re-judging by another judge changed no verdict"
    # calibrate
    $ARB calibrate "$T/s/labels.jsonl" --judge "$ja" --db "$d/x.db" >"$d/cal-a.json" 2>"$d/err" ||
        bad "$name: calibrate A: $(cat "$d/err")"
    $ARB calibrate "$T/s/labels.jsonl" --judge "$jb" --db "$d/x.db" >"$d/cal-b.json" 2>"$d/err" ||
        bad "$name: calibrate B: $(cat "$d/err")"
    $ARB calibrate "$T/s/labels.jsonl" --judge "$jb" --db "$d/b.db" >"$d/cal-b-alone.json" 2>"$d/err" ||
        bad "$name: calibrate B alone: $(cat "$d/err")"
    [ "$(items "$d/cal-a.json")" != "$(items "$d/cal-b-alone.json")" ] && ok ||
        bad "$name: the two judges' studies agree: the test would test nothing"
    [ -n "$(items "$d/cal-b.json")" ] && [ "$(items "$d/cal-b.json")" = "$(items "$d/cal-b-alone.json")" ] &&
        ok || bad "$name: calibrate with judge B read judge A's replies"
    # --no-cache still reads nothing, and B's replies answer B again (from the cache).
    before=$(q "$d/x.db" "SELECT count(*) FROM judge_calls")
    $ARB run "$T/s/suite.json" --judge "$jb" --db "$d/x.db" >/dev/null 2>&1
    rb2=$(q "$d/x.db" "SELECT max(id) FROM runs")
    [ "$(q "$d/x.db" "SELECT count(*) FROM judgments WHERE run = $rb2 AND cached = 0")" = 0 ] &&
        ok || bad "$name: judge B's second run was not answered from its own replies"
    $ARB run "$T/s/suite.json" --judge "$jb" --db "$d/x.db" --no-cache >/dev/null 2>&1
    rb3=$(q "$d/x.db" "SELECT max(id) FROM runs")
    [ "$(q "$d/x.db" "SELECT count(*) FROM judgments WHERE run = $rb3 AND cached = 1")" = 0 ] &&
        ok || bad "$name: --no-cache read the cache"
    [ "$(q "$d/x.db" "SELECT count(*) FROM judge_calls")" = "$before" ] && ok ||
        bad "$name: the same judge's requests were stored under new keys"
}

# 1. Two command judges: one program, two seeds (two argv).
printf '{"provider": "command", "command": ["%s", "--stdio", "--seed", "1"]}' "$SIM" >"$T/cmd-a.json"
printf '{"provider": "command", "command": ["%s", "--stdio", "--seed", "2"]}' "$SIM" >"$T/cmd-b.json"
check_pair command "$T/cmd-a.json" "$T/cmd-b.json"

# 2. One relative argv in two directories: two programs.  Each judge config names its "cwd".
for s in 3 4; do
    mkdir -p "$T/dir$s"
    printf '#!/bin/sh\nexec "%s" --stdio --seed %s\n' "$SIM" "$s" >"$T/dir$s/judge.sh"
    chmod +x "$T/dir$s/judge.sh"
    printf '{"provider": "command", "command": ["./judge.sh"], "cwd": "%s"}' "$T/dir$s" >"$T/cwd-$s.json"
done
check_pair cwd "$T/cwd-3.json" "$T/cwd-4.json"
# Without "cwd": the directory Arbiter runs in, recorded with the run.
(cd "$T/dir3" && $ARB run "$T/s/suite.json" --judge "$T/cmd-a.json" --db "$T/cwd.db" >/dev/null 2>&1)
[ "$(q "$T/cwd.db" "SELECT json_extract(judge_json, '\$.cwd') FROM runs")" = "$T/dir3" ] && ok ||
    bad "the command judge's directory is not recorded: $(q "$T/cwd.db" "SELECT judge_json FROM runs")"

# 3. Two HTTP judges: two servers serving the same model name, different seeds (both running
#    at once: judges sim1 and sim2, their requests in $T/sim1.log and $T/sim2.log).
for s in 1 2; do
    start_sim -n "sim$s" --seed "$s"
    printf '{"provider": "openai", "base_url": "http://127.0.0.1:%s/v1", "model": "same-model", "api_key_env": "ARB_ID_KEY"}' \
        "$PORT" >"$T/http-$s.json"
done
check_pair http "$T/http-1.json" "$T/http-2.json"
# The same server reached with credentials in its URL and a trailing slash is the same judge:
# answered from the cache (and the credentials are hashed nowhere, so nothing differs).
sed "s|http://127.0.0.1|http://user:pw-canary@127.0.0.1|; s|/v1\"|/v1/\"|" "$T/http-2.json" >"$T/http-2c.json"
n=$(wc -l <"$T/sim2.log")
$ARB run "$T/s/suite.json" --judge "$T/http-2c.json" --db "$T/http/x.db" >/dev/null 2>"$T/err" ||
    bad "credentials in base_url: $(cat "$T/err")"
[ "$(wc -l <"$T/sim2.log")" = "$n" ] && ok ||
    bad "the same endpoint with credentials and a trailing slash missed the cache"

test_done
