/* SPDX-License-Identifier: MIT */
/* Scatter (and Scatterv) by direct sends from the root, all started at once,
 * straight from sendbuf with the send datatype; every other rank receives
 * into recvbuf.  One message step, no copies: for large blocks. */
#include "coll/coll.h"

static MPI_Aint scount_of(const coll_args_t *a, int i)
{
    return a->scounts.p ? cr_vec_get(a->scounts, i) : a->scount;
}
static const void *sblock(const coll_args_t *a, int i)
{
    MPI_Aint disp = a->sdispls.p ? cr_vec_get(a->sdispls, i) : (MPI_Aint)i * a->scount;
    return coll_elem(a->sbuf, disp, a->sdt);
}

int coll_scatter_linear(coll_sched_t *s, const coll_args_t *a)
{
    int n = s->comm->size, me = s->comm->rank;
    if (me != a->root) {
        if (a->rcount * (MPI_Aint)a->rdt->size > 0)
            coll_sched_recv(s, a->rbuf, a->rcount, a->rdt, a->root);
        return s->err;
    }
    if (a->rbuf != MPI_IN_PLACE)
        coll_sched_copy(s, sblock(a, me), scount_of(a, me), a->sdt, a->rbuf, a->rcount, a->rdt);
    for (int i = 0; i < n; i++)
        if (i != me && scount_of(a, i) * (MPI_Aint)a->sdt->size > 0)
            coll_sched_send(s, sblock(a, i), scount_of(a, i), a->sdt, i);
    return s->err;
}

int coll_scatterv_linear(coll_sched_t *s, const coll_args_t *a)
{
    return coll_scatter_linear(s, a);
}
