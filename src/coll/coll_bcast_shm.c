/* SPDX-License-Identifier: MIT */
/* Bcast through the node's shared memory (coll_shm.h): the root packs the
 * message into its control line itself when it fits in CSHM_INLINE bytes,
 * else into its cell or its slot (cshm_data), and posts; every other rank waits for that post and
 * unpacks.  The root does not wait for the readers: it reuses a slot
 * CSHM_NBUF calls later and a line and cell nline calls later (COURIER_COLL_SHM_LINES),
 * after they all finished with it, so in a loop of small broadcasts it runs
 * up to nline calls ahead and the readers need not be scheduled in every
 * call (as with eager messages).  Messages up to a slot
 * (COURIER_COLL_SHM_SLOT_BYTES).  alpha-beta: alpha_line + 2 n beta_copy
 * (the root's copy in, each reader's copy out, in parallel). */
#include "coll/coll_shm.h"

int coll_bcast_shm_fits(const cr_comm_t *c, const coll_args_t *a)
{
    (void)c;
    return a->bytes <= coll_shm_slot_cap();
}

int coll_bcast_shm(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh) return coll_fallback(COLL_BCAST, c, a);
    uint64_t n = cshm_begin(sh);
    int root = a->root;
    if (c->rank == root) {
        cshm_claim_data(sh, n, a->bytes);
        cshm_pack(a->rbuf, a->count, a->dt, cshm_data(sh, root, n, a->bytes));
        cshm_post(sh, n, CSHM_FIN);
    } else {
        cshm_wait(sh, root, n, CSHM_FIN);
        cshm_unpack(cshm_data(sh, root, n, a->bytes), a->rbuf, a->count, a->dt);
        cshm_post(sh, n, CSHM_FIN);
    }
    return MPI_SUCCESS;
}
