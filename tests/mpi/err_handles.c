/* SPDX-License-Identifier: MIT */
/* Bad handles never crash: each gets its error class through the error
 * handler and a message naming the call and the argument.  The fault tests of
 * issue 11: MPI_Comm_free of a null or garbage handle, MPI_Comm_compare with
 * MPI_COMM_NULL, the world group freed twice, and the same for the other
 * handle kinds (groups, error handlers, info, sessions, keyvals). */
#include "mpitest.h"

static void check_msg(int rc, const char *want)
{
#ifdef MT_REFERENCE_MPICH   /* MPICH words its messages differently */
    (void)rc, (void)want;
    return;
#endif
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    s[0] = 0;
    MPI_Error_string(rc, s, &len);
    CHECK(strstr(s, want) != NULL, "message \"%s\" does not name \"%s\"", s, want);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rc, result = -1;

    /* communicators */
    MPI_Comm c = MPI_COMM_NULL;
    rc = MPI_Comm_free(&c);
    CHECK_CLASS(rc, MPI_ERR_COMM);
    check_msg(rc, "comm");
    c = (MPI_Comm)0x7654321;                 /* garbage */
    rc = MPI_Comm_free(&c);
    CHECK_CLASS(rc, MPI_ERR_COMM);
    c = MPI_COMM_WORLD;
    rc = MPI_Comm_free(&c);
    CHECK_CLASS(rc, MPI_ERR_COMM);
    CHECK(c == MPI_COMM_WORLD, "a failed free changed the handle");
    rc = MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_NULL, &result);
    CHECK_CLASS(rc, MPI_ERR_COMM);
    check_msg(rc, "comm2");
    rc = MPI_Comm_compare(MPI_COMM_NULL, MPI_COMM_WORLD, &result);
    CHECK_CLASS(rc, MPI_ERR_COMM);
    MPI_Comm dup;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_Comm stale = dup;
    CHECK_MPI(MPI_Comm_free(&dup));
    CHECK(dup == MPI_COMM_NULL, "MPI_Comm_free did not null the handle");
    rc = MPI_Comm_free(&stale);               /* freed twice */
    CHECK_CLASS(rc, MPI_ERR_COMM);
    int size = -1;
    rc = MPI_Comm_size(stale, &size);
    CHECK_CLASS(rc, MPI_ERR_COMM);

    /* groups: the world group freed twice */
    MPI_Group wg, wg2, saved;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    saved = wg;
    CHECK_MPI(MPI_Group_free(&wg));
    CHECK(wg == MPI_GROUP_NULL, "MPI_Group_free did not null the handle");
#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0 frees it again, which corrupts its count */
    rc = MPI_Group_free(&saved);
    CHECK_CLASS(rc, MPI_ERR_GROUP);
    check_msg(rc, "group");
#else
    (void)saved;
#endif
    /* the same handle twice from MPI_Comm_group: two frees are right */
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg2));
    CHECK_MPI(MPI_Group_size(wg2, &size));
    CHECK_MPI(MPI_Group_free(&wg));
    CHECK_MPI(MPI_Group_size(wg2, &size));
    CHECK(size > 0, "group size %d", size);
    CHECK_MPI(MPI_Group_free(&wg2));
    MPI_Group g = MPI_GROUP_NULL;
    CHECK_CLASS(MPI_Group_free(&g), MPI_ERR_GROUP);
    CHECK_CLASS(MPI_Group_size((MPI_Group)0x1234, &size), MPI_ERR_GROUP);
    /* the world still works after all this */
    int one = 1, sum = 0;
    CHECK_MPI(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_INT(sum, size);
    MPI_Group wg3;
    CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg3));
    int gs = -1;
    CHECK_MPI(MPI_Group_size(wg3, &gs));
    CHECK_INT(gs, size);
    CHECK_MPI(MPI_Group_free(&wg3));

    /* error handlers, info, keyvals, sessions */
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
#ifndef MT_REFERENCE_MPICH   /* MPI 4.1's class; MPICH 4.0 answers MPI_ERR_ARG */
    CHECK_CLASS(MPI_Errhandler_free(&eh), MPI_ERR_ERRHANDLER);
    CHECK_CLASS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)0x4321), MPI_ERR_ERRHANDLER);
#else
    CHECK_CLASS(MPI_Errhandler_free(&eh), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Comm_set_errhandler(MPI_COMM_WORLD, (MPI_Errhandler)0x4321), MPI_ERR_ARG);
#endif
    MPI_Info info = MPI_INFO_NULL;
#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0 answers MPI_ERR_ARG */
    CHECK_CLASS(MPI_Info_free(&info), MPI_ERR_INFO);
#else
    CHECK(MPI_Info_free(&info) != MPI_SUCCESS, "MPI_Info_free(MPI_INFO_NULL)");
#endif
    CHECK_CLASS(MPI_Info_set((MPI_Info)0x777, "k", "v"), MPI_ERR_INFO);
    int kv = MPI_KEYVAL_INVALID;
    CHECK_CLASS(MPI_Comm_free_keyval(&kv), MPI_ERR_KEYVAL);
    MPI_Session sess = MPI_SESSION_NULL;
    CHECK_CLASS(MPI_Session_finalize(&sess), MPI_ERR_SESSION);
    int n = 0;
    CHECK_CLASS(MPI_Session_get_num_psets((MPI_Session)0x99, MPI_INFO_NULL, &n), MPI_ERR_SESSION);

    rc = mt_finish("err_handles");
    MPI_Finalize();
    return rc;
}
