/* SPDX-License-Identifier: MIT */
/* MPI_THREAD_MULTIPLE from OpenMP threads (gcc -fopenmp): in a parallel
 * region every thread exchanges halo rows with the neighbouring ranks on a
 * communicator of its own (MPI_Comm_dup before the region), blocking and
 * non-blocking, and sums its block with MPI_Allreduce; every value is checked.
 * The thread count is OMP_NUM_THREADS (the list sets 2 and 4). */
#include "mpitest.h"
#include <omp.h>

#define MAXT 16
#define N 5000
#define ITERS 20

int main(int argc, char **argv)
{
    int provided = -1, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mt_rank();
    CHECK_INT(provided, MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nt = omp_get_max_threads();
    if (nt > MAXT) nt = MAXT;
    MPI_Comm comms[MAXT];
    for (int t = 0; t < nt; t++) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]));
    int ran = 0;
#pragma omp parallel num_threads(nt) reduction(+:ran)
    {
        int t = omp_get_thread_num();
        MPI_Comm c = comms[t];
        int up = (rank + 1) % size, down = (rank - 1 + size) % size;
        double *mine = malloc(N * sizeof(double)), *from_down = malloc(N * sizeof(double)),
               *from_up = malloc(N * sizeof(double));
        for (int it = 0; it < ITERS; it++) {
            for (int i = 0; i < N; i++) mine[i] = rank * 1e6 + t * 1e4 + it * 100 + i % 97;
            MPI_Request rq[2];
            CHECK_MPI(MPI_Irecv(from_down, N, MPI_DOUBLE, down, it, c, &rq[0]));
            CHECK_MPI(MPI_Irecv(from_up, N, MPI_DOUBLE, up, it, c, &rq[1]));
            CHECK_MPI(MPI_Send(mine, N, MPI_DOUBLE, up, it, c));
            CHECK_MPI(MPI_Send(mine, N, MPI_DOUBLE, down, it, c));
            CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
            for (int i = 0; i < N; i += 499) {
                CHECK(from_down[i] == down * 1e6 + t * 1e4 + it * 100 + i % 97,
                      "thread %d iter %d: from_down[%d] = %g", t, it, i, from_down[i]);
                CHECK(from_up[i] == up * 1e6 + t * 1e4 + it * 100 + i % 97,
                      "thread %d iter %d: from_up[%d] = %g", t, it, i, from_up[i]);
            }
            long in = rank + t + it, out = -1;
            CHECK_MPI(MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, c));
            CHECK_INT(out, (long)size * (size - 1) / 2 + (long)size * (t + it));
        }
        free(mine);
        free(from_down);
        free(from_up);
        ran = 1;
    }
    CHECK_INT(ran, nt);
    for (int t = 0; t < nt; t++) CHECK_MPI(MPI_Comm_free(&comms[t]));
    int rc = mt_finish("thr_omp");
    MPI_Finalize();
    return rc;
}
