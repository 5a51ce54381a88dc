/* SPDX-License-Identifier: MIT */
/* A receive whose message ends inside a basic element of its non-contiguous
 * datatype (MPICH's errors/pt2pt/truncmsg2: three chars into an indexed type
 * of ints): the type signatures cannot match, MPI_ERR_TYPE, eager and
 * rendezvous, posted before or after the message came.  A shorter message
 * that ends on an element boundary is fine (MPI_Get_elements counts it), and
 * so is any message into a contiguous type (no check there, as in MPICH). */
#include "mpitest.h"

static int me, np;

/* Rank 1 sends `nchars` chars; rank 0 receives them into `count` of rtype,
 * posted before the message is sent (early) or after. */
static int exchange(int nchars, MPI_Datatype rtype, int count, int early, MPI_Status *st,
                    char *rbuf)
{
    int rc = MPI_SUCCESS;
    char *src = mt_malloc((size_t)nchars);
    mt_fill(src, (size_t)nchars, nchars);
    MPI_Request req = MPI_REQUEST_NULL;
    if (me == 1 && !early) MPI_Isend(src, nchars, MPI_CHAR, 0, 7, MPI_COMM_WORLD, &req);
    if (me == 0 && early) MPI_Irecv(rbuf, count, rtype, 1, 7, MPI_COMM_WORLD, &req);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 1 && early) MPI_Isend(src, nchars, MPI_CHAR, 0, 7, MPI_COMM_WORLD, &req);
    if (me == 0 && !early) MPI_Irecv(rbuf, count, rtype, 1, 7, MPI_COMM_WORLD, &req);
    if (me == 0) rc = MPI_Wait(&req, st);
    if (me == 1) CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    free(src);
    return rc;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2) {   /* needs a sender and a receiver */
        int rc = mt_finish("err_recv_signature");
        MPI_Finalize();
        return rc;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* ints at 4, 8, 9, 16 (in ints): 16 bytes of data, with holes */
    int blens[3] = { 1, 2, 1 }, displs[3] = { 4, 8, 16 };
    MPI_Datatype idx, big;
    MPI_Type_indexed(3, blens, displs, MPI_INT, &idx);
    MPI_Type_commit(&idx);
    MPI_Type_vector(4096, 1, 2, MPI_INT, &big);   /* 16 KiB of ints, 32 KiB apart */
    MPI_Type_commit(&big);
    char *rbuf = mt_malloc(64 * 1024);
    MPI_Status st;
    for (int early = 0; early < 2; early++) {
        /* three chars into ints: an element cut */
        int rc = exchange(3, idx, 1, early, &st, rbuf);
        if (me == 0) {
#ifndef MT_REFERENCE_MPICH   /* MPICH says MPI_ERR_TYPE too, but through its own code path */
            CHECK_CLASS(rc, MPI_ERR_TYPE);
#else
            CHECK(rc != MPI_SUCCESS, "3 chars into an indexed type of ints: no error");
#endif
        }
        /* eight chars: two whole ints */
        rc = exchange(8, idx, 1, early, &st, rbuf);
        if (me == 0) {
            CHECK_MPI(rc);
            int n = -1;
            MPI_Get_elements(&st, MPI_INT, &n);
            CHECK_INT(n, 2);
            MPI_Get_count(&st, idx, &n);
            CHECK_INT(n, MPI_UNDEFINED);
            /* packed bytes 0-3 at int 4, bytes 4-7 at int 8 */
            for (int i = 0; i < 8; i++)
                CHECK_INT((unsigned char)rbuf[(i < 4 ? 16 : 28) + i], mt_pattern(8, (size_t)i));
        }
        /* a rendezvous-sized message cut inside an int */
        rc = exchange(16 * 1024 - 1, big, 1, early, &st, rbuf);
        if (me == 0) CHECK(rc != MPI_SUCCESS, "16383 chars into a vector of ints: no error");
        /* contiguous: not checked (MPICH neither), the bytes arrive */
        rc = exchange(3, MPI_INT, 2, early, &st, rbuf);
        if (me == 0) {
            CHECK_MPI(rc);
            CHECK_PATTERN(rbuf, 3, 3);
        }
    }
    /* the communicator still works */
    int v = me, sum = 0;
    CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_INT(sum, np * (np - 1) / 2);
    free(rbuf);
    MPI_Type_free(&idx);
    MPI_Type_free(&big);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    int rc = mt_finish("err_recv_signature");
    MPI_Finalize();
    return rc;
}
