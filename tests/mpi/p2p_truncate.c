/* SPDX-License-Identifier: MIT */
/* Truncation: a message longer than the receive buffer gives an error of
 * class MPI_ERR_TRUNCATE (with MPI_ERRORS_RETURN), for eager and rendezvous
 * sizes, blocking and non-blocking; the sender completes normally and the
 * program carries on communicating. */
#include "mpitest.h"

static const int sizes[] = {8, 16384, 16385, 200000};
#define NS (int)(sizeof sizes / sizeof sizes[0])

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    unsigned char *sb = mt_malloc(200000), *rb = mt_malloc(200000);

    for (int s = 0; s < NS; s++)
        for (int nb = 0; nb < 2; nb++) {
            int n = sizes[s], tag = s * 2 + nb, rc;
            MPI_Request sr, rr;
            MPI_Status st;
            mt_fill(sb, n, tag);
            CHECK_MPI(MPI_Isend(sb, n, MPI_BYTE, to, tag, MPI_COMM_WORLD, &sr));
            if (nb) {
                CHECK_MPI(MPI_Irecv(rb, n / 2, MPI_BYTE, from, tag, MPI_COMM_WORLD, &rr));
                rc = MPI_Wait(&rr, &st);
            } else {
                rc = MPI_Recv(rb, n / 2, MPI_BYTE, from, tag, MPI_COMM_WORLD, &st);
            }
            CHECK_CLASS(rc, MPI_ERR_TRUNCATE);
            CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
            /* the part that fitted, if any, is the start of the message; the
             * standard leaves it undefined, so only the envelope is checked */
            CHECK_INT(st.MPI_SOURCE, from);
            CHECK_INT(st.MPI_TAG, tag);
            /* still alive: a normal exchange works */
            mt_fill(sb, n, tag + 1000);
            memset(rb, 0, n);
            CHECK_MPI(MPI_Sendrecv(sb, n, MPI_BYTE, to, 500 + tag, rb, n, MPI_BYTE, from, 500 + tag,
                                   MPI_COMM_WORLD, &st));
            CHECK_PATTERN(rb, n, tag + 1000);
        }

    /* in Waitall the error shows as MPI_ERR_IN_STATUS with MPI_ERR_TRUNCATE in the status */
    {
        int big[10] = {0}, small[5];
        MPI_Request r[2];
        MPI_Status st[2];
        CHECK_MPI(MPI_Irecv(small, 5, MPI_INT, from, 900, MPI_COMM_WORLD, &r[0]));
        CHECK_MPI(MPI_Isend(big, 10, MPI_INT, to, 900, MPI_COMM_WORLD, &r[1]));
        int rc = MPI_Waitall(2, r, st);
        CHECK_CLASS(rc, MPI_ERR_IN_STATUS);
        CHECK_CLASS(st[0].MPI_ERROR, MPI_ERR_TRUNCATE);
        CHECK(st[1].MPI_ERROR == MPI_SUCCESS || st[1].MPI_ERROR == MPI_ERR_PENDING,
              "send status error %d", st[1].MPI_ERROR);
        if (st[1].MPI_ERROR == MPI_ERR_PENDING) CHECK_MPI(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
    }
    free(sb); free(rb);
    int rc = mt_finish("p2p_truncate");
    MPI_Finalize();
    return rc;
}
