#!/bin/bash
# SPDX-License-Identifier: MIT
# Drop-in check: MPI test programs compiled with Debian's MPICH compiler wrapper
# (mpicc.mpich, against MPICH's own mpi.h and libmpich.so.12) run unchanged on
# Courier's library and launcher, at 1 to 4 ranks, and report PASS.
# Usage: run_mpich_built.sh <source dir> <build dir>.  Exit 77 (skip) without MPICH.
set -u
src=$1 build=$2
if ! command -v mpicc.mpich >/dev/null 2>&1; then
    echo "SKIP: mpicc.mpich not found (install libmpich-dev)"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
for t in p2p_sendrecv p2p_nonblocking p2p_ssend p2p_probe p2p_persistent env_comm env_errors; do
    if ! mpicc.mpich -w -I"$src/tests/mpi" -o "$work/$t" "$src/tests/mpi/$t.c" 2>"$work/$t.log"; then
        echo "FAIL: cannot compile $t with mpicc.mpich"; cat "$work/$t.log"; fail=1; continue
    fi
    # the binary must resolve libmpich.so.12 to Courier's library
    if ! LD_LIBRARY_PATH="$build/src" ldd "$work/$t" | grep -q "libmpich.so.12 => $build/src/"; then
        echo "FAIL: $t does not load Courier's libmpich.so.12"; fail=1; continue
    fi
    for np in 1 2 3 4; do
        out=$(LD_LIBRARY_PATH="$build/src" timeout 60 "$build/launcher/mpiexec" -n $np "$work/$t" 2>&1)
        rc=$?
        if [ $rc -ne 0 ] || ! grep -q "^PASS" <<<"$out"; then
            echo "FAIL: MPICH-built $t at $np ranks (exit $rc):"; echo "$out" | tail -5; fail=1
        else
            echo "ok: MPICH-built $t np=$np"
        fi
    done
done
exit $fail
