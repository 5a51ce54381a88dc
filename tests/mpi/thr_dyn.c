/* SPDX-License-Identifier: MIT */
/* Dynamic connections from several threads at once (MPI_THREAD_MULTIPLE):
 * the lower half of MPI_COMM_WORLD opens one port per thread; in every round
 * each thread of the lower half accepts on its own port while the matching
 * thread of the upper half connects to it, all threads at once, each over a
 * communicator of its own (a duplicate of its half).  Two connections made
 * at once in one process must neither agree on the same context id nor
 * number their remote processes alike: a message would then reach another
 * thread's intercommunicator, or come from the wrong process.  Each thread
 * checks values that name their sender (thread, round, side, rank) over its
 * intercommunicator, both ways, and an allreduce across it, then
 * disconnects.  Argument: threads (default 3).  2-4 ranks. */
#include "mpitest.h"
#include <pthread.h>

#define MAXT 8
#define ROUNDS 3

static int nthreads = 3, rank, size, low, hrank, hsize;
static MPI_Comm half, tcomm[MAXT];
static char port[MAXT][MPI_MAX_PORT_NAME];
static pthread_barrier_t start;

static void *run(void *arg)
{
    int t = (int)(long)arg;
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Comm inter;
        pthread_barrier_wait(&start);    /* every thread of the process at once */
        if (low)
            CHECK_MPI(MPI_Comm_accept(port[t], MPI_INFO_NULL, 0, tcomm[t], &inter));
        else
            CHECK_MPI(MPI_Comm_connect(port[t], MPI_INFO_NULL, 0, tcomm[t], &inter));
        int rsize = -1;
        CHECK_MPI(MPI_Comm_remote_size(inter, &rsize));
        CHECK_INT(rsize, size - hsize);
        /* each process sends to remote rank hrank % rsize, and receives from
         * every remote r with r % hsize == hrank */
        int out[4] = { t, i, low, hrank }, in[4];
        MPI_Request req;
        CHECK_MPI(MPI_Isend(out, 4, MPI_INT, hrank % rsize, 10 + t, inter, &req));
        for (int r = hrank; r < rsize; r += hsize) {
            MPI_Status st;
            CHECK_MPI(MPI_Recv(in, 4, MPI_INT, r, MPI_ANY_TAG, inter, &st));
            CHECK(in[0] == t && in[1] == i && in[2] == !low && in[3] == r && st.MPI_TAG == 10 + t
                      && st.MPI_SOURCE == r,
                  "thread %d round %d: from remote %d got (%d,%d,%d,%d) tag %d source %d, "
                  "want (%d,%d,%d,%d) tag %d", t, i, r, in[0], in[1], in[2], in[3], st.MPI_TAG,
                  st.MPI_SOURCE, t, i, !low, r, 10 + t);
        }
        CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
        /* across the intercommunicator: the remote group's sum of (rank + 1) * (t + 1) */
        int mine = (hrank + 1) * (t + 1), got = -1, want = 0;
        for (int r = 0; r < rsize; r++) want += (r + 1) * (t + 1);
        CHECK_MPI(MPI_Allreduce(&mine, &got, 1, MPI_INT, MPI_SUM, inter));
        CHECK(got == want, "thread %d round %d: intercomm allreduce gave %d, want %d", t, i, got,
              want);
        CHECK_MPI(MPI_Comm_disconnect(&inter));
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1) nthreads = atoi(argv[1]);
    if (nthreads < 1 || nthreads > MAXT) nthreads = 3;
    CHECK_INT(provided, MPI_THREAD_MULTIPLE);
    if (size < 2 || provided != MPI_THREAD_MULTIPLE) {
        if (rank == 0 && size < 2) printf("thr_dyn needs 2 ranks or more; nothing to do\n");
        int rc = mt_finish("thr_dyn");
        MPI_Finalize();
        return rc;
    }
    low = rank < size / 2 + size % 2;   /* the accepting half (the larger one) */
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half));
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);
    for (int t = 0; t < nthreads; t++) CHECK_MPI(MPI_Comm_dup(half, &tcomm[t]));
    /* the ports: opened at the lower root, sent to the upper root (the only
     * process of the upper half that uses the names) */
    int upper_root = size / 2 + size % 2;
    if (low && hrank == 0) {
        for (int t = 0; t < nthreads; t++) CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port[t]));
        CHECK_MPI(MPI_Send(port, (int)sizeof port, MPI_CHAR, upper_root, 1, MPI_COMM_WORLD));
    } else if (!low && hrank == 0) {
        CHECK_MPI(MPI_Recv(port, (int)sizeof port, MPI_CHAR, 0, 1, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    }
    pthread_barrier_init(&start, NULL, (unsigned)nthreads);
    pthread_t th[MAXT];
    for (int t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, run, (void *)(long)t);
    for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
    pthread_barrier_destroy(&start);
    if (low && hrank == 0)
        for (int t = 0; t < nthreads; t++) CHECK_MPI(MPI_Close_port(port[t]));
    for (int t = 0; t < nthreads; t++) CHECK_MPI(MPI_Comm_free(&tcomm[t]));
    CHECK_MPI(MPI_Comm_free(&half));
    int rc = mt_finish("thr_dyn");
    MPI_Finalize();
    return rc;
}
