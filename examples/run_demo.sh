#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Run Courier's examples with its mpiexec and show what they print.
#   examples/run_demo.sh [build-dir]        (default: build)
# MPIEXEC=... and BIN=... (the directory holding the example programs)
# override where the launcher and programs are found.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
build=$(cd "$build" && pwd) || { echo "no build directory $1; run 'make' first" >&2; exit 1; }
mpiexec=${MPIEXEC:-$build/launcher/mpiexec}
bin=${BIN:-$build/examples}
status=0

if [ -t 1 ]; then B=$'\033[1m' N=$'\033[0m'; else B= N=; fi
banner() { printf '\n%s==== %s%s\n' "$B" "$*" "$N"; }
run() { # run <np> <program> [args...]
    local np=$1; shift
    echo "\$ mpiexec -n $np $(basename "$1") ${*:2}"
    if ! timeout -k 5 60 "$mpiexec" -n "$np" "$@"; then
        echo "!! failed (exit status $?)"
        status=1
    fi
}

[ -x "$mpiexec" ] || { echo "no launcher at $mpiexec; run 'make' first" >&2; exit 1; }

banner "hello: every rank says hello"
run 4 "$bin/hello"

banner "pi: integrate 4/(1+x^2) on [0,1], partial sums combined with MPI_Reduce"
run 4 "$bin/pi" 10000000

banner "blocking: MPI_Send / MPI_Recv of ten floats"
run 2 "$bin/blocking"

banner "deadlock: both ranks MPI_Ssend first -- expected to hang, stopped after 5 s"
echo "\$ mpiexec -n 2 deadlock   (under timeout 5)"
timeout -k 3 5 "$mpiexec" -n 2 "$bin/deadlock"
rc=$?
if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    echo "-> stopped by the timeout, as expected: neither MPI_Ssend can complete"
else
    echo "!! expected the deadlock to be stopped by the timeout, but it ended with status $rc"
    status=1
fi

banner "deadlock_fix1: rank 1 receives before it sends"
run 2 "$bin/deadlock_fix1"

banner "deadlock_fix2: rank 0 uses MPI_Isend, then MPI_Recv, then MPI_Wait"
run 2 "$bin/deadlock_fix2"

banner "nonblocking: ring exchange with MPI_Isend / MPI_Irecv / MPI_Waitall"
run 4 "$bin/nonblocking"

if [ -f "$root/bench/bounce.c" ]; then
    banner "bounce: ping-pong latency and bandwidth (bench/bounce)"
    bounce=${BOUNCE:-$build/bench/bounce}
    if [ -x "$bounce" ]; then
        run 2 "$bounce"
    else
        echo "bench/bounce is not built ($bounce); skipped"
    fi
fi

# ---- the MPI assignment's programs (docs/examples.md) -------------------------------
banner "bcast_study: root-sends-all, binomial tree and pipelined chain against MPI_Bcast"
run 4 "$bin/bcast_study" --quick

banner "cg_poisson: parallel CG on a 2x2 process grid, then on 1 rank: the same iterations"
run 4 "$bin/cg_poisson" --topo 2x2 --gridsize 0.01
run 1 "$bin/cg_poisson" --gridsize 0.01

banner "amdahl: serial fraction 0.1, measured speedup against Amdahl's law"
run 2 "$bin/amdahl" --work 50000000

banner "pinning: the cpu each rank runs on, unbound and with -bind-to core"
run 2 "$bin/pinning"
echo "\$ mpiexec -n 2 -bind-to core pinning"
if ! timeout -k 5 60 "$mpiexec" -n 2 -bind-to core "$bin/pinning"; then
    echo "!! failed (exit status $?)"
    status=1
fi
# ---- end of the assignment's programs ----------------------------------------------

# ---- Fortran examples (examples/fortran; docs/fortran.md) --------------------------
# Compiled here with our mpifort; skipped when this build has no Fortran support.
if "$build/bin/mpifort" -show >/dev/null 2>&1; then
    fwork=$(mktemp -d)
    for fx in heat.f pi.f90 bcast.f90 factorial.f90 allreduce.f90 bounce.f; do
        if ! "$build/bin/mpifort" -w -o "$fwork/${fx%.*}" "$root/examples/fortran/$fx"; then
            echo "!! cannot compile examples/fortran/$fx"; status=1
        fi
    done
    banner "Fortran heat: 1-D heat equation on 3 ranks, ghost points by MPI_SEND/MPI_RECV"
    (cd "$fwork" && run 3 ./heat && cat data0.dat data1.dat data2.dat)
    banner "Fortran pi: midpoint rule, partial sums combined by MPI_REDUCE"
    run 4 "$fwork/pi"
    banner "Fortran bcast: MPI_BCAST of 1 2 3 4 from rank 0"
    run 4 "$fwork/bcast"
    banner "Fortran factorial: 8! as MPI_REDUCE with MPI_PROD on 8 ranks"
    run 8 "$fwork/factorial"
    banner "Fortran allreduce: MPI_ALLREDUCE with MPI_MAX"
    run 4 "$fwork/allreduce"
    banner "Fortran bounce: latency and bandwidth between rank pairs"
    run 2 "$fwork/bounce"
    rm -rf "$fwork"
else
    banner "Fortran examples skipped: this build has no Fortran support (no gfortran)"
fi
# ---- end of the Fortran examples ---------------------------------------------------

echo
if [ $status -eq 0 ]; then echo "demo: all examples behaved as expected"; else echo "demo: some examples FAILED"; fi
exit $status
