#!/bin/bash
# SPDX-License-Identifier: MIT
# QMPI through the ABI: a binary built with Debian's MPICH (mpicc.mpich) that
# registers a QMPI tool from a constructor loads on Courier's library (every
# QMPI symbol MPICH's libmpich.so.12 exports, Courier's exports too) and runs
# unchanged at 1 to 4 ranks: registration is refused as by MPICH itself, and
# its messages arrive intact (tests/mpi/tools_qmpi.c, which checks both).
# Usage: run_qmpi.sh <source dir> <build dir>.  Exit 77 (skip) without MPICH.
set -u
src=$1 build=$2
if ! command -v mpicc.mpich >/dev/null 2>&1; then
    echo "SKIP: mpicc.mpich not found (install libmpich-dev)"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

# 1. The exported QMPI symbols: MPICH's library (where mpicc.mpich links) against ours.
mpich_lib=""
for d in $(mpicc.mpich -show 2>/dev/null | tr ' ' '\n' | sed -n 's/^-L//p') /usr/lib/x86_64-linux-gnu; do
    [ -f "$d/libmpich.so.12" ] && { mpich_lib=$d/libmpich.so.12; break; }
done
if [ -n "$mpich_lib" ] && command -v nm >/dev/null 2>&1; then
    nm -D --defined-only "$mpich_lib" | awk '$3 ~ /^QMPI_/ {print $3}' | sort > "$work/mpich.syms"
    nm -D --defined-only "$build/src/libmpi.so.12" | awk '$3 ~ /^QMPI_/ {print $3}' | sort > "$work/courier.syms"
    missing=$(comm -23 "$work/mpich.syms" "$work/courier.syms")
    if [ ! -s "$work/mpich.syms" ]; then
        echo "FAIL: no QMPI symbols found in $mpich_lib"; fail=1
    elif [ -n "$missing" ]; then
        echo "FAIL: QMPI symbols of MPICH that Courier does not export:"; echo "$missing"; fail=1
    else
        echo "ok: Courier exports MPICH's $(wc -l < "$work/mpich.syms") QMPI symbols"
    fi
else
    echo "note: MPICH's libmpich.so.12 or nm not found; symbol comparison skipped"
fi

# 2. The MPICH-built program on Courier.
t=tools_qmpi
if ! mpicc.mpich -w -I"$src/tests/mpi" -o "$work/$t" "$src/tests/mpi/$t.c" 2>"$work/$t.log"; then
    echo "FAIL: cannot compile $t with mpicc.mpich"; cat "$work/$t.log"; exit 1
fi
if ! LD_LIBRARY_PATH="$build/src" ldd "$work/$t" | grep -q "libmpich.so.12 => $build/src/"; then
    echo "FAIL: $t does not load Courier's libmpich.so.12"; exit 1
fi
for np in 1 2 3 4; do
    # the tool named in MPICH's tool list, as MPICH's qmpi_test is run
    out=$(LD_LIBRARY_PATH="$build/src" timeout 60 "$build/launcher/mpiexec" -n $np \
          -env MPIR_CVAR_QMPI_TOOL_LIST "$t:$t" "$work/$t" 2>&1)
    rc=$?
    if [ $rc -ne 0 ] || ! grep -q "^PASS" <<<"$out" || ! grep -q "registration refused" <<<"$out"; then
        echo "FAIL: MPICH-built $t at $np ranks (exit $rc):"; echo "$out" | tail -8; fail=1
    else
        echo "ok: MPICH-built $t np=$np"
    fi
done
exit $fail
