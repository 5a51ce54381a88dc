/* SPDX-License-Identifier: MIT */
/* Error handling: MPI_Error_class / MPI_Error_string for every class,
 * Comm_get_errhandler (MPI_ERRORS_ARE_FATAL by default), Comm_set_errhandler,
 * Comm_create_errhandler (the user's handler is called with the right
 * communicator and error code, and the call returns that code),
 * Errhandler_free, and handlers inherited by Comm_dup. */
#include "mpitest.h"

static int handler_calls = 0, handler_code = 0;
static MPI_Comm handler_comm = MPI_COMM_NULL;

static void my_handler(MPI_Comm *comm, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_comm = *comm;
}

int main(int argc, char **argv)
{
    int rank, size, cls, len, rc;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* classes map to themselves, strings are non-empty */
    static const int classes[] = {MPI_SUCCESS, MPI_ERR_BUFFER, MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_TAG,
                                  MPI_ERR_COMM, MPI_ERR_RANK, MPI_ERR_REQUEST, MPI_ERR_ROOT, MPI_ERR_GROUP,
                                  MPI_ERR_OP, MPI_ERR_TOPOLOGY, MPI_ERR_DIMS, MPI_ERR_ARG, MPI_ERR_UNKNOWN,
                                  MPI_ERR_TRUNCATE, MPI_ERR_OTHER, MPI_ERR_INTERN, MPI_ERR_IN_STATUS,
                                  MPI_ERR_PENDING, MPI_ERR_NO_MEM, MPI_ERR_INFO};
    for (unsigned i = 0; i < sizeof classes / sizeof classes[0]; i++) {
        char s[MPI_MAX_ERROR_STRING];
        cls = -1;
        CHECK_MPI(MPI_Error_class(classes[i], &cls));
        CHECK_INT(cls, classes[i]);
        len = -1;
        s[0] = 0;
        CHECK_MPI(MPI_Error_string(classes[i], s, &len));
        CHECK(len > 0 && len < MPI_MAX_ERROR_STRING && (int)strlen(s) == len,
              "Error_string(%d) gave length %d for \"%s\"", classes[i], len, s);
    }
    CHECK(MPI_ERR_LASTCODE >= MPI_ERR_INFO, "MPI_ERR_LASTCODE %d", MPI_ERR_LASTCODE);

    /* default handler */
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "default handler is not MPI_ERRORS_ARE_FATAL");
    CHECK_MPI(MPI_Errhandler_free(&eh));

    /* ERRORS_RETURN: the error comes back, with a class */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "handler is not MPI_ERRORS_RETURN after set");
    CHECK_MPI(MPI_Errhandler_free(&eh));
    int x = 1;
    rc = MPI_Send(&x, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD);
    CHECK_CLASS(rc, MPI_ERR_RANK);
    {
        char s[MPI_MAX_ERROR_STRING];
        len = 0;
        CHECK_MPI(MPI_Error_string(rc, s, &len));
        CHECK(len > 0, "Error_string of a returned code is empty");
    }

    /* user handler on a dup; dup inherits the handler */
    MPI_Errhandler mine;
    MPI_Comm c, c2;
    CHECK_MPI(MPI_Comm_create_errhandler(my_handler, &mine));
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    CHECK_MPI(MPI_Comm_set_errhandler(c, mine));
    rc = MPI_Send(&x, 1, MPI_INT, -7, 0, c);
    CHECK_INT(handler_calls, 1);
    CHECK_CLASS(handler_code, MPI_ERR_RANK);
    CHECK_INT(rc, handler_code);
    int cmp = -1;
    if (handler_comm != MPI_COMM_NULL) {
        CHECK_MPI(MPI_Comm_compare(handler_comm, c, &cmp));
        CHECK_INT(cmp, MPI_IDENT);
    } else CHECK(0, "handler got MPI_COMM_NULL");
    rc = MPI_Recv(&x, -1, MPI_INT, 0, 0, c, MPI_STATUS_IGNORE);
    CHECK_INT(handler_calls, 2);
    CHECK_CLASS(handler_code, MPI_ERR_COUNT);
    CHECK_MPI(MPI_Comm_dup(c, &c2));
    rc = MPI_Send(&x, 1, MPI_INT, 0, -5, c2);
    CHECK_INT(handler_calls, 3);
    CHECK_CLASS(handler_code, MPI_ERR_TAG);
    /* the handle stays valid while a communicator uses it */
    CHECK_MPI(MPI_Errhandler_free(&mine));
    CHECK(mine == MPI_ERRHANDLER_NULL, "Errhandler_free did not set MPI_ERRHANDLER_NULL");
    rc = MPI_Send(&x, 1, MPI_INT, size, 0, c);
    CHECK_INT(handler_calls, 4);
    CHECK_MPI(MPI_Comm_get_errhandler(c, &eh));
    CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    rc = MPI_Send(&x, 1, MPI_INT, size, 0, c);
    CHECK_INT(handler_calls, 4);
    CHECK_CLASS(rc, MPI_ERR_RANK);
    CHECK_MPI(MPI_Comm_set_errhandler(c, eh));
    CHECK_MPI(MPI_Errhandler_free(&eh));
    rc = MPI_Send(&x, 1, MPI_INT, size, 0, c);
    CHECK_INT(handler_calls, 5);
    CHECK_MPI(MPI_Comm_free(&c));
    CHECK_MPI(MPI_Comm_free(&c2));

    /* communication still works after all that */
    int to = (rank + 1) % size, from = (rank + size - 1) % size, y = -1;
    CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, to, 1, &y, 1, MPI_INT, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_INT(y, from);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    rc = mt_finish("env_errors");
    MPI_Finalize();
    return rc;
}
