/* SPDX-License-Identifier: MIT */
/* Scan and Exscan through the node's shared memory (coll_shm.h): every rank
 * copies its operand, in the datatype's layout, into its line, cell or slot
 * (as reduce does) and posts; rank r folds the operands of ranks 0 .. r
 * (Exscan: 0 .. r-1) in rank order into recvbuf, waiting only for those, so
 * in a loop the lower ranks run ahead of the higher ones (up to a ring's
 * length; that is why scan does not meet like the other all-rank
 * collectives when ranks outnumber cores).  There (coll_shm_t.meet) it is a
 * chain instead: rank r waits for rank r - 1's prefix only and posts its
 * own, so each rank reduces once.  Exscan leaves rank 0's recvbuf alone.
 * Vectors up to a slot.  alpha-beta: alpha_line + r n (beta_copy + gamma) at
 * rank r (the last rank does the most). */
#include "coll/coll_shm.h"

int coll_scan_shm_fits(const cr_comm_t *c, const coll_args_t *a)
{
    (void)c;
    return cshm_fits_layout(a->count, a->dt);
}

static int scan_shm(coll_kind_t coll, cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh) return coll_fallback(coll, c, a);
    uint64_t n = cshm_begin(sh);
    int me = c->rank, upto = coll == COLL_SCAN ? me + 1 : me;
    const void *src = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    /* rank r waits for ranks 0 .. r only, so lower ranks run ahead (as far
     * as the line, cell or slot rings let them), meeting or not */
    cshm_claim_data(sh, n, cshm_operand_bytes(a->count, a->dt));
    void *opnd = cshm_operand(sh, me, n, a->count, a->dt);
    coll_copy(src, opnd, a->count, a->dt);
    if (sh->meet) {
        /* ranks outnumber cores: a chain, as a message scan would be.  Rank r
         * waits for rank r - 1 only, replaces its operand by the prefix
         * (prefix(r - 1) op operand(r)) and posts it: one reduction and one
         * wait per rank instead of r of each */
        if (me > 0) {
            cshm_wait(sh, me - 1, n, CSHM_POSTED);
            const void *prev = cshm_operand(sh, me - 1, n, a->count, a->dt);
            if (coll == COLL_EXSCAN) coll_copy(prev, a->rbuf, a->count, a->dt);
            cr_op_apply(a->op, prev, opnd, a->count, a->dt);
        }
        cshm_post(sh, n, CSHM_FIN);   /* it reads nothing of others' any more */
        if (coll == COLL_SCAN) coll_copy(opnd, a->rbuf, a->count, a->dt);
        return MPI_SUCCESS;
    }
    cshm_post(sh, n, CSHM_POSTED);
    if (upto > 0) {
        cshm_slots_t o = { sh, n, a->count, a->dt, CSHM_POSTED, NULL, 0 };
        cshm_fold(a->op, cshm_slot_operand, &o, upto, a->rbuf, a->count, a->dt);
    }
    cshm_post(sh, n, CSHM_FIN);
    return MPI_SUCCESS;
}

int coll_scan_shm(cr_comm_t *c, const coll_args_t *a)
{
    return scan_shm(COLL_SCAN, c, a);
}

int coll_exscan_shm(cr_comm_t *c, const coll_args_t *a)
{
    return scan_shm(COLL_EXSCAN, c, a);
}
