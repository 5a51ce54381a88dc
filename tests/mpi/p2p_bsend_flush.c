/* SPDX-License-Identifier: MIT */
/* MPI 4.1's buffered-mode additions: a buffer attached to a communicator
 * (used before the process's one, refusing what does not fit), MPI_Buffer_flush,
 * MPI_Comm_iflush_buffer, MPI_BUFFER_AUTOMATIC, detach returning what was
 * attached, and the errors of a second attach and of a detach with nothing
 * attached.  Messages are past the eager limit, so they stay pending in the
 * buffer until the receiver posts.  (MPICH 4.0 has none of these calls: when
 * validating against it the test only passes.) */
#include "mpitest.h"

#define LEN 6000      /* ints: 24000 bytes, rendezvous by default */
#define NMSG 3

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
#ifndef MT_REFERENCE_MPICH
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int *out = mt_malloc(sizeof(int) * LEN * NMSG), *in = mt_malloc(sizeof(int) * LEN * NMSG);
    MPI_Request rr[NMSG], fr;
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int i = 0; i < LEN * NMSG; i++) out[i] = rank * 1000000 + i;

    /* a communicator buffer for two messages; the process buffer holds none */
    int csize = 2 * (LEN * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char *cbuf = mt_malloc(csize), *pbuf = mt_malloc(MPI_BSEND_OVERHEAD);
    CHECK_MPI(MPI_Buffer_attach(pbuf, MPI_BSEND_OVERHEAD));
    CHECK_CLASS(MPI_Comm_detach_buffer(dup, &cbuf, &csize), MPI_ERR_BUFFER);
    CHECK_MPI(MPI_Comm_attach_buffer(dup, cbuf, csize));
    CHECK_CLASS(MPI_Comm_attach_buffer(dup, cbuf, csize), MPI_ERR_BUFFER);
    CHECK_MPI(MPI_Bsend(out, LEN, MPI_INT, to, 0, dup));
    CHECK_MPI(MPI_Bsend(out + LEN, LEN, MPI_INT, to, 1, dup));
    /* full: the third is refused while the receiver has not posted */
    int rc = MPI_Bsend(out + 2 * LEN, LEN, MPI_INT, to, 2, dup);
    int refused = rc != MPI_SUCCESS;
    if (refused) CHECK_CLASS(rc, MPI_ERR_BUFFER);
    /* MPI_COMM_WORLD draws on the process buffer, too small */
    CHECK_CLASS(MPI_Bsend(out, LEN, MPI_INT, to, 9, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_MPI(MPI_Comm_iflush_buffer(dup, &fr));
    for (int m = 0; m < (refused ? 2 : 3); m++)
        CHECK_MPI(MPI_Irecv(in + m * LEN, LEN, MPI_INT, from, m, dup, &rr[m]));
    CHECK_MPI(MPI_Wait(&fr, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Waitall(refused ? 2 : 3, rr, MPI_STATUSES_IGNORE));
    for (int i = 0; i < LEN * (refused ? 2 : 3); i++)
        if (in[i] != from * 1000000 + i) {
            CHECK_INT(in[i], from * 1000000 + i);
            break;
        }
    char *back = NULL;
    int bsize = -1;
    CHECK_MPI(MPI_Comm_detach_buffer(dup, &back, &bsize));
    CHECK(back == cbuf, "detach returned %p, attached %p", (void *)back, (void *)cbuf);
    CHECK_INT(bsize, csize);
    CHECK_MPI(MPI_Buffer_detach(&back, &bsize));
    CHECK(back == pbuf, "process detach returned %p", (void *)back);

    /* MPI_BUFFER_AUTOMATIC for the process: never refuses; flush, then detach */
    CHECK_MPI(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
    for (int m = 0; m < NMSG; m++)
        CHECK_MPI(MPI_Irecv(in + m * LEN, LEN, MPI_INT, from, 10 + m, MPI_COMM_WORLD, &rr[m]));
    for (int m = 0; m < NMSG; m++) {
        for (int i = 0; i < LEN; i++) out[m * LEN + i] = rank * 7 + m * 100000 + i;
        CHECK_MPI(MPI_Bsend(out + m * LEN, LEN, MPI_INT, to, 10 + m, MPI_COMM_WORLD));
        out[m * LEN] = -5;      /* the data was copied: the buffer is free again */
    }
    CHECK_MPI(MPI_Buffer_flush());
    CHECK_MPI(MPI_Buffer_iflush(&fr));
    int flag = 0;
    CHECK_MPI(MPI_Test(&fr, &flag, MPI_STATUS_IGNORE));
    CHECK_INT(flag, 1);          /* nothing pending after a flush */
    CHECK_MPI(MPI_Waitall(NMSG, rr, MPI_STATUSES_IGNORE));
    for (int m = 0; m < NMSG; m++)
        for (int i = 0; i < LEN; i++)
            if (in[m * LEN + i] != from * 7 + m * 100000 + i) {
                CHECK_INT(in[m * LEN + i], from * 7 + m * 100000 + i);
                break;
            }
    CHECK_MPI(MPI_Buffer_detach(&back, &bsize));
    CHECK(back == MPI_BUFFER_AUTOMATIC, "detach of the automatic buffer returned %p", (void *)back);
    CHECK_INT(bsize, 0);
    CHECK_CLASS(MPI_Buffer_detach(&back, &bsize), MPI_ERR_BUFFER);
    CHECK_MPI(MPI_Buffer_flush());      /* nothing attached: nothing to do */
    MPI_Comm_free(&dup);
    free(cbuf);
    free(pbuf);
    free(out);
    free(in);
#endif
    return mt_finish("p2p_bsend_flush") + (MPI_Finalize() != MPI_SUCCESS);
}
