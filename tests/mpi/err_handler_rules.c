/* SPDX-License-Identifier: MIT */
/* Which error handler an error goes to (MPI 4.1 section 9.3) and what
 * MPI_Error_string says of a returned code:
 *  - an error in a call on a communicator goes to that communicator's
 *    handler; a duplicate keeps the handler its parent had when it was made
 *    (ERR_HANDLER_FATAL=1: MPICH's errors/comm/comm_split_nullarg, a NULL newcomm on a
 *    duplicate made before MPI_COMM_WORLD got MPI_ERRORS_RETURN, ends the job);
 *  - an error in a call with no object (a datatype, a group) goes to
 *    MPI_COMM_SELF's handler once the program set one, and to
 *    MPI_COMM_WORLD's while it has not (the rule before MPI 4.0, which
 *    programs and MPICH's test suite still follow);
 *  - MPI_Error_string of a code that a call returned names the call, the class
 *    and the argument, as the fatal handler's line does. */
#include "mpitest.h"

static int self_calls, world_calls, other_calls;
static MPI_Comm last_comm = MPI_COMM_NULL;

static void count_fn(MPI_Comm *comm, int *code, ...)
{
    (void)code;
    if (*comm == MPI_COMM_SELF) self_calls++;
    else if (*comm == MPI_COMM_WORLD) world_calls++;
    else other_calls++;
    last_comm = *comm;
}

static void text_starts(int rc, const char *call, const char *cls, const char *arg)
{
#ifndef MT_REFERENCE_MPICH   /* MPICH words its messages differently */
    char s[MPI_MAX_ERROR_STRING], want[128];
    int len = 0;
    s[0] = 0;
    MPI_Error_string(rc, s, &len);
    snprintf(want, sizeof want, "%s: %s: ", call, cls);
    CHECK(strncmp(s, want, strlen(want)) == 0, "message \"%s\" does not start with \"%s\"", s, want);
    CHECK(strstr(s, arg) != NULL, "message \"%s\" does not name %s", s, arg);
    CHECK_INT(len, strlen(s));
#else
    (void)rc, (void)call, (void)cls, (void)arg;
#endif
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, sz = -1, rc;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm dup, split = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    (void)argc, (void)argv;
    if (getenv("ERR_HANDLER_FATAL")) {
        MPI_Comm_split(dup, 0, me, NULL);    /* dup's handler: MPI_ERRORS_ARE_FATAL */
        printf("UNEXPECTED: MPI_Comm_split returned on a fatal handler\n");
        fflush(stdout);
        MPI_Finalize();
        return 1;
    }

    /* the duplicate kept the handler it was made with */
    MPI_Errhandler eh;
    CHECK_MPI(MPI_Comm_get_errhandler(dup, &eh));
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "a duplicate of MPI_COMM_WORLD made before "
          "MPI_Comm_set_errhandler has handler 0x%x", (unsigned)eh);
    MPI_Errhandler_free(&eh);

    /* no object, MPI_COMM_SELF's handler never set: MPI_COMM_WORLD's returns */
    rc = MPI_Type_size(MPI_DATATYPE_NULL, &sz);
    CHECK_CLASS(rc, MPI_ERR_TYPE);
    text_starts(rc, "MPI_Type_size", "MPI_ERR_TYPE", "datatype");
    rc = MPI_Type_extent(MPI_INT, NULL);
    CHECK_CLASS(rc, MPI_ERR_ARG);
    text_starts(rc, "MPI_Type_extent", "MPI_ERR_ARG", "extent=NULL");

    /* a handler of our own on MPI_COMM_SELF takes them from now on */
    MPI_Errhandler counter;
    CHECK_MPI(MPI_Comm_create_errhandler(count_fn, &counter));
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, counter));
    rc = MPI_Group_size(MPI_GROUP_NULL, &sz);
    CHECK_CLASS(rc, MPI_ERR_GROUP);
#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0 raises them on MPI_COMM_WORLD (the MPI 3.1 rule) */
    CHECK_INT(self_calls, 1);
    CHECK_INT(world_calls, 0);
    CHECK(last_comm == MPI_COMM_SELF, "the handler was called for another communicator");
#endif
    text_starts(rc, "MPI_Group_size", "MPI_ERR_GROUP", "group");
    /* an error on a communicator still goes to that communicator's handler */
    CHECK_MPI(MPI_Comm_set_errhandler(dup, counter));
    rc = MPI_Comm_split(dup, 0, me, NULL);
    CHECK_CLASS(rc, MPI_ERR_ARG);
    CHECK_INT(other_calls, 1);
    CHECK(last_comm == dup, "MPI_Comm_split's error went to another communicator");
    text_starts(rc, "MPI_Comm_split", "MPI_ERR_ARG", "newcomm=NULL");
    int one = 1;
    rc = MPI_Send(&one, 1, MPI_INT, 99999, 0, MPI_COMM_WORLD);   /* MPI_ERRORS_RETURN */
    CHECK_CLASS(rc, MPI_ERR_RANK);
    CHECK_INT(world_calls, 0);
    text_starts(rc, "MPI_Send", "MPI_ERR_RANK", "dest");
    /* a code handed on to MPI_Comm_call_errhandler keeps the call it came from */
    CHECK_MPI(MPI_Comm_call_errhandler(dup, rc));
    text_starts(rc, "MPI_Send", "MPI_ERR_RANK", "dest");
    CHECK_INT(other_calls, 2);
    /* and the communicator works */
    CHECK_MPI(MPI_Comm_split(dup, me % 2, me, &split));
    int n = 0, np = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    CHECK_MPI(MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, split));
    CHECK_INT(n, (np + 1 - me % 2) / 2);

    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    MPI_Errhandler_free(&counter);
    MPI_Comm_free(&split);
    MPI_Comm_free(&dup);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    rc = mt_finish("err_handler_rules");
    MPI_Finalize();
    return rc;
}
