/* SPDX-License-Identifier: MIT */
/* Collectives on per-thread duplicated communicators (MPI_THREAD_MULTIPLE):
 * T threads per rank, each in every round duplicates a communicator of its
 * own and runs on the new one, all threads at once, MPI_Allreduce,
 * MPI_Bcast (from a root that moves with the round, up to 6 KB),
 * MPI_Allgather, MPI_Reduce, MPI_Alltoall, MPI_Scan and MPI_Barrier, then
 * frees it.  Across (pretend) nodes the first collective on each new
 * communicator makes its node layer for the hierarchical algorithms, so the
 * threads of a process make node layers at the same time: two that agreed
 * on the same context ids would exchange each other's values among the
 * nodes' leaders.  Every value names its rank, thread and round, and every
 * result is checked.  Argument: T (default 3). */
#include "mpitest.h"
#include <pthread.h>

#define MAXT 4
#define ROUNDS 12
#define BCAST_MAX 1500   /* ints */

static int rank, size, nthreads;
static MPI_Comm base[MAXT];

static void round_on(MPI_Comm c, int t, int i, int *buf, int *all)
{
    /* allreduce: the sum of rank * 1000 + t * 100 + i over the ranks */
    long v = (long)rank * 1000 + t * 100 + i, sum = -1;
    CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, c));
    CHECK(sum == 1000L * size * (size - 1) / 2 + (long)size * (t * 100 + i),
          "thread %d round %d: allreduce gave %ld", t, i, sum);

    /* bcast from a root that moves with the round */
    int root = i % size, n = 1 + (i % 3) * ((BCAST_MAX - 1) / 2);   /* 1 .. BCAST_MAX */
    long seed = (long)t * 1000 + i * 10 + root;
    if (rank == root) mt_fill(buf, (size_t)n * sizeof(int), seed);
    else memset(buf, 0xee, (size_t)n * sizeof(int));
    CHECK_MPI(MPI_Bcast(buf, n, MPI_INT, root, c));
    CHECK_PATTERN(buf, (size_t)n * sizeof(int), seed);

    /* allgather: (rank, t, i) of every rank */
    int mine[3] = { rank, t, i };
    CHECK_MPI(MPI_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, c));
    for (int r = 0; r < size; r++)
        CHECK(all[3 * r] == r && all[3 * r + 1] == t && all[3 * r + 2] == i,
              "thread %d round %d: allgather block %d is (%d,%d,%d)", t, i, r, all[3 * r],
              all[3 * r + 1], all[3 * r + 2]);

    /* reduce (max) to another root */
    int rroot = (i + 1) % size;
    long mx = -1;
    CHECK_MPI(MPI_Reduce(&v, &mx, 1, MPI_LONG, MPI_MAX, rroot, c));
    if (rank == rroot)
        CHECK(mx == (long)(size - 1) * 1000 + t * 100 + i, "thread %d round %d: reduce gave %ld",
              t, i, mx);

    /* alltoall: rank * 100 + r * 10 + t to rank r */
    for (int r = 0; r < size; r++) buf[r] = rank * 100 + r * 10 + t;
    CHECK_MPI(MPI_Alltoall(buf, 1, MPI_INT, all, 1, MPI_INT, c));
    for (int r = 0; r < size; r++)
        CHECK(all[r] == r * 100 + rank * 10 + t, "thread %d round %d: alltoall from %d is %d", t,
              i, r, all[r]);

    /* scan: the sum of (r + 1) * (t + 1) over ranks 0 .. rank */
    long s = (long)(rank + 1) * (t + 1), pre = -1;
    CHECK_MPI(MPI_Scan(&s, &pre, 1, MPI_LONG, MPI_SUM, c));
    CHECK(pre == (long)(t + 1) * (rank + 1) * (rank + 2) / 2, "thread %d round %d: scan gave %ld",
          t, i, pre);

    CHECK_MPI(MPI_Barrier(c));
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    int *buf = mt_malloc(BCAST_MAX * sizeof(int)), *all = mt_malloc(3 * (size_t)size * sizeof(int));
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Comm c;
        CHECK_MPI(MPI_Comm_dup(base[t], &c));
        round_on(c, t, i, buf, all);
        CHECK_MPI(MPI_Comm_free(&c));
    }
    /* and the thread's own communicator, all threads at once */
    round_on(base[t], t, ROUNDS, buf, all);
    free(buf);
    free(all);
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = mt_init_multiple(&argc, &argv, &rank, &size, 1, MAXT, 3);
    for (int t = 0; t < nthreads; t++) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &base[t]));
    pthread_t th[MAXT];
    for (int t = 0; t < nthreads; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < nthreads; t++) MPI_Comm_free(&base[t]);
    int rc = mt_finish("thr_coll");
    MPI_Finalize();
    return rc;
}
