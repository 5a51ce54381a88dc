/* SPDX-License-Identifier: MIT */
/* The short ways of MPI_Put, MPI_Get, MPI_Win_flush, MPI_Fetch_and_op,
 * MPI_Compare_and_swap, MPI_Win_lock and MPI_Win_unlock, which their entry
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

/* The 8-byte types of the short ways of MPI_Fetch_and_op and
 * MPI_Compare_and_swap: the commonest atomics (a counter, an address, a
 * double sum).  Integers are what a compare-and-swap takes; a double only
 * goes to MPI_Fetch_and_op. */
static inline __attribute__((always_inline)) int rma_fast_int8(MPI_Datatype dt)
{
    return dt == MPI_INT64_T || dt == MPI_UINT64_T || dt == MPI_LONG || dt == MPI_LONG_LONG ||
           dt == MPI_UNSIGNED_LONG || dt == MPI_UNSIGNED_LONG_LONG;
}

/* The target's 8 bytes of an atomic on the short way, or NULL: the
 * conditions of rma_fast_target for one element of dt, on a window whose
 * accumulates on this node go by the CPU's atomics (cr_win.catomic: every
 * other origin and the target's handler then update the same words with
 * locked instructions, never under the accumulate lock, so these mix with
 * theirs).  An unaligned word stays atomic on x86 (a locked instruction),
 * as on the full way, which uses the same instructions. */
static inline __attribute__((always_inline)) uint64_t *rma_fast_word(MPI_Datatype dt, int rank,
                                                                     MPI_Aint disp, MPI_Win win,
                                                                     cr_win_t **wout,
                                                                     uint64_t *seq)
{
    size_t n;
    char *at = rma_fast_target(1, dt, rank, disp, 1, dt, win, wout, &n);
    if (CR_UNLIKELY(at == NULL || n != sizeof(uint64_t) || !(*wout)->catomic)) return NULL;
    /* lock-free only while no origin is in bulk mode on the target (rma.h,
     * rma_lf_begin; this process's own bulk mode included); the caller
     * ends with rma_lf_end(*wout, *seq) */
    if (CR_UNLIKELY((*seq = rma_lf_begin(*wout, &(*wout)->t[rank])) == 0)) return NULL;
    return (uint64_t *)(void *)at;
}

/* MPI_Fetch_and_op of an 8-byte integer or a double with MPI_SUM, MPI_REPLACE
 * or MPI_NO_OP (the predefined ops every such type takes, so the op check of
 * the full way, acc_check, has nothing to find): the instructions the full
 * way's rma_acc_atomic_elems uses, counted as it counts them. */
static inline __attribute__((always_inline)) int rma_fop_fast(const void *origin_addr,
                                                              void *result_addr,
                                                              MPI_Datatype datatype,
                                                              int target_rank,
                                                              MPI_Aint target_disp, MPI_Op op,
                                                              MPI_Win win)
{
    int isint = rma_fast_int8(datatype);
    if (CR_UNLIKELY(!isint && datatype != MPI_DOUBLE)) return -1;
    if (CR_UNLIKELY(op != MPI_SUM && op != MPI_NO_OP && op != MPI_REPLACE)) return -1;
    cr_win_t *w;
    uint64_t seq;
    uint64_t *q = rma_fast_word(datatype, target_rank, target_disp, win, &w, &seq);
    if (CR_UNLIKELY(q == NULL)) return -1;
    uint64_t v, r;
    if (op == MPI_NO_OP) {
        r = __atomic_load_n(q, __ATOMIC_SEQ_CST);
    } else {
        __builtin_memcpy(&v, origin_addr, 8);
        if (op == MPI_REPLACE) {
            r = __atomic_exchange_n(q, v, __ATOMIC_SEQ_CST);
        } else if (isint) {
            r = __atomic_fetch_add(q, v, __ATOMIC_SEQ_CST);
        } else {
            /* a double sum: a compare-and-swap loop on the bits */
            double a, f;
            __builtin_memcpy(&a, &v, 8);
            r = __atomic_load_n(q, __ATOMIC_SEQ_CST);
            uint64_t nx;
            do {
                __builtin_memcpy(&f, &r, 8);
                f += a;
                __builtin_memcpy(&nx, &f, 8);
            } while (!__atomic_compare_exchange_n(q, &r, nx, 0, __ATOMIC_SEQ_CST,
                                                  __ATOMIC_SEQ_CST));
        }
    }
    rma_lf_end(w, seq);
    __builtin_memcpy(result_addr, &r, 8);
    w->stats.acc_cpu++;
    return MPI_SUCCESS;
}

/* MPI_Compare_and_swap of an 8-byte integer: one locked compare-exchange,
 * the old value into result_addr, as the full way. */
static inline __attribute__((always_inline)) int rma_cas_fast(const void *origin_addr,
                                                              const void *compare_addr,
                                                              void *result_addr,
                                                              MPI_Datatype datatype,
                                                              int target_rank,
                                                              MPI_Aint target_disp, MPI_Win win)
{
    if (CR_UNLIKELY(!rma_fast_int8(datatype))) return -1;
    cr_win_t *w;
    uint64_t seq;
    uint64_t *q = rma_fast_word(datatype, target_rank, target_disp, win, &w, &seq);
    if (CR_UNLIKELY(q == NULL)) return -1;
    uint64_t v, r;
    __builtin_memcpy(&v, origin_addr, 8);
    __builtin_memcpy(&r, compare_addr, 8);
    __atomic_compare_exchange_n(q, &r, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    rma_lf_end(w, seq);
    __builtin_memcpy(result_addr, &r, 8);
    w->stats.acc_cpu++;
    return MPI_SUCCESS;
}

/* MPI_Win_lock without assertions on a target the short ways reach, when
 * the lock word is free at the first look (shared: no exclusive holder;
 * exclusive: no holder): the one compare-and-swap that core_win_lock's
 * target_lock would make first, and its bookkeeping.  A lock that must wait,
 * MPI_MODE_NOCHECK, a target already locked or in a PSCW or lock_all epoch,
 * windows created with no_locks or locked by network atomics, and every
 * error go the full way.  The window is cr_win_hot, so live, and its
 * epoch_begins has nothing to do (not dynamic: t->fast). */
static inline __attribute__((always_inline)) int rma_lock_fast(int lock_type, int rank,
                                                               int assert, MPI_Win win)
{
    cr_win_t *w = cr_win_hot_obj;
    if (CR_UNLIKELY(win != cr_win_hot || w == NULL || assert != 0 ||
                    (unsigned)rank >= (unsigned)w->size))
        return -1;
    if (CR_UNLIKELY(lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)) return -1;
    rma_target_t *t = &w->t[rank];
    if (CR_UNLIKELY(!t->fast || (t->lock | t->posted) || w->lock_all || w->no_locks || w->nlock))
        return -1;
    volatile uint64_t *word = &t->ctl->lock;
    uint64_t v = __atomic_load_n(word, __ATOMIC_RELAXED);
    int type;
    if (lock_type == MPI_LOCK_SHARED) {
        if (CR_UNLIKELY((v & RMA_LOCK_EXCL_BIT) ||
                        !__atomic_compare_exchange_n(word, &v, v + 1, 0, __ATOMIC_ACQUIRE,
                                                     __ATOMIC_RELAXED)))
            return -1;
        type = RMA_SHARED;
    } else {
        if (CR_UNLIKELY(v != 0 ||
                        !__atomic_compare_exchange_n(word, &v, RMA_LOCK_EXCL_BIT, 0,
                                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)))
            return -1;
        type = RMA_EXCL;
    }
    t->lock = (uint8_t)type;
    w->nlocks++;
    w->fence_open = 0;    /* a fence's epoch ends where another kind begins */
    return MPI_SUCCESS;
}

/* MPI_Win_unlock of a lock rma_lock_fast (or core_win_lock without
 * assertions) took on a target the short ways reach: t->lock exactly
 * RMA_SHARED or RMA_EXCL (not by lock_all, not MPI_MODE_NOCHECK), no
 * requests pending in a ring.  The operations on mapped memory are complete;
 * a full fence orders them before the release, as in target_unlock. */
static inline __attribute__((always_inline)) int rma_unlock_fast(int rank, MPI_Win win)
{
    cr_win_t *w = cr_win_hot_obj;
    if (CR_UNLIKELY(win != cr_win_hot || w == NULL || (unsigned)rank >= (unsigned)w->size))
        return -1;
    rma_target_t *t = &w->t[rank];
    int held = t->lock;
    if (CR_UNLIKELY(!t->fast || (held != RMA_SHARED && held != RMA_EXCL) || t->sam_npend ||
                    t->bulk || w->nlock))
        return -1;
    t->lock = RMA_UNLOCKED;
    w->nlocks--;
#if defined(__x86_64__)
    /* a locked instruction is a full fence on x86: the release itself does
     * what target_unlock's fence + release do, one locked instruction
     * instead of two */
    if (held == RMA_EXCL) (void)__atomic_exchange_n(&t->ctl->lock, 0, __ATOMIC_SEQ_CST);
    else __atomic_fetch_sub(&t->ctl->lock, 1, __ATOMIC_SEQ_CST);
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (held == RMA_EXCL) __atomic_store_n(&t->ctl->lock, 0, __ATOMIC_RELEASE);
    else __atomic_fetch_sub(&t->ctl->lock, 1, __ATOMIC_RELEASE);
#endif
    return MPI_SUCCESS;
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
