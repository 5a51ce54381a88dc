/* SPDX-License-Identifier: MIT */
/* MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv:
 * size discovered by probing, then received; matched probes remove the
 * message from matching; MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC. */
#include "mpitest.h"

static const int sizes[] = {0, 3, 4000, 4097, 100000}; /* ints */
#define NS (int)(sizeof sizes / sizeof sizes[0])

static void check_ints(const int *b, int n, int seed)
{
    for (int i = 0; i < n; i++) if (b[i] != seed + i) { CHECK_INT(b[i], seed + i); return; }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int *out = mt_malloc(sizeof(int) * 100000);

    for (int s = 0; s < NS; s++)
        for (int kind = 0; kind < 4; kind++) {
            int n = sizes[s], tag = s * 4 + kind, cnt = -1, flag = 0;
            MPI_Request sr;
            MPI_Status st;
            MPI_Message msg = MPI_MESSAGE_NULL;
            for (int i = 0; i < n; i++) out[i] = rank * 1000 + tag + i;
            CHECK_MPI(MPI_Isend(out, n, MPI_INT, to, tag, MPI_COMM_WORLD, &sr));
            switch (kind) {
            case 0: CHECK_MPI(MPI_Probe(from, tag, MPI_COMM_WORLD, &st)); break;
            case 1: while (!flag) CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &st)); break;
            case 2: CHECK_MPI(MPI_Mprobe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st)); break;
            case 3: while (!flag) CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st)); break;
            }
            CHECK_INT(st.MPI_SOURCE, from);
            CHECK_INT(st.MPI_TAG, tag);
            MPI_Get_count(&st, MPI_INT, &cnt);
            CHECK_INT(cnt, n);
            int *in = mt_malloc(sizeof(int) * (cnt > 0 ? cnt : 1));
            MPI_Status rs;
            if (kind < 2) {
                CHECK_MPI(MPI_Recv(in, cnt, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &rs));
            } else if (kind == 2) {
                CHECK(msg != MPI_MESSAGE_NULL, "Mprobe gave MPI_MESSAGE_NULL");
                CHECK_MPI(MPI_Mrecv(in, cnt, MPI_INT, &msg, &rs));
                CHECK(msg == MPI_MESSAGE_NULL, "Mrecv did not set the message to MPI_MESSAGE_NULL");
            } else {
                MPI_Request rr;
                CHECK_MPI(MPI_Imrecv(in, cnt, MPI_INT, &msg, &rr));
                CHECK(msg == MPI_MESSAGE_NULL, "Imrecv did not set the message to MPI_MESSAGE_NULL");
                CHECK_MPI(MPI_Wait(&rr, &rs));
            }
            CHECK_INT(rs.MPI_SOURCE, from);
            CHECK_INT(rs.MPI_TAG, tag);
            check_ints(in, n, from * 1000 + tag);
            free(in);
            CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
        }

    /* A matched probe takes the message out of matching: two messages with the
     * same envelope; Mprobe the first, then a plain Recv gets the second. */
    {
        int a = rank * 10 + 1, b = rank * 10 + 2, x = -1, y = -1, flag = 0;
        MPI_Request sr[2];
        MPI_Message m;
        MPI_Status st;
        CHECK_MPI(MPI_Isend(&a, 1, MPI_INT, to, 900, MPI_COMM_WORLD, &sr[0]));
        CHECK_MPI(MPI_Isend(&b, 1, MPI_INT, to, 900, MPI_COMM_WORLD, &sr[1]));
        CHECK_MPI(MPI_Mprobe(from, 900, MPI_COMM_WORLD, &m, &st));
        CHECK_MPI(MPI_Recv(&y, 1, MPI_INT, from, 900, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Mrecv(&x, 1, MPI_INT, &m, MPI_STATUS_IGNORE));
        CHECK_INT(x, from * 10 + 1);
        CHECK_INT(y, from * 10 + 2);
        CHECK_MPI(MPI_Waitall(2, sr, MPI_STATUSES_IGNORE));
        /* nothing left */
        CHECK_MPI(MPI_Iprobe(from, 900, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK_INT(flag, 0);
    }

    /* MPI_PROC_NULL */
    {
        MPI_Status st;
        MPI_Message m = MPI_MESSAGE_NULL;
        int flag = 0, cnt = -1, x = 77;
        CHECK_MPI(MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
        CHECK_INT(st.MPI_SOURCE, MPI_PROC_NULL);
        CHECK_INT(st.MPI_TAG, MPI_ANY_TAG);
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK_INT(cnt, 0);
        CHECK_MPI(MPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &st));
        CHECK_INT(flag, 1);
        CHECK_INT(st.MPI_SOURCE, MPI_PROC_NULL);
        CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &st));
        CHECK(m == MPI_MESSAGE_NO_PROC, "Mprobe(PROC_NULL) message is not MPI_MESSAGE_NO_PROC");
        CHECK_MPI(MPI_Mrecv(&x, 1, MPI_INT, &m, &st));
        CHECK_INT(st.MPI_SOURCE, MPI_PROC_NULL);
        CHECK_INT(x, 77);
        flag = 0;
        CHECK_MPI(MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &m, &st));
        CHECK_INT(flag, 1);
        CHECK(m == MPI_MESSAGE_NO_PROC, "Improbe(PROC_NULL) message is not MPI_MESSAGE_NO_PROC");
        MPI_Request rr;
        CHECK_MPI(MPI_Imrecv(&x, 1, MPI_INT, &m, &rr));
        CHECK_MPI(MPI_Wait(&rr, &st));
        CHECK_INT(st.MPI_SOURCE, MPI_PROC_NULL);
    }
    free(out);
    int rc = mt_finish("p2p_probe");
    MPI_Finalize();
    return rc;
}
