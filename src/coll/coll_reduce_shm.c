/* SPDX-License-Identifier: MIT */
/* Reduce through the node's shared memory (coll_shm.h): every rank but the
 * root copies its operand, in the datatype's layout, into its control line,
 * cell or slot (cshm_operand) and posts; the root folds them into recvbuf in
 * the association of MPICH's Reduce (cshm_order_reduce: its binomial tree for
 * short vectors), waiting for each operand as it needs it.  Operands keep
 * rank order within each op, so non-commutative ops give the canonical result.
 * The other ranks do not wait for the root: they run up to CSHM_NBUF calls
 * ahead of it, nline calls (COURIER_COLL_SHM_LINES) when the operand fits in
 * the line or the cell.  Vectors up to a slot.
 * alpha-beta: alpha_line + n beta_copy (in parallel) + (p - 1) n (beta_x +
 * gamma) at the root, whose first op reads two operands (its own from
 * sendbuf) and writes recvbuf in one pass (cshm_fold, cr_op_apply3). */
#include "coll/coll_shm.h"

int coll_reduce_shm_fits(const cr_comm_t *c, const coll_args_t *a)
{
    (void)c;
    return cshm_fits_layout(a->count, a->dt);
}

int coll_reduce_shm(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh) return coll_fallback(COLL_REDUCE, c, a);
    uint64_t n = cshm_begin(sh);
    int me = c->rank;
    cshm_claim_data(sh, n, cshm_operand_bytes(a->count, a->dt));
    if (me != a->root) {
        coll_copy(a->sbuf, cshm_operand(sh, me, n, a->count, a->dt), a->count, a->dt);
        cshm_post(sh, n, CSHM_FIN);
        return MPI_SUCCESS;
    }
    cshm_slots_t o = { sh, n, a->count, a->dt, CSHM_FIN, a->sbuf, 0 };
    if (a->sbuf == MPI_IN_PLACE) {
        /* the operand is in recvbuf, which the fold overwrites: keep it in the slot */
        o.mine = NULL;
        coll_copy(a->rbuf, cshm_operand(sh, me, n, a->count, a->dt), a->count, a->dt);
    }
    cshm_fold_order(a->op, cshm_slot_operand, &o, c->size, a->rbuf, a->count, a->dt,
                    cshm_order_reduce(a->op, a->count, a->dt, a->root, c->size));
    cshm_post(sh, n, CSHM_FIN);
    return MPI_SUCCESS;
}
