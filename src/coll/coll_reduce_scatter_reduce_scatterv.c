/* SPDX-License-Identifier: MIT */
/* Reduce_scatter (and Reduce_scatter_block) as a reduce of the whole vector
 * to rank 0 (binomial, in rank order, so any op) followed by a linear
 * scatter of the blocks from rank 0.  log2(size) + 1 message steps: for
 * small vectors and for non-commutative ops.  Each block is computed once,
 * on rank 0. */
#include "coll/coll.h"

static MPI_Aint count_of(const coll_args_t *a, int i)
{
    return a->rcounts.p ? cr_vec_get(a->rcounts, i) : a->rcount;
}

int coll_reduce_scatter_reduce_scatterv(coll_sched_t *s, const coll_args_t *a)
{
    int n = s->comm->size, me = s->comm->rank;
    cr_datatype_t *dt = a->dt;
    MPI_Aint total = 0;
    for (int i = 0; i < n; i++) total += count_of(a, i);
    if (total == 0) return s->err;
    int inplace = a->sbuf == MPI_IN_PLACE;
    void *full = me == 0 ? coll_sched_tmp(s, total, dt) : NULL;
    if (s->err) return s->err;
    coll_args_t r = { .sbuf = inplace ? a->rbuf : a->sbuf, .rbuf = full, .count = total,
                      .dt = dt, .op = a->op, .root = 0 };
    int e = coll_reduce_binomial(s, &r);
    if (e) return e;
    coll_sched_next_round(s);
    if (me != 0) {
        if (count_of(a, me) > 0) coll_sched_recv(s, a->rbuf, count_of(a, me), dt, 0);
        return s->err;
    }
    MPI_Aint off = count_of(a, 0);
    coll_sched_copy(s, full, count_of(a, 0), dt, a->rbuf, count_of(a, 0), dt);
    for (int i = 1; i < n; i++) {
        if (count_of(a, i) > 0)
            coll_sched_send(s, coll_elem(full, off, dt), count_of(a, i), dt, i);
        off += count_of(a, i);
    }
    return s->err;
}
