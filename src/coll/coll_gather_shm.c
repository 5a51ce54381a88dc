/* SPDX-License-Identifier: MIT */
/* Gather through the node's shared memory (coll_shm.h): every rank but the
 * root packs its block into its slot (its control line when it fits) and
 * posts; the root unpacks each block into recvbuf as it arrives.  The other
 * ranks do not wait for the root: they run up to CSHM_NBUF calls ahead of it,
 * nline calls (COURIER_COLL_SHM_LINES) when the block fits in the line.
 * Blocks up to a slot.  alpha-beta:
 * alpha_line + m beta_copy (in parallel) + (p - 1) m beta_copy at the root,
 * for blocks of m bytes. */
#include "coll/coll_shm.h"

int coll_gather_shm_fits(const cr_comm_t *c, const coll_args_t *a)
{
    (void)c;
    return a->bytes <= coll_shm_slot_cap();
}

static void *block_src(const coll_shm_t *sh, int r, uint64_t n, size_t bytes)
{
    return bytes <= CSHM_INLINE ? (void *)cshm_ctl(sh, r, n)->w : (void *)cshm_slot(sh, r, n);
}

int coll_gather_shm(cr_comm_t *c, const coll_args_t *a)
{
    coll_shm_t *sh = coll_shm_area(c);
    if (!sh) return coll_fallback(COLL_GATHER, c, a);
    uint64_t n = cshm_begin(sh);
    int me = c->rank, p = c->size;
    size_t bytes = a->bytes;
    if (me != a->root) {
        cshm_claim_data(sh, n, bytes <= CSHM_INLINE);
        cshm_pack(a->sbuf, a->scount, a->sdt, block_src(sh, me, n, bytes));
        cshm_post(sh, n, CSHM_FIN);
        return MPI_SUCCESS;
    }
    if (a->sbuf != MPI_IN_PLACE)
        cshm_copy(a->sbuf, a->scount, a->sdt, coll_elem(a->rbuf, (MPI_Aint)me * a->rcount, a->rdt),
                  a->rcount, a->rdt);
    for (int k = 1; k < p; k++) {
        int r = (me + k) % p;
        cshm_wait(sh, r, n, CSHM_FIN);
        cshm_unpack(block_src(sh, r, n, bytes), coll_elem(a->rbuf, (MPI_Aint)r * a->rcount, a->rdt),
                    a->rcount, a->rdt);
    }
    cshm_post(sh, n, CSHM_FIN);
    return MPI_SUCCESS;
}
