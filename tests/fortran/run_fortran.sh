#!/bin/bash
# SPDX-License-Identifier: MIT
# Compile one Fortran program with Courier's mpifort (or, with MPIFC=..., with
# another MPI's wrapper such as Debian's mpif90.mpich), run it with Courier's
# mpiexec and check what it printed.
#   run_fortran.sh <build dir> <check> <np> <source> [compiler flags...]
# <check>: pass      rank 0 printed a line PASS (the binding tests)
#          heat|pi|bcast|factorial|allreduce|bounce: the example's output
# Exit 77 (skip) when the compiler named by MPIFC is not installed.
set -u
build=$1 check=$2 np=$3 src=$4
shift 4
fc=${MPIFC:-$build/bin/mpifort}
if ! command -v "$fc" >/dev/null 2>&1; then
    echo "SKIP: $fc not found"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
if ! "$fc" "$@" -o prog "$src" >compile.log 2>&1; then
    echo "FAIL: cannot compile $src with $fc:"; cat compile.log; exit 1
fi
if [ -n "${MPIFC:-}" ] && ! LD_LIBRARY_PATH="$build/src" ldd ./prog | grep -q "=> $build/src/"; then
    echo "FAIL: the $fc-built program does not load Courier's library:"; LD_LIBRARY_PATH="$build/src" ldd ./prog
    exit 1
fi
LD_LIBRARY_PATH="$build/src" timeout -k 5 120 "$build/launcher/mpiexec" -n "$np" ./prog >out.txt 2>&1
rc=$?
cat out.txt
if [ $rc -ne 0 ]; then echo "FAIL: exit status $rc"; exit 1; fi

fail() { echo "FAIL: $*"; exit 1; }
case $check in
pass)
    grep -q '^ *PASS *$' out.txt || fail "no PASS line"
    ! grep -q 'FAIL' out.txt || fail "a check failed" ;;
heat)
    # the seed's values after 3 time steps, at global points 1..5
    # (compared to 1e-14: the seed prints 15 digits, gfortran's list output 17)
    for v in 0.307205621017285 0.584339815421976 0.804274757358271 0.945481682332598 0.994138272681972; do
        cat data0.dat data1.dat data2.dat | awk -v v="$v" -F'T=' \
            'NF == 2 { d = $2 - v; if (d < 0) d = -d; if (d < 1e-14) found = 1 } END { exit !found }' ||
            fail "value $v missing from data*.dat"
    done
    for r in 0 1 2; do
        [ "$(grep -c 'ilocal=' data$r.dat)" = 5 ] || fail "data$r.dat does not hold 5 points"
        echo "--- data$r.dat"; cat data$r.dat
    done
    grep -q 'SOLUTION SENT TO FILE AFTER 3 TIMESTEPS' out.txt || fail "no final message" ;;
pi)
    [ "$(grep -c '^Hello from MPI task= ' out.txt)" = "$np" ] || fail "not every task said hello"
    grep -q "^Number of MPI tasks = $np\$" out.txt || fail "task count"
    # the midpoint rule on 128000 intervals, summed in any order: pi to 1e-11
    grep -Eq '^Pi = 3\.14159265(35|36)[0-9]{2}$' out.txt || fail "pi is not 3.1415926536 to 10 digits" ;;
bcast)
    for r in $(seq 0 $((np - 1))); do
        grep -q "^processor $r got 1 2 3 4\$" out.txt || fail "processor $r did not get 1 2 3 4"
    done ;;
factorial)
    want=1; for i in $(seq 1 "$np"); do want=$((want * i)); done
    grep -q "^$np! = $want\$" out.txt || fail "expected $np! = $want" ;;
allreduce)
    [ "$(grep -c '^Max= [0-9]* on task [0-9]*$' out.txt)" -ge 1 ] || fail "no Max= line" ;;
bounce)
    grep -q 'Number of processors = *'"$np" out.txt || fail "processor count"
    for b in 0 80 800 8000 80000 800000 8000000; do
        grep -Eq "^msglen = +$b bytes, +elapsed time = +[0-9]+\.[0-9]{4} msec\$" out.txt || fail "no line for $b bytes"
    done
    grep -Eq '^latency = +[0-9]+\.[0-9] microseconds$' out.txt || fail "latency line"
    grep -Eq '^ *bandwidth = +[0-9.E+]+ +MBytes/sec$' out.txt || fail "bandwidth line" ;;
*) fail "unknown check $check" ;;
esac
echo "ok: $(basename "$src") np=$np ($check)"
