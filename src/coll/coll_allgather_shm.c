/* SPDX-License-Identifier: MIT */
/* Allgather through the node's shared memory (coll_shm.h): every rank packs
 * its block into its slot (its control line when it fits) and posts; then
 * every rank unpacks every other block as it arrives (starting after its own
 * rank, so that they do not all read the same slot at once).  One
 * synchronisation.  Blocks up to a slot.  alpha-beta: alpha_line +
 * p m beta_copy per rank, in parallel. */
#include "coll/coll_shm_steps.h"

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
    cshm_claim(sh, n);
    cshm_allgather_put(sh, n, a);
    cshm_post_all(sh, n);
    int k = 1;
    cshm_allgather_take(sh, n, a, &k, 1);
    return MPI_SUCCESS;
}
