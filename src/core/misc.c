/* SPDX-License-Identifier: MIT */
/* Environment inquiry, timers, memory and the small procedures of the MPI
 * environment chapter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "core/core.h"
#include "core/api_comm.h"
#include "core/threads.h"

#ifndef COURIER_VERSION
#define COURIER_VERSION "0.1.0"
#endif

int core_get_version(int *version, int *subversion)
{
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

int core_get_library_version(char *version, int *resultlen)
{
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                     "Courier %s (MPI %d.%d, MPICH ABI libmpi.so.12), built %s %s",
                     COURIER_VERSION, MPI_VERSION, MPI_SUBVERSION, __DATE__, __TIME__);
    *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
    return MPI_SUCCESS;
}

int core_get_processor_name(char *name, int *resultlen)
{
    const char *h = cr_proc.hostname;
    char buf[MPI_MAX_PROCESSOR_NAME];
    if (!h[0]) {
        if (gethostname(buf, sizeof buf) != 0) snprintf(buf, sizeof buf, "localhost");
        buf[sizeof buf - 1] = '\0';
        h = buf;
    }
    size_t n = strnlen(h, MPI_MAX_PROCESSOR_NAME - 1);
    memcpy(name, h, n);
    name[n] = '\0';
    *resultlen = (int)n;
    return MPI_SUCCESS;
}

/* MPI_Wtime counts from the whole second of the first call in the process,
 * so doubles keep nanosecond resolution.  The clock is per node
 * (MPI_WTIME_IS_GLOBAL false).  MPI_Wtime takes no lock, and the first calls
 * may come from several threads at once (mpibench's threaded tests, under
 * ThreadSanitizer): the origin is set once with a compare-and-swap, so every
 * thread counts from the same second (two plain stores could give threads
 * origins a second apart, and one thread's interval a second too short). */
static long long t0_sec = -1;

double core_wtime(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    long long s = __atomic_load_n(&t0_sec, __ATOMIC_RELAXED);
    if (CR_UNLIKELY(s < 0)) {
        long long unset = -1;
        s = (long long)t.tv_sec;
        if (!__atomic_compare_exchange_n(&t0_sec, &unset, s, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            s = unset;   /* another thread set it first */
    }
    return (double)((long long)t.tv_sec - s) + 1e-9 * (double)t.tv_nsec;
}

double core_wtick(void)
{
    struct timespec r;
    if (clock_getres(CLOCK_MONOTONIC, &r) != 0) return 1e-9;
    return (double)r.tv_sec + 1e-9 * (double)r.tv_nsec;
}

MPI_Aint core_aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((char *)base + disp);
}

MPI_Aint core_aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((char *)addr1 - (char *)addr2);
}

int core_alloc_mem(MPI_Aint size, cr_info_t *info, void *baseptr)
{
    void *p = NULL;
    (void)info;
    if (size < 0) return cr_error(MPI_ERR_SIZE, "size=%ld: negative size", (long)size);
    if (posix_memalign(&p, 64, size ? (size_t)size : 1) != 0)
        return cr_error(MPI_ERR_NO_MEM, "size=%ld: out of memory", (long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

int core_free_mem(void *base)
{
    free(base);
    return MPI_SUCCESS;
}

/* The world model's state (sessions do not count, MPI 4.0 11.2.1). */
int core_initialized(int *flag)
{
    *flag = cr_proc.world_state != CR_STATE_PRE_INIT;
    return MPI_SUCCESS;
}

int core_finalized(int *flag)
{
    *flag = cr_proc.world_state == CR_STATE_FINALIZED;
    return MPI_SUCCESS;
}

int core_query_thread(int *provided)
{
    *provided = cr_proc.thread_level;
    return MPI_SUCCESS;
}

int core_is_thread_main(int *flag)
{
    *flag = cr_thread_is_main();
    return MPI_SUCCESS;
}

int core_pcontrol(const int level)
{
    (void)level;
    return MPI_SUCCESS;
}
