/* SPDX-License-Identifier: MIT */
/* Asynchronous progress (COURIER_ASYNC_PROGRESS=1, docs/threads.md): rank 1
 * posts a receive of a rendezvous-sized message, rank 0 sends it with
 * MPI_Isend, and rank 1 then computes without calling MPI, watching its
 * receive buffer: the data must land while it computes (only a progress
 * thread can move it: the rendezvous needs the receiver to answer; rank 0
 * sends 200 ms after the barrier, when rank 1 is surely computing).  Then
 * both wait and every byte is checked.  Other ranks only take part in the
 * barriers.  Run under MPICH with MPIR_CVAR_ASYNC_PROGRESS=1 it passes too. */
#include "mpitest.h"
#include <time.h>

#define BYTES (4u << 20)
#define LIMIT_S 10.0

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mt_rank();
    if (size < 2) {
        int rc = mt_finish("thr_async");
        MPI_Finalize();
        return rc;
    }
    unsigned char *buf = mt_malloc(BYTES);
    MPI_Request rq = MPI_REQUEST_NULL;
    if (rank == 0) mt_fill(buf, BYTES, 42);
    if (rank == 1) {
        memset(buf, 0, BYTES);
        CHECK_MPI(MPI_Irecv(buf, BYTES, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &rq));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
        /* send only once rank 1 surely computes (left the barrier's polls) */
        struct timespec pause = { 0, 200 * 1000 * 1000 };
        nanosleep(&pause, NULL);
        CHECK_MPI(MPI_Isend(buf, BYTES, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &rq));
    }
    if (rank == 1) {
        /* compute: no MPI call until the first and last bytes are there (or
         * the limit); the sender may put the second half itself (split
         * copy), the first half only the receiver's side can fetch */
        volatile unsigned char *head = buf, *tail = buf + BYTES - 64;
        unsigned char want_head[64], want[64];
        for (int i = 0; i < 64; i++) {
            want_head[i] = mt_pattern(42, (size_t)i);
            want[i] = mt_pattern(42, BYTES - 64 + (size_t)i);
        }
        double t0 = now(), spent = 0;
        int arrived = 0;
        double x = 1.0;
        while (!arrived && (spent = now() - t0) < LIMIT_S) {
            for (int k = 0; k < 10000; k++) x = x * 1.0000001 + 1e-9;   /* "work" */
            arrived = 1;
            for (int i = 0; i < 64 && arrived; i++)
                arrived = tail[i] == want[i] && head[i] == want_head[i];
        }
        CHECK(arrived, "the message did not arrive in %.0f s of computing (x=%g)", LIMIT_S, x);
        if (arrived) printf("rank 1: the 4 MiB message arrived after %.3f ms of computing\n",
                            spent * 1e3);
    }
    MPI_Status st;
    CHECK_MPI(MPI_Wait(&rq, &st));
    if (rank == 1) {
        int count = -1;
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK_INT(count, BYTES);
        CHECK_PATTERN(buf, BYTES, 42);
    }
    free(buf);
    int rc = mt_finish("thr_async");
    MPI_Finalize();
    return rc;
}
