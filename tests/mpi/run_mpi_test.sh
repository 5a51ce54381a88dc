#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run one MPI test program under a launcher and judge the outcome.
#
#   run_mpi_test.sh --mpiexec PATH --np N [--timeout S] [--env NAME=VALUE]...
#                   [--expect-fail] [--stderr REGEX] [--no-pass-line] -- PROGRAM [ARGS...]
#
# Runs `PATH -n N [-env NAME VALUE]... PROGRAM ARGS` under timeout(1) (S
# seconds, default 60; SIGTERM, then SIGKILL 5 s later).  Passes when
#   - normal test: exit status 0 and stdout has a line starting with "PASS";
#   - --expect-fail: the job ended by itself (no timeout) with a non-zero status
#     and, with --stderr, some line of its stderr matches REGEX (grep -E).
# The program's stdout and stderr are shown in full either way.
set -u
mpiexec="" np=1 tmo=60 expect_fail=0 regex="" need_pass=1
envs=()
while [ $# -gt 0 ]; do
    case "$1" in
    --mpiexec) mpiexec=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --timeout) tmo=$2; shift 2 ;;
    --env) envs+=("$2"); shift 2 ;;
    --expect-fail) expect_fail=1; shift ;;
    --stderr) regex=$2; shift 2 ;;
    --no-pass-line) need_pass=0; shift ;;
    --) shift; break ;;
    *) echo "run_mpi_test.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[ $# -ge 1 ] || { echo "run_mpi_test.sh: no program given" >&2; exit 2; }
[ -n "$mpiexec" ] || mpiexec=${COURIER_TEST_MPIEXEC:-mpiexec}

cmd=("$mpiexec" -n "$np")
for e in ${envs[@]+"${envs[@]}"}; do cmd+=(-env "${e%%=*}" "${e#*=}"); done
cmd+=("$@")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/courier-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "+ ${cmd[*]}"
timeout -k 5 "$tmo" "${cmd[@]}" >"$tmp/out" 2>"$tmp/err" </dev/null
rc=$?
echo "--- stdout"; cat "$tmp/out"
echo "--- stderr"; cat "$tmp/err"
echo "--- exit status $rc"

if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    echo "FAILED: timed out after ${tmo} s"
    exit 1
fi
if [ $expect_fail -eq 1 ]; then
    if [ $rc -eq 0 ]; then echo "FAILED: expected the job to fail, it exited 0"; exit 1; fi
    if grep -q '^UNEXPECTED' "$tmp/out"; then echo "FAILED: the erroneous call returned"; exit 1; fi
    if [ -n "$regex" ]; then
        n=$(grep -cE -- "$regex" "$tmp/err")
        if [ "$n" -lt 1 ]; then echo "FAILED: no stderr line matches /$regex/"; exit 1; fi
        echo "ok: failed as expected (status $rc), $n stderr line(s) match /$regex/"
    else
        echo "ok: failed as expected (status $rc)"
    fi
    exit 0
fi
if [ $rc -ne 0 ]; then echo "FAILED: exit status $rc"; exit 1; fi
if [ $need_pass -eq 1 ] && ! grep -q '^PASS' "$tmp/out"; then
    echo "FAILED: exit status 0 but no PASS line on stdout"
    exit 1
fi
exit 0
