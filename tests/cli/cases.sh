# Cases for tests/cli/run.sh (sourced): t NAME EXIT STDOUT_HAS STDERR_HAS -- ARGS...
D=tests/data/cli

# Top level.
t "help lists check" 0 "check" "" -- --help
t "version" 0 "arbiter " "" -- --version
t "no command is usage" 2 "" "usage: arbiter COMMAND" --
t "unknown command" 2 "" "unknown command 'frobnicate'" -- frobnicate
t "help check" 0 "--observed-file" "" -- help check

# check: verdicts and exit codes.
t "pass exits 0" 0 '"verdict":"pass"' "" -- check '{"op":"normalized_exact","expected":"The answer is 42."}' --observed 'the answer is  42.'
t "record has every member in order" 0 '{"operator":"exact","expected":"a","observed":"a","normalization":[],"notes":[],"score":1,"threshold":1,"fail_below":null,"verdict":"pass"}' "" -- check '{"op":"exact","expected":"a"}' --observed a
t "fail exits 1" 1 '"verdict":"fail"' "" -- check '{"op":"exact","expected":"a"}' --observed b
t "unresolved exits 3" 3 '"verdict":"unresolved"' "" -- check '{"op":"levenshtein","expected":"kitten","threshold":0.8,"fail_below":0.5}' --observed sitting
t "check --help" 0 "usage: arbiter check" "" -- check --help
t "operators listed" 0 "trajectory_any_order" "" -- check --operators
STDIN='{"a": 1}' t "observed from stdin" 0 '"score":1' "" -- check '{"op":"json_valid"}'
t "observed from file" 0 '"verdict":"pass"' "" -- check '{"op":"contains","expected":"Acme"}' --observed-file $D/out.txt
t "check from @file with expected_file relative to it" 0 '"verdict":"pass"' "" -- check @$D/check_schema_file.json --observed '{"invoiceNumber":"INV-1","total":12.5}'
t "directory output with file" 0 '"verdict":"pass"' "" -- check '{"op":"contains","expected":"hello","file":"answer.txt"}' --observed-file $D/outdir
t "directory output without file" 2 "" "is a directory" -- check '{"op":"contains","expected":"hello"}' --observed-file $D/outdir
t "invalid pattern is a note, not a crash" 1 'invalid_regex_pattern' "" -- check '{"op":"regex","expected":"(unclosed"}' --observed x
t "not json text noted" 1 'json_parse_failed' "" -- check '{"op":"json_valid"}' --observed '{"a":'

# check: usage and input errors exit 2 with a message naming the problem.
t "missing CHECK" 2 "" "missing CHECK" -- check
t "malformed CHECK names line and column" 2 "" "CHECK: line 1, column 14: unexpected end of input" -- check '{"op":"exact"' --observed a
t "unknown operator suggests" 2 "" "/op: unknown operator 'exactt' (did you mean 'exact'?)" -- check '{"op":"exactt","expected":"a"}' --observed a
t "unknown parameter" 2 "" "/tolerence: unknown parameter 'tolerence' for operator 'within'" -- check '{"op":"within","expected":1,"tolerence":2}' --observed 1
t "no expected anywhere" 2 "" "needs an expected value" -- check '{"op":"exact"}' --observed 1
t "both observed options" 2 "" "not both" -- check '{"op":"json_valid"}' --observed a --observed-file b
t "unknown option" 2 "" "unknown or incomplete option '--obs'" -- check '{"op":"json_valid"}' --obs a
t "missing observed file" 2 "" "cannot open 'no/such/file'" -- check '{"op":"json_valid"}' --observed-file no/such/file
t "missing check file" 2 "" "cannot open 'no/such.json'" -- check @no/such.json --observed a
t "two CHECKs" 2 "" "unexpected argument" -- check '{"op":"json_valid"}' '{"op":"json_valid"}' --observed a

# check --batch: one record per line, in order; bad lines reported inline.
t "batch records in order" 0 '"line":3,"error":"/check/op: unknown operator' "" -- check --batch $D/batch.jsonl
t "batch counts lines" 0 "" "" -- check --batch $D/batch.jsonl
if [ "$(wc -l <"$T/out")" -eq "$(wc -l <$D/batch.jsonl)" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: batch writes exactly one line per input line"; fi
sed -n 1p "$T/out" | grep -q '"operator":"exact".*"verdict":"pass"' && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: batch line 1"; }
sed -n 2p "$T/out" | grep -q '"operator":"regex".*"verdict":"fail"' && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: batch line 2"; }
sed -n 4p "$T/out" | grep -q '"line":4,"error":"line 1, column' && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: batch line 4 (malformed JSON)"; }
sed -n 5p "$T/out" | grep -q '"line":5,"error":"/observed: missing"' && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: batch line 5 (missing observed)"; }
sed -n 6p "$T/out" | grep -q '"expected":"INV-1".*"verdict":"pass"' && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: batch line 6 (case expected)"; }
sed -n 7p "$T/out" | grep -q '"line":7,"error":"/extra: unknown key' && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: batch line 7 (unknown key)"; }
sed -n 8p "$T/out" | grep -q '"observed":"{\\"a\\":1}"' && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: batch line 8 (non-string observed)"; }
STDIN='{"check":{"op":"contains","expected":"b"},"observed":"abc"}
' t "batch from stdin" 0 '"verdict":"pass"' "" -- check --batch -
STDIN=$(printf '{"check":{"op":"exact","expected":"a"},"observed":"a"}\r\n{"check":{"op":"exact","expected":"a"},"observed":"b"}\r\n') t "batch CRLF lines" 0 '"verdict":"fail"' "" -- check --batch -
t "batch missing file" 2 "" "cannot open 'no/such.jsonl'" -- check --batch no/such.jsonl
t "batch extra argument" 2 "" "--batch takes one FILE" -- check --batch a b

# Every record a batch writes conforms to schemas/record.schema.json (checked by Arbiter itself).
$ARB check --batch tests/data/cli/batch.jsonl | grep '"operator"' >"$T/records.jsonl"
$ARB check --batch examples/checks.jsonl >>"$T/records.jsonl"
n=0
while IFS= read -r rec; do
    n=$((n + 1))
    printf '%s' "$rec" >"$T/rec.json"
    if $ARB check '{"op":"json_schema","expected_file":"schemas/record.schema.json"}' \
        --observed-file "$T/rec.json" >"$T/v.out" 2>&1; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: record $n does not match schemas/record.schema.json: $(head -c 400 "$T/v.out")"
    fi
done <"$T/records.jsonl"
