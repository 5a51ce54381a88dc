/* SPDX-License-Identifier: MIT */
/* MPI_Send / MPI_Recv across the eager/rendezvous switch: rank 0 exchanges a
 * message of every size with every other rank (or with itself at np=1, using
 * MPI_Isend so that a large self-send cannot block), checking data and status. */
#include "mpitest.h"

static const size_t sizes[] = {0, 1, 8, 64, 1024, 16384, 16385, 65536, 1 << 20, 8 << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *sbuf = mt_malloc(8 << 20), *rbuf = mt_malloc((8 << 20) + 1); /* +1: receives into a larger buffer */

    for (size_t s = 0; s < NSIZES; s++) {
        size_t n = sizes[s];
        int tag = (int)s + 10;
        MPI_Status st;
        if (size == 1) {
            MPI_Request rq;
            mt_fill(sbuf, n, (long)s);
            memset(rbuf, 0, n);
            CHECK_MPI(MPI_Isend(sbuf, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &rq));
            CHECK_MPI(MPI_Recv(rbuf, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &st));
            CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
            CHECK_PATTERN(rbuf, n, (long)s);
            continue;
        }
        for (int peer = 1; peer < size; peer++) {
            long seed_out = (long)s * 100 + peer, seed_back = seed_out + 50;
            if (rank == 0) {
                int cnt = -1;
                mt_fill(sbuf, n, seed_out);
                CHECK_MPI(MPI_Send(sbuf, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD));
                memset(rbuf, 0, n);
                CHECK_MPI(MPI_Recv(rbuf, (int)n, MPI_BYTE, peer, tag + 1, MPI_COMM_WORLD, &st));
                CHECK_INT(st.MPI_SOURCE, peer);
                CHECK_INT(st.MPI_TAG, tag + 1);
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                CHECK_INT(cnt, n);
                CHECK_PATTERN(rbuf, n, seed_back);
            } else if (rank == peer) {
                int cnt = -1;
                /* receive into a larger buffer: the count must be the message's */
                memset(rbuf, 0, n + 1);
                CHECK_MPI(MPI_Recv(rbuf, (int)n + 1, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &st));
                CHECK_INT(st.MPI_SOURCE, 0);
                CHECK_INT(st.MPI_TAG, tag);
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                CHECK_INT(cnt, n);
                CHECK_PATTERN(rbuf, n, seed_out);
                CHECK_INT(rbuf[n], 0);
                mt_fill(sbuf, n, seed_back);
                CHECK_MPI(MPI_Send(sbuf, (int)n, MPI_BYTE, 0, tag + 1, MPI_COMM_WORLD));
            }
        }
    }

    /* typed data: doubles and ints, counted in elements */
    if (size > 1 && rank < 2) {
        double d[1000];
        int iv[3000];
        MPI_Status st;
        int cnt = -1;
        if (rank == 0) {
            for (int i = 0; i < 1000; i++) d[i] = i * 0.5 - 3.0;
            for (int i = 0; i < 3000; i++) iv[i] = i * 3 - 7;
            CHECK_MPI(MPI_Send(d, 1000, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Send(iv, 3000, MPI_INT, 1, 2, MPI_COMM_WORLD));
        } else {
            memset(d, 0, sizeof d);
            memset(iv, 0, sizeof iv);
            CHECK_MPI(MPI_Recv(d, 1000, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &st));
            MPI_Get_count(&st, MPI_DOUBLE, &cnt);
            CHECK_INT(cnt, 1000);
            for (int i = 0; i < 1000; i++) CHECK(d[i] == i * 0.5 - 3.0, "d[%d] = %g", i, d[i]);
            CHECK_MPI(MPI_Recv(iv, 3000, MPI_INT, 0, 2, MPI_COMM_WORLD, &st));
            MPI_Get_count(&st, MPI_INT, &cnt);
            CHECK_INT(cnt, 3000);
            for (int i = 0; i < 3000; i++) CHECK_INT(iv[i], i * 3 - 7);
        }
    }
    free(sbuf);
    free(rbuf);
    int rc = mt_finish("p2p_sendrecv");
    MPI_Finalize();
    return rc;
}
