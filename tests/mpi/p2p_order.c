/* SPDX-License-Identifier: MIT */
/* The non-overtaking rule: messages from one sender that match the same
 * receive arrive in the order sent — many messages with the same tag, sizes
 * mixing eager and rendezvous, received with specific and wildcard source and
 * tag; and a receive with a specific tag skipping others without reordering. */
#include "mpitest.h"

#define NMSG 200

static int msglen(int i) { return (i % 7 == 3) ? 6000 : (i % 5); } /* ints: 6000 ints > 16 KiB */

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *buf = mt_malloc(sizeof(int) * 6001);

    /* 1. every rank sends NMSG messages to rank 0, same tag; rank 0 receives
     * with MPI_ANY_SOURCE and checks per-source sequence numbers. */
    for (int wild = 0; wild < 2; wild++) {
        MPI_Request *rq = mt_malloc(sizeof(MPI_Request) * NMSG);
        int **sb = mt_malloc(sizeof(int *) * NMSG);
        for (int i = 0; i < NMSG; i++) {
            int n = msglen(i) + 1;
            sb[i] = mt_malloc(sizeof(int) * n);
            for (int k = 0; k < n; k++) sb[i][k] = rank * 100000 + i;
            CHECK_MPI(MPI_Isend(sb[i], n, MPI_INT, 0, 5, MPI_COMM_WORLD, &rq[i]));
        }
        if (rank == 0) {
            int next[64] = {0};
            for (int i = 0; i < NMSG * size; i++) {
                MPI_Status st;
                int cnt;
                CHECK_MPI(MPI_Recv(buf, 6001, MPI_INT, MPI_ANY_SOURCE, wild ? MPI_ANY_TAG : 5, MPI_COMM_WORLD, &st));
                int src = st.MPI_SOURCE;
                if (src < 0 || src >= size) { CHECK(0, "bad source %d", src); break; }
                MPI_Get_count(&st, MPI_INT, &cnt);
                int seq = buf[0] - src * 100000;
                CHECK(seq == next[src], "from %d got message %d, expected %d (overtaking)", src, seq, next[src]);
                CHECK_INT(cnt, msglen(next[src]) + 1);
                CHECK_INT(buf[cnt - 1], buf[0]);
                next[src] = seq + 1;
            }
        }
        CHECK_MPI(MPI_Waitall(NMSG, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < NMSG; i++) free(sb[i]);
        free(sb); free(rq);
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }

    /* 2. pairwise with tags: sender sends tags 1,2,1,2,...; receiver takes all
     * tag-2 messages first, then the tag-1 ones, each group in order; then a
     * second batch taken with MPI_ANY_TAG must come in send order. */
    if (size >= 2 && rank < 2) {
        if (rank == 0) {
            for (int i = 0; i < 40; i++) {
                int v[2000];
                int n = (i % 6 == 0) ? 2000 : 2;
                for (int k = 0; k < n; k++) v[k] = i;
                CHECK_MPI(MPI_Send(v, n, MPI_INT, 1, 1 + i % 2, MPI_COMM_WORLD));
            }
            for (int i = 0; i < 40; i++) CHECK_MPI(MPI_Send(&i, 1, MPI_INT, 1, 1 + i % 3, MPI_COMM_WORLD));
        } else {
            MPI_Request rq[40];
            int v[40][2000];
            for (int i = 0; i < 20; i++)
                CHECK_MPI(MPI_Irecv(v[i], 2000, MPI_INT, 0, 2, MPI_COMM_WORLD, &rq[i]));
            for (int i = 0; i < 20; i++)
                CHECK_MPI(MPI_Irecv(v[20 + i], 2000, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &rq[20 + i]));
            CHECK_MPI(MPI_Waitall(40, rq, MPI_STATUSES_IGNORE));
            for (int i = 0; i < 20; i++) {
                CHECK_INT(v[i][0], 2 * i + 1);
                CHECK_INT(v[20 + i][0], 2 * i);
            }
            for (int i = 0; i < 40; i++) {
                int x = -1;
                MPI_Status st;
                CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                CHECK_INT(x, i);
                CHECK_INT(st.MPI_TAG, 1 + i % 3);
            }
        }
    }
    free(buf);
    int rc = mt_finish("p2p_order");
    MPI_Finalize();
    return rc;
}
