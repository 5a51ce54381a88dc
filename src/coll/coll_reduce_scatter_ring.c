/* SPDX-License-Identifier: MIT */
/* Reduce_scatter (and Reduce_scatter_block) around a ring, for commutative
 * ops: each rank works on a copy W of its input vector.  In step
 * k = 0 .. size-2, rank p sends its partial block (p - k - 1) to p + 1,
 * receives the partial block (p - k - 2) from p - 1 and combines its own
 * contribution into it.  After size-1 steps rank p holds block p reduced over
 * every rank.  Each rank sends and receives about one vector in total:
 * bandwidth-optimal, for large vectors.  The order of the operands differs
 * per block, hence commutative ops only (each block is still computed on one
 * rank only). */
#include <stdlib.h>
#include "coll/coll.h"

static MPI_Aint count_of(const coll_args_t *a, int i)
{
    return a->rcounts.p ? cr_vec_get(a->rcounts, i) : a->rcount;
}

int coll_reduce_scatter_ring(coll_sched_t *s, const coll_args_t *a)
{
    int n = s->comm->size, me = s->comm->rank;
    cr_datatype_t *dt = a->dt;
    MPI_Aint *off = malloc((size_t)(n + 1) * sizeof(*off));
    if (!off) return s->err = cr_error(MPI_ERR_NO_MEM, "out of memory building reduce_scatter");
    MPI_Aint maxc = 0;
    off[0] = 0;
    for (int i = 0; i < n; i++) {
        off[i + 1] = off[i] + count_of(a, i);
        if (count_of(a, i) > maxc) maxc = count_of(a, i);
    }
    const void *in = a->sbuf == MPI_IN_PLACE ? a->rbuf : a->sbuf;
    if (off[n] == 0) goto out;
    if (n == 1) {
        coll_sched_copy(s, in, off[1], dt, a->rbuf, off[1], dt);
        goto out;
    }
    void *w = coll_sched_tmp(s, off[n], dt);
    void *r = coll_sched_tmp(s, maxc, dt);
    if (s->err) goto out;
    coll_sched_copy(s, in, off[n], dt, w, off[n], dt);
    int right = (me + 1) % n, left = coll_mod(me - 1, n);
    int pending = -1;   /* block received in the previous step, to combine */
    for (int k = 0; k < n - 1; k++) {
        if (pending >= 0)   /* W[b] = received op mine */
            coll_sched_reduce(s, a->op, r, coll_elem(w, off[pending], dt), count_of(a, pending), dt);
        int bs = coll_mod(me - k - 1, n), br = coll_mod(me - k - 2, n);
        if (count_of(a, bs) > 0)
            coll_sched_send(s, coll_elem(w, off[bs], dt), count_of(a, bs), dt, right);
        if (count_of(a, br) > 0) coll_sched_recv(s, r, count_of(a, br), dt, left);
        coll_sched_next_round(s);
        pending = br;
    }
    /* the last block received is my own */
    coll_sched_reduce(s, a->op, r, coll_elem(w, off[me], dt), count_of(a, me), dt);
    coll_sched_copy(s, coll_elem(w, off[me], dt), count_of(a, me), dt, a->rbuf, count_of(a, me), dt);
out:
    free(off);
    return s->err;
}
