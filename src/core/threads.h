/* SPDX-License-Identifier: MIT */
/* Threads: whether several threads may be inside the library at once, and
 * the locks that every layer above the transports uses then (docs/threads.md
 * has the whole picture).
 *
 * cr_threaded is 0 unless MPI_Init_thread provided MPI_THREAD_MULTIPLE or the
 * asynchronous progress thread runs (COURIER_ASYNC_PROGRESS); it is set once,
 * in MPI_Init, before any other thread of the library exists.  While it is 0
 * every lock below is a test of that flag and nothing else, so a program that
 * asked for MPI_THREAD_SINGLE, FUNNELED or SERIALIZED pays no atomic
 * instruction for them.
 *
 * The locks, and what each protects (lock order: object lock, then a
 * collective list's lock, then a channel's lock, then leaf locks; never the
 * other way round):
 * - The object lock (cr_obj_lock / cr_obj_unlock): recursive.  The generated
 *   binding takes it around every MPI procedure that is not communication
 *   (creating, freeing and querying communicators, groups, datatypes, ops,
 *   attributes, error handlers, info objects; maint/notes.py OBJ_LOCK_FREE
 *   lists the procedures that run without it).  A thread that holds it and
 *   waits for messages (communicator creation agrees on a context id) lets
 *   it go while it waits (cr_progress_wait), so that a thread on another
 *   communicator is never held up by it, and takes it back afterwards.
 * - A channel's lock (pt2pt.h, cr_chan_t.lock): all point-to-point state of
 *   the channel (matching queues, out queues, its transport interfaces).
 *   Communicators are spread over the channels, so threads on different
 *   communicators take different channel locks.
 * - A lock of one's own for each other thing (a list of non-blocking
 *   collectives, a window's state, a file's queue): make it a cr_lock_t,
 *   and register the layer's poller with it (core.h, cr_poller_t.lock), so
 *   that the progress engine polls it under that lock (and skips it, without
 *   waiting, when another thread holds it).
 * - Leaf locks, held for a few instructions and never while taking another:
 *   handle tables (cr_objtab_add/remove), request pools, the bsend buffer's
 *   accounting.  Reference counts of datatypes and ops are atomic.
 *
 * What a layer does in a call that runs without the object lock (its
 * communication calls): take its own lock around its own state, call
 * cr_isend / cr_irecv and friends (they take the channel's lock), and wait
 * with cr_wait / cr_progress_wait (they poll without holding any lock of the
 * caller's: do not hold your own lock across a wait).  Complete requests with
 * cr_req_complete (safe from any thread) and give up a request that is still
 * running with cr_request_detach. */
#ifndef COURIER_CORE_THREADS_H
#define COURIER_CORE_THREADS_H
#include <pthread.h>
#include "core/core.h"

/* Several threads may be inside the library (set in MPI_Init, never changed). */
extern int cr_threaded;

/* A lock that costs nothing while cr_threaded is 0.  Initialise with
 * CR_LOCK_INIT (a plain mutex) or cr_lock_init (an adaptive one: it spins
 * briefly before it sleeps; for locks taken on every message). */
typedef struct cr_lock {
    pthread_mutex_t m;
} cr_lock_t;
#define CR_LOCK_INIT { PTHREAD_MUTEX_INITIALIZER }
void cr_lock_init(cr_lock_t *l);
static inline void cr_lock(cr_lock_t *l)
{
    if (CR_UNLIKELY(cr_threaded)) pthread_mutex_lock(&l->m);
}
static inline void cr_unlock(cr_lock_t *l)
{
    if (CR_UNLIKELY(cr_threaded)) pthread_mutex_unlock(&l->m);
}
/* 1 when taken (always, while cr_threaded is 0), 0 when another thread holds it. */
static inline int cr_trylock(cr_lock_t *l)
{
    return !cr_threaded || pthread_mutex_trylock(&l->m) == 0;
}

/* The object lock (recursive).  cr_obj_held: this thread holds it. */
void cr_obj_lock(void);
void cr_obj_unlock(void);
int cr_obj_held(void);
/* Let the object lock go entirely while this thread waits (returns how deep
 * it was held: 0 when not held), and take it back as deep afterwards. */
int cr_obj_release_all(void);
void cr_obj_reacquire(int depth);

/* The thread that called MPI_Init (or loaded the library first):
 * cr_thread_set_main records the caller (MPI_Init does). */
void cr_thread_set_main(void);
int cr_thread_is_main(void);
#endif
