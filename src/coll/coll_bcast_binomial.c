/* SPDX-License-Identifier: MIT */
/* Broadcast down a binomial tree rooted at `root`.  With relative ranks
 * v = (rank - root) mod size, v receives from v - lowbit(v) and then sends to
 * v + m for every power of two m < lowbit(v) (the root: m < size), largest
 * subtree first.  ceil(log2 size) message steps; good for small messages. */
#include "coll/coll.h"

int coll_bcast_binomial(coll_sched_t *s, const coll_args_t *a)
{
    int n = s->comm->size, me = s->comm->rank;
    int v = (me - a->root + n) % n;
    int top;   /* first child distance to try */
    if (v == 0) {
        top = 1;
        while (top < n) top <<= 1;
    } else {
        int low = coll_lowbit(v);
        coll_sched_recv(s, a->rbuf, a->count, a->dt, (v - low + a->root) % n);
        coll_sched_next_round(s);
        top = low;
    }
    for (int m = top >> 1; m >= 1; m >>= 1)
        if (v + m < n) coll_sched_send(s, a->rbuf, a->count, a->dt, (v + m + a->root) % n);
    return s->err;
}
