/* SPDX-License-Identifier: MIT */
/* Allgather (and Allgatherv) around a ring: each rank first puts its own
 * block in place, then in step k = 0 .. size-2 sends block (rank - k) to its
 * right neighbour and receives block (rank - k - 1) from its left one, both
 * straight in recvbuf with the receive datatype.  size-1 steps, every byte
 * crosses one link per step: bandwidth-optimal, for large blocks. */
#include "coll/coll.h"

static MPI_Aint count_of(const coll_args_t *a, int i)
{
    return a->rcounts.p ? cr_vec_get(a->rcounts, i) : a->rcount;
}
static void *block(const coll_args_t *a, int i)
{
    MPI_Aint disp = a->rdispls.p ? cr_vec_get(a->rdispls, i) : (MPI_Aint)i * a->rcount;
    return coll_elem(a->rbuf, disp, a->rdt);
}

int coll_allgather_ring(coll_sched_t *s, const coll_args_t *a)
{
    int n = s->comm->size, me = s->comm->rank;
    int right = (me + 1) % n, left = coll_mod(me - 1, n);
    if (a->sbuf != MPI_IN_PLACE)
        coll_sched_copy(s, a->sbuf, a->scount, a->sdt, block(a, me), count_of(a, me), a->rdt);
    coll_sched_next_round(s);
    for (int k = 0; k < n - 1; k++) {
        int bs = coll_mod(me - k, n), br = coll_mod(me - k - 1, n);
        if (count_of(a, bs) * (MPI_Aint)a->rdt->size > 0)
            coll_sched_send(s, block(a, bs), count_of(a, bs), a->rdt, right);
        if (count_of(a, br) * (MPI_Aint)a->rdt->size > 0)
            coll_sched_recv(s, block(a, br), count_of(a, br), a->rdt, left);
        coll_sched_next_round(s);
    }
    return s->err;
}

int coll_allgatherv_ring(coll_sched_t *s, const coll_args_t *a)
{
    return coll_allgather_ring(s, a);
}
