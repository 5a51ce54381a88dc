/* SPDX-License-Identifier: MIT */
/* Scatter by single copy (coll_shm.h): the root publishes the address of its
 * sendbuf (of a packed copy for a non-contiguous datatype) and posts; every
 * other rank copies its block straight from the root's memory, all at once,
 * and posts FIN; the root waits for all (when ranks meet, on one count that
 * the last reader completes: cshm_wait_done).  alpha-beta: 2 alpha_line +
 * alpha_cma + m beta_cma (the readers in parallel). */
#include "coll/coll_shm.h"

int coll_scatter_cma(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh || !sh->cma) return coll_fallback(COLL_SCATTER, c, a);
    uint64_t n = cshm_begin(sh);
    int me = c->rank, p = c->size, root = a->root;
    size_t m = a->bytes;
    int e = MPI_SUCCESS;
    if (me == root) {
        cshm_view_t v;
        e = cshm_view(&v, a->sbuf, (MPI_Aint)p * a->scount, a->sdt);
        cshm_claim(sh, n);
        cshm_done_open(sh, n);
        cshm_ctl(sh, me, n)->w[0] = e ? 0 : (uint64_t)(uintptr_t)v.p;
        cshm_post(sh, n, CSHM_POSTED);
        if (a->rbuf != MPI_IN_PLACE)
            cshm_copy(coll_elem(a->sbuf, (MPI_Aint)me * a->scount, a->sdt), a->scount, a->sdt,
                      a->rbuf, a->rcount, a->rdt);
        cshm_wait_done(sh, n);
        if (!e) cshm_view_free(&v);
        cshm_post(sh, n, CSHM_FIN);
    } else {
        cshm_wait(sh, root, n, CSHM_POSTED);
        uint64_t at = cshm_ctl(sh, root, n)->w[0];
        e = at ? cshm_get_into(sh, root, at + (uint64_t)me * m, m, a->rbuf, a->rcount, a->rdt, 0)
               : cr_error(MPI_ERR_OTHER, "MPI_Scatter: the root could not publish its buffer");
        cshm_done(sh, root, n);
    }
    return e;
}
