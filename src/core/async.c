/* SPDX-License-Identifier: MIT */
/* The asynchronous progress thread (COURIER_ASYNC_PROGRESS, threads.h): one
 * thread per process that polls the progress engine under the library lock,
 * so that rendezvous transfers, queued messages and non-blocking collectives
 * move on while the application computes between MPI calls.  When a poll
 * finds nothing it sleeps async_progress_idle_us before the next. */
#define _GNU_SOURCE
#include "core/threads.h"
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
    while (!__atomic_load_n(&async_stop, __ATOMIC_ACQUIRE)) {
        cr_lib_lock();
        int events = cr_progress();
        cr_lib_unlock();
        if (events == 0) {
            if (idle_us > 0) nanosleep(&nap, NULL);
            else sched_yield();
        }
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
    __atomic_store_n(&async_stop, 1, __ATOMIC_RELEASE);
    int depth = cr_lib_release_all();       /* the thread may wait for the lock */
    pthread_join(async_thread, NULL);
    cr_lib_reacquire(depth);
    async_running = 0;
}
