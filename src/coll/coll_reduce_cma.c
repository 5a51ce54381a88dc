/* SPDX-License-Identifier: MIT */
/* Reduce by single copy between the ranks' own buffers (coll_shm.h), for
 * contiguous datatypes: every rank publishes the address of its operand (the
 * root also of recvbuf) and posts; the vector is cut into p slices (when
 * ranks meet, into fewer, none smaller than COURIER_COLL_CMA_SLICE_MIN_BYTES:
 * cshm_folders) and rank i folds slice i of all p operands (in MPICH's
 * association, cshm_fold_order), reading them straight from the other
 * ranks' buffers (cross-memory attach) a chunk at a time, and
 * writes the result chunk into the root's recvbuf.  p ranks reduce at once,
 * each 1/p of the vector; every rank then waits until all are done, since
 * its buffer is read until then.  When ranks meet (coll_shm_t.meet) both
 * waits are meetings, so each rank sleeps at most twice per call.
 * alpha-beta: 2 alpha_line + (p - 1) alpha_cma
 * + (n / p) ((p - 1) beta_cma + (p - 1) gamma + beta_cma). */
#include "coll/coll_shm.h"
#include "util/vg.h"

int coll_reduce_cma_fits(const cr_comm_t *c, const coll_args_t *a)
{
    (void)c;
    return a->dt->contig;
}

typedef struct {
    coll_shm_t *sh;
    int root;
    uint64_t dst;               /* the root's recvbuf, packed address */
    size_t esz;
} reduce_out_t;

static int to_root(void *ctx, MPI_Aint x, MPI_Aint k, const void *acc)
{
    reduce_out_t *o = ctx;
    uint64_t at = o->dst + (uint64_t)x * o->esz;
    size_t len = (size_t)k * o->esz;
    if (o->root == o->sh->me) {
        memcpy((void *)(uintptr_t)at, acc, len);
        return MPI_SUCCESS;
    }
    return cshm_put(o->sh, o->root, at, len, acc);
}

int coll_reduce_cma(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh || !sh->cma) return coll_fallback(COLL_REDUCE, c, a);
    uint64_t n = cshm_begin(sh);
    int me = c->rank, p = c->size, root = a->root;
    const void *src = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    cshm_claim(sh, n);
    cshm_ctl_t *mine = cshm_ctl(sh, me, n);
    mine->w[0] = cshm_addr(src, a->dt);
    if (me == root) mine->w[1] = cshm_addr(a->rbuf, a->dt);
    cshm_post_all(sh, n);
    cshm_wait(sh, root, n, CSHM_POSTED);
    reduce_out_t o = { sh, root, cshm_ctl(sh, root, n)->w[1], (size_t)a->dt->size };
    MPI_Aint lo, hi;
    int nf = cshm_folders(sh, a->count, o.esz);
    cshm_fold_slice(a->count, nf, me, &lo, &hi);
    int e = cshm_fold_cma(sh, n, 0, src, a->op, a->dt, lo, hi, to_root, &o,
                          cshm_order_reduce(a->op, a->count, a->dt, root, p));
    cshm_fin_all(sh, n);
    if (me == root)     /* the other ranks' slices came by process_vm_writev (util/vg.h) */
        for (int r = 0; r < nf; r++) {
            if (r == me) continue;
            cshm_slice(a->count, nf, r, &lo, &hi);
            UT_VG_DEFINED((char *)(uintptr_t)o.dst + (size_t)lo * o.esz, (size_t)(hi - lo) * o.esz);
        }
    return e;
}
