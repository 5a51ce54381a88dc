/* SPDX-License-Identifier: MIT */
/* How many cores this process may run on, and whether n processes of one host
 * outnumber them: the one rule the library (waiting policy, collectives) and
 * mpiexec (how ranks are started) share for "oversubscribed". */
#ifndef UT_CPUS_H
#define UT_CPUS_H

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
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

/* This process's affinity mask as a CPU list ("0-3,8"), at most len bytes;
 * "" when it cannot be read or does not fit. */
static inline void ut_cpus_list(char *buf, size_t len)
{
    cpu_set_t set;
    size_t at = 0;
    buf[0] = '\0';
    if (sched_getaffinity(0, sizeof set, &set) != 0) return;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &set)) continue;
        int e = c;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &set)) e++;
        int k = e > c ? snprintf(buf + at, len - at, "%s%d-%d", at ? "," : "", c, e)
                      : snprintf(buf + at, len - at, "%s%d", at ? "," : "", c);
        if (k < 0 || (size_t)k >= len - at) {
            buf[0] = '\0';
            return;
        }
        at += (size_t)k;
        c = e;
    }
}

/* Add the CPUs of a list made by ut_cpus_list to set; -1 when it is not one
 * (nothing is added then). */
static inline int ut_cpus_parse(const char *s, cpu_set_t *set)
{
    cpu_set_t add;
    CPU_ZERO(&add);
    if (!*s) return -1;
    while (*s) {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (end == s || a < 0 || a >= CPU_SETSIZE) return -1;
        if (*end == '-') {
            s = end + 1;
            b = strtol(s, &end, 10);
            if (end == s || b < a || b >= CPU_SETSIZE) return -1;
        }
        for (long c = a; c <= b; c++) CPU_SET((int)c, &add);
        if (*end == ',') end++;
        else if (*end) return -1;
        s = end;
    }
    CPU_OR(set, set, &add);
    return 0;
}

#endif
