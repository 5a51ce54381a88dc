/* SPDX-License-Identifier: MIT */
/* Every family of waiting calls goes through the waiting policy (issue 18):
 * for each family, rank 0 waits about WAIT_S seconds for a message that the
 * last rank sends after sleeping (nanosleep: it uses no CPU), and the CPU
 * time rank 0 used meanwhile (getrusage, as load_hogs measures it) must stay
 * under MAX_CPU_FRACTION of the wait: a waiter that polls without yielding
 * and sleeping burns the whole wait.  The families: MPI_Recv, MPI_Wait,
 * MPI_Waitany, MPI_Waitsome, MPI_Waitall, loops of MPI_Test, MPI_Testany,
 * MPI_Testsome and MPI_Testall, MPI_Probe, a loop of MPI_Iprobe, MPI_Mprobe,
 * a loop of MPI_Improbe, MPI_Barrier and MPI_Wait on an MPI_Ibarrier.  The
 * other ranks wait in MPI_Barrier meanwhile.  Every message is checked.
 * With the argument "hogs", rank 0 starts one busy process per core first (a
 * polling waiter then still takes a share of a core, far above the limit).
 * Rank counts 2-4 on a 2-core machine.  Against MPICH (validate_with_mpich.sh)
 * only the messages are checked: its waits poll. */
#define _GNU_SOURCE
#include "mpitest.h"
#include "hogs.h"
#include <string.h>

#define WAIT_S 0.5
#define MAX_CPU_FRACTION 0.3

enum { W_RECV, W_WAIT, W_WAITANY, W_WAITSOME, W_WAITALL, W_TEST, W_TESTANY, W_TESTSOME,
       W_TESTALL, W_PROBE, W_IPROBE, W_MPROBE, W_IMPROBE, W_BARRIER, W_IBARRIER, NFAM };
static const char *const fam_name[NFAM] = {
    "MPI_Recv", "MPI_Wait", "MPI_Waitany", "MPI_Waitsome", "MPI_Waitall", "MPI_Test loop",
    "MPI_Testany loop", "MPI_Testsome loop", "MPI_Testall loop", "MPI_Probe",
    "MPI_Iprobe loop", "MPI_Mprobe", "MPI_Improbe loop", "MPI_Barrier", "MPI_Ibarrier+Wait" };

/* Rank 0's side: wait for value v (tag t) from src with family f. */
static void wait_with(int f, int src, int t, int *v)
{
    MPI_Request rq[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
    MPI_Status st;
    MPI_Message m;
    int flag = 0, idx = -1, out = 0, ids[2];
    switch (f) {
    case W_RECV:
        CHECK_MPI(MPI_Recv(v, 1, MPI_INT, src, t, MPI_COMM_WORLD, &st));
        return;
    case W_PROBE:
        CHECK_MPI(MPI_Probe(src, t, MPI_COMM_WORLD, &st));
        CHECK_INT(st.MPI_SOURCE, src);
        CHECK_MPI(MPI_Recv(v, 1, MPI_INT, src, t, MPI_COMM_WORLD, &st));
        return;
    case W_IPROBE:
        while (!flag) CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, t, MPI_COMM_WORLD, &flag, &st));
        CHECK_INT(st.MPI_SOURCE, src);
        CHECK_MPI(MPI_Recv(v, 1, MPI_INT, src, t, MPI_COMM_WORLD, &st));
        return;
    case W_MPROBE:
        CHECK_MPI(MPI_Mprobe(src, t, MPI_COMM_WORLD, &m, &st));
        CHECK_MPI(MPI_Mrecv(v, 1, MPI_INT, &m, &st));
        return;
    case W_IMPROBE:
        while (!flag) CHECK_MPI(MPI_Improbe(src, t, MPI_COMM_WORLD, &flag, &m, &st));
        CHECK_MPI(MPI_Mrecv(v, 1, MPI_INT, &m, &st));
        return;
    default:
        break;
    }
    /* the request families: slot 1 holds the receive (slot 0 stays null) */
    CHECK_MPI(MPI_Irecv(v, 1, MPI_INT, src, t, MPI_COMM_WORLD, &rq[1]));
    switch (f) {
    case W_WAIT:
        CHECK_MPI(MPI_Wait(&rq[1], &st));
        break;
    case W_WAITANY:
        CHECK_MPI(MPI_Waitany(2, rq, &idx, &st));
        CHECK_INT(idx, 1);
        break;
    case W_WAITSOME:
        CHECK_MPI(MPI_Waitsome(2, rq, &out, ids, MPI_STATUSES_IGNORE));
        CHECK(out == 1 && ids[0] == 1, "MPI_Waitsome gave %d requests", out);
        break;
    case W_WAITALL:
        CHECK_MPI(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        break;
    case W_TEST:
        while (!flag) CHECK_MPI(MPI_Test(&rq[1], &flag, &st));
        break;
    case W_TESTANY:
        while (!flag) CHECK_MPI(MPI_Testany(2, rq, &idx, &flag, &st));
        CHECK_INT(idx, 1);
        break;
    case W_TESTSOME:
        while (out == 0) CHECK_MPI(MPI_Testsome(2, rq, &out, ids, MPI_STATUSES_IGNORE));
        CHECK(out == 1 && ids[0] == 1, "MPI_Testsome gave %d requests", out);
        break;
    case W_TESTALL:
        while (!flag) CHECK_MPI(MPI_Testall(2, rq, &flag, MPI_STATUSES_IGNORE));
        break;
    default:
        break;
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int hog = argc > 1 && strcmp(argv[1], "hogs") == 0;
    if (size < 2) {
        mt_finish("load_wait");
        MPI_Finalize();
        return 0;
    }
    if (hog && rank == 0) start_hogs();
    int last = size - 1;
    for (int f = 0; f < NFAM; f++) {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        int v = -1;
        if (rank == last) {
            struct timespec ts = { 0, (long)(WAIT_S * 1e9) };
            nanosleep(&ts, NULL);
            v = 1000 + f;
            if (f == W_BARRIER) {
                CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            } else if (f == W_IBARRIER) {
                MPI_Request r;
                CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &r));
                CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
            } else {
                CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 10 + f, MPI_COMM_WORLD));
            }
        } else if (rank == 0) {
            double c0 = mt_cpu_seconds(), t0 = mt_now();
            if (f == W_BARRIER) {
                CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
            } else if (f == W_IBARRIER) {
                MPI_Request r;
                CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &r));
                CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
            } else {
                wait_with(f, last, 10 + f, &v);
                CHECK_INT(v, 1000 + f);
            }
            double cpu = mt_cpu_seconds() - c0, wall = mt_now() - t0;
#ifndef MT_REFERENCE_MPICH    /* MPICH polls in these waits: only the data is checked there */
            CHECK(cpu < MAX_CPU_FRACTION * WAIT_S,
                  "%s: waiting %.2f s used %.3f s of CPU (it polled)", fam_name[f], wall, cpu);
#endif
            printf("load_wait: %-18s waited %.2f s, %.3f s of CPU\n", fam_name[f], wall, cpu);
        } else if (f == W_BARRIER) {
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        } else if (f == W_IBARRIER) {
            MPI_Request r;
            CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &r));
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        }
    }
    if (hog && rank == 0) stop_hogs();
    int rc = mt_finish("load_wait");
    MPI_Finalize();
    return rc;
}
