/* SPDX-License-Identifier: MIT */
/* MPI_Barrier: nobody leaves before everybody has entered.  In iteration k a
 * "late" rank sleeps before the barrier and then checks, with MPI_Iprobe, that
 * no rank has yet sent it the message it sends only after leaving; then every
 * rank receives those messages.  Also many barriers back to back and on
 * MPI_COMM_SELF. */
#include <unistd.h>
#include "mpitest.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = 2 * size + 2;
    for (int k = 0; k < iters; k++) {
        int late = k % size, flag = 0, token = k;
        if (rank == late) usleep(20000);
        if (rank == late) {
            CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, k, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
            CHECK(!flag, "iteration %d: a message from after the barrier arrived before it", k);
        }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        if (rank != late) CHECK_MPI(MPI_Send(&token, 1, MPI_INT, late, k, MPI_COMM_WORLD));
        else
            for (int i = 0; i < size - 1; i++) {
                int got = -1;
                CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, k, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE));
                CHECK_INT(got, k);
            }
    }
    for (int k = 0; k < 2000; k++) CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Barrier(MPI_COMM_SELF));
    return mt_finish("coll_barrier") | (MPI_Finalize() != MPI_SUCCESS);
}
