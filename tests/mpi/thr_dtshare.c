/* SPDX-License-Identifier: MIT */
/* One derived datatype shared by T threads per rank, each on a communicator of
 * its own (with COURIER_NUM_CHANNELS, channels of their own): every request
 * holds a reference to the type, taken and given back under its channel's
 * lock only, so the count must change atomically (dt_create.c): with plain
 * increments two threads' counts get lost, and the type is destroyed while
 * requests still use it (garbage, a crash).  Every received element and
 * every hole is checked; at the end each thread also frees a duplicate of its
 * own, and the shared type is freed once all are done.  Argument: T
 * (default 3). */
#include "mpitest.h"
#include <pthread.h>

#define MAXT 4
#define ROUNDS 300
#define COUNT 50          /* blocks of the vector type (one per message) */
#define BLK 3
#define STRIDE 5          /* ints: BLK taken of every STRIDE */

static int rank, size, nthreads, left, right;
static MPI_Comm own[MAXT];
static MPI_Datatype shared;

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg, n = COUNT * STRIDE;
    int *sb = mt_malloc(sizeof(int) * (size_t)n), *rb = mt_malloc(sizeof(int) * (size_t)n);
    MPI_Datatype mine;
    CHECK_MPI(MPI_Type_dup(shared, &mine));
    for (int i = 0; i < ROUNDS; i++) {
        for (int k = 0; k < n; k++) {
            sb[k] = rank * 1000000 + t * 10000 + i * 10 + (k % STRIDE < BLK);
            rb[k] = -1;
        }
        MPI_Request rq[2];
        MPI_Datatype dt = i % 8 == 7 ? mine : shared;
        CHECK_MPI(MPI_Irecv(rb, 1, dt, left, i, own[t], &rq[0]));
        CHECK_MPI(MPI_Isend(sb, 1, dt, right, i, own[t], &rq[1]));
        CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        for (int k = 0; k < n; k++) {
            int want = k % STRIDE < BLK ? left * 1000000 + t * 10000 + i * 10 + 1 : -1;
            if (rb[k] != want) {
                CHECK(0, "thread %d round %d element %d: got %d, expected %d", t, i, k, rb[k], want);
                break;
            }
        }
    }
    CHECK_MPI(MPI_Type_free(&mine));
    free(sb);
    free(rb);
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = mt_init_multiple(&argc, &argv, &rank, &size, 1, MAXT, 3);
    left = (rank - 1 + size) % size;
    right = (rank + 1) % size;
    for (int t = 0; t < nthreads; t++) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &own[t]));
    CHECK_MPI(MPI_Type_vector(COUNT, BLK, STRIDE, MPI_INT, &shared));
    CHECK_MPI(MPI_Type_commit(&shared));
    pthread_t th[MAXT];
    for (int t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
    CHECK_MPI(MPI_Type_free(&shared));
    for (int t = 0; t < nthreads; t++) CHECK_MPI(MPI_Comm_free(&own[t]));
    int rc = mt_finish("thr_dtshare");
    MPI_Finalize();
    return rc;
}
