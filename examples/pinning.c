/* SPDX-License-Identifier: MIT */
/* pinning: where does each process run?  Every rank (and, when built with
 * OpenMP, every thread of it) reports the CPU it is on (sched_getcpu) and the
 * CPUs it may run on (its affinity mask); rank 0 collects the lines with
 * MPI_Gather and prints them in rank order, in the assignment's format:
 *   rank=0; thread=0; cpu id=0; allowed cpus 0-1; host h
 * A process that is not pinned may move between the CPUs of its mask, so its
 * "cpu id" is only where it was at that moment.  Pin with the launcher or
 * the system (e.g. taskset, numactl, srun --cpu-bind) to fix it. */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

enum { LINE = 256, MAX_THREADS = 64 };

/* the affinity mask as a list of ranges: "0-3,8" */
static void mask_string(char *out, size_t len)
{
    cpu_set_t set;
    size_t used = 0;
    out[0] = '\0';
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        snprintf(out, len, "?");
        return;
    }
    for (int c = 0; c < CPU_SETSIZE && used + 24 < len; c++) {
        if (!CPU_ISSET(c, &set)) continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) last++;
        if (last == c) used += (size_t)snprintf(out + used, len - used, "%s%d", used ? "," : "", c);
        else used += (size_t)snprintf(out + used, len - used, "%s%d-%d", used ? "," : "", c, last);
        c = last;
    }
}

int main(int argc, char **argv)
{
    int rank, size, len, nthreads = 1, cpu[MAX_THREADS];
    char host[MPI_MAX_PROCESSOR_NAME], mask[96];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    mask_string(mask, sizeof mask);

#ifdef _OPENMP
#pragma omp parallel
    {
        int t = omp_get_thread_num();
#pragma omp single
        nthreads = omp_get_num_threads() < MAX_THREADS ? omp_get_num_threads() : MAX_THREADS;
        if (t < MAX_THREADS) cpu[t] = sched_getcpu();
    }
#else
    cpu[0] = sched_getcpu();
#endif

    /* one fixed-size record per rank: a line per thread */
    char *mine = calloc((size_t)MAX_THREADS, LINE), *all = NULL;
    size_t used = 0;
    if (!mine) MPI_Abort(MPI_COMM_WORLD, 1);
    for (int t = 0; t < nthreads; t++)
        used += (size_t)snprintf(mine + used, (size_t)MAX_THREADS * LINE - used,
                                 "rank=%d; thread=%d; cpu id=%d; allowed cpus %s; host %s\n", rank,
                                 t, cpu[t], mask, host);
    if (rank == 0 && !(all = malloc((size_t)size * MAX_THREADS * LINE)))
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Gather(mine, MAX_THREADS * LINE, MPI_CHAR, all, MAX_THREADS * LINE, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size; r++) fputs(all + (size_t)r * MAX_THREADS * LINE, stdout);
    free(mine);
    free(all);
    MPI_Finalize();
    return 0;
}
