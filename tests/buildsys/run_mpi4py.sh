#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# buildsys.mpi4py: mpi4py built from PyPI's source with Courier's mpicc
# (`pip install --no-binary mpi4py`), then its own tests run on Courier.
# Called by run_buildsys.sh with BUILD, PREFIX, SRC set.  Skipped (77) with a
# message when PyPI cannot be reached.  The build is kept in
# $BUILD/tests/buildsys/mpi4py, keyed by the mpi4py version and Courier's
# headers, so `make check` rebuilds it only when mpi.h changes.
#
# mpi4py's own test suite then runs whole (2,127 tests at 1 rank), at 1 and
# 2 ranks.  MPI4PY_MODULES, when set, limits it to the named test modules
# (mpi4py's test/test_*.py), for a quicker look at one area.
set -uo pipefail
: "${BUILD:?}" "${PREFIX:?}" "${SRC:?}"
MPI4PY_VERSION=${MPI4PY_VERSION:-4.1.2}
fail() { echo "FAIL (mpi4py): $*"; exit 1; }
skip() { echo "SKIPPED (mpi4py): $*"; exit 77; }

MPI4PY_MODULES=${MPI4PY_MODULES:-}

cache=$BUILD/tests/buildsys/mpi4py
mkdir -p "$cache"
key=$(cat "$PREFIX/include/mpi.h" "$PREFIX/include/mpi_proto.h" 2>/dev/null | sha256sum | cut -c1-16)
site=$cache/site-$MPI4PY_VERSION-$key
sdist=$cache/mpi4py-$MPI4PY_VERSION.tar.gz

if [ ! -f "$sdist" ]; then
    rm -rf "$cache/dl"
    timeout 300 python3 -m pip download -q --no-deps --no-binary mpi4py "mpi4py==$MPI4PY_VERSION" \
        -d "$cache/dl" >"$cache/download.log" 2>&1 \
        || skip "PyPI cannot be reached (pip download mpi4py==$MPI4PY_VERSION failed: $(tail -1 "$cache/download.log"))"
    mv "$cache/dl/mpi4py-$MPI4PY_VERSION.tar.gz" "$sdist" || fail "no sdist in $cache/dl"
fi

if [ ! -f "$site/.built" ]; then
    rm -rf "$cache"/site-*
    echo "== building mpi4py $MPI4PY_VERSION with $PREFIX/bin/mpicc (a few minutes)"
    # -O0 -g0: the generated MPI.c is large; the test needs it correct, not fast
    env MPICC="$PREFIX/bin/mpicc" PATH="$PREFIX/bin:$PATH" CFLAGS="-O0 -g0" \
        python3 -m pip install --no-deps --no-binary mpi4py --target "$site" "$sdist" \
        >"$cache/build.log" 2>&1 \
        || { tail -40 "$cache/build.log"; fail "pip install --no-binary mpi4py (log: $cache/build.log)"; }
    touch "$site/.built"
fi
export PYTHONPATH=$site

ext=$(ls "$site"/mpi4py/MPI.*.so 2>/dev/null | head -1)
[ -n "$ext" ] || fail "no mpi4py/MPI.*.so in $site"
grep -q "libmpi.so.12 => $PREFIX/lib/libmpi.so.12" <<<"$(ldd "$ext")" || fail "mpi4py does not load Courier's libmpi: $(ldd "$ext" | grep mpi)"
# Courier's mpicc links with a runpath to its lib/: proof that it built the extension
grep -q "RUNPATH.*$PREFIX/lib" <<<"$(readelf -d "$ext")" || fail "MPI.so was not linked by Courier's mpicc (no runpath)"
echo "ok: mpi4py $MPI4PY_VERSION built with $PREFIX/bin/mpicc, loads $PREFIX/lib/libmpi.so.12"

run_mpi() { timeout -k 5 "$1" "$PREFIX/bin/mpiexec" -n "$2" -env COURIER_OVERSUBSCRIBED 1 "${@:3}" </dev/null; }

# the quick checks of mpi4py's own documentation
out=$(run_mpi 60 2 python3 -m mpi4py.bench helloworld 2>&1) || fail "mpi4py.bench helloworld: $out"
for r in 0 1; do
    grep -q "Hello, World! I am process $r of 2 on" <<<"$out" || fail "helloworld, rank $r: $out"
done
out=$(run_mpi 60 2 python3 -m mpi4py.bench ringtest 2>&1) || fail "mpi4py.bench ringtest: $out"
echo "ok: mpi4py.bench helloworld and ringtest at 2 ranks"
out=$(run_mpi 60 2 python3 -c '
from mpi4py import MPI
import array
comm = MPI.COMM_WORLD
r, n = comm.Get_rank(), comm.Get_size()
assert comm.allreduce(r) == n * (n - 1) // 2
assert comm.bcast({"x": 42} if r == 0 else None, root=0) == {"x": 42}
buf = array.array("i", [r] * 4); out = array.array("i", [0] * 4)
comm.Allreduce(buf, out, op=MPI.SUM)
assert list(out) == [n * (n - 1) // 2] * 4
if r == 0: comm.Send(array.array("d", [1.5, 2.5]), dest=1, tag=7)
if r == 1:
    got = array.array("d", [0.0, 0.0]); st = MPI.Status()
    comm.Recv(got, source=0, tag=7, status=st)
    assert list(got) == [1.5, 2.5] and st.Get_source() == 0 and st.Get_tag() == 7
print("PASS mpi4py rank", r, MPI.Get_library_version().splitlines()[0])
' 2>&1) || fail "mpi4py objects and buffers: $out"
grep -q "PASS mpi4py rank 1 Courier" <<<"$out" || fail "mpi4py objects and buffers: $out"
echo "ok: pickled and buffer pt2pt and collectives at 2 ranks"

# mpi4py's test suite, from the sdist
tests=$cache/test-$MPI4PY_VERSION
if [ ! -d "$tests" ]; then
    rm -rf "$cache/x" && mkdir "$cache/x"
    tar -C "$cache/x" -xzf "$sdist" "mpi4py-$MPI4PY_VERSION/test" || fail "no test/ in the sdist"
    mv "$cache/x/mpi4py-$MPI4PY_VERSION/test" "$tests" && rm -rf "$cache/x"
fi
include=()
[ -z "$MPI4PY_MODULES" ] || include=(-i "^($(tr ' ' '|' <<<"$MPI4PY_MODULES"))\.py\$")
for np in 1 2; do
    echo "== mpi4py test suite at $np rank(s): ${MPI4PY_MODULES:-every module}"
    run_mpi 900 $np python3 "$tests/main.py" -q --no-builddir "${include[@]}" >"$cache/tests.np$np.log" 2>&1
    rc=$?
    tail -5 "$cache/tests.np$np.log"
    [ $rc -eq 0 ] || { grep -E "^(FAIL|ERROR):" "$cache/tests.np$np.log" | sort | uniq -c | head -40;
                       fail "mpi4py's test suite at $np rank(s), exit $rc (log: $cache/tests.np$np.log)"; }
    grep -Eq "^Ran [1-9][0-9]* tests?" "$cache/tests.np$np.log" || fail "mpi4py's test suite ran no test at $np rank(s)"
done
echo "PASS mpi4py $MPI4PY_VERSION"
