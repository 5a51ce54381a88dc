/* SPDX-License-Identifier: MIT */
/* Bcast by single copy (coll_shm.h): the root publishes the address of its
 * buffer (of a packed copy for a non-contiguous datatype) and posts; every
 * other rank copies the message straight from the root's memory into its
 * own buffer (cross-memory attach), all at once, and posts FIN; the root
 * waits for all of them, since they read its buffer (when ranks meet, on one
 * count that the last reader completes: cshm_wait_done).  alpha-beta:
 * 2 alpha_line + alpha_cma + n beta_cma (the readers in parallel). */
#include "coll/coll_shm.h"

int coll_bcast_cma(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh || !sh->cma) return coll_fallback(COLL_BCAST, c, a);
    uint64_t n = cshm_begin(sh);
    int root = a->root;
    int e = MPI_SUCCESS;
    if (c->rank == root) {
        cshm_view_t v;
        e = cshm_view(&v, a->rbuf, a->count, a->dt);
        cshm_claim(sh, n);
        cshm_done_open(sh, n);
        cshm_ctl(sh, root, n)->w[0] = e ? 0 : (uint64_t)(uintptr_t)v.p;
        cshm_ctl(sh, root, n)->w[CSHM_BCAST_BYTES] = a->bytes | CSHM_BCAST_CMA;
        cshm_post(sh, n, CSHM_POSTED);
        cshm_wait_done(sh, n);
        if (!e) cshm_view_free(&v);
        cshm_post(sh, n, CSHM_FIN);
    } else {
        cshm_wait(sh, root, n, CSHM_POSTED);
        uint64_t at = cshm_ctl(sh, root, n)->w[0];
        uint64_t sent = cshm_ctl(sh, root, n)->w[CSHM_BCAST_BYTES];
        e = cshm_bcast_length(sent, a);
        if (!e)
            e = at ? cshm_get_into(sh, root, at, a->bytes, a->rbuf, a->count, a->dt, 0)
                   : cr_error(MPI_ERR_OTHER, "MPI_Bcast: the root could not publish its buffer");
        cshm_bcast_end(sh, root, n, sent);
    }
    return e;
}
