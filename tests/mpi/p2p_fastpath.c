/* SPDX-License-Identifier: MIT */
/* The blocking Send/Recv fast paths hand over to the general path correctly:
 *  - a blocked MPI_Recv from one peer keeps draining the others (rank 2 floods
 *    rank 0 with more eager data than a ring holds, and rank 1 only sends to
 *    rank 0 after it heard from rank 2): no deadlock, every message intact;
 *  - a rendezvous message, a synchronous one and a truncating one arriving
 *    while a blocking receive waits are handled by the general path;
 *  - MPI_ANY_TAG and the status of a fast receive.
 * Needs 3 ranks for the flood part; with fewer ranks that part is skipped. */
#include "mpitest.h"

enum { FLOOD = 200, FLOOD_LEN = 1000, BIG = 100000 };

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    if (size >= 3 && rank < 3) {
        unsigned char *buf = mt_malloc(FLOOD_LEN);
        if (rank == 2) {
            for (int i = 0; i < FLOOD; i++) {
                mt_fill(buf, FLOOD_LEN, 1000 + i);
                CHECK_MPI(MPI_Send(buf, FLOOD_LEN, MPI_BYTE, 0, 7, MPI_COMM_WORLD));
            }
            int token = 42;
            CHECK_MPI(MPI_Send(&token, 1, MPI_INT, 1, 3, MPI_COMM_WORLD));
        } else if (rank == 1) {
            int token = 0, v = 99;
            CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, 2, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_INT(token, 42);
            CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
        } else {
            int v = 0;
            MPI_Status st;
            CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &st));
            CHECK_INT(v, 99);
            CHECK_INT(st.MPI_SOURCE, 1);
            for (int i = 0; i < FLOOD; i++) {
                CHECK_MPI(MPI_Recv(buf, FLOOD_LEN, MPI_BYTE, 2, 7, MPI_COMM_WORLD, &st));
                CHECK_PATTERN(buf, FLOOD_LEN, 1000 + i);
            }
        }
        free(buf);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    if (size >= 2 && rank < 2) {
        int peer = 1 - rank;
        unsigned char *big = mt_malloc(BIG);
        int small[4] = {0}, n = 0;
        MPI_Status st;
        if (rank == 0) {
            /* rendezvous, then synchronous, then a truncating message, then ANY_TAG */
            CHECK_MPI(MPI_Recv(big, BIG, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st));
            CHECK_PATTERN(big, BIG, 77);
            CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &n));
            CHECK_INT(n, BIG);
            CHECK_MPI(MPI_Recv(small, 4, MPI_INT, peer, 2, MPI_COMM_WORLD, &st));
            CHECK_INT(small[3], 4);
            int rc = MPI_Recv(small, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &st);
            CHECK_CLASS(rc, MPI_ERR_TRUNCATE);
            CHECK_MPI(MPI_Recv(small, 4, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            CHECK_INT(st.MPI_TAG, 9);
            CHECK_INT(st.MPI_SOURCE, peer);
            CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
            CHECK_INT(n, 2);
            CHECK_INT(small[0] + small[1], 21);
        } else {
            int v[4] = {1, 2, 3, 4}, w[2] = {10, 11};
            mt_fill(big, BIG, 77);
            CHECK_MPI(MPI_Send(big, BIG, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Ssend(v, 4, MPI_INT, peer, 2, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Send(v, 4, MPI_INT, peer, 3, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Send(w, 2, MPI_INT, peer, 9, MPI_COMM_WORLD));
        }
        free(big);
    }
    int rc = mt_finish("p2p_fastpath");
    MPI_Finalize();
    return rc;
}
