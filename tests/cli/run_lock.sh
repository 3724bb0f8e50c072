#!/bin/sh
# One process at a time continues a run (arb_store_lock_run, src/store/store_lock.c):
# - while a judged run waits on a slow judge, `run --resume` of it is refused (exit 4, saying
#   another process has it) and asks the judge nothing; another run of the same database is
#   not refused;
# - killed with SIGKILL, the run's lock goes with the process: the resume then finishes it,
#   every case decided.
# usage: tests/cli/run_lock.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
TEST_NAME=run-lock
ARB="$1"
SIM="$2"
export ARB_LOCK_KEY=lock-key-42

start_sim --latency-ms 1500

mkdir -p "$T/s"
awk -v n=8 -v dir="$T/s" 'BEGIN {
    for (i = 0; i < n; i++) {
        id = sprintf("q%d", i)
        printf "{\"id\":\"%s\",\"expected\":\"%d\"}\n", id, i >(dir "/cases.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"The answer is %d.\"}\n", id, i >(dir "/a.jsonl")
        printf "{\"id\":\"%s\",\"output\":\"It is %d.\"}\n", id, i >(dir "/b.jsonl")
    }
}'
cat >"$T/s/suite.json" <<JSON
{"name": "lock test", "task": "Answer.", "systems": {"alpha": "a.jsonl", "beta": "b.jsonl"},
 "rubric": {"content": [{"name": "clarity"}], "structure": []},
 "judge": {"provider": "openai", "base_url": "http://127.0.0.1:$PORT/v1", "model": "sim",
           "api_key_env": "ARB_LOCK_KEY", "concurrency": 2, "swap": false},
 "cases": "cases.jsonl"}
JSON

# The first run: 8 cases, two questions at a time, 1.5 s each (6 s in all).
$ARB run "$T/s/suite.json" --db "$T/x.db" >"$T/first.out" 2>&1 &
first=$!
i=0
while [ "$(sqlite3 "$T/x.db" "SELECT count(*) FROM verdicts" 2>/dev/null || echo 0)" -lt 8 ] &&
    [ $i -lt 100 ]; do
    sleep 0.1
    i=$((i + 1))
done
kill -0 $first 2>/dev/null || die "the first run ended before the test could resume it: $(cat "$T/first.out")"
asked=$(wc -l <"$T/sim.log")

expect_cmd "a resume while the run goes on" 4 "" \
    "run 1 in '$T/x.db' is in use by another arbiter process" -- \
    $ARB run --resume 1 --db "$T/x.db"
[ "$(wc -l <"$T/sim.log")" -le $((asked + 2)) ] && ok ||
    bad "the refused resume asked the judge: $(($(wc -l <"$T/sim.log") - asked)) more requests"
expect_cmd "another run of the same database meanwhile" 0 "" "" -- \
    $ARB run "$T/s/suite.json" --db "$T/x.db" --no-judge

# Killed: the kernel drops its lock, and the resume finishes the run.
kill -9 $first
wait $first 2>/dev/null
expect_cmd "a resume after the kill" 0 "8 decided" "" -- $ARB run --resume 1 --db "$T/x.db"
[ "$(sqlite3 "$T/x.db" "SELECT count(*) FROM verdicts WHERE run = 1 AND status = 'decided'")" = 8 ] &&
    ok || bad "run 1 is not decided whole after the resume"
[ -f "$T/x.db-lock" ] && [ ! -s "$T/x.db-lock" ] && ok || bad "no empty lock file beside the database"

test_done
