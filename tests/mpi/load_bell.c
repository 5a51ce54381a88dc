/* SPDX-License-Identifier: MIT */
/* A rank that sleeps on the network and on shared memory at once must be
 * woken by either (issue 12): the list runs it on pretend nodes of two ranks
 * (COURIER_NODE_SIZE=2, libfabric tcp between them), with sleeps at once and
 * the caps on a sleep (COURIER_WAIT_SLEEP_MAX_US, _POLL_US) at 5 s and the
 * liveness checks off, so a wake-up that does not come shows as a 5 s wait.
 *
 * Each node's even rank (the sleeper) first posts receives of two messages
 * from a rank on another node (one sent at once, one at the end: network
 * traffic pending all along), then receives 40 messages from its node's odd
 * rank (the waker), which naps 0-4 ms before each send, so the sleeper is
 * asleep when it comes; every fourth message is 96 KiB (rendezvous: the
 * waker then sleeps too, until the sleeper's answer).  Every message carries
 * its send time (CLOCK_MONOTONIC, one host) and must arrive within 1 s of it;
 * every byte is checked, both network messages too.  At 2 ranks (one node,
 * no network) the same runs on the shared-memory futex alone. */
#define _GNU_SOURCE
#include "mpitest.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROUNDS 40
#define BIG (96 * 1024)
#define LATE_S 1.0

typedef struct {
    double sent;
    long round;
} stamp_t;

/* The node of a rank and the rank on another node whose messages rank r
 * receives (-1: none) under COURIER_NODE_SIZE=2. */
static int net_peer(int r, int size)
{
    int q = (r + 2) % size;
    return q / 2 != r / 2 ? q : -1;
}

static void net_send(int r, int to, int k)
{
    long v[64];
    for (int i = 0; i < 64; i++) v[i] = 1000L * r + 10L * k + i;
    CHECK_MPI(MPI_Send(v, 64, MPI_LONG, to, 7 + k, MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    srand(12345u + (unsigned)rank);
    char *buf = mt_malloc(BIG);
    int sleeper = rank % 2 == 0 && rank + 1 < size, waker = rank % 2 == 1;
    int from = sleeper ? net_peer(rank, size) : -1;
    long got[2][64];
    MPI_Request nreq[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    if (from >= 0)
        for (int k = 0; k < 2; k++)
            CHECK_MPI(MPI_Irecv(got[k], 64, MPI_LONG, from, 7 + k, MPI_COMM_WORLD, &nreq[k]));
    /* the ranks whose sleepers wait for this one over the network */
    int targets[2], ntargets = 0;
    for (int s = 0; s < size; s += 2)
        if (s + 1 < size && net_peer(s, size) == rank) targets[ntargets++] = s;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    for (int t = 0; t < ntargets; t++) net_send(rank, targets[t], 0);

    double worst = 0;
    for (int i = 0; i < ROUNDS && (sleeper || waker); i++) {
        size_t n = i % 4 == 3 ? BIG : 256;
        stamp_t st;
        if (waker) {
            struct timespec nap = { 0, (long)(rand() % 4000) * 1000L };
            nanosleep(&nap, NULL);
            mt_fill(buf, n, 100L * rank + i);
            st.round = i;
            st.sent = mt_now();
            memcpy(buf, &st, sizeof st);
            CHECK_MPI(MPI_Send(buf, (int)n, MPI_BYTE, rank - 1, 3, MPI_COMM_WORLD));
        } else {
            MPI_Status status;
            memset(buf, 0, n);
            CHECK_MPI(MPI_Recv(buf, (int)n, MPI_BYTE, rank + 1, 3, MPI_COMM_WORLD, &status));
            double late = mt_now();
            int cnt;
            MPI_Get_count(&status, MPI_BYTE, &cnt);
            CHECK_INT(cnt, (int)n);
            memcpy(&st, buf, sizeof st);
            late -= st.sent;
            CHECK_INT(st.round, i);
            /* the stamp overwrote the pattern's first bytes */
            char *want = mt_malloc(n);
            mt_fill(want, n, 100L * (rank + 1) + i);
            CHECK(memcmp(buf + sizeof st, want + sizeof st, n - sizeof st) == 0,
                  "round %d: %zu bytes from rank %d differ", i, n, rank + 1);
            free(want);
            CHECK(late < LATE_S, "round %d: the message of rank %d came %.3f s after it was sent "
                  "(a sleep that its doorbell did not end)", i, rank + 1, late);
            if (late > worst) worst = late;
        }
    }
    for (int t = 0; t < ntargets; t++) net_send(rank, targets[t], 1);
    if (from >= 0) {
        CHECK_MPI(MPI_Waitall(2, nreq, MPI_STATUSES_IGNORE));
        for (int k = 0; k < 2; k++)
            for (int j = 0; j < 64; j++)
                CHECK(got[k][j] == 1000L * from + 10L * k + j, "network message %d from rank %d, "
                      "element %d: %ld", k, from, j, got[k][j]);
    }
    if (sleeper)
        printf("load_bell: rank %d: slowest of %d wake-ups by a local peer %.1f ms%s\n", rank,
               ROUNDS, 1e3 * worst, from >= 0 ? " (network receives pending)" : "");
    free(buf);
    int rc = mt_finish("load_bell");
    MPI_Finalize();
    return rc;
}
