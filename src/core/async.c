/* SPDX-License-Identifier: MIT */
/* The asynchronous progress thread (COURIER_ASYNC_PROGRESS, threads.h): one
 * thread per process that polls the progress engine under the library lock,
 * so that rendezvous transfers, queued messages and non-blocking collectives
 * move on while the application computes between MPI calls.  Idle, it
 * waits as a blocking call does: it polls, naps async_progress_idle_us
 * between polls that find nothing, and once idle for async_progress_sleep_us
 * (COURIER_WAIT_SLEEP_US when -1) sleeps on the doorbell until a peer's
 * message or another thread rings it.
 *
 * Responsiveness: every step of a rendezvous or of a collective's schedule
 * waits for this thread to notice the peer's message, so a nap between polls
 * is a delay added to each step.  Sleeping on the doorbell wakes it at once
 * instead, and the nap itself is made exact (timer slack of 1 ns, not the
 * default 50 us).  Where the thread shares a core with a computing thread
 * (more threads than cores, or mpiexec found no spare core for it), Linux's
 * scheduler (EEVDF) lets the running thread finish its slice (about 0.7 ms)
 * before the woken one runs, unless the woken one asks for a shorter slice:
 * async_progress_slice_us is that request (sched_setattr's sched_runtime,
 * Linux 6.12 and later; older kernels ignore it).
 *
 * Pinning: where mpiexec bound the rank with the thread on, it sets
 * COURIER_PROGRESS_CPUS to the CPUs it reserved for the thread (a core or
 * hwthread beside the rank's, or the rank's own when none is spare:
 * launcher/place.h); the thread is bound to them (hwloc) before MPI_Init
 * returns, and it is named "cr_progress" (/proc/self/task/<tid>/comm). */
#define _GNU_SOURCE
#include "core/threads.h"
#include "core/progress.h"
#include "transport/shm/shm.h"
#include "util/settings.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#ifdef COURIER_HAVE_HWLOC
#include <hwloc.h>
#endif

static pthread_t async_thread;
static int async_running;
static int async_stop;

/* sched_setattr's argument as the kernel reads it (SCHED_ATTR_SIZE_VER0);
 * glibc has no declaration before 2.41. */
typedef struct {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
} async_sched_attr_t;

/* Ask the scheduler for this thread's short slice (see the top); the
 * policy and nice value stay as they are (SCHED_OTHER, nice 0). */
static void async_ask_slice(long slice_us)
{
#ifdef SYS_sched_setattr
    if (slice_us <= 0) return;
    async_sched_attr_t a = { .size = sizeof a, .policy = 0 /* SCHED_OTHER */,
                             .runtime = (uint64_t)slice_us * 1000u };
    (void)syscall(SYS_sched_setattr, 0, &a, 0);   /* a kernel without it: the default slice */
#else
    (void)slice_us;
#endif
}

static void *async_main(void *arg)
{
    (void)arg;
    long idle_us = ut_settings.async_progress_idle_us;
    long sleep_us = ut_settings.async_progress_sleep_us;
    struct timespec nap = { idle_us / 1000000, (idle_us % 1000000) * 1000 };
    cr_wait_t w = CR_WAIT_INIT;
    /* the idle phase before a sleep: sleep_ns 0 is the policy's default
     * (COURIER_WAIT_SLEEP_US); 1 ns sleeps at the second idle poll */
    if (sleep_us >= 0) w.sleep_ns = sleep_us > 0 ? (uint64_t)sleep_us * 1000u : 1u;
    prctl(PR_SET_TIMERSLACK, 1UL);      /* the nap as asked, not 50 us longer */
    async_ask_slice(ut_settings.async_progress_slice_us);
    while (!__atomic_load_n(&async_stop, __ATOMIC_ACQUIRE)) {
        /* taken as a waiting thread takes it back: a poll that finds nothing
         * wakes no sleeping thread when the lock is let go (threads.c) */
        cr_lib_reacquire(1);
        int events = cr_progress();
        if (events == 0) events = cr_wait_idle_sleep(&w, &async_stop);
        /* sleep_us 0: the first idle poll only opens the idle phase; sleep
         * now rather than nap first */
        if (events < 0 && sleep_us == 0) events = cr_wait_idle_sleep(&w, &async_stop);
        cr_lib_unlock();
        if (events > 0) cr_wait_busy(&w);
        else if (events < 0 && idle_us > 0) nanosleep(&nap, NULL);
        else if (events < 0) sched_yield();
    }
    return NULL;
}

/* Bind the progress thread to the CPUs COURIER_PROGRESS_CPUS lists (a
 * warning when they cannot be had; nothing when unset or without hwloc). */
static void async_pin(pthread_t th)
{
    const char *cpus = (const char *)(intptr_t)ut_settings.progress_cpus;
    if (!cpus || !*cpus) return;
#ifdef COURIER_HAVE_HWLOC
    hwloc_topology_t topo;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int ok = set && hwloc_bitmap_list_sscanf(set, cpus) == 0 && !hwloc_bitmap_iszero(set);
    if (ok && hwloc_topology_init(&topo) == 0) {
        ok = hwloc_topology_load(topo) == 0 &&
             hwloc_set_thread_cpubind(topo, th, set, 0) == 0;
        hwloc_topology_destroy(topo);
    } else {
        ok = 0;
    }
    hwloc_bitmap_free(set);
    if (!ok)
        fprintf(stderr, "courier: warning: cannot bind the progress thread to CPUs \"%s\" "
                "(COURIER_PROGRESS_CPUS)\n", cpus);
#else
    (void)th;
#endif
}

int cr_async_start(void)
{
    if (async_running) return 0;
    __atomic_store_n(&async_stop, 0, __ATOMIC_RELEASE);
    if (pthread_create(&async_thread, NULL, async_main, NULL) != 0) return -1;
    pthread_setname_np(async_thread, "cr_progress");
    async_pin(async_thread);
    shm_publish_answers();      /* peers judge our handshakes by their timing alone */
    async_running = 1;
    return 0;
}

void cr_async_stop(void)
{
    if (!async_running) return;
    /* under the lock: the thread either sees the flag after announcing a
     * sleep, or announced it before, and then the doorbell is rung here */
    cr_lib_lock();
    __atomic_store_n(&async_stop, 1, __ATOMIC_RELEASE);
    cr_progress_wake_sleepers();
    cr_lib_unlock();
    int depth = cr_lib_release_all();       /* the thread may wait for the lock */
    pthread_join(async_thread, NULL);
    cr_lib_reacquire(depth);
    async_running = 0;
}
