/* SPDX-License-Identifier: MIT */
/* MPI_THREAD_MULTIPLE, point-to-point and collectives from several threads at
 * once (pthreads).  Every thread of every rank, at the same time:
 * - exchanges messages around the ring of ranks on MPI_COMM_WORLD with a tag
 *   of its own (eager and rendezvous sizes, blocking and non-blocking, to
 *   itself when alone), and on a communicator of its own (duplicated by the
 *   main thread beforehand), checking every byte;
 * - runs MPI_Allreduce and MPI_Bcast on its own communicator;
 * - frees and makes datatypes, and completes requests another thread started
 *   (a request handed over through a shared slot).
 * Also checks MPI_Query_thread, MPI_Is_thread_main and the provided level.
 * Argument: the number of threads (default 3). */
#include "mpitest.h"
#include <pthread.h>

#define MAXT 8
#define ITERS 40

static int rank, size, nthreads;
static MPI_Comm tcomm[MAXT];
static MPI_Request handed[MAXT];
static int handed_buf[MAXT][4];
static pthread_barrier_t bar;

static size_t msg_len(int it)
{
    static const size_t sizes[] = { 0, 8, 100, 4000, 40000, 300000 };
    return sizes[it % 6];
}

static long seed_of(int src, int t, int it, int on_comm)
{
    return ((long)src * 131 + t) * 1009 + it * 7 + on_comm;
}

/* One round of the ring on comm with tag: send to the right, receive from the left. */
static void ring(MPI_Comm comm, int tag, int t, int it, int on_comm, unsigned char *sbuf,
                 unsigned char *rbuf)
{
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    size_t n = msg_len(it);
    mt_fill(sbuf, n, seed_of(rank, t, it, on_comm));
    memset(rbuf, 0xee, n + 1);
    MPI_Status st;
    if (it % 2 == 0) {
        MPI_Request rq;
        CHECK_MPI(MPI_Irecv(rbuf, (int)n + 1, MPI_BYTE, left, tag, comm, &rq));
        CHECK_MPI(MPI_Send(sbuf, (int)n, MPI_BYTE, right, tag, comm));
        CHECK_MPI(MPI_Wait(&rq, &st));
    } else {
        CHECK_MPI(MPI_Sendrecv(sbuf, (int)n, MPI_BYTE, right, tag, rbuf, (int)n + 1, MPI_BYTE,
                               left, tag, comm, &st));
    }
    int count = -1;
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK_INT(count, n);
    CHECK_INT(st.MPI_SOURCE, left);
    CHECK_INT(st.MPI_TAG, tag);
    CHECK_PATTERN(rbuf, n, seed_of(left, t, it, on_comm));
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    int flag = -1;
    CHECK_MPI(MPI_Is_thread_main(&flag));
    CHECK_INT(flag, 0);
    unsigned char *sbuf = mt_malloc(400000), *rbuf = mt_malloc(400001);
    for (int it = 0; it < ITERS; it++) {
        ring(MPI_COMM_WORLD, 100 + t, t, it, 0, sbuf, rbuf);
        ring(tcomm[t], 7, t, it, 1, sbuf, rbuf);
        if (it % 5 == 0) {
            int in[2] = { rank + t, it }, out[2] = { -1, -1 };
            CHECK_MPI(MPI_Allreduce(in, out, 2, MPI_INT, MPI_SUM, tcomm[t]));
            CHECK_INT(out[0], size * (size - 1) / 2 + size * t);
            CHECK_INT(out[1], size * it);
            int b[3] = { 0, 0, 0 };
            int root = it % size;
            if (rank == root) b[0] = t, b[1] = it, b[2] = root;
            CHECK_MPI(MPI_Bcast(b, 3, MPI_INT, root, tcomm[t]));
            CHECK(b[0] == t && b[1] == it && b[2] == root, "bcast got %d %d %d", b[0], b[1], b[2]);
            MPI_Datatype dt;
            CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &dt));
            CHECK_MPI(MPI_Type_commit(&dt));
            int sz = 0;
            MPI_Type_size(dt, &sz);
            CHECK_INT(sz, 24);
            CHECK_MPI(MPI_Type_free(&dt));
        }
    }
    /* a request started here is completed by the next thread */
    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    CHECK_MPI(MPI_Irecv(handed_buf[t], 4, MPI_INT, left, 500 + t, MPI_COMM_WORLD, &handed[t]));
    pthread_barrier_wait(&bar);
    int mine[4] = { rank, t, 11, 12 };
    CHECK_MPI(MPI_Send(mine, 4, MPI_INT, right, 500 + t, MPI_COMM_WORLD));
    int o = (t + 1) % nthreads;
    CHECK_MPI(MPI_Wait(&handed[o], MPI_STATUS_IGNORE));
    CHECK(handed_buf[o][0] == left && handed_buf[o][1] == o && handed_buf[o][2] == 11 &&
          handed_buf[o][3] == 12, "handed request %d got %d %d %d %d", o, handed_buf[o][0],
          handed_buf[o][1], handed_buf[o][2], handed_buf[o][3]);
    free(sbuf);
    free(rbuf);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1, q = -1, flag = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mt_rank();
    if (provided != MPI_THREAD_MULTIPLE) {
        if (mt_rank() == 0) printf("FAIL thr_pt2pt: provided %d, not MPI_THREAD_MULTIPLE\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Query_thread(&q);
    CHECK_INT(q, MPI_THREAD_MULTIPLE);
    MPI_Is_thread_main(&flag);
    CHECK_INT(flag, 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    nthreads = argc > 1 ? atoi(argv[1]) : 3;
    if (nthreads < 1 || nthreads > MAXT) nthreads = 3;
    for (int t = 0; t < nthreads; t++) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &tcomm[t]));
    pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
    pthread_t th[MAXT];
    for (int t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
    pthread_barrier_destroy(&bar);
    for (int t = 0; t < nthreads; t++) CHECK_MPI(MPI_Comm_free(&tcomm[t]));
    int rc = mt_finish("thr_pt2pt");
    MPI_Finalize();
    return rc;
}
