/* SPDX-License-Identifier: MIT */
/* Sessions inside an MPI_THREAD_MULTIPLE program (as MPICH's
 * threads/init/mult_session): after MPI_Init_thread, T threads per rank
 * each start a session of their own without a thread_level key, at once;
 * the session must report MPI_THREAD_MULTIPLE (the runtime runs with its
 * locks on: a stronger level than the default, which the standard allows,
 * and the one a library's session in such a program needs).  Each thread
 * then makes a group from mpi://WORLD or mpi://SELF (alternating by
 * thread), a communicator from it with a string tag naming the thread, and
 * checks it: size, rank, an allreduce whose sum names the thread and the
 * round, and a ring of values; then frees the group, the communicator and
 * the session, ROUNDS times.  Meanwhile the main thread runs allreduces on
 * MPI_COMM_WORLD.  Argument: T (default 3). */
#include "mpitest.h"
#include <pthread.h>

#define MAXT 4
#define ROUNDS 4

static int rank, size, nthreads;

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    int world = t % 2 == 0;
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Session s = MPI_SESSION_NULL;
        CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
        MPI_Info info = MPI_INFO_NULL;
        CHECK_MPI(MPI_Session_get_info(s, &info));
        char v[MPI_MAX_INFO_VAL + 1] = "";
        int flag = 0;
        CHECK_MPI(MPI_Info_get(info, "thread_level", MPI_MAX_INFO_VAL, v, &flag));
        CHECK(flag && strcmp(v, "MPI_THREAD_MULTIPLE") == 0, "thread %d: the session's "
              "thread_level is %s", t, flag ? v : "(none)");
        CHECK_MPI(MPI_Info_free(&info));

        MPI_Group g = MPI_GROUP_NULL;
        CHECK_MPI(MPI_Group_from_session_pset(s, world ? "mpi://WORLD" : "mpi://SELF", &g));
        char tag[32];
        snprintf(tag, sizeof tag, "thr_session %d", t);
        MPI_Comm c = MPI_COMM_NULL;
        CHECK_MPI(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
        CHECK_MPI(MPI_Group_free(&g));
        int n = -1, me = -1;
        MPI_Comm_size(c, &n);
        MPI_Comm_rank(c, &me);
        CHECK_INT(n, world ? size : 1);
        CHECK_INT(me, world ? rank : 0);

        long val = (long)me * 1000 + t * 10 + i, sum = -1;
        CHECK_MPI(MPI_Allreduce(&val, &sum, 1, MPI_LONG, MPI_SUM, c));
        CHECK(sum == 1000L * n * (n - 1) / 2 + (long)n * (t * 10 + i),
              "thread %d round %d: allreduce gave %ld", t, i, sum);
        int to = (me + 1) % n, from = (me + n - 1) % n, got = -1, mine = me * 100 + t * 10 + i;
        CHECK_MPI(MPI_Sendrecv(&mine, 1, MPI_INT, to, t, &got, 1, MPI_INT, from, t, c,
                               MPI_STATUS_IGNORE));
        CHECK_INT(got, from * 100 + t * 10 + i);

        CHECK_MPI(MPI_Comm_free(&c));
        CHECK_MPI(MPI_Session_finalize(&s));
        CHECK(s == MPI_SESSION_NULL, "thread %d: session handle not reset", t);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = mt_init_multiple(&argc, &argv, &rank, &size, 1, MAXT, 3);
    pthread_t th[MAXT];
    for (int t = 0; t < nthreads; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int i = 0; i < 3 * ROUNDS; i++) {
        int one = 1, all = 0;
        CHECK_MPI(MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        CHECK_INT(all, size);
    }
    for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
    int provided = -1;
    CHECK_MPI(MPI_Query_thread(&provided));
    CHECK_INT(provided, MPI_THREAD_MULTIPLE);
    int rc = mt_finish("thr_session");
    MPI_Finalize();
    return rc;
}
