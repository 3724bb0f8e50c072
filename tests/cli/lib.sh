# tests/cli/lib.sh: the shell plumbing the command-line test scripts share, after git's
# t/test-lib.sh: a temporary directory removed at exit, check counting, the test judge
# (tests/judge_sim) on ephemeral ports, and the summary line.  POSIX sh (dash), sourced:
#
#     #!/bin/sh
#     # what the script tests
#     # usage: tests/cli/x.sh path/to/arbiter path/to/judge_sim
#     . "$(dirname "$0")/lib.sh"
#     TEST_NAME=x-name                    # only when the summary names it otherwise
#     ARB="$1"
#     SIM="$2"
#     ... ok / bad / expect_cmd / start_sim ...
#     test_done
#
# Sourcing it turns on `set -u`, creates $T, and arranges that at exit (also on HUP, INT and
# TERM) every judge started with start_sim is stopped and $T is removed.
#
# Variables it sets:
#   T           a fresh temporary directory (mktemp -d, named after the script).  With KEEP=1
#               in the environment it is kept at exit and its path printed on stderr
#               ("kept /tmp/arbiter-x.AbC123"), for debugging.
#   pass, fail  the number of passed and failed checks so far (0 and 0 at first).
#   TEST_NAME   the name the summary line starts with: the script's file name without .sh.
#               Set it after sourcing to print another.
#   PORT        after start_sim: the port of the judge it started (save it before starting
#               another if you need both).
#   SIM_PID     after start_sim: the process id of the judge it started.
#
# Variables it reads:
#   SIM          the judge_sim binary, for start_sim.
#   SIM_TIMEOUT  whole seconds start_sim waits for a judge's port file (default 10).
#   SIM_STOP_TIMEOUT  whole seconds stop_sim waits for a judge to exit after SIGTERM
#                (default 5).
#   STDIN        for expect_cmd: text given to the command on its standard input (unset or
#                empty: /dev/null).  Set it for one call: STDIN='{"a": 1}' expect_cmd ...
#   KEEP         1 (any value but empty or 0): keep $T at exit (see T).
#
# Functions:
#   ok                   count a passed check.
#   bad MESSAGE...       count a failed check and print "FAIL: MESSAGE" on stdout.
#   expect_cmd NAME WANT_EXIT WANT_STDOUT WANT_STDERR -- COMMAND [ARG...]
#                        one check: run COMMAND (standard input from $STDIN, else /dev/null;
#                        standard output to $T/out, standard error to $T/err, where the caller
#                        may read them afterwards); it passes when COMMAND exits WANT_EXIT and
#                        its output holds the fixed string WANT_STDOUT and its error output
#                        WANT_STDERR (an empty string is not looked for).  A failure prints
#                        "FAIL: NAME (exit N, want WANT_EXIT)" and the first 600 bytes of each.
#   start_sim [-n NAME] [-p PORT] [--] [ARG...]
#                        start the test judge "$SIM" on 127.0.0.1, on an ephemeral port (or on
#                        PORT with -p, e.g. the one it had before a restart), with the judge_sim
#                        flags ARG...; stop the judge of that NAME first if it is running.  NAME
#                        (default "sim"; letters, digits and _) lets several judges run at once.
#                        Its files: $T/NAME.port (the port file), $T/NAME.log (its --log,
#                        emptied at each start), $T/NAME.err (its standard error).  Waits up to
#                        SIM_TIMEOUT seconds for the port file, then sets PORT and SIM_PID.  A
#                        judge that exits or writes no port file in time is a failed check
#                        naming it, with its standard error, and ends the script (test_done).
#   stop_sim [NAME]      stop the judge NAME (default "sim"): SIGTERM, then wait for it to
#                        exit.  One still running after SIM_STOP_TIMEOUT seconds is a failed
#                        check and gets SIGKILL.  Nothing when NAME is not running.
#   stop_all_sims        stop every judge start_sim started (done at exit anyway).
#   die MESSAGE...       a failed check that ends the script: bad MESSAGE, then test_done.
#   test_done            print the summary line "TEST_NAME: N passed, M failed" and exit: 0
#                        when no check failed, 1 otherwise.  The last line of every script.
#
# Everything else here is named lib_* (functions and variables): scripts leave those alone.

set -u

ok() {
    pass=$((pass + 1))
}

bad() {
    fail=$((fail + 1))
    printf 'FAIL: %s\n' "$*"
}

die() {
    bad "$@"
    test_done
}

test_done() {
    printf '%s: %s passed, %s failed\n' "$TEST_NAME" "$pass" "$fail"
    [ "$fail" = 0 ] && exit 0
    exit 1
}

expect_cmd() {
    lib_what=$1 lib_want_rc=$2 lib_want_out=$3 lib_want_err=$4
    shift 4
    [ "${1:-}" = -- ] && shift
    if [ -n "${STDIN:-}" ]; then
        printf '%s' "$STDIN" | "$@" >"$T/out" 2>"$T/err"
    else
        "$@" >"$T/out" 2>"$T/err" </dev/null
    fi
    lib_rc=$?
    if [ "$lib_rc" = "$lib_want_rc" ] &&
        { [ -z "$lib_want_out" ] || grep -qF -- "$lib_want_out" "$T/out"; } &&
        { [ -z "$lib_want_err" ] || grep -qF -- "$lib_want_err" "$T/err"; }; then
        ok
    else
        bad "$lib_what (exit $lib_rc, want $lib_want_rc)
  stdout: $(head -c 600 "$T/out")
  stderr: $(head -c 600 "$T/err")"
    fi
}

# lib_sim_name NAME: refuse a judge name that cannot be part of a variable name.
lib_sim_name() {
    case $1 in
    '' | *[!A-Za-z0-9_]*) die "start_sim/stop_sim: judge name '$1' is not letters, digits and _" ;;
    esac
}

start_sim() {
    lib_name=sim
    lib_port=0
    while [ $# -gt 0 ]; do
        case $1 in
        -n) lib_name=$2; shift 2 ;;
        -p) lib_port=$2; shift 2 ;;
        --) shift; break ;;
        *) break ;;
        esac
    done
    lib_sim_name "$lib_name"
    [ -x "${SIM:-}" ] || die "start_sim: no judge_sim binary at '${SIM:-}' (set SIM)"
    stop_sim "$lib_name"
    lib_pf="$T/$lib_name.port"
    rm -f "$lib_pf"
    : >"$T/$lib_name.log"
    "$SIM" --port "$lib_port" --port-file "$lib_pf" --log "$T/$lib_name.log" "$@" \
        >/dev/null 2>"$T/$lib_name.err" &
    SIM_PID=$!
    eval "lib_pid_$lib_name=\$SIM_PID"
    case " $lib_sims " in *" $lib_name "*) ;; *) lib_sims="$lib_sims $lib_name" ;; esac
    lib_i=0
    lib_why=
    while [ ! -s "$lib_pf" ]; do
        if ! kill -0 "$SIM_PID" 2>/dev/null; then
            lib_why="exited before writing its port file"
            break
        fi
        if [ "$lib_i" -ge $((${SIM_TIMEOUT:-10} * 20)) ]; then
            lib_why="wrote no port file within ${SIM_TIMEOUT:-10} s"
            break
        fi
        sleep 0.05
        lib_i=$((lib_i + 1))
    done
    PORT=$(cat "$lib_pf" 2>/dev/null)
    case $PORT in
    '' | *[!0-9]*)
        die "judge_sim '$lib_name' ($SIM --port $lib_port${*:+ $*}) ${lib_why:-wrote '$PORT' as its port}: $(head -c 600 "$T/$lib_name.err")"
        ;;
    esac
}

stop_sim() {
    lib_name=${1:-sim}
    lib_sim_name "$lib_name"
    eval "lib_p=\${lib_pid_$lib_name:-}"
    [ -n "$lib_p" ] || return 0
    eval "lib_pid_$lib_name="
    kill "$lib_p" 2>/dev/null
    lib_i=0
    while kill -0 "$lib_p" 2>/dev/null; do
        if [ "$lib_i" -ge $((${SIM_STOP_TIMEOUT:-5} * 50)) ]; then
            kill -9 "$lib_p" 2>/dev/null
            [ -n "$lib_exiting" ] ||
                bad "judge_sim '$lib_name' (pid $lib_p) did not stop within ${SIM_STOP_TIMEOUT:-5} s of SIGTERM"
            break
        fi
        sleep 0.02
        lib_i=$((lib_i + 1))
    done
    wait "$lib_p" 2>/dev/null
    return 0
}

stop_all_sims() {
    for lib_s in $lib_sims; do
        stop_sim "$lib_s"
    done
}

lib_cleanup() {
    lib_exiting=1
    stop_all_sims
    if [ -n "${KEEP:-}" ] && [ "$KEEP" != 0 ]; then
        printf 'kept %s\n' "$T" >&2
    else
        chmod -R u+w "$T" 2>/dev/null
        rm -rf "$T"
    fi
}

pass=0
fail=0
PORT=
SIM_PID=
lib_sims=
lib_exiting=
lib_base=${0##*/}
lib_base=${lib_base%.sh}
TEST_NAME=$lib_base
T=$(mktemp -d "${TMPDIR:-/tmp}/arbiter-$lib_base.XXXXXX") || {
    echo "$lib_base: cannot create a temporary directory" >&2
    exit 2
}
trap lib_cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
