/* SPDX-License-Identifier: MIT */
/* A spawned child that crashes (SIGSEGV after MPI_Init) while its parents wait
 * in a receive from it: mpiexec must end the whole job with a report naming
 * the spawned job, not hang.  Run with expect_fail. */
#include "mpitest.h"
#include <signal.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent, inter;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        raise(SIGSEGV);
        return 0;
    }
    CHECK_MPI(MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                             MPI_ERRCODES_IGNORE));
    int v;
    MPI_Recv(&v, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE);   /* never comes */
    printf("FAIL dyn_spawn_crash: the receive returned\n");
    MPI_Finalize();
    return 1;
}
