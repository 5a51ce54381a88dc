/* SPDX-License-Identifier: MIT */
/* Alltoall through the node's shared memory (coll_shm.h): every rank packs
 * all p of its blocks into its slot and posts; then every rank unpacks the
 * block meant for it from every other slot as it arrives.  MPI_IN_PLACE
 * works because the whole buffer is packed before anything is written.  One
 * synchronisation; for p blocks that fit in a slot.  alpha-beta: alpha_line +
 * 2 p m beta_copy per rank, in parallel.
 *
 * When ranks outnumber cores and the p blocks do not fit a slot (64 ranks
 * of 1 KiB blocks), it goes in rounds, each a call of its own on the area:
 * round j carries the blocks for the destinations that fit a slot, every
 * rank packs its blocks for them, posts (a meeting), and those destinations
 * unpack theirs.  So a few meetings replace the p - 1 steps of the pairwise
 * exchange, each of which waits for a partner that is most likely not
 * running, and the p (p - 1) cross-memory copies of single copy.  Not in
 * place (the receive buffer would overwrite blocks still to be sent). */
#include "coll/coll_shm.h"

/* Destinations per round of a call whose p blocks do not fit a slot: 0 when
 * rounds do not apply. */
static int round_dests(const cr_comm_t *c, const coll_args_t *a)
{
    size_t cap = coll_shm_slot_cap();
    if (!cr_proc.oversubscribed || a->sbuf == MPI_IN_PLACE || a->bytes == 0 || a->bytes > cap)
        return 0;
    size_t per = cap / a->bytes;
    return per < (size_t)c->size ? (int)per : 0;
}

int coll_alltoall_shm_fits(const cr_comm_t *c, const coll_args_t *a)
{
    return a->bytes * (size_t)c->size <= coll_shm_slot_cap() || round_dests(c, a) > 0;
}

/* The rounds (see the head comment): per destinations each. */
static int alltoall_rounds(coll_shm_t *sh, const coll_args_t *a, int per)
{
    int me = sh->me, p = sh->p;
    size_t bytes = a->bytes;
    /* this rank's own block does not travel */
    cshm_copy(coll_elem(a->sbuf, (MPI_Aint)me * a->scount, a->sdt), a->scount, a->sdt,
              coll_elem(a->rbuf, (MPI_Aint)me * a->rcount, a->rdt), a->rcount, a->rdt);
    for (int d0 = 0; d0 < p; d0 += per) {
        int d1 = d0 + per < p ? d0 + per : p;
        uint64_t n = cshm_begin(sh);
        cshm_claim(sh, n);
        cshm_pack(coll_elem(a->sbuf, (MPI_Aint)d0 * a->scount, a->sdt),
                  (MPI_Aint)(d1 - d0) * a->scount, a->sdt, cshm_slot(sh, me, n));
        cshm_post_all(sh, n);
        if (me >= d0 && me < d1)
            for (int k = 1; k < p; k++) {
                int r = cshm_peer(me, k, p);
                cshm_wait(sh, r, n, CSHM_POSTED);
                cshm_unpack(cshm_slot(sh, r, n) + (size_t)(me - d0) * bytes,
                            coll_elem(a->rbuf, (MPI_Aint)r * a->rcount, a->rdt), a->rcount, a->rdt);
            }
        if (sh->safe < n - 1) sh->safe = n - 1;   /* every rank posted in call n */
        cshm_post(sh, n, CSHM_FIN);
    }
    return MPI_SUCCESS;
}

int coll_alltoall_shm(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh) return coll_fallback(COLL_ALLTOALL, c, a);
    int per = round_dests(c, a);
    if (per > 0) return alltoall_rounds(sh, a, per);
    uint64_t n = cshm_begin(sh);
    int me = c->rank, p = c->size;
    size_t bytes = a->bytes;
    int inl = bytes * (size_t)p <= CSHM_INLINE;
    cshm_claim(sh, n);
    char *dst = inl ? (char *)cshm_ctl(sh, me, n)->w : cshm_slot(sh, me, n);
    if (a->sbuf == MPI_IN_PLACE) {
        cshm_pack(a->rbuf, (MPI_Aint)p * a->rcount, a->rdt, dst);
    } else {
        cshm_pack(a->sbuf, (MPI_Aint)p * a->scount, a->sdt, dst);
        cshm_unpack(dst + (size_t)me * bytes, coll_elem(a->rbuf, (MPI_Aint)me * a->rcount, a->rdt),
                    a->rcount, a->rdt);
    }
    /* where ranks do not meet, one post per call and no FIN: the first post
     * of this rank's next call says it no longer reads the others' blocks
     * (cshm_post_once) */
    if (sh->meet) cshm_post_all(sh, n);
    else cshm_post_once(sh, n, CSHM_POSTED);
    for (int k = 1; k < p; k++) {
        int r = cshm_peer(me, k, p);
        cshm_wait(sh, r, n, CSHM_POSTED);
        const char *src = inl ? (const char *)cshm_ctl(sh, r, n)->w : cshm_slot(sh, r, n);
        cshm_unpack(src + (size_t)me * bytes, coll_elem(a->rbuf, (MPI_Aint)r * a->rcount, a->rdt),
                    a->rcount, a->rdt);
    }
    if (sh->safe < n - 1) sh->safe = n - 1;   /* every rank posted in call n */
    if (sh->meet) cshm_post(sh, n, CSHM_FIN);
    return MPI_SUCCESS;
}
