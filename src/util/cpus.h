/* SPDX-License-Identifier: MIT */
/* How many cores this process may run on, and whether n processes of one host
 * outnumber them: the one rule the library (waiting policy, collectives) and
 * mpiexec (how ranks are started) share for "oversubscribed". */
#ifndef UT_CPUS_H
#define UT_CPUS_H

#include <sched.h>
#include <unistd.h>
#include "util/settings.h"

/* The cores in this process's affinity mask (all online ones if it has none). */
static inline int ut_cpus_allowed(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* Whether n processes of a host outnumber its cores: COURIER_OVERSUBSCRIBED
 * when set (0 or 1), else n > ut_cpus_allowed(). */
static inline int ut_oversubscribed(int n)
{
    return ut_settings.oversubscribed >= 0 ? (int)ut_settings.oversubscribed
                                           : n > ut_cpus_allowed();
}

#endif
