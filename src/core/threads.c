/* SPDX-License-Identifier: MIT */
/* Threads: the flag that turns the locks on, the recursive library lock, and
 * which thread is the main one (threads.h). */
#define _GNU_SOURCE
#include "core/threads.h"
#include "core/progress.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

int cr_threaded;
MPI_Win cr_win_hot;
cr_win_t *cr_win_hot_obj;

void cr_threads_enable(void)
{
    cr_threaded = 1;
    cr_win_hot_forget();
}

/* ---- the one-word mutex (threads.h) -------------------------------------------
 * Held and contended, the word is 2: whoever takes it sets 2 (it cannot know
 * whether others still sleep), so the holder's unlock wakes one sleeper,
 * which takes it with 2 again.  A wake-up is never lost: a sleeper sleeps
 * only while the word is still 2 (FUTEX_WAIT compares it). */
void cr_mutex_lock_contended(cr_mutex_t *m)
{
    while (__atomic_exchange_n(&m->v, 2, __ATOMIC_ACQUIRE) != 0)
        syscall(SYS_futex, &m->v, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}

void cr_mutex_wake(cr_mutex_t *m)
{
    syscall(SYS_futex, &m->v, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* ---- the library lock --------------------------------------------------------
 * A mutex with an owner and a depth, so that a thread that holds it may take
 * it again (an attribute callback calling MPI) and may let it go entirely
 * while it waits for messages. */
static pthread_mutex_t obj_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_t obj_owner;  /* valid while obj_owned (both read by others: atomic) */
static int obj_owned;
static int obj_depth;        /* only the owner touches it */

/* Waking sleepers (docs/threads.md, "Waiting"): a thread that lets the lock
 * go rings this process's doorbell when threads of it sleep and its hold may
 * have completed something they wait for: the hold began in an MPI call, or
 * a poll during it found events.  A hold taken back by a waiting thread
 * (cr_lib_reacquire) whose polls found nothing rings nothing, so threads
 * that all wait can all fall asleep.  Both only touched by the owner. */
static int hold_dirty;
static unsigned long hold_events;

int cr_lib_held(void)
{
    return __atomic_load_n(&obj_owned, __ATOMIC_ACQUIRE) &&
           pthread_equal(__atomic_load_n(&obj_owner, __ATOMIC_RELAXED), pthread_self());
}

void cr_lib_lock_slow(void)
{
    if (cr_lib_held()) {
        obj_depth++;
        return;
    }
    pthread_mutex_lock(&obj_mutex);
    __atomic_store_n(&obj_owner, pthread_self(), __ATOMIC_RELAXED);
    __atomic_store_n(&obj_owned, 1, __ATOMIC_RELEASE);
    obj_depth = 1;
    hold_dirty = 1;
    hold_events = cr_progress_events;
}

void cr_lib_unlock_slow(void)
{
    if (--obj_depth > 0) return;
    int ring = hold_dirty || cr_progress_events != hold_events;
    __atomic_store_n(&obj_owned, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&obj_mutex);
    /* a sleeper set the doorbell before it let the lock go, so it is seen
     * here; it sleeps only while the doorbell stays set */
    if (ring) cr_progress_wake_sleepers();
}

int cr_lib_release_all(void)
{
    if (!cr_threaded || !cr_lib_held()) return 0;
    int depth = obj_depth;
    obj_depth = 1;
    cr_lib_unlock_slow();
    return depth;
}

int cr_lib_try_reacquire(void)
{
    if (pthread_mutex_trylock(&obj_mutex) != 0) return 0;
    __atomic_store_n(&obj_owner, pthread_self(), __ATOMIC_RELAXED);
    __atomic_store_n(&obj_owned, 1, __ATOMIC_RELEASE);
    obj_depth = 1;
    hold_dirty = 0;
    hold_events = cr_progress_events;
    return 1;
}

void cr_lib_reacquire(int depth)
{
    if (depth <= 0) return;
    cr_lib_lock_slow();
    obj_depth = depth;
    hold_dirty = 0;
}

/* ---- the main thread ----------------------------------------------------------
 * MPI_Is_thread_main names the thread that initialised MPI; until then (and
 * for a program that never does), the thread that loaded the library. */
static pthread_t main_thread;
__attribute__((constructor)) static void record_loader(void)
{
    main_thread = pthread_self();
}

void cr_thread_set_main(void)
{
    main_thread = pthread_self();
}

int cr_thread_is_main(void)
{
    return pthread_equal(pthread_self(), main_thread) != 0;
}
