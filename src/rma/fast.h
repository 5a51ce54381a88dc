/* SPDX-License-Identifier: MIT */
/* The short ways of MPI_Put, MPI_Get and MPI_Win_flush, which their entry
 * points try before the generated checks (maint/notes.py FAST_PATHS): the
 * common case of an MPI_Win_allocate or MPI_Win_allocate_shared window on
 * one node -- a target whose memory is mapped here (RMA_DIRECT), in an open
 * access epoch, the same predefined datatype of contiguous elements on both
 * sides, the same count, inside the target's window, MPI initialized and no
 * threads (no lock to take).  Each returns MPI_SUCCESS when it did the whole
 * call, -1 when it did nothing: everything else (other datatypes, MPI_PROC_NULL, the
 * other paths, every error, the _c forms) goes through the checks and the
 * core's general way, which would have done the same thing here.  (They
 * return MPI_SUCCESS when done, -1 when not: the entry point returns what
 * they return otherwise, so that a copy other than 8 bytes is a tail call.)
 *
 * What the standard requires checking, and how it is checked on the short
 * way: MPI initialized (cr_proc.state); counts not negative and datatypes
 * valid and committed (one handle for both sides, found in
 * cr_builtin_plain: predefined types are committed; a count of at least 1);
 * a live window (the one of cr_win_hot, which the epoch calls and the full
 * ways set while MPI is initialized without threads, and which MPI_Win_free,
 * the start of threads and MPI's end forget); a rank of the window and an access epoch to it
 * (rma_target_t.fast, .lock, .posted, cr_win.fence_open); the bytes inside
 * its window (the type signatures match: one type, one count).  A call that
 * fails any of these did nothing on the short way and meets the full
 * checks, with their messages.
 *
 * MPI_Win_flush on such a target: operations on mapped memory are complete
 * when they return, so all that is left is to order them before whatever
 * the caller does next.  After plain stores (puts) that is one full fence (a
 * locked instruction): a later get by this process must not be answered
 * before its earlier put is visible (a store followed by a load is the one
 * reordering x86 does).  After gets and accumulates by the CPU's atomics only
 * (loads and locked instructions) there is nothing to order, and the flush
 * is a few loads (cr_win.dstores says which). */
#ifndef COURIER_RMA_FAST_H
#define COURIER_RMA_FAST_H
#include "rma/rma.h"
#include "core/threads.h"

#include <string.h>

/* Copy n bytes between mapped memory of the direct path, n other than 8
 * (ops.c: 1, 2, 4, 16 bytes by moves of their own, larger ones by memmove,
 * or out of the window (a get: into_win 0) by non-temporal stores). */
void rma_copy_any(void *dst, const void *src, size_t n, int into_win);
/* rma_copy_any, then MPI_SUCCESS (the short ways' copies other than 8 bytes,
 * as their tail calls). */
int rma_copy_done(void *dst, const void *src, size_t n, int into_win);

/* The direct path's copy: 8 bytes (the commonest small operation: a double,
 * an int64, an address) by one load and one store; the rest out of line. */
static inline __attribute__((always_inline)) void rma_copy(void *dst, const void *src, size_t n,
                                                           int into_win)
{
    if (CR_LIKELY(n == 8)) {
        uint64_t v;
        __builtin_memcpy(&v, src, 8);
        __builtin_memcpy(dst, &v, 8);
        return;
    }
    rma_copy_any(dst, src, n, into_win);
}

/* The calls that open epochs and the communication calls' full ways make w
 * the window the short ways know (cr_win_hot, core/threads.h), while MPI is
 * initialized without threads. */
static inline void rma_fast_remember(cr_win_t *w)
{
    if (CR_LIKELY(cr_proc.state == CR_STATE_INIT && !cr_threaded)) {
        cr_win_hot = w->head.handle;
        cr_win_hot_obj = w;
    }
}

/* The window and the address of the target's bytes [disp * disp_unit,
 * + bytes) on the short way, or NULL when the call must take the full one:
 * same predefined plain datatype and count on both sides (at least one
 * element), MPI initialized without threads, a live window, a target the
 * short ways reach in an open access epoch, the bytes inside its window.
 * *bytes: the data's size. */
static inline __attribute__((always_inline)) char *rma_fast_target(int ocount, MPI_Datatype odt,
                                                                   int rank, MPI_Aint disp,
                                                                   int tcount, MPI_Datatype tdt,
                                                                   MPI_Win win, cr_win_t **wout,
                                                                   size_t *bytes)
{
    /* one test for "the same type and count on both sides" */
    if (CR_UNLIKELY((((uint32_t)odt ^ (uint32_t)tdt) | ((uint32_t)ocount ^ (uint32_t)tcount)) != 0 ||
                    ocount <= 0))
        return NULL;
    uint64_t e = cr_builtin_plain[(uint32_t)odt & 0xff];
    cr_win_t *w = cr_win_hot_obj;
    if (CR_UNLIKELY((uint32_t)(e >> 32) != (uint32_t)odt || win != cr_win_hot || w == NULL))
        return NULL;
    if (CR_UNLIKELY((unsigned)rank >= (unsigned)w->size)) return NULL;
    const rma_target_t *t = &w->t[rank];
    if (CR_UNLIKELY(!t->fast || !(t->lock | t->posted | w->fence_open))) return NULL;
    MPI_Aint n = (MPI_Aint)ocount * (MPI_Aint)(uint32_t)e;
    MPI_Aint off = disp * t->disp_unit;
    if (CR_UNLIKELY(off < 0 || off + n > t->size)) return NULL;
    *wout = w;
    *bytes = (size_t)n;
    return t->base + off;
}

static inline __attribute__((always_inline)) int rma_put_fast(const void *origin_addr,
                                                              int origin_count,
                                                              MPI_Datatype origin_datatype,
                                                              int target_rank, MPI_Aint target_disp,
                                                              int target_count,
                                                              MPI_Datatype target_datatype,
                                                              MPI_Win win)
{
    cr_win_t *w;
    size_t n;
    char *at = rma_fast_target(origin_count, origin_datatype, target_rank, target_disp,
                               target_count, target_datatype, win, &w, &n);
    if (CR_UNLIKELY(at == NULL)) return -1;
    w->dstores |= RMA_DSTORES;
    if (CR_LIKELY(n == 8)) {
        uint64_t v;
        __builtin_memcpy(&v, origin_addr, 8);
        __builtin_memcpy(at, &v, 8);
        return MPI_SUCCESS;
    }
    return rma_copy_done(at, origin_addr, n, 1);  /* a tail call */
}

static inline __attribute__((always_inline)) int rma_get_fast(void *origin_addr, int origin_count,
                                                              MPI_Datatype origin_datatype,
                                                              int target_rank, MPI_Aint target_disp,
                                                              int target_count,
                                                              MPI_Datatype target_datatype,
                                                              MPI_Win win)
{
    cr_win_t *w;
    size_t n;
    const char *at = rma_fast_target(origin_count, origin_datatype, target_rank, target_disp,
                                     target_count, target_datatype, win, &w, &n);
    if (CR_UNLIKELY(at == NULL)) return -1;
    if (CR_LIKELY(n == 8)) {
        uint64_t v;
        __builtin_memcpy(&v, at, 8);
        __builtin_memcpy(origin_addr, &v, 8);
        return MPI_SUCCESS;
    }
    return rma_copy_done(origin_addr, at, n, 0);  /* a tail call */
}

static inline __attribute__((always_inline)) int rma_flush_fast(int rank, MPI_Win win)
{
    cr_win_t *w = cr_win_hot_obj;
    if (CR_UNLIKELY(win != cr_win_hot || w == NULL || (unsigned)rank >= (unsigned)w->size))
        return -1;
    const rma_target_t *t = &w->t[rank];
    if (CR_UNLIKELY(!t->fast || !(t->lock | t->posted | w->fence_open))) return -1;
    if (w->dstores) {
        w->dstores &= RMA_DFENCE_ALWAYS;
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
    return 0;
}
#endif
