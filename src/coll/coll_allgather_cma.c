/* SPDX-License-Identifier: MIT */
/* Allgather by single copy (coll_shm.h): every rank publishes the address of
 * its block (packed first when its datatype is not contiguous) and posts;
 * then every rank copies every other block straight from its owner's memory
 * into its recvbuf (starting after its own rank, so that the reads spread
 * over the owners), posts FIN, and waits until all are done, since its block
 * is read until then.  When ranks meet (coll_shm_t.meet) both waits are
 * meetings, so each rank sleeps at most twice per call.  alpha-beta:
 * 2 alpha_line + (p - 1) (alpha_cma + m beta_cma) per rank, in parallel. */
#include "coll/coll_shm.h"

int coll_allgather_cma(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh || !sh->cma) return coll_fallback(COLL_ALLGATHER, c, a);
    uint64_t n = cshm_begin(sh);
    int me = c->rank, p = c->size;
    size_t m = a->bytes;
    void *mine = coll_elem(a->rbuf, (MPI_Aint)me * a->rcount, a->rdt);
    cshm_view_t v;
    int e = a->sbuf == MPI_IN_PLACE ? cshm_view(&v, mine, a->rcount, a->rdt)
                                    : cshm_view(&v, a->sbuf, a->scount, a->sdt);
    cshm_claim(sh, n);
    cshm_ctl(sh, me, n)->w[0] = e ? 0 : (uint64_t)(uintptr_t)v.p;
    cshm_post_all(sh, n);
    if (!e && a->sbuf != MPI_IN_PLACE) cshm_unpack(v.p, mine, a->rcount, a->rdt);
    for (int k = 1; k < p; k++) {
        int r = (me + k) % p;
        cshm_wait(sh, r, n, CSHM_POSTED);
        uint64_t at = cshm_ctl(sh, r, n)->w[0];
        int e2 = at ? cshm_get_into(sh, r, at, m, a->rbuf, (MPI_Aint)p * a->rcount, a->rdt,
                                    (size_t)r * m)
                    : cr_error(MPI_ERR_OTHER, "MPI_Allgather: rank %d could not publish its block", r);
        if (e2 && !e) e = e2;
    }
    cshm_fin_all(sh, n);
    cshm_view_free(&v);
    return e;
}
