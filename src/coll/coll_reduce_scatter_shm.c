/* SPDX-License-Identifier: MIT */
/* Reduce_scatter and Reduce_scatter_block through the node's shared memory
 * (coll_shm.h): every rank copies its whole vector, in the datatype's layout,
 * into its slot and posts; then each rank folds its own block of all p
 * vectors into recvbuf in rank order.  Every block is computed once, by its
 * owner, for any op.  Vectors up to a slot.  alpha-beta: alpha_line +
 * n beta_copy + (p - 1) (n / p) (beta_copy + gamma). */
#include "coll/coll_shm.h"

int coll_reduce_scatter_shm_fits(const cr_comm_t *c, const coll_args_t *a)
{
    (void)c;
    return a->bytes <= coll_shm_slot_cap() &&
           cshm_fits_layout((MPI_Aint)(a->bytes / (size_t)a->dt->size), a->dt);
}

int coll_reduce_scatter_shm(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh) return coll_fallback(a->rcounts.p ? COLL_REDUCE_SCATTER : COLL_REDUCE_SCATTER_BLOCK,
                                  c, a);
    uint64_t n = cshm_begin(sh);
    int me = c->rank, p = c->size;
    MPI_Aint first, mine, total = cshm_rs_block(a, p, me, &first, &mine);
    const void *src = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    cshm_claim(sh, n);
    coll_copy(src, cshm_operand(sh, me, n, total, a->dt), total, a->dt);
    cshm_post_all(sh, n);
    if (mine > 0) {
        cshm_slots_t o = { sh, n, total, a->dt, CSHM_POSTED, NULL, first };
        cshm_fold_order(a->op, cshm_slot_operand, &o, p, a->rbuf, mine, a->dt,
                        cshm_order_reduce_scatter(a->op));
    }
    /* every rank's vector must stay until its readers are done: they post FIN */
    cshm_post(sh, n, CSHM_FIN);
    return MPI_SUCCESS;
}
