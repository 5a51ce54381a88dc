/* SPDX-License-Identifier: MIT */
/* Scan by single copy (coll_shm.h), for contiguous datatypes: a chain, as a
 * message scan is, but each hop is one cross-memory copy.  Rank r copies its
 * operand into recvbuf (in place it is there), waits for rank r - 1 to post
 * the address of its recvbuf, which then holds prefix(r - 1), fetches it a
 * chunk (COURIER_COLL_CMA_CHUNK_BYTES) at a time and folds it in on the left
 * (prefix(r - 1) op operand(r): rank order, so non-commutative ops are right),
 * and posts its own recvbuf's address; every rank then waits until all are
 * done (cshm_fin_all: a meeting when ranks meet), since its recvbuf is read
 * until then.  Each rank waits once for its predecessor and reduces once,
 * where recursive doubling's log2 p rounds each wait for a partner that,
 * with more ranks than cores, is most likely not running.  alpha-beta:
 * p (alpha_line + alpha_cma + n (beta_cma + gamma)) along the chain. */
#include <stdlib.h>
#include "coll/coll_shm.h"
#include "util/settings.h"

int coll_scan_cma_fits(const cr_comm_t *c, const coll_args_t *a)
{
    (void)c;
    return a->dt->contig;
}

int coll_scan_cma(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh || !sh->cma) return coll_fallback(COLL_SCAN, c, a);
    uint64_t n = cshm_begin(sh);
    int me = c->rank;
    size_t esz = (size_t)a->dt->size;
    char *dst = (char *)a->rbuf + a->dt->true_lb;
    int e = MPI_SUCCESS;
    if (a->sbuf != MPI_IN_PLACE) coll_copy(a->sbuf, a->rbuf, a->count, a->dt);
    cshm_claim(sh, n);
    if (me > 0) {
        MPI_Aint per = (MPI_Aint)((size_t)ut_settings.coll_cma_chunk_bytes / esz);
        if (per < 1) per = 1;
        if (per > a->count) per = a->count;
        char *tmp = malloc((size_t)per * esz);
        if (!tmp) e = cr_error(MPI_ERR_NO_MEM, "out of memory for a %zu-byte scan chunk",
                               (size_t)per * esz);
        cshm_wait(sh, me - 1, n, CSHM_POSTED);
        uint64_t at = cshm_ctl(sh, me - 1, n)->w[0];
        for (MPI_Aint x = 0; x < a->count && !e; x += per) {
            MPI_Aint k = a->count - x < per ? a->count - x : per;
            e = cshm_get(sh, me - 1, at + (uint64_t)x * esz, (size_t)k * esz, tmp);
            if (!e)
                cr_op_apply(a->op, tmp - a->dt->true_lb, dst + (size_t)x * esz - a->dt->true_lb,
                            k, a->dt);
        }
        free(tmp);
    }
    cshm_ctl(sh, me, n)->w[0] = (uint64_t)(uintptr_t)dst;
    cshm_post(sh, n, CSHM_POSTED);
    cshm_fin_all(sh, n);
    return e;
}
