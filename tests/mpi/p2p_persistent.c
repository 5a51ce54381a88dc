/* SPDX-License-Identifier: MIT */
/* Persistent requests: Send_init, Ssend_init, Recv_init, Start, Startall,
 * reused over iterations, inactive-request semantics, then Request_free. */
#include "mpitest.h"

#define ITERS 20
static const int sizes[] = {1, 4096, 5000, 70000}; /* ints; 16 KiB = 4096 ints */
#define NS (int)(sizeof sizes / sizeof sizes[0])

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;

    for (int s = 0; s < NS; s++) {
        int n = sizes[s];
        int *out = mt_malloc(sizeof(int) * n), *in = mt_malloc(sizeof(int) * n);
        MPI_Request req[3];
        int *out2 = mt_malloc(sizeof(int) * n);
        CHECK_MPI(MPI_Recv_init(in, n, MPI_INT, from, s, MPI_COMM_WORLD, &req[0]));
        CHECK_MPI(MPI_Send_init(out, n, MPI_INT, to, s, MPI_COMM_WORLD, &req[1]));
        for (int it = 0; it < ITERS; it++) {
            MPI_Status st[2];
            for (int i = 0; i < n; i++) { out[i] = rank * 10000 + it * 100 + i; in[i] = -1; }
            if (it % 2) {
                CHECK_MPI(MPI_Startall(2, req));
            } else {
                CHECK_MPI(MPI_Start(&req[0]));
                CHECK_MPI(MPI_Start(&req[1]));
            }
            CHECK_MPI(MPI_Waitall(2, req, st));
            CHECK(req[0] != MPI_REQUEST_NULL && req[1] != MPI_REQUEST_NULL,
                  "persistent request became MPI_REQUEST_NULL after Waitall");
            CHECK_INT(st[0].MPI_SOURCE, from);
            CHECK_INT(st[0].MPI_TAG, s);
            for (int i = 0; i < n; i++)
                if (in[i] != from * 10000 + it * 100 + i) { CHECK_INT(in[i], from * 10000 + it * 100 + i); break; }
        }
        /* an inactive persistent request: Wait returns at once with an empty status */
        {
            MPI_Status st;
            int flag = 0;
            CHECK_MPI(MPI_Wait(&req[0], &st));
            CHECK(req[0] != MPI_REQUEST_NULL, "Wait on inactive persistent request freed it");
            CHECK_MPI(MPI_Test(&req[1], &flag, &st));
            CHECK_INT(flag, 1);
        }
        CHECK_MPI(MPI_Request_free(&req[1]));
        CHECK_INT(req[1], MPI_REQUEST_NULL);

        /* Ssend_init: synchronous each time */
        CHECK_MPI(MPI_Ssend_init(out2, n, MPI_INT, to, s + 50, MPI_COMM_WORLD, &req[2]));
        CHECK_MPI(MPI_Request_free(&req[0]));
        CHECK_MPI(MPI_Recv_init(in, n, MPI_INT, MPI_ANY_SOURCE, s + 50, MPI_COMM_WORLD, &req[0]));
        for (int it = 0; it < 5; it++) {
            MPI_Request two[2] = {req[0], req[2]};
            for (int i = 0; i < n; i++) out2[i] = rank - it - i;
            CHECK_MPI(MPI_Startall(2, two));
            CHECK_MPI(MPI_Waitall(2, two, MPI_STATUSES_IGNORE));
            for (int i = 0; i < n; i++) if (in[i] != from - it - i) { CHECK_INT(in[i], from - it - i); break; }
        }
        CHECK_MPI(MPI_Request_free(&req[0]));
        CHECK_MPI(MPI_Request_free(&req[2]));
        free(out); free(in); free(out2);
    }

    /* persistent to MPI_PROC_NULL */
    {
        int x = 5;
        MPI_Request r[2];
        MPI_Status st[2];
        CHECK_MPI(MPI_Send_init(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[0]));
        CHECK_MPI(MPI_Recv_init(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[1]));
        CHECK_MPI(MPI_Startall(2, r));
        CHECK_MPI(MPI_Waitall(2, r, st));
#ifndef MT_REFERENCE_MPICH /* MPICH 4.0 reports MPI_ANY_SOURCE here, against the standard */
        CHECK_INT(st[1].MPI_SOURCE, MPI_PROC_NULL);
#endif
        CHECK_INT(x, 5);
        MPI_Request_free(&r[0]);
        MPI_Request_free(&r[1]);
    }
    int rc = mt_finish("p2p_persistent");
    MPI_Finalize();
    return rc;
}
