/* SPDX-License-Identifier: MIT */
/* Gather through the node's shared memory (coll_shm.h): every rank but the
 * root packs its block into its control line, cell or slot (cshm_data) and
 * posts; the root unpacks each block into recvbuf as it arrives.  The other
 * ranks do not wait for the root: they run up to CSHM_NBUF calls ahead of it,
 * nline calls (COURIER_COLL_SHM_LINES) when the block fits in the line or
 * the cell.
 * Blocks up to a slot.  alpha-beta:
 * alpha_line + m beta_copy (in parallel) + (p - 1) m beta_copy at the root,
 * for blocks of m bytes. */
#include "coll/coll_shm_steps.h"

int coll_gather_shm_fits(const cr_comm_t *c, const coll_args_t *a)
{
    (void)c;
    return a->bytes <= coll_shm_slot_cap();
}

int coll_gather_shm(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh) return coll_fallback(COLL_GATHER, c, a);
    uint64_t n = cshm_begin(sh);
    if (c->rank != a->root) {
        cshm_claim_data(sh, n, a->bytes);
        cshm_gather_put(sh, n, a);
        return MPI_SUCCESS;
    }
    cshm_gather_own(sh, a);
    int k = 1;
    cshm_gather_take(sh, n, a, &k, 1);
    return MPI_SUCCESS;
}
