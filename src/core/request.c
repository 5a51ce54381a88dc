/* SPDX-License-Identifier: MIT */
/* Request objects (a free-list pool). */
#define _GNU_SOURCE
#include "core/pt2pt.h"
#include "core/comm_priv.h"
#include "util/settings.h"

#include <stdlib.h>
#include <string.h>

cr_objtab_t cr_request_tab;
static cr_request_t *pool;     /* free requests, under the library lock */
static cr_lock_t tab_lock = CR_LOCK_INIT;   /* a leaf lock: adding to cr_request_tab */

/* Zero a request with plain 16-byte stores.  A memset of this size compiles to
 * `rep stosq`, whose start-up cost was a third of MPI_Isend's time in the
 * message-rate benchmark (perf); the attribute keeps GCC from turning this
 * loop back into that memset.  Unrolled: the loop's counter, compare and
 * branch were three of every four instructions (60 of MPI_Isend's 371 and of
 * MPI_Irecv's, callgrind), the stores are what it is for. */
_Static_assert(sizeof(cr_request_t) % 16 == 0, "cr_request_t is cleared in 16-byte words");
__attribute__((optimize("no-tree-loop-distribute-patterns")))
static inline void request_clear(cr_request_t *r)
{
    typedef uint64_t u64x2 __attribute__((vector_size(16)));
    u64x2 *w = (u64x2 *)(void *)r;      /* malloc'd: 16-byte aligned */
#pragma GCC unroll 64
    for (size_t i = 0; i < sizeof *r / 16; i++) w[i] = (u64x2){ 0, 0 };
}

/* Make a request object (from a pool, keeping its table slot, or new) ready. */
static void request_init(cr_request_t *r, cr_req_kind_t kind, int slot)
{
    request_clear(r);
    r->kind = kind;
    r->handle = MPI_REQUEST_NULL;
    r->slot = slot;
    r->vpeer = -1;
}

cr_request_t *cr_request_new(cr_req_kind_t kind, int with_handle)
{
    cr_request_t *r = pool;
    int slot = -1;
    if (r) {
        pool = r->next;
        slot = r->slot;
    } else if (!(r = malloc(sizeof *r))) {
        return NULL;
    }
    request_init(r, kind, slot);
    if (with_handle && cr_request_attach_handle(r) != MPI_SUCCESS) {
        r->next = pool;
        pool = r;
        return NULL;
    }
    return r;
}

/* With the channel locks on, the caller holds ch's lock (pt2pt.h, pool). */
cr_request_t *cr_chan_request_new(cr_chan_t *ch, cr_req_kind_t kind)
{
    if (!cr_chan_locking) return cr_request_new(kind, 0);
    cr_request_t *r = ch->pool;
    if (!r && __atomic_load_n(&ch->pool_remote, __ATOMIC_RELAXED)) {
        cr_lock(&ch->pool_lock);
        r = ch->pool_remote;
        __atomic_store_n(&ch->pool_remote, NULL, __ATOMIC_RELAXED);
        cr_unlock(&ch->pool_lock);
    }
    if (r) ch->pool = r->next;
    int slot = -1;
    if (r) slot = r->slot;
    else if (!(r = malloc(sizeof *r))) return NULL;
    request_init(r, kind, slot);
    r->home = ch;
    return r;
}

void cr_request_retire(cr_request_t *r)
{
    r->home = NULL;
    r->next = pool;
    pool = r;
}

/* The first handle of a request object: its own table slot, kept while the
 * object is recycled through the pool (cr_request_attach_handle, core.h). */
int cr_request_attach_slot(cr_request_t *r)
{
    /* a thread of the channel path may add a slot beside the library lock */
    cr_lock(&tab_lock);
    int idx = cr_objtab_add(&cr_request_tab, r);
    cr_unlock(&tab_lock);
    if (idx < 0) return cr_error(MPI_ERR_NO_MEM, "out of memory for request handles");
    r->slot = idx;
    r->handle = CR_H_MAKE(CR_ST_USER, CR_K_REQUEST, r->slot);
    return MPI_SUCCESS;
}

/* Requests that keep a communicator beyond their start: persistent
 * point-to-point (and partitioned) requests, and MPI_Message handles. */
static inline int holds_comm(const cr_request_t *r)
{
    return r->kind == CR_REQ_MPROBE ||
           (r->persistent && (r->kind == CR_REQ_PREQ_SEND || r->kind == CR_REQ_PREQ_RECV));
}

void cr_request_hold_comm(cr_request_t *r, cr_comm_t *comm)
{
    r->comm = comm;
    comm->refcount++;
}

void cr_request_free(cr_request_t *r)
{
    if (r->on_free) r->on_free(r);
    if (holds_comm(r) && r->comm) cr_comm_release(r->comm);
    r->comm = NULL;
    r->handle = MPI_REQUEST_NULL;      /* the slot stays with the object */
    if (r->tmp) {
        free(r->tmp);
        r->tmp = NULL;
    }
    if (r->dt) cr_dt_release(r->dt);
    r->dt = NULL;
    cr_chan_t *home = r->home;
    if (CR_UNLIKELY(home != NULL)) {
        /* the owner is this thread only while it holds home's lock: no other
         * thread stores this thread's id there */
        if (pthread_equal(__atomic_load_n(&home->owner, __ATOMIC_RELAXED), pthread_self())) {
            r->next = home->pool;
            home->pool = r;
            return;
        }
        cr_lock(&home->pool_lock);
        r->next = home->pool_remote;
        __atomic_store_n(&home->pool_remote, r, __ATOMIC_RELAXED);
        cr_unlock(&home->pool_lock);
        return;
    }
    r->next = pool;
    pool = r;
}
