/* SPDX-License-Identifier: MIT */
/* Alltoall, Alltoallv by single copy (coll_shm.h): every rank publishes the
 * address of its send buffer (a packed copy for a non-contiguous datatype or
 * MPI_IN_PLACE) and, for the v form, the offset of each destination's block
 * in its slot, and posts; then every rank copies the block meant for it
 * straight from every other rank's memory into its recvbuf (starting after
 * its own rank, so that the reads spread over the owners), posts FIN, and
 * waits until all are done.  When ranks meet (coll_shm_t.meet) both waits
 * are meetings, so each rank sleeps at most twice per call.  alpha-beta:
 * 2 alpha_line + (p - 1) (alpha_cma + m beta_cma) per rank, in parallel. */
#include <stdlib.h>
#include "coll/coll_shm.h"

int coll_alltoallv_cma_fits(const cr_comm_t *c, const coll_args_t *a)
{
    return (size_t)c->size * sizeof(uint64_t) <= coll_shm_slot_cap();
}

/* The send side as one packed run: blocks at offsets off[i] (v form) or at
 * i * m (uniform form).  Contiguous data in place is used as it is. */
static int send_view(const coll_args_t *a, int p, cshm_view_t *v, uint64_t *off)
{
    int inplace = a->sbuf == MPI_IN_PLACE;
    coll_side_t sd = inplace ? coll_recv_side(a) : coll_send_side(a);
    const cr_datatype_t *dt = sd.dt;
    if (!a->rcounts.p) {   /* uniform */
        if (!inplace) return cshm_view(v, sd.buf, (MPI_Aint)p * sd.count, dt);
        size_t bytes = (size_t)p * (size_t)sd.count * (size_t)dt->size;
        v->tmp = malloc(bytes ? bytes : 1);
        if (!v->tmp) return cr_error(MPI_ERR_NO_MEM, "out of memory for a %zu-byte copy", bytes);
        v->p = v->tmp;
        cshm_pack(sd.buf, (MPI_Aint)p * sd.count, dt, v->p);
        return MPI_SUCCESS;
    }
    if (dt->contig && !inplace) {
        v->tmp = NULL;
        v->p = (char *)sd.buf + dt->true_lb;
        for (int i = 0; i < p; i++)
            off[i] = (uint64_t)(cr_vec_get(sd.displs, i) * dt->extent);
        return MPI_SUCCESS;
    }
    size_t total = 0;
    for (int i = 0; i < p; i++) total += (size_t)cr_vec_get(sd.counts, i) * (size_t)dt->size;
    v->tmp = malloc(total ? total : 1);
    if (!v->tmp) return cr_error(MPI_ERR_NO_MEM, "out of memory for a %zu-byte copy", total);
    v->p = v->tmp;
    size_t at = 0;
    for (int i = 0; i < p; i++) {
        char *b;
        MPI_Aint k;
        cr_datatype_t *bdt;
        coll_block(&sd, i, &b, &k, &bdt);
        off[i] = at;
        cshm_pack(b, k, bdt, v->p + at);
        at += (size_t)k * (size_t)bdt->size;
    }
    return MPI_SUCCESS;
}

static int alltoall_cma(coll_kind_t coll, cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh || !sh->cma) return coll_fallback(coll, c, a);
    uint64_t n = cshm_begin(sh);
    int me = c->rank, p = c->size, vform = a->rcounts.p != NULL;
    cshm_claim(sh, n);
    uint64_t *off = (uint64_t *)cshm_slot(sh, me, n);
    cshm_view_t v;
    int e = send_view(a, p, &v, off);
    cshm_ctl(sh, me, n)->w[0] = e ? 0 : (uint64_t)(uintptr_t)v.p;
    cshm_post_all(sh, n);
    coll_side_t rd = coll_recv_side(a);
    for (int k = 0; k < p; k++) {
        int r = (me + k) % p;
        char *b;
        MPI_Aint cnt;
        cr_datatype_t *bdt;
        coll_block(&rd, r, &b, &cnt, &bdt);
        size_t len = (size_t)cnt * (size_t)bdt->size;
        if (len == 0) continue;   /* nothing to read: the owner's buffer may be NULL */
        if (r == me) {
            if (a->sbuf != MPI_IN_PLACE) {
                coll_side_t sd = coll_send_side(a);
                char *sb;
                MPI_Aint sk;
                cr_datatype_t *sdt;
                coll_block(&sd, me, &sb, &sk, &sdt);
                cshm_copy(sb, sk, sdt, b, cnt, bdt);
            }
            continue;
        }
        cshm_wait(sh, r, n, CSHM_POSTED);
        uint64_t at = cshm_ctl(sh, r, n)->w[0];
        uint64_t o = vform ? ((const uint64_t *)cshm_slot(sh, r, n))[me] : (uint64_t)me * len;
        int e2 = at ? cshm_get_into(sh, r, at + o, len, b, cnt, bdt, 0)
                    : cr_error(MPI_ERR_OTHER, "MPI_Alltoall: rank %d could not publish its buffer", r);
        if (e2 && !e) e = e2;
    }
    cshm_fin_all(sh, n);
    cshm_view_free(&v);
    return e;
}

int coll_alltoall_cma(cr_comm_t *c, const coll_args_t *a)
{
    return alltoall_cma(COLL_ALLTOALL, c, a);
}

int coll_alltoallv_cma(cr_comm_t *c, const coll_args_t *a)
{
    return alltoall_cma(COLL_ALLTOALLV, c, a);
}
