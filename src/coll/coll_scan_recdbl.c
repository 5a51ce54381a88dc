/* SPDX-License-Identifier: MIT */
/* Scan by recursive doubling: recvbuf holds the reduction of a growing
 * window of ranks ending at mine.  In the step with distance d = 1, 2, 4, ...
 * rank p sends its window [p-d+1, p] to p + d and receives the window
 * [p-2d+1, p-d] from p - d, which it puts in front: acc = theirs op acc.
 * After ceil(log2 size) steps the window is [0, p].  Operands are always
 * combined in rank order, so non-commutative ops are fine. */
#include "coll/coll.h"

int coll_scan_recdbl(coll_sched_t *s, const coll_args_t *a)
{
    int n = s->comm->size, me = s->comm->rank;
    MPI_Aint count = a->count;
    cr_datatype_t *dt = a->dt;
    if (a->sbuf != MPI_IN_PLACE) coll_sched_copy(s, a->sbuf, count, dt, a->rbuf, count, dt);
    if (count == 0 || n == 1) return s->err;
    void *tmp = coll_sched_tmp(s, count, dt);
    if (!tmp) return s->err;
    coll_sched_next_round(s);
    int got = 0;
    for (int d = 1; d < n; d <<= 1) {
        if (got) coll_sched_reduce(s, a->op, tmp, a->rbuf, count, dt);
        if (me + d < n) coll_sched_send(s, a->rbuf, count, dt, me + d);
        got = me - d >= 0;
        if (got) coll_sched_recv(s, tmp, count, dt, me - d);
        coll_sched_next_round(s);
    }
    if (got) coll_sched_reduce(s, a->op, tmp, a->rbuf, count, dt);
    return s->err;
}
