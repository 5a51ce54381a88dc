#!/bin/bash
# SPDX-License-Identifier: MIT
# Parallel HDF5 through the ABI: tests/abi/hdf5_parallel.c is compiled with
# MPICH's mpicc against Debian's libhdf5-mpich (built for MPICH) and run on
# Courier's library and launcher at 1 to 4 ranks; it checks every datum it
# wrote (collective and independent hyperslab writes) after reopening the file.
# With MPICH_TOO=1 it also runs under MPICH's own mpiexec (the reference).
# Then the file written at 3 ranks on Courier and under MPICH must give the
# same h5dump (hdf5-tools).
# Usage: run_hdf5.sh <source dir> <build dir>.  Exit 77 (skip) without them.
set -u
src=$1 build=$2
h5inc=/usr/include/hdf5/mpich h5lib=/usr/lib/x86_64-linux-gnu/hdf5/mpich
if ! command -v mpicc.mpich >/dev/null 2>&1 || [ ! -f "$h5inc/hdf5.h" ]; then
    echo "SKIP: mpicc.mpich or libhdf5-mpich-dev not installed"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
exe=$work/hdf5_parallel
if ! mpicc.mpich -I"$h5inc" -o "$exe" "$src/tests/abi/hdf5_parallel.c" -L"$h5lib" -lhdf5 \
        -Wl,-rpath,"$h5lib" 2>"$work/cc.log"; then
    echo "FAIL: cannot compile hdf5_parallel.c"; cat "$work/cc.log"; exit 1
fi
if ! LD_LIBRARY_PATH="$build/src" ldd "$exe" | grep -q "libmpich.so.12 => $build/src/"; then
    echo "FAIL: hdf5_parallel does not load Courier's libmpich.so.12"; exit 1
fi
fail=0
for np in 1 2 3 4; do
    out=$(cd "$work" && TMPDIR="$work" LD_LIBRARY_PATH="$build/src" timeout 120 "$build/launcher/mpiexec" -n $np "$exe" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || ! grep -q "^PASS" <<<"$out"; then
        echo "FAIL: hdf5_parallel on Courier at $np ranks (exit $rc):"; echo "$out" | tail -10; fail=1
    else
        echo "ok: hdf5_parallel on Courier np=$np"
    fi
    if [ "${MPICH_TOO:-0}" = 1 ]; then
        out=$(cd "$work" && TMPDIR="$work" timeout 120 mpiexec.mpich -n $np "$exe" 2>&1)
        rc=$?
        if [ $rc -ne 0 ] || ! grep -q "^PASS" <<<"$out"; then
            echo "FAIL: hdf5_parallel on MPICH at $np ranks (exit $rc):"; echo "$out" | tail -10; fail=1
        else
            echo "ok: hdf5_parallel on MPICH np=$np"
        fi
    fi
done
# the same file from both: h5dump of the file written at 3 ranks on Courier
# equals that of the file written under MPICH
if command -v h5dump >/dev/null 2>&1; then
    (cd "$work" && LD_LIBRARY_PATH="$build/src" timeout 120 "$build/launcher/mpiexec" -n 3 "$exe" "$work/courier.h5" >/dev/null 2>&1)
    (cd "$work" && timeout 120 mpiexec.mpich -n 3 "$exe" "$work/mpich.h5" >/dev/null 2>&1)
    if [ -f "$work/courier.h5" ] && [ -f "$work/mpich.h5" ] &&
       cmp -s <(h5dump "$work/courier.h5" | sed 1d) <(h5dump "$work/mpich.h5" | sed 1d); then
        echo "ok: h5dump of the Courier-written file equals that of the MPICH-written one"
    else
        echo "FAIL: h5dump differs between the files written on Courier and on MPICH"
        diff <(h5dump "$work/courier.h5" 2>&1 | sed 1d) <(h5dump "$work/mpich.h5" 2>&1 | sed 1d) | head -20
        fail=1
    fi
else
    echo "(h5dump not installed: file comparison with MPICH skipped)"
fi
exit $fail
