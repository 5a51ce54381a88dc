/* SPDX-License-Identifier: MIT */
/* Gather up a binomial tree rooted at `root`.  With relative ranks
 * v = (rank - root) mod size, the subtree of v is [v, v + lowbit(v)) (the
 * root's: every rank).  Each rank packs its block into a byte temporary at
 * position 0, receives each child's packed subtree at the child's offset, and
 * sends the whole subtree to its parent; a leaf sends its send buffer as is.
 * The root finally unpacks the blocks, rotated back to absolute rank order,
 * into recvbuf.  ceil(log2 size) message steps; each byte moves up to log2
 * size times, so this is for small blocks.
 *
 * Blocks travel packed (bytes), so any datatype works; the byte count of a
 * block is the same on every rank (type signatures match). */
#include "coll/coll.h"

int coll_gather_binomial(coll_sched_t *s, const coll_args_t *a)
{
    int n = s->comm->size, me = s->comm->rank, root = a->root;
    int v = coll_mod(me - root, n);
    cr_datatype_t *byte = cr_datatype_ptr(MPI_BYTE);
    int inplace = a->sbuf == MPI_IN_PLACE;   /* only the root may pass it */
    MPI_Aint blk = me == root ? a->rcount * (MPI_Aint)a->rdt->size
                              : a->scount * (MPI_Aint)a->sdt->size;
    if (me == root && !inplace)
        coll_sched_copy(s, a->sbuf, a->scount, a->sdt,
                        coll_elem(a->rbuf, (MPI_Aint)me * a->rcount, a->rdt), a->rcount, a->rdt);
    if (blk == 0 || n == 1) return s->err;

    int sub = v ? coll_lowbit(v) : n;   /* subtree size, cut at n */
    if (v + sub > n) sub = n - v;
    if (sub == 1) {   /* leaf */
        coll_sched_send(s, a->sbuf, a->scount, a->sdt, coll_mod(v - coll_lowbit(v) + root, n));
        return s->err;
    }
    char *tmp = coll_sched_tmp(s, (MPI_Aint)sub * blk, byte);
    if (!tmp) return s->err;
    if (v != 0) coll_sched_copy(s, a->sbuf, a->scount, a->sdt, tmp, blk, byte);
    for (int m = 1; m < sub; m <<= 1) {
        int c = v + m, csub = c + m <= n ? m : n - c;
        if (c >= n) break;
        coll_sched_recv(s, tmp + (size_t)m * (size_t)blk, (MPI_Aint)csub * blk, byte,
                        (c + root) % n);
    }
    coll_sched_next_round(s);
    if (v != 0) {
        coll_sched_send(s, tmp, (MPI_Aint)sub * blk, byte, coll_mod(v - coll_lowbit(v) + root, n));
        return s->err;
    }
    /* root: relative 1..n-root-1 are absolute root+1..n-1, the rest 0..root-1 */
    if (n - root - 1 > 0)
        coll_sched_copy(s, tmp + blk, (MPI_Aint)(n - root - 1) * blk, byte,
                        coll_elem(a->rbuf, (MPI_Aint)(root + 1) * a->rcount, a->rdt),
                        (MPI_Aint)(n - root - 1) * a->rcount, a->rdt);
    if (root > 0)
        coll_sched_copy(s, tmp + (size_t)(n - root) * (size_t)blk, (MPI_Aint)root * blk, byte,
                        a->rbuf, (MPI_Aint)root * a->rcount, a->rdt);
    return s->err;
}
