/* SPDX-License-Identifier: MIT */
/* One-sided communication in one thread while the others exchange messages
 * on MPI_COMM_WORLD (MPI_THREAD_MULTIPLE).  The main thread puts, gets and
 * accumulates into its right neighbour's window under MPI_Win_lock_all,
 * flushing each round, while threads 1..T-1 pass messages around the ring of
 * MPI_COMM_WORLD (0 B to rendezvous, a tag per thread).  Across nodes the
 * world communicator is on channel 0, whose network endpoint the window's
 * puts, gets and atomics use too (docs/threads.md, "Channels"): both must
 * work at once.  Every message, every value read back and the window's
 * contents at the end are checked.  Argument: T (default 3). */
#include "mpitest.h"
#include <pthread.h>

#define MAXT 4
#define RMA_ROUNDS 150
#define RING_ROUNDS 100
#define BIG 40000

static int rank, size, nthreads, left, right;

static size_t ring_len(int i)
{
    return i % 7 == 3 ? BIG : (size_t)(i % 5) * 48;
}

static void *ringer(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned char *sb = mt_malloc(BIG), *rb = mt_malloc(BIG);
    for (int i = 0; i < RING_ROUNDS; i++) {
        size_t n = ring_len(i);
        mt_fill(sb, n, (long)rank * 100000 + t * 1000 + i);
        MPI_Request rq;
        MPI_Status st;
        CHECK_MPI(MPI_Isend(sb, (int)n, MPI_BYTE, right, t, MPI_COMM_WORLD, &rq));
        CHECK_MPI(MPI_Recv(rb, BIG, MPI_BYTE, left, t, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        int count = -1;
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK_INT(count, (int)n);
        CHECK_PATTERN(rb, n, (long)left * 100000 + t * 1000 + i);
    }
    free(sb);
    free(rb);
    return NULL;
}

/* Slots 0 .. RMA_ROUNDS-1: the left neighbour's puts; slot RMA_ROUNDS: its
 * accumulates. */
static void one_sided(MPI_Win win)
{
    CHECK_MPI(MPI_Win_lock_all(0, win));
    for (int i = 0; i < RMA_ROUNDS; i++) {
        long v = (long)rank * 1000 + i, one = 1, got = -1;
        CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, right, i, 1, MPI_LONG, win));
        CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, right, RMA_ROUNDS, 1, MPI_LONG, MPI_SUM, win));
        CHECK_MPI(MPI_Win_flush(right, win));
        CHECK_MPI(MPI_Get(&got, 1, MPI_LONG, right, i, 1, MPI_LONG, win));
        CHECK_MPI(MPI_Win_flush(right, win));
        CHECK(got == v, "round %d: read back %ld from rank %d, put %ld", i, got, right, v);
    }
    CHECK_MPI(MPI_Win_unlock_all(win));
}

int main(int argc, char **argv)
{
    nthreads = mt_init_multiple(&argc, &argv, &rank, &size, 1, MAXT, 3);
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    long *mem;
    MPI_Win win;
    CHECK_MPI(MPI_Win_allocate((RMA_ROUNDS + 1) * sizeof(long), sizeof(long), MPI_INFO_NULL,
                               MPI_COMM_WORLD, &mem, &win));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));
    for (int i = 0; i <= RMA_ROUNDS; i++) mem[i] = -1;
    mem[RMA_ROUNDS] = 0;
    CHECK_MPI(MPI_Win_unlock(rank, win));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    pthread_t th[MAXT];
    for (int t = 1; t < nthreads; t++)
        pthread_create(&th[t], NULL, ringer, (void *)(intptr_t)t);
    one_sided(win);
    for (int t = 1; t < nthreads; t++) pthread_join(th[t], NULL);

    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    for (int i = 0; i < RMA_ROUNDS; i++)
        CHECK(mem[i] == (long)left * 1000 + i, "slot %d holds %ld", i, mem[i]);
    CHECK(mem[RMA_ROUNDS] == RMA_ROUNDS, "the accumulated count is %ld", mem[RMA_ROUNDS]);
    CHECK_MPI(MPI_Win_unlock(rank, win));
    CHECK_MPI(MPI_Win_free(&win));
    int rc = mt_finish("thr_rma");
    MPI_Finalize();
    return rc;
}
