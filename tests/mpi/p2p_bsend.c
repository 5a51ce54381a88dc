/* SPDX-License-Identifier: MIT */
/* Buffered sends: MPI_Buffer_attach, several MPI_Bsend / MPI_Ibsend that
 * complete locally before any receive is posted, MPI_Buffer_detach returning
 * the attached buffer and size (it waits until the buffered data is sent). */
#include "mpitest.h"

#define NMSG 8
#define MSGLEN 5000 /* ints: 20000 bytes each, beyond the default eager limit */

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dest = (rank + 1) % size, src = (rank + size - 1) % size;

    int bufsize = NMSG * (MSGLEN * (int)sizeof(int) + MPI_BSEND_OVERHEAD) + 4 * (16 + MPI_BSEND_OVERHEAD);
    char *attach = mt_malloc(bufsize);
    CHECK_MPI(MPI_Buffer_attach(attach, bufsize));

    int *out = mt_malloc(sizeof(int) * NMSG * MSGLEN), *in = mt_malloc(sizeof(int) * MSGLEN);
    MPI_Request r[NMSG];
    for (int m = 0; m < NMSG; m++) {
        int *o = out + m * MSGLEN;
        for (int i = 0; i < MSGLEN; i++) o[i] = rank * 1000000 + m * 10000 + i;
        if (m % 2 == 0)
            CHECK_MPI(MPI_Bsend(o, MSGLEN, MPI_INT, dest, m, MPI_COMM_WORLD));
        else
            CHECK_MPI(MPI_Ibsend(o, MSGLEN, MPI_INT, dest, m, MPI_COMM_WORLD, &r[m / 2]));
    }
    /* buffered sends complete locally: the user buffer may be reused now */
    CHECK_MPI(MPI_Waitall(NMSG / 2, r, MPI_STATUSES_IGNORE));
    for (int i = 0; i < NMSG * MSGLEN; i++) out[i] = -1;
    /* a tiny one too */
    int small = 4242 + rank;
    CHECK_MPI(MPI_Bsend(&small, 1, MPI_INT, dest, 100, MPI_COMM_WORLD));

    /* receive in reverse tag order: all were buffered, so no deadlock */
    for (int m = NMSG - 1; m >= 0; m--) {
        MPI_Status st;
        CHECK_MPI(MPI_Recv(in, MSGLEN, MPI_INT, src, m, MPI_COMM_WORLD, &st));
        CHECK_INT(st.MPI_SOURCE, src);
        for (int i = 0; i < MSGLEN; i++)
            if (in[i] != src * 1000000 + m * 10000 + i) { CHECK_INT(in[i], src * 1000000 + m * 10000 + i); break; }
    }
    int got = 0;
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, src, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_INT(got, 4242 + src);

    void *det = NULL;
    int detsize = 0;
    CHECK_MPI(MPI_Buffer_detach(&det, &detsize));
    CHECK(det == attach, "detach returned %p, attached %p", det, (void *)attach);
    CHECK_INT(detsize, bufsize);

    /* attach again, send, detach while the message may still be in flight */
    CHECK_MPI(MPI_Buffer_attach(attach, bufsize));
    small = 7 + rank;
    CHECK_MPI(MPI_Bsend(&small, 1, MPI_INT, dest, 101, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Buffer_detach(&det, &detsize));
    CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, src, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_INT(got, 7 + src);

    free(attach); free(out); free(in);
    int rc = mt_finish("p2p_bsend");
    MPI_Finalize();
    return rc;
}
