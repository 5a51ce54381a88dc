/* SPDX-License-Identifier: MIT */
/* Allgather through the node's shared memory (coll_shm.h): every rank packs
 * its block into its slot (its control line when it fits) and posts; then
 * every rank unpacks every other block as it arrives (starting after its own
 * rank, so that they do not all read the same slot at once).  One
 * synchronisation.  Blocks up to a slot.  alpha-beta: alpha_line +
 * p m beta_copy per rank, in parallel. */
#include "coll/coll_shm.h"

int coll_allgather_shm_fits(const cr_comm_t *c, const coll_args_t *a)
{
    (void)c;
    return a->bytes <= coll_shm_slot_cap();
}

int coll_allgather_shm(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh) return coll_fallback(COLL_ALLGATHER, c, a);
    uint64_t n = cshm_begin(sh);
    int me = c->rank, p = c->size;
    size_t bytes = a->bytes;
    int inl = bytes <= CSHM_INLINE;
    void *mine = coll_elem(a->rbuf, (MPI_Aint)me * a->rcount, a->rdt);
    cshm_claim(sh, n);
    void *dst = inl ? (void *)cshm_ctl(sh, me, n)->w : (void *)cshm_slot(sh, me, n);
    if (a->sbuf == MPI_IN_PLACE) {
        cshm_pack(mine, a->rcount, a->rdt, dst);
    } else {
        cshm_pack(a->sbuf, a->scount, a->sdt, dst);
        cshm_unpack(dst, mine, a->rcount, a->rdt);
    }
    cshm_post_all(sh, n);
    for (int k = 1; k < p; k++) {
        int r = (me + k) % p;
        cshm_wait(sh, r, n, CSHM_POSTED);
        const void *src = inl ? (const void *)cshm_ctl(sh, r, n)->w : (const void *)cshm_slot(sh, r, n);
        cshm_unpack(src, coll_elem(a->rbuf, (MPI_Aint)r * a->rcount, a->rdt), a->rcount, a->rdt);
    }
    if (sh->safe < n - 1) sh->safe = n - 1;   /* every rank posted in call n */
    cshm_post(sh, n, CSHM_FIN);
    return MPI_SUCCESS;
}
