/* SPDX-License-Identifier: MIT */
/* deadlock_fix2: the second fix to deadlock.c -- a non-blocking send.  Rank 0
 * starts its send with MPI_Isend and goes straight on to MPI_Recv, which
 * matches rank 1's MPI_Ssend; rank 1 then receives what rank 0 sent, and rank 0
 * waits for its send to complete. */
#include <mpi.h>
#include <stdio.h>

#define COUNT 10

int main(int argc, char **argv)
{
    int rank, size;
    float sbuf[COUNT], rbuf[COUNT];
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < COUNT; i++) sbuf[i] = rank * 100.0f + i;
    if (size >= 2 && rank == 0) {
        MPI_Isend(sbuf, COUNT, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &req);
        MPI_Recv(rbuf, COUNT, MPI_FLOAT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        printf("rank 0: got rbuf[0..2] = %g %g %g from rank 1\n", rbuf[0], rbuf[1], rbuf[2]);
    } else if (size >= 2 && rank == 1) {
        MPI_Ssend(sbuf, COUNT, MPI_FLOAT, 0, 1, MPI_COMM_WORLD);
        MPI_Recv(rbuf, COUNT, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("rank 1: got rbuf[0..2] = %g %g %g from rank 0\n", rbuf[0], rbuf[1], rbuf[2]);
    } else if (size < 2) {
        printf("deadlock_fix2: run with at least 2 ranks\n");
    }
    MPI_Finalize();
    return 0;
}
