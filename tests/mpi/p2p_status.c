/* SPDX-License-Identifier: MIT */
/* Statuses: MPI_Get_count and MPI_Get_elements (including MPI_UNDEFINED for
 * a message that is not a whole number of elements), MPI_ANY_SOURCE /
 * MPI_ANY_TAG filling in the real envelope, MPI_PROC_NULL sends and receives
 * (source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0), MPI_STATUS_IGNORE and
 * MPI_STATUSES_IGNORE accepted everywhere. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    MPI_Status st;
    int cnt;

    /* Get_count / Get_elements */
    {
        double d[10], e[10];
        char bytes[13];
        MPI_Request r;
        for (int i = 0; i < 10; i++) d[i] = i;
        CHECK_MPI(MPI_Isend(d, 7, MPI_DOUBLE, to, 1, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Recv(e, 10, MPI_DOUBLE, from, 1, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &cnt));
        CHECK_INT(cnt, 7);
        CHECK_MPI(MPI_Get_elements(&st, MPI_DOUBLE, &cnt));
        CHECK_INT(cnt, 7);
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &cnt));
        CHECK_INT(cnt, 56);
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &cnt));
        CHECK_INT(cnt, 14);
        MPI_Count c = -1;
        CHECK_MPI(MPI_Get_elements_x(&st, MPI_DOUBLE, &c));
        CHECK_INT(c, 7);

        memset(bytes, 'x', sizeof bytes);
        char rbytes[16];
        CHECK_MPI(MPI_Isend(bytes, 13, MPI_BYTE, to, 2, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Recv(rbytes, 16, MPI_BYTE, from, 2, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &cnt));
        CHECK_INT(cnt, 13);
        /* 13 bytes are not a whole number of ints */
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &cnt));
        CHECK_INT(cnt, MPI_UNDEFINED);
        CHECK_MPI(MPI_Get_elements(&st, MPI_INT, &cnt));
        CHECK_INT(cnt, MPI_UNDEFINED);

        /* zero-length */
        CHECK_MPI(MPI_Isend(NULL, 0, MPI_INT, to, 3, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Recv(d, 10, MPI_INT, from, 3, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &cnt));
        CHECK_INT(cnt, 0);
        CHECK_INT(st.MPI_TAG, 3);
        CHECK_INT(st.MPI_SOURCE, from);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* wildcards: every rank sends rank 0 one message with tag = 10 + rank */
    {
        int v = rank * 3;
        MPI_Request r;
        CHECK_MPI(MPI_Isend(&v, 1, MPI_INT, 0, 10 + rank, MPI_COMM_WORLD, &r));
        if (rank == 0) {
            int seen[64] = {0};
            for (int i = 0; i < size; i++) {
                int x = -1;
                CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < size, "source %d", st.MPI_SOURCE);
                if (st.MPI_SOURCE < 0 || st.MPI_SOURCE >= size) continue;
                CHECK_INT(st.MPI_TAG, 10 + st.MPI_SOURCE);
                CHECK_INT(x, st.MPI_SOURCE * 3);
                seen[st.MPI_SOURCE]++;
            }
            for (int i = 0; i < size; i++) CHECK_INT(seen[i], 1);
        }
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* keep later messages out of the wildcard receives */
        /* ANY_TAG from a given source, ANY_SOURCE with a given tag */
        int y = rank + 100, x = -1;
        CHECK_MPI(MPI_Isend(&y, 1, MPI_INT, to, 20, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, from, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK_INT(st.MPI_TAG, 20);
        CHECK_INT(x, from + 100);
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Isend(&y, 1, MPI_INT, to, 21, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 21, MPI_COMM_WORLD, &st));
        CHECK_INT(st.MPI_SOURCE, from);
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }

    /* MPI_PROC_NULL */
    {
        int x = 99;
        MPI_Request r;
        CHECK_MPI(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Ssend(&x, 1, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Rsend(&x, 1, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD));
        st.MPI_SOURCE = 1234; st.MPI_TAG = 1234;
        CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st));
        CHECK_INT(x, 99);
        CHECK_INT(st.MPI_SOURCE, MPI_PROC_NULL);
        CHECK_INT(st.MPI_TAG, MPI_ANY_TAG);
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &cnt));
        CHECK_INT(cnt, 0);
        CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Wait(&r, &st));
#ifndef MT_REFERENCE_MPICH /* MPICH 4.0 leaves source and tag 0 here, against the standard */
        CHECK_INT(st.MPI_SOURCE, MPI_PROC_NULL);
        CHECK_INT(st.MPI_TAG, MPI_ANY_TAG);
#endif
        CHECK_MPI(MPI_Get_count(&st, MPI_INT, &cnt));
        CHECK_INT(cnt, 0);
        CHECK_MPI(MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK_INT(r, MPI_REQUEST_NULL);
    }

    /* STATUS(ES)_IGNORE */
    {
        int a[4] = {rank, rank, rank, rank}, b[4];
        MPI_Request r[2];
        CHECK_MPI(MPI_Irecv(b, 4, MPI_INT, from, 30, MPI_COMM_WORLD, &r[0]));
        CHECK_MPI(MPI_Isend(a, 4, MPI_INT, to, 30, MPI_COMM_WORLD, &r[1]));
        CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        CHECK_INT(b[3], from);
        CHECK_MPI(MPI_Sendrecv(a, 4, MPI_INT, to, 31, b, 4, MPI_INT, from, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_INT(b[0], from);
    }
    int rc = mt_finish("p2p_status");
    MPI_Finalize();
    return rc;
}
