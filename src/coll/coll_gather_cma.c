/* SPDX-License-Identifier: MIT */
/* Gather by single copy (coll_shm.h): the root publishes the address of its
 * recvbuf (of a packed landing buffer when the receive datatype is not
 * contiguous) and posts; every other rank writes its block straight into it
 * (cross-memory attach, process_vm_writev), all at once, and posts FIN; the
 * root waits for all (when ranks meet, on one count that the last writer
 * completes: cshm_wait_done), then unpacks a landing buffer.  alpha-beta:
 * 2 alpha_line + alpha_cma + m beta_cma (the writers in parallel). */
#include <stdlib.h>
#include "coll/coll_shm.h"
#include "util/vg.h"

int coll_gather_cma(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh || !sh->cma) return coll_fallback(COLL_GATHER, c, a);
    uint64_t n = cshm_begin(sh);
    int me = c->rank, p = c->size, root = a->root;
    size_t m = a->bytes;
    int e = MPI_SUCCESS;
    if (me != root) {
        cshm_view_t v;
        e = cshm_view(&v, a->sbuf, a->scount, a->sdt);
        cshm_wait(sh, root, n, CSHM_POSTED);
        uint64_t at = cshm_ctl(sh, root, n)->w[0];
        if (!e && at) e = cshm_put(sh, root, at + (uint64_t)me * m, m, v.p);
        if (!e && !at) e = cr_error(MPI_ERR_OTHER, "MPI_Gather: the root has no landing buffer");
        if (v.tmp) cshm_view_free(&v);
        cshm_done(sh, root, n);
        return e;
    }
    char *land = NULL, *tmp = NULL;
    if (a->rdt->contig) {
        land = (char *)a->rbuf + a->rdt->true_lb;
    } else {
        tmp = malloc(m * (size_t)p > 0 ? m * (size_t)p : 1);
        land = tmp;
        if (!tmp) e = cr_error(MPI_ERR_NO_MEM, "out of memory for a %zu-byte gather buffer",
                               m * (size_t)p);
    }
    cshm_claim(sh, n);
    cshm_done_open(sh, n);
    cshm_ctl(sh, me, n)->w[0] = (uint64_t)(uintptr_t)land;
    cshm_post(sh, n, CSHM_POSTED);
    if (a->sbuf != MPI_IN_PLACE)
        cshm_copy(a->sbuf, a->scount, a->sdt, coll_elem(a->rbuf, (MPI_Aint)me * a->rcount, a->rdt),
                  a->rcount, a->rdt);
    cshm_wait_done(sh, n);
    /* the other ranks wrote their blocks with process_vm_writev, which
     * memcheck does not see (util/vg.h) */
    for (int r = 0; r < p; r++)
        if (r != me && land) UT_VG_DEFINED(land + (size_t)r * m, m);
    if (tmp) {
        for (int r = 0; r < p; r++)
            if (r != me)
                cshm_unpack(tmp + (size_t)r * m,
                            coll_elem(a->rbuf, (MPI_Aint)r * a->rcount, a->rdt), a->rcount, a->rdt);
        free(tmp);
    }
    cshm_post(sh, n, CSHM_FIN);
    return e;
}
