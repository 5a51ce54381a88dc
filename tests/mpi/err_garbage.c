/* SPDX-License-Identifier: MIT */
/* No handle argument, however wrong, crashes a rank (issue 11, section 3):
 * for each handle kind a few calls get garbage (random bits, all bits set,
 * a handle of another kind, and, for Courier, handles of the right kind
 * with an index that was never given out, directly stored or from the
 * table), each must return its error class through MPI_ERRORS_RETURN, and
 * the library must still work afterwards (an allreduce, checked).  Any
 * number of ranks. */
#include "mpitest.h"

/* MPICH's handle layout, which Courier shares: storage in bits 30-31
 * (1 predefined, 2 direct, 3 table), kind in bits 26-29. */
enum {
    K_COMM = 1, K_GROUP = 2, K_DATATYPE = 3, K_ERRHANDLER = 5, K_OP = 6, K_INFO = 7, K_WIN = 8,
    K_REQUEST = 11
};
#define HANDLE(storage, kind, idx) ((int)(((unsigned)(storage) << 30) | ((unsigned)(kind) << 26) | (unsigned)(idx)))

enum { NGARBAGE = 6 };

/* The garbage values for a handle of kind: the last three have the right
 * kind bits, which only Courier is asked to survive (MPICH dereferences
 * direct and table handles without looking). */
static int garbage(int kind, int i)
{
    switch (i) {
    case 0: return 0x7654321;
    case 1: return -1;
    case 2: return HANDLE(1, kind == K_COMM ? K_GROUP : K_COMM, 0);   /* another kind */
    case 3: return HANDLE(1, kind, 0xfe);                              /* predefined, unknown */
    case 4: return HANDLE(2, kind, 77);                                /* direct, never given */
    default: return HANDLE(3, kind, 0x3ffff00);                        /* table, far out */
    }
}

static int ngarbage(void)
{
#ifdef MT_REFERENCE_MPICH
    return 3;
#else
    return NGARBAGE;
#endif
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rank, size, n = -1, flag = -1, buf[4] = { 0 }, out[4];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    for (int i = 0; i < ngarbage(); i++) {
        /* communicators */
        MPI_Comm c = (MPI_Comm)garbage(K_COMM, i), c2 = c;
        CHECK_CLASS(MPI_Comm_size(c, &n), MPI_ERR_COMM);
        CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, 0, 0, c), MPI_ERR_COMM);
        CHECK_CLASS(MPI_Barrier(c), MPI_ERR_COMM);
        CHECK_CLASS(MPI_Allreduce(buf, out, 1, MPI_INT, MPI_SUM, c), MPI_ERR_COMM);
        CHECK_CLASS(MPI_Comm_dup(c, &c2), MPI_ERR_COMM);
        c2 = c;
        CHECK_CLASS(MPI_Comm_free(&c2), MPI_ERR_COMM);

        /* groups */
        MPI_Group g = (MPI_Group)garbage(K_GROUP, i), g2 = g;
        MPI_Comm nc = MPI_COMM_NULL;
        CHECK_CLASS(MPI_Group_size(g, &n), MPI_ERR_GROUP);
        CHECK_CLASS(MPI_Group_free(&g2), MPI_ERR_GROUP);
        CHECK_CLASS(MPI_Comm_create(MPI_COMM_WORLD, g, &nc), MPI_ERR_GROUP);

        /* datatypes */
        MPI_Datatype t = (MPI_Datatype)garbage(K_DATATYPE, i), t2 = t;
        CHECK_CLASS(MPI_Type_size(t, &n), MPI_ERR_TYPE);
        CHECK_CLASS(MPI_Type_commit(&t2), MPI_ERR_TYPE);
        CHECK_CLASS(MPI_Type_free(&t2), MPI_ERR_TYPE);
        CHECK_CLASS(MPI_Send(buf, 1, t, rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
        CHECK_CLASS(MPI_Type_contiguous(2, t, &t2), MPI_ERR_TYPE);

        /* operations */
        MPI_Op op = (MPI_Op)garbage(K_OP, i), op2 = op;
        CHECK_CLASS(MPI_Allreduce(buf, out, 1, MPI_INT, op, MPI_COMM_WORLD), MPI_ERR_OP);
#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0 answers MPI_SUCCESS for some garbage */
        CHECK_CLASS(MPI_Op_commutative(op, &flag), MPI_ERR_OP);
#endif
        CHECK_CLASS(MPI_Op_free(&op2), MPI_ERR_OP);

        /* requests */
        MPI_Request r = (MPI_Request)garbage(K_REQUEST, i), r2 = r;
        CHECK_CLASS(MPI_Wait(&r2, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
        r2 = r;
        CHECK_CLASS(MPI_Test(&r2, &flag, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
        r2 = r;
        CHECK_CLASS(MPI_Request_free(&r2), MPI_ERR_REQUEST);
        r2 = r;
        CHECK_CLASS(MPI_Cancel(&r2), MPI_ERR_REQUEST);

        /* info and error handlers */
        MPI_Info in = (MPI_Info)garbage(K_INFO, i), in2;
#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0 answers MPI_ERR_ARG */
        CHECK_CLASS(MPI_Info_get_nkeys(in, &n), MPI_ERR_INFO);
        CHECK_CLASS(MPI_Info_dup(in, &in2), MPI_ERR_INFO);
#else
        (void)in, (void)in2;
#endif
        MPI_Errhandler eh = (MPI_Errhandler)garbage(K_ERRHANDLER, i);
#ifndef MT_REFERENCE_MPICH   /* MPI 4.1's class; MPICH 4.0 answers MPI_ERR_ARG */
        CHECK_CLASS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh), MPI_ERR_ERRHANDLER);
#else
        CHECK_CLASS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh), MPI_ERR_ARG);
#endif

        /* windows */
        MPI_Win w = (MPI_Win)garbage(K_WIN, i), w2 = w;
        CHECK_CLASS(MPI_Win_fence(0, w), MPI_ERR_WIN);
        CHECK_CLASS(MPI_Win_free(&w2), MPI_ERR_WIN);
    }

    /* the library still works, and the error handler is still ours */
    int one = rank + 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_INT(sum, size * (size + 1) / 2);
    MPI_Errhandler now;
    CHECK_MPI(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &now));
    CHECK(now == MPI_ERRORS_RETURN, "the error handler of MPI_COMM_WORLD changed");
    MPI_Errhandler_free(&now);
    int rc = mt_finish("err_garbage");
    MPI_Finalize();
    return rc;
}
