/* SPDX-License-Identifier: MIT */
/* Freeing a communicator while operations use it is legal MPI: the handle
 * becomes invalid at once, and the operations complete normally (MPI 4.0
 * 7.4.3).  Here an MPI_Irecv, an MPI_Isend, an MPI_Ibcast and an active
 * persistent receive outlive MPI_Comm_free of their communicator and are
 * completed afterwards; the data they move is checked.  (The requests and
 * schedules hold a reference to the communicator: cr_comm_retain, core.h.) */
#include "mpitest.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;

    for (int round = 0; round < 3; round++) {
        MPI_Comm c, stale;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        stale = c;
        /* point-to-point around a ring: receive posted, communicator freed */
        int in[64], out[64], bc[16], pin[8], pout[8];
        for (int i = 0; i < 64; i++) out[i] = 1000 * round + 64 * rank + i;
        MPI_Request r[5];
        CHECK_MPI(MPI_Irecv(in, 64, MPI_INT, from, 3, c, &r[0]));
        CHECK_MPI(MPI_Recv_init(pin, 8, MPI_INT, from, 4, c, &r[3]));
        CHECK_MPI(MPI_Start(&r[3]));
        /* a collective in flight */
        for (int i = 0; i < 16; i++) bc[i] = rank == 0 ? 500 + i + round : -1;
        CHECK_MPI(MPI_Ibcast(bc, 16, MPI_INT, 0, c, &r[2]));
        CHECK_MPI(MPI_Isend(out, 64, MPI_INT, to, 3, c, &r[1]));
        for (int i = 0; i < 8; i++) pout[i] = 7 * rank + i + round;
        CHECK_MPI(MPI_Isend(pout, 8, MPI_INT, to, 4, c, &r[4]));
        CHECK_MPI(MPI_Comm_free(&c));
        CHECK(c == MPI_COMM_NULL, "MPI_Comm_free did not null the handle");
        /* the handle is gone, the operations are not */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
#ifdef MT_REFERENCE_MPICH      /* MPICH 4.0 does not detect a freed communicator handle */
        (void)stale;
#else
        int s = -1;
        CHECK_CLASS(MPI_Comm_size(stale, &s), MPI_ERR_COMM);
#endif
        /* make some other traffic and communicators meanwhile, so freed memory
         * would be reused */
        MPI_Comm other[4];
        for (int k = 0; k < 4; k++) MPI_Comm_dup(MPI_COMM_WORLD, &other[k]);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK_MPI(MPI_Waitall(5, r, MPI_STATUSES_IGNORE));
        for (int i = 0; i < 64; i++)
            if (in[i] != 1000 * round + 64 * from + i) {
                CHECK_INT(in[i], 1000 * round + 64 * from + i);
                break;
            }
        for (int i = 0; i < 16; i++) CHECK_INT(bc[i], 500 + i + round);
        for (int i = 0; i < 8; i++) CHECK_INT(pin[i], 7 * from + i + round);
        CHECK_MPI(MPI_Request_free(&r[3]));        /* the persistent request */
        for (int k = 0; k < 4; k++) MPI_Comm_free(&other[k]);
    }
    int rc = mt_finish("comm_free_pending");
    MPI_Finalize();
    return rc;
}
