/* SPDX-License-Identifier: MIT */
/* Bad arguments with MPI_ERRORS_RETURN: invalid rank, tag, count,
 * communicator, datatype, buffer and request return the right error class,
 * and the program carries on (a correct exchange after every error). */
#include "mpitest.h"

static int rank, size;

static void still_alive(int step)
{
    int to = (rank + 1) % size, from = (rank + size - 1) % size, y = -1, v = rank * 100 + step;
    CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, to, 1000 + step, &y, 1, MPI_INT, from, 1000 + step, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
    CHECK_INT(y, from * 100 + step);
}

int main(int argc, char **argv)
{
    int x[4] = {0}, flag = 0, tag_ub = 0, *ub = NULL, step = 0;
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* errors not tied to a valid communicator go to MPI_COMM_WORLD (MPI 3) or
     * MPI_COMM_SELF (MPI 4): make both return */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    /* attributes are not part of this test: use MPI_TAG_UB only if available */
    if (MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag) == MPI_SUCCESS && flag && ub) {
        tag_ub = *ub;
        CHECK(tag_ub >= 32767, "MPI_TAG_UB %d", tag_ub);
    } else if (rank == 0) {
        printf("note: MPI_Comm_get_attr(MPI_TAG_UB) unavailable; tag > MPI_TAG_UB not checked\n");
    }

    /* rank */
    CHECK_CLASS(MPI_Send(x, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Send(x, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Recv(x, 1, MPI_INT, size + 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Isend(x, 1, MPI_INT, size, 0, MPI_COMM_WORLD, &r), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Irecv(x, 1, MPI_INT, -9, 0, MPI_COMM_WORLD, &r), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Ssend(x, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    still_alive(step++);
    /* tag */
    CHECK_CLASS(MPI_Send(x, 1, MPI_INT, rank, -1, MPI_COMM_WORLD), MPI_ERR_TAG);
    CHECK_CLASS(MPI_Send(x, 1, MPI_INT, rank, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG);
    if (tag_ub > 0 && tag_ub < 0x7fffffff)
        CHECK_CLASS(MPI_Send(x, 1, MPI_INT, rank, tag_ub + 1, MPI_COMM_WORLD), MPI_ERR_TAG);
    CHECK_CLASS(MPI_Recv(x, 1, MPI_INT, rank, -3, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_TAG);
    still_alive(step++);
    /* count */
    CHECK_CLASS(MPI_Send(x, -1, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Recv(x, -2, MPI_INT, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Isend(x, -1, MPI_INT, rank, 0, MPI_COMM_WORLD, &r), MPI_ERR_COUNT);
    still_alive(step++);
    /* communicator */
    CHECK_CLASS(MPI_Send(x, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Recv(x, 1, MPI_INT, 0, 0, MPI_COMM_NULL, MPI_STATUS_IGNORE), MPI_ERR_COMM);
    {
        int s = -1;
        CHECK_CLASS(MPI_Comm_size(MPI_COMM_NULL, &s), MPI_ERR_COMM);
        CHECK_CLASS(MPI_Comm_rank(MPI_COMM_NULL, &s), MPI_ERR_COMM);
    }
    still_alive(step++);
    /* datatype */
    CHECK_CLASS(MPI_Send(x, 1, MPI_DATATYPE_NULL, rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Recv(x, 1, MPI_DATATYPE_NULL, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_TYPE);
    still_alive(step++);
    /* buffer: NULL with a positive count */
    CHECK_CLASS(MPI_Send(NULL, 4, MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Recv(NULL, 4, MPI_INT, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_BUFFER);
    still_alive(step++);
    /* request: Start on a null request */
    {
        MPI_Request nr = MPI_REQUEST_NULL;
        CHECK_CLASS(MPI_Start(&nr), MPI_ERR_REQUEST);
    }
#ifndef MT_REFERENCE_MPICH
    /* request arrays: a handle that names no request (MPICH does not check these) */
    {
        MPI_Request rs[2] = { MPI_REQUEST_NULL, (MPI_Request)0xec0ffff0 };
        int idx = 0, flag = 0, out = 0, ind[2];
        CHECK_CLASS(MPI_Waitall(2, rs, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST);
        CHECK_CLASS(MPI_Testall(2, rs, &flag, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST);
        CHECK_CLASS(MPI_Waitany(2, rs, &idx, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
        CHECK_CLASS(MPI_Testsome(2, rs, &out, ind, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST);
    }
#endif
    still_alive(step++);
    int rc = mt_finish("err_return");
    MPI_Finalize();
    return rc;
}
