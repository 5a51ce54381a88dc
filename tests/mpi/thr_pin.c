/* SPDX-License-Identifier: MIT */
/* Where the progress thread runs (COURIER_ASYNC_PROGRESS=1, docs/threads.md):
 * finds the thread named "cr_progress" in /proc/self/task, reads its
 * Cpus_allowed_list and the main thread's, and those of a thread the program
 * starts after MPI_Init (a compute thread), and checks them against what
 * mpiexec gave the rank (COURIER_PROGRESS_CPUS) and the argument:
 *   own      the progress thread has CPUs of its own, which neither the main
 *            thread nor the compute thread may use (a spare core or hwthread);
 *   shared   it shares the rank's CPUs (no spare one);
 *   auto     (default) whichever of the above, or, without binding, it runs
 *            where the main thread does.
 * Prints "rank R main=X progress=Y compute=Z" for the launcher test. */
#define _GNU_SOURCE
#include "mpitest.h"
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Cpus_allowed_list of thread tid into list; 0, or -1 when unreadable. */
static int cpus_of(long tid, char *list, size_t len)
{
    char path[128], line[512];
    snprintf(path, sizeof path, "/proc/self/task/%ld/status", tid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    int rc = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "Cpus_allowed_list:", 18)) {
            char *v = line + 18;
            while (*v == ' ' || *v == '\t') v++;
            v[strcspn(v, "\n")] = '\0';
            snprintf(list, len, "%s", v);
            rc = 0;
        }
    fclose(f);
    return rc;
}

/* The thread id of the thread named name, or -1. */
static long find_thread(const char *name)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    long found = -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[300], comm[64] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        if (fgets(comm, sizeof comm, f)) comm[strcspn(comm, "\n")] = '\0';
        fclose(f);
        if (!strcmp(comm, name)) found = atol(e->d_name);
    }
    closedir(d);
    return found;
}

/* "0-2,5" -> set; 0, or -1 when malformed. */
static int parse_list(const char *s, cpu_set_t *set)
{
    CPU_ZERO(set);
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s || a < 0 || a >= CPU_SETSIZE) return -1;
        if (*end == '-') {
            s = end + 1;
            b = strtol(s, &end, 10);
            if (end == s || b < a || b >= CPU_SETSIZE) return -1;
        }
        for (long c = a; c <= b; c++) CPU_SET((int)c, set);
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return -1;
    }
    return 0;
}

static char compute[512];
static void *compute_main(void *arg)
{
    (void)arg;
    if (cpus_of(syscall(SYS_gettid), compute, sizeof compute) < 0) compute[0] = '\0';
    return NULL;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *mode = argc > 1 ? argv[1] : "auto";
    const char *given = getenv("COURIER_PROGRESS_CPUS");
    char mainl[512] = "", progl[512] = "";
    long ptid = find_thread("cr_progress");
    CHECK(ptid > 0, "no progress thread (\"cr_progress\") with COURIER_ASYNC_PROGRESS=%s",
          getenv("COURIER_ASYNC_PROGRESS") ? getenv("COURIER_ASYNC_PROGRESS") : "(unset)");
    CHECK(cpus_of(getpid(), mainl, sizeof mainl) == 0, "cannot read the main thread's status");
    if (ptid > 0) CHECK(cpus_of(ptid, progl, sizeof progl) == 0, "cannot read the progress thread's status");
    pthread_t th;
    pthread_create(&th, NULL, compute_main, NULL);
    pthread_join(th, NULL);
    printf("rank %d main=%s progress=%s compute=%s given=%s\n", rank, mainl, progl, compute,
           given ? given : "unset");
    fflush(stdout);

    cpu_set_t m, p, c, both;
    CHECK(parse_list(mainl, &m) == 0 && parse_list(progl, &p) == 0 && parse_list(compute, &c) == 0,
          "unreadable lists: main=%s progress=%s compute=%s", mainl, progl, compute);
    CPU_AND(&both, &m, &p);
    int disjoint = CPU_COUNT(&both) == 0, same = CPU_EQUAL(&m, &p);
    CHECK(CPU_EQUAL(&c, &m), "a compute thread runs on %s, the main thread on %s", compute, mainl);
    if (given) {
        cpu_set_t g;
        CHECK(parse_list(given, &g) == 0 && CPU_EQUAL(&g, &p),
              "progress thread on %s, mpiexec gave it %s", progl, given);
    }
    if (!strcmp(mode, "own"))
        CHECK(given && disjoint, "progress thread on %s, main thread on %s: want CPUs of its own",
              progl, mainl);
    else if (!strcmp(mode, "shared"))
        CHECK(given && same, "progress thread on %s, main thread on %s: want them shared", progl,
              mainl);
    else
        CHECK(given ? disjoint || same : same, "progress thread on %s, main thread on %s (%s)",
              progl, mainl, given ? given : "not bound");
    int rc = mt_finish("thr_pin");
    MPI_Finalize();
    return rc;
}
