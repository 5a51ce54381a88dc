/* SPDX-License-Identifier: MIT */
/* lockcount: an LD_PRELOAD library that counts, for every pthread mutex, how
 * many times each thread of the process took it; evidence of which locks two
 * threads share that does not depend on timing (docs/performance.md,
 * "Threads (issue 15): method").
 *
 *   cc -O2 -shared -fPIC -o liblockcount.so tools/lockcount.c -ldl -pthread
 *   LOCKCOUNT_OUT=/tmp/lc mpiexec -n 2 env LD_PRELOAD=$PWD/liblockcount.so prog
 *
 * At exit every process writes LOCKCOUNT_OUT.<pid> (stderr without it): one
 * line per mutex taken at least LOCKCOUNT_MIN times (default 1000) in all:
 * the object file it lies in and its offset there (resolve it with
 * `gdb -batch -ex 'info symbol OFFSET' FILE`; "heap" for a mutex in malloc'd
 * memory), the total count, the handovers (below), then the count per
 * thread, threads numbered in the order of their first lock (0 is normally
 * the main thread; the 16th and later threads count together).  Only locks through the dynamic
 * symbol pthread_mutex_lock/trylock are seen (glibc's own internal locks are
 * not).
 *
 * LOCKCOUNT_TRACE=OFFSET (hex, as printed) also counts where that mutex is
 * taken from: each distinct call stack (the 4 frames above the lock call) with
 * its count, as file+offset pairs that `addr2line -f -i -e FILE OFFSET`
 * names; "handovers" is how often the mutex was taken by another thread than
 * the one that took it last, the traffic its cache line sees. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LC_SLOTS 4096       /* mutexes tracked (open addressing) */
#define LC_THREADS 16       /* threads told apart; later ones count as the last */

typedef struct {
    uintptr_t key;          /* the mutex's address, 0 when the slot is free */
    unsigned long n[LC_THREADS];
    unsigned long handovers;
    long last;              /* the unique id of the thread that took it last */
} lc_slot_t;

#define LC_STACKS 1024
#define LC_DEPTH 4
typedef struct {
    uintptr_t key;          /* a hash of the frames, 0 when free */
    void *pc[LC_DEPTH];
    unsigned long n;
} lc_stack_t;
static lc_stack_t stacks[LC_STACKS];
static uintptr_t trace_off = (uintptr_t)-1;
static int trace_init;
static __thread int in_trace;
static long next_uid;
static __thread long my_uid;

static lc_slot_t table[LC_SLOTS];
static int next_thread;
static __thread int my_thread = -1;
static int (*real_lock)(pthread_mutex_t *);
static int (*real_trylock)(pthread_mutex_t *);

/* The offset of m in its object file, or -1. */
static uintptr_t offset_of(const void *m, const char **file)
{
    Dl_info di;
    if (dladdr(m, &di) && di.dli_fname) {
        *file = di.dli_fname;
        return (uintptr_t)m - (uintptr_t)di.dli_fbase;
    }
    *file = "heap";
    return (uintptr_t)m;
}

static void trace(pthread_mutex_t *m)
{
    if (!trace_init) {
        const char *t = getenv("LOCKCOUNT_TRACE");
        if (t)
            trace_off = (uintptr_t)strtoull(t, NULL, 16);
        trace_init = 1;
    }
    if (trace_off == (uintptr_t)-1 || in_trace)
        return;
    const char *file;
    if (offset_of(m, &file) != trace_off)
        return;
    in_trace = 1;   /* backtrace may take locks the first time */
    void *pc[LC_DEPTH + 3];
    int n = backtrace(pc, LC_DEPTH + 3);
    in_trace = 0;
    uintptr_t k = 1;
    void *f[LC_DEPTH] = { 0 };
    for (int i = 0; i < LC_DEPTH && i + 3 < n; i++) {
        f[i] = pc[i + 3];   /* above trace, count and pthread_mutex_lock */
        k = k * 1000003u ^ (uintptr_t)f[i];
    }
    size_t h = (size_t)(k * 0x9e3779b97f4a7c15ull) % LC_STACKS;
    for (size_t i = 0; i < LC_STACKS; i++) {
        lc_stack_t *s = &stacks[(h + i) % LC_STACKS];
        uintptr_t zero = 0;
        if (__atomic_compare_exchange_n(&s->key, &zero, k, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            memcpy(s->pc, f, sizeof f);
            zero = k;
        }
        if (zero == k) {
            __atomic_fetch_add(&s->n, 1, __ATOMIC_RELAXED);
            return;
        }
    }
}

static void count(pthread_mutex_t *m)
{
    if (my_thread < 0) {
        my_thread = __atomic_fetch_add(&next_thread, 1, __ATOMIC_RELAXED);
        if (my_thread >= LC_THREADS)
            my_thread = LC_THREADS - 1;
    }
    if (!my_uid)
        my_uid = __atomic_add_fetch(&next_uid, 1, __ATOMIC_RELAXED);
    uintptr_t k = (uintptr_t)m;
    size_t h = (size_t)((k >> 3) * 0x9e3779b97f4a7c15ull) % LC_SLOTS;
    for (size_t i = 0; i < LC_SLOTS; i++) {
        lc_slot_t *s = &table[(h + i) % LC_SLOTS];
        uintptr_t cur = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
        if (cur == 0) {
            uintptr_t zero = 0;
            if (__atomic_compare_exchange_n(&s->key, &zero, k, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                cur = k;
            else
                cur = zero;
        }
        if (cur == k) {
            __atomic_fetch_add(&s->n[my_thread], 1, __ATOMIC_RELAXED);
            if (__atomic_exchange_n(&s->last, my_uid, __ATOMIC_RELAXED) != my_uid)
                __atomic_fetch_add(&s->handovers, 1, __ATOMIC_RELAXED);
            trace(m);
            return;
        }
    }
}

int pthread_mutex_lock(pthread_mutex_t *m)
{
    if (!real_lock)
        real_lock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_lock");
    count(m);
    return real_lock(m);
}

int pthread_mutex_trylock(pthread_mutex_t *m)
{
    if (!real_trylock)
        real_trylock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_trylock");
    int rc = real_trylock(m);
    if (rc == 0)
        count(m);
    return rc;
}

__attribute__((destructor)) static void report(void)
{
    const char *out = getenv("LOCKCOUNT_OUT");
    const char *mins = getenv("LOCKCOUNT_MIN");
    unsigned long min = mins ? strtoul(mins, NULL, 10) : 1000;
    FILE *f = stderr;
    char path[4096];
    if (out) {
        snprintf(path, sizeof path, "%s.%d", out, (int)getpid());
        f = fopen(path, "w");
        if (!f)
            return;
    }
    int nt = __atomic_load_n(&next_thread, __ATOMIC_RELAXED);
    if (nt > LC_THREADS)
        nt = LC_THREADS;
    fprintf(f, "# lockcount pid %d, %d thread(s): file offset count-per-thread...\n", (int)getpid(), nt);
    for (size_t i = 0; i < LC_SLOTS; i++) {
        lc_slot_t *s = &table[i];
        if (!s->key)
            continue;
        unsigned long tot = 0;
        for (int t = 0; t < LC_THREADS; t++)
            tot += s->n[t];
        if (tot < min)
            continue;
        const char *file;
        uintptr_t off = offset_of((void *)s->key, &file);
        fprintf(f, "%s 0x%lx total %lu handovers %lu threads", file, (unsigned long)off, tot, s->handovers);
        for (int t = 0; t < nt; t++)
            fprintf(f, " %lu", s->n[t]);
        fputc('\n', f);
    }
    for (size_t i = 0; i < LC_STACKS; i++) {
        lc_stack_t *s = &stacks[i];
        if (!s->key)
            continue;
        fprintf(f, "stack %lu:", s->n);
        for (int d = 0; d < LC_DEPTH && s->pc[d]; d++) {
            const char *file;
            /* the return address; the call is one byte before it */
            uintptr_t off = offset_of((char *)s->pc[d] - 1, &file);
            fprintf(f, " %s+0x%lx", strrchr(file, '/') ? strrchr(file, '/') + 1 : file, (unsigned long)off);
        }
        fputc('\n', f);
    }
    if (f != stderr)
        fclose(f);
}
