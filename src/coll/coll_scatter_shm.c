/* SPDX-License-Identifier: MIT */
/* Scatter through the node's shared memory (coll_shm.h): the root packs all
 * p blocks into its control line, cell or slot (cshm_data) and posts; every
 * other rank unpacks its own block.  The root does not wait: it runs up to
 * CSHM_NBUF calls ahead of the readers, nline calls (COURIER_COLL_SHM_LINES)
 * when the p blocks fit in the line or the cell.
 * For p blocks that fit in a slot.  alpha-beta:
 * alpha_line + p m beta_copy at the root + m beta_copy (in parallel).
 *
 * When ranks outnumber cores and the p blocks do not fit a slot (64 ranks
 * of 1 KiB blocks), it goes in rounds, each a call of its own on the area:
 * round j carries the blocks of the ranks that fit a slot, which wait for
 * it; the others post that they are done with the round at once.  So each
 * rank waits once, where the binomial tree's levels each wait for a rank
 * that is most likely not running. */
#include "coll/coll_shm.h"

/* Blocks per round of a call whose p blocks do not fit a slot: 0 when
 * rounds do not apply. */
static int round_blocks(const cr_comm_t *c, const coll_args_t *a)
{
    size_t cap = coll_shm_slot_cap();
    if (!cr_proc.oversubscribed || a->bytes == 0 || a->bytes > cap) return 0;
    size_t per = cap / a->bytes;
    return per < (size_t)c->size ? (int)per : 0;
}

int coll_scatter_shm_fits(const cr_comm_t *c, const coll_args_t *a)
{
    return a->bytes * (size_t)c->size <= coll_shm_slot_cap() || round_blocks(c, a) > 0;
}

/* The rounds (see the head comment): per blocks each. */
static int scatter_rounds(coll_shm_t *sh, const coll_args_t *a, int per)
{
    int me = sh->me, p = sh->p, root = a->root;
    size_t bytes = a->bytes;
    for (int b0 = 0; b0 < p; b0 += per) {
        int b1 = b0 + per < p ? b0 + per : p;
        uint64_t n = cshm_begin(sh);
        if (me == root) {
            cshm_claim(sh, n);
            cshm_pack(coll_elem(a->sbuf, (MPI_Aint)b0 * a->scount, a->sdt),
                      (MPI_Aint)(b1 - b0) * a->scount, a->sdt, cshm_slot(sh, me, n));
        } else if (me >= b0 && me < b1) {
            cshm_wait(sh, root, n, CSHM_FIN);
            cshm_unpack(cshm_slot(sh, root, n) + (size_t)(me - b0) * bytes, a->rbuf, a->rcount,
                        a->rdt);
        }
        cshm_post(sh, n, CSHM_FIN);
    }
    if (me == root && a->rbuf != MPI_IN_PLACE)
        cshm_copy(coll_elem(a->sbuf, (MPI_Aint)me * a->scount, a->sdt), a->scount, a->sdt,
                  a->rbuf, a->rcount, a->rdt);
    return MPI_SUCCESS;
}

int coll_scatter_shm(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh) return coll_fallback(COLL_SCATTER, c, a);
    int per = round_blocks(c, a);
    if (per > 0) return scatter_rounds(sh, a, per);
    uint64_t n = cshm_begin(sh);
    int me = c->rank, p = c->size, root = a->root;
    size_t bytes = a->bytes, all = bytes * (size_t)p;
    if (me == root) {
        cshm_claim_data(sh, n, all);
        cshm_pack(a->sbuf, (MPI_Aint)p * a->scount, a->sdt, cshm_data(sh, root, n, all));
        cshm_post(sh, n, CSHM_FIN);
        if (a->rbuf != MPI_IN_PLACE)
            cshm_copy(coll_elem(a->sbuf, (MPI_Aint)me * a->scount, a->sdt), a->scount, a->sdt,
                      a->rbuf, a->rcount, a->rdt);
        return MPI_SUCCESS;
    }
    cshm_wait(sh, root, n, CSHM_FIN);
    cshm_unpack(cshm_data(sh, root, n, all) + (size_t)me * bytes, a->rbuf, a->rcount, a->rdt);
    cshm_prefetch_next(sh, root, n);
    cshm_post(sh, n, CSHM_FIN);
    return MPI_SUCCESS;
}
