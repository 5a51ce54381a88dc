/* SPDX-License-Identifier: MIT */
/* Allreduce through the node's shared memory (coll_shm.h): every rank copies
 * its operand, in the datatype's layout, into its slot (its control line when
 * it fits) and posts; then every rank folds all p operands into recvbuf in
 * recursive doubling's association (cshm_fold_order: MPICH's bits for
 * floating-point sums; rank order otherwise), waiting for each as it needs
 * it.  One synchronisation and no second phase: every rank computes the
 * same operation on the same operands in the same order, so all get the same
 * bits, and non-commutative ops the canonical result.  The price is p - 1
 * reductions of the whole vector on every rank, so it is for short vectors
 * (up to a slot).  alpha-beta: alpha_line + (p - 1) n (beta_copy + gamma). */
#include "coll/coll_shm.h"

int coll_allreduce_shm_fits(const cr_comm_t *c, const coll_args_t *a)
{
    (void)c;
    return cshm_fits_layout(a->count, a->dt);
}

int coll_allreduce_shm(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh) return coll_fallback(COLL_ALLREDUCE, c, a);
    uint64_t n = cshm_begin(sh);
    int me = c->rank;
    const void *src = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    cshm_claim(sh, n);
    coll_copy(src, cshm_operand(sh, me, n, a->count, a->dt), a->count, a->dt);
    cshm_post(sh, n, CSHM_POSTED);
    cshm_slots_t o = { sh, n, a->count, a->dt, CSHM_POSTED, NULL, 0 };
    cshm_fold_order(a->op, cshm_slot_operand, &o, c->size, a->rbuf, a->count, a->dt,
                    cshm_order_allreduce());
    if (sh->safe < n - 1) sh->safe = n - 1;   /* every rank posted in call n */
    cshm_post(sh, n, CSHM_FIN);
    return MPI_SUCCESS;
}
