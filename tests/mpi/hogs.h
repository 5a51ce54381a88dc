/* SPDX-License-Identifier: MIT */
/* CPU hogs for the load tests (tests/mpi/load.list): start_hogs() forks one
 * busy process per core (at most MAX_HOGS; each dies with its parent, and
 * after 300 s at the latest), stop_hogs() kills and reaps them.  Rank 0 of a
 * test starts them after MPI_Init and stops them before MPI_Finalize.
 * Include after mpitest.h, with _GNU_SOURCE defined. */
#ifndef COURIER_TEST_HOGS_H
#define COURIER_TEST_HOGS_H
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_HOGS 8
static pid_t hogs[MAX_HOGS];
static int nhogs;

static void start_hogs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    nhogs = n < 1 ? 1 : n > MAX_HOGS ? MAX_HOGS : (int)n;
    for (int i = 0; i < nhogs; i++) {
        pid_t p = fork();
        if (p == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
            alarm(300);
            close(0);            /* keep no stdio pipe of mpiexec open */
            close(1);
            close(2);
            volatile unsigned long x = 0;
            for (;;) x++;
        }
        hogs[i] = p;
    }
}

static void stop_hogs(void)
{
    for (int i = 0; i < nhogs; i++)
        if (hogs[i] > 0) {
            kill(hogs[i], SIGKILL);
            waitpid(hogs[i], NULL, 0);
        }
}
#endif
