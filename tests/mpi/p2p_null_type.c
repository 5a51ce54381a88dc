/* SPDX-License-Identifier: MIT */
/* MPI_DATATYPE_NULL with count 0 in the point-to-point calls (MPICH takes it,
 * and its part/nonblocking_pready sends and receives NULL, 0,
 * MPI_DATATYPE_NULL): blocking, non-blocking, synchronous, buffered,
 * persistent, sendrecv, mprobe/mrecv, around a ring (np=1: to itself); each
 * empty message arrives with its source and tag and a count of 0, in order
 * with real data around it.  With a count of 1 the null datatype is still
 * MPI_ERR_TYPE. */
#include "mpitest.h"

static void check_empty(const MPI_Status *st, int from, int tag)
{
    int n = -1;
    CHECK_INT(st->MPI_SOURCE, from);
    CHECK_INT(st->MPI_TAG, tag);
    CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &n));
    CHECK_INT(n, 0);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    const MPI_Comm w = MPI_COMM_WORLD;
    const MPI_Datatype nt = MPI_DATATYPE_NULL;
    MPI_Status st;
    MPI_Request r[2];

    /* Isend + Recv, then a real message behind it */
    int x = rank + 100, y = -1;
    CHECK_MPI(MPI_Isend(NULL, 0, nt, to, 1, w, &r[0]));
    CHECK_MPI(MPI_Isend(&x, 1, MPI_INT, to, 1, w, &r[1]));
    CHECK_MPI(MPI_Recv(NULL, 0, nt, from, 1, w, &st));
    check_empty(&st, from, 1);
    CHECK_MPI(MPI_Recv(&y, 1, MPI_INT, from, 1, w, &st));
    CHECK_INT(y, from + 100);
    CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));

    /* Irecv + Send, Ssend (blocking; the receive is posted first) */
    CHECK_MPI(MPI_Irecv(NULL, 0, nt, from, 2, w, &r[0]));
    CHECK_MPI(MPI_Irecv(NULL, 0, nt, from, 3, w, &r[1]));
    CHECK_MPI(MPI_Send(NULL, 0, nt, to, 2, w));
    CHECK_MPI(MPI_Ssend(NULL, 0, nt, to, 3, w));
    CHECK_MPI(MPI_Wait(&r[0], &st));
    check_empty(&st, from, 2);
    CHECK_MPI(MPI_Wait(&r[1], &st));
    check_empty(&st, from, 3);

    /* buffered and synchronous non-blocking */
    char bbuf[2 * MPI_BSEND_OVERHEAD + 64];
    CHECK_MPI(MPI_Buffer_attach(bbuf, (int)sizeof bbuf));
    CHECK_MPI(MPI_Bsend(NULL, 0, nt, to, 4, w));
    CHECK_MPI(MPI_Issend(NULL, 0, nt, to, 5, w, &r[0]));
    CHECK_MPI(MPI_Recv(NULL, 0, nt, from, 4, w, &st));
    check_empty(&st, from, 4);
    CHECK_MPI(MPI_Recv(NULL, 0, nt, from, 5, w, &st));
    check_empty(&st, from, 5);
    CHECK_MPI(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    void *b;
    int bs;
    CHECK_MPI(MPI_Buffer_detach(&b, &bs));

    /* persistent, started twice */
    CHECK_MPI(MPI_Recv_init(NULL, 0, nt, from, 6, w, &r[0]));
    CHECK_MPI(MPI_Send_init(NULL, 0, nt, to, 6, w, &r[1]));
    for (int round = 0; round < 2; round++) {
        CHECK_MPI(MPI_Startall(2, r));
        MPI_Status sts[2];
        CHECK_MPI(MPI_Waitall(2, r, sts));
        check_empty(&sts[0], from, 6);
    }
    CHECK_MPI(MPI_Request_free(&r[0]));
    CHECK_MPI(MPI_Request_free(&r[1]));

    /* sendrecv with both sides empty and null */
    CHECK_MPI(MPI_Sendrecv(NULL, 0, nt, to, 7, NULL, 0, nt, from, 7, w, &st));
    check_empty(&st, from, 7);

    /* mprobe, then mrecv into nothing */
    MPI_Message m;
    CHECK_MPI(MPI_Isend(NULL, 0, nt, to, 8, w, &r[0]));
    CHECK_MPI(MPI_Mprobe(from, 8, w, &m, &st));
    check_empty(&st, from, 8);
    CHECK_MPI(MPI_Mrecv(NULL, 0, nt, &m, &st));
    check_empty(&st, from, 8);
    CHECK_MPI(MPI_Wait(&r[0], MPI_STATUS_IGNORE));

    /* a count of 1 with the null datatype is an error still */
    CHECK_MPI(MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN));
    int rc = MPI_Send(&x, 1, nt, to, 9, w);
    CHECK_CLASS(rc, MPI_ERR_TYPE);
    rc = MPI_Irecv(&y, 1, nt, from, 9, w, &r[0]);
    CHECK_CLASS(rc, MPI_ERR_TYPE);
    CHECK_MPI(MPI_Comm_set_errhandler(w, MPI_ERRORS_ARE_FATAL));

    rc = mt_finish("p2p_null_type");
    MPI_Finalize();
    return rc;
}
