#!/bin/sh
# Command-line tests: run the real binary and check exit codes and output.
# usage: tests/cli/run.sh path/to/arbiter      (VALGRIND="valgrind ..." to wrap it)
set -u
ARB="$1"
[ -x "$ARB" ] || { echo "cli tests: no binary at '$ARB'"; exit 2; }
ARB="${VALGRIND:-} $ARB"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

# t NAME WANT_EXIT WANT_STDOUT_SUBSTRING WANT_STDERR_SUBSTRING -- ARGS...
# Runs arbiter with ARGS (stdin from $STDIN when set) and checks all three.
t() {
    name=$1 want_rc=$2 want_out=$3 want_err=$4
    shift 5
    if [ -n "${STDIN:-}" ]; then
        printf '%s' "$STDIN" | $ARB "$@" >"$T/out" 2>"$T/err"
    else
        $ARB "$@" >"$T/out" 2>"$T/err" </dev/null
    fi
    rc=$?
    ok=1
    [ "$rc" = "$want_rc" ] || ok=0
    [ -z "$want_out" ] || grep -qF -- "$want_out" "$T/out" || ok=0
    [ -z "$want_err" ] || grep -qF -- "$want_err" "$T/err" || ok=0
    if [ $ok = 1 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $name (exit $rc, want $want_rc)"
        echo "  stdout: $(head -c 600 "$T/out")"
        echo "  stderr: $(head -c 600 "$T/err")"
    fi
}

# The rest of the file is the cases.
. "$(dirname "$0")/cases.sh"

echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]
