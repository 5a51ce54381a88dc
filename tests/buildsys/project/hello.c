/* SPDX-License-Identifier: MIT */
/* The C program of the build-system tests: an allreduce whose result is checked. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, sum = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum == size * (size - 1) / 2)
        printf("PASS c rank %d of %d\n", rank, size);
    else
        printf("FAIL c rank %d of %d: sum %d\n", rank, size, sum);
    MPI_Finalize();
    return sum == size * (size - 1) / 2 ? 0 : 1;
}
