/* SPDX-License-Identifier: MIT */
/* Completion calls over arrays that mix active, inactive persistent and null
 * requests (MPI 4.1 section 3.7.5): Waitany/Testany/Waitsome/Testsome skip
 * the inactive ones and report MPI_UNDEFINED when none is active; the status
 * of an inactive request is empty.  Then MPI 4.1's
 * MPI_Request_get_status_any/all/some, which report without freeing (not in
 * MPICH 4.0, so left out when validating against it). */
#include "mpitest.h"

#define N 4

static int empty_status(const MPI_Status *st)
{
    int cnt = -1;
    MPI_Get_count(st, MPI_BYTE, &cnt);
    return st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && cnt == 0;
}

int main(int argc, char **argv)
{
    int rank, size, idx, flag, outcount, indices[N];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int in[N], out[N];
    MPI_Request r[N];
    MPI_Status st, sts[N];

    /* persistent receives, never started: inactive */
    for (int i = 0; i < N; i++)
        if (i != 1) CHECK_MPI(MPI_Recv_init(&in[i], 1, MPI_INT, from, i, MPI_COMM_WORLD, &r[i]));
    r[1] = MPI_REQUEST_NULL;
    MPI_Request keep1;
    CHECK_MPI(MPI_Recv_init(&in[1], 1, MPI_INT, from, 1, MPI_COMM_WORLD, &keep1));
    CHECK_MPI(MPI_Waitany(N, r, &idx, &st));
    CHECK_INT(idx, MPI_UNDEFINED);
    CHECK(empty_status(&st), "Waitany over inactive: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    flag = 0;
    CHECK_MPI(MPI_Testany(N, r, &idx, &flag, &st));
    CHECK_INT(flag, 1);
    CHECK_INT(idx, MPI_UNDEFINED);
    CHECK_MPI(MPI_Waitsome(N, r, &outcount, indices, sts));
    CHECK_INT(outcount, MPI_UNDEFINED);
    CHECK_MPI(MPI_Testsome(N, r, &outcount, indices, sts));
    CHECK_INT(outcount, MPI_UNDEFINED);
    CHECK_MPI(MPI_Waitall(N, r, sts));
    for (int i = 0; i < N; i++)
        CHECK(empty_status(&sts[i]), "Waitall inactive %d: source %d", i, sts[i].MPI_SOURCE);
    CHECK_MPI(MPI_Wait(&r[0], &st));
    CHECK(r[0] != MPI_REQUEST_NULL, "an inactive persistent request stays allocated");

    /* start two of them (0 and 3): Waitany returns them, then MPI_UNDEFINED */
    for (int round = 0; round < 3; round++) {
        in[0] = in[3] = -1;
        CHECK_MPI(MPI_Start(&r[0]));
        CHECK_MPI(MPI_Start(&r[3]));
        out[0] = rank * 1000 + round * 10;
        out[3] = rank * 1000 + round * 10 + 3;
        CHECK_MPI(MPI_Send(&out[3], 1, MPI_INT, to, 3, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Send(&out[0], 1, MPI_INT, to, 0, MPI_COMM_WORLD));
        int got = 0, seen = 0;
        while (got < 2) {
            if (round == 0) {
                CHECK_MPI(MPI_Waitany(N, r, &idx, &st));
            } else if (round == 1) {
                flag = 0;
                CHECK_MPI(MPI_Testany(N, r, &idx, &flag, &st));
                if (!flag) continue;
            } else {
                CHECK_MPI(MPI_Waitsome(N, r, &outcount, indices, sts));
                CHECK(outcount >= 1 && outcount <= 2, "outcount %d", outcount);
                for (int k = 0; k < outcount; k++) {
                    CHECK(indices[k] == 0 || indices[k] == 3, "index %d", indices[k]);
                    CHECK_INT(sts[k].MPI_TAG, indices[k]);
                    seen |= 1 << indices[k];
                }
                got += outcount;
                continue;
            }
            CHECK(idx == 0 || idx == 3, "index %d", idx);
            CHECK_INT(st.MPI_SOURCE, from);
            CHECK_INT(st.MPI_TAG, idx);
            seen |= 1 << idx;
            got++;
        }
        CHECK_INT(seen, 9);
        CHECK_INT(in[0], from * 1000 + round * 10);
        CHECK_INT(in[3], from * 1000 + round * 10 + 3);
        CHECK_MPI(MPI_Waitany(N, r, &idx, &st));     /* both inactive again */
        CHECK_INT(idx, MPI_UNDEFINED);
        CHECK_MPI(MPI_Testsome(N, r, &outcount, indices, sts));
        CHECK_INT(outcount, MPI_UNDEFINED);
    }

#ifndef MT_REFERENCE_MPICH
    /* MPI_Request_get_status_any/all/some: nothing freed or deactivated */
    {
        CHECK_MPI(MPI_Request_get_status_any(N, r, &idx, &flag, &st));
        CHECK_INT(flag, 1);
        CHECK_INT(idx, MPI_UNDEFINED);
        CHECK(empty_status(&st), "get_status_any inactive: source %d", st.MPI_SOURCE);
        CHECK_MPI(MPI_Request_get_status_some(N, r, &outcount, indices, sts));
        CHECK_INT(outcount, MPI_UNDEFINED);
        CHECK_MPI(MPI_Request_get_status_all(N, r, &flag, sts));
        CHECK_INT(flag, 1);
        in[0] = in[3] = -1;
        CHECK_MPI(MPI_Start(&r[0]));
        CHECK_MPI(MPI_Start(&r[3]));
        CHECK_MPI(MPI_Request_get_status_all(N, r, &flag, sts));
        /* nothing sent yet to tag 0 or 3 on this round: not all complete */
        CHECK_INT(flag, 0);
        out[3] = rank + 300;
        CHECK_MPI(MPI_Send(&out[3], 1, MPI_INT, to, 3, MPI_COMM_WORLD));
        do {
            CHECK_MPI(MPI_Request_get_status_any(N, r, &idx, &flag, &st));
        } while (!flag);
        CHECK_INT(idx, 3);
        CHECK_INT(st.MPI_TAG, 3);
        CHECK_INT(in[3], from + 300);
        CHECK_MPI(MPI_Request_get_status_some(N, r, &outcount, indices, sts));
        CHECK_INT(outcount, 1);
        CHECK_INT(indices[0], 3);
        CHECK_INT(sts[0].MPI_SOURCE, from);
        MPI_Barrier(MPI_COMM_WORLD);      /* every rank looked before tag 0 goes */
        out[0] = rank + 100;
        CHECK_MPI(MPI_Send(&out[0], 1, MPI_INT, to, 0, MPI_COMM_WORLD));
        do {
            CHECK_MPI(MPI_Request_get_status_all(N, r, &flag, sts));
        } while (!flag);
        CHECK_INT(sts[0].MPI_TAG, 0);
        CHECK_INT(sts[3].MPI_TAG, 3);
        CHECK(empty_status(&sts[1]) && empty_status(&sts[2]), "null/inactive statuses not empty");
        CHECK_INT(in[0], from + 100);
        /* still active: the waits complete them */
        CHECK_MPI(MPI_Waitall(N, r, sts));
        CHECK_INT(sts[0].MPI_SOURCE, from);
        CHECK_INT(sts[3].MPI_TAG, 3);
        CHECK_MPI(MPI_Waitany(N, r, &idx, &st));
        CHECK_INT(idx, MPI_UNDEFINED);
    }
#endif
    for (int i = 0; i < N; i++)
        if (r[i] != MPI_REQUEST_NULL) CHECK_MPI(MPI_Request_free(&r[i]));
    CHECK_MPI(MPI_Request_free(&keep1));
    return mt_finish("p2p_reqstatus") + (MPI_Finalize() != MPI_SUCCESS);
}
