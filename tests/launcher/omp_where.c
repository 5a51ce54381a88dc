/* SPDX-License-Identifier: MIT */
/* For the binding tests: every OpenMP thread prints the CPUs it may run on,
 *   rank R thread T cpus LIST
 * with R from PMI_RANK (no MPI, no PMI needed), one line per thread in order. */
#define _GNU_SOURCE
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 64

static void list(const cpu_set_t *s, char *out, size_t len)
{
    size_t o = 0;
    out[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE && o + 12 < len; c++) {
        if (!CPU_ISSET(c, s)) continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, s)) last++;
        o += (size_t)snprintf(out + o, len - o, last > c ? "%s%d-%d" : "%s%d", o ? "," : "", c, last);
        c = last;
    }
}

int main(void)
{
    char lines[MAX_THREADS][256];
    int n = 0;
    const char *r = getenv("PMI_RANK");
#pragma omp parallel
    {
        int t = omp_get_thread_num();
#pragma omp single
        n = omp_get_num_threads() < MAX_THREADS ? omp_get_num_threads() : MAX_THREADS;
        cpu_set_t s;
        char cpus[200] = "?";
        if (pthread_getaffinity_np(pthread_self(), sizeof s, &s) == 0) list(&s, cpus, sizeof cpus);
        if (t < MAX_THREADS) snprintf(lines[t], sizeof lines[t], "rank %s thread %d cpus %s", r ? r : "?", t, cpus);
    }
    for (int t = 0; t < n; t++) puts(lines[t]);
    return 0;
}
