/* SPDX-License-Identifier: MIT */
/* Messages a rank sends to itself: eager-sized blocking Send then Recv (the
 * library must buffer it), non-blocking at every size, Sendrecv with self,
 * ordering of several self messages, and MPI_COMM_SELF. */
#include "mpitest.h"

static const int sizes[] = {0, 1, 64, 16384, 16385, 1 << 20};
#define NS (int)(sizeof sizes / sizeof sizes[0])

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *sb = mt_malloc(1 << 20), *rb = mt_malloc(1 << 20);
    MPI_Status st;
    int cnt;

    /* small blocking Send to self completes before the Recv is posted in
     * every MPI we know (it is buffered); keep it tiny */
    int v = rank + 1, w = 0;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, rank, 1, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, rank, 1, MPI_COMM_WORLD, &st));
    CHECK_INT(w, rank + 1);
    CHECK_INT(st.MPI_SOURCE, rank);

    for (int s = 0; s < NS; s++) {
        MPI_Request r[2];
        mt_fill(sb, sizes[s], s + rank);
        memset(rb, 0, sizes[s]);
        if (s % 2) {
            CHECK_MPI(MPI_Isend(sb, sizes[s], MPI_BYTE, rank, s, MPI_COMM_WORLD, &r[0]));
            CHECK_MPI(MPI_Irecv(rb, sizes[s], MPI_BYTE, rank, s, MPI_COMM_WORLD, &r[1]));
        } else {
            CHECK_MPI(MPI_Irecv(rb, sizes[s], MPI_BYTE, MPI_ANY_SOURCE, s, MPI_COMM_WORLD, &r[1]));
            CHECK_MPI(MPI_Isend(sb, sizes[s], MPI_BYTE, rank, s, MPI_COMM_WORLD, &r[0]));
        }
        CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        CHECK_PATTERN(rb, sizes[s], s + rank);

        memset(rb, 0, sizes[s]);
        CHECK_MPI(MPI_Sendrecv(sb, sizes[s], MPI_BYTE, rank, 100 + s, rb, sizes[s], MPI_BYTE, rank, 100 + s,
                               MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK_INT(cnt, sizes[s]);
        CHECK_PATTERN(rb, sizes[s], s + rank);

        memset(rb, 0, sizes[s]);
        CHECK_MPI(MPI_Sendrecv(sb, sizes[s], MPI_BYTE, 0, 200 + s, rb, sizes[s], MPI_BYTE, 0, 200 + s,
                               MPI_COMM_SELF, &st));
        CHECK_INT(st.MPI_SOURCE, 0);
        CHECK_PATTERN(rb, sizes[s], s + rank);
    }

    /* ordering of self messages, all sent before any is received */
    {
        MPI_Request r[10];
        int out[10], in = -1;
        for (int i = 0; i < 10; i++) {
            out[i] = i * 11;
            CHECK_MPI(MPI_Isend(&out[i], 1, MPI_INT, rank, 7, MPI_COMM_WORLD, &r[i]));
        }
        for (int i = 0; i < 10; i++) {
            CHECK_MPI(MPI_Recv(&in, 1, MPI_INT, rank, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_INT(in, i * 11);
        }
        CHECK_MPI(MPI_Waitall(10, r, MPI_STATUSES_IGNORE));
    }
    free(sb); free(rb);
    int rc = mt_finish("p2p_self");
    MPI_Finalize();
    return rc;
}
