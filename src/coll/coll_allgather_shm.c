/* SPDX-License-Identifier: MIT */
/* Allgather through the node's shared memory (coll_shm.h): every rank packs
 * its block into its slot (its control line when it fits) and posts; then
 * every rank unpacks every other block as it arrives (starting after its own
 * rank, so that they do not all read the same slot at once).  One
 * synchronisation.  Where ranks do not meet, each posts once per call, its
 * block's phase, and no FIN (cshm_post_once): at two ranks with a block of
 * up to CSHM_INLINE bytes one line written by each rank and read by the other is the
 * whole call.  Blocks up to a slot.  alpha-beta: alpha_line +
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
    /* where ranks do not meet, one post per call and no FIN: the first post
     * of this rank's next call says it no longer reads the others' blocks
     * (cshm_post_once) */
    if (sh->meet) cshm_post_all(sh, n);
    else cshm_post_once(sh, n, CSHM_POSTED);
    int k = 1;
    cshm_allgather_take(sh, n, a, &k, 1);   /* every rank posted in n: safe = n - 1 */
    if (sh->meet) cshm_post(sh, n, CSHM_FIN);
    return MPI_SUCCESS;
}
