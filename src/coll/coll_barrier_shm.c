/* SPDX-License-Identifier: MIT */
/* Barrier through the node's shared memory (coll_shm.h): every rank posts its
 * arrival in its control line, then waits until every other rank's arrival is
 * there.  One store and p - 1 loads of lines per rank, no messages; all ranks
 * wait at once, so with more ranks than cores each needs the core only twice
 * (to arrive, and to see the others), where a message algorithm needs it once
 * per round.  alpha-beta: alpha_line (one line hand-over, all in parallel)
 * plus (p - 1) line reads per rank. */
#include "coll/coll_shm.h"

int coll_barrier_shm(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh) return coll_fallback(COLL_BARRIER, c, a);
    uint64_t n = cshm_begin(sh);
    if (sh->meet) {
        /* nobody waits for a barrier's line: whoever is past the barrier
         * knows that everyone arrived */
        cshm_mark(sh, n, CSHM_FIN);
        cshm_meet(sh, n);
        if (sh->safe < n) sh->safe = n;
        return MPI_SUCCESS;
    }
    cshm_post(sh, n, CSHM_FIN);   /* it reads nothing of the call: arriving is finishing */
    cshm_wait_all(sh, n, CSHM_FIN);
    return MPI_SUCCESS;
}
