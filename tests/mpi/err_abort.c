/* SPDX-License-Identifier: MIT */
/* MPI_Abort ends the whole job with a non-zero status whatever the error
 * code: code mod 256, and 1 where that is 0 (MPI_Abort(comm, 0) and
 * MPI_Abort(comm, 256) must not look like success).  The code is the first
 * argument; the last rank aborts while the others wait in a receive that never
 * completes.  Listed with expect_fail in err.list. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, code = argc > 1 ? atoi(argv[1]) : 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == size - 1) {
        MPI_Abort(MPI_COMM_WORLD, code);
        printf("UNEXPECTED: MPI_Abort returned\n");
    } else {
        int x;
        MPI_Recv(&x, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("UNEXPECTED: the receive completed\n");
    }
    MPI_Finalize();
    return 0;
}
