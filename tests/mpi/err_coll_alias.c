/* SPDX-License-Identifier: MIT */
/* Aliased buffers in collectives (issue 11; MPICH's errors/coll/noalias,
 * noalias2, noalias3, reduce_local): a send buffer that is the receive
 * buffer, or this process's block of it, is MPI_ERR_BUFFER at entry, on every
 * process where both are significant (every process of an allreduce, the
 * root of a reduce, gather or scatter), so that no process waits for one
 * that returned.  Blocking, non-blocking and persistent forms; after each
 * refused call a correct one runs and its data are checked, so the refusals
 * left nothing behind.  What stays valid: MPI_IN_PLACE, and an alltoallv
 * whose send and receive parts of one buffer lie apart (the same base
 * address, other counts and displacements).  MPI_Reduce_local refuses
 * MPI_IN_PLACE for either buffer and the same buffer twice.  Any number of
 * ranks. */
#include "mpitest.h"

enum { N = 2 };   /* ints per process */

static int rank, size;

/* buf holds N ints per rank: rank r's block is r*100 + i. */
static void fill(int *buf)
{
    for (int r = 0; r < size; r++)
        for (int i = 0; i < N; i++) buf[r * N + i] = r * 100 + i;
}

/* The call must fail with MPI_ERR_BUFFER. */
#define REFUSED(call) CHECK_CLASS((call), MPI_ERR_BUFFER)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm comm = MPI_COMM_WORLD;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int *b = mt_malloc((size_t)size * N * sizeof(int)), *r = mt_malloc((size_t)size * N * sizeof(int));
    int *cnt = mt_malloc((size_t)size * sizeof(int)), *dsp = mt_malloc((size_t)size * sizeof(int));
    int *cnt2 = mt_malloc((size_t)size * sizeof(int)), *dsp2 = mt_malloc((size_t)size * sizeof(int));
    MPI_Datatype *types = mt_malloc((size_t)size * sizeof(MPI_Datatype));
    for (int i = 0; i < size; i++) {
        cnt[i] = N;
        dsp[i] = i * N;
        types[i] = MPI_INT;
    }
    MPI_Request req;
    fill(b);

    /* every process: both buffers significant everywhere */
    REFUSED(MPI_Allreduce(b, b, N, MPI_INT, MPI_SUM, comm));
    REFUSED(MPI_Iallreduce(b, b, N, MPI_INT, MPI_SUM, comm, &req));
    REFUSED(MPI_Allreduce_init(b, b, N, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req));
    REFUSED(MPI_Allreduce_c(b, b, N, MPI_INT, MPI_SUM, comm));
    REFUSED(MPI_Allgather(b + rank * N, N, MPI_INT, b, N, MPI_INT, comm));
    REFUSED(MPI_Iallgather(b + rank * N, N, MPI_INT, b, N, MPI_INT, comm, &req));
    REFUSED(MPI_Allgatherv(b + rank * N, N, MPI_INT, b, cnt, dsp, MPI_INT, comm));
    REFUSED(MPI_Alltoall(b, N, MPI_INT, b, N, MPI_INT, comm));
    REFUSED(MPI_Alltoallv(b, cnt, dsp, MPI_INT, b, cnt, dsp, MPI_INT, comm));
    REFUSED(MPI_Alltoallw(b, cnt, dsp, types, b, cnt, dsp, types, comm));
    REFUSED(MPI_Reduce_scatter(b, b, cnt, MPI_INT, MPI_SUM, comm));
    REFUSED(MPI_Reduce_scatter_block(b, b, N, MPI_INT, MPI_SUM, comm));
    REFUSED(MPI_Scan(b, b, N, MPI_INT, MPI_SUM, comm));
    REFUSED(MPI_Iexscan(b, b, N, MPI_INT, MPI_SUM, comm, &req));
    /* the root only (its receive or send buffer is the one that matters) */
    if (rank == 0) {
        REFUSED(MPI_Reduce(b, b, N, MPI_INT, MPI_SUM, 0, comm));
        REFUSED(MPI_Ireduce(b, b, N, MPI_INT, MPI_SUM, 0, comm, &req));
        REFUSED(MPI_Gather(b, N, MPI_INT, b, N, MPI_INT, 0, comm));
        REFUSED(MPI_Gatherv(b, N, MPI_INT, b, cnt, dsp, MPI_INT, 0, comm));
        REFUSED(MPI_Scatter(b, N, MPI_INT, b, N, MPI_INT, 0, comm));
        REFUSED(MPI_Iscatterv(b, cnt, dsp, MPI_INT, b, N, MPI_INT, 0, comm, &req));
    }

    /* nothing was left behind: correct calls of the same kinds, checked */
    int sum[N];
    fill(b);
    CHECK_MPI(MPI_Allreduce(b + rank * N, sum, N, MPI_INT, MPI_SUM, comm));
    for (int i = 0; i < N; i++) CHECK_INT(sum[i], 100 * size * (size - 1) / 2 + size * i);
    for (int i = 0; i < N; i++) r[rank * N + i] = rank * 100 + i;
    CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, N, MPI_INT, comm));
    for (int i = 0; i < size * N; i++) CHECK_INT(r[i], b[i]);
    int mine[N] = { rank * 100, rank * 100 + 1 };
    memset(r, 0, (size_t)size * N * sizeof(int));
    CHECK_MPI(MPI_Gather(mine, N, MPI_INT, r, N, MPI_INT, 0, comm));
    if (rank == 0)
        for (int i = 0; i < size * N; i++) CHECK_INT(r[i], b[i]);
    int in[N] = { rank, 2 * rank };
    CHECK_MPI(MPI_Reduce(rank == 0 ? MPI_IN_PLACE : in, in, N, MPI_INT, MPI_SUM, 0, comm));
    if (rank == 0) {
        CHECK_INT(in[0], size * (size - 1) / 2);
        CHECK_INT(in[1], size * (size - 1));
    }
    /* one buffer, its send part and its receive part apart: valid */
    int *one = mt_malloc((size_t)size * N * 2 * sizeof(int));
    for (int i = 0; i < size; i++) {
        cnt2[i] = N;
        dsp2[i] = size * N + i * N;
    }
    for (int i = 0; i < size * N; i++) one[i] = rank * 1000 + i;
    CHECK_MPI(MPI_Alltoallv(one, cnt, dsp, MPI_INT, one, cnt2, dsp2, MPI_INT, comm));
    for (int p = 0; p < size; p++)
        for (int i = 0; i < N; i++) CHECK_INT(one[size * N + p * N + i], p * 1000 + rank * N + i);
    free(one);

    /* MPI_Reduce_local: no MPI_IN_PLACE, no aliasing; a correct one adds */
    int x[N] = { 1, 2 }, y[N] = { 10, 20 };
    REFUSED(MPI_Reduce_local(MPI_IN_PLACE, y, N, MPI_INT, MPI_SUM));
    REFUSED(MPI_Reduce_local(x, MPI_IN_PLACE, N, MPI_INT, MPI_SUM));
    REFUSED(MPI_Reduce_local(y, y, N, MPI_INT, MPI_SUM));
    CHECK_MPI(MPI_Reduce_local(x, y, N, MPI_INT, MPI_SUM));
    CHECK_INT(y[0], 11);
    CHECK_INT(y[1], 22);

    free(b);
    free(r);
    free(cnt);
    free(dsp);
    free(cnt2);
    free(dsp2);
    free(types);
    int rc = mt_finish("err_coll_alias");
    MPI_Finalize();
    return rc;
}
