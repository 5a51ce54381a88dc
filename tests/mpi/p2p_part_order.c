/* SPDX-License-Identifier: MIT */
/* Partitioned communication is matched in the order of the initialization
 * calls (MPI 4.1 section 4.2.1), whatever the order of the rounds: three
 * pairs with the same peer, tag and communicator, started and made ready in
 * another order than they were initialized; pairs with different tags
 * initialized in opposite orders on the two sides; a receive started before
 * its sender called MPI_Psend_init; and a sender that waits for its send
 * (rendezvous when large) while the receiver has not yet called a completion
 * call on the receive.  Around a ring, so np=1 talks to itself. */
#include "mpitest.h"

#define PARTS 4

static void fill(int *b, int n, int v)
{
    for (int i = 0; i < n; i++) b[i] = v;
}

static void check_buf(const int *b, int n, int v)
{
    for (int i = 0; i < n; i++)
        if (b[i] != v) {
            CHECK_INT(b[i], v);
            break;
        }
}

/* Three pairs; the sender starts them in the order 2, 0, 1 (same_tag) or
 * initializes them with tags 2, 1, 0 (different tags). */
static void three(int rank, int to, int from, int count, int same_tag)
{
    int n = PARTS * count;
    int *out[3], *in[3];
    MPI_Request sr[3], rr[3];
    MPI_Status st[3];
    for (int k = 0; k < 3; k++) {
        out[k] = mt_malloc(sizeof(int) * (size_t)n);
        in[k] = mt_malloc(sizeof(int) * (size_t)n);
        fill(in[k], n, -1);
    }
    for (int k = 0; k < 3; k++)
        CHECK_MPI(MPI_Precv_init(in[k], PARTS, count, MPI_INT, from, same_tag ? 0 : k,
                                 MPI_COMM_WORLD, MPI_INFO_NULL, &rr[k]));
    for (int i = 0; i < 3; i++) {
        int k = same_tag ? i : 2 - i;
        CHECK_MPI(MPI_Psend_init(out[k], PARTS, count, MPI_INT, to, same_tag ? 0 : k,
                                 MPI_COMM_WORLD, MPI_INFO_NULL, &sr[k]));
    }
    CHECK_MPI(MPI_Startall(3, rr));
    static const int order[3] = {2, 0, 1};
    for (int i = 0; i < 3; i++) {
        int k = order[i];
        CHECK_MPI(MPI_Start(&sr[k]));
        fill(out[k], n, rank * 10 + k + 1);
        CHECK_MPI(MPI_Pready_range(0, PARTS - 1, sr[k]));
    }
    CHECK_MPI(MPI_Waitall(3, sr, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Waitall(3, rr, st));
    for (int k = 0; k < 3; k++) {
        check_buf(in[k], n, from * 10 + k + 1);
        CHECK_INT(st[k].MPI_SOURCE, from);
        CHECK_INT(st[k].MPI_TAG, same_tag ? 0 : k);
        CHECK_MPI(MPI_Request_free(&sr[k]));
        CHECK_MPI(MPI_Request_free(&rr[k]));
        free(out[k]);
        free(in[k]);
    }
}

/* The receive is started (and polled with MPI_Parrived) before the sender's
 * MPI_Psend_init; then the sender waits for its send first. */
static void early_receive(int rank, int to, int from, int count)
{
    int n = PARTS * count, flag = 1;
    int *out = mt_malloc(sizeof(int) * (size_t)n), *in = mt_malloc(sizeof(int) * (size_t)n);
    MPI_Request sr, rr;
    MPI_Status st;
    fill(in, n, -1);
    CHECK_MPI(MPI_Precv_init(in, PARTS, count, MPI_INT, from, 9, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &rr));
    for (int round = 0; round < 3; round++) {
        CHECK_MPI(MPI_Start(&rr));
        if (round == 0) {
            CHECK_MPI(MPI_Parrived(rr, 0, &flag));
            /* nobody has sent yet (the barrier below orders it) */
            CHECK_INT(flag, 0);
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            CHECK_MPI(MPI_Psend_init(out, PARTS, count, MPI_INT, to, 9, MPI_COMM_WORLD,
                                     MPI_INFO_NULL, &sr));
        }
        CHECK_MPI(MPI_Start(&sr));
        fill(out, n, rank * 100 + round);
        for (int p = 0; p < PARTS; p++) CHECK_MPI(MPI_Pready(p, sr));
        /* the send completes although no one waits on the receive yet */
        CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
        flag = 0;
        while (!flag) CHECK_MPI(MPI_Parrived(rr, PARTS - 1, &flag));
        CHECK_MPI(MPI_Wait(&rr, &st));
        check_buf(in, n, from * 100 + round);
        CHECK_INT(st.MPI_SOURCE, from);
        CHECK_INT(st.MPI_TAG, 9);
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));     /* out is refilled next round */
    }
    CHECK_MPI(MPI_Request_free(&sr));
    CHECK_MPI(MPI_Request_free(&rr));
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;

    three(rank, to, from, 16, 1);          /* 256 bytes: eager */
    three(rank, to, from, 16, 0);
    three(rank, to, from, 20000, 1);       /* 320 kB: rendezvous */
    early_receive(rank, to, from, 8);
    early_receive(rank, to, from, 20000);

    int rc = mt_finish("p2p_part_order");
    MPI_Finalize();
    return rc;
}
