/* SPDX-License-Identifier: MIT */
/* blocking: rank 0 fills ten floats and sends them with MPI_Send; rank 1
 * receives them with MPI_Recv and prints them. */
#include <mpi.h>
#include <stdio.h>

#define COUNT 10

int main(int argc, char **argv)
{
    int rank, size;
    float buf[COUNT];
    MPI_Status status;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0) printf("blocking: run with at least 2 ranks\n");
        MPI_Finalize();
        return 0;
    }
    if (rank == 0) {
        for (int i = 0; i < COUNT; i++) buf[i] = i * 4.0f;
        MPI_Send(buf, COUNT, MPI_FLOAT, 1, 0, MPI_COMM_WORLD);
        printf("rank 0 sent %d floats to rank 1\n", COUNT);
    } else if (rank == 1) {
        MPI_Recv(buf, COUNT, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &status);
        for (int i = 0; i < COUNT; i++) printf("rank 1: buf[%d] = %f\n", i, buf[i]);
    }
    MPI_Finalize();
    return 0;
}
