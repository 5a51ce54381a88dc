/* SPDX-License-Identifier: MIT */
/* deadlock_fix1: the first fix to deadlock.c -- reorder the calls on one
 * rank.  Rank 1 receives first, so rank 0's MPI_Ssend finds its receive, then
 * rank 1 sends and rank 0 (now in MPI_Recv) receives. */
#include <mpi.h>
#include <stdio.h>

#define COUNT 10

int main(int argc, char **argv)
{
    int rank, size;
    float sbuf[COUNT], rbuf[COUNT];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < COUNT; i++) sbuf[i] = rank * 100.0f + i;
    if (size >= 2 && rank == 0) {
        MPI_Ssend(sbuf, COUNT, MPI_FLOAT, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(rbuf, COUNT, MPI_FLOAT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("rank 0: got rbuf[0..2] = %g %g %g from rank 1\n", rbuf[0], rbuf[1], rbuf[2]);
    } else if (size >= 2 && rank == 1) {
        MPI_Recv(rbuf, COUNT, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Ssend(sbuf, COUNT, MPI_FLOAT, 0, 1, MPI_COMM_WORLD);
        printf("rank 1: got rbuf[0..2] = %g %g %g from rank 0\n", rbuf[0], rbuf[1], rbuf[2]);
    } else if (size < 2) {
        printf("deadlock_fix1: run with at least 2 ranks\n");
    }
    MPI_Finalize();
    return 0;
}
