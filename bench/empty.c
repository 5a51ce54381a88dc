/* SPDX-License-Identifier: MIT */
/* empty: MPI_Init and MPI_Finalize, nothing else.  bench/compare times
 * `mpiexec -n 2 empty` from the shell (wall clock) to measure start-up. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}
