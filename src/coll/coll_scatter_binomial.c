/* SPDX-License-Identifier: MIT */
/* Scatter down a binomial tree rooted at `root`, the mirror of
 * coll_gather_binomial.c: the root packs the blocks in relative rank order
 * into a byte temporary; relative rank v receives the packed blocks of its
 * subtree [v, v + lowbit(v)) from its parent, passes each child's part on and
 * unpacks its own block; a leaf receives straight into recvbuf.  For small
 * blocks. */
#include "coll/coll.h"

int coll_scatter_binomial(coll_sched_t *s, const coll_args_t *a)
{
    int n = s->comm->size, me = s->comm->rank, root = a->root;
    int v = coll_mod(me - root, n);
    cr_datatype_t *byte = cr_datatype_ptr(MPI_BYTE);
    int inplace = a->rbuf == MPI_IN_PLACE;   /* only the root may pass it */
    MPI_Aint blk = me == root ? a->scount * (MPI_Aint)a->sdt->size
                              : a->rcount * (MPI_Aint)a->rdt->size;
    if (me == root && !inplace)
        coll_sched_copy(s, coll_elem(a->sbuf, (MPI_Aint)me * a->scount, a->sdt), a->scount,
                        a->sdt, a->rbuf, a->rcount, a->rdt);
    if (blk == 0 || n == 1) return s->err;

    int sub = v ? coll_lowbit(v) : n;
    if (v + sub > n) sub = n - v;
    int parent = coll_mod(v - coll_lowbit(v) + root, n);
    if (sub == 1) {   /* leaf */
        coll_sched_recv(s, a->rbuf, a->rcount, a->rdt, parent);
        return s->err;
    }
    char *tmp = coll_sched_tmp(s, (MPI_Aint)sub * blk, byte);
    if (!tmp) return s->err;
    if (v == 0) {
        /* pack absolute root..n-1 then 0..root-1 (own block included: simpler) */
        coll_sched_copy(s, coll_elem(a->sbuf, (MPI_Aint)root * a->scount, a->sdt),
                        (MPI_Aint)(n - root) * a->scount, a->sdt, tmp,
                        (MPI_Aint)(n - root) * blk, byte);
        if (root > 0)
            coll_sched_copy(s, a->sbuf, (MPI_Aint)root * a->scount, a->sdt,
                            tmp + (size_t)(n - root) * (size_t)blk, (MPI_Aint)root * blk, byte);
    } else {
        coll_sched_recv(s, tmp, (MPI_Aint)sub * blk, byte, parent);
        coll_sched_next_round(s);
        coll_sched_copy(s, tmp, blk, byte, a->rbuf, a->rcount, a->rdt);
    }
    /* largest subtree first: it has the longest way to go */
    int top = 1;
    while (top < sub) top <<= 1;
    for (int m = top >> 1; m >= 1; m >>= 1) {
        int c = v + m;
        if (m >= sub || c >= n) continue;
        int csub = c + m <= n ? m : n - c;
        coll_sched_send(s, tmp + (size_t)m * (size_t)blk, (MPI_Aint)csub * blk, byte,
                        (c + root) % n);
    }
    return s->err;
}
