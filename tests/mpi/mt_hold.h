/* SPDX-License-Identifier: MIT */
/* Thread 0 holds the library lock while the other threads work: a user
 * reduction operation runs with the library lock held (docs/threads.md), so
 * thread 0 calls MPI_Reduce_local with mt_hold_op, which returns once the
 * mt_hold.workers other threads have counted themselves finished
 * (mt_hold_done), or after mt_hold.limit seconds, setting mt_hold.too_long.
 * Workers that must start only once the lock is held wait in
 * mt_hold_wait_held.  Used by the thr_ tests that show a path needs no
 * library lock. */
#ifndef COURIER_MT_HOLD_H
#define COURIER_MT_HOLD_H
#include "mpitest.h"
#include <sched.h>

static struct {
    int holding, finished, too_long, workers;
    double limit;
} mt_hold;

static inline void mt_hold_wait_held(void)
{
    while (!__atomic_load_n(&mt_hold.holding, __ATOMIC_ACQUIRE)) sched_yield();
}

static inline void mt_hold_done(void)
{
    __atomic_fetch_add(&mt_hold.finished, 1, __ATOMIC_RELEASE);
}

static void mt_hold_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in, (void)inout, (void)len, (void)dt;
    double until = mt_now() + mt_hold.limit;
    __atomic_store_n(&mt_hold.holding, 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(&mt_hold.finished, __ATOMIC_ACQUIRE) < mt_hold.workers) {
        if (mt_now() > until) {
            mt_hold.too_long = 1;
            return;
        }
        sched_yield();
    }
}
#endif
