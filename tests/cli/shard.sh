#!/bin/sh
# arbiter run --shard K/N and arbiter merge: four shards of a suite partition its cases by the
# blinding HMAC's bucket; merged, they make the unsharded run, record for record and report for
# report (byte for byte, but for created_at where the runs started in different seconds and the
# judge's measured latency: see README.md, "Shards that merge"); shards that do not belong
# together are refused naming the files; --resume keeps to the shard; a judged merge brings the
# judge cache along, so a replay or re-judge of the merged run sends no request.
# usage: tests/cli/shard.sh path/to/arbiter path/to/judge_sim
. "$(dirname "$0")/lib.sh"
ARB="$1"
SIM="$2"
N=240

# A generated bake-off of N cases, two systems.  a (JSONL) repeats some cases' lines
# (duplicate_output problems, found in every shard's own cases) and answers for cases the suite
# lacks, one in the middle and one at the end (unknown_case, found by every shard); b (a
# directory) misses every 13th case and has a file for a case the suite lacks.
gen() { # DIR N
    mkdir -p "$1/bdir"
    awk -v n="$2" -v dir="$1" 'BEGIN {
        for (i = 0; i < n; i++) {
            id = sprintf("c%05d", i)
            printf "{\"id\":\"%s\",\"expected\":{\"n\":%d,\"name\":\"Item %d\"}}\n", id, i, i % 97 >(dir "/cases.jsonl")
            line = sprintf("{\"id\":\"%s\",\"output\":\"{\\\"n\\\": %d, \\\"name\\\": \\\"item %d\\\"}\"}", id, i + (i % 7 == 0), i % 97)
            print line >(dir "/a.jsonl")
            if (i % 37 == 5) print line >(dir "/a.jsonl")
            if (i == n / 2) print "{\"id\":\"zz-unknown-1\",\"output\":\"{}\"}" >(dir "/a.jsonl")
            f = dir "/bdir/" id ".json"
            if (i % 13 != 0) { printf "{\"n\": %d, \"name\": \"Item %d\"}\n", i, i % 89 >f; close(f) }
        }
        print "{\"id\":\"zz-unknown-2\",\"output\":\"{}\"}" >(dir "/a.jsonl")
        print "{}" >(dir "/bdir/zz-unknown-3.json")
    }'
}
cat >"$T/suite.json" <<'JSON'
{"name": "shard test", "seed": 3, "systems": {"a": "a.jsonl", "b": "bdir"},
 "fields": {"n": "exact", "name": "name"},
 "rubric": {"content": [{"name": "correctness", "check": {"op": "fields", "fail_below": 0.4}},
                        {"name": "completeness"}],
            "structure": [{"name": "formatting", "check": {"op": "json_valid"}}]},
 "expectations": [{"id": "has-n", "text": "has n", "check": {"op": "json_match", "keys": ["n"]}},
                  {"id": "short", "text": "short", "check": {"op": "levenshtein", "expected": "{\"n\": 1}", "threshold": 0.2}}],
 "cases": "cases.jsonl"}
JSON
gen "$T/b" "$N"
cp "$T/suite.json" "$T/b/suite.json"
SUITE="$T/b/suite.json"

# q DB SQL: one query's rows.
q() { sqlite3 "$1" "$2"; }

# dump DB OUT: every record of run 1 in id (or rowid) order, without the run id: two
# databases whose dumps are equal hold the same rows in the same order.
dump() {
    for sql in "SELECT case_id, seq, prompt, expected_json, case_json FROM cases ORDER BY rowid" \
        "SELECT id, case_id, system, trial, file, content, size, binary, sha256, meta_json FROM outputs ORDER BY id" \
        "SELECT case_id, system_a, system_b, hmac FROM blinding ORDER BY rowid" \
        "SELECT id, case_id, system, kind, item, verdict, score, record_json FROM v_checks ORDER BY id" \
        "SELECT id, case_id, system_a, system_b, status, winner, score_a, score_b, pass_rate_a, pass_rate_b, comparison_json FROM v_verdicts ORDER BY id" \
        "SELECT id, kind, case_id, system, message FROM problems ORDER BY id" \
        "SELECT case_id, system, trial, passed, n_pass, n_fail, n_unresolved, records_json FROM trials ORDER BY rowid" \
        "SELECT case_id, system_a, system_b, ord, sample, attempt, key, valid, cached, answer_json, error, fence, reply_sha256 FROM judgments ORDER BY id" \
        "SELECT name, path, position FROM systems ORDER BY position" \
        "SELECT status, suite_path, suite_name, suite_sha256, suite_json, systems_json, seed, version, judge_json, scope_json, inputs_json, kind, procedure_hash FROM runs"; do
        printf '%s\n' "-- $sql"
        q "$1" "$sql"
    done >"$2"
}

# reports DB PREFIX: run 1's reports (json, markdown, html, statistical markdown and json).
reports() {
    $ARB report 1 --db "$1" --format json >"$2.json" &&
        $ARB report 1 --db "$1" >"$2.md" &&
        $ARB report 1 --db "$1" --format html >"$2.html" &&
        $ARB report 1 --db "$1" --strategy statistical >"$2.st.md" &&
        $ARB report 1 --db "$1" --strategy statistical --format json >"$2.st.json" ||
        bad "reports of '$1'"
}

# same_reports A B WHAT [SED]: the reports of A and B are byte-identical (after SED on both).
same_reports() {
    for f in json md html st.md st.json; do
        if [ -n "${4:-}" ]; then
            sed "$4" "$1.$f" >"$1.$f.cmp"
            sed "$4" "$2.$f" >"$2.$f.cmp"
        else
            cp "$1.$f" "$1.$f.cmp"
            cp "$2.$f" "$2.$f.cmp"
        fi
        if cmp -s "$1.$f.cmp" "$2.$f.cmp"; then ok; else
            bad "$3: the $f reports differ: $(diff "$1.$f.cmp" "$2.$f.cmp" | head -8)"
        fi
    done
}

# created_at is when each run started: the same in both only when they started in the same
# second, so it is masked (the merged run takes the earliest shard's).
MASK_DATE='s/[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z/DATE/g'

# 1. The unsharded run and four shards, each into a database of its own.
$ARB run "$SUITE" --db "$T/u.db" >"$T/out" 2>&1 || die "unsharded run: $(cat "$T/out")"
for k in 1 2 3 4; do
    $ARB run "$SUITE" --shard "$k/4" --db "$T/s$k.db" >"$T/out" 2>&1 || die "shard $k/4: $(cat "$T/out")"
done

# 2. The shards partition the cases: each case in one shard, all of them in some, about N/4
# each; and each case's shard is the bucket of its blinding HMAC (N = 4 divides 2^64, so the
# number in the last 16 hex digits, mod 4, is the last digit mod 4).
for k in 1 2 3 4; do q "$T/s$k.db" "SELECT case_id FROM cases"; done | sort >"$T/all-shards"
q "$T/u.db" "SELECT case_id FROM cases" | sort >"$T/all-cases"
[ "$(wc -l <"$T/all-cases")" -eq "$N" ] && cmp -s "$T/all-shards" "$T/all-cases" && ok ||
    bad "the shards' cases are not the suite's, each once: $(diff "$T/all-cases" "$T/all-shards" | head -5)"
for k in 1 2 3 4; do
    n=$(q "$T/s$k.db" "SELECT count(*) FROM cases")
    [ "$n" -ge $((N / 8)) ] && [ "$n" -le $((N * 3 / 8)) ] && ok || bad "shard $k/4 has $n of $N cases"
    wrong=$(q "$T/s$k.db" "SELECT count(*) FROM blinding WHERE (instr('0123456789abcdef', substr(hmac, 64, 1)) - 1) % 4 + 1 <> $k")
    [ "$wrong" = 0 ] && ok || bad "shard $k/4: $wrong cases whose HMAC's bucket is another"
done
[ "$(q "$T/s2.db" "SELECT scope_json FROM runs")" = '{"shard":{"k":2,"n":4}}' ] && ok ||
    bad "shard 2/4's scope_json: $(q "$T/s2.db" "SELECT scope_json FROM runs")"
# Every shard found the problems of cases the suite lacks; each its own duplicates.
[ "$(q "$T/s3.db" "SELECT count(*) FROM problems WHERE kind = 'unknown_case'")" = 3 ] && ok ||
    bad "shard 3/4's unknown_case problems"

# 3. Merged (in any order of the arguments), the shards make the unsharded run: every row in
# the same order, and the same reports.
expect_cmd "merge" 0 "run 1: merged 4 shards into" "" -- \
    $ARB merge "$T/s3.db" "$T/s1.db" "$T/s4.db" "$T/s2.db" --into "$T/m.db"
dump "$T/u.db" "$T/u.dump"
dump "$T/m.db" "$T/m.dump"
cmp -s "$T/u.dump" "$T/m.dump" && ok || bad "merged records differ: $(diff "$T/u.dump" "$T/m.dump" | head -6)"
[ "$(q "$T/m.db" "SELECT count(*) FROM problems")" -gt 3 ] && ok || bad "the test has too few problems"
reports "$T/u.db" "$T/u"
reports "$T/m.db" "$T/m"
same_reports "$T/u" "$T/m" "merged" "$MASK_DATE"
# created_at: the earliest shard's.
[ "$(q "$T/m.db" "SELECT created_at FROM runs")" = "$(for k in 1 2 3 4; do q "$T/s$k.db" "SELECT created_at FROM runs"; done | sort | head -1)" ] &&
    ok || bad "created_at is not the earliest shard's"
expect_cmd "replay of the merged run" 0 "all identical" "" -- $ARB replay 1 --db "$T/m.db"
# A second merge into the same file is another run, beside the first.
expect_cmd "merge again" 0 '{"run":2,"shards":4,"db":' "" -- \
    $ARB merge "$T/s1.db" "$T/s2.db" "$T/s3.db" "$T/s4.db" --into "$T/m.db" --json
$ARB report 2 --db "$T/m.db" --format json | sed "$MASK_DATE" | sed 's/"id":	2,/"id":	1,/' >"$T/m2.json"
sed "$MASK_DATE" "$T/u.json" | cmp -s - "$T/m2.json" && ok || bad "the second merged run's report"

# 4. A selection and the shard: the selection first, then split.  The shards of --limit 100
# merge into the unsharded --limit 100 run, scope and all.
$ARB run "$SUITE" --limit 100 --db "$T/ul.db" >/dev/null 2>&1 || bad "run --limit 100"
for k in 1 2 3 4; do
    $ARB run "$SUITE" --limit 100 --shard "$k/4" --db "$T/l$k.db" >/dev/null 2>&1 || bad "shard $k/4 of --limit 100"
done
[ "$(for k in 1 2 3 4; do q "$T/l$k.db" "SELECT count(*) FROM cases"; done | awk '{s += $1} END {print s}')" = 100 ] &&
    ok || bad "the shards of --limit 100 do not hold 100 cases"
$ARB merge "$T/l1.db" "$T/l2.db" "$T/l3.db" "$T/l4.db" --into "$T/ml.db" >/dev/null 2>&1 || bad "merge --limit 100"
[ "$(q "$T/ml.db" "SELECT scope_json FROM runs")" = '{"limit":100}' ] && ok ||
    bad "merged scope_json: $(q "$T/ml.db" "SELECT scope_json FROM runs")"
dump "$T/ul.db" "$T/ul.dump"
dump "$T/ml.db" "$T/ml.dump"
cmp -s "$T/ul.dump" "$T/ml.dump" && ok || bad "merged --limit records differ: $(diff "$T/ul.dump" "$T/ml.dump" | head -6)"
reports "$T/ul.db" "$T/ul"
reports "$T/ml.db" "$T/ml"
same_reports "$T/ul" "$T/ml" "merged --limit 100" "$MASK_DATE"

# 5. Shards that do not belong together are refused, naming the files; nothing is written.
$ARB run "$SUITE" --shard 2/4 --seed 8 --db "$T/seed8.db" >/dev/null 2>&1 || bad "shard with seed 8"
sed 's/"shard test"/"shard test, renamed"/' "$SUITE" >"$T/b/other.json"
$ARB run "$T/b/other.json" --shard 3/4 --db "$T/other.db" >/dev/null 2>&1 || bad "shard of another suite"
$ARB run "$SUITE" --shard 1/3 --db "$T/third.db" >/dev/null 2>&1 || bad "shard 1/3"
$ARB run "$SUITE" --shard 2/4 --db "$T/s2b.db" >/dev/null 2>&1 || bad "shard 2/4 again"
$ARB run "$SUITE" --shard 4/4 --limit 200 --db "$T/lim.db" >/dev/null 2>&1 || bad "shard of --limit 200"
cp -r "$T/b/bdir" "$T/bdir2"
printf '{"n": 1, "name": "changed"}\n' >"$T/bdir2/c00001.json"
$ARB run "$SUITE" --shard 3/4 --system "b=$T/bdir2" --db "$T/inputs.db" >/dev/null 2>&1 || bad "shard with other outputs"
printf '{"provider": "command", "command": ["%s", "--stdio"]}\n' "$SIM" >"$T/simjudge.json"
$ARB run "$SUITE" --shard 3/4 --judge "$T/simjudge.json" --db "$T/judge.db" >"$T/out" 2>&1 ||
    bad "shard with a judge: $(cat "$T/out")"
cp "$T/s4.db" "$T/running.db"
q "$T/running.db" "UPDATE runs SET status = 'running'"
refuse() { # NAME MESSAGE SHARD.db...
    r_name=$1 r_msg=$2
    shift 2
    expect_cmd "$r_name" 2 "" "$r_msg" -- $ARB merge "$@" --into "$T/none.db"
    [ ! -s "$T/none.db" ] || [ "$(q "$T/none.db" "SELECT count(*) FROM runs")" = 0 ] && ok ||
        bad "$r_name: a run was written"
}
refuse "another seed" "'$T/seed8.db' ran with seed 8, '$T/s1.db' with seed 3" \
    "$T/s1.db" "$T/seed8.db" "$T/s3.db" "$T/s4.db"
refuse "another suite" "'$T/other.db' ran another suite than '$T/s1.db'" \
    "$T/s1.db" "$T/s2.db" "$T/other.db" "$T/s4.db"
refuse "a missing shard" "shard 3/4 is missing" "$T/s1.db" "$T/s2.db" "$T/s4.db"
refuse "missing shards" "shards 2/4, 3/4 are missing" "$T/s1.db" "$T/s4.db"
refuse "a duplicated shard" "'$T/s2.db' and '$T/s2b.db' are both shard 2/4" \
    "$T/s1.db" "$T/s2.db" "$T/s2b.db" "$T/s3.db" "$T/s4.db"
refuse "a shard given twice" "'$T/s2.db' and '$T/s2.db' are both shard 2/4" \
    "$T/s1.db" "$T/s2.db" "$T/s2.db" "$T/s3.db" "$T/s4.db"
refuse "a shard still running" "'$T/running.db': shard 4/4 (run 1) is not complete (status running): finish it with 'arbiter run --resume 1" \
    "$T/s1.db" "$T/s2.db" "$T/s3.db" "$T/running.db"
refuse "another selection" "'$T/lim.db' ran another selection of cases (--limit, --cases) than '$T/s1.db': {\"limit\":200}, not every case" \
    "$T/s1.db" "$T/s2.db" "$T/s3.db" "$T/lim.db"
refuse "other outputs" "'$T/inputs.db' read other input files than '$T/s1.db' (system 'b': another size or SHA-256)" \
    "$T/s1.db" "$T/s2.db" "$T/inputs.db" "$T/s4.db"
refuse "another judge" "'$T/judge.db' ran with another judge config than '$T/s1.db' (judge $(q "$T/judge.db" "SELECT substr(json_extract(judge_json, '$.hash'), 1, 12) FROM runs"), not none)" \
    "$T/s1.db" "$T/s2.db" "$T/judge.db" "$T/s4.db"
refuse "another split" "'$T/third.db' is shard 1/3, '$T/s1.db' shard 1/4" "$T/s1.db" "$T/third.db"
refuse "not a shard" "'$T/u.db': run 1 is not a shard (it ran without --shard K/N)" "$T/u.db"
refuse "more than one run" "'$T/m.db' holds 2 runs" "$T/m.db"
refuse "no such file" "no database at '$T/nope.db'" "$T/s1.db" "$T/nope.db"
expect_cmd "into one of the shards" 2 "" "'$T/s1.db' is one of the shards ('$T/s1.db')" -- \
    $ARB merge "$T/s1.db" "$T/s2.db" "$T/s3.db" "$T/s4.db" --into "$T/s1.db"
[ "$(q "$T/s1.db" "SELECT count(*) FROM runs")" = 1 ] && ok || bad "the shard was written to"
expect_cmd "merge without --into" 2 "" "missing --into" -- $ARB merge "$T/s1.db"
expect_cmd "merge without shards" 2 "" "missing SHARD.db" -- $ARB merge --into "$T/none.db"

# 6. --shard's values are checked like every option's.
for v in 0/4 5/4 3 a/b 1/0 /4 4/ 2/1025 -1/4 "1/4x"; do
    expect_cmd "--shard $v" 2 "" "arbiter run: --shard: expected K/N, whole numbers with 1 <= K <= N <= 1024 (e.g. 2/4), got '$v'" -- \
        $ARB run "$SUITE" --shard "$v" --db "$T/bad.db"
done
[ ! -e "$T/bad.db" ] && ok || bad "a refused --shard left a database"
expect_cmd "--shard with --resume" 2 "" "no --system, --seed, --limit, --cases or --shard" -- \
    $ARB run --resume 1 --shard 1/4 --db "$T/s1.db"

# 7. --resume keeps to the shard: shard 2/4 interrupted while loading its cases (the last
# cases, their records and verdicts gone, the run still running) resumes to exactly its own
# cases, not the suite's.
cp "$T/s2.db" "$T/r2.db"
cut=$(q "$T/r2.db" "SELECT seq FROM cases ORDER BY seq LIMIT 1 OFFSET 20")
q "$T/r2.db" "PRAGMA foreign_keys = ON;
    DELETE FROM verdicts WHERE case_id IN (SELECT case_id FROM cases WHERE seq >= $cut);
    DELETE FROM checks WHERE case_id IN (SELECT case_id FROM cases WHERE seq >= $cut);
    DELETE FROM blinding WHERE case_id IN (SELECT case_id FROM cases WHERE seq >= $cut);
    DELETE FROM outputs WHERE case_id IN (SELECT case_id FROM cases WHERE seq >= $cut);
    DELETE FROM cases WHERE seq >= $cut;
    UPDATE runs SET status = 'running'"
expect_cmd "resume shard 2/4" 0 "run 1: $(q "$T/s2.db" "SELECT count(*) FROM cases") cases" "" -- \
    $ARB run --resume 1 --db "$T/r2.db"
[ "$(q "$T/r2.db" "SELECT case_id FROM cases ORDER BY seq")" = "$(q "$T/s2.db" "SELECT case_id FROM cases ORDER BY seq")" ] &&
    [ "$(q "$T/r2.db" "SELECT count(*) FROM verdicts")" = "$(q "$T/s2.db" "SELECT count(*) FROM verdicts")" ] && ok ||
    bad "the resumed shard holds other cases than shard 2/4"
expect_cmd "merge with the resumed shard" 0 "merged 4 shards" "" -- \
    $ARB merge "$T/s1.db" "$T/r2.db" "$T/s3.db" "$T/s4.db" --into "$T/mr.db"
reports "$T/mr.db" "$T/mr"
same_reports "$T/u" "$T/mr" "merged with the resumed shard" "$MASK_DATE"

# 8. Judged: the invoice example with the test judge as a command judge (as examples/demo.sh),
# through a wrapper that counts the requests.  The shards ask what the unsharded run asks; the
# merged run's reports are the unsharded run's but for the judge's measured latency (its calls
# are the shards', timed when they ran); its judge cache came along, so a replay and a re-judge
# by the same judge send nothing.
cat >"$T/judge.sh" <<SH
#!/bin/sh
echo request >>"$T/requests.log"
exec "$SIM" --stdio
SH
printf '{"provider": "command", "command": ["sh", "%s"], "timeout_s": 60}\n' "$T/judge.sh" >"$T/judge.json"
: >"$T/requests.log"
INVOICE=examples/invoice/suite.json
$ARB run "$INVOICE" --judge "$T/judge.json" --db "$T/uj.db" >"$T/out" 2>&1 || die "judged run: $(cat "$T/out")"
unsharded=$(wc -l <"$T/requests.log")
[ "$unsharded" -gt 0 ] && ok || bad "the judged run asked nothing"
for k in 1 2 3 4; do
    $ARB run "$INVOICE" --judge "$T/judge.json" --shard "$k/4" --db "$T/j$k.db" >"$T/out" 2>&1 ||
        bad "judged shard $k/4: $(cat "$T/out")"
done
[ "$(wc -l <"$T/requests.log")" -eq $((unsharded * 2)) ] && ok ||
    bad "the shards asked $(($(wc -l <"$T/requests.log") - unsharded)) requests, the unsharded run $unsharded"
expect_cmd "judged merge" 0 "run 1: merged 4 shards" "" -- \
    $ARB merge "$T/j1.db" "$T/j2.db" "$T/j3.db" "$T/j4.db" --into "$T/mj.db"
[ "$(q "$T/mj.db" "SELECT key, reply_json FROM judge_calls ORDER BY key")" = \
    "$(q "$T/uj.db" "SELECT key, reply_json FROM judge_calls ORDER BY key")" ] && ok ||
    bad "the merged judge cache is not the unsharded run's"
reports "$T/uj.db" "$T/uj"
reports "$T/mj.db" "$T/mj"
same_reports "$T/uj" "$T/mj" "judged, merged" \
    "$MASK_DATE;s/\"latency_s\":.*/\"latency_s\": L/;s|[0-9.]* s</span><span class=\"k\">judge latency|L|"
before=$(wc -l <"$T/requests.log")
expect_cmd "replay of the judged merged run" 0 "all identical" "" -- $ARB replay 1 --db "$T/mj.db"
expect_cmd "re-judge of the judged merged run" 0 "its " "" -- \
    $ARB replay 1 --rejudge "$T/judge.json" --db "$T/mj.db"
[ "$(wc -l <"$T/requests.log")" -eq "$before" ] && ok ||
    bad "the replay and re-judge sent $(($(wc -l <"$T/requests.log") - before)) requests"
[ "$(q "$T/mj.db" "SELECT count(*) FROM judgments WHERE run = 2 AND cached = 0")" = 0 ] && ok ||
    bad "the re-judge made judgments that were not cached"

# The cache's rules.  A request two shards hold with other replies (here one made up in a copy
# of shard 1 for a request of shard 2) keeps the first shard's reply under its key, the other
# aside; a stored reply that is not valid (in the file merged into) gives way to a shard's
# valid one, and is moved aside.  The merged run's judgments still find every reply they used.
key=$(q "$T/j2.db" "SELECT key FROM judge_calls ORDER BY key LIMIT 1")
key3=$(q "$T/j3.db" "SELECT key FROM judge_calls ORDER BY key LIMIT 1")
cp "$T/j1.db" "$T/jx1.db"
q "$T/jx1.db" "ATTACH '$T/j2.db' AS o; INSERT INTO judge_calls SELECT * FROM o.judge_calls WHERE key = '$key';
    UPDATE judge_calls SET reply_json = '{\"made\": \"up\"}' WHERE key = '$key'"
expect_cmd "merge two replies to one request" 0 "run 1: merged 4 shards" "" -- \
    $ARB merge "$T/jx1.db" "$T/j2.db" "$T/j3.db" "$T/j4.db" --into "$T/my.db"
[ "$(q "$T/my.db" "SELECT reply_json FROM judge_calls WHERE key = '$key'")" = '{"made": "up"}' ] &&
    [ "$(q "$T/my.db" "ATTACH '$T/j2.db' AS o; SELECT count(*) FROM judge_calls_rejected r JOIN o.judge_calls c ON c.key = r.key AND c.reply_json = r.reply_json WHERE r.key = '$key'")" = 1 ] &&
    [ "$(q "$T/my.db" "SELECT count(*) FROM judge_calls_rejected")" = 1 ] &&
    ok || bad "two replies to one request: $(q "$T/my.db" "SELECT key, reply_json FROM judge_calls_rejected")"
expect_cmd "replay of a merged run whose cache kept a reply aside" 0 "all identical" "" -- \
    $ARB replay 1 --db "$T/my.db"
cp "$T/uj.db" "$T/mx.db"
q "$T/mx.db" "UPDATE judge_calls SET valid = 0, reply_json = '{\"not\": \"valid\"}' WHERE key = '$key3'"
expect_cmd "merge into a file with a cache" 0 "run 2: merged 4 shards" "" -- \
    $ARB merge "$T/j1.db" "$T/j2.db" "$T/j3.db" "$T/j4.db" --into "$T/mx.db"
[ "$(q "$T/mx.db" "ATTACH '$T/j3.db' AS o; SELECT count(*) FROM judge_calls c JOIN o.judge_calls s ON s.key = c.key AND s.reply_json = c.reply_json WHERE c.key = '$key3' AND c.valid = 1")" = 1 ] &&
    [ "$(q "$T/mx.db" "SELECT count(*) FROM judge_calls_rejected WHERE key = '$key3' AND reply_json = '{\"not\": \"valid\"}'")" = 1 ] &&
    ok || bad "a reply that is not valid did not give way"
expect_cmd "replay of a merged run whose cache moved a reply aside" 0 "all identical" "" -- \
    $ARB replay 2 --db "$T/mx.db"

# 9. A kill at any moment leaves the file merged into without the run, or with all of it: a
# merge of 20,000 cases killed at several points, then merged to the end.
gen "$T/big" 20000
cp "$T/suite.json" "$T/big/suite.json"
for k in 1 2 3 4; do
    $ARB run "$T/big/suite.json" --shard "$k/4" --db "$T/big$k.db" >"$T/out" 2>&1 ||
        bad "big shard $k/4: $(cat "$T/out")"
done
start=$(date +%s.%N)
$ARB merge "$T/big1.db" "$T/big2.db" "$T/big3.db" "$T/big4.db" --into "$T/bigref.db" >/dev/null 2>&1 ||
    bad "big merge"
took=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }')
cases=$(q "$T/bigref.db" "SELECT count(*) FROM cases")
[ "$cases" = 20000 ] && ok || bad "the big merge has $cases cases"
killed=0
for frac in 0.1 0.3 0.5 0.7 0.9 0.97; do
    rm -f "$T/kill.db" "$T/kill.db-wal" "$T/kill.db-shm"
    $ARB merge "$T/big1.db" "$T/big2.db" "$T/big3.db" "$T/big4.db" --into "$T/kill.db" >/dev/null 2>&1 &
    pid=$!
    sleep "$(awk -v t="$took" -v f="$frac" 'BEGIN { printf "%.3f", t * f }')"
    kill -9 "$pid" 2>/dev/null && killed=$((killed + 1))
    wait "$pid" 2>/dev/null
    [ -e "$T/kill.db" ] || continue
    runs=$(q "$T/kill.db" "SELECT count(*) FROM runs" 2>&1)
    n=$(q "$T/kill.db" "SELECT count(*) FROM cases" 2>&1)
    { [ "$runs" = 0 ] && [ "$n" = 0 ]; } || { [ "$runs" = 1 ] && [ "$n" = 20000 ]; } && ok ||
        bad "killed at $frac of ${took}s: $runs runs, $n cases"
    [ "$(q "$T/kill.db" "PRAGMA integrity_check")" = ok ] && ok || bad "killed at $frac: integrity"
    if [ "$runs" = 0 ]; then
        $ARB merge "$T/big1.db" "$T/big2.db" "$T/big3.db" "$T/big4.db" --into "$T/kill.db" >/dev/null 2>&1 &&
            [ "$(q "$T/kill.db" "SELECT count(*) FROM cases")" = 20000 ] && ok ||
            bad "merge after the kill at $frac"
    fi
done
[ "$killed" -gt 0 ] && ok || bad "no merge was killed (each took under the pauses)"

test_done
