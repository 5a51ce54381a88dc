/* SPDX-License-Identifier: MIT */
/* Threads: whether several threads may be inside the library at once, and
 * the lock that makes that safe (docs/threads.md has the whole picture).
 *
 * cr_threaded is 0 unless MPI_Init_thread provided MPI_THREAD_MULTIPLE or the
 * asynchronous progress thread runs (COURIER_ASYNC_PROGRESS); it is set once,
 * in MPI_Init(_thread), before any other thread may call MPI.
 * While it is 0 every lock below is a test of that flag and nothing else, and
 * the blocking fast paths (MPI_Send, MPI_Isend, MPI_Recv of small messages
 * to local ranks) do not even test it: they stay exactly as they were for a
 * program that asked for MPI_THREAD_SINGLE, FUNNELED or SERIALIZED.
 *
 * The library lock (cr_lib_lock / cr_lib_unlock) is recursive.  The
 * generated binding takes it around the core entry of every MPI procedure
 * (maint/gen_bindings.py), except MPI_Send, MPI_Isend, MPI_Recv and their
 * large-count forms, whose general paths take it themselves (p2p_api.c) so
 * that their fast paths stay lock-free in single mode (the fast paths are
 * off with threads), and MPI_Wait and MPI_Test, which take it in core_wait
 * and core_test, and the blocking collectives, which take it in coll.c
 * unless they run on their communicator's shared-memory area (coll_call_mt).  With several channels these take only a channel's lock
 * where they can (core/pt2pt.h; lock order: library, channel, leaf locks).  A thread that waits for messages (every blocking loop
 * goes through the waiting policy, core.h) lets the lock go entirely between
 * polls (cr_lib_release_all) and takes it back as deep afterwards, so that a
 * thread waiting in MPI_Recv never holds up a thread that is about to send it
 * the message.  User callbacks (reduction operations, attribute copy and
 * delete functions) run under the lock; error handlers run after it is let
 * go. */
#ifndef COURIER_CORE_THREADS_H
#define COURIER_CORE_THREADS_H
#include <pthread.h>
#include "core/core.h"

/* Several threads may be inside the library (set in MPI_Init_thread). */
extern int cr_threaded;

/* A plain lock that costs nothing while cr_threaded is 0 (for state that a
 * layer wants to guard on its own, beneath the library lock). */
typedef struct cr_lock {
    pthread_mutex_t m;
} cr_lock_t;
#define CR_LOCK_INIT { PTHREAD_MUTEX_INITIALIZER }
static inline void cr_lock(cr_lock_t *l)
{
    if (CR_UNLIKELY(cr_threaded)) pthread_mutex_lock(&l->m);
}
static inline void cr_unlock(cr_lock_t *l)
{
    if (CR_UNLIKELY(cr_threaded)) pthread_mutex_unlock(&l->m);
}

/* A mutex of one word, for the locks taken on every message (a channel's,
 * core/pt2pt.h): uncontended, taking it is one compare-and-swap and letting
 * it go one exchange, inline, where glibc's pthread_mutex_lock and
 * pthread_mutex_unlock cost 31 and 26 instructions with their calls
 * (callgrind, glibc 2.36).  A thread that finds it held sleeps in the kernel
 * (futex) until the holder lets it go.  v: 0 free, 1 held, 2 held and a
 * thread may sleep on it.  Zero-initialised is free. */
typedef struct cr_mutex {
    int v;
} cr_mutex_t;
void cr_mutex_lock_contended(cr_mutex_t *m);
void cr_mutex_wake(cr_mutex_t *m);
static inline void cr_mutex_lock(cr_mutex_t *m)
{
    int free_v = 0;
    if (CR_LIKELY(__atomic_compare_exchange_n(&m->v, &free_v, 1, 0, __ATOMIC_ACQUIRE,
                                              __ATOMIC_RELAXED)))
        return;
    cr_mutex_lock_contended(m);
}
static inline void cr_mutex_unlock(cr_mutex_t *m)
{
    if (CR_UNLIKELY(__atomic_exchange_n(&m->v, 0, __ATOMIC_RELEASE) == 2)) cr_mutex_wake(m);
}

/* The library lock (recursive); the _slow forms are the threaded case. */
void cr_lib_lock_slow(void);
void cr_lib_unlock_slow(void);
static inline void cr_lib_lock(void)
{
    if (CR_UNLIKELY(cr_threaded)) cr_lib_lock_slow();
}
static inline void cr_lib_unlock(void)
{
    if (CR_UNLIKELY(cr_threaded)) cr_lib_unlock_slow();
}
/* 1 when this thread holds the library lock (always 0 without threads). */
int cr_lib_held(void);
/* Let the library lock go entirely while this thread waits (returns how deep
 * it was held: 0 when not held), and take it back as deep afterwards. */
int cr_lib_release_all(void);
void cr_lib_reacquire(int depth);
/* Take the library lock at depth 1 as cr_lib_reacquire(1) would, if no
 * other thread holds it (1), else 0 at once; for a thread that does not hold
 * it (threads on). */
int cr_lib_try_reacquire(void);

/* Turn the locks on (MPI_Init_thread with MPI_THREAD_MULTIPLE, before any
 * other thread calls MPI). */
void cr_threads_enable(void);

/* The asynchronous progress thread (async.c; COURIER_ASYNC_PROGRESS turns
 * the locks on too): cr_async_start starts it (0, or -1 when the thread
 * cannot be made), cr_async_stop ends it and waits for it (safe with the
 * library lock held, and when it never started). */
int cr_async_start(void);
void cr_async_stop(void);

/* The thread that called MPI_Init (or loaded the library first):
 * cr_thread_set_main records the caller (MPI_Init does). */
void cr_thread_set_main(void);
int cr_thread_is_main(void);
#endif
