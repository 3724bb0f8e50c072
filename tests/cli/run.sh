#!/bin/sh
# Command-line tests: run the real binary and check exit codes and output.
# usage: tests/cli/run.sh path/to/arbiter      (VALGRIND="valgrind ..." to wrap it)
. "$(dirname "$0")/lib.sh"
TEST_NAME=cli
ARB="$1"
[ -x "$ARB" ] || { echo "cli tests: no binary at '$ARB'"; exit 2; }
ARB="${VALGRIND:-} $ARB"

# t NAME WANT_EXIT WANT_STDOUT_SUBSTRING WANT_STDERR_SUBSTRING -- ARGS...
# Runs arbiter with ARGS (stdin from $STDIN when set) and checks all three (expect_cmd).
t() {
    t_name=$1 t_rc=$2 t_out=$3 t_err=$4
    shift 5
    expect_cmd "$t_name" "$t_rc" "$t_out" "$t_err" -- $ARB "$@"
}

# The rest of the file is the cases.
. "$(dirname "$0")/cases.sh"

test_done
