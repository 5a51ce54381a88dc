/* SPDX-License-Identifier: MIT */
/* MPI_Cancel of a posted receive (MPI_Test_cancelled), MPI_Request_free of
 * active send and receive requests, MPI_Request_get_status (which leaves the
 * request alive). */
#include "mpitest.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;

    /* cancel a receive nobody will match */
    {
        int x = -3, flag = -1;
        MPI_Request r;
        MPI_Status st;
        CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, from, 4242, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Cancel(&r));
        CHECK_MPI(MPI_Wait(&r, &st));
        CHECK_INT(r, MPI_REQUEST_NULL);
        CHECK_MPI(MPI_Test_cancelled(&st, &flag));
        CHECK_INT(flag, 1);
        CHECK_INT(x, -3);
        /* and with a wildcard source */
        CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Cancel(&r));
        flag = 0;
        while (!flag) CHECK_MPI(MPI_Test(&r, &flag, &st));
        flag = -1;
        CHECK_MPI(MPI_Test_cancelled(&st, &flag));
        CHECK_INT(flag, 1);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

    /* a completed receive is not cancelled */
    {
        int x = -1, y = rank, flag = -1;
        MPI_Request r;
        MPI_Status st;
        CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, from, 1, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Send(&y, 1, MPI_INT, to, 1, MPI_COMM_WORLD));
        /* wait until it has surely arrived */
        CHECK_MPI(MPI_Sendrecv(NULL, 0, MPI_BYTE, to, 2, NULL, 0, MPI_BYTE, from, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        int done = 0;
        while (!done) CHECK_MPI(MPI_Request_get_status(r, &done, MPI_STATUS_IGNORE));
        CHECK_MPI(MPI_Cancel(&r));
        CHECK_MPI(MPI_Wait(&r, &st));
        CHECK_MPI(MPI_Test_cancelled(&st, &flag));
        CHECK_INT(flag, 0);
        CHECK_INT(x, from);
        CHECK_INT(st.MPI_SOURCE, from);
    }

    /* Request_get_status does not free the request */
    {
        int x = -1, y = rank + 10, flag = 0;
        MPI_Request r, s;
        MPI_Status st;
        CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, from, 3, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Isend(&y, 1, MPI_INT, to, 3, MPI_COMM_WORLD, &s));
        while (!flag) CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
        CHECK(r != MPI_REQUEST_NULL, "Request_get_status freed the request");
        CHECK_INT(st.MPI_SOURCE, from);
        CHECK_INT(st.MPI_TAG, 3);
        CHECK_INT(x, from + 10);
        CHECK_MPI(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE));
        CHECK_INT(flag, 1);
        CHECK_MPI(MPI_Wait(&r, &st));
        CHECK_INT(st.MPI_TAG, 3);
        CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
        MPI_Request nr = MPI_REQUEST_NULL;
        flag = 0;
        CHECK_MPI(MPI_Request_get_status(nr, &flag, &st));
        CHECK_INT(flag, 1);
    }

    /* Request_free on active requests: the operations still complete */
    {
        static int big[50000];
        int *in = mt_malloc(sizeof big);
        for (int i = 0; i < 50000; i++) big[i] = rank + i;
        MPI_Request s;
        CHECK_MPI(MPI_Isend(big, 50000, MPI_INT, to, 7, MPI_COMM_WORLD, &s));
        CHECK_MPI(MPI_Request_free(&s));
        CHECK_INT(s, MPI_REQUEST_NULL);
        CHECK_MPI(MPI_Recv(in, 50000, MPI_INT, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (int i = 0; i < 50000; i++) if (in[i] != from + i) { CHECK_INT(in[i], from + i); break; }
        /* the receiver acknowledges, so the freed send's buffer may be reused */
        CHECK_MPI(MPI_Sendrecv(NULL, 0, MPI_BYTE, from, 8, NULL, 0, MPI_BYTE, to, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        free(in);
    }
    int rc = mt_finish("p2p_cancel");
    MPI_Finalize();
    return rc;
}
