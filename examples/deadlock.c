/* SPDX-License-Identifier: MIT */
/* deadlock: ranks 0 and 1 both call MPI_Ssend first.  A synchronous send
 * completes only when the matching receive has started, and each rank's
 * receive comes after its own send, so neither send can ever complete: the
 * program hangs.  The demo runs it under a timeout and expects it to be
 * stopped.  See deadlock_fix1.c and deadlock_fix2.c. */
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
    if (size >= 2 && rank < 2) {
        int other = 1 - rank;
        printf("rank %d: MPI_Ssend to rank %d, then MPI_Recv...\n", rank, other);
        fflush(stdout);
        MPI_Ssend(sbuf, COUNT, MPI_FLOAT, other, rank, MPI_COMM_WORLD);
        MPI_Recv(rbuf, COUNT, MPI_FLOAT, other, other, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("rank %d: done (this line is never reached)\n", rank);
    }
    MPI_Finalize();
    return 0;
}
