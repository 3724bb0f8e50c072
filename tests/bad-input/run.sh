#!/bin/sh
# Bad-input tests: every case folder NN-name/ under tests/bad-input/ holds
#   cmd      one shell command line, run from the case folder; $ARB is the binary, $TMP a fresh
#            temporary directory, $CASE the case folder (absolute)
#   exit     the expected exit code
#   message  a fixed string the FIRST line of stderr must contain (grep -F); the text $TMP in
#            it stands for the case's temporary directory; an empty file means stderr must
#            be empty
#   setup    (optional) sh script run first, from the case folder, with the same variables;
#            exit 77 skips the case (e.g. no permission to mount a small filesystem)
#   check    (optional) sh script run after cmd; non-zero fails the case (stdout/stderr of cmd
#            are in $OUT and $ERR)
#   cleanup  (optional) sh script always run last (unmount, stop a lock holder)
# and its input files.  A case also fails when cmd was killed by a signal (exit >= 128: a
# crash) or ran into the timeout (BAD_INPUT_TIMEOUT seconds, default 60: a hang).
# usage: sh tests/bad-input/run.sh path/to/arbiter [NAME-SUBSTRING]
set -u
[ $# -ge 1 ] || { echo "usage: $0 path/to/arbiter [NAME-SUBSTRING]" >&2; exit 2; }
case "$1" in
/*) ARB="$1" ;;
*) ARB="$(pwd)/$1" ;;
esac
[ -x "$ARB" ] || { echo "bad-input: no binary at '$1'" >&2; exit 2; }
ONLY="${2:-}"
HERE=$(cd "$(dirname "$0")" && pwd)
LIMIT="${BAD_INPUT_TIMEOUT:-60}"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
pass=0
fail=0
skip=0
export ARB

for dir in "$HERE"/[0-9]*/; do
    [ -f "$dir/cmd" ] || continue
    dir=${dir%/}
    name=${dir##*/}
    case "$name" in *"$ONLY"*) ;; *) continue ;; esac
    TMP=$(mktemp -d)
    CASE=$dir
    OUT="$W/$name.out"
    ERR="$W/$name.err"
    export TMP CASE OUT ERR
    why=""
    msg=""
    src=0
    if [ -f "$dir/setup" ]; then
        (cd "$dir" && sh ./setup) >"$W/setup.log" 2>&1
        src=$?
    fi
    if [ "$src" = 77 ]; then
        why=skip
    elif [ "$src" != 0 ]; then
        why="setup failed: $(head -c 300 "$W/setup.log")"
    else
        cmd=$(cat "$dir/cmd")
        start=$(date +%s)
        (cd "$dir" && timeout -s KILL "$LIMIT" sh -c "$cmd") >"$OUT" 2>"$ERR" </dev/null
        rc=$?
        took=$(($(date +%s) - start))
        want=$(cat "$dir/exit")
        line=$(head -n 1 "$ERR")
        msg=$(sed "s|\\\$TMP|$TMP|g" "$dir/message")
        if [ "$rc" -ge 128 ]; then
            if [ "$took" -ge "$LIMIT" ]; then
                why="hang: killed after ${took}s (timeout ${LIMIT}s)"
            else
                why="crash: killed by signal $((rc - 128))"
            fi
        elif [ "$took" -ge "$LIMIT" ]; then
            why="took ${took}s, the limit is ${LIMIT}s"
        elif [ "$rc" != "$want" ]; then
            why="exit $rc, want $want"
        elif [ -z "$msg" ] && [ -s "$ERR" ]; then
            why="stderr should be empty"
        elif [ -n "$msg" ] && ! printf '%s\n' "$line" | grep -qF -- "$msg"; then
            why="first stderr line lacks the message"
        elif [ -f "$dir/check" ] && ! (cd "$dir" && sh ./check) >"$W/check.log" 2>&1; then
            why="check failed: $(head -c 400 "$W/check.log")"
        fi
        [ -z "$why" ] || why="$why
  want: $msg
  got:  $(head -c 600 "$ERR" | head -n 1)"
    fi
    [ -f "$dir/cleanup" ] && (cd "$dir" && sh ./cleanup) >/dev/null 2>&1
    if [ "$why" = skip ]; then
        skip=$((skip + 1))
        echo "SKIP: $name: $(tail -n 1 "$W/setup.log")"
    elif [ -z "$why" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: $name: $why"
    fi
    chmod -R u+w "$TMP" 2>/dev/null
    rm -rf "$TMP"
done

skipped=""
[ "$skip" = 0 ] || skipped=", $skip skipped"
echo "bad-input: $pass passed, $fail failed$skipped"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
