/* SPDX-License-Identifier: MIT */
/* Gather (and Gatherv) by direct sends: every rank sends its block to the
 * root, which receives them all at once straight into recvbuf with the
 * receive datatype.  One message step and no intermediate copies: for large
 * blocks, where the root's bandwidth is the limit anyway. */
#include "coll/coll.h"

/* Block i of the root's receive buffer: count and address */
static MPI_Aint rcount_of(const coll_args_t *a, int i)
{
    return a->rcounts.p ? cr_vec_get(a->rcounts, i) : a->rcount;
}
static void *rblock(const coll_args_t *a, int i)
{
    MPI_Aint disp = a->rdispls.p ? cr_vec_get(a->rdispls, i) : (MPI_Aint)i * a->rcount;
    return coll_elem(a->rbuf, disp, a->rdt);
}

int coll_gather_linear(coll_sched_t *s, const coll_args_t *a)
{
    int n = s->comm->size, me = s->comm->rank;
    if (me != a->root) {
        if (a->scount * (MPI_Aint)a->sdt->size > 0)
            coll_sched_send(s, a->sbuf, a->scount, a->sdt, a->root);
        return s->err;
    }
    if (a->sbuf != MPI_IN_PLACE)
        coll_sched_copy(s, a->sbuf, a->scount, a->sdt, rblock(a, me), rcount_of(a, me), a->rdt);
    for (int i = 0; i < n; i++)
        if (i != me && rcount_of(a, i) * (MPI_Aint)a->rdt->size > 0)
            coll_sched_recv(s, rblock(a, i), rcount_of(a, i), a->rdt, i);
    return s->err;
}

int coll_gatherv_linear(coll_sched_t *s, const coll_args_t *a)
{
    return coll_gather_linear(s, a);
}
