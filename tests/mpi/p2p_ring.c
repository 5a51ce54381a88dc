/* SPDX-License-Identifier: MIT */
/* All-to-all exchanges: a token passed around the ring (blocking, so the
 * order is forced), then every pair of ranks exchanging with non-blocking
 * calls at sizes across the eager limit, then a pairwise schedule with
 * MPI_Sendrecv (step k: send to rank+k, receive from rank-k). */
#include "mpitest.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* token ring, 3 laps */
    if (size > 1) {
        int token = 0;
        for (int lap = 0; lap < 3; lap++) {
            if (rank == 0) {
                token = lap * 1000;
                CHECK_MPI(MPI_Send(&token, 1, MPI_INT, right, lap, MPI_COMM_WORLD));
                CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, left, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                CHECK_INT(token, lap * 1000 + size - 1);
            } else {
                CHECK_MPI(MPI_Recv(&token, 1, MPI_INT, left, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                CHECK_INT(token, lap * 1000 + rank - 1);
                token++;
                CHECK_MPI(MPI_Send(&token, 1, MPI_INT, right, lap, MPI_COMM_WORLD));
            }
        }
    }

    /* everyone with everyone, non-blocking */
    static const int sizes[] = {1, 2048, 4097, 70000}; /* doubles */
    for (int s = 0; s < 4; s++) {
        int n = sizes[s];
        double *out = mt_malloc(sizeof(double) * n * size), *in = mt_malloc(sizeof(double) * n * size);
        MPI_Request *r = mt_malloc(sizeof(MPI_Request) * 2 * size);
        for (int p = 0; p < size; p++)
            for (int i = 0; i < n; i++) { out[p * n + i] = rank * 1e6 + p * 1e4 + i; in[p * n + i] = -1; }
        for (int p = 0; p < size; p++) {
            CHECK_MPI(MPI_Irecv(in + p * n, n, MPI_DOUBLE, p, s, MPI_COMM_WORLD, &r[p]));
            CHECK_MPI(MPI_Isend(out + p * n, n, MPI_DOUBLE, p, s, MPI_COMM_WORLD, &r[size + p]));
        }
        CHECK_MPI(MPI_Waitall(2 * size, r, MPI_STATUSES_IGNORE));
        for (int p = 0; p < size; p++)
            for (int i = 0; i < n; i++)
                if (in[p * n + i] != p * 1e6 + rank * 1e4 + i) {
                    CHECK(0, "from %d element %d is %g", p, i, in[p * n + i]);
                    break;
                }
        /* pairwise Sendrecv schedule */
        for (int k = 1; k < size; k++) {
            int to = (rank + k) % size, from = (rank + size - k) % size;
            CHECK_MPI(MPI_Sendrecv(out + to * n, n, MPI_DOUBLE, to, 100 + k, in + from * n, n, MPI_DOUBLE, from,
                                   100 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int i = 0; i < n; i++)
                if (in[from * n + i] != from * 1e6 + rank * 1e4 + i) {
                    CHECK(0, "sendrecv step %d from %d element %d is %g", k, from, i, in[from * n + i]);
                    break;
                }
        }
        free(out); free(in); free(r);
    }
    int rc = mt_finish("p2p_ring");
    MPI_Finalize();
    return rc;
}
