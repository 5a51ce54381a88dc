/* SPDX-License-Identifier: MIT */
/* Allreduce by recursive doubling.  With p2 the largest power of two <= size
 * and r = size - p2: the first 2r ranks fold in pairs (even sends to odd, odd
 * combines even op odd), leaving p2 ranks with new ranks 0..p2-1 that each
 * stand for a contiguous block of old ranks.  Then in log2(p2) exchange steps
 * partners swap their partial results and both compute (lower block) op
 * (higher block); at the end the odd ranks of the fold send the result back.
 *
 * Every combination is done in rank order, and both partners of a step
 * compute the same operation on the same operands, so the result is correct
 * for non-commutative ops too and bit-identical on every rank. */
#include "coll/coll.h"

int coll_allreduce_recdbl(coll_sched_t *s, const coll_args_t *a)
{
    int n = s->comm->size, me = s->comm->rank;
    MPI_Aint count = a->count;
    cr_datatype_t *dt = a->dt;
    const cr_op_t *op = a->op;
    int inplace = a->sbuf == MPI_IN_PLACE;
    int p2 = 1;
    while (p2 * 2 <= n) p2 *= 2;
    int r = n - p2;

    if (me < 2 * r && me % 2 == 0) {
        /* fold into me+1, then get the result back */
        coll_sched_send(s, inplace ? a->rbuf : a->sbuf, count, dt, me + 1);
        coll_sched_next_round(s);
        coll_sched_recv(s, a->rbuf, count, dt, me + 1);
        return s->err;
    }
    void *acc = a->rbuf;
    void *tmp = coll_sched_tmp(s, count, dt);
    if (!tmp) return s->err;
    if (!inplace) coll_sched_copy(s, a->sbuf, count, dt, a->rbuf, count, dt);
    if (me < 2 * r) {
        coll_sched_recv(s, tmp, count, dt, me - 1);
        coll_sched_next_round(s);
        coll_sched_reduce(s, op, tmp, acc, count, dt);   /* acc = even op odd */
    }
    int nr = me < 2 * r ? me / 2 : me - r;
    for (int m = 1; m < p2; m <<= 1) {
        int np = nr ^ m;
        int peer = np < r ? 2 * np + 1 : np + r;
        coll_sched_send(s, acc, count, dt, peer);
        coll_sched_recv(s, tmp, count, dt, peer);
        coll_sched_next_round(s);
        if (np < nr) {
            coll_sched_reduce(s, op, tmp, acc, count, dt);   /* acc = theirs op mine */
        } else {
            coll_sched_reduce(s, op, acc, tmp, count, dt);   /* tmp = mine op theirs */
            void *t = acc;
            acc = tmp;
            tmp = t;
        }
    }
    if (acc != a->rbuf) coll_sched_copy(s, acc, count, dt, a->rbuf, count, dt);
    if (me < 2 * r) coll_sched_send(s, a->rbuf, count, dt, me - 1);
    return s->err;
}
