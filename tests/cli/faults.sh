#!/bin/sh
# Faults: concurrent writers on one database with a reader meanwhile; a judge
# that is down for a while, then back, and --resume finishing the run.
# usage: tests/cli/faults.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
ARB="$1"
SIM="$2"

# 1. Two runs write one database at once (WAL, busy timeout); a reader reports meanwhile.
$ARB run examples/invoice/suite.json --db "$T/w.db" --batch 2 >"$T/o1" 2>&1 &
p1=$!
$ARB run examples/invoice/suite.json --db "$T/w.db" --batch 3 >"$T/o2" 2>&1 &
p2=$!
readers=0
while kill -0 $p1 2>/dev/null || kill -0 $p2 2>/dev/null; do
    if $ARB runs --db "$T/w.db" >/dev/null 2>&1; then readers=$((readers + 1)); fi
    sleep 0.01
done
wait $p1 && ok || bad "first concurrent run: $(cat "$T/o1")"
wait $p2 && ok || bad "second concurrent run: $(cat "$T/o2")"
[ "$($ARB runs --db "$T/w.db" | wc -l)" -eq 2 ] && ok || bad "two runs expected: $($ARB runs --db "$T/w.db")"
$ARB report 1 --db "$T/w.db" --format json >"$T/r1" && $ARB report 2 --db "$T/w.db" --format json >"$T/r2" && ok || bad "reports after concurrent runs"
grep -q '"decided":	17' "$T/r1" && grep -q '"decided":	17' "$T/r2" && ok || bad "concurrent runs decided differently"
[ "$readers" -gt 0 ] && ok || bad "no reader got through while the runs wrote"

# 2. The judge is down (every request 503): the run ends with a clear status, and
#    --resume finishes it once the judge is back.
start_sim --status-always 503
mkdir -p "$T/j" && cp -r examples/invoice/* "$T/j/"
sed -i "s|\"policy\"|\"judge\": {\"provider\": \"openai\", \"base_url\": \"http://127.0.0.1:$PORT/v1\", \"model\": \"sim\", \"api_key_env\": \"ARB_FAULT_KEY\", \"max_retries\": 2, \"timeout_s\": 2},\n  \"policy\"|" "$T/j/suite.json"
export ARB_FAULT_KEY=k
$ARB run "$T/j/suite.json" --db "$T/j.db" --json >"$T/out" 2>"$T/err"
rc=$?
[ $rc -eq 4 ] && ok || bad "outage: exit $rc, want 4: $(cat "$T/err")"
grep -q "got no reply after every retry" "$T/err" && grep -q "arbiter run --resume 1" "$T/err" && ok || bad "outage message: $(cat "$T/err")"
grep -q '"judge_failed":12' "$T/out" && ok || bad "outage: $(cat "$T/out")"
start_sim -p "$PORT"    # back on the port the suite names
$ARB run --resume 1 --db "$T/j.db" --json >"$T/out" 2>"$T/err" && ok || bad "resume after the outage: $(cat "$T/err")"
grep -q '"pending_judge":0,"missing_output":1,"judge_failed":0' "$T/out" && ok || bad "after resume: $(cat "$T/out")"

test_done
