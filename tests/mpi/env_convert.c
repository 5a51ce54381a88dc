/* SPDX-License-Identifier: MIT */
/* Conversions between the languages: the handle c2f / f2c of every handle
 * kind (macros in mpi.h, as in MPICH) round-trip, and the status conversions
 * MPI_Status_c2f / f2c / c2f08 / f082c / f2f08 / f082f carry every field of a
 * real status (source, tag, error, count, cancelled) both ways; the
 * MPI_STATUS_IGNORE markers are refused with MPI_ERR_ARG. */
#include "mpitest.h"

static void my_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* handles */
    MPI_Comm dup;
    MPI_Group g;
    MPI_Datatype t;
    MPI_Info info;
    MPI_Op op;
    MPI_Errhandler eh;
    MPI_Request req;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_group(dup, &g);
    MPI_Type_contiguous(3, MPI_INT, &t);
    MPI_Info_create(&info);
    MPI_Op_create(my_op, 1, &op);
    MPI_Comm_get_errhandler(dup, &eh);
    int x = 0;
    MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, dup, &req);
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(dup)) == dup, "comm");
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD, "world");
    CHECK(MPI_Group_f2c(MPI_Group_c2f(g)) == g, "group");
    CHECK(MPI_Type_f2c(MPI_Type_c2f(t)) == t, "type");
    CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE, "predefined type");
    CHECK(MPI_Info_f2c(MPI_Info_c2f(info)) == info, "info");
    CHECK(MPI_Op_f2c(MPI_Op_c2f(op)) == op, "op");
    CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(eh)) == eh, "errhandler");
    CHECK(MPI_Request_f2c(MPI_Request_c2f(req)) == req, "request");
    CHECK(MPI_Win_f2c(MPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL, "win");
    CHECK(MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NO_PROC)) == MPI_MESSAGE_NO_PROC, "message");
    CHECK(MPI_Session_f2c(MPI_Session_c2f(MPI_SESSION_NULL)) == MPI_SESSION_NULL, "session");
    CHECK(MPI_File_f2c(MPI_File_c2f(MPI_FILE_NULL)) == MPI_FILE_NULL, "file");
    /* a converted handle works */
    int s2 = -1;
    MPI_Comm_size(MPI_Comm_f2c(MPI_Comm_c2f(dup)), &s2);
    CHECK_INT(s2, size);
    MPI_Wait(&req, MPI_STATUS_IGNORE);

    /* statuses: a real one from a message with a count and an error field */
    MPI_Status st, back;
    int buf[5] = { 1, 2, 3, 4, 5 }, in[5];
    MPI_Sendrecv(buf, 5, MPI_INT, rank, 17, in, 5, MPI_INT, rank, 17, MPI_COMM_WORLD, &st);
    st.MPI_ERROR = MPI_ERR_TRUNCATE;
    MPI_Status_set_cancelled(&st, 1);
    MPI_Fint f[MPI_F_STATUS_SIZE];
    CHECK_MPI(MPI_Status_c2f(&st, f));
    CHECK(f[MPI_F_SOURCE] == rank && f[MPI_F_TAG] == 17 && f[MPI_F_ERROR] == MPI_ERR_TRUNCATE,
          "c2f: source %d tag %d error %d", f[MPI_F_SOURCE], f[MPI_F_TAG], f[MPI_F_ERROR]);
    memset(&back, 0, sizeof back);
    CHECK_MPI(MPI_Status_f2c(f, &back));
#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0's C library has no MPI_Status_*f08* */
    MPI_F08_status f08, f08b;
    CHECK_MPI(MPI_Status_c2f08(&back, &f08));
    CHECK(f08.MPI_SOURCE == rank && f08.MPI_TAG == 17, "c2f08: %d %d", f08.MPI_SOURCE, f08.MPI_TAG);
    MPI_Fint f2[MPI_F_STATUS_SIZE];
    CHECK_MPI(MPI_Status_f082f(&f08, f2));
    CHECK_MPI(MPI_Status_f2f08(f2, &f08b));
    memset(&back, 0, sizeof back);
    CHECK_MPI(MPI_Status_f082c(&f08b, &back));
#endif
    int count = -1, cancelled = -1;
    MPI_Get_count(&back, MPI_INT, &count);
    MPI_Test_cancelled(&back, &cancelled);
    CHECK(back.MPI_SOURCE == rank && back.MPI_TAG == 17 && back.MPI_ERROR == MPI_ERR_TRUNCATE &&
          count == 5 && cancelled == 1, "round trip: source %d tag %d error %d count %d cancelled %d",
          back.MPI_SOURCE, back.MPI_TAG, back.MPI_ERROR, count, cancelled);
#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0 answers MPI_ERR_OTHER */
    CHECK_CLASS(MPI_Status_c2f(MPI_STATUS_IGNORE, f), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &back), MPI_ERR_ARG);
#else
    CHECK(MPI_Status_c2f(MPI_STATUS_IGNORE, f) != MPI_SUCCESS, "c2f of MPI_STATUS_IGNORE");
    CHECK(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &back) != MPI_SUCCESS, "f2c of MPI_F_STATUS_IGNORE");
#endif
#ifndef MT_REFERENCE_MPICH
    CHECK_CLASS(MPI_Status_f082c(MPI_F08_STATUS_IGNORE, &back), MPI_ERR_ARG);
#endif

    MPI_Op_free(&op);
    MPI_Errhandler_free(&eh);
    MPI_Info_free(&info);
    MPI_Type_free(&t);
    MPI_Group_free(&g);
    MPI_Comm_free(&dup);
    int rc = mt_finish("env_convert");
    MPI_Finalize();
    return rc;
}
