/* SPDX-License-Identifier: MIT */
/* The crash test's MPI program: every rank takes part in a few barriers and a
 * ring exchange (data checked), then rank VICTIM kills itself with signal SIG
 * while the others wait for it: in MPI_Recv from it (its neighbours) or in
 * MPI_Barrier.  The job must end by itself, with a non-zero status and a
 * message naming the rank.  Usage: crash VICTIM SIG
 * Prints "ready" lines on stdout and, on the victim, "dying <rank> <signal>
 * <time in ms since the epoch>" just before the kill, so the test can time
 * how long the launcher and the survivors take to notice.
 * VICTIM -1: nobody dies, every rank waits for a message that never comes
 * (the test then takes the launcher away). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: crash VICTIM SIGNAL\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int victim = atoi(argv[1]), sig = atoi(argv[2]);
    if (victim >= size) victim %= size;
    /* Some real traffic first: a ring of integers, checked. */
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
    for (int round = 0; round < 3; round++) {
        MPI_Sendrecv(&rank, 1, MPI_INT, right, round, &got, 1, MPI_INT, left, round,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (got != left) {
            printf("UNEXPECTED rank %d got %d from %d\n", rank, got, left);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    printf("ready %d %d\n", rank, (int)getpid());
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    if (victim < 0) {
        MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("UNEXPECTED rank %d: a message arrived\n", rank);
        MPI_Finalize();
        return 1;
    }
    if (rank == victim) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        printf("dying %d %d %lld\n", rank, sig, (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
        fflush(stdout);
        usleep(100000);   /* the others are waiting by now */
        raise(sig);       /* Courier's crash report, if installed, prints first */
        kill(getpid(), SIGKILL);
    }
    if (right == victim || left == victim) {
        MPI_Recv(&got, 1, MPI_INT, victim, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    printf("UNEXPECTED rank %d: the wait on dead rank %d completed\n", rank, victim);
    MPI_Finalize();
    return 0;
}
