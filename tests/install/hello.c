/* SPDX-License-Identifier: MIT */
/* Compiled by the install test with the installed mpicc. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("installed hello from %d of %d\n", rank, size);
    MPI_Finalize();
    return 0;
}
