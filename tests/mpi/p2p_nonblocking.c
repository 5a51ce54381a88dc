/* SPDX-License-Identifier: MIT */
/* MPI_Isend / MPI_Irecv: receives posted before and after the sends, many
 * requests outstanding at once, sizes on both sides of the eager limit, every
 * rank exchanging with every rank (itself included). */
#include "mpitest.h"

static const int sizes[] = {0, 4, 100, 16384, 16385, 100000};
#define NS (int)(sizeof sizes / sizeof sizes[0])

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int nreq = size * NS;
    MPI_Request *rreq = mt_malloc(sizeof(MPI_Request) * nreq);
    MPI_Request *sreq = mt_malloc(sizeof(MPI_Request) * nreq);
    MPI_Status *rst = mt_malloc(sizeof(MPI_Status) * nreq);
    unsigned char **rb = mt_malloc(sizeof(void *) * nreq), **sb = mt_malloc(sizeof(void *) * nreq);

    for (int round = 0; round < 2; round++) {
        /* round 0: receives first; round 1: sends first, then a barrier-free
         * receive posting (messages arrive unexpected) */
        int k = 0;
        if (round == 0) {
            for (int p = 0; p < size; p++)
                for (int s = 0; s < NS; s++, k++) {
                    rb[k] = mt_malloc(sizes[s]);
                    memset(rb[k], 0xee, sizes[s]);
                    CHECK_MPI(MPI_Irecv(rb[k], sizes[s], MPI_BYTE, p, s, MPI_COMM_WORLD, &rreq[k]));
                }
        }
        k = 0;
        for (int p = 0; p < size; p++)
            for (int s = 0; s < NS; s++, k++) {
                sb[k] = mt_malloc(sizes[s]);
                mt_fill(sb[k], sizes[s], rank * 1000 + p * 10 + s + round);
                CHECK_MPI(MPI_Isend(sb[k], sizes[s], MPI_BYTE, p, s, MPI_COMM_WORLD, &sreq[k]));
            }
        if (round == 1) {
            k = 0;
            for (int p = 0; p < size; p++)
                for (int s = 0; s < NS; s++, k++) {
                    rb[k] = mt_malloc(sizes[s]);
                    memset(rb[k], 0xee, sizes[s]);
                    CHECK_MPI(MPI_Irecv(rb[k], sizes[s], MPI_BYTE, p, s, MPI_COMM_WORLD, &rreq[k]));
                }
        }
        CHECK_MPI(MPI_Waitall(nreq, rreq, rst));
        CHECK_MPI(MPI_Waitall(nreq, sreq, MPI_STATUSES_IGNORE));
        k = 0;
        for (int p = 0; p < size; p++)
            for (int s = 0; s < NS; s++, k++) {
                int cnt = -1;
                CHECK_INT(rreq[k], MPI_REQUEST_NULL);
                CHECK_INT(sreq[k], MPI_REQUEST_NULL);
                CHECK_INT(rst[k].MPI_SOURCE, p);
                CHECK_INT(rst[k].MPI_TAG, s);
                MPI_Get_count(&rst[k], MPI_BYTE, &cnt);
                CHECK_INT(cnt, sizes[s]);
                CHECK_PATTERN(rb[k], sizes[s], p * 1000 + rank * 10 + s + round);
                free(rb[k]);
                free(sb[k]);
            }
    }

    /* overlap: Irecv from the left, Isend to the right, compute, Wait */
    {
        int left = (rank + size - 1) % size, right = (rank + 1) % size;
        double out[256], in[256];
        MPI_Request r[2];
        MPI_Status st;
        for (int i = 0; i < 256; i++) out[i] = rank + i / 1000.0;
        CHECK_MPI(MPI_Irecv(in, 256, MPI_DOUBLE, left, 77, MPI_COMM_WORLD, &r[0]));
        CHECK_MPI(MPI_Isend(out, 256, MPI_DOUBLE, right, 77, MPI_COMM_WORLD, &r[1]));
        CHECK_MPI(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Wait(&r[0], &st));
        CHECK_INT(st.MPI_SOURCE, left);
        for (int i = 0; i < 256; i++) CHECK(in[i] == left + i / 1000.0, "in[%d] = %g", i, in[i]);
    }
    free(rreq); free(sreq); free(rst); free(rb); free(sb);
    int rc = mt_finish("p2p_nonblocking");
    MPI_Finalize();
    return rc;
}
