/* SPDX-License-Identifier: MIT */
/* MPI_Waitall, MPI_Testall, MPI_Waitany, MPI_Testany, MPI_Waitsome and
 * MPI_Testsome from several threads at once (MPI_THREAD_MULTIPLE,
 * docs/threads.md "Channels").  T threads per rank, each on a communicator
 * of its own (thread 1 on MPI_COMM_WORLD itself, which is on channel 0,
 * whose network endpoint one-sided communication shares), exchange K
 * messages per round with both ring neighbours
 * (sizes from 0 B to rendezvous) and complete the 4K requests, with an
 * MPI_REQUEST_NULL among them, by one of the six calls in turn; every byte
 * and every receive's status are checked, and each request is completed
 * exactly once.
 * Argument "hold" (with several channels): then
 * thread 0 stays inside a user reduction operation, which runs under the
 * library lock, while the other threads do their rounds: the calls above
 * must complete requests of one channel without that lock.  A thread that
 * could not would wait for thread 0, which waits at most HOLD_S seconds (or
 * three times as long as the first part took, on a loaded machine) for them
 * and then reports it.  Arguments: [T] [hold]. */
#include "mt_hold.h"
#include <pthread.h>
#include <time.h>

#define MAXT 4
#define ROUNDS 60
#define K 3            /* messages to each neighbour per round */
#define BIG 40000      /* some messages are rendezvous by default */
#define HOLD_S 20

static int rank, size, nthreads, left, right, hold;
static MPI_Comm own[MAXT];
static int held;                  /* the second part runs: no call that needs the library
                                     lock (MPI_Get_count, calls on no active request) */

static size_t msg_len(int i, int k)
{
    return (i + k) % 7 == 3 ? BIG : (size_t)((i * 5 + k) % 9) * 40;
}

static long seed_of(int from, int t, int i, int k, int dir)
{
    return (long)from * 1000000 + t * 100000 + i * 100 + k * 2 + dir;
}

/* Complete the n requests of rq with the call numbered how, filling st and
 * counting in done[] how often each index was completed. */
static void complete_all(int how, int n, MPI_Request *rq, MPI_Status *st, int *done)
{
    int left_ = 0, idx[4 * K + 1], outcount, flag;
    MPI_Status one;
    for (int j = 0; j < n; j++) left_ += rq[j] != MPI_REQUEST_NULL;
    switch (how) {
    case 0:
        CHECK_MPI(MPI_Waitall(n, rq, st));
        for (int j = 0; j < n; j++) done[j]++;
        return;
    case 1:
        do CHECK_MPI(MPI_Testall(n, rq, &flag, st)); while (!flag);
        for (int j = 0; j < n; j++) done[j]++;
        return;
    case 2:
    case 3:
        while (left_ > 0) {
            int index = -1;
            if (how == 2) {
                CHECK_MPI(MPI_Waitany(n, rq, &index, &one));
            } else {
                flag = 0;
                CHECK_MPI(MPI_Testany(n, rq, &index, &flag, &one));
                if (!flag) continue;
            }
            CHECK(index >= 0 && index < n, "completion call %d gave index %d", how, index);
            if (index < 0 || index >= n) return;
            CHECK_INT(rq[index], MPI_REQUEST_NULL);
            st[index] = one;
            done[index]++;
            left_--;
        }
        if (!held) {   /* nothing active any more: MPI_UNDEFINED */
            int index = 0;
            CHECK_MPI(MPI_Waitany(n, rq, &index, &one));
            CHECK_INT(index, MPI_UNDEFINED);
        }
        return;
    default:
        while (left_ > 0) {
            MPI_Status sts[4 * K + 1];
            if (how == 4) CHECK_MPI(MPI_Waitsome(n, rq, &outcount, idx, sts));
            else CHECK_MPI(MPI_Testsome(n, rq, &outcount, idx, sts));
            CHECK(outcount != MPI_UNDEFINED, "completion call %d: nothing active", how);
            if (outcount == MPI_UNDEFINED) return;
            for (int j = 0; j < outcount; j++) {
                CHECK_INT(rq[idx[j]], MPI_REQUEST_NULL);
                st[idx[j]] = sts[j];
                done[idx[j]]++;
            }
            left_ -= outcount;
        }
        if (!held) {
            CHECK_MPI(MPI_Testsome(n, rq, &outcount, idx, MPI_STATUSES_IGNORE));
            CHECK_INT(outcount, MPI_UNDEFINED);
        }
        return;
    }
}

/* One round of thread t: K messages each way around the ring, completed by
 * one call (in turn), checked. */
static void round_of(int t, int i, unsigned char *sb[2][K], unsigned char *rb[2][K])
{
    MPI_Request rq[4 * K + 1];
    MPI_Status st[4 * K + 1];
    int done[4 * K + 1] = { 0 }, n = 0;
    int peer[2] = { left, right };
    /* receives first in the array, the null request in the middle */
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < K; k++)
            CHECK_MPI(MPI_Irecv(rb[d][k], BIG, MPI_BYTE, peer[d], k * 2 + d, own[t], &rq[n++]));
    rq[n++] = MPI_REQUEST_NULL;
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < K; k++) {
            /* to peer[1 - d], which receives it from us as its peer[d] */
            size_t len = msg_len(i, k);
            mt_fill(sb[d][k], len, seed_of(rank, t, i, k, d));
            CHECK_MPI(MPI_Isend(sb[d][k], (int)len, MPI_BYTE, peer[1 - d], k * 2 + d, own[t],
                                &rq[n++]));
        }
    int how = (i + t) % 6;
    complete_all(how, n, rq, st, done);
    for (int j = 0; j < n; j++) CHECK(done[j] == (j == 2 * K ? (how < 2) : 1),
                                      "call %d completed request %d %d times", how, j, done[j]);
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < K; k++) {
            MPI_Status *s = &st[d * K + k];
            int count = (int)msg_len(i, k);
            if (!held) MPI_Get_count(s, MPI_BYTE, &count);
            CHECK_INT(s->MPI_SOURCE, peer[d]);
            CHECK_INT(s->MPI_TAG, k * 2 + d);
            CHECK_INT(count, (int)msg_len(i, k));
            CHECK_PATTERN(rb[d][k], msg_len(i, k), seed_of(peer[d], t, i, k, d));
        }
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned char *sb[2][K], *rb[2][K];
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < K; k++) {
            sb[d][k] = mt_malloc(BIG);
            rb[d][k] = mt_malloc(BIG);
        }
    if (held) mt_hold_wait_held();
    for (int i = 0; i < ROUNDS; i++) round_of(t, i, sb, rb);
    mt_hold_done();
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < K; k++) {
            free(sb[d][k]);
            free(rb[d][k]);
        }
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = mt_init_multiple(&argc, &argv, &rank, &size, 2, MAXT, 3);
    hold = argc > 2 && !strcmp(argv[2], "hold");
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    for (int t = 0; t < nthreads; t++) {
        own[t] = MPI_COMM_WORLD;
        if (t != 1) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &own[t]));
    }

    /* every thread at once, all six calls */
    pthread_t th[MAXT];
    double t0 = mt_now();
    for (int t = 0; t < nthreads; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
    mt_hold.limit = 3 * (mt_now() - t0) > HOLD_S ? 3 * (mt_now() - t0) : HOLD_S;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    if (hold) {
        /* again, while thread 0 holds the library lock: threads 1..T-1 on
         * their own communicators (the first round made their channels'
         * requests and handle slots) */
        MPI_Op op;
        int a = 1, b = 2;
        CHECK_MPI(MPI_Op_create(mt_hold_op, 1, &op));
        mt_hold.finished = 0;
        mt_hold.workers = nthreads - 1;
        held = 1;
        for (int t = 1; t < nthreads; t++)
            pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
        CHECK_MPI(MPI_Reduce_local(&a, &b, 1, MPI_INT, op));
        for (int t = 1; t < nthreads; t++) pthread_join(th[t], NULL);
        CHECK(!mt_hold.too_long, "threads did not complete their requests in %.0f s while "
                                 "another thread held the library lock", mt_hold.limit);
        MPI_Op_free(&op);
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    for (int t = 0; t < nthreads; t++)
        if (t != 1) MPI_Comm_free(&own[t]);
    int rc = mt_finish("thr_waitall");
    MPI_Finalize();
    return rc;
}
