/* SPDX-License-Identifier: MIT */
/* Scatter through the node's shared memory (coll_shm.h): the root packs all
 * p blocks into its control line, cell or slot (cshm_data) and posts; every
 * other rank unpacks its own block.  The root does not wait: it runs up to
 * CSHM_NBUF calls ahead of the readers, nline calls (COURIER_COLL_SHM_LINES)
 * when the p blocks fit in the line or the cell.
 * For p blocks that fit in a slot.  alpha-beta:
 * alpha_line + p m beta_copy at the root + m beta_copy (in parallel). */
#include "coll/coll_shm.h"

int coll_scatter_shm_fits(const cr_comm_t *c, const coll_args_t *a)
{
    return a->bytes * (size_t)c->size <= coll_shm_slot_cap();
}

int coll_scatter_shm(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh) return coll_fallback(COLL_SCATTER, c, a);
    uint64_t n = cshm_begin(sh);
    int me = c->rank, p = c->size, root = a->root;
    size_t bytes = a->bytes, all = bytes * (size_t)p;
    if (me == root) {
        cshm_claim_data(sh, n, all);
        cshm_pack(a->sbuf, (MPI_Aint)p * a->scount, a->sdt, cshm_data(sh, root, n, all));
        cshm_post(sh, n, CSHM_FIN);
        if (a->rbuf != MPI_IN_PLACE)
            cshm_copy(coll_elem(a->sbuf, (MPI_Aint)me * a->scount, a->sdt), a->scount, a->sdt,
                      a->rbuf, a->rcount, a->rdt);
        return MPI_SUCCESS;
    }
    cshm_wait(sh, root, n, CSHM_FIN);
    cshm_unpack(cshm_data(sh, root, n, all) + (size_t)me * bytes, a->rbuf, a->rcount, a->rdt);
    cshm_post(sh, n, CSHM_FIN);
    return MPI_SUCCESS;
}
