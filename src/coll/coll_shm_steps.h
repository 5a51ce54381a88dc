/* SPDX-License-Identifier: MIT */
/* The steps of the shm algorithms of bcast, allreduce, allgather and gather, written
 * once for the blocking calls (coll_<x>_shm.c) and the non-blocking calls'
 * state machines (coll_nbshm.c), which run the same steps on the view of
 * their own sequence (coll_shm_t.nb): the blocking call waits between them,
 * a machine returns where a peer is not there yet and runs the step again
 * later.  Each is for call n on area (or view) sh, after the claim of what it
 * writes (cshm_claim, cshm_claim_data: the blocking calls wait in it;
 * cshm_claim_ready: the machines test it).  Inline, so that the blocking
 * calls, which pass wait = 1, pay no call or test for them (callgrind:
 * out-of-line, a blocking 8-byte MPI_Allgather at two ranks took 31 more
 * instructions). */
#ifndef COURIER_COLL_SHM_STEPS_H
#define COURIER_COLL_SHM_STEPS_H
#include "coll/coll_shm.h"

/* ---- bcast (coll_bcast_shm.c) --------------------------------------------------------- */
/* Where data of `bytes` go (cshm_data): inline only up to CSHM_INLINE - 8
 * bytes, since the line's word CSHM_BCAST_BYTES carries the byte count. */
static inline size_t cshm_bcast_place(size_t bytes)
{
    return bytes <= CSHM_INLINE - 8 || bytes > CSHM_INLINE ? bytes : CSHM_INLINE + 1;
}
/* The root: pack the message there (at: cshm_bcast_place), write its byte
 * count and post FIN; it is done. */
static inline void cshm_bcast_put(coll_shm_t *sh, uint64_t n, const coll_args_t *a, size_t at)
{
    cshm_pack(a->rbuf, a->count, a->dt, cshm_data(sh, sh->me, n, at));
    cshm_ctl(sh, sh->me, n)->w[CSHM_BCAST_BYTES] = a->bytes;
    cshm_post(sh, n, CSHM_FIN);
}

/* ---- allreduce (coll_allreduce_shm.c) ------------------------------------------------ */
/* Copy this rank's operand into its line, cell or slot (cshm_operand, which
 * it returns); the caller then posts CSHM_POSTED (or meets). */
static inline void *cshm_allreduce_put(coll_shm_t *sh, uint64_t n, const coll_args_t *a)
{
    const void *src = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    void *opnd = cshm_operand(sh, sh->me, n, a->count, a->dt);
    coll_copy(src, opnd, a->count, a->dt);
    return opnd;
}
/* Fold all p operands in recursive doubling's association into recvbuf
 * (waiting for each as the fold needs it: a machine comes here once every
 * rank posted).  The blocking call posts no FIN after it (its next call's
 * first post says it is done: cshm_post_once); a state machine does. */
static inline void cshm_allreduce_fold(coll_shm_t *sh, uint64_t n, const coll_args_t *a)
{
    cshm_slots_t o = { sh, n, a->count, a->dt, CSHM_POSTED, NULL, 0 };
    cshm_fold_order(a->op, cshm_slot_operand, &o, sh->p, a->rbuf, a->count, a->dt,
                    cshm_order_allreduce());
    if (sh->safe < n - 1) sh->safe = n - 1;   /* every rank posted in call n */
}

/* ---- allgather (coll_allgather_shm.c) ------------------------------------------------- */
/* Where rank r's block of call n travels: its control line when it fits,
 * else its slot (not the cells: every rank writes at once). */
static inline void *cshm_allgather_block(const coll_shm_t *sh, int r, uint64_t n,
                                         const coll_args_t *a)
{
    return a->bytes <= CSHM_INLINE ? (void *)cshm_ctl(sh, r, n)->w : (void *)cshm_slot(sh, r, n);
}
/* Pack this rank's block there and into its own place of recvbuf; the caller
 * then posts CSHM_POSTED. */
static inline void cshm_allgather_put(coll_shm_t *sh, uint64_t n, const coll_args_t *a)
{
    void *mine = coll_elem(a->rbuf, (MPI_Aint)sh->me * a->rcount, a->rdt);
    void *dst = cshm_allgather_block(sh, sh->me, n, a);
    if (a->sbuf == MPI_IN_PLACE) {
        cshm_pack(mine, a->rcount, a->rdt, dst);
    } else {
        cshm_pack(a->sbuf, a->scount, a->sdt, dst);
        cshm_unpack(dst, mine, a->rcount, a->rdt);
    }
}
/* Unpack the other ranks' blocks, from rank me + *k on, each once it is
 * posted (wait: waiting for it; else return 0 at the first not there yet,
 * *k saying where to go on), then return 1.  It posts no FIN: the blocking
 * call posts none where ranks do not meet (nobody waits for it in the call;
 * its next call's first post says it is done: cshm_post_once), a state
 * machine and a meeting call do. */
static inline int cshm_allgather_take(coll_shm_t *sh, uint64_t n, const coll_args_t *a, int *k,
                                      int wait)
{
    int me = sh->me, p = sh->p;
    for (; *k < p; ++*k) {
        int r = cshm_peer(me, *k, p);
        if (wait) cshm_wait(sh, r, n, CSHM_POSTED);
        else if (!cshm_reached(sh, r, n, CSHM_POSTED)) return 0;
        cshm_unpack(cshm_allgather_block(sh, r, n, a),
                    coll_elem(a->rbuf, (MPI_Aint)r * a->rcount, a->rdt), a->rcount, a->rdt);
    }
    if (sh->safe < n - 1) sh->safe = n - 1;   /* every rank posted in call n */
    return 1;
}

/* ---- gather (coll_gather_shm.c) ------------------------------------------------------- */
/* A rank other than the root: pack its block into its line, cell or slot
 * (cshm_data) and post FIN; it is done. */
static inline void cshm_gather_put(coll_shm_t *sh, uint64_t n, const coll_args_t *a)
{
    cshm_pack(a->sbuf, a->scount, a->sdt, cshm_data(sh, sh->me, n, a->bytes));
    cshm_post(sh, n, CSHM_FIN);
}
/* The root: its own block into recvbuf. */
static inline void cshm_gather_own(const coll_shm_t *sh, const coll_args_t *a)
{
    if (a->sbuf != MPI_IN_PLACE)
        cshm_copy(a->sbuf, a->scount, a->sdt,
                  coll_elem(a->rbuf, (MPI_Aint)sh->me * a->rcount, a->rdt), a->rcount, a->rdt);
}
/* The root: the others' blocks from rank me + *k on, each once it is there
 * (FIN), as cshm_allgather_take; then post FIN and return 1. */
static inline int cshm_gather_take(coll_shm_t *sh, uint64_t n, const coll_args_t *a, int *k,
                                   int wait)
{
    int me = sh->me, p = sh->p;
    for (; *k < p; ++*k) {
        int r = cshm_peer(me, *k, p);
        if (wait) cshm_wait(sh, r, n, CSHM_FIN);
        else if (!cshm_reached(sh, r, n, CSHM_FIN)) return 0;
        cshm_unpack(cshm_data(sh, r, n, a->bytes),
                    coll_elem(a->rbuf, (MPI_Aint)r * a->rcount, a->rdt), a->rcount, a->rdt);
    }
    cshm_post(sh, n, CSHM_FIN);
    return 1;
}
#endif
