/* SPDX-License-Identifier: MIT */
/* Completion calls: Wait, Waitall, Waitany, Waitsome, Test, Testall, Testany,
 * Testsome, including arrays holding MPI_REQUEST_NULL and all-null arrays. */
#include "mpitest.h"

#define N 6

static int empty_status(const MPI_Status *st)
{
    int cnt = -1;
    MPI_Get_count(st, MPI_BYTE, &cnt);
    return st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && cnt == 0;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int in[N], out[N];
    MPI_Request r[N], s[N];
    MPI_Status st[N];
    int idx, flag, outcount, indices[N];

    /* null requests */
    {
        MPI_Request nr = MPI_REQUEST_NULL, na[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        MPI_Status s1;
        CHECK_MPI(MPI_Wait(&nr, &s1));
        CHECK(empty_status(&s1), "Wait(REQUEST_NULL) status source %d tag %d", s1.MPI_SOURCE, s1.MPI_TAG);
        flag = 0;
        CHECK_MPI(MPI_Test(&nr, &flag, &s1));
        CHECK_INT(flag, 1);
        CHECK(empty_status(&s1), "Test(REQUEST_NULL) status source %d tag %d", s1.MPI_SOURCE, s1.MPI_TAG);
        CHECK_MPI(MPI_Waitany(3, na, &idx, &s1));
        CHECK_INT(idx, MPI_UNDEFINED);
        flag = 0;
        CHECK_MPI(MPI_Testany(3, na, &idx, &flag, &s1));
        CHECK_INT(flag, 1);
        CHECK_INT(idx, MPI_UNDEFINED);
        CHECK_MPI(MPI_Waitsome(3, na, &outcount, indices, st));
        CHECK_INT(outcount, MPI_UNDEFINED);
        CHECK_MPI(MPI_Testsome(3, na, &outcount, indices, st));
        CHECK_INT(outcount, MPI_UNDEFINED);
        flag = 0;
        CHECK_MPI(MPI_Testall(3, na, &flag, MPI_STATUSES_IGNORE));
        CHECK_INT(flag, 1);
        CHECK_MPI(MPI_Waitall(0, na, MPI_STATUSES_IGNORE));
    }

    /* Waitany / Waitsome over N receives, one null slot */
    for (int variant = 0; variant < 4; variant++) {
        int seen[N] = {0}, done = 0;
        for (int i = 0; i < N; i++) {
            in[i] = -1;
            out[i] = rank * 100 + variant * 10 + i;
            if (i == 2) { r[i] = MPI_REQUEST_NULL; continue; }
            CHECK_MPI(MPI_Irecv(&in[i], 1, MPI_INT, from, i, MPI_COMM_WORLD, &r[i]));
        }
        for (int i = N - 1; i >= 0; i--) {
            if (i == 2) { s[i] = MPI_REQUEST_NULL; continue; }
            CHECK_MPI(MPI_Isend(&out[i], 1, MPI_INT, to, i, MPI_COMM_WORLD, &s[i]));
        }
        while (done < N - 1) {
            if (variant == 0) {
                CHECK_MPI(MPI_Waitany(N, r, &idx, &st[0]));
                CHECK(idx >= 0 && idx < N && idx != 2, "Waitany index %d", idx);
                if (idx < 0 || idx >= N) break;
                CHECK_INT(r[idx], MPI_REQUEST_NULL);
                CHECK_INT(st[0].MPI_TAG, idx);
                seen[idx]++; done++;
            } else if (variant == 1) {
                CHECK_MPI(MPI_Waitsome(N, r, &outcount, indices, st));
                CHECK(outcount >= 1 && outcount <= N - 1 - done, "Waitsome outcount %d", outcount);
                if (outcount < 1) break;
                for (int k = 0; k < outcount; k++) {
                    CHECK_INT(st[k].MPI_TAG, indices[k]);
                    CHECK_INT(st[k].MPI_SOURCE, from);
                    seen[indices[k]]++; done++;
                }
            } else if (variant == 2) {
                flag = 0;
                CHECK_MPI(MPI_Testany(N, r, &idx, &flag, &st[0]));
                if (flag) {
                    CHECK(idx >= 0 && idx < N && idx != 2, "Testany index %d", idx);
                    if (idx < 0 || idx >= N) break;
                    CHECK_INT(st[0].MPI_TAG, idx);
                    seen[idx]++; done++;
                } else CHECK_INT(idx, MPI_UNDEFINED);
            } else {
                CHECK_MPI(MPI_Testsome(N, r, &outcount, indices, st));
                CHECK(outcount != MPI_UNDEFINED, "Testsome outcount UNDEFINED with %d left", N - 1 - done);
                if (outcount == MPI_UNDEFINED) break;
                for (int k = 0; k < outcount; k++) {
                    CHECK_INT(st[k].MPI_TAG, indices[k]);
                    seen[indices[k]]++; done++;
                }
            }
        }
        for (int i = 0; i < N; i++) {
            CHECK_INT(seen[i], i == 2 ? 0 : 1);
            if (i != 2) CHECK_INT(in[i], from * 100 + variant * 10 + i);
        }
        if (variant % 2 == 0) {
            CHECK_MPI(MPI_Waitall(N, s, st));
        } else {
            flag = 0;
            while (!flag) CHECK_MPI(MPI_Testall(N, s, &flag, MPI_STATUSES_IGNORE));
        }
        for (int i = 0; i < N; i++) CHECK_INT(s[i], MPI_REQUEST_NULL);
    }

    /* Test loop on a single request, Testall returning statuses */
    {
        int x = -1, y = rank + 5;
        MPI_Request rr[2];
        CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, from, 50, MPI_COMM_WORLD, &rr[0]));
        CHECK_MPI(MPI_Isend(&y, 1, MPI_INT, to, 50, MPI_COMM_WORLD, &rr[1]));
        flag = 0;
        while (!flag) CHECK_MPI(MPI_Testall(2, rr, &flag, st));
        CHECK_INT(st[0].MPI_SOURCE, from);
        CHECK_INT(st[0].MPI_TAG, 50);
        CHECK_INT(x, from + 5);
        CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, from, 51, MPI_COMM_WORLD, &rr[0]));
        CHECK_MPI(MPI_Isend(&y, 1, MPI_INT, to, 51, MPI_COMM_WORLD, &rr[1]));
        flag = 0;
        while (!flag) CHECK_MPI(MPI_Test(&rr[0], &flag, &st[0]));
        CHECK_INT(rr[0], MPI_REQUEST_NULL);
        CHECK_INT(st[0].MPI_TAG, 51);
        CHECK_MPI(MPI_Wait(&rr[1], MPI_STATUS_IGNORE));
    }
    int rc = mt_finish("p2p_waittest");
    MPI_Finalize();
    return rc;
}
