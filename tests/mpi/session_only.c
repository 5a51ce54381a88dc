/* SPDX-License-Identifier: MIT */
/* The sessions model alone, without MPI_Init: process sets (mpi://WORLD,
 * mpi://SELF, mpix://SHARED) and their info, groups and communicators made
 * from them (MPI_Comm_create_from_group, MPI_Intercomm_create_from_groups),
 * traffic on them, the session's info and error handler, and sessions
 * initialised and finalised several times over.  MPI_Initialized stays false
 * throughout: the world model is never started.  The result is agreed on a
 * communicator made from mpi://WORLD (mpitest.h's mt_finish needs the world
 * model). */
#include "mpitest.h"
#include <strings.h>

static int session_errors, session_last;
static MPI_Session session_seen;
static void session_eh(MPI_Session *s, int *code, ...)
{
    session_errors++;
    session_last = *code;
    session_seen = *s;
}

/* One round: a session, its process sets, communicators from them. */
static void round_trip(int round, int *wrank_out, int *wsize_out)
{
    MPI_Session s;
    MPI_Info sinfo, got;
    char v[64];
    int flag, n = -1, len;
    MPI_Info_create(&sinfo);
    MPI_Info_set(sinfo, "thread_level", "MPI_THREAD_MULTIPLE");
    CHECK_MPI(MPI_Session_init(sinfo, MPI_ERRORS_RETURN, &s));
    MPI_Info_free(&sinfo);
    CHECK_MPI(MPI_Session_get_info(s, &got));
    CHECK_MPI(MPI_Info_get(got, "thread_level", sizeof v - 1, v, &flag));
    CHECK(flag && (strcmp(v, "MPI_THREAD_SERIALIZED") == 0 || strcmp(v, "MPI_THREAD_MULTIPLE") == 0),
          "thread_level %s", flag ? v : "(none)");
    MPI_Info_free(&got);

    /* the process sets */
    CHECK_MPI(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n));
    CHECK(n >= 2, "%d process sets", n);
    int have_world = 0, have_self = 0, world_size = -1;
    for (int i = 0; i < n; i++) {
        char name[MPI_MAX_PSET_NAME_LEN];
        len = 0;
        CHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL));
        CHECK(len > 1 && len <= MPI_MAX_PSET_NAME_LEN, "pset %d: length %d", i, len);
        CHECK_MPI(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name));
        CHECK_INT((int)strlen(name) + 1, len);
        MPI_Info pi;
        CHECK_MPI(MPI_Session_get_pset_info(s, name, &pi));
        CHECK_MPI(MPI_Info_get(pi, "mpi_size", sizeof v - 1, v, &flag));
        CHECK(flag && atoi(v) > 0, "pset %s: mpi_size %s", name, flag ? v : "(none)");
        int psize = flag ? atoi(v) : -1;
        MPI_Info_free(&pi);
        MPI_Group g;
        CHECK_MPI(MPI_Group_from_session_pset(s, name, &g));
        int gs = -1, gr = -1;
        MPI_Group_size(g, &gs);
        MPI_Group_rank(g, &gr);
        CHECK(gs == psize && gr >= 0 && gr < gs, "pset %s: group size %d rank %d", name, gs, gr);
        if (strcasecmp(name, "mpi://WORLD") == 0) {
            have_world = 1;
            world_size = gs;
        }
        if (strcasecmp(name, "mpi://SELF") == 0) {
            have_self = 1;
            CHECK_INT(gs, 1);
        }
        MPI_Group_free(&g);
    }
    CHECK(have_world && have_self, "mpi://WORLD %d, mpi://SELF %d", have_world, have_self);
#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0 aborts here, although the session's handler is MPI_ERRORS_RETURN */
    MPI_Group bad;
    CHECK(MPI_Group_from_session_pset(s, "mpi://NOSUCH", &bad) != MPI_SUCCESS, "an unknown pset");
#endif

    /* a communicator from mpi://WORLD */
    MPI_Group wg;
    MPI_Comm wc;
    CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://WORLD", &wg));
    CHECK_MPI(MPI_Comm_create_from_group(wg, "org.courier.test.world", MPI_INFO_NULL,
                                         MPI_ERRORS_RETURN, &wc));
    int wrank, wsize;
    MPI_Comm_rank(wc, &wrank);
    MPI_Comm_size(wc, &wsize);
    CHECK_INT(wsize, world_size);
    int sum = -1;
    CHECK_MPI(MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, wc));
    CHECK_INT(sum, wsize * (wsize - 1) / 2);
    /* a ring of messages */
    if (wsize > 1) {
        int out = 100 * round + wrank, in = -1;
        CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, (wrank + 1) % wsize, 1, &in, 1, MPI_INT,
                               (wrank + wsize - 1) % wsize, 1, wc, MPI_STATUS_IGNORE));
        CHECK_INT(in, 100 * round + (wrank + wsize - 1) % wsize);
    }
    /* a second one with another tag is another communicator */
    MPI_Comm wc2;
    CHECK_MPI(MPI_Comm_create_from_group(wg, "org.courier.test.world2", MPI_INFO_NULL,
                                         MPI_ERRORS_RETURN, &wc2));
    int cmp;
    MPI_Comm_compare(wc, wc2, &cmp);
    CHECK_INT(cmp, MPI_CONGRUENT);
    MPI_Comm_free(&wc2);

    /* self */
    MPI_Group sg;
    MPI_Comm sc;
    CHECK_MPI(MPI_Group_from_session_pset(s, "mpi://SELF", &sg));
    CHECK_MPI(MPI_Comm_create_from_group(sg, "org.courier.test.self", MPI_INFO_NULL,
                                         MPI_ERRORS_RETURN, &sc));
    int ss = -1;
    MPI_Comm_size(sc, &ss);
    CHECK_INT(ss, 1);
    MPI_Comm_free(&sc);
    MPI_Group_free(&sg);

    /* an intercommunicator between the even and the odd processes */
    if (wsize > 1) {
        MPI_Group even, odd;
        int ranges[1][3] = { { 0, wsize - 1, 2 } };
        MPI_Group_range_incl(wg, 1, ranges, &even);
        MPI_Group_difference(wg, even, &odd);
        MPI_Comm ic;
        MPI_Group mine = wrank % 2 ? odd : even, other = wrank % 2 ? even : odd;
        CHECK_MPI(MPI_Intercomm_create_from_groups(mine, 0, other, 0, "org.courier.test.ic",
                                                   MPI_INFO_NULL, MPI_ERRORS_RETURN, &ic));
        int rsize = -1, lrank = -1;
        MPI_Comm_remote_size(ic, &rsize);
        MPI_Comm_rank(ic, &lrank);
        CHECK_INT(rsize, wrank % 2 ? (wsize + 1) / 2 : wsize / 2);
        CHECK_INT(lrank, wrank / 2);
        int one = 1, total = -1;
        CHECK_MPI(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, ic));
        CHECK_INT(total, rsize);
        MPI_Comm_free(&ic);
        MPI_Group_free(&even);
        MPI_Group_free(&odd);
    }

    /* the session's error handler */
    MPI_Errhandler eh, cur;
    CHECK_MPI(MPI_Session_create_errhandler(session_eh, &eh));
    CHECK_MPI(MPI_Session_set_errhandler(s, eh));
    CHECK_MPI(MPI_Session_get_errhandler(s, &cur));
    CHECK(cur == eh, "Session_get_errhandler: 0x%x, set 0x%x", (unsigned)cur, (unsigned)eh);
    MPI_Errhandler_free(&cur);
    session_errors = 0;
    CHECK_MPI(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    CHECK(session_errors == 1 && session_last == MPI_ERR_OTHER && session_seen == s,
          "session handler: %d calls", session_errors);
#ifndef MT_REFERENCE_MPICH   /* MPICH 4.0 aborts instead of calling the session's handler */
    int bogus;
    int rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 999, &bogus, NULL);
    CHECK_CLASS(rc, MPI_ERR_ARG);
    CHECK_INT(session_errors, 2);
#endif
    MPI_Errhandler_free(&eh);
    CHECK_MPI(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));

    int init = 1;
    MPI_Initialized(&init);
    CHECK(!init, "MPI_Initialized is true in the sessions model");
    *wrank_out = wrank;
    *wsize_out = wsize;
    MPI_Comm_free(&wc);
    MPI_Group_free(&wg);
    CHECK_MPI(MPI_Session_finalize(&s));
    CHECK(s == MPI_SESSION_NULL, "MPI_Session_finalize did not null the handle");
}

int main(void)
{
    int wrank = -1, wsize = -1;
#ifdef MT_REFERENCE_MPICH
    /* MPICH 4.0 crashes starting a session after its last one ended: keep
     * one open throughout */
    MPI_Session keep;
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &keep);
#endif
    for (int round = 0; round < 3; round++) round_trip(round, &wrank, &wsize);

    /* agree on the result in one more session */
    MPI_Session s;
    MPI_Group g;
    MPI_Comm c;
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &s);
    MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
    MPI_Comm_create_from_group(g, "org.courier.test.result", MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &c);
    int total = 0;
    MPI_Allreduce(&mt_errors_, &total, 1, MPI_INT, MPI_SUM, c);
    if (wrank == 0) {
        if (total == 0) printf("PASS session_only (np=%d)\n", wsize);
        else printf("FAIL session_only (np=%d): %d failed checks\n", wsize, total);
        fflush(stdout);
    }
    MPI_Comm_free(&c);
    MPI_Group_free(&g);
    MPI_Session_finalize(&s);
#ifdef MT_REFERENCE_MPICH
    MPI_Session_finalize(&keep);
#endif
    int init = 1, fin = 1;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init || fin) {
        printf("FAIL rank %d: MPI_Initialized %d, MPI_Finalized %d\n", wrank, init, fin);
        return 1;
    }
    return total == 0 ? 0 : 1;
}
