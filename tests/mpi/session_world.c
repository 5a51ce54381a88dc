/* SPDX-License-Identifier: MIT */
/* Sessions and the world model in one program: a session started before
 * MPI_Init, the world model started and finalized while sessions live, the
 * session's communicators working before, during and after the world model
 * (their traffic apart from MPI_COMM_WORLD's), MPI_Initialized / MPI_Finalized
 * telling the world model's state only, and the process ending after
 * MPI_Finalize with a session finalized later.  With the argument "multiple"
 * MPI_Init_thread asks for MPI_THREAD_MULTIPLE: Courier started its runtime
 * without the thread locks for the first session, so it provides
 * MPI_THREAD_SERIALIZED there (docs/threads.md), and MPI_Query_thread agrees. */
#include "mpitest.h"

static MPI_Comm world_of(MPI_Session s, const char *tag)
{
    MPI_Group g;
    MPI_Comm c = MPI_COMM_NULL;
    CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    CHECK_MPI(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    MPI_Group_free(&g);
    return c;
}

static int sum_of_ranks(MPI_Comm c)
{
    int r, s = -1;
    MPI_Comm_rank(c, &r);
    MPI_Allreduce(&r, &s, 1, MPI_INT, MPI_SUM, c);
    return s;
}

int main(int argc, char **argv)
{
    int init = -1, fin = -1;
    MPI_Session s1, s2;
    CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s1));
    MPI_Initialized(&init);
    CHECK(init == 0, "MPI_Initialized %d before MPI_Init", init);
    MPI_Comm c1 = world_of(s1, "org.courier.test.before");
    int n1;
    MPI_Comm_size(c1, &n1);
    CHECK_INT(sum_of_ranks(c1), n1 * (n1 - 1) / 2);

    int provided = -1, q = -1;
    int multiple = argc > 1 && !strcmp(argv[1], "multiple");
    int required = multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED;
    CHECK_MPI(MPI_Init_thread(&argc, &argv, required, &provided));
#ifdef MT_REFERENCE_MPICH
    CHECK(provided >= MPI_THREAD_FUNNELED, "provided %d < MPI_THREAD_FUNNELED", provided);
#else
    CHECK_INT(provided, multiple ? MPI_THREAD_SERIALIZED : MPI_THREAD_FUNNELED);
#endif
    MPI_Query_thread(&q);
    CHECK_INT(q, provided);
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    CHECK(init == 1 && fin == 0, "after MPI_Init: initialized %d, finalized %d", init, fin);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_INT(n1, size);

    /* the session's world group is MPI_COMM_WORLD's */
    MPI_Group g1, gw;
    MPI_Comm_group(c1, &g1);
    MPI_Comm_group(MPI_COMM_WORLD, &gw);
    int cmp;
    MPI_Group_compare(g1, gw, &cmp);
    CHECK_INT(cmp, MPI_IDENT);
    MPI_Group_free(&g1);
    MPI_Group_free(&gw);

    /* traffic on both, the same tags, apart */
    CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2));
    MPI_Comm c2 = world_of(s2, "org.courier.test.during");
    if (size > 1) {
        int to = (rank + 1) % size, from = (rank + size - 1) % size;
        int a = 10 + rank, b = 20 + rank, c = 30 + rank, ra = -1, rb = -1, rc = -1;
        MPI_Request q[3];
        MPI_Irecv(&rc, 1, MPI_INT, from, 4, c2, &q[0]);
        MPI_Irecv(&rb, 1, MPI_INT, from, 4, c1, &q[1]);
        MPI_Irecv(&ra, 1, MPI_INT, from, 4, MPI_COMM_WORLD, &q[2]);
        MPI_Send(&a, 1, MPI_INT, to, 4, MPI_COMM_WORLD);
        MPI_Send(&b, 1, MPI_INT, to, 4, c1);
        MPI_Send(&c, 1, MPI_INT, to, 4, c2);
        MPI_Waitall(3, q, MPI_STATUSES_IGNORE);
        CHECK(ra == 10 + from && rb == 20 + from && rc == 30 + from, "got %d %d %d", ra, rb, rc);
    }
    int rcode = mt_finish("session_world");
    CHECK_MPI(MPI_Finalize());
    MPI_Finalized(&fin);
    CHECK(fin == 1, "MPI_Finalized %d after MPI_Finalize", fin);

    /* the sessions outlive the world model */
    int s = sum_of_ranks(c2);
    CHECK_INT(s, size * (size - 1) / 2);
    MPI_Comm_free(&c2);
    CHECK_MPI(MPI_Session_finalize(&s2));
    s = sum_of_ranks(c1);
    CHECK_INT(s, size * (size - 1) / 2);
    MPI_Comm_free(&c1);
    CHECK_MPI(MPI_Session_finalize(&s1));
    if (mt_errors_) {
        printf("FAIL session_world after MPI_Finalize: rank %d, %d failed checks\n", rank, mt_errors_);
        return 1;
    }
    return rcode;
}
