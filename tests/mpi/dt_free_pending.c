/* SPDX-License-Identifier: MIT */
/* MPI_Type_free while operations using the type are pending: the standard says
 * the type is only marked for deallocation, and the pending operations must
 * complete normally (MPI-4.0 5.1.10).  Covers Irecv, Isend, persistent
 * requests and a non-blocking broadcast, each with a strided vector type that
 * is freed before the operation completes; the data is checked. */
#include "mpitest.h"

enum { N = 64, STRIDE = 3, BIG = 40000 };

static MPI_Datatype vec(int n)
{
    MPI_Datatype t;
    MPI_Type_vector(n, 1, STRIDE, MPI_INT, &t);
    MPI_Type_commit(&t);
    return t;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *buf = mt_malloc(sizeof(int) * BIG * STRIDE);

    /* point-to-point ring, small (eager) and large (rendezvous) */
    int counts[2] = { N, BIG };
    for (int k = 0; k < 2; k++) {
        int n = counts[k], to = (rank + 1) % size, from = (rank + size - 1) % size;
        int *sb = mt_malloc(sizeof(int) * n);
        for (int i = 0; i < n * STRIDE; i++) buf[i] = -1;
        for (int i = 0; i < n; i++) sb[i] = rank * 100000 + i;
        MPI_Datatype t = vec(n);
        MPI_Request rq[2];
        CHECK_MPI(MPI_Irecv(buf, 1, t, from, k, MPI_COMM_WORLD, &rq[0]));
        MPI_Datatype ts = vec(n);
        int *sv = mt_malloc(sizeof(int) * n * STRIDE);
        for (int i = 0; i < n; i++) sv[i * STRIDE] = sb[i];
        CHECK_MPI(MPI_Isend(sv, 1, ts, to, k, MPI_COMM_WORLD, &rq[1]));
        CHECK_MPI(MPI_Type_free(&t));
        CHECK_MPI(MPI_Type_free(&ts));
        CHECK(t == MPI_DATATYPE_NULL, "Type_free sets the handle to MPI_DATATYPE_NULL");
        CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < n; i++) {
            CHECK_INT(buf[i * STRIDE], from * 100000 + i);
            if (i + 1 < n) CHECK_INT(buf[i * STRIDE + 1], -1);
        }
        free(sb);
        free(sv);
    }

    /* persistent receive started twice after its type was freed */
    {
        int to = (rank + 1) % size, from = (rank + size - 1) % size;
        MPI_Datatype t = vec(N);
        MPI_Request pr;
        CHECK_MPI(MPI_Recv_init(buf, 1, t, from, 9, MPI_COMM_WORLD, &pr));
        CHECK_MPI(MPI_Type_free(&t));
        for (int round = 0; round < 2; round++) {
            int v[N];
            for (int i = 0; i < N; i++) v[i] = round * 1000 + rank + i;
            CHECK_MPI(MPI_Start(&pr));
            CHECK_MPI(MPI_Send(v, N, MPI_INT, to, 9, MPI_COMM_WORLD));
            CHECK_MPI(MPI_Wait(&pr, MPI_STATUS_IGNORE));
            for (int i = 0; i < N; i++) CHECK_INT(buf[i * STRIDE], round * 1000 + from + i);
        }
        CHECK_MPI(MPI_Request_free(&pr));
    }

    /* non-blocking broadcast whose type is freed before the wait */
    {
        MPI_Datatype t = vec(N);
        for (int i = 0; i < N * STRIDE; i++) buf[i] = rank == 0 ? i : -1;
        MPI_Request r;
        CHECK_MPI(MPI_Ibcast(buf, 1, t, 0, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Type_free(&t));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        for (int i = 0; i < N; i++) CHECK_INT(buf[i * STRIDE], i * STRIDE);
        if (rank != 0) CHECK_INT(buf[1], -1);
    }
    free(buf);
    int rc = mt_finish("dt_free_pending");
    MPI_Finalize();
    return rc;
}
