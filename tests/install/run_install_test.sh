#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Install a Courier build into a temporary prefix and use it as a user would:
#   run_install_test.sh <build-dir> <this-dir>
# Checks: the installed files exist; the installed mpicc compiles hello.c and
# the installed mpiexec runs it; mpicc -show names the prefix; pkg-config finds
# mpi.pc; CMake's find_package(MPI) finds Courier through mpicc on PATH.
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/courier-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "FAILED: $*"; exit 1; }

echo "== install into $prefix"
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "cmake --install"; }
for f in bin/mpicc bin/mpicxx bin/mpiexec include/mpi.h lib/libmpi.so.12 lib/libmpi.so \
         lib/libmpich.so.12 lib/pkgconfig/mpi.pc; do
    [ -e "$prefix/$f" ] || fail "$f is not installed"
done
for f in bin/mpirun bin/courier_info; do
    [ -e "$prefix/$f" ] || echo "warning: $f is not installed"
done

echo "== mpicc -show / -compile-info / -link-info"
"$prefix/bin/mpicc" -show
"$prefix/bin/mpicc" -show | grep -q -- "-I$prefix/include" || fail "mpicc -show lacks -I$prefix/include"
"$prefix/bin/mpicc" -show | grep -q -- "-lmpi" || fail "mpicc -show lacks -lmpi"
"$prefix/bin/mpicc" -compile-info | grep -q -- "-I$prefix/include" || fail "-compile-info"
"$prefix/bin/mpicc" -link-info | grep -q -- "-L$prefix/lib" || fail "-link-info"

echo "== compile and run hello"
"$prefix/bin/mpicc" -o "$tmp/hello" "$here/hello.c"
timeout -k 5 60 "$prefix/bin/mpiexec" -n 2 "$tmp/hello" >"$tmp/hello.out" 2>&1 || { cat "$tmp/hello.out"; fail "mpiexec -n 2 hello"; }
cat "$tmp/hello.out"
grep -q "installed hello from 0 of 2" "$tmp/hello.out" || fail "no output from rank 0"
grep -q "installed hello from 1 of 2" "$tmp/hello.out" || fail "no output from rank 1"
# the rpath makes the program find libmpi without LD_LIBRARY_PATH
ldd "$tmp/hello" | grep -q "$prefix/lib/libmpi.so.12" || fail "hello does not resolve libmpi.so.12 in the prefix"

echo "== pkg-config"
if command -v pkg-config >/dev/null; then
    PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs mpi
    PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags mpi | grep -q -- "-I$prefix/include" || fail "pkg-config --cflags mpi"
    PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --libs mpi | grep -q -- "-lmpi" || fail "pkg-config --libs mpi"
    gcc -o "$tmp/hello_pc" "$here/hello.c" $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs mpi) \
        -Wl,-rpath,"$prefix/lib" || fail "build with pkg-config flags"
else
    echo "pkg-config not installed; skipped"
fi

echo "== find_package(MPI) with Courier's mpicc first on PATH"
PATH=$prefix/bin:$PATH cmake -S "$here/findmpi" -B "$tmp/findmpi" >"$tmp/findmpi.log" 2>&1 \
    || { cat "$tmp/findmpi.log"; fail "find_package(MPI) configure"; }
grep COURIER_FOUND "$tmp/findmpi.log"
grep -q "COURIER_FOUND_MPI_C_COMPILER=$prefix/bin/mpicc" "$tmp/findmpi.log" || fail "FindMPI did not pick Courier's mpicc"
grep -q "COURIER_FOUND_MPI_C_LIBRARIES=.*$prefix/lib/libmpi" "$tmp/findmpi.log" || fail "FindMPI did not pick Courier's libmpi"
cmake --build "$tmp/findmpi" >"$tmp/findmpi-build.log" 2>&1 || { cat "$tmp/findmpi-build.log"; fail "build with MPI::MPI_C"; }
timeout -k 5 60 "$prefix/bin/mpiexec" -n 1 "$tmp/findmpi/hello" | grep -q "installed hello from 0 of 1" || fail "FindMPI-built hello"
echo "PASS install"
