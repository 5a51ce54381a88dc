/* SPDX-License-Identifier: MIT */
/* MPI under load: rank 0 starts one busy process per core (CPU hogs, killed at
 * the end and when the test dies), then the ranks run the patterns that a
 * waiting policy must survive on a node that is not quiet: ping-pong,
 * rendezvous exchanges, MPI_Waitany / MPI_Waitsome / MPI_Probe / MPI_Mprobe
 * loops, collectives, and a rank that computes for a while (its peers sleep
 * and must be woken).  Every datum is checked; the list's timeout catches a
 * hang.  Rank counts 2-4 on a 2-core machine, with the hogs.
 *
 * With the argument "idle" (the network variants), a last phase checks that
 * waiting sleeps: once the hogs are stopped (they would take the core of a
 * polling rank and hide it), rank 0 waits 2 s in MPI_Recv for the last rank,
 * which is on another (pretend) node, and the CPU time it used meanwhile
 * (getrusage) must stay under 0.5 s; the others wait in MPI_Barrier. */
#define _GNU_SOURCE
#include "mpitest.h"
#include "hogs.h"
#include <string.h>
#include <unistd.h>

/* Rank 0 waits 2 s in MPI_Recv for the last rank: it must sleep (see above). */
static void idle_wait_check(int rank, int size)
{
    int v = -1;
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == size - 1) {
        struct timespec ts = { 2, 0 };
        nanosleep(&ts, NULL);
        v = 271828;
        CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 6, MPI_COMM_WORLD));
    } else if (rank == 0) {
        double c0 = mt_cpu_seconds(), t0 = mt_now();
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, size - 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        double cpu = mt_cpu_seconds() - c0, wall = mt_now() - t0;
        CHECK_INT(v, 271828);
        CHECK(cpu < 0.5, "rank 0 used %.2f s of CPU waiting %.2f s in MPI_Recv (it polled)", cpu,
              wall);
        printf("load_hogs: waiting %.2f s in MPI_Recv used %.3f s of CPU\n", wall, cpu);
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    int idle = argc > 1 && strcmp(argv[1], "idle") == 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) start_hogs();
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = mt_now();
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* ping-pong between pairs (0-1, 2-3), 8 bytes */
    int partner = rank ^ 1;
    if (partner < size) {
        for (int i = 0; i < 300; i++) {
            long v[1] = { rank * 100000L + i }, w[1] = { -1 };
            if (rank % 2 == 0) {
                CHECK_MPI(MPI_Send(v, 1, MPI_LONG, partner, 1, MPI_COMM_WORLD));
                CHECK_MPI(MPI_Recv(w, 1, MPI_LONG, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            } else {
                CHECK_MPI(MPI_Recv(w, 1, MPI_LONG, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                CHECK_MPI(MPI_Send(v, 1, MPI_LONG, partner, 1, MPI_COMM_WORLD));
            }
            CHECK_INT(w[0], partner * 100000L + i);
        }
    }

    /* rendezvous around the ring */
    size_t n = 200000;
    unsigned char *sb = mt_malloc(n), *rb = mt_malloc(n);
    for (int i = 0; i < 10; i++) {
        mt_fill(sb, n, rank * 31 + i);
        CHECK_MPI(MPI_Sendrecv(sb, (int)n, MPI_BYTE, right, 2, rb, (int)n, MPI_BYTE, left, 2,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_PATTERN(rb, n, left * 31 + i);
    }

    /* Waitany and Waitsome: receive one message from every other rank */
    for (int round = 0; round < 20; round++) {
        int vals[16], got = 0, mine = rank * 1000 + round;
        MPI_Request rq[16];
        int peers = 0;
        for (int p = 0; p < size; p++)
            if (p != rank) {
                CHECK_MPI(MPI_Irecv(&vals[peers], 1, MPI_INT, p, 3, MPI_COMM_WORLD, &rq[peers]));
                peers++;
            }
        for (int p = 0; p < size; p++)
            if (p != rank) CHECK_MPI(MPI_Send(&mine, 1, MPI_INT, p, 3, MPI_COMM_WORLD));
        while (got < peers) {
            if (round % 2) {
                int idx;
                MPI_Status st;
                CHECK_MPI(MPI_Waitany(peers, rq, &idx, &st));
                CHECK_INT(vals[idx], st.MPI_SOURCE * 1000 + round);
                got++;
            } else {
                int out, idx[16];
                MPI_Status st[16];
                CHECK_MPI(MPI_Waitsome(peers, rq, &out, idx, st));
                for (int k = 0; k < out; k++) CHECK_INT(vals[idx[k]], st[k].MPI_SOURCE * 1000 + round);
                got += out;
            }
        }
    }

    /* Probe and Mprobe from the left neighbour, which first computes a while */
    for (int i = 0; i < 10; i++) {
        int v = rank * 10 + i, w = -1;
        if (i == 5 && rank == 0) {           /* a long computation: peers sleep */
            double t = mt_now();
            while (mt_now() - t < 0.05) { }
        }
        CHECK_MPI(MPI_Send(&v, 1, MPI_INT, right, 4, MPI_COMM_WORLD));
        MPI_Status st;
        if (i % 2) {
            CHECK_MPI(MPI_Probe(left, 4, MPI_COMM_WORLD, &st));
            CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, left, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        } else {
            MPI_Message m;
            CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &m, &st));
            CHECK_MPI(MPI_Mrecv(&w, 1, MPI_INT, &m, MPI_STATUS_IGNORE));
        }
        CHECK_INT(w, left * 10 + i);
    }

    /* collectives, blocking and not */
    for (int i = 0; i < 50; i++) {
        long v = rank + i, sum = 0, b = rank == i % size ? 777 + i : 0;
        CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
        CHECK_INT(sum, (long)size * (size - 1) / 2 + (long)size * i);
        CHECK_MPI(MPI_Bcast(&b, 1, MPI_LONG, i % size, MPI_COMM_WORLD));
        CHECK_INT(b, 777 + i);
        MPI_Request r;
        CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }

    /* a rank that computes while another blocks in MPI_Recv (sleeps, is woken) */
    if (size > 1) {
        int v = 0;
        if (rank == 1) {
            double t = mt_now();
            while (mt_now() - t < 0.1) { }
            v = 4242;
            CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD));
        } else if (rank == 0) {
            CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_INT(v, 4242);
        }
    }
    free(sb);
    free(rb);
    double t = mt_now() - t0;
    if (rank == 0) {
        printf("load_hogs: %d ranks beside %d hogs: %.2f s\n", size, nhogs, t);
        stop_hogs();
    }
    if (idle && size > 1) idle_wait_check(rank, size);
    int rc = mt_finish("load_hogs");
    MPI_Finalize();
    return rc;
}
