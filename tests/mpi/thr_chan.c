/* SPDX-License-Identifier: MIT */
/* MPI_THREAD_MULTIPLE over several channels (COURIER_NUM_CHANNELS,
 * docs/threads.md "Channels"): T threads per rank interleave, in every round,
 *  - a ring exchange on a communicator of their own (MPI_Isend / MPI_Recv /
 *    MPI_Wait, sizes from 0 B to rendezvous),
 *  - a ring exchange on one communicator shared by all threads and created
 *    with mpi_assert_no_any_tag (each thread its own tags, so that its
 *    traffic is spread over the channels by tag),
 *  - one message to the right neighbour on another shared communicator, and
 *    one receive there with MPI_ANY_SOURCE / MPI_ANY_TAG (any thread may take
 *    any thread's message),
 * and end with a collective on their own communicator, all threads at once.
 * Every byte is checked; on the any-source communicator every message must
 * arrive exactly once and its status name its source and tag.  Argument: T
 * (default 3). */
#include "mpitest.h"
#include <pthread.h>

#define MAXT 4
#define ROUNDS 120
#define BIG 40000      /* every 9th message on the own ring (rendezvous by default) */
#define HDR 3          /* ints: rank, thread, round */

static int rank, size, nthreads, left, right;
static MPI_Comm own[MAXT], tagcomm, anycomm;
static unsigned char seen[MAXT][ROUNDS];     /* any-source messages taken, under seen_lock */
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t own_len(int i)
{
    return i % 9 == 4 ? BIG : (size_t)(i % 6) * 24;
}

/* A ring exchange: send n bytes seeded by (sender, t, i) to the right, take
 * those of the left neighbour with the same tag and check them. */
static void ring(MPI_Comm comm, int t, int i, int tag, size_t n, unsigned char *sb,
                 unsigned char *rb)
{
    long seed = (long)rank * 100000 + t * 1000 + i;
    mt_fill(sb, n, seed);
    MPI_Request rq;
    MPI_Status st;
    CHECK_MPI(MPI_Isend(sb, (int)n, MPI_BYTE, right, tag, comm, &rq));
    CHECK_MPI(MPI_Recv(rb, (int)n, MPI_BYTE, left, tag, comm, &st));
    CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    int count = -1;
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK_INT(count, (int)n);
    CHECK_INT(st.MPI_SOURCE, left);
    CHECK_INT(st.MPI_TAG, tag);
    CHECK_PATTERN(rb, n, (long)left * 100000 + t * 1000 + i);
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned char *sb = mt_malloc(BIG), *rb = mt_malloc(BIG);
    for (int i = 0; i < ROUNDS; i++) {
        ring(own[t], t, i, i, own_len(i), sb, rb);
        ring(tagcomm, t, i, t * ROUNDS + i, (size_t)(i % 4) * 100 + 8, sb, rb);
        /* any source, any tag: a message to the right with tag t */
        int hdr[HDR] = { rank, t, i }, got[HDR];
        MPI_Request rq;
        MPI_Status st;
        CHECK_MPI(MPI_Isend(hdr, HDR, MPI_INT, right, t, anycomm, &rq));
        CHECK_MPI(MPI_Recv(got, HDR, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, anycomm, &st));
        CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        CHECK_INT(st.MPI_SOURCE, left);
        CHECK_INT(got[0], left);
        CHECK_INT(st.MPI_TAG, got[1]);
        if (got[1] >= 0 && got[1] < nthreads && got[2] >= 0 && got[2] < ROUNDS) {
            pthread_mutex_lock(&seen_lock);
            seen[got[1]][got[2]]++;
            pthread_mutex_unlock(&seen_lock);
        } else {
            CHECK(0, "bad any-source message %d %d %d", got[0], got[1], got[2]);
        }
    }
    /* a collective on every thread's own communicator at once */
    long mine = (long)rank * 10 + t, sum = -1;
    CHECK_MPI(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, own[t]));
    CHECK_INT(sum, (long)size * (size - 1) / 2 * 10 + (long)size * t);
    free(sb);
    free(rb);
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = mt_init_multiple(&argc, &argv, &rank, &size, 1, MAXT, 3);
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    for (int t = 0; t < nthreads; t++) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &own[t]));
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    CHECK_MPI(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &tagcomm));
    MPI_Info_free(&info);
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &anycomm));

    pthread_t th[MAXT];
    for (int t = 0; t < nthreads; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);

    for (int t = 0; t < nthreads; t++)
        for (int i = 0; i < ROUNDS; i++)
            CHECK(seen[t][i] == 1, "any-source message (thread %d, round %d) taken %d times", t,
                  i, seen[t][i]);
    for (int t = 0; t < nthreads; t++) MPI_Comm_free(&own[t]);
    MPI_Comm_free(&tagcomm);
    MPI_Comm_free(&anycomm);
    int rc = mt_finish("thr_chan");
    MPI_Finalize();
    return rc;
}
