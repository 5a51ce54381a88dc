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
 * (up to a slot).  alpha-beta: alpha_line + n beta_copy + (p - 1) n (beta_x +
 * gamma), beta_x reading a peer's slot from the other core's cache; the first
 * of the p - 1 ops reads two operands and writes recvbuf in one pass
 * (cshm_fold, cr_op_apply3), so at two ranks each rank makes one copy (its
 * operand into its slot) and one op pass.  Where ranks do not meet, each
 * posts once per call, its operand's phase, and no FIN (cshm_post_once):
 * at two ranks with an operand of up to 48 bytes one line written by each
 * rank and read by the other is the whole call. */
#include "coll/coll_shm_steps.h"

int coll_allreduce_shm_fits(const cr_comm_t *c, const coll_args_t *a)
{
    (void)c;
    return cshm_fits_layout(a->count, a->dt);
}

/* Ranks that meet (oversubscribed): the last to arrive folds every operand
 * (all posted by then: no waiting) into its recvbuf in the same association
 * as below (cshm_fold_order: the bits do not depend on whether ranks meet), puts the result where
 * its operand was and releases the others, who copy it out.  Each rank waits
 * once, and only one folds (p - 1 reductions in all instead of p (p - 1)). */
static void allreduce_meet(coll_shm_t *sh, uint64_t n, const coll_args_t *a, void *opnd)
{
    cshm_mark(sh, n, CSHM_POSTED);
    uint64_t gen;
    if (cshm_arrive(sh, &gen)) {
        cshm_slots_t o = { sh, n, a->count, a->dt, CSHM_POSTED, NULL, 0 };
        cshm_fold_order(a->op, cshm_slot_operand, &o, sh->p, a->rbuf, a->count, a->dt,
                        cshm_order_allreduce());
        coll_copy(a->rbuf, opnd, a->count, a->dt);
        cshm_release(sh, gen);
    } else {
        int last = cshm_await(sh, gen);
        coll_copy(cshm_operand(sh, last, n, a->count, a->dt), a->rbuf, a->count, a->dt);
    }
    if (sh->safe < n - 1) sh->safe = n - 1;
}

int coll_allreduce_shm(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh) return coll_fallback(COLL_ALLREDUCE, c, a);
    uint64_t n = cshm_begin(sh);
    cshm_claim(sh, n);
    void *opnd = cshm_allreduce_put(sh, n, a);
    if (sh->meet) {
        allreduce_meet(sh, n, a, opnd);
        cshm_post(sh, n, CSHM_FIN);
        return MPI_SUCCESS;
    }
    /* the one post of the call: nobody waits for this rank's FIN in it, so
     * its next call's first post says it is done (cshm_post_once) */
    cshm_post_once(sh, n, CSHM_POSTED);
    cshm_allreduce_fold(sh, n, a);
    return MPI_SUCCESS;
}

