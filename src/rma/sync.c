/* SPDX-License-Identifier: MIT */
/* Synchronization: fence, post/start/complete/wait/test, passive-target
 * lock/unlock (shared and exclusive), lock_all/unlock_all, the flushes and
 * MPI_Win_sync.  Locks, post and complete signals to ranks on this node are
 * atomic operations on words of the window's node segment, so a target never
 * has to call MPI for an origin to get on; ranks on other nodes get the same
 * through active messages (am.c).  On windows with nlock every locker, on
 * the node or not, takes the lock words by network atomics (net.c).  Every
 * wait uses the progress engine's waiting policy. */
#define _GNU_SOURCE
#include "rma/rma.h"
#include "rma/api.h"
#include "core/comm_priv.h"
#include "coll/api.h"
#include "util/settings.h"

#include <sched.h>
#include <stdlib.h>

enum { RMA_LOCK_NOCHECK = 0x10, RMA_LOCK_VIA_ALL = 0x20, RMA_LOCK_TYPE = 0x3 };
enum { ACC_SPINS = 64 };

/* ---- words in shared memory ---------------------------------------------------------- */
void rma_acc_lock(rma_ctl_t *c)
{
    unsigned spins = 0;
    while (__atomic_exchange_n(&c->acc, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(&c->acc, __ATOMIC_RELAXED)) {
            /* the holder is inside a short operation; it may have lost its core */
            if (++spins % ACC_SPINS == 0) sched_yield();
            else __builtin_ia32_pause();
        }
    }
}

void rma_acc_unlock(rma_ctl_t *c)
{
    __atomic_store_n(&c->acc, 0, __ATOMIC_RELEASE);
}

int rma_lock_try(volatile uint64_t *word, int type)
{
    uint64_t v = __atomic_load_n(word, __ATOMIC_RELAXED);
    if (type == RMA_EXCL)
        return v == 0 && __atomic_compare_exchange_n(word, &v, RMA_LOCK_EXCL_BIT, 0,
                                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
    return !(v & RMA_LOCK_EXCL_BIT) &&
           __atomic_compare_exchange_n(word, &v, v + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

void rma_lock_release(volatile uint64_t *word, int type)
{
    if (type == RMA_EXCL) __atomic_store_n(word, 0, __ATOMIC_RELEASE);
    else __atomic_fetch_sub(word, 1, __ATOMIC_RELEASE);
}

void rma_wait_flag(volatile int *flag)
{
    cr_progress_wait(flag);
}

/* Wait, with progress, until the 64-bit counter reaches want. */
static void wait_count(volatile uint64_t *c, uint64_t want)
{
    cr_wait_t w = CR_WAIT_INIT;
    while (__atomic_load_n(c, __ATOMIC_ACQUIRE) < want) cr_wait_poll(&w);
}

static int check_rank(cr_win_t *win, int rank, const char *what)
{
    if (rank < 0 || rank >= win->size)
        return cr_error(MPI_ERR_RANK, "rank=%d: not a rank of the window (size %d) in %s", rank,
                        win->size, what);
    return MPI_SUCCESS;
}

/* A new epoch: what this process learnt of the regions attached to a dynamic
 * window's targets may have changed since the last one. */
static void epoch_begins(cr_win_t *win)
{
    if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC) rma_net_dyn_forget(win);
}

/* ---- passive target -------------------------------------------------------------------- */
static int target_lock(cr_win_t *win, int rank, int type)
{
    rma_target_t *t = &win->t[rank];
    if (win->nlock) return rma_net_lock(win, rank, type);   /* every locker by the network */
    if (t->path == RMA_AM) return rma_am_lock(win, rank, type);
    cr_wait_t w = CR_WAIT_INIT;
    while (!rma_lock_try(&t->ctl->lock, type)) cr_wait_poll(&w);
    return MPI_SUCCESS;
}

/* Complete the operations to rank and release the lock held on it. */
static int target_unlock(cr_win_t *win, int rank)
{
    rma_target_t *t = &win->t[rank];
    rma_bulk_end(win, rank, 0);      /* the epoch's end (ops.c) */
    /* requests in its ring first (shmam.c); the lock goes even when one failed */
    int held = t->lock, err = rma_sam_settle(win, rank);
    t->lock = RMA_UNLOCKED;
    if (held & RMA_LOCK_NOCHECK) {   /* no lock word taken: complete the operations only */
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        return err ? err : t->path == RMA_AM ? rma_am_flush(win, rank) : MPI_SUCCESS;
    }
    if (win->nlock) {
        /* the operations are complete at the target before the word says so */
        if (!err && t->path == RMA_AM) err = rma_am_flush(win, rank);
        int e = rma_net_unlock(win, rank, held & RMA_LOCK_TYPE);
        return err ? err : e;
    }
    if (t->path == RMA_AM) return rma_am_unlock(win, rank, held & RMA_LOCK_TYPE);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    rma_lock_release(&t->ctl->lock, held & RMA_LOCK_TYPE);
    return err;
}

int core_win_lock(int lock_type, int rank, int assert, cr_win_t *win)
{
    rma_fast_remember(win);     /* the short ways' window (fast.h) */
    epoch_begins(win);
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
        return cr_error(MPI_ERR_LOCKTYPE, "lock_type=%d: neither MPI_LOCK_SHARED nor "
                        "MPI_LOCK_EXCLUSIVE", lock_type);
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    int err = check_rank(win, rank, "MPI_Win_lock");
    if (err) return err;
    if (win->no_locks)
        return cr_error(MPI_ERR_RMA_SYNC, "the window was created with the info no_locks=true: "
                        "it cannot be locked");
    rma_target_t *t = &win->t[rank];
    if (t->lock || win->lock_all)
        return cr_error(MPI_ERR_RMA_SYNC, "rank %d of the window is locked already by this "
                        "process (%s)", rank, win->lock_all ? "MPI_Win_lock_all" : "MPI_Win_lock");
    if (t->posted)
        return cr_error(MPI_ERR_RMA_SYNC, "rank %d is in this process's MPI_Win_start access "
                        "epoch; call MPI_Win_complete first", rank);
    int type = lock_type == MPI_LOCK_EXCLUSIVE ? RMA_EXCL : RMA_SHARED;
    if (assert & MPI_MODE_NOCHECK) {
        t->lock = (uint8_t)(type | RMA_LOCK_NOCHECK);
    } else {
        if ((err = target_lock(win, rank, type))) return err;
        t->lock = (uint8_t)type;
    }
    win->nlocks++;
    win->fence_open = 0;    /* a fence's epoch ends where another kind begins */
    return MPI_SUCCESS;
}

int core_win_unlock(int rank, cr_win_t *win)
{
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    int err = check_rank(win, rank, "MPI_Win_unlock");
    if (err) return err;
    rma_target_t *t = &win->t[rank];
    if (!t->lock || (t->lock & RMA_LOCK_VIA_ALL))
        return cr_error(MPI_ERR_RMA_SYNC, "rank %d of the window is not locked by this process "
                        "with MPI_Win_lock", rank);
    win->nlocks--;
    return target_unlock(win, rank);
}

int core_win_lock_all(int assert, cr_win_t *win)
{
    rma_fast_remember(win);     /* the short ways' window (fast.h) */
    epoch_begins(win);
    if (win->no_locks)
        return cr_error(MPI_ERR_RMA_SYNC, "the window was created with the info no_locks=true: "
                        "it cannot be locked");
    if (win->lock_all || win->nlocks)
        return cr_error(MPI_ERR_RMA_SYNC, "the window is locked already by this process (%s)",
                        win->lock_all ? "MPI_Win_lock_all" : "MPI_Win_lock");
    rma_bulk_end_all(win, 0);        /* a fence's epoch ends here (ops.c) */
    /* by network atomics: every rank's lock word at once (one round trip) */
    if (win->nlock && !(assert & MPI_MODE_NOCHECK)) {
        int err = rma_net_lock_all(win);
        if (err) return err;
    }
    for (int r = 0; r < win->size; r++) {
        int err = (assert & MPI_MODE_NOCHECK) || win->nlock ? MPI_SUCCESS
                                                             : target_lock(win, r, RMA_SHARED);
        if (err) return err;
        win->t[r].lock = (uint8_t)(RMA_SHARED | RMA_LOCK_VIA_ALL |
                                   ((assert & MPI_MODE_NOCHECK) ? RMA_LOCK_NOCHECK : 0));
    }
    win->lock_all = 1;
    win->fence_open = 0;
    return MPI_SUCCESS;
}

int core_win_unlock_all(cr_win_t *win)
{
    if (!win->lock_all)
        return cr_error(MPI_ERR_RMA_SYNC, "the window is not locked with MPI_Win_lock_all by "
                        "this process");
    int err = MPI_SUCCESS;
    if (win->nlock && !(win->t[0].lock & RMA_LOCK_NOCHECK)) {
        /* the operations complete at every target (in flight together),
         * then every lock word is released at once */
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        rma_bulk_end_all(win, 0);
        for (int r = 0; r < win->size; r++) {
            rma_target_t *t = &win->t[r];
            t->lock = RMA_UNLOCKED;
            int e = t->path == RMA_AM ? rma_am_flush(win, r) : rma_sam_settle(win, r);
            if (e && !err) err = e;
        }
        int e = rma_net_unlock_all(win);
        win->lock_all = 0;
        return err ? err : e;
    }
    for (int r = 0; r < win->size; r++) {
        int e = target_unlock(win, r);
        if (e && !err) err = e;
    }
    win->lock_all = 0;
    return err;
}

int core_win_flush(int rank, cr_win_t *win)
{
    rma_fast_remember(win);     /* the short ways' window (fast.h) */
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    int err = check_rank(win, rank, "MPI_Win_flush");
    if (err) return err;
    rma_target_t *t = &win->t[rank];
    if (!t->lock && !win->fence_open && !t->posted)
        return cr_error(MPI_ERR_RMA_SYNC, "rank %d of the window is not locked by this process: "
                        "flush needs a passive-target epoch", rank);
    if (t->path == RMA_AM) return rma_am_flush(win, rank);
    if ((err = rma_sam_settle(win, rank))) return err;   /* requests (shmam.c) */
    /* operations on mapped memory and copies completed when they returned */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return MPI_SUCCESS;
}

int core_win_flush_all(cr_win_t *win)
{
    for (int r = 0; r < win->size && win->sam; r++) {
        int err = rma_sam_settle(win, r);
        if (err) return err;
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int r = 0; r < win->size && win->am_targets; r++)
        if (win->t[r].path == RMA_AM) {
            int err = rma_am_flush(win, r);
            if (err) return err;
        }
    int err = win->first_err;
    win->first_err = MPI_SUCCESS;
    return err;
}

/* Local completion: the origin buffers are free again, which every path
 * gives when its calls return (AM operations copy their data out), and the
 * result buffers are filled, which accumulates by network atomics that were
 * not waited for (nacc_open) give only when they complete. */
static int local_complete(cr_win_t *win, int rank)
{
    rma_target_t *t = &win->t[rank];
    if (!t->nacc_open) return MPI_SUCCESS;
    t->nacc_open = 0;
    return rma_net_drain(win, rank);
}

int core_win_flush_local(int rank, cr_win_t *win)
{
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    int err = check_rank(win, rank, "MPI_Win_flush_local");
    if (err) return err;
    rma_target_t *t = &win->t[rank];
    if (!t->lock && !win->fence_open && !t->posted)
        return cr_error(MPI_ERR_RMA_SYNC, "rank %d of the window is not locked by this process: "
                        "flush needs a passive-target epoch", rank);
    return local_complete(win, rank);
}

int core_win_flush_local_all(cr_win_t *win)
{
    int err = MPI_SUCCESS;
    for (int r = 0; r < win->size && win->am_targets; r++) {
        int e = local_complete(win, r);
        if (e && !err) err = e;
    }
    return err;
}

int core_win_sync(cr_win_t *win)
{
    (void)win;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return MPI_SUCCESS;
}

/* ---- fence ------------------------------------------------------------------------------- */
int core_win_fence(int assert, cr_win_t *win)
{
    rma_fast_remember(win);     /* the short ways' window (fast.h) */
    epoch_begins(win);
    if (win->nlocks || win->lock_all || win->nstart >= 0 || win->exposed)
        return cr_error(MPI_ERR_RMA_SYNC, "MPI_Win_fence inside a %s epoch",
                        win->nlocks || win->lock_all ? "passive-target (lock)" :
                        "post/start/complete/wait");
    int err = MPI_SUCCESS;
    rma_bulk_end_all(win, 0);        /* the epoch's end (ops.c) */
    if (!(assert & MPI_MODE_NOPRECEDE)) err = core_win_flush_all(win);
    /* the barrier orders every rank's operations before any rank's next epoch:
     * the window's own communicator's collective barrier (on one node the
     * shared-memory one, its area made at the first fence), or point-to-point
     * messages (COURIER_RMA_FENCE_COLL) */
    if (!err && !((assert & MPI_MODE_NOPRECEDE) && (assert & MPI_MODE_NOSUCCEED)))
        err = ut_settings.rma_fence_coll ? core_barrier(win->comm, CR_BLOCKING, NULL, NULL)
                                         : cr_barrier_internal(win->comm);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    win->fence_open = !(assert & MPI_MODE_NOSUCCEED);
    return err;
}

/* ---- post / start / complete / wait ------------------------------------------------------- */
/* The window ranks of the members of group, in group order; -1 for strangers. */
static int group_ranks(cr_win_t *win, cr_group_t *g, int **out)
{
    int *r = malloc(sizeof(int) * (size_t)(g->size ? g->size : 1));
    if (!r) return cr_error(MPI_ERR_NO_MEM, "no memory");
    for (int i = 0; i < g->size; i++) {
        r[i] = -1;
        for (int k = 0; k < win->size; k++)
            if (win->t[k].world == g->world[i]) {
                r[i] = k;
                break;
            }
        if (r[i] < 0) {
            free(r);
            return cr_error(MPI_ERR_GROUP, "rank %d of the group is not in the window's group", i);
        }
    }
    *out = r;
    return MPI_SUCCESS;
}

int core_win_post(cr_group_t *group, int assert, cr_win_t *win)
{
    if (win->exposed)
        return cr_error(MPI_ERR_RMA_SYNC, "MPI_Win_post: an exposure epoch is open already "
                        "(call MPI_Win_wait first)");
    int *r, err = group_ranks(win, group, &r);
    if (err) return err;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);    /* my stores before the origins' accesses */
    for (int i = 0; i < group->size && !(assert & MPI_MODE_NOCHECK) && !err; i++) {
        rma_target_t *o = &win->t[r[i]];
        if (o->local >= 0)
            __atomic_fetch_add(rma_posted(win, o->local) + win->rank, 1, __ATOMIC_RELEASE);
        else
            err = rma_am_post(win, r[i]);
    }
    free(r);
    if (err) return err;
    win->exposed = 1;
    win->complete_expect += (uint64_t)group->size;
    return MPI_SUCCESS;
}

int core_win_start(cr_group_t *group, int assert, cr_win_t *win)
{
    rma_fast_remember(win);     /* the short ways' window (fast.h) */
    epoch_begins(win);
    if (win->nstart >= 0)
        return cr_error(MPI_ERR_RMA_SYNC, "MPI_Win_start: an access epoch is open already "
                        "(call MPI_Win_complete first)");
    if (win->nlocks || win->lock_all)
        return cr_error(MPI_ERR_RMA_SYNC, "MPI_Win_start inside a passive-target (lock) epoch");
    rma_bulk_end_all(win, 0);        /* a fence's epoch ends here (ops.c) */
    int *r, err = group_ranks(win, group, &r);
    if (err) return err;
    for (int i = 0; i < group->size; i++) {
        rma_target_t *t = &win->t[r[i]];
        if (!(assert & MPI_MODE_NOCHECK)) {
            wait_count(t->posted_to_me, t->posts_seen + 1);
            t->posts_seen++;
        }
        t->posted = 1;
    }
    free(win->start_ranks);
    win->start_ranks = r;
    win->nstart = group->size;
    win->fence_open = 0;
    return MPI_SUCCESS;
}

int core_win_complete(cr_win_t *win)
{
    if (win->nstart < 0)
        return cr_error(MPI_ERR_RMA_SYNC, "MPI_Win_complete without MPI_Win_start");
    int err = MPI_SUCCESS;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int i = 0; i < win->nstart; i++) {
        int k = win->start_ranks[i];
        rma_target_t *t = &win->t[k];
        t->posted = 0;
        rma_bulk_end(win, k, 0);
        int e = rma_sam_settle(win, k);
        if (e && !err) err = e;
        e = t->path == RMA_AM ? rma_am_complete(win, k)
                                  : (__atomic_fetch_add(&t->ctl->complete, 1, __ATOMIC_RELEASE),
                                     MPI_SUCCESS);
        if (e && !err) err = e;
    }
    win->nstart = -1;
    if (!err) err = win->first_err;
    win->first_err = MPI_SUCCESS;
    return err;
}

int core_win_wait(cr_win_t *win)
{
    if (!win->exposed)
        return cr_error(MPI_ERR_RMA_SYNC, "MPI_Win_wait without MPI_Win_post");
    wait_count(&win->me->complete, win->complete_expect);
    win->exposed = 0;
    return MPI_SUCCESS;
}

int core_win_test(cr_win_t *win, int *flag)
{
    if (!win->exposed)
        return cr_error(MPI_ERR_RMA_SYNC, "MPI_Win_test without MPI_Win_post");
    if (__atomic_load_n(&win->me->complete, __ATOMIC_ACQUIRE) < win->complete_expect) {
        cr_progress();
        if (__atomic_load_n(&win->me->complete, __ATOMIC_ACQUIRE) < win->complete_expect) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    win->exposed = 0;
    *flag = 1;
    return MPI_SUCCESS;
}
