/* SPDX-License-Identifier: MIT */
/* Communicator creation from several threads at once (MPI_THREAD_MULTIPLE):
 * every thread repeatedly duplicates a communicator of its own with
 * MPI_Comm_dup (and MPI_Comm_create with its whole group), passes a value
 * around the ring of ranks on the new communicator, and frees it.  Two
 * creations running at once in one process must not agree on the same
 * context id: a message would then reach the other thread's communicator and
 * the value would be wrong.  Argument: threads (default 3). */
#include "mpitest.h"
#include <pthread.h>

#define MAXT 8
#define ROUNDS 40

static MPI_Comm base[MAXT];
static int rank, size;

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Group g;
    CHECK_MPI(MPI_Comm_group(base[t], &g));
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Comm c;
        if (i % 2) CHECK_MPI(MPI_Comm_dup(base[t], &c));
        else CHECK_MPI(MPI_Comm_create(base[t], g, &c));
        int v = t * 1000 + i, r = -1;
        CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, (rank + 1) % size, 0, &r, 1, MPI_INT,
                               (rank - 1 + size) % size, 0, c, MPI_STATUS_IGNORE));
        CHECK(r == v, "thread %d round %d: got %d on its new communicator", t, i, r);
        CHECK_MPI(MPI_Comm_free(&c));
    }
    CHECK_MPI(MPI_Group_free(&g));
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mt_rank();
    CHECK_INT(provided, MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int nt = argc > 1 ? atoi(argv[1]) : 3;
    if (nt < 1 || nt > MAXT) nt = 3;
    for (int t = 0; t < nt; t++) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &base[t]));
    pthread_t th[MAXT];
    for (int t = 0; t < nt; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < nt; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < nt; t++) CHECK_MPI(MPI_Comm_free(&base[t]));
    int rc = mt_finish("thr_comm");
    MPI_Finalize();
    return rc;
}
