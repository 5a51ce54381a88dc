/* SPDX-License-Identifier: MIT */
/* The asynchronous progress thread (COURIER_ASYNC_PROGRESS, threads.h): one
 * thread per process that polls the progress engine under the library lock,
 * so that rendezvous transfers, queued messages and non-blocking collectives
 * move on while the application computes between MPI calls.  Idle, it
 * waits as a blocking call does: it polls, naps async_progress_idle_us
 * between polls that find nothing, and once idle for COURIER_WAIT_SLEEP_US
 * sleeps on the doorbell until a peer's message or another thread rings it. */
#define _GNU_SOURCE
#include "core/threads.h"
#include "core/progress.h"
#include "util/settings.h"

#include <time.h>

static pthread_t async_thread;
static int async_running;
static int async_stop;

static void *async_main(void *arg)
{
    (void)arg;
    long idle_us = ut_settings.async_progress_idle_us;
    struct timespec nap = { idle_us / 1000000, (idle_us % 1000000) * 1000 };
    cr_wait_t w = CR_WAIT_INIT;
    while (!__atomic_load_n(&async_stop, __ATOMIC_ACQUIRE)) {
        /* taken as a waiting thread takes it back: a poll that finds nothing
         * wakes no sleeping thread when the lock is let go (threads.c) */
        cr_lib_reacquire(1);
        int events = cr_progress();
        if (events == 0) events = cr_wait_idle_sleep(&w, &async_stop);
        cr_lib_unlock();
        if (events > 0) cr_wait_busy(&w);
        else if (events < 0 && idle_us > 0) nanosleep(&nap, NULL);
        else if (events < 0) sched_yield();
    }
    return NULL;
}

int cr_async_start(void)
{
    if (async_running) return 0;
    __atomic_store_n(&async_stop, 0, __ATOMIC_RELEASE);
    if (pthread_create(&async_thread, NULL, async_main, NULL) != 0) return -1;
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
