#!/bin/sh
# SPDX-License-Identifier: MIT
# Compare every constant, handle, size and layout of Courier's mpi.h with
# MPICH's.  Usage: run_abi.sh SOURCE_DIR [MPICH_INCLUDE_DIR]
# Exit 0 when they agree, 1 when they differ, 77 (skip) without MPICH's header.
src=${1:?usage: run_abi.sh SOURCE_DIR [MPICH_INCLUDE_DIR]}
mpich=${2:-/usr/include/x86_64-linux-gnu/mpich}
cc=${CC:-cc}
if [ ! -f "$mpich/mpi.h" ]; then
    echo "SKIP: MPICH's mpi.h not found in $mpich (apt-get install libmpich-dev to run this test)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Programs only print values, so neither needs to link with an MPI library: the
# references to MPI_UNWEIGHTED & co. are satisfied by a stub.
printf 'int *const MPI_UNWEIGHTED = (int *)1, *const MPI_WEIGHTS_EMPTY = (int *)2;\n' > "$tmp/stub.c"
$cc -o "$tmp/courier" -I"$src/include" "$src/tests/abi/abi_values.c" "$tmp/stub.c" || exit 1
$cc -o "$tmp/mpich" -I"$mpich" "$src/tests/abi/abi_values.c" "$tmp/stub.c" || exit 1
"$tmp/courier" > "$tmp/courier.txt" && "$tmp/mpich" > "$tmp/mpich.txt" || exit 1
if diff -u "$tmp/mpich.txt" "$tmp/courier.txt"; then
    echo "ABI: $(wc -l < "$tmp/courier.txt") values agree with MPICH's mpi.h"
    exit 0
fi
echo "ABI: Courier's mpi.h differs from MPICH's (- MPICH, + Courier)"
exit 1
