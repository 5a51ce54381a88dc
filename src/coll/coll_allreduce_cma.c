/* SPDX-License-Identifier: MIT */
/* Allreduce by single copy between the ranks' own buffers (coll_shm.h), for
 * contiguous datatypes: a reduce-scatter and an allgather over shared memory.
 * Every rank publishes the addresses of its operand and its recvbuf and
 * posts.  Phase 1: rank i folds slice i of all p operands (in MPICH's
 * association, cshm_fold_order; p slices, or when ranks meet fewer, none
 * smaller than COURIER_COLL_CMA_SLICE_MIN_BYTES, cshm_folders, the other
 * ranks folding nothing),
 * reading them straight from the other ranks' buffers a chunk at a time, into
 * slice i of its own recvbuf, and posts READY.  Phase 2: it copies every
 * other slice from its owner's recvbuf once the owner is READY.  Every slice
 * is computed once, so all ranks get the same bits.  MPI_IN_PLACE works: a
 * rank overwrites slice j of its recvbuf (read by rank j in phase 1) only
 * after rank j is READY.  Every rank waits until all are done before it
 * returns.  When ranks meet (coll_shm_t.meet) the three waits are meetings,
 * so each rank sleeps at most three times per call.  alpha-beta:
 * 3 alpha_line + 2 (p - 1) alpha_cma + 2 ((p - 1) / p) n beta_cma +
 * ((p - 1) / p) n gamma. */
#include "coll/coll_shm.h"

int coll_allreduce_cma_fits(const cr_comm_t *c, const coll_args_t *a)
{
    (void)c;
    return a->dt->contig;
}

typedef struct {
    char *dst;                  /* this rank's recvbuf, packed address */
    size_t esz;
} local_out_t;

static int to_self(void *ctx, MPI_Aint x, MPI_Aint k, const void *acc)
{
    local_out_t *o = ctx;
    memcpy(o->dst + (size_t)x * o->esz, acc, (size_t)k * o->esz);
    return MPI_SUCCESS;
}

int coll_allreduce_cma(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh || !sh->cma) return coll_fallback(COLL_ALLREDUCE, c, a);
    uint64_t n = cshm_begin(sh);
    int me = c->rank, p = c->size;
    size_t esz = (size_t)a->dt->size;
    const void *src = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    char *dst = (char *)a->rbuf + a->dt->true_lb;
    cshm_claim(sh, n);
    cshm_ctl_t *mine = cshm_ctl(sh, me, n);
    mine->w[0] = cshm_addr(src, a->dt);
    mine->w[1] = cshm_addr(a->rbuf, a->dt);
    cshm_post_all(sh, n);
    MPI_Aint lo, hi;
    int nf = cshm_folders(sh, a->count, esz);
    cshm_fold_slice(a->count, nf, me, &lo, &hi);
    local_out_t o = { dst, esz };
    int e = cshm_fold_cma(sh, n, 0, src, a->op, a->dt, lo, hi, to_self, &o,
                          cshm_order_allreduce());
    cshm_post_phase_all(sh, n, CSHM_READY);
    for (int k = 1; k < p; k++) {
        int r = (me + k) % p;
        if (r >= nf) continue;
        cshm_slice(a->count, nf, r, &lo, &hi);
        cshm_wait(sh, r, n, CSHM_READY);
        int e2 = cshm_get(sh, r, cshm_ctl(sh, r, n)->w[1] + (uint64_t)lo * esz,
                          (size_t)(hi - lo) * esz, dst + (size_t)lo * esz);
        if (e2 && !e) e = e2;
    }
    cshm_fin_all(sh, n);
    return e;
}
