/* SPDX-License-Identifier: MIT */
/* MPI_Waitall of arrays that mix the channel path's requests with others
 * (MPI_THREAD_MULTIPLE, several channels; docs/threads.md "Channels"), and
 * MPI_Cancel of a send that the channel path made born complete.  T threads
 * per rank, each with two communicators of its own (A and B, on different
 * channels when there are enough), every round:
 *
 * - one array of 4K + 4 requests completed by MPI_Waitall: K receives from
 *   the left neighbour on A, K on B, two MPI_REQUEST_NULL, a started
 *   persistent receive on B, and the sends of the same messages to the right
 *   neighbour on A and B and by a persistent send, in an order that turns
 *   each round: the channel path finishes the leading requests of one
 *   channel under that channel's lock and hands the rest to the library
 *   lock, which must fill every status exactly as one pass would; every
 *   byte, source, tag, count and MPI_ERROR checked, every handle
 *   MPI_REQUEST_NULL after (the persistent ones inactive);
 * - an array of MPI_REQUEST_NULL only (empty statuses);
 * - an 8-byte MPI_Isend, MPI_Cancel, MPI_Wait, MPI_Test_cancelled: the
 *   sender tells the receiver whether it was cancelled, and the receiver
 *   finds the message exactly when it was not.
 * Arguments: [T]. */
#include "mpitest.h"
#include <pthread.h>

#define MAXT 4
#define ROUNDS 40
#define K 3
#define BIG 30000            /* some messages are rendezvous by default */
#define NREQ (4 * K + 4)     /* K+K receives, K+K sends, NULL, 2 persistent */

static int rank, size, nthreads, left, right;
static MPI_Comm comm_a[MAXT], comm_b[MAXT];

static int tag_of(int t, int k)
{
    return 100 + t * 16 + k;
}

static size_t msg_len(int i, int k)
{
    return (i + k) % 5 == 2 ? BIG : (size_t)((i * 3 + k) % 7) * 24;
}

static long seed_of(int from, int t, int i, int k, int which)
{
    return (long)from * 1000000 + t * 100000 + i * 100 + k * 4 + which;
}

/* What index j of the array holds in round i: the slots turn by i so that
 * each kind leads the array in some round. */
enum { R_A, R_B, S_A, S_B, NUL, P_RECV, P_SEND };
static int kind_at(int i, int j, int *k)
{
    int p = (j + i * 5) % NREQ;          /* a rotation of the canonical order */
    if (p < K) { *k = p; return R_A; }
    if (p < 2 * K) { *k = p - K; return R_B; }
    if (p < 3 * K) { *k = p - 2 * K; return S_A; }
    if (p < 4 * K) { *k = p - 3 * K; return S_B; }
    *k = 0;
    return p == 4 * K ? NUL : p == 4 * K + 1 ? P_RECV : p == 4 * K + 2 ? P_SEND : NUL;
}

static void mixed_round(int t, int i, unsigned char **sb, unsigned char **rb)
{
    MPI_Request rq[NREQ], precv, psend;
    MPI_Status st[NREQ];
    int ptag = 90 + t;      /* each message its own tag (tag_of): the array turns */
    size_t plen = msg_len(i, K);
    CHECK_MPI(MPI_Recv_init(rb[2 * K], (int)plen, MPI_BYTE, left, ptag, comm_b[t], &precv));
    CHECK_MPI(MPI_Send_init(sb[2 * K], (int)plen, MPI_BYTE, right, ptag, comm_b[t], &psend));
    mt_fill(sb[2 * K], plen, seed_of(rank, t, i, K, 2));
    memset(rb[2 * K], 0, BIG);
    /* receives first (in array order), then the sends */
    for (int pass = 0; pass < 2; pass++)
        for (int j = 0; j < NREQ; j++) {
            int k, kind = kind_at(i, j, &k);
            int which = kind == R_A || kind == S_A ? 0 : 1;
            MPI_Comm c = which ? comm_b[t] : comm_a[t];
            if (pass == 0 && (kind == R_A || kind == R_B)) {
                memset(rb[which * K + k], 0, BIG);
                CHECK_MPI(MPI_Irecv(rb[which * K + k], BIG, MPI_BYTE, left, tag_of(t, k), c,
                                    &rq[j]));
            } else if (pass == 0 && kind == P_RECV) {
                CHECK_MPI(MPI_Start(&precv));
                rq[j] = precv;
            } else if (pass == 0 && kind == NUL) {
                rq[j] = MPI_REQUEST_NULL;
            } else if (pass == 1 && (kind == S_A || kind == S_B)) {
                mt_fill(sb[which * K + k], msg_len(i, k), seed_of(rank, t, i, k, which));
                CHECK_MPI(MPI_Isend(sb[which * K + k], (int)msg_len(i, k), MPI_BYTE, right,
                                    tag_of(t, k), c, &rq[j]));
            } else if (pass == 1 && kind == P_SEND) {
                CHECK_MPI(MPI_Start(&psend));
                rq[j] = psend;
            }
        }
    for (int j = 0; j < NREQ; j++) {
        st[j].MPI_ERROR = -1;
        st[j].MPI_SOURCE = st[j].MPI_TAG = -2;
    }
    CHECK_MPI(MPI_Waitall(NREQ, rq, st));
    for (int j = 0; j < NREQ; j++) {
        int k, kind = kind_at(i, j, &k), count = -1;
        CHECK(st[j].MPI_ERROR == MPI_SUCCESS, "round %d slot %d (kind %d): MPI_ERROR %d", i, j,
              kind, st[j].MPI_ERROR);
        if (kind == P_RECV || kind == P_SEND) {
            CHECK(rq[j] != MPI_REQUEST_NULL, "round %d: a persistent request was freed", i);
        } else {
            CHECK(rq[j] == MPI_REQUEST_NULL, "round %d slot %d (kind %d): not MPI_REQUEST_NULL",
                  i, j, kind);
        }
        if (kind == R_A || kind == R_B || kind == P_RECV) {
            size_t len = kind == P_RECV ? plen : msg_len(i, k);
            int which = kind == R_A ? 0 : kind == R_B ? 1 : 2;
            CHECK_INT(st[j].MPI_SOURCE, left);
            CHECK_INT(st[j].MPI_TAG, kind == P_RECV ? ptag : tag_of(t, k));
            MPI_Get_count(&st[j], MPI_BYTE, &count);
            CHECK_INT(count, (int)len);
            if (kind == P_RECV)
                CHECK_PATTERN(rb[2 * K], len, seed_of(left, t, i, K, 2));
            else
                CHECK_PATTERN(rb[which * K + k], len, seed_of(left, t, i, k, which));
        } else if (kind == NUL) {
            /* an empty status (MPI 4.1 section 3.7.3) */
            CHECK_INT(st[j].MPI_SOURCE, MPI_ANY_SOURCE);
            CHECK_INT(st[j].MPI_TAG, MPI_ANY_TAG);
        }
    }
    CHECK_MPI(MPI_Request_free(&precv));
    CHECK_MPI(MPI_Request_free(&psend));

    /* only MPI_REQUEST_NULL: empty statuses */
    MPI_Request nulls[3] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    MPI_Status ns[3];
    CHECK_MPI(MPI_Waitall(3, nulls, ns));
    for (int j = 0; j < 3; j++) {
        CHECK_INT(ns[j].MPI_SOURCE, MPI_ANY_SOURCE);
        CHECK_INT(ns[j].MPI_ERROR, MPI_SUCCESS);
    }
}

/* MPI_Cancel of a small send on the channel path (born complete when it
 * went straight into the ring): the receiver learns the outcome first and
 * finds the message exactly when it was not cancelled. */
static void cancel_round(int t, int i)
{
    /* a tag per round: the left neighbour may be a round ahead, its next
     * message here before this round's probe */
    int ctag = 1000 + t * ROUNDS + i, ftag = 70 + t;
    long out = seed_of(rank, t, i, 0, 3), in = -1;
    int flag = -1, cancelled = -1;
    MPI_Request rq;
    MPI_Status st;
    CHECK_MPI(MPI_Isend(&out, 1, MPI_LONG, right, ctag, comm_a[t], &rq));
    CHECK_MPI(MPI_Cancel(&rq));
    CHECK_MPI(MPI_Wait(&rq, &st));
    CHECK_MPI(MPI_Test_cancelled(&st, &flag));
    CHECK_MPI(MPI_Send(&flag, 1, MPI_INT, right, ftag, comm_b[t]));
    CHECK_MPI(MPI_Recv(&cancelled, 1, MPI_INT, left, ftag, comm_b[t], MPI_STATUS_IGNORE));
    if (cancelled) {
        int there = -1;
        CHECK_MPI(MPI_Iprobe(left, ctag, comm_a[t], &there, MPI_STATUS_IGNORE));
        CHECK(!there, "round %d: a cancelled message arrived", i);
    } else {
        CHECK_MPI(MPI_Recv(&in, 1, MPI_LONG, left, ctag, comm_a[t], &st));
        CHECK(in == seed_of(left, t, i, 0, 3), "round %d: got %ld", i, in);
    }
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned char *sb[2 * K + 1], *rb[2 * K + 1];
    for (int k = 0; k < 2 * K + 1; k++) {
        sb[k] = mt_malloc(BIG);
        rb[k] = mt_malloc(BIG);
    }
    for (int i = 0; i < ROUNDS; i++) {
        mixed_round(t, i, sb, rb);
        cancel_round(t, i);
    }
    for (int k = 0; k < 2 * K + 1; k++) {
        free(sb[k]);
        free(rb[k]);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = mt_init_multiple(&argc, &argv, &rank, &size, 1, MAXT, 3);
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;
    for (int t = 0; t < nthreads; t++) {
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm_a[t]));
        CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm_b[t]));
    }
    pthread_t th[MAXT];
    for (int t = 0; t < nthreads; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < nthreads; t++) {
        MPI_Comm_free(&comm_a[t]);
        MPI_Comm_free(&comm_b[t]);
    }
    int rc = mt_finish("thr_waitmix");
    MPI_Finalize();
    return rc;
}
