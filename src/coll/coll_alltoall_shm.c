/* SPDX-License-Identifier: MIT */
/* Alltoall through the node's shared memory (coll_shm.h): every rank packs
 * all p of its blocks into its slot and posts; then every rank unpacks the
 * block meant for it from every other slot as it arrives.  MPI_IN_PLACE
 * works because the whole buffer is packed before anything is written.  One
 * synchronisation; for p blocks that fit in a slot.  alpha-beta: alpha_line +
 * 2 p m beta_copy per rank, in parallel. */
#include "coll/coll_shm.h"

int coll_alltoall_shm_fits(const cr_comm_t *c, const coll_args_t *a)
{
    return a->bytes * (size_t)c->size <= coll_shm_slot_cap();
}

int coll_alltoall_shm(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh) return coll_fallback(COLL_ALLTOALL, c, a);
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
    cshm_post_all(sh, n);
    for (int k = 1; k < p; k++) {
        int r = (me + k) % p;
        cshm_wait(sh, r, n, CSHM_POSTED);
        const char *src = inl ? (const char *)cshm_ctl(sh, r, n)->w : cshm_slot(sh, r, n);
        cshm_unpack(src + (size_t)me * bytes, coll_elem(a->rbuf, (MPI_Aint)r * a->rcount, a->rdt),
                    a->rcount, a->rdt);
    }
    if (sh->safe < n - 1) sh->safe = n - 1;   /* every rank posted in call n */
    cshm_post(sh, n, CSHM_FIN);
    return MPI_SUCCESS;
}
