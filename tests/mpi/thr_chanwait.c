/* SPDX-License-Identifier: MIT */
/* Waits on distinct channels that stay idle past COURIER_WAIT_SLEEP_US
 * (MPI_THREAD_MULTIPLE, docs/threads.md "Waiting on a channel").  T threads
 * per rank, each on a communicator of its own (a channel of its own with
 * COURIER_NUM_CHANNELS > T), pass a token around the ring of ranks: the
 * rank that has it waits DELAY_MS before it sends it on (MPI_Send, or
 * MPI_Isend + MPI_Wait), and the others wait for it in MPI_Recv, or in
 * MPI_Irecv + MPI_Wait, idle for (size - 1) * DELAY_MS, far past the default
 * COURIER_WAIT_SLEEP_US (1 ms), so their waits sleep.  Every token carries
 * its thread, round and hop and a patterned payload, all checked.
 *
 * Part 1, all threads: the waiting threads must sleep, not spin: the
 * process's CPU time over the part stays under CPU_SHARE of its wall time
 * times the thread count (about 0.01 when they sleep; a spinning or yielding
 * thread uses its core while it waits).
 * Part 2, the same while thread 0 stays inside a user reduction operation,
 * which runs under the library lock: once idle, a wait on a channel sleeps
 * on its channel and needs no library lock (the library's whole step only
 * when the lock is free), so threads 1..T-1 finish; a wait that needed the
 * lock would wait for thread 0, which gives up after HOLD_S seconds (or
 * three times as long as part 1 took) and reports it.  Arguments: [T]. */
#include "mt_hold.h"
#include <pthread.h>
#include <time.h>

#define MAXT 4
#define ROUNDS 6
#define DELAY_MS 20
#define PAYLOAD 64
#define HOLD_S 20
#define CPU_SHARE 0.5      /* of wall time x threads: sleeping waits use ~1% */

static int rank, size, nthreads;
static MPI_Comm own[MAXT];
static int held;                  /* part 2 runs */

static long seed_of(int t, int i, int hop)
{
    return (long)t * 100000 + i * 100 + hop;
}

static void delay(void)
{
    struct timespec ts = { 0, DELAY_MS * 1000000L };
    nanosleep(&ts, NULL);
}

/* One round of thread t: the token goes once around the ring of ranks,
 * starting at rank i % size. */
static void round_of(int t, int i, unsigned char *buf)
{
    int first = i % size, next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int hop = (rank - first + size) % size;     /* which hop brings it here */
    int nb = (i + t) % 2;                      /* blocking or non-blocking calls */
    MPI_Comm comm = own[t];
    MPI_Request rq;
    MPI_Status st;
    if (hop != 0) {
        memset(buf, 0, PAYLOAD);
        if (nb) {
            CHECK_MPI(MPI_Irecv(buf, PAYLOAD, MPI_BYTE, prev, t, comm, &rq));
            CHECK_MPI(MPI_Wait(&rq, &st));
        } else {
            CHECK_MPI(MPI_Recv(buf, PAYLOAD, MPI_BYTE, prev, t, comm, &st));
        }
        CHECK_INT(st.MPI_SOURCE, prev);
        CHECK_INT(st.MPI_TAG, t);
        CHECK_PATTERN(buf, PAYLOAD, seed_of(t, i, hop - 1));
    }
    if (hop == size - 1) return;               /* the last hop: the round is over */
    delay();
    mt_fill(buf, PAYLOAD, seed_of(t, i, hop));
    if (nb) {
        CHECK_MPI(MPI_Isend(buf, PAYLOAD, MPI_BYTE, next, t, comm, &rq));
        CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    } else {
        CHECK_MPI(MPI_Send(buf, PAYLOAD, MPI_BYTE, next, t, comm));
    }
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned char *buf = mt_malloc(PAYLOAD);
    if (held) mt_hold_wait_held();
    for (int i = 0; i < ROUNDS; i++) round_of(t, i, buf);
    mt_hold_done();
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = mt_init_multiple(&argc, &argv, &rank, &size, 2, MAXT, 3);
    for (int t = 0; t < nthreads; t++) CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &own[t]));
    if (size < 2) {
        /* a token that never leaves the rank waits for nothing */
        for (int t = 0; t < nthreads; t++) MPI_Comm_free(&own[t]);
        int rc = mt_finish("thr_chanwait");
        MPI_Finalize();
        return rc;
    }

    /* part 1: every thread at once; they sleep while they wait */
    pthread_t th[MAXT];
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = mt_now(), c0 = mt_cpu_seconds();
    for (int t = 0; t < nthreads; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
    double wall = mt_now() - t0, cpu = mt_cpu_seconds() - c0;
    int delays = 0;            /* the rounds in which this rank passes the token on */
    for (int i = 0; i < ROUNDS; i++) delays += (rank - i % size + size) % size != size - 1;
    CHECK(wall >= delays * DELAY_MS / 1000.0, "the rounds took %.3f s, less than this rank's "
          "%d delays of %d ms", wall, delays, DELAY_MS);
    CHECK(cpu < CPU_SHARE * wall * nthreads,
          "%d threads waiting on their channels used %.3f s of CPU in %.3f s", nthreads, cpu,
          wall);
    mt_hold.limit = 3 * wall > HOLD_S ? 3 * wall : HOLD_S;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* part 2: threads 1..T-1 again while thread 0 holds the library lock */
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
    CHECK(!mt_hold.too_long, "threads waiting on their channels did not finish in %.0f s "
                             "while another thread held the library lock", mt_hold.limit);
    MPI_Op_free(&op);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    for (int t = 0; t < nthreads; t++) MPI_Comm_free(&own[t]);
    int rc = mt_finish("thr_chanwait");
    MPI_Finalize();
    return rc;
}
