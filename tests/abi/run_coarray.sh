#!/bin/bash
# SPDX-License-Identifier: MIT
# Coarray Fortran through the ABI: OpenCoarrays as Debian builds it for MPICH
# (libcoarrays-mpich-dev: libcaf_mpich, linked against libmpich.so.12) runs on
# Courier's library and launcher.  Coarray puts and gets are MPI_Put/MPI_Get
# in passive-target epochs on MPI_Win_allocate, MPI_Win_create and dynamic
# windows, atomics are MPI_Fetch_and_op/MPI_Compare_and_swap, locks and
# critical sections are built on them, SYNC IMAGES is point-to-point.
#  1. tests/abi/caf_check.f90, compiled with Debian's caf.mpich, at 1-4
#     images: every value it moves is checked (PASS line from image 1).
#  2. OpenCoarrays' own test programs (shipped by the package) at 2 images:
#     each must exit 0 without "Test failed"/"ERROR STOP".  The list is those
#     MPICH 4.0.2 passes or that test the library rather than the MPI
#     (docs/rma.md, "Coarray Fortran"); left out: the failed-image tests
#     (they need an MPI with fault tolerance), increment_my_neighbor (its
#     puts race with the target's static initialisation: it fails under
#     MPICH too), get_array (67,000 SYNC ALLs: minutes on a loaded machine
#     under any MPI), and those that need another image count.
# Usage: run_coarray.sh <source dir> <build dir>.  Exit 77 (skip) without them.
set -u
src=$1 build=$2
tests=/usr/lib/x86_64-linux-gnu/open-coarrays/mpich/bin/OpenCoarrays-2.10.1-tests
if ! command -v caf.mpich >/dev/null 2>&1 || [ ! -d "$tests" ]; then
    echo "SKIP: caf.mpich or libcoarrays-mpich-dev not installed"
    exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
exe=$work/caf_check
if ! caf.mpich -o "$exe" "$src/tests/abi/caf_check.f90" 2>"$work/cc.log"; then
    echo "FAIL: cannot compile caf_check.f90"; cat "$work/cc.log"; exit 1
fi
if ! LD_LIBRARY_PATH="$build/src" ldd "$exe" | grep -q "libmpich.so.12 => $build/src/"; then
    echo "FAIL: caf_check does not load Courier's libmpich.so.12"; exit 1
fi
run() {   # run <np> <program>: the job's output in $out, its status in $rc
    out=$(cd "$work" && LD_LIBRARY_PATH="$build/src" timeout 120 "$build/launcher/mpiexec" -n "$1" "$2" 2>&1)
    rc=$?
}
fail=0
for np in 1 2 3 4; do
    run $np "$exe"
    if [ $rc -ne 0 ] || ! grep -q "^PASS caf_check ($np images)" <<<"$out"; then
        echo "FAIL: caf_check at $np images (exit $rc):"; echo "$out" | tail -10; fail=1
    else
        echo "ok: caf_check np=$np"
    fi
done
n=0
for t in alloc_comp_get_convert_nums alloc_comp_multidim_shape alloc_comp_send_convert_nums \
         allocate_as_barrier allocate_as_barrier_proc async_comp_alloc async_comp_alloc_2 \
         asynchronous_hello_world atomics co_broadcast_alloc_mixed \
         co_broadcast_allocatable_components_test co_broadcast_derived_type_test \
         co_broadcast_test co_max_test co_min_test co_reduce-factorial \
         co_reduce-factorial-int64 co_reduce-factorial-int8 co_reduce_res_im co_reduce_string \
         co_reduce_test co_sum_test coarray_burgers_pde coarray_distributed_transpose \
         comp_allocated_1 comp_allocated_2 convert-before-put duplicate_syncimages \
         get_communicator get_convert_char_array get_convert_nums get_self get_static_array \
         get_with_offset_1d get_with_vector_index hello_multiverse image_status_test_1 \
         initialize_mpi issue-322-non-coarray-vector-idx-lhs issue-422-send \
         issue-503-multidim-array-broadcast issue-503-non-contig-red-ndarray \
         issue-511-incorrect-shape issue-515-mimic-mpi-gatherv issue-552-send_by_ref-singleton \
         issue-700-allow-multiple-scalar-dim-array-gets issue-762-mpi-crashing-on-exit \
         random_init register register_alloc_comp_1 register_alloc_comp_2 register_alloc_comp_3 \
         register_alloc_vector register_vector send_array send_convert_char_array \
         send_convert_nums send_with_vector_index source-alloc-sync strided_get syncall \
         syncimages syncimages2 syncimages_status teams_coarray_get teams_coarray_get_by_ref \
         teams_coarray_send teams_coarray_send_by_ref teams_coarray_sendget teams_subset \
         whole_get_array; do
    [ -x "$tests/$t" ] || { echo "FAIL: $tests/$t missing"; fail=1; continue; }
    run 2 "$tests/$t"
    if [ $rc -ne 0 ] || grep -qi "test failed\|error stop" <<<"$out"; then
        echo "FAIL: OpenCoarrays' $t at 2 images (exit $rc):"; echo "$out" | tail -5; fail=1
    else
        n=$((n + 1))
    fi
done
echo "ok: $n of OpenCoarrays' test programs at 2 images"
exit $fail
