/* SPDX-License-Identifier: MIT */
/* The program the debugging tests run (tests/debug/test_debug.sh):
 *   debug_prog crash R   rank R dereferences a bad pointer inside
 *                        debug_crash_here(); the others wait in a barrier
 *   debug_prog work      an allreduce whose result is checked, then PASS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile long debug_bad_address = 16;   /* not a constant: the compiler cannot trap early */

__attribute__((noinline)) void debug_crash_here(int rank)
{
    volatile int *p = (volatile int *)debug_bad_address;
    *p = rank;
}

__attribute__((noinline)) void debug_caller(int rank)
{
    debug_crash_here(rank);
    printf("UNEXPECTED: rank %d survived\n", rank);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 2 && strcmp(argv[1], "crash") == 0) {
        if (rank == atoi(argv[2])) debug_caller(rank);
        MPI_Barrier(MPI_COMM_WORLD);
    } else {
        int sum = 0;
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (sum != size * (size - 1) / 2) {
            printf("FAIL rank %d: allreduce gave %d, expected %d\n", rank, sum, size * (size - 1) / 2);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (rank == 0) printf("PASS debug_prog work (np=%d)\n", size);
    }
    MPI_Finalize();
    return 0;
}
