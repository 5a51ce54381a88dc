/* SPDX-License-Identifier: MIT */
/* Reduce_scatter and Reduce_scatter_block by single copy between the ranks'
 * own buffers (coll_shm.h), for contiguous datatypes: every rank publishes
 * the address of its vector and posts; each rank folds its own block of all p
 * vectors (in MPICH's association, cshm_fold_order), reading them straight
 * from the other ranks' buffers
 * a chunk at a time, into recvbuf (with MPI_IN_PLACE into a temporary that
 * goes to recvbuf once nobody reads this rank's vector any more).  Every rank
 * waits until all are done.  When ranks meet (coll_shm_t.meet) both waits
 * are meetings, so each rank sleeps at most twice per call.  alpha-beta:
 * 2 alpha_line + (p - 1) alpha_cma + (n / p) ((p - 1) beta_cma + (p - 1) gamma). */
#include <stdlib.h>
#include "coll/coll_shm.h"

int coll_reduce_scatter_cma_fits(const cr_comm_t *c, const coll_args_t *a)
{
    (void)c;
    return a->dt->contig;
}

typedef struct {
    char *dst;                  /* where element `first` of the result goes */
    MPI_Aint first;
    size_t esz;
} block_out_t;

static int to_block(void *ctx, MPI_Aint x, MPI_Aint k, const void *acc)
{
    block_out_t *o = ctx;
    memcpy(o->dst + (size_t)(x - o->first) * o->esz, acc, (size_t)k * o->esz);
    return MPI_SUCCESS;
}

int coll_reduce_scatter_cma(cr_comm_t *c, const coll_args_t *a)
{
    coll_kind_t coll = a->rcounts.p ? COLL_REDUCE_SCATTER : COLL_REDUCE_SCATTER_BLOCK;
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh || !sh->cma) return coll_fallback(coll, c, a);
    uint64_t n = cshm_begin(sh);
    int me = c->rank, p = c->size;
    size_t esz = (size_t)a->dt->size;
    MPI_Aint first, mine;
    cshm_rs_block(a, p, me, &first, &mine);
    int inplace = a->sbuf == MPI_IN_PLACE;
    const void *src = inplace ? a->rbuf : a->sbuf;
    int e = MPI_SUCCESS;
    char *tmp = NULL;
    if (inplace && mine > 0) {
        tmp = malloc((size_t)mine * esz);
        if (!tmp) e = cr_error(MPI_ERR_NO_MEM, "out of memory for a %zu-byte reduction block",
                               (size_t)mine * esz);
    }
    cshm_claim(sh, n);
    cshm_ctl(sh, me, n)->w[0] = cshm_addr(src, a->dt);
    cshm_post_all(sh, n);
    block_out_t o = { tmp ? tmp : (char *)a->rbuf + a->dt->true_lb, first, esz };
    if (!e) e = cshm_fold_cma(sh, n, 0, src, a->op, a->dt, first, first + mine, to_block, &o,
                                cshm_order_reduce_scatter(a->op));
    cshm_fin_all(sh, n);
    if (tmp) {
        if (!e) memcpy((char *)a->rbuf + a->dt->true_lb, tmp, (size_t)mine * esz);
        free(tmp);
    }
    return e;
}
