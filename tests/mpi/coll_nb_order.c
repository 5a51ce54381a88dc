/* SPDX-License-Identifier: MIT */
/* A non-blocking collective started on one rank before a blocking one and on
 * the others after it (mpi4py's test_ulfm testIAgree, through its fallback
 * for MPI_Comm_iagree: MPI_Iallreduce with MPI_BAND).  MPI calls that order
 * erroneous (collectives in the same order on every rank, MPI 4.1 section
 * 6.12), but MPICH and Open MPI run it, because their non-blocking
 * collectives are message schedules that never share a sequence with the
 * blocking ones, and so must Courier: the non-blocking shm path has a
 * sequence of its own apart from the blocking calls' (docs/collectives.md),
 * and so do the message schedules (coll.c: odd tags for non-blocking and
 * persistent calls, even ones for blocking; variant `sched`, every
 * collective a schedule, failed with MPI_ERR_TRUNCATE when both took tags
 * from one counter).  Checks the reduced flags and that every rank gets
 * through. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm comm;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    /* warm up: the blocking calls make the communicator's shm area */
    for (int i = 0; i < 3; i++) CHECK_MPI(MPI_Barrier(comm));
    for (int round = 0; round < 4; round++) {
        for (int root = 0; root < size; root++) {
            int flag, in;
            MPI_Request req;
            CHECK_MPI(MPI_Barrier(comm));
            if (rank == root) {
                in = 0xb;   /* 1011 */
                flag = in;
                CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_BAND, comm, &req));
                CHECK_MPI(MPI_Barrier(comm));
            } else {
                in = 0xd;   /* 1101 */
                flag = in;
                CHECK_MPI(MPI_Barrier(comm));
                CHECK_MPI(MPI_Iallreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_BAND, comm, &req));
            }
            CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
            int want = size > 1 ? 0x9 : 0xb;   /* 1011 & 1101 */
            CHECK(flag == want, "round %d root %d: flag 0x%x, expected 0x%x", round, root, flag, want);
            (void)in;
        }
    }
    CHECK_MPI(MPI_Comm_free(&comm));
    return mt_finish("coll_nb_order") | (MPI_Finalize() != MPI_SUCCESS);
}
