/* SPDX-License-Identifier: MIT */
/* Allreduce as a reduce to rank 0 followed by a broadcast from rank 0, both
 * binomial and in one schedule.  The reduce keeps rank order, so this works
 * for any op; every rank gets the bytes rank 0 computed. */
#include "coll/coll.h"

int coll_allreduce_reduce_bcast(coll_sched_t *s, const coll_args_t *a)
{
    coll_args_t r = *a;
    r.root = 0;
    if (s->comm->rank == 0 && a->sbuf == MPI_IN_PLACE) r.sbuf = MPI_IN_PLACE;
    else if (a->sbuf == MPI_IN_PLACE) r.sbuf = a->rbuf;   /* only rank 0 may pass IN_PLACE to reduce */
    int e = coll_reduce_binomial(s, &r);
    if (e) return e;
    coll_sched_next_round(s);
    coll_args_t b = { .rbuf = a->rbuf, .count = a->count, .dt = a->dt, .root = 0 };
    return coll_bcast_binomial(s, &b);
}
