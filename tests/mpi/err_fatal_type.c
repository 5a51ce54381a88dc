/* SPDX-License-Identifier: MIT */
/* With the default handler MPI_ERRORS_ARE_FATAL, MPI_Send with MPI_DATATYPE_NULL
 * ends the whole job with a non-zero status and one line on stderr naming
 * the rank, the call, the error class and the argument (err.list holds the
 * expected pattern).  The last rank makes the bad call; the others wait in a
 * barrier that only completes if the call wrongly returned. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    int rank, size, x[4] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    (void)x;
    if (rank == size - 1) {
        int rc = MPI_Send(x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD);
        printf("UNEXPECTED: the bad call returned %d instead of ending the job\n", rc);
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
